"""The proof of issue 24: two real ``marjolet serve`` processes on one
PostgreSQL database and one Redis bus play a whole match, one seat on each;
one process is killed with SIGKILL in the middle of a deal, its seat
reconnects to the other process, and the match ends with every move that
was acknowledged in the record.

It needs the PostgreSQL and redis-server binaries (``make test`` installs
them); without them the fixtures skip it with the reason."""

from __future__ import annotations

import json
import random
import signal
import time
from contextlib import ExitStack
from typing import Any

import httpx
from sqlalchemy import func, select
from websockets.sync.client import connect

from marjolet.actions import ACTION_NAMES
from marjolet.record import Record, to_match
from marjolet.web.config import WebConfig
from marjolet.web.db import games, make_engine
from marjolet.web.leases import LEASE_SECONDS
from marjolet.web.store import GameRow, read_game
from web_support import Browser, LiveServer, at_once, first_moves, serve_process, wait_matched

RULES = {"profile": "classic", "target": 200}
#: The acknowledged actions after which the first process dies (mid-deal).
KILL_AFTER = 45


def events(record: Record) -> list[tuple[int, int | None]]:
    """The stored game as the versions count it: (deal, None) for a deal
    started, (deal, action) for an action; version k+1 follows event k."""
    out: list[tuple[int, int | None]] = []
    for index, deal in enumerate(record.deals):
        out.append((index, None))
        out.extend((index, action) for action in deal.actions)
    return out


def finished_game(postgres_url: str, game_id: str) -> GameRow:
    """The game as the database holds it, which must be finished."""
    engine = make_engine(postgres_url)
    try:
        with engine.connect() as db:
            stored = read_game(db, game_id)
    finally:
        engine.dispose()
    assert stored is not None and stored.status == "finished"
    return stored


def latest(*browsers: Browser) -> dict[str, Any]:
    states = [b.state for b in browsers if b.state is not None]
    return max(states, key=lambda s: int(s["version"]))


def settle(browser: Browser, version: int) -> dict[str, Any]:
    if browser.state is not None and browser.state["version"] >= version:
        return browser.state
    return browser.recv_until(lambda m: m["type"] == "state" and m["version"] >= version, 30)


def test_a_match_survives_the_sigkill_of_one_of_its_two_processes(
    postgres_url: str, redis_url: str
) -> None:
    rng = random.Random(24)
    extra = ("--broker", redis_url)
    with ExitStack() as stack:
        first, base_a = stack.enter_context(serve_process(postgres_url, *extra))
        _, base_b = stack.enter_context(serve_process(postgres_url, *extra))
        a = LiveServer(base_a, None, None)  # type: ignore[arg-type]
        b = LiveServer(base_b, None, None)  # type: ignore[arg-type]
        game = a.new_game(mode="friend", name="Ann", rules=RULES)
        invite = game["invite_url"].split("#invite=")[1]
        with b.http() as client:
            joined = client.post(f"/api/games/{game['id']}/join", json={"invite": invite})
        assert joined.status_code == 200, joined.text
        tokens = (game["token"], joined.json()["token"])
        seats = [
            stack.enter_context(Browser.open(a, game["id"], {"type": "hello", "token": tokens[0]})),
            stack.enter_context(Browser.open(b, game["id"], {"type": "hello", "token": tokens[1]})),
        ]
        for seat in seats:
            settle(seat, 1)
        acknowledged: dict[int, str] = {}  # version after the move -> the move
        killed_at: dict[str, Any] | None = None
        for _ in range(3000):
            state = latest(*seats)
            version = int(state["version"])
            if state["match_over"]:
                break
            if state["deal_over"]:
                seats[0].send({"type": "next", "version": version})
            else:
                mover = int(state["to_move"])
                mine = settle(seats[mover], version)
                action = rng.choice(mine["legal"])["action"]
                seats[mover].send({"type": "act", "action": action, "version": version})
                if len(acknowledged) == KILL_AFTER and killed_at is None:
                    # the move is in flight: SIGKILL the first process now
                    first.send_signal(signal.SIGKILL)
                    first.wait(10)
                    killed_at = state
                    # its seat reconnects to the second process
                    seats[0] = stack.enter_context(
                        Browser.open(b, game["id"], {"type": "hello", "token": tokens[0]})
                    )
                    settle(seats[0], version)
                    continue  # the move may or may not have been taken: look again
                after = settle(seats[mover], version + 1)
                last = after.get("last_action") or {}
                if after["version"] == version + 1 and last.get("action") == action:
                    acknowledged[version + 1] = action
            for seat in seats:
                settle(seat, version + 1)
        else:
            raise AssertionError("the match did not end")
        assert killed_at is not None and not killed_at["deal_over"]  # died mid-deal
        for seat in seats:  # both seats on the final position
            assert settle(seat, int(state["version"]))["match_over"]
        stored = finished_game(postgres_url, game["id"])
        record = stored.record()
        assert to_match(record).is_over
        played = events(record)
        for version, action in acknowledged.items():
            _, stored_action = played[version - 1]
            assert stored_action is not None and ACTION_NAMES[stored_action] == action, version
        assert len(acknowledged) > KILL_AFTER


