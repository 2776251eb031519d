"""Several server processes on one PostgreSQL database and one Redis bus
(issue 24): two application instances in this test process, each with its
own hub, tables and database connections, share one database of record."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from typing import Any

import httpx
import pytest
from sqlalchemy import func, select

from marjolet.web.bus import ACCOUNTS_CHANNEL, LOBBY_CHANNEL
from marjolet.web.db import actions, games, make_engine
from web_support import Browser, LiveServer, fast_config, first_moves, live_server, wait_matched

RULES = {"profile": "classic", "target": 200}


@contextmanager
def two_servers(db: str, broker: str | None, **changes: Any) -> Iterator[tuple[LiveServer, ...]]:
    config = fast_config(db, broker=broker, **changes)
    with live_server(config) as a, live_server(config) as b:
        yield a, b


@contextmanager
def two_clients(
    db: str, broker: str, **changes: Any
) -> Iterator[tuple[LiveServer, LiveServer, httpx.Client, httpx.Client]]:
    """Two processes and an HTTP client of each."""
    with two_servers(db, broker, **changes) as (a, b), a.http() as on_a, b.http() as on_b:
        yield a, b, on_a, on_b


def wait_subscribed(redis_url: str, channel: str, count: int) -> None:
    """Until ``count`` subscribers listen on ``channel`` (the servers
    subscribe as they start)."""
    import time

    import redis

    client = redis.Redis.from_url(redis_url)
    try:
        deadline = time.monotonic() + 10
        while dict(client.pubsub_numsub(channel)).get(channel.encode(), 0) < count:
            assert time.monotonic() < deadline, f"nobody subscribed to {channel}"
            time.sleep(0.02)
    finally:
        client.close()


def friend_game(a: LiveServer, b: LiveServer) -> tuple[str, str, str]:
    """A friend game made on ``a`` and joined on ``b``: (id, token 0, token 1)."""
    game = a.new_game(mode="friend", name="Ann", rules=RULES)
    invite = game["invite_url"].split("#invite=")[1]
    with b.http() as client:
        joined = client.post(f"/api/games/{game['id']}/join", json={"invite": invite, "name": "Bo"})
    assert joined.status_code == 200, joined.text
    return game["id"], game["token"], joined.json()["token"]


def stored(db: str, game_id: str) -> tuple[int, int]:
    """(actions stored, the game's version) read straight from the database."""
    engine = make_engine(db)
    try:
        with engine.connect() as conn:
            count = conn.execute(
                select(func.count()).select_from(actions).where(actions.c.game_id == game_id)
            ).scalar_one()
            version = conn.execute(
                select(games.c.version).where(games.c.id == game_id)
            ).scalar_one()
    finally:
        engine.dispose()
    return int(count), int(version)


def settle(browser: Browser, version: int) -> dict[str, Any]:
    """The browser's picture once it reached ``version``."""
    if browser.state is not None and browser.state["version"] >= version:
        return browser.state
    return browser.recv_until(lambda m: m["type"] == "state" and m["version"] >= version)


def claim_once_the_grace_is_over(browser: Browser, grace: float) -> dict[str, Any]:
    """Claim the game after ``grace`` seconds, again while the claim is
    refused as early (the server's sweep may lag on a loaded machine), and
    return the state that ends the match."""
    import time

    time.sleep(grace + 0.3)
    end = time.monotonic() + 5  # a claim still refused 5 s after the grace fails
    while True:
        browser.send({"type": "claim"})
        answer = browser.recv_until(
            lambda m: m["type"] == "error" or (m["type"] == "state" and m["match_over"])
        )
        if answer["type"] == "state":
            return answer
        assert answer["code"] == "cannot_claim" and time.monotonic() < end, answer
        time.sleep(0.3)


def test_the_same_move_sent_to_two_processes_at_once_is_taken_once(
    postgres_url: str, redis_url: str
) -> None:
    with two_servers(postgres_url, redis_url) as (a, b):
        game_id, token0, token1 = friend_game(a, b)
        tokens = {0: token0, 1: token1}
        with ExitStack() as stack:
            seats = {
                seat: [
                    stack.enter_context(
                        Browser.open(server, game_id, {"type": "hello", "token": tokens[seat]})
                    )
                    for server in (a, b)
                ]
                for seat in (0, 1)
            }
            everyone = [*seats[0], *seats[1]]
            state = settle(everyone[0], 1)
            for browser in everyone:
                settle(browser, state["version"])
            taken = 0
            for _ in range(24):
                if state["deal_over"]:
                    break
                twins = seats[state["to_move"]]
                mine = twins[0].state
                assert mine is not None
                before = stored(postgres_url, game_id)
                move, version = mine["legal"][0]["action"], mine["version"]
                message = json.dumps({"type": "act", "action": move, "version": version})
                go = threading.Barrier(2)

                def send(browser: Browser, text: str = message, barrier: Any = go) -> None:
                    barrier.wait(5)
                    browser.send(text)

                senders = [threading.Thread(target=send, args=(t,)) for t in twins]
                for t in senders:
                    t.start()
                for t in senders:
                    t.join(10)
                refusals = []
                for browser in twins:  # a connection's messages are answered in order
                    browser.send({"type": "ping"})
                    start = len(browser.received)
                    browser.recv_until(lambda m: m["type"] == "pong")
                    for text in browser.received[start:]:
                        if json.loads(text)["type"] == "error":
                            refusals.append(json.loads(text)["code"])
                assert refusals == ["stale"], refusals  # exactly one was refused
                after = stored(postgres_url, game_id)
                assert after[0] == before[0] + 1  # the move is stored once
                assert after[1] == before[1] + 1  # and the version bumped once
                taken += 1
                states = [settle(browser, version + 1) for browser in everyone]
                assert {s["version"] for s in states} == {version + 1}
                keys = ("to_move", "stock", "lead", "points", "won", "tricks_played")
                views = {json.dumps({k: s[k] for k in keys}) for s in states}
                assert len(views) == 1  # every seat and process on the same position
                state = states[0]
            assert taken >= 10


def test_a_seat_reconnecting_to_another_process_sees_every_move_it_missed(
    postgres_url: str, redis_url: str
) -> None:
    with two_servers(postgres_url, redis_url) as (a, b):
        game_id, token0, token1 = friend_game(a, b)
        with Browser.open(a, game_id, {"type": "hello", "token": token0}) as ann:
            with Browser.open(b, game_id, {"type": "hello", "token": token1}) as bo:
                for p in (ann, bo):
                    settle(p, 1)
                played = 0
                while played < 8:
                    mover = next(p for p in (ann, bo) if p.state and p.state["legal"])
                    state = mover.state
                    assert state is not None
                    mover.act(state["legal"][0]["action"])
                    for p in (ann, bo):
                        settle(p, state["version"] + 1)
                    played += 1
                last = ann.state
                assert last is not None
            # Bo leaves b; Ann plays on a; Bo comes back on a, then on b
            mover_token = token0 if last["legal"] else token1
            with Browser.open(a, game_id, {"type": "hello", "token": mover_token}) as again:
                now = settle(again, last["version"])
                again.act(now["legal"][0]["action"])
                after = settle(again, now["version"] + 1)
            for server in (a, b):
                with Browser.open(server, game_id, {"type": "hello", "token": token1}) as back:
                    seen = settle(back, last["version"] + 1)
                    assert seen["version"] == last["version"] + 1
                    assert len(seen["log"]) == len(after["log"])  # the deal's every move


@pytest.mark.parametrize("scheme", ["sqlite"])
def test_one_process_on_a_sqlite_file_needs_no_bus(tmp_path: Any, scheme: str) -> None:
    with live_server(fast_config(tmp_path / "web.sqlite3")) as server:
        hub = server.app.state.hub
        assert not hub.shared
        game = server.new_game(mode="friend", name="Ann", rules=RULES)
        assert game["id"]


def watch_until(browser: Browser, version: int, timeout: float = 30) -> dict[str, Any]:
    return browser.recv_until(
        lambda m: m["type"] == "state" and (m["version"] >= version or m["match_over"]), timeout
    )


def test_one_process_plays_a_game_s_bots_and_never_a_move_twice(
    postgres_url: str, redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from marjolet.web.tables import Table

    thought: list[tuple[int, int]] = []  # (which hub, the version thought about)
    think = Table._think

    async def counted(self: Table, bot: Any, turn: Any) -> Any:
        thought.append((id(self.hub), turn.version))
        return await think(self, bot, turn)

    monkeypatch.setattr(Table, "_think", counted)
    with two_servers(postgres_url, redis_url, watch_delay=0.01, sync_interval=0.2) as (a, b):
        game = a.new_game(mode="watch", bots=["random", "random"], rules=RULES)
        with (
            Browser.open(a, game["id"], {"type": "hello", "watch": True}) as on_a,
            Browser.open(b, game["id"], {"type": "hello", "watch": True}) as on_b,
        ):
            end = watch_until(on_b, 1 << 30, timeout=60)
            assert end["match_over"]
            assert watch_until(on_a, end["version"])["version"] == end["version"]
    versions = [v for _, v in thought]
    assert len(versions) == len(set(versions))  # no move was thought of twice
    assert len({h for h, _ in thought}) == 1  # by one process
    count, _ = stored(postgres_url, game["id"])
    assert count == len(thought)


def test_a_dead_owner_s_bots_are_taken_over_within_its_lease(
    postgres_url: str, redis_url: str
) -> None:
    import time

    lease = 1.5
    changes = {"watch_delay": 0.05, "sync_interval": 0.2, "lease_seconds": lease}
    with two_servers(postgres_url, redis_url, **changes) as (a, b):
        game = a.new_game(mode="watch", bots=["random", "random"], rules=RULES)
        hub_a, hub_b = a.app.state.hub, b.app.state.hub
        with Browser.open(b, game["id"], {"type": "hello", "watch": True}) as on_b:
            state = watch_until(on_b, 6)
            assert hub_a.leases.owner_of(f"bot:{game['id']}") == hub_a.leases.owner

            async def dead(job: str) -> bool:  # a's heartbeat stops; its lease stays
                return False

            hub_a.own = dead
            died = time.monotonic()
            state = watch_until(on_b, state["version"] + 3)  # the moves a had started
            later = watch_until(on_b, state["version"] + 5, timeout=lease + 20)
            took = time.monotonic() - died
            assert later["version"] >= state["version"] + 5 or later["match_over"]
            assert hub_b.leases.owner_of(f"bot:{game['id']}") == hub_b.leases.owner
            assert took < lease + 8  # a few sweeps of slack for a loaded machine


def test_a_seat_connected_to_another_process_is_not_away_and_cannot_be_claimed(
    postgres_url: str, redis_url: str
) -> None:
    import time

    changes = {"away_grace": 0.5, "sync_interval": 0.2}
    with two_servers(postgres_url, redis_url, **changes) as (a, b):
        game_id, token0, token1 = friend_game(a, b)
        with Browser.open(b, game_id, {"type": "hello", "token": token1}) as bo:
            with Browser.open(a, game_id, {"type": "hello", "token": token0}) as ann:
                settle(ann, 1)
                seen = bo.recv_until(
                    lambda m: m["type"] == "presence" and m["connected"] == [True, True]
                )
                assert seen["away"] == [None, None]
                first_moves(ann, bo)  # (a claim before Ann's first move would cancel the game)
                time.sleep(1.0)  # twice the grace: Ann never left, she is on a
                bo.send({"type": "claim"})
                assert bo.error()["code"] == "cannot_claim"
            # Ann's last connection closed: after the grace Bo may claim
            bo.recv_until(lambda m: m["type"] == "presence" and m["connected"] == [False, True])
            done = claim_once_the_grace_is_over(bo, grace=0.5)
            assert done["winner"] == 1


def test_a_guest_s_seek_accepted_on_another_process_seats_its_owner(
    postgres_url: str, redis_url: str
) -> None:
    from websockets.sync.client import connect

    with two_clients(postgres_url, redis_url, pairing_interval=0.2) as (a, b, owner, other):
        seek = owner.post("/api/seeks", json={"name": "Hal", "rules": RULES}).json()
        with connect(f"{a.ws_base}/ws/lobby", open_timeout=10) as lobby:
            lobby.send(json.dumps({"type": "follow", "seek": seek["id"], "token": seek["token"]}))
            seat = other.post(f"/api/seeks/{seek['id']}/accept", json={"name": "Ivy"}).json()
            while True:  # told by a, though b made the game
                msg = json.loads(lobby.recv(timeout=10))
                if msg["type"] == "matched":
                    break
        mine = msg["game"]
        assert mine["id"] == seat["id"] and mine["seat"] == 1 - seat["seat"]
        assert mine["token"] and mine["token"] != seat["token"]
        for server, client in ((a, owner), (b, other)):  # any process says the same
            status = client.get(f"/api/seeks/{seek['id']}", params={"token": seek["token"]}).json()
            assert status["game"] == mine
            with Browser.open(server, seat["id"], {"type": "hello", "token": mine["token"]}) as me:
                assert me.recv_until(lambda m: m["type"] == "welcome")["seat"] == mine["seat"]


def test_play_now_pairs_two_players_waiting_on_two_processes_into_one_game(
    postgres_url: str, redis_url: str
) -> None:
    with two_clients(postgres_url, redis_url, pairing_interval=0.1) as (a, b, on_a, on_b):
        ann = on_a.post("/api/play-now", json={"name": "Ann"}).json()["key"]
        bo = on_b.post("/api/play-now", json={"name": "Bo"}).json()["key"]
        games_ = {"ann": wait_matched(on_b, ann), "bo": wait_matched(on_a, bo)}  # asked crosswise
        assert games_["ann"]["id"] == games_["bo"]["id"]
        assert {games_["ann"]["seat"], games_["bo"]["seat"]} == {0, 1}
        for client in (on_a, on_b):  # any process says the same
            assert client.get(f"/api/play-now/{ann}").json()["game"] == games_["ann"]
        for server, game in ((a, games_["ann"]), (b, games_["bo"])):
            hello = {"type": "hello", "token": game["token"]}
            with Browser.open(server, game["id"], hello) as me:
                assert me.recv_until(lambda m: m["type"] == "welcome")["seat"] == game["seat"]
        left = on_b.request("DELETE", f"/api/play-now/{ann}", json={})
        assert left.status_code == 404  # matched: no longer in the queue
    engine = make_engine(postgres_url)
    try:
        with engine.connect() as db:
            assert db.execute(select(func.count()).select_from(games)).scalar_one() == 1
    finally:
        engine.dispose()


def test_a_play_now_place_nobody_asks_about_is_given_up_and_never_paired(
    postgres_url: str, redis_url: str
) -> None:
    import time

    timeout = 3.0  # seconds: a loaded machine's pauses stay well below it
    changes = {"pairing_interval": 0.1, "play_now_timeout": timeout}
    with two_clients(postgres_url, redis_url, **changes) as (_, _, on_a, on_b):
        gone = on_a.post("/api/play-now", json={"name": "Gus"}).json()["key"]  # never asks
        time.sleep(timeout + 1.0)
        here = on_b.post("/api/play-now", json={"name": "Hal"}).json()["key"]
        for _ in range(10):  # alone: Gus is given up
            assert on_b.get(f"/api/play-now/{here}").json()["status"] == "waiting"
            time.sleep(0.1)
        assert on_a.get(f"/api/play-now/{gone}").status_code == 404
        assert on_b.get("/api/lobby").json()["waiting"] == 1
        other = on_a.post("/api/play-now", json={"name": "Ivy"}).json()["key"]
        assert wait_matched(on_b, here)["id"] == wait_matched(on_a, other)["id"]


def test_a_review_asked_on_two_processes_is_computed_once(
    postgres_url: str, redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from test_web_review import count_judgements, finished_game, wait_done

    judged = count_judgements(monkeypatch)
    with two_servers(postgres_url, redis_url, review_budget=0.0) as (a, b):
        game = finished_game(a)
        url = f"/api/games/{game['id']}/review"
        answers: list[dict[str, Any]] = []
        go = threading.Barrier(2)

        def ask(server: LiveServer) -> None:
            with server.http() as client:
                go.wait(5)
                answers.append(client.post(url, json={}).json())

        askers = [threading.Thread(target=ask, args=(s,)) for s in (a, b)]
        for t in askers:
            t.start()
        for t in askers:
            t.join(30)
        assert {x["status"] for x in answers} <= {"running", "done"}
        done = [wait_done(server, game["id"]) for server in (a, b)]
        assert done[0] == done[1] and done[0]["status"] == "done"
    assert len({reviewer for reviewer, _, _ in judged}) == 1  # one computation
    places = [(d, x) for _, d, x in judged]
    assert len(places) == len(set(places)) == len(done[0]["review"]["decisions"])



def test_a_review_under_way_on_a_process_that_stops_cleanly_is_taken_over_and_stored_once(
    postgres_url: str, redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    import time

    from marjolet.analysis import Reviewer
    from marjolet.web.reviews import ReviewBook
    from test_web_review import finished_game, wait_done

    judged: list[tuple[int, int, int]] = []  # (reviewer, deal, action)
    judge, put = Reviewer.judge, ReviewBook.put
    puts: list[str] = []

    def slow(self: Reviewer, point: Any) -> Any:  # the review outlasts a's stop
        judged.append((id(self), point.deal_index, point.action_index))
        time.sleep(0.02)
        return judge(self, point)

    def counted(self: ReviewBook, game_id: str, *args: Any) -> None:
        puts.append(game_id)
        put(self, game_id, *args)

    monkeypatch.setattr(Reviewer, "judge", slow)
    monkeypatch.setattr(ReviewBook, "put", counted)
    config = fast_config(postgres_url, broker=redis_url, review_budget=0.0)
    with live_server(config) as b:
        with live_server(config) as a, a.http() as on_a:  # a graceful stop at the end
            game = finished_game(a)
            url = f"/api/games/{game['id']}/review"
            assert on_a.post(url, json={}).json()["status"] == "running"
            end = time.monotonic() + 30
            while on_a.get(url).json()["done"] < 2 and time.monotonic() < end:
                time.sleep(0.05)
            assert on_a.get(url).json()["status"] == "running"
        stopped = len(judged)
        answers: list[dict[str, Any]] = []
        go = threading.Barrier(2)

        def ask() -> None:  # two pages polling b at once: it takes the review over once
            with b.http() as on_b:
                go.wait(5)
                answers.append(on_b.get(url).json())

        askers = [threading.Thread(target=ask) for _ in range(2)]
        for t in askers:
            t.start()
        for t in askers:
            t.join(30)
        assert [x["status"] for x in answers] == ["running", "running"]  # not "none"
        done = wait_done(b, game["id"])
        assert done["status"] == "done", done
    assert puts == [game["id"]]  # stored once, by b
    after = judged[stopped:]
    assert len({reviewer for reviewer, _, _ in after}) == 1
    places = [(d, x) for _, d, x in after]
    assert len(places) == len(set(places)) == len(done["review"]["decisions"])


def test_a_lobby_socket_hears_at_once_of_an_offer_made_on_another_process(
    postgres_url: str, redis_url: str
) -> None:

    from websockets.sync.client import connect

    with (
        two_clients(postgres_url, redis_url) as (a, _, _, other),
        connect(f"{a.ws_base}/ws/lobby", open_timeout=10) as lobby,
    ):
        wait_subscribed(redis_url, LOBBY_CHANNEL, 2)  # both subscribe as they start
        other.post("/api/seeks", json={"name": "Hal", "rules": RULES})
        heard = json.loads(lobby.recv(timeout=10))  # (no sweep would tell it)
        assert heard == {"type": "lobby"}


def test_a_player_waiting_on_a_lobby_socket_is_kept_alive_by_it_and_told_the_game(
    postgres_url: str, redis_url: str
) -> None:
    import time

    from websockets.sync.client import connect

    timeout = 3.0  # seconds: a loaded machine's pauses stay well below it
    changes = {"pairing_interval": 0.1, "play_now_timeout": timeout}
    with (
        two_clients(postgres_url, redis_url, **changes) as (a, _, on_a, on_b),
        connect(f"{a.ws_base}/ws/lobby", open_timeout=10) as lobby,
    ):
        ann = on_a.post("/api/play-now", json={"name": "Ann"}).json()["key"]
        for _ in range(7):  # she never polls; her page says `wait` again every second
            lobby.send(json.dumps({"type": "wait", "key": ann}))
            time.sleep(timeout / 3)  # over twice the time-out: her socket kept the place
        bo = on_b.post("/api/play-now", json={"name": "Bo"}).json()["key"]
        while True:
            told = json.loads(lobby.recv(timeout=10))
            if told["type"] == "play_now":
                break
        assert told["key"] == ann and told["status"] == "matched"
        assert told["game"]["id"] == wait_matched(on_b, bo)["id"]
        lobby.send(json.dumps({"type": "wait", "key": "no-such-place"}))
        while (refused := json.loads(lobby.recv(timeout=10)))["type"] != "error":
            pass
        assert refused["code"] == "not_in_queue"


# -- account events: sessions, turns and deletions heard by every process ------------------------


@pytest.fixture
def no_session_sweep(monkeypatch: pytest.MonkeyPatch) -> None:
    """The periodic check of the table sockets' sessions waits an hour, so
    that what a test sees came over the bus, not from that backstop."""
    monkeypatch.setattr("marjolet.web.online.SESSION_CHECK_EVERY", 3600.0)


def close_code(browser: Browser) -> int | None:
    """The code the server closed the socket with (reading until then)."""
    from websockets.exceptions import ConnectionClosed

    with pytest.raises(ConnectionClosed) as closed:
        while True:
            browser.recv()
    return None if closed.value.rcvd is None else closed.value.rcvd.code


def welcome_of(browser: Browser) -> dict[str, Any]:
    welcome: dict[str, Any] = next(
        json.loads(text) for text in browser.received if json.loads(text)["type"] == "welcome"
    )
    return welcome


def still_open(browser: Browser) -> None:
    """The socket answers a ping: it was not closed."""
    browser.send({"type": "ping"})
    browser.recv_until(lambda m: m["type"] == "pong")


@pytest.mark.usefixtures("no_session_sweep")
def test_a_device_seated_on_another_process_is_closed_when_its_account_logs_out_elsewhere(
    postgres_url: str, redis_url: str
) -> None:
    from marjolet.web.online import CLOSE_SESSION_ENDED
    from test_web_account_settings import second_device
    from test_web_online import account_seat, rated_game, sign_up

    with two_servers(postgres_url, redis_url) as (a, b):
        julie, karim = sign_up(a, "julie"), sign_up(a, "karim")
        laptop = second_device(b, "julie")
        mine, _ = rated_game(a, julie, karim)
        wait_subscribed(redis_url, ACCOUNTS_CHANNEL, 2)
        with (
            account_seat(b, mine["id"], laptop) as away,
            account_seat(a, mine["id"], julie) as here,
        ):
            assert julie.request("DELETE", "/api/me/sessions", json={}).json() == {"ended": 1}
            assert close_code(away) == CLOSE_SESSION_ENDED  # on b, told by a
            still_open(here)


@pytest.mark.usefixtures("no_session_sweep")
def test_a_lobby_socket_on_another_process_is_closed_when_its_account_logs_out_elsewhere(
    postgres_url: str, redis_url: str
) -> None:
    from test_web_account_settings import (
        answers,
        closed_for_session,
        lobby_socket,
        second_device,
    )
    from test_web_online import sign_up

    with two_servers(postgres_url, redis_url) as (a, b):
        julie = sign_up(a, "julie")
        laptop = second_device(b, "julie")
        wait_subscribed(redis_url, ACCOUNTS_CHANNEL, 2)
        with lobby_socket(b, laptop) as away, lobby_socket(b, julie) as here:
            assert julie.request("DELETE", "/api/me/sessions", json={}).json() == {"ended": 1}
            assert closed_for_session(away)  # on b, told by a
            answers(here)


def test_a_device_on_another_process_whose_logout_went_unheard_is_closed_by_the_session_check(
    postgres_url: str, redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from marjolet.web.bus import RedisBus
    from marjolet.web.online import CLOSE_SESSION_ENDED
    from test_web_account_settings import second_device
    from test_web_online import account_seat, rated_game, sign_up

    async def lost(*_: Any) -> None:
        raise ConnectionError("the broker went away")

    monkeypatch.setattr(RedisBus, "publish_account", lost)
    monkeypatch.setattr("marjolet.web.online.SESSION_CHECK_EVERY", 0.5)
    with two_servers(postgres_url, redis_url) as (a, b):
        julie, karim = sign_up(a, "julie"), sign_up(a, "karim")
        laptop = second_device(b, "julie")
        mine, _ = rated_game(a, julie, karim)
        with account_seat(b, mine["id"], laptop) as away:
            assert julie.request("DELETE", "/api/me/sessions", json={}).json() == {"ended": 1}
            assert close_code(away) == CLOSE_SESSION_ENDED  # b's check, within a second


@pytest.mark.usefixtures("no_session_sweep")
def test_a_password_change_keeps_the_device_s_table_on_another_process_open_when_logging_out(
    postgres_url: str, redis_url: str
) -> None:
    from marjolet.web.online import CLOSE_SESSION_ENDED
    from test_web_account_settings import PASSWORD, second_device
    from test_web_online import account_seat, rated_game, sign_up

    with two_servers(postgres_url, redis_url) as (a, b):
        lena, marc = sign_up(a, "lena"), sign_up(a, "marc")
        mine, _ = rated_game(a, lena, marc)
        wait_subscribed(redis_url, ACCOUNTS_CHANNEL, 2)
        with account_seat(b, mine["id"], lena) as here:  # this device's table, on b
            change = {"current": PASSWORD, "new": "battery staple"}
            answer = lena.post("/api/me/password", json=change)
            assert answer.status_code == 200, answer.text  # on a
            laptop = second_device(b, "lena", "battery staple")
            with account_seat(b, mine["id"], laptop) as away:
                assert lena.request("DELETE", "/api/me/sessions", json={}).json() == {"ended": 1}
                assert close_code(away) == CLOSE_SESSION_ENDED
            still_open(here)
            here.send({"type": "claim"})  # proved by the new session: refused, not closed
            assert here.error()["code"] != "internal"
            still_open(here)


def test_a_lobby_socket_on_another_process_hears_at_once_that_its_turn_came(
    postgres_url: str, redis_url: str
) -> None:
    from websockets.sync.client import connect

    from marjolet.web.online import SESSION_COOKIE
    from test_web_online import pass_the_turn, rated_game, sign_up
    from web_support import TIMEOUT

    with two_servers(postgres_url, redis_url) as (a, b):
        kim, lee = sign_up(a, "kim"), sign_up(a, "lee")
        game, _ = rated_game(a, kim, lee, days_per_move=3)
        mover, other = (kim, lee) if kim.get("/api/me").json()["waiting"] else (lee, kim)
        wait_subscribed(redis_url, ACCOUNTS_CHANNEL, 2)
        cookie = {"Cookie": f"{SESSION_COOKIE}={other.cookies[SESSION_COOKIE]}"}
        with connect(f"{b.ws_base}/ws/lobby", additional_headers=cookie) as theirs:
            theirs.send("not json")  # answered once the socket listens as the account's
            assert json.loads(theirs.recv(timeout=TIMEOUT))["type"] == "error"
            pass_the_turn(a, game["id"], mover)  # on a
            while (told := json.loads(theirs.recv(timeout=TIMEOUT)))["type"] != "turn":
                pass
            assert told == {"type": "turn"}


def test_a_finished_game_held_by_another_process_renames_a_deleted_player_at_once(
    postgres_url: str, redis_url: str
) -> None:
    import time

    from marjolet.web.accounts import DELETED_NAME
    from test_web_account_settings import PASSWORD
    from test_web_online import account_seat, rated_game, resign, sign_up

    with two_servers(postgres_url, redis_url) as (a, b):
        hugo, ines = sign_up(a, "hugo"), sign_up(a, "ines")
        mine, _ = rated_game(a, hugo, ines)
        resign(a, mine["id"], hugo)
        wait_subscribed(redis_url, ACCOUNTS_CHANNEL, 2)
        with account_seat(b, mine["id"], ines) as kept:  # b holds the finished game
            assert "hugo" in welcome_of(kept)["players"]
            assert hugo.request("DELETE", "/api/me", json={"password": PASSWORD}).status_code == 200
            # the page open there is shown the new name at once, and no rating for it
            shown = kept.recv_until(lambda m: m["type"] == "state" and DELETED_NAME in m["players"])
            assert "hugo" not in shown["players"]
            gone = shown["players"].index(DELETED_NAME)
            told = [json.loads(text) for text in kept.received]
            assert [m for m in told if m["type"] == "accounts"][-1]["accounts"][gone] is None
            held = b.app.state.hub.tables[mine["id"]]
            deadline = time.monotonic() + 10
            while DELETED_NAME not in held.game.players:
                assert time.monotonic() < deadline, held.game.players
                time.sleep(0.02)
            with account_seat(b, mine["id"], ines) as again:
                names = welcome_of(again)["players"]
            assert DELETED_NAME in names and "hugo" not in names
