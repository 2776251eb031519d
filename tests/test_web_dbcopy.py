"""``marjolet db-copy SOURCE TARGET`` (marjolet.web.dbcopy): a SQLite
database filled by the server's own code moves to PostgreSQL and back with
every row, the copy works as a server's database (its sequences moved on),
and every refusal is one line, exit status 2, with nothing written.

The PostgreSQL tests need its binaries (``scripts/install-services.sh``);
without them they skip with the reason."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from argon2 import PasswordHasher
from sqlalchemy import insert, inspect, select

from marjolet.bots import make_bot
from marjolet.cli import main
from marjolet.match import Match
from marjolet.record import Record
from marjolet.rules import CLASSIC
from marjolet.turns import play_match
from marjolet.web.accounts import Accounts
from marjolet.web.db import HEAD_REVISION, leases, make_engine, metadata
from marjolet.web.lobby import Lobby, Seeker
from marjolet.web.store import GameRow, SeatInfo, Store, token_hash
from services import refused_port
from web_support import move_schema

FAST = PasswordHasher(time_cost=1, memory_cost=8, parallelism=1)
PASSWORD = "correct horse"


def copy(capsys: pytest.CaptureFixture[str], source: object, target: object) -> tuple[int, str]:
    """Run ``marjolet db-copy`` in this process: (exit status, its one line)."""
    try:
        status = main(["db-copy", str(source), str(target)])
    except SystemExit as exc:
        status = int(exc.code or 0)
    out, err = capsys.readouterr()
    lines = (out + err).strip().splitlines()
    assert len(lines) == 1, out + err
    assert "Traceback" not in err
    return status, lines[0]


def refused(capsys: pytest.CaptureFixture[str], source: object, target: object) -> str:
    status, line = copy(capsys, source, target)
    assert status == 2 and line.startswith("marjolet: error: "), line
    return line


def dump(target: str | Path) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every table, in key order."""
    engine = make_engine(target)
    try:
        with engine.connect() as db:
            return {
                table.name: [
                    tuple(row)
                    for row in db.execute(select(table).order_by(*table.primary_key.columns))
                ]
                for table in metadata.sorted_tables
            }
    finally:
        engine.dispose()


def store_finished_game(store: Store, game_id: str) -> Match:
    """A whole match between two people, stored move by move as the server does."""
    match = Match(CLASSIC.replace(target=300), seed=5, players=["Ann", "Bob"])
    play_match(match, [make_bot("random", seed=1), make_bot("random", seed=2)])
    record = Record.from_match(match)
    now = time.time()
    store.create_game(
        GameRow(
            id=game_id, created=now, updated=now, mode="friend", rules=match.rules,
            first_dealer=record.first_dealer, players=("Ann", "Bob"),
            seats=(SeatInfo("human"), SeatInfo("human")),
            token_hashes=(token_hash("a"), token_hash("b")), invite_hash=None,
            status="playing", decks=[record.deals[0].deck], actions=[[]],
        )
    )
    last = (len(record.deals) - 1, len(record.deals[-1].actions) - 1)
    for index, deal in enumerate(record.deals):
        if index:
            store.add_deal(game_id, index, deal.deck, status="playing")
        for seq, action in enumerate(deal.actions):
            done = (index, seq) == last
            store.append_action(
                game_id, index, seq, action, totals=match.totals if done else (0, 0),
                status="finished" if done else "playing", winner=match.winner if done else None,
            )
    return match


@pytest.fixture
def filled(tmp_path: Path) -> Path:
    """A SQLite file as a server leaves it: two accounts with sessions, a
    rated game between them from a lobby offer, finished and rated."""
    path = tmp_path / "club.sqlite3"
    store = Store(path)
    try:
        accounts = Accounts(store.engine, hasher=FAST)
        ann, _ = accounts.create("Ann", PASSWORD)
        bob, _ = accounts.create("Bøb", PASSWORD)
        accounts.login("ann", PASSWORD)
        lobby = Lobby(store.engine)
        seek, _ = lobby.post(Seeker("Ann", ann), {"profile": "classic"}, rated=True)
        lobby.accept(seek.id, Seeker("Bøb", bob))
        lobby.attach(seek.id, "game-1", 0, Seeker("Bøb", bob))
        match = store_finished_game(store, "game-1")
        assert accounts.record_result("game-1", ann.id, bob.id, 1.0 - (match.winner or 0))
    finally:
        store.close()
    return path


