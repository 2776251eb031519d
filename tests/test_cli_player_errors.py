"""Command-line errors a player meets (issue 22): every ``--json`` error is
also one line on standard error; an empty, ``null`` or foreign file is named
as such; ``arena report --db`` refuses an empty or foreign file without
touching it; ``bot-serve`` never echoes raw binary input."""

from __future__ import annotations

import hashlib
import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from cli_support import run_main as run


@pytest.mark.parametrize("command", ["replay", "review"])
def test_a_json_error_is_also_one_line_on_standard_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"first_dealer": 0, "deals": [{"deck": ["AS"]}]}', encoding="utf-8")
    status, out, err = run([command, str(bad), "--json"], capsys)
    assert status == 2
    assert "error" in json.loads(out)  # the object for programs
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"marjolet: error: {bad}: ")


@pytest.mark.parametrize(
    ("content", "said"),
    [
        ("", "the file is empty"),
        ("  \n\n", "the file is empty"),
        ("null\n", "it holds JSON, but no marjolet game"),
        ("42", "it holds JSON, but no marjolet game"),
        ("[1, 2]", "it holds JSON, but no marjolet game"),
        ('{"name": "my shopping list"}', "it holds JSON, but no marjolet game"),
        ("hello world\n", "no marjolet game can be read in it"),
    ],
)
def test_an_empty_null_or_foreign_file_is_named_as_such(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str, said: str
) -> None:
    path = tmp_path / "file.json"
    path.write_text(content, encoding="utf-8")
    for flags in ([], ["--json"]):
        status, out, err = run(["replay", str(path), *flags], capsys)
        assert status == 2
        assert flags or out == ""  # without --json, nothing on standard output
        assert said in err and "first_dealer" not in err
        assert len(err.splitlines()) == 1


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _empty_database(path: Path) -> None:
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA user_version = 0")
    conn.execute("CREATE TABLE t (a)")
    conn.execute("DROP TABLE t")
    conn.commit()
    conn.close()


def _foreign_database(path: Path) -> None:
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE songs (title TEXT)")
    conn.commit()
    conn.close()


@pytest.mark.parametrize("kind", ["empty file", "text file", "empty database", "foreign database"])
def test_arena_report_refuses_an_empty_or_foreign_db_without_touching_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], kind: str
) -> None:
    db = tmp_path / "some.db"
    if kind == "empty file":
        db.write_bytes(b"")
    elif kind == "text file":
        db.write_text("my notes\n", encoding="utf-8")
    elif kind == "empty database":
        _empty_database(db)
    else:
        _foreign_database(db)
    before = _digest(db)
    status, _, err = run(["arena", "report", "--db", str(db)], capsys)
    assert status == 2 and len(err.splitlines()) == 1
    assert "not an arena database" in err or "not a marjolet arena database" in err
    assert _digest(db) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["some.db"]  # no -wal, no -shm


def test_bot_serve_never_echoes_raw_binary_input() -> None:
    junk = b"\x00\x01\xff\xfe\x1b[31mred\x1b[0m\x07\n"
    proc = subprocess.run(
        [sys.executable, "-m", "marjolet", "bot-serve", "random"],
        input=junk, capture_output=True, timeout=60, check=False,
    )  # fmt: skip
    assert proc.returncode == 2 and proc.stdout == b""
    err = proc.stderr.decode("utf-8")
    assert "binary data" in err and len(err.splitlines()) == 1
    assert "\x1b" not in err and "\x07" not in err and "\ufffd" not in err
    assert "\\x1b" not in err and "red" not in err  # not even escaped


@pytest.mark.parametrize(
    "command", [["replay"], ["review"], ["convert", "--to", "text"], ["solve"]]
)
def test_a_record_that_cannot_be_read_is_named_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: list[str]
) -> None:
    missing = tmp_path / "nonexist.json"
    status, _, err = run([*command, str(missing)], capsys)
    assert status == 2
    if command[0] in ("replay", "review"):  # a player's words (docs/replay.md)
        assert err == f"marjolet: error: cannot read {missing}: there is no such file.\n"
    else:
        assert err == (
            f"marjolet: error: cannot read record {str(missing)!r}: No such file or directory\n"
        )
    assert err.count(str(missing)) == 1