def test_the_bots_of_a_killed_process_are_taken_over_and_never_play_twice(
    postgres_url: str, redis_url: str
) -> None:
    extra = ("--broker", redis_url, "--watch-delay", "0.05")
    with ExitStack() as stack:
        first, base_a = stack.enter_context(serve_process(postgres_url, *extra))
        _, base_b = stack.enter_context(serve_process(postgres_url, *extra))
        a = LiveServer(base_a, None, None)  # type: ignore[arg-type]
        b = LiveServer(base_b, None, None)  # type: ignore[arg-type]
        game = a.new_game(mode="watch", bots=["random", "random"], rules=RULES)
        watcher = stack.enter_context(Browser.open(b, game["id"], {"type": "hello", "watch": True}))
        before = settle(watcher, 8)  # the match goes on, its bots played by a
        first.send_signal(signal.SIGKILL)
        first.wait(10)
        killed = time.monotonic()
        settle(watcher, int(before["version"]) + 12)  # b took the bots over
        took = time.monotonic() - killed
        end = watcher.recv_until(lambda m: m["type"] == "state" and m["match_over"], 90)
        assert took < LEASE_SECONDS + 10, took
    stored = finished_game(postgres_url, game["id"])
    assert to_match(stored.record()).is_over  # every move once, in order
    assert stored.version == len(events(stored.record())) - 1  # a change a version
    assert end["winner"] == stored.winner


def count_games(postgres_url: str) -> int:
    engine = make_engine(postgres_url)
    try:
        with engine.connect() as db:
            return int(db.execute(select(func.count()).select_from(games)).scalar_one())
    finally:
        engine.dispose()


def test_play_now_on_two_processes_makes_one_game_and_never_pairs_a_player_whose_process_died(
    postgres_url: str, redis_url: str
) -> None:
    with ExitStack() as stack:
        first, base_a = stack.enter_context(serve_process(postgres_url, "--broker", redis_url))
        _, base_b = stack.enter_context(serve_process(postgres_url, "--broker", redis_url))
        on_a = stack.enter_context(httpx.Client(base_url=base_a, timeout=30))
        on_b = stack.enter_context(httpx.Client(base_url=base_b, timeout=30))
        ann = on_a.post("/api/play-now", json={"name": "Ann"}).json()["key"]
        bo = on_b.post("/api/play-now", json={"name": "Bo"}).json()["key"]
        seat_ann, seat_bo = wait_matched(on_b, ann), wait_matched(on_a, bo)  # asked crosswise
        assert seat_ann["id"] == seat_bo["id"] and {seat_ann["seat"], seat_bo["seat"]} == {0, 1}
        for base, seat in ((base_a, seat_ann), (base_b, seat_bo)):
            server = LiveServer(base, None, None)  # type: ignore[arg-type]
            hello = {"type": "hello", "token": seat["token"]}
            with Browser.open(server, seat["id"], hello) as me:
                assert me.recv_until(lambda m: m["type"] == "welcome")["seat"] == seat["seat"]
        assert count_games(postgres_url) == 1
        # Gus waits on the first process's lobby socket; that process dies
        gus = on_a.post("/api/play-now", json={"name": "Gus"}).json()["key"]
        lobby = stack.enter_context(connect(f"ws{base_a[4:]}/ws/lobby", open_timeout=10))
        lobby.send(json.dumps({"type": "wait", "key": gus}))
        time.sleep(1.0)  # his only sign of life: that socket
        first.send_signal(signal.SIGKILL)
        first.wait(10)
        time.sleep(WebConfig().play_now_timeout + 1.5)
        hal = on_b.post("/api/play-now", json={"name": "Hal"}).json()["key"]
        for _ in range(10):  # Gus was given up: Hal waits alone
            assert on_b.get(f"/api/play-now/{hal}").json()["status"] == "waiting"
            time.sleep(0.3)
        assert on_b.get(f"/api/play-now/{gus}").status_code == 404
        ivy = on_b.post("/api/play-now", json={"name": "Ivy"}).json()["key"]
        seat_hal = wait_matched(on_b, hal, LEASE_SECONDS + 30)  # the pairing taken over
        assert seat_hal["id"] == wait_matched(on_b, ivy)["id"]
        assert count_games(postgres_url) == 2


def started_reviews(*outputs: list[str]) -> list[str]:
    return [line for out in outputs for line in out if ": started (" in line]


