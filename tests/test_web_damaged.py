"""One bad row is one bad game (issue 21): a damaged game is that game's
error only, and ``marjolet serve --check-db`` says what is wrong."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from cli_support import damaged_database, error_line, run_cli
from marjolet.web.store import Store, StoreError, check_database_file
from test_web_store import new_row


def two_games(path: Path) -> None:
    store = Store(path)
    store.create_game(new_row("good"))
    store.create_game(new_row("bad"))
    store.append_action("good", 0, 0, 0, totals=(0, 0), status="playing", winner=None)
    store.close()


@pytest.mark.parametrize(
    "damage",
    [
        "UPDATE games SET seats = 'not json' WHERE id = 'bad'",
        "UPDATE games SET rules = '{\"profile\": \"no-such-profile\"}' WHERE id = 'bad'",
        "UPDATE deals SET deck = 'ZZ AS' WHERE game_id = 'bad'",
        "INSERT INTO actions VALUES ('bad', 0, 7, 'AS', 0)",
        "UPDATE games SET totals = '[1]' WHERE id = 'bad'",
    ],
    ids=["seats", "rules", "deck-card-ZZ", "action-out-of-place", "totals"],
)
def test_a_damaged_game_is_that_game_s_error_only(tmp_path: Path, damage: str) -> None:
    path = tmp_path / "g.sqlite3"
    two_games(path)
    with sqlite3.connect(path) as db:
        db.execute(damage)
    store = Store(path)
    try:
        with pytest.raises(StoreError, match="game bad"):
            store.load_game("bad")
        good = store.load_game("good")
        assert good is not None and good.actions == [[0]]
        listed = [g.id for g in store.list_games()]
        assert "good" in listed
        count, problems = check_database_file(path)
        assert count == 1 and len(problems) == 1 and problems[0].startswith("game bad:")
    finally:
        store.close()


def test_a_damaged_row_is_left_out_of_the_history_and_named_once(tmp_path: Path) -> None:
    path = tmp_path / "g.sqlite3"
    two_games(path)
    with sqlite3.connect(path) as db:
        db.execute("UPDATE games SET players = '[' WHERE id = 'bad'")
    store = Store(path)
    try:
        assert [g.id for g in store.list_games()] == ["good"]
        assert list(store.damaged) == ["bad"]
    finally:
        store.close()


def check_db(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "marjolet", "serve", "--check-db", "--db", str(path)],
        capture_output=True, text=True, timeout=120,
    )


def test_check_db_says_a_sound_database_is_sound_and_changes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "g.sqlite3"
    two_games(path)
    before = path.read_bytes()
    files = sorted(p.name for p in tmp_path.iterdir())
    result = check_db(path)
    assert result.returncode == 0, result.stderr
    assert "2 game(s) read, sound" in result.stdout
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == files


def test_check_db_names_each_damaged_game_in_one_line(tmp_path: Path) -> None:
    path = tmp_path / "g.sqlite3"
    two_games(path)
    with sqlite3.connect(path) as db:
        db.execute("UPDATE deals SET deck = 'ZZ' WHERE game_id = 'bad'")
    result = check_db(path)
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("marjolet: game bad:")
    assert "Traceback" not in result.stderr


def test_check_db_of_a_missing_file_is_one_line_and_makes_no_file(tmp_path: Path) -> None:
    path = tmp_path / "nosuch.sqlite3"
    result = check_db(path)
    assert result.returncode == 2 and result.stdout == ""
    said = f"marjolet: error: --check-db: {str(path)!r}: no such file"
    assert result.stderr.splitlines() == [said]
    assert list(tmp_path.iterdir()) == []


def test_check_db_on_random_bytes_is_one_line_and_leaves_no_lock(tmp_path: Path) -> None:
    path = tmp_path / "g.sqlite3"
    path.write_bytes(b"SQLite format 3\x00" + bytes(range(256)) * 64)
    result = check_db(path)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.sqlite3"]
    with pytest.raises(StoreError):
        Store(path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.sqlite3"]


def garbled_database(path: Path) -> None:
    """A database of 40 games (``game00`` to ``game39``) whose last 4 KiB
    page is garbage."""
    store = Store(path)
    for i in range(40):
        store.create_game(new_row(f"game{i:02d}"))
    store.close()
    data = bytearray(path.read_bytes())
    page = 4096
    assert len(data) > 4 * page
    last = len(data) // page - 1
    data[last * page : (last + 1) * page] = b"\xff" * page  # one page of garbage
    path.write_bytes(bytes(data))


def test_a_damaged_page_is_found_by_the_check(tmp_path: Path) -> None:
    path = tmp_path / "g.sqlite3"
    garbled_database(path)
    _, problems = check_database_file(path)
    assert problems, "a garbled page must be reported"
    result = check_db(path)
    assert result.returncode == 2 and "Traceback" not in result.stderr


@pytest.mark.parametrize(
    ("revision", "said"),
    [("0999", "schema revision 0999"), ("9999_future", "not one of marjolet's")],
)
def test_check_db_does_not_call_sound_a_database_the_server_refuses(
    tmp_path: Path, revision: str, said: str
) -> None:
    path = tmp_path / "g.sqlite3"
    two_games(path)
    with sqlite3.connect(path) as db:
        db.execute("UPDATE alembic_version SET version_num = ?", (revision,))
    _, problems = check_database_file(path)
    assert len(problems) == 1 and said in problems[0]
    result = check_db(path)
    assert result.returncode == 2 and "sound" not in result.stdout



@pytest.mark.parametrize("table", ["games", "sessions"])
def test_check_db_names_a_damaged_page_under_a_table_list_that_still_reads(
    tmp_path: Path, table: str
) -> None:
    sound = tmp_path / "sound" / "g.sqlite3"
    sound.parent.mkdir()
    two_games(sound)
    given = tmp_path / "g.sqlite3"
    contents = damaged_database(sound, table)
    given.write_bytes(contents)
    os.utime(given, ns=(1_500_000_000_000_000_000, 1_500_000_000_000_000_000))
    result = run_cli("serve", "--check-db", "--db", str(given))
    assert result.returncode == 2
    assert error_line(result.stderr).startswith(
        f"marjolet: {str(given)!r} is a damaged database (SQLite finds: Page "
    )
    assert result.stdout == f"{given}: 0 game(s) read, 1 problem(s)\n"
    assert given.read_bytes() == contents
    assert given.stat().st_mtime_ns == 1_500_000_000_000_000_000
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.sqlite3", "sound"]  # no lock, -wal


def test_a_check_that_a_writer_crosses_reads_the_database_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No one has the file open, so --check-db reads it as immutable: a
    writer (a server starting) that changes it meanwhile must not leave the
    check with the pages it read before (here 'bad' still sound)."""
    path = tmp_path / "g.sqlite3"
    two_games(path)
    connect = sqlite3.connect
    crossed: list[str] = []

    def damage_meanwhile(statement: str) -> None:
        # once the integrity check has read every page
        if not crossed and "FROM games" in statement:
            crossed.append("written")
            writer = connect(path)
            with writer:
                writer.execute("UPDATE games SET seats = 'not json' WHERE id = 'bad'")
            writer.close()

    def connecting(target: str, **kwargs: Any) -> sqlite3.Connection:
        conn: sqlite3.Connection = connect(target, **kwargs)
        if "immutable=1" in str(target):
            conn.set_trace_callback(damage_meanwhile)
        return conn

    # (SQLAlchemy connects through sqlite3.dbapi2, the quick check before through sqlite3)
    monkeypatch.setattr(sqlite3.dbapi2, "connect", connecting)
    count, problems = check_database_file(path)
    assert crossed == ["written"]
    assert count == 1 and len(problems) == 1 and problems[0].startswith("game bad:")


def test_a_database_whose_table_list_cannot_be_read_is_called_damaged_not_foreign(
    tmp_path: Path,
) -> None:
    """A marjolet file with its first page garbled is still a SQLite file: the
    server says it is damaged, not "not a database at all" (an operator would
    think they gave the wrong path)."""
    from marjolet.outputs import OutputError, check_database

    path = tmp_path / "games.sqlite3"
    two_games(path)
    data = bytearray(path.read_bytes())
    data[100:4096] = b"\xa5" * (4096 - 100)  # the table list, after the file's header
    path.write_bytes(bytes(data))
    with pytest.raises(OutputError) as refused:
        check_database(path, tables={"games"}, what="a marjolet database")
    message = str(refused.value)
    assert "is a SQLite database that cannot be read (damaged?)" in message, message
    assert "not a database at all" not in message
