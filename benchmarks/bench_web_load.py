"""Web server under load: simultaneous games over WebSockets on loopback.

Starts the real ``marjolet serve`` in a child process (127.0.0.1, a free
port, a throw-away database, bots answering at once), then plays ``--games``
games at the same time: each scripted client creates a game against the
``random`` bot, connects its seat's WebSocket and plays random legal moves
with a short think time until it has made ``--actions`` moves, its match
ends, or ``--duration`` seconds have passed. Every request goes to
127.0.0.1 only, and the run is bounded in count and time.

Measured: the round trip of each move, from sending it to receiving the
position that acknowledges it (the server stores the move before it sends
that position, and sends it before the bot starts thinking, so bot thinking
is excluded); errors (refused moves, lost connections, time-outs); lost
moves (after the server is stopped, every acknowledged move must be in the
database at the place the client saw it, and every stored game must replay
legally).

    nice .venv/bin/python benchmarks/bench_web_load.py --games 50 --actions 60

Target (issue 6): p99 under 50 ms, zero errors, zero lost moves.

``--processes N`` (issue 24) runs N ``marjolet serve`` processes instead, on
a throw-away PostgreSQL database and Redis bus (started here as the test
suite starts them, ``tests/services.py``), as they run behind nginx
(``--behind-proxy``: each client sends its own loopback address as the
proxy would forward it, so per-address limits apply per client as in
production, and up to 500 games fit): client ``i`` creates its game on
process ``i mod N`` and plays its seat through process ``i+1 mod N``, as a
load balancer without stickiness would send it, so with N > 1 every game's
moves cross processes (the table is rebuilt from the database, the bot is
played by whichever process holds its lease). ``--processes 1,2,4`` runs
each in turn and prints one line each.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import httpx
from sqlalchemy import select
from websockets.asyncio.client import connect

from marjolet import record
from marjolet.errors import MarjoletError
from marjolet.web.db import actions, make_engine
from marjolet.web.store import Store

SERVING = re.compile(r"serving on (http://127\.0\.0\.1:\d+)/")


@dataclass
class GameRun:
    """What one scripted client saw."""

    game_id: str = ""
    latencies: list[float] = field(default_factory=list)
    #: (deal, position in the deal, action) of every acknowledged move.
    acknowledged: list[tuple[int, int, str]] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    #: The last message received (type and version), told with an error.
    last: str = ""


async def play_one(
    base: str,
    rng: random.Random,
    args: argparse.Namespace,
    deadline: float,
    seat_base: str = "",
    address: str = "",
) -> GameRun:
    """One client; ``address``: the client address a proxy in front would
    forward (``--behind-proxy``), so that each client has its own limits."""
    run = GameRun()
    headers = {"X-Forwarded-For": address} if address else {}
    try:
        async with httpx.AsyncClient(base_url=base, timeout=10, headers=headers) as http:
            response = await http.post(
                "/api/games", json={"mode": "bot", "bot": "random", "name": "load"}
            )
            if response.status_code != 200:
                run.errors.append(f"create: HTTP {response.status_code} {response.text[:100]}")
                return run
            game = response.json()
        run.game_id = game["id"]
        seat_base = seat_base or base
        ws_url = "ws" + seat_base[len("http") :] + f"/ws/{game['id']}"
        async with connect(
            ws_url, open_timeout=10, max_size=2**22, additional_headers=headers
        ) as ws:
            await ws.send(json.dumps({"type": "hello", "token": game["token"]}))
            moves = 0
            pending: tuple[int, str, float] | None = None  # version, action, send time
            while moves < args.actions and time.monotonic() < deadline:
                msg = json.loads(await asyncio.wait_for(ws.recv(), timeout=10))
                run.last = f"{msg['type']} {msg.get('version', '')}"
                if msg["type"] == "error":
                    run.errors.append(f"{run.game_id}: {msg['code']}: {msg['message']}")
                    pending = None
                    continue
                if msg["type"] != "state":
                    continue
                if pending is not None and msg["version"] > pending[0]:
                    sent_version, action, start = pending
                    run.latencies.append(time.perf_counter() - start)
                    last = msg["log"][-1] if msg["log"] else {}
                    if msg["version"] != sent_version + 1 or last.get("action") != action:
                        run.errors.append(f"{run.game_id}: acknowledged {last} for {action}")
                    run.acknowledged.append((msg["deal"], len(msg["log"]) - 1, action))
                    moves += 1
                    pending = None
                if msg["match_over"]:
                    break
                if msg["deal_over"]:
                    await ws.send(json.dumps({"type": "next", "version": msg["version"]}))
                    continue
                if not msg["legal"] or pending is not None:
                    continue  # the bot is to move
                await asyncio.sleep(rng.uniform(args.think * 0.5, args.think * 1.5))
                action = rng.choice(msg["legal"])["action"]
                pending = (msg["version"], action, time.perf_counter())
                await ws.send(
                    json.dumps({"type": "act", "action": action, "version": msg["version"]})
                )
    except Exception as exc:  # a closed connection, a time-out, a wrong reply
        where = f" (after {run.last or 'nothing'})"
        run.errors.append(f"{run.game_id or '?'}: {type(exc).__name__}: {exc}{where}")
    return run


def start_server(
    db: Path | str, rate_limit: float, *extra: str
) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "marjolet.cli",
            "serve",
            "--host",
            "127.0.0.1",
            "--port",
            "0",
            "--db",
            str(db),
            "--bot-delay",
            "0",
            "--rate-limit",
            str(rate_limit),
            "--log-level",
            "warning",
            *extra,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    assert proc.stdout is not None
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        found = SERVING.search(line)
        if found:
            return proc, found.group(1)
    proc.kill()
    raise SystemExit("bench_web_load: the server did not start")


def check_database(db: Path | str, runs: list[GameRun]) -> tuple[int, list[str]]:
    """Count acknowledged moves missing from the database; replay every game."""
    problems: list[str] = []
    lost = 0
    engine = make_engine(db)
    try:
        with engine.connect() as conn:
            for run in runs:
                for deal, seq, action in run.acknowledged:
                    row = conn.execute(
                        select(actions.c.action).where(
                            actions.c.game_id == run.game_id,
                            actions.c.deal == deal,
                            actions.c.seq == seq,
                        )
                    ).first()
                    if row is None or row[0] != action:
                        lost += 1
    finally:
        engine.dispose()
    store = Store(db)
    try:
        for run in runs:
            if not run.game_id:
                continue
            game = store.load_game(run.game_id)
            if game is None:
                problems.append(f"{run.game_id}: not stored")
                continue
            try:
                record.to_match(game.record())
            except MarjoletError as exc:
                problems.append(f"{run.game_id}: stored record does not replay: {exc}")
    finally:
        store.close()
    return lost, problems


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    k = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[k]


async def run_all(bases: list[str], args: argparse.Namespace) -> tuple[list[GameRun], float]:
    """Every client at once; client ``i`` creates on process ``i mod N``
    and plays through process ``i+1 mod N``."""
    deadline = time.monotonic() + args.duration
    rng = random.Random(args.seed)
    start = time.perf_counter()
    n = len(bases)
    proxied = args.processes != ""
    runs = await asyncio.gather(
        *(
            play_one(
                bases[i % n],
                random.Random(rng.random()),
                args,
                deadline,
                bases[(i + 1) % n],
                f"127.1.{i // 200}.{i % 200 + 1}" if proxied else "",
            )
            for i in range(args.games)
        )
    )
    return list(runs), time.perf_counter() - start


def stop(procs: list[subprocess.Popen[str]]) -> None:
    for proc in procs:
        proc.send_signal(signal.SIGTERM)
    for proc in procs:
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def run_embedded(args: argparse.Namespace) -> tuple[list[GameRun], float, int, list[str]]:
    """One process on a SQLite file (the default server)."""
    with tempfile.TemporaryDirectory() as folder:
        db = Path(folder) / "load.sqlite3"
        proc, base = start_server(db, rate_limit=20.0)
        try:
            runs, elapsed = asyncio.run(run_all([base], args))
        finally:
            stop([proc])
        lost, problems = check_database(db, runs)
        for suffix in ("", "-wal", "-shm", ".lock"):
            path = Path(str(db) + suffix)
            if path.exists():
                os.unlink(path)
    return runs, elapsed, lost, problems


def run_shared(
    args: argparse.Namespace, processes: int, db: str, broker: str
) -> tuple[list[GameRun], float, int, list[str]]:
    """``processes`` processes on one PostgreSQL database and one Redis bus."""
    procs: list[subprocess.Popen[str]] = []
    try:
        bases = []
        for _ in range(processes):
            # as behind nginx: each client's address is the one forwarded
            proc, base = start_server(db, 20.0, "--broker", broker, "--behind-proxy", "localhost")
            procs.append(proc)
            bases.append(base)
        runs, elapsed = asyncio.run(run_all(bases, args))
    finally:
        stop(procs)
    lost, problems = check_database(db, runs)
    return runs, elapsed, lost, problems


@contextlib.contextmanager
def services() -> Iterator[tuple[Callable[[], str], str]]:
    """A throw-away PostgreSQL server (a fresh database per run) and Redis."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
    from services import Postgres, _pg_bin, free_port

    bindir = _pg_bin()
    redis_server = shutil.which("redis-server")
    if bindir is None or redis_server is None:
        raise SystemExit("bench_web_load: --processes needs PostgreSQL and redis-server")
    postgres = Postgres(bindir)
    port = free_port()
    redis = subprocess.Popen(
        [redis_server, "--port", str(port), "--bind", "127.0.0.1", "--save", ""],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        postgres.start()
        yield postgres.new_database, f"redis://127.0.0.1:{port}/0"
    finally:
        postgres.stop()
        redis.terminate()
        redis.wait(10)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--games", type=int, default=50, help="simultaneous games (default 50)")
    parser.add_argument(
        "--actions", type=int, default=60, help="moves per client at most (default 60)"
    )
    parser.add_argument(
        "--duration", type=float, default=120.0, help="time limit in seconds (default 120)"
    )
    parser.add_argument(
        "--think", type=float, default=0.1, help="mean think time of a client (default 0.1 s)"
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument(
        "--processes",
        default="",
        metavar="N[,N...]",
        help="N processes on PostgreSQL and Redis (e.g. 1,2,4) instead of one on SQLite",
    )
    args = parser.parse_args(argv)
    if not (1 <= args.games <= 500 and 1 <= args.actions <= 1000 and 0 < args.duration <= 600):
        parser.error("bounds: 1-500 games, 1-1000 actions, duration 0-600 s")
    try:
        counts = [int(n) for n in args.processes.split(",")] if args.processes else []
    except ValueError:
        parser.error("--processes: numbers separated by commas, e.g. 1,2,4")
    if any(not 1 <= n <= 8 for n in counts):
        parser.error("--processes: 1-8 processes")
    if not counts:
        return report(args, "sqlite", *run_embedded(args))
    status = 0
    with services() as (new_database, broker):
        for n in counts:
            outcome = run_shared(args, n, new_database(), broker)
            status |= report(args, f"{n} process{'es' if n > 1 else ''}", *outcome)
    return status


def report(
    args: argparse.Namespace,
    label: str,
    runs: list[GameRun],
    elapsed: float,
    lost: int,
    problems: list[str],
) -> int:
    """Print one run's figures; 0 if it met the target."""
    latencies = [x * 1000 for run in runs for x in run.latencies]
    errors = [e for run in runs for e in run.errors] + problems
    figures = {
        "servers": label,
        "games": len(runs),
        "moves": len(latencies),
        "seconds": round(elapsed, 2),
        "moves_per_second": round(len(latencies) / elapsed, 1) if elapsed else 0.0,
        "p50_ms": round(statistics.median(latencies), 2) if latencies else None,
        "p95_ms": round(percentile(latencies, 95), 2),
        "p99_ms": round(percentile(latencies, 99), 2),
        "max_ms": round(max(latencies), 2) if latencies else None,
        "errors": len(errors),
        "lost_moves": lost,
    }
    if args.json:
        print(json.dumps(figures))
    else:
        print(
            f"{label}: {figures['games']} games, {figures['moves']} moves in "
            f"{figures['seconds']} s "
            f"({figures['moves_per_second']} moves/s)\n"
            f"move round trip: p50 {figures['p50_ms']} ms, p95 {figures['p95_ms']} ms, "
            f"p99 {figures['p99_ms']} ms, max {figures['max_ms']} ms\n"
            f"errors: {figures['errors']}, lost moves: {figures['lost_moves']}"
        )
    for e in errors[:10]:
        print(f"  error: {e}", file=sys.stderr)
    p99 = percentile(latencies, 99)
    ok = not errors and lost == 0 and bool(latencies) and p99 < 50
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