def test_a_review_asked_on_two_processes_runs_in_one_and_is_taken_over_when_it_dies(
    postgres_url: str, redis_url: str
) -> None:
    from test_web_review import finished_game as played_game

    logs: tuple[list[str], list[str]] = ([], [])
    extra = ("--broker", redis_url, "--review-budget", "0.05", "--log-level", "info")
    with ExitStack() as stack:
        procs, servers = [], []
        for out in logs:
            proc, base = stack.enter_context(serve_process(postgres_url, *extra, output=out))
            procs.append(proc)
            servers.append(LiveServer(base, None, None))  # type: ignore[arg-type]
        game = played_game(servers[1])
        url = f"/api/games/{game['id']}/review"
        def ask(server: LiveServer) -> dict[str, Any]:
            with server.http() as client:
                answer: dict[str, Any] = client.post(url, json={}).json()
                return answer

        answers = at_once(*(lambda s=s: ask(s) for s in servers))
        assert [a["status"] for a in answers] == ["running", "running"]
        deadline = time.monotonic() + 5
        while not started_reviews(*logs) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert len(started_reviews(*logs)) == 1  # one process computes it
        owner = 0 if started_reviews(logs[0]) else 1
        other = servers[1 - owner]
        with other.http() as client:  # the owner's progress, told by the other
            seen = client.get(url).json()
        assert seen["status"] == "running" and seen["total"] == answers[0]["total"] > 0
        procs[owner].send_signal(signal.SIGKILL)
        procs[owner].wait(10)
        killed = time.monotonic()
        taken_over = None
        with other.http() as client:
            while time.monotonic() < killed + LEASE_SECONDS + 120:
                status = client.get(url).json()
                if status["status"] != "running":
                    break
                if taken_over is None and started_reviews(logs[1 - owner]):
                    taken_over = time.monotonic() - killed
                time.sleep(0.3)
        assert status["status"] == "done", status
        assert len(status["review"]["decisions"]) == answers[0]["total"]
        assert taken_over is not None and taken_over < LEASE_SECONDS + 5, taken_over
        assert any("taken over" in line for line in logs[1 - owner])
        assert sum(": stored" in line for line in logs[1 - owner]) == 1


def test_a_countdown_whose_owner_is_killed_is_taken_over_with_its_stored_deadline(
    postgres_url: str, redis_url: str
) -> None:
    from marjolet.web.countdowns import job_name, read_deadline
    from marjolet.web.leases import Leases
    from test_web_shared import friend_game

    grace = 20.0
    logs: tuple[list[str], list[str]] = ([], [])
    extra = ("--broker", redis_url, "--away-grace", str(grace), "--log-level", "info")
    engine = make_engine(postgres_url)
    leases = Leases(engine)
    with ExitStack() as stack:
        stack.callback(engine.dispose)
        first, base_a = stack.enter_context(serve_process(postgres_url, *extra, output=logs[0]))
        _, base_b = stack.enter_context(serve_process(postgres_url, *extra, output=logs[1]))
        a = LiveServer(base_a, None, None)  # type: ignore[arg-type]
        b = LiveServer(base_b, None, None)  # type: ignore[arg-type]
        game_id, token0, token1 = friend_game(a, b)
        job = job_name(game_id, 1)
        ann = stack.enter_context(Browser.open(a, game_id, {"type": "hello", "token": token0}))
        with Browser.open(b, game_id, {"type": "hello", "token": token1}) as bo:
            bo.recv_until(lambda m: m["type"] == "presence" and m["connected"] == [True, True])
            ann.recv_until(lambda m: m["type"] == "presence" and m["connected"] == [True, True])
            first_moves(ann, bo)  # Bo took part: his leaving loses the game
            time.sleep(2.5)  # a sweep of a stopped the countdown of Bo's first absence
        left = time.time()  # Bo closed his page: only a shows the game, a counts
        while True:
            lease = leases.lease_of(job)
            deadline = None if lease is None else read_deadline(lease.note)
            if lease is not None and deadline is not None and deadline > left + grace - 3:
                break
            assert time.time() < left + 10, "a stored no countdown"
            time.sleep(0.1)
        owner = lease.owner
        assert deadline < left + grace + 0.5
        time.sleep(max(0.0, left + 5 - time.time()))
        first.send_signal(signal.SIGKILL)  # the countdown's owner dies
        first.wait(10)
        killed = time.monotonic()
        # Ann's page reconnects to b: the time left is the stored deadline's
        ann = stack.enter_context(Browser.open(b, game_id, {"type": "hello", "token": token0}))
        shown = ann.recv_until(lambda m: m["type"] == "presence")["away"][1]
        # a countdown restarted on b would show 5 s more: 2 s is slack for load
        assert abs(shown - (deadline - time.time())) < 2.0, (shown, deadline - time.time())
        while (lease := leases.lease_of(job)) is None or lease.owner == owner:
            assert time.monotonic() < killed + LEASE_SECONDS + 10, "nobody took it over"
            time.sleep(0.2)
        took = time.monotonic() - killed
        assert lease.live and read_deadline(lease.note) == deadline  # the same countdown
        assert took < LEASE_SECONDS + 8, took
        assert any("countdown of seat 1 taken over" in line for line in logs[1])
        time.sleep(max(0.0, deadline - 1.5 - time.time()))
        ann.send({"type": "claim"})
        assert ann.error()["code"] == "cannot_claim"  # not before the deadline
        time.sleep(max(0.0, deadline + 0.3 - time.time()))
        ann.send({"type": "claim"})  # a countdown restarted on b would end 5 s later
        done = ann.recv_until(lambda m: m["type"] == "state" and m["match_over"])
        assert done["winner"] == 0
    stored = finished_game(postgres_url, game_id)
    assert stored.forfeit is not None and stored.forfeit.seat == 1 and stored.winner == 0
