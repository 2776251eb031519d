"""The proof of issue 24: two real ``marjolet serve`` processes on one
PostgreSQL database and one Redis bus play a whole match, one seat on each;
one process is killed with SIGKILL in the middle of a deal, its seat
reconnects to the other process, and the match ends with every move that
was acknowledged in the record.

It needs the PostgreSQL and redis-server binaries (``make test`` installs
them); without them the fixtures skip it with the reason."""

from __future__ import annotations

import random
import signal
import time
from contextlib import ExitStack
from typing import Any

import pytest

from marjolet.actions import ACTION_NAMES
from marjolet.commands.serve import LEASE_VARIABLE
from marjolet.record import Record, to_match
from marjolet.web.db import make_engine
from marjolet.web.store import GameRow, read_game
from web_support import Browser, LiveServer, at_once, serve_process

RULES = {"profile": "classic", "target": 200}
#: The acknowledged actions after which the first process dies (mid-deal).
KILL_AFTER = 45

#: The lease of the servers started here (``MARJOLET_LEASE_SECONDS``;
#: production: 10 s): the take-overs wait it out, and their point is that
#: they happen within it, not its length.
LEASE = 4.0


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
    postgres_url: str, redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(LEASE_VARIABLE, str(LEASE))  # the servers' leases
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
        assert took < LEASE + 10, took
    stored = finished_game(postgres_url, game["id"])
    assert to_match(stored.record()).is_over  # every move once, in order
    assert stored.version == len(events(stored.record())) - 1  # a change a version
    assert end["winner"] == stored.winner


def started_reviews(*outputs: list[str]) -> list[str]:
    return [line for out in outputs for line in out if ": started (" in line]


def test_a_review_asked_on_two_processes_runs_in_one_and_is_taken_over_when_it_dies(
    postgres_url: str, redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(LEASE_VARIABLE, str(LEASE))  # the servers' leases
    from test_web_review import finished_game as played_game

    logs: tuple[list[str], list[str]] = ([], [])
    extra = ("--broker", redis_url, "--review-budget", "0.05", "--log-level", "info")
    with ExitStack() as stack:
        procs, servers = [], []
        for out in logs:
            proc, base = stack.enter_context(serve_process(postgres_url, *extra, output=out))
            procs.append(proc)
            servers.append(LiveServer(base, None, None))  # type: ignore[arg-type]
        # the database as it was typed (postgresql://..., never the driver's postgresql+psycopg)
        announced = [line for line in logs[0] if "serving on" in line]
        assert announced and f"(games in {postgres_url})" in announced[0], announced
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
            while time.monotonic() < killed + LEASE + 120:
                status = client.get(url).json()
                if status["status"] != "running":
                    break
                if taken_over is None and started_reviews(logs[1 - owner]):
                    taken_over = time.monotonic() - killed
                time.sleep(0.3)
        assert status["status"] == "done", status
        assert len(status["review"]["decisions"]) == answers[0]["total"]
        assert taken_over is not None and taken_over < LEASE + 5, taken_over
        assert any("taken over" in line for line in logs[1 - owner])
        assert sum(": stored" in line for line in logs[1 - owner]) == 1
