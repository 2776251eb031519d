"""Several server processes on one PostgreSQL database and one Redis bus
(issue 24): countdowns and claims, one ending and one deadline whichever
process a player is on. Split from ``tests/test_web_shared.py`` (whose
helpers it uses) so that ``make test``'s two workers share the load."""

from __future__ import annotations

import json
import threading
from contextlib import ExitStack
from typing import Any

import pytest
from sqlalchemy import func, select

from marjolet.web.db import games, make_engine, rating_changes
from test_web_shared import friend_game, settle, stored, two_clients, two_servers
from web_support import Browser, first_moves

# -- countdowns and claims: one ending, one deadline (issue 24) --------------------------------


def rating_rows(db: str, game_id: str) -> int:
    engine = make_engine(db)
    try:
        with engine.connect() as conn:
            return int(
                conn.execute(
                    select(func.count())
                    .select_from(rating_changes)
                    .where(rating_changes.c.game_id == game_id)
                ).scalar_one()
            )
    finally:
        engine.dispose()


def test_a_claim_sent_to_two_processes_at_once_ends_the_game_once_with_one_rating_change(
    postgres_url: str, redis_url: str
) -> None:
    import time

    from test_web_online import rated_game, rating, seat_socket, sign_up

    changes = {"away_grace": 0.5, "sync_interval": 0.2}
    with two_servers(postgres_url, redis_url, **changes) as (a, b):
        mia, ned = sign_up(a, "mia"), sign_up(b, "ned")
        mine, theirs = rated_game(a, mia, ned)
        game_id, hello = mine["id"], {"type": "hello", "account": True}
        with ExitStack() as stack:
            tabs = [stack.enter_context(seat_socket(s, game_id, mia, hello)) for s in (a, b)]
            with seat_socket(b, game_id, ned, hello) as other:
                other.recv_until(lambda m: m["type"] == "welcome")
                for tab in tabs:  # ned seen by both of mia's processes (a's sweep)
                    tab.recv_until(
                        lambda m: m["type"] == "presence" and m["connected"] == [True, True]
                    )
                first_moves(tabs[0], other)  # ned took part: his leaving loses the game
            for tab in tabs:  # ned left on b: both of mia's processes count him away
                tab.recv_until(
                    lambda m: m["type"] == "presence" and m["away"][theirs["seat"]] is not None
                )
            # past the grace, and ned's beacon on b gone (three sweeps), with
            # room for a loaded machine: a claim must not meet a live beacon
            time.sleep(2.5)
            before = stored(postgres_url, game_id)
            go = threading.Barrier(2)

            def claim(tab: Browser) -> None:
                go.wait(5)
                tab.send({"type": "claim"})

            senders = [threading.Thread(target=claim, args=(t,)) for t in tabs]
            for t in senders:
                t.start()
            for t in senders:
                t.join(10)
            answers = []
            for tab in tabs:  # a connection's messages are answered in order
                tab.send({"type": "ping"})
                start = len(tab.received)
                tab.recv_until(lambda m: m["type"] == "pong")
                answers += [
                    json.loads(text)["code"]
                    for text in tab.received[start:]
                    if json.loads(text)["type"] == "error"
                ]
            assert answers == ["match_over"], answers  # one claim stored, one refused
            for tab in tabs:
                final = settle(tab, before[1] + 1)
                assert final["match_over"] and final["winner"] == mine["seat"]
        assert stored(postgres_url, game_id)[1] == before[1] + 1  # ended by one write
        deadline = time.monotonic() + 10
        while rating_rows(postgres_url, game_id) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.5)  # a second rating would have come by now
        assert rating_rows(postgres_url, game_id) == 2  # one change per account
        assert rating(a, "mia")["games"] == 1 and rating(b, "ned")["games"] == 1
        assert rating(b, "mia")["wins"] == 1 and rating(a, "ned")["losses"] == 1


def test_a_rated_match_ended_on_another_process_tells_this_one_the_new_ratings(
    postgres_url: str, redis_url: str
) -> None:
    from test_web_online import account_seat, rated_game, sign_up

    with two_servers(postgres_url, redis_url) as (a, b):
        ora, pia = sign_up(a, "ora"), sign_up(b, "pia")
        mine, _ = rated_game(a, ora, pia)
        with account_seat(a, mine["id"], ora) as here, account_seat(b, mine["id"], pia) as there:
            there.send({"type": "resign"})  # the match ends on b
            pushed = here.recv_until(lambda m: m["type"] == "accounts")
        changes = {seat["name"]: seat["change"] for seat in pushed["accounts"]}
        assert changes["ora"] > 0 > changes["pia"] and changes["ora"] == -changes["pia"]
        assert rating_rows(postgres_url, mine["id"]) == 2  # rated once, by one process


