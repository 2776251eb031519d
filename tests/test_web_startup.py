"""One bad row is one bad game, at start-up too (issue 21): a damaged
unfinished game (human or bot-vs-bot) is logged once and left; the server
starts, serves the others, and lists the damaged one as damaged; a garbled
page never stops it; a file that is no database is one line at start and
leaves no ``.lock``."""

from __future__ import annotations

import logging
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from marjolet.web.store import SeatInfo, Store
from test_web_damaged import garbled_database
from test_web_store import new_row
from web_support import fast_config, live_server

DAMAGES = {
    "seats": "UPDATE games SET seats = 'not json' WHERE id = ?",
    "rules": "UPDATE games SET rules = '{\"profile\": \"no-such-profile\"}' WHERE id = ?",
    "deck-card-ZZ": "UPDATE deals SET deck = 'ZZ AS' WHERE game_id = ?",
    "action-out-of-place": "INSERT INTO actions VALUES (?, 0, 7, 'AS', 0)",
    "illegal-action": "INSERT INTO actions VALUES (?, 0, 0, 'draw', 0)",
}


def stored_games(path: Path) -> None:
    """Two games with a person (``good``, ``bad``) and two bot-vs-bot
    matches under way (``goodwatch``, ``badwatch``)."""
    store = Store(path)
    for game_id in ("good", "bad"):
        store.create_game(new_row(game_id))
    for game_id in ("goodwatch", "badwatch"):
        row = new_row(game_id)
        row.mode = "watch"
        row.seats = (SeatInfo("bot", "random", "random", 1), SeatInfo("bot", "random", "random", 2))
        row.token_hashes = (None, None)
        store.create_game(row)
    store.close()


def damage(path: Path, sql: str, *game_ids: str) -> None:
    with sqlite3.connect(path) as db:
        for game_id in game_ids:
            db.execute(sql, (game_id,))


@pytest.mark.parametrize("kind", list(DAMAGES))
def test_a_damaged_unfinished_game_does_not_stop_the_server_and_is_listed_as_damaged(
    tmp_path: Path, kind: str, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "g.sqlite3"
    stored_games(path)
    damage(path, DAMAGES[kind], "bad", "badwatch")
    with caplog.at_level(logging.ERROR, "marjolet"), live_server(fast_config(path)) as server:
        hub = server.app.state.hub
        assert "goodwatch" in hub.tables  # resumed: the bad one did not stop start-up
        with server.http() as client:
            assert client.get("/api/health").status_code == 200
            history = client.get("/api/games")
            assert history.status_code == 200
            listed = {g["id"] for g in history.json()["games"]}
            damaged = {d["id"] for d in history.json()["damaged"]}
            assert {"good", "goodwatch"} <= listed
            assert "badwatch" in damaged
            assert client.get("/api/games/good/replay").status_code == 200
            refused = client.get("/api/games/bad/replay")
            assert refused.status_code == 409 and refused.json()["error"]["code"] == "corrupt"
            assert "bad" in {d["id"] for d in client.get("/api/games").json()["damaged"]}
    lines = [r.getMessage() for r in caplog.records if "badwatch" in r.getMessage()]
    assert len(lines) == 1, lines  # logged once, with its id


def test_a_garbled_page_does_not_stop_the_server(tmp_path: Path) -> None:
    path = tmp_path / "g.sqlite3"
    garbled_database(path)
    with live_server(fast_config(path)) as server, server.http() as client:
        assert client.get("/api/health").status_code == 200
        history = client.get("/api/games")
        assert history.status_code in (200, 503), history.text
        codes = {client.get(f"/api/games/game{i:02d}/record").status_code for i in range(40)}
        assert 200 in codes and codes <= {200, 409}, codes


def test_serving_a_file_that_is_no_database_is_one_line_and_leaves_no_lock(
    tmp_path: Path,
) -> None:
    path = tmp_path / "g.sqlite3"
    path.write_bytes(b"SQLite format 3\x00" + bytes(range(256)) * 64)
    start = time.monotonic()
    result = subprocess.run(
        [sys.executable, "-m", "marjolet", "serve", "--port", "0", "--db", str(path)],
        capture_output=True, text=True, timeout=120,
    )
    assert time.monotonic() - start < 120
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("marjolet: ") and str(path) in lines[0]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.sqlite3"]
