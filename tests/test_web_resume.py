"""Killing the server (SIGKILL) and starting it again resumes every game
where it was, with nothing lost: the real ``marjolet serve`` in a child
process, killed right after a move was acknowledged."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx

from web_support import Browser, LiveServer, play_until, serve_process


def as_server(base: str) -> LiveServer:
    return LiveServer(base, None, None)  # type: ignore[arg-type]


def summary(base: str, game_id: str) -> dict[str, Any]:
    games = httpx.get(f"{base}/api/games", timeout=10).json()["games"]
    found: dict[str, Any] = next(g for g in games if g["id"] == game_id)
    return found


def test_sigkill_then_restart_resumes_every_game_with_nothing_lost(tmp_path: Path) -> None:
    db = tmp_path / "games.sqlite3"
    rng = random.Random(21)
    with serve_process(db, "--watch-delay", "0.05") as (proc, base):
        server = as_server(base)
        game = server.new_game(mode="bot", bot="random", name="Ann")
        watched = server.new_game(mode="watch", bots=["random", "random"])
        hello = {"type": "hello", "token": game["token"]}
        with Browser.open(server, game["id"], hello) as me:
            for _ in range(15):
                state = play_until(me, lambda s: bool(s["legal"]), rng)
                me.act(rng.choice(state["legal"])["action"])
                me.state = None
                me.next_state()
            state = play_until(me, lambda s: bool(s["legal"]), rng)
            me.act(rng.choice(state["legal"])["action"])
            me.state = None
            acknowledged = me.next_state()  # the move is acknowledged...
            os.kill(proc.pid, signal.SIGKILL)  # ...and the server dies at once
            proc.wait(10)
        watched_before = summary_from_db(db, watched["id"])

    with serve_process(db, "--watch-delay", "0.05") as (_proc, base):
        server = as_server(base)
        with Browser.open(server, game["id"], hello) as me:
            resumed = me.next_state()
            # the position is the one acknowledged (or later, if the bot had moved)
            assert resumed["version"] >= acknowledged["version"]
            for key in ("deal", "trump", "turned_up"):
                assert resumed[key] == acknowledged[key]
            assert resumed["log"][: len(acknowledged["log"])] == acknowledged["log"]
            final = play_until(me, lambda s: bool(s["match_over"]), rng)
            assert final["winner"] in (0, 1)
        # the watched bot match went on by itself after the restart
        deadline = time.monotonic() + 30
        while summary(base, watched["id"])["actions"] <= watched_before:
            assert time.monotonic() < deadline, "the watched match did not resume"
            time.sleep(0.1)


def summary_from_db(db: Path, game_id: str) -> int:
    import sqlite3

    with sqlite3.connect(db) as conn:
        count: int = conn.execute(
            "SELECT COUNT(*) FROM actions WHERE game_id = ?", (game_id,)
        ).fetchone()[0]
    return count


def test_serve_reports_a_database_in_use_in_one_line(tmp_path: Path) -> None:
    db = tmp_path / "games.sqlite3"
    with serve_process(db):
        second = subprocess.run(
            [sys.executable, "-m", "marjolet.cli", "serve", "--port", "0", "--db", str(db)],
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert second.returncode == 2
    assert second.stderr.strip().splitlines()[-1].startswith("marjolet: error: database")
    assert "Traceback" not in second.stderr


def test_serve_refuses_a_bad_allowed_bot_in_one_line(tmp_path: Path) -> None:
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "marjolet.cli",
            "serve",
            "--db",
            str(tmp_path / "g.sqlite3"),
            "--port",
            "0",  # never the default 8000, which another server may hold
            "--allow-bot",
            "mine=nosuchbot",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    assert "nosuchbot" in result.stderr and "Traceback" not in result.stderr
