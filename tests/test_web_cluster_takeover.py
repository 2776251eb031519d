"""Issue 24's take-overs of the two-process cluster that wait on the clock
(split from ``tests/test_web_cluster.py`` so that ``make test``'s two
workers share the cluster's minutes): play-now on two real ``marjolet
serve`` processes, and a countdown whose owner is killed with SIGKILL.

It needs the PostgreSQL and redis-server binaries (``make test`` installs
them); without them the fixtures skip it with the reason."""

from __future__ import annotations

import json
import signal
import time
from contextlib import ExitStack

import httpx
from sqlalchemy import func, select
from websockets.sync.client import connect

from marjolet.web.config import WebConfig
from marjolet.web.db import games, make_engine
from marjolet.web.leases import LEASE_SECONDS
from test_web_cluster import finished_game
from web_support import Browser, LiveServer, first_moves, serve_process, wait_matched


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