def test_a_sqlite_database_copied_to_postgresql_is_read_back_the_same(
    filled: Path, postgres_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    before = dump(filled)
    status, line = copy(capsys, filled, postgres_url)
    assert status == 0, line
    total = sum(len(rows) for rows in before.values())
    assert line.startswith(f"copied {total} row(s) from {str(filled)!r} to postgresql")
    assert "accounts 2" in line and "rating_changes 2" in line
    assert dump(postgres_url) == before
    assert dump(filled) == before  # the source is only read

    store = Store(postgres_url)
    try:
        game = store.load_game("game-1")
        assert game is not None and game.status == "finished" and game.action_count > 0
        now = time.time()  # one instant: a deviation grows with the time since the game
        accounts = Accounts(store.engine, hasher=FAST, clock=lambda: now)
        ann, bob = accounts.by_name("ann"), accounts.by_name("BØB")
        assert ann is not None and bob is not None and ann.games == bob.games == 1
        assert ann.rating != bob.rating  # the rated result came along
        assert accounts.login("Bøb", PASSWORD)[0] == bob  # its password hash too
        assert [h["game"] for h in accounts.history(ann.id)] == ["game-1"]
        assert Lobby(store.engine).games_of(ann.id) == [("game-1", 0, True)]
    finally:
        store.close()


def test_after_a_copy_to_postgresql_new_accounts_and_games_get_new_keys(
    filled: Path, postgres_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert copy(capsys, filled, postgres_url)[0] == 0
    store = Store(postgres_url)
    try:
        accounts = Accounts(store.engine, hasher=FAST)
        cyd, _ = accounts.create("Cyd", PASSWORD)  # the sequence moved past the copied ids
        assert cyd.id == 3
        store_finished_game(store, "game-2")
        assert accounts.record_result("game-2", cyd.id, 1, 0.5)
        assert len(store.list_games()) == 2
    finally:
        store.close()


def test_postgresql_copied_to_a_new_sqlite_file_round_trips_every_row(
    filled: Path, postgres_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert copy(capsys, filled, postgres_url)[0] == 0
    backup = tmp_path / "backup" / "copy.sqlite3"
    backup.parent.mkdir()
    status, line = copy(capsys, postgres_url, backup)
    assert status == 0 and line.endswith(")") and str(backup) in line, line
    assert dump(backup) == dump(filled)
    assert sorted(p.name for p in backup.parent.iterdir()) == ["copy.sqlite3"]  # no lock left
    store = Store(backup)  # a server opens it as its own
    try:
        assert Accounts(store.engine, hasher=FAST).create("Cyd", PASSWORD)[0].id == 3
    finally:
        store.close()


def test_a_target_holding_rows_is_refused_and_left_as_it_was(
    filled: Path, postgres_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert copy(capsys, filled, postgres_url)[0] == 0
    before = dump(postgres_url)
    line = refused(capsys, filled, postgres_url)
    assert "TARGET postgresql" in line and "is not empty (rows: " in line and "games 1," in line
    assert dump(postgres_url) == before
    other = tmp_path / "other.sqlite3"
    assert copy(capsys, filled, other)[0] == 0
    data = other.read_bytes()
    assert "is not empty" in refused(capsys, postgres_url, other)
    assert other.read_bytes() == data


def test_a_target_file_that_is_not_a_database_is_never_changed(
    filled: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("the club's phone numbers\n")
    assert "is not a marjolet database" in refused(capsys, filled, notes)
    assert notes.read_text() == "the club's phone numbers\n"
    foreign = tmp_path / "foreign.sqlite3"
    with sqlite3.connect(foreign) as db:
        db.execute("CREATE TABLE contacts (name TEXT)")
    assert "not a marjolet database" in refused(capsys, filled, foreign)


def test_a_source_at_an_older_revision_is_refused_unchanged(
    tmp_path: Path, postgres_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    old = tmp_path / "old.sqlite3"
    engine = make_engine(old)
    move_schema(engine, "0005")
    engine.dispose()
    data = old.read_bytes()
    line = refused(capsys, old, postgres_url)
    assert f"is at schema revision 0005, this marjolet's is {HEAD_REVISION}" in line
    assert "marjolet serve --db" in line and "once" in line
    assert old.read_bytes() == data
    engine = make_engine(postgres_url)
    assert inspect(engine).get_table_names() == []  # the target was never touched
    engine.dispose()


@pytest.mark.parametrize(
    ("source", "target", "says"),
    [
        ("missing.sqlite3", "new.sqlite3", "SOURCE 'missing.sqlite3': no such file"),
        ("{filled}", "{filled}", "SOURCE and TARGET are the same database"),
        ("{filled}", "mysql://ann@h/db", "TARGET mysql://ann@h/db: the scheme 'mysql'"),
        ("{filled}", "postgresql://ann@h:port/db", "the port 'port' is not a number"),
        ("{filled}", "postgresql://ann:s3cret@127.0.0.1:{port}/db", "cannot connect"),
        ("{filled}", "nowhere/new.sqlite3", "no such folder"),
        ("{empty}", "new.sqlite3", "is an empty file, not a marjolet database"),
        ("{foreign}", "new.sqlite3", "is not a marjolet database (it has none of its tables)"),
    ],
)
def test_bad_input_is_one_line_and_exit_status_2(
    filled: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str], source: str, target: str, says: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "empty.sqlite3").touch()
    with sqlite3.connect(tmp_path / "foreign.sqlite3") as db:
        db.execute("CREATE TABLE contacts (name TEXT)")
    with refused_port() as port:
        names = {"filled": filled, "empty": "empty.sqlite3", "foreign": "foreign.sqlite3",
                 "port": port}
        line = refused(capsys, source.format(**names), target.format(**names))
    assert says in line and "s3cret" not in line
    assert not (tmp_path / "new.sqlite3").exists()


def test_the_command_line_refuses_without_a_traceback(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "marjolet", "db-copy", str(tmp_path / "a"), str(tmp_path / "b")],
        capture_output=True, text=True, timeout=120,
    )
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.strip().splitlines() == [
        f"marjolet: error: SOURCE {str(tmp_path / 'a')!r}: no such file"
    ]


def test_a_source_a_server_runs_on_is_refused(
    filled: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server = Store(filled)  # holds the lock file, as serve does
    try:
        line = refused(capsys, filled, tmp_path / "copy.sqlite3")
    finally:
        server.close()
    assert "in use by a running marjolet server" in line
    assert not (tmp_path / "copy.sqlite3").exists()


def test_a_copy_leaves_no_lock_file_beside_either_file(
    filled: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "copy.sqlite3"
    assert copy(capsys, filled, target)[0] == 0
    assert not filled.with_name(filled.name + ".lock").exists()
    assert not target.with_name(target.name + ".lock").exists()
    Store(filled).close()  # a server's normal stop leaves none either
    assert not filled.with_name(filled.name + ".lock").exists()


def test_a_live_server_lease_on_either_side_refuses_the_copy(
    filled: Path, postgres_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert copy(capsys, filled, postgres_url)[0] == 0
    engine = make_engine(postgres_url)
    with engine.begin() as db:
        db.execute(insert(leases).values(job="server:abc", owner="abc", expires=time.time() + 60))
    engine.dispose()
    line = refused(capsys, postgres_url, tmp_path / "copy.sqlite3")
    assert "1 marjolet server(s) running on it" in line and line.count("SOURCE") == 1
    assert not (tmp_path / "copy.sqlite3").exists()


def dangling_session(filled: Path) -> None:
    """A session of an account that is not there (foreign keys off, as a
    hand-edited file could be): the target refuses it, halfway through."""
    with sqlite3.connect(filled) as db:
        db.execute("INSERT INTO sessions VALUES ('x', 99, 0, 0)")


def test_a_copy_that_fails_halfway_leaves_no_row_in_postgresql(
    filled: Path, postgres_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    dangling_session(filled)
    line = refused(capsys, filled, postgres_url)
    assert "table sessions:" in line and "none of the rows" in line
    assert sum(map(len, dump(postgres_url).values())) == 0  # games went back too


def test_a_copy_that_fails_halfway_removes_the_sqlite_file_it_made(
    filled: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dangling_session(filled)
    target = tmp_path / "copy.sqlite3"
    assert "table sessions:" in refused(capsys, filled, target)
    assert not [p.name for p in tmp_path.iterdir() if p.name.startswith("copy")]