def test_a_rematch_offered_on_one_process_is_taken_on_another(
    postgres_url: str, redis_url: str
) -> None:
    from test_web_online import rated_game, resign, sign_up

    with two_servers(postgres_url, redis_url) as (a, b):
        uma, vik = sign_up(a, "uma"), sign_up(b, "vik")
        mine, _ = rated_game(a, uma, vik)
        resign(b, mine["id"], vik)
        url = f"/api/games/{mine['id']}/rematch"
        assert uma.post(url, json={}).json()["status"] == "offered"  # on a
        took = vik.post(url, json={}).json()  # on b
        assert took["status"] == "matched", took
        news = uma.post(f"{url}/status", json={}).json()  # on a again
        assert news["game"]["id"] == took["game"]["id"]
        assert news["game"]["seat"] == 1 - took["game"]["seat"]


def test_every_process_shows_and_claims_against_one_stored_deadline(
    postgres_url: str, redis_url: str
) -> None:
    import time

    from marjolet.web.countdowns import job_name

    grace = 6.0
    changes = {"away_grace": grace, "sync_interval": 0.2}
    with two_servers(postgres_url, redis_url, **changes) as (a, b):
        game_id, token0, token1 = friend_game(a, b)
        hub_a, hub_b = a.app.state.hub, b.app.state.hub
        with Browser.open(a, game_id, {"type": "hello", "token": token0}) as ann:
            with Browser.open(b, game_id, {"type": "hello", "token": token1}) as bo:
                bo.recv_until(lambda m: m["type"] == "presence" and m["connected"] == [True, True])
                ann.recv_until(lambda m: m["type"] == "presence" and m["connected"] == [True, True])
                first_moves(ann, bo)  # Bo took part: his leaving loses the game
                # a's sweeps have stopped the countdown of Bo's first absence, whose
                # deadline now lies 2 s and more before the one checked below
                time.sleep(2.0)
            left = time.time()
            ann.recv_until(lambda m: m["type"] == "presence" and m["away"][1] is not None)
            end = time.monotonic() + 5
            while time.monotonic() < end:  # a's next sweep stores the countdown
                deadline = hub_a.countdowns.deadline(game_id, 1)
                if deadline is not None and deadline > left + grace - 1.0:
                    break
                time.sleep(0.05)
            # within a second of Bo's leaving plus the grace (the sweep's lag
            # on a loaded machine); b's fresh grace below would be 2 s off
            assert deadline is not None and left + grace - 1.0 < deadline < left + grace + 1.0
            assert hub_a.leases.owner_of(job_name(game_id, 1)) == hub_a.leases.owner
            # Ann opens the game on b too, later: b shows a's deadline, not a fresh grace
            time.sleep(2.0)
            with Browser.open(b, game_id, {"type": "hello", "token": token0}) as again:
                shown = again.recv_until(lambda m: m["type"] == "presence")["away"][1]
                assert abs(shown - (deadline - time.time())) < 1.0, (shown, deadline)
                again.send({"type": "claim"})  # before the deadline: refused on b as on a
                assert again.error()["code"] == "cannot_claim"
                assert hub_b.countdowns.deadline(game_id, 1) == deadline
                time.sleep(max(0.0, deadline - time.time()) + 0.3)
                again.send({"type": "claim"})
                done = again.recv_until(lambda m: m["type"] == "state" and m["match_over"])
                assert done["winner"] == 0
        end = time.monotonic() + 5
        while hub_a.countdowns.deadline(game_id, 1) is not None and time.monotonic() < end:
            time.sleep(0.05)
        assert hub_a.countdowns.deadline(game_id, 1) is None  # the game over: no countdown


def test_a_process_whose_last_connection_of_a_game_closed_starts_no_countdown_for_it(
    postgres_url: str, redis_url: str
) -> None:
    """The race a sweep met when the page it counted closed during it: the
    process showing the game to nobody any more must not start the away
    countdown (it would never renew it); the process still showing the
    game does."""
    import asyncio
    import time

    from marjolet.web.countdowns import job_name

    changes = {"away_grace": 30.0, "sync_interval": 0.2}
    with two_servers(postgres_url, redis_url, **changes) as (a, b):
        game_id, token0, token1 = friend_game(a, b)
        hub_a, hub_b = a.app.state.hub, b.app.state.hub
        job = job_name(game_id, 1)
        with Browser.open(a, game_id, {"type": "hello", "token": token0}):
            with Browser.open(b, game_id, {"type": "hello", "token": token1}) as bo:
                bo.recv_until(lambda m: m["type"] == "presence" and m["connected"] == [True, True])
                table_b = hub_b.tables[game_id]
            end = time.monotonic() + 10
            while table_b.peers:  # b saw Bo's page close
                assert time.monotonic() < end, "b never saw the page close"
                time.sleep(0.02)
            assert hub_b.presence.away_left(game_id, 1) is not None  # b counts Bo away
            # b's sweep of the game, as if it had begun before the page closed
            hub_b.countdowns.stop(game_id, 1)  # (whatever a's sweep stored already)
            held: list[int] = []
            hold = hub_b.countdowns.hold

            def counted_hold(game: str, seat: int, deadline: float) -> float | None:
                held.append(seat)
                stored: float | None = hold(game, seat, deadline)
                return stored

            hub_b.countdowns.hold = counted_hold
            loop = hub_b._listeners[0].get_loop()
            asyncio.run_coroutine_threadsafe(table_b.keep_clocks(), loop).result(10)
            assert held == [] and hub_b.leases.owner_of(job) != hub_b.leases.owner
            end = time.monotonic() + 5
            while hub_a.leases.owner_of(job) != hub_a.leases.owner:  # a's sweep starts it
                assert time.monotonic() < end, "a started no countdown"
                time.sleep(0.05)


def test_a_claim_checked_on_one_process_while_the_other_stores_a_move_is_refused(
    postgres_url: str, redis_url: str
) -> None:
    import asyncio
    import time

    changes = {"away_grace": 0.3, "sync_interval": 0.2}
    with two_servers(postgres_url, redis_url, **changes) as (a, b):
        game_id, token0, token1 = friend_game(a, b)
        hub_a = a.app.state.hub

        async def nowhere(game: str, seat: int) -> bool:  # a never hears of Bo on b
            return False

        hub_a.beacons.elsewhere = nowhere
        checked, moved = threading.Event(), threading.Event()
        store_claim = hub_a.ledger.forfeit

        async def late(*args: Any, **kwargs: Any) -> bool:  # the claim, checked, waits
            checked.set()
            await asyncio.to_thread(moved.wait, 10)
            return bool(await store_claim(*args, **kwargs))

        hub_a.ledger.forfeit = late
        with (
            Browser.open(a, game_id, {"type": "hello", "token": token0}) as ann,
            Browser.open(b, game_id, {"type": "hello", "token": token1}) as bo,
        ):
            state = settle(ann, 1)
            if state["to_move"] == 0:  # Bo is to be the one who moves
                ann.act(state["legal"][0]["action"])
                state = settle(ann, state["version"] + 1)
            mine = settle(bo, state["version"])
            time.sleep(1.0)  # Bo is away as a counts, and his grace is over there
            ann.send({"type": "claim"})
            assert checked.wait(10)  # a checked the claim; before it is stored,
            bo.act(mine["legal"][0]["action"])  # Bo plays on b
            settle(bo, mine["version"] + 1)
            moved.set()
            refused = ann.error()
            assert refused["code"] == "cannot_claim", refused
            after = settle(ann, mine["version"] + 1)
            assert not after["match_over"]
        _, version = stored(postgres_url, game_id)
        assert version == mine["version"] + 1  # Bo's move, and no ending
        engine = make_engine(postgres_url)
        try:
            with engine.connect() as conn:
                status = conn.execute(
                    select(games.c.status).where(games.c.id == game_id)
                ).scalar_one()
        finally:
            engine.dispose()
        assert status == "playing"


def test_a_claim_stored_after_a_move_it_did_not_see_is_refused(
    postgres_url: str, redis_url: str
) -> None:
    from marjolet.web.store import Forfeit, Store

    with two_servers(postgres_url, redis_url) as (a, b):
        game_id, token0, _ = friend_game(a, b)
        with Browser.open(a, game_id, {"type": "hello", "token": token0}) as ann:
            settle(ann, 1)
        version = stored(postgres_url, game_id)[1]
    store = Store(postgres_url)
    try:
        late = Forfeit(1, "", "left the game")
        # the claim was checked at version - 1: a change came in between
        assert not store.forfeit(game_id, late, totals=(0, 0), expected=version - 1)
        assert store.load_game(game_id).status != "finished"  # type: ignore[union-attr]
        assert store.forfeit(game_id, late, totals=(0, 0), expected=version)
        assert not store.forfeit(game_id, late, totals=(0, 0), expected=version + 1)
    finally:
        store.close()


def test_a_review_that_failed_is_failed_on_every_process_until_someone_retries(
    postgres_url: str, redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from marjolet.analysis import Reviewer
    from marjolet.web.reviews import REVIEW_FAILED
    from test_web_review import finished_game, wait_done

    judge = Reviewer.judge

    def broken(self: Reviewer, point: Any) -> Any:
        raise RuntimeError("the estimator ran out of memory")

    monkeypatch.setattr(Reviewer, "judge", broken)
    with two_clients(postgres_url, redis_url, review_budget=0.0) as (a, b, on_a, on_b):
        game = finished_game(a)
        url = f"/api/games/{game['id']}/review"
        assert on_a.post(url, json={}).json()["status"] in ("running", "failed")
        failed = wait_done(a, game["id"])
        assert failed == {"status": "failed", "message": REVIEW_FAILED}  # not the error's text
        assert on_b.get(url).json() == failed  # told by the other process too
        assert on_a.get(url).json() == failed  # and asking does not start it again
        monkeypatch.setattr(Reviewer, "judge", judge)
        assert on_b.post(url, json={}).json()["status"] in ("running", "done")  # a retry
        done = [wait_done(server, game["id"]) for server in (b, a)]
        assert done[0]["status"] == "done" and done[0] == done[1]


def test_the_away_countdown_stays_while_redis_is_down(postgres_url: str) -> None:
    """The countdown lives in the database: without the bus and the beacons
    the processes keep it (each sees only its own seats meanwhile)."""
    import time

    from services import redis_server

    with redis_server() as (url, redis_process):
        changes = {"away_grace": 40.0, "sync_interval": 0.2, "lease_seconds": 3.0}
        with two_servers(postgres_url, url, **changes) as (a, b):
            game_id, token0, token1 = friend_game(a, b)
            hub_a = a.app.state.hub
            with Browser.open(a, game_id, {"type": "hello", "token": token0}) as ann:
                with Browser.open(b, game_id, {"type": "hello", "token": token1}) as bo:
                    both = [True, True]
                    bo.recv_until(lambda m: m["type"] == "presence" and m["connected"] == both)
                    # and a saw Bo too: the countdown it started while Ann was
                    # alone is stopped, so that the one read below is Bo's leaving's
                    # (Ann's first presence, before Bo came, already shows a countdown)
                    ann.recv_until(lambda m: m["type"] == "presence" and m["connected"] == both)
                ann.recv_until(lambda m: m["type"] == "presence" and m["away"][1] is not None)
                end = time.monotonic() + 5
                while hub_a.countdowns.deadline(game_id, 1) is None and time.monotonic() < end:
                    time.sleep(0.05)
                deadline = hub_a.countdowns.deadline(game_id, 1)
                assert deadline is not None
                redis_process.terminate()
                redis_process.wait(timeout=10)
                time.sleep(4.5)  # past a countdown's lease (3 s here) with no Redis
                assert hub_a.countdowns.deadline(game_id, 1) == deadline
                ann.send({"type": "ping"})  # every message sent before the pong is in
                ann.recv_until(lambda m: m["type"] == "pong")
                shown = [json.loads(text) for text in ann.received]
                presences = [m for m in shown if m["type"] == "presence"]
                assert presences[-1]["away"][1] is not None, presences[-1]  # still counting
            for server in (a, b):  # a page opened now, on either process, shows it too
                opened = time.time()
                with Browser.open(server, game_id, {"type": "hello", "token": token0}) as again:
                    shown_now = again.recv_until(lambda m: m["type"] == "presence")
                    seen = time.time()  # the server counted between the two
                    assert shown_now["away"][1] is not None, (server, shown_now)
                    left = (deadline - seen, deadline - opened)
                    assert left[0] - 2.0 < shown_now["away"][1] < left[1] + 2.0, (shown_now, left)
