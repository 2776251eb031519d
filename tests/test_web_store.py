"""The SQLite store: WAL mode, records appended action by action, resuming
by replay, one server per database, clear errors for bad files."""

from __future__ import annotations

import sqlite3
import time
from contextlib import closing
from pathlib import Path

import pytest

from marjolet import record
from marjolet.match import Match
from marjolet.rules import CLASSIC, ENCYCLOPEDIA
from marjolet.web.store import (
    Forfeit,
    GameRow,
    SeatInfo,
    Store,
    StoreConflict,
    StoreError,
    token_hash,
)
from services import Postgres


def new_row(game_id: str = "g1", deck: tuple[int, ...] = tuple(range(32))) -> GameRow:
    now = time.time()
    return GameRow(
        id=game_id,
        created=now,
        updated=now,
        mode="bot",
        rules=ENCYCLOPEDIA.replace(target=1000),
        first_dealer=1,
        players=("Ann", "random"),
        seats=(SeatInfo("human"), SeatInfo("bot", "random", "random", 7)),
        token_hashes=(token_hash("secret"), None),
        invite_hash=None,
        status="playing",
        decks=[deck],
        actions=[[]],
    )


def test_store_is_in_wal_mode_with_full_sync(tmp_path: Path) -> None:
    store = Store(tmp_path / "g.sqlite3")
    try:
        assert store.journal_mode == "wal"
    finally:
        store.close()


def test_a_game_appended_action_by_action_loads_back_as_the_same_record(tmp_path: Path) -> None:
    store = Store(tmp_path / "g.sqlite3")
    row = new_row()
    store.create_game(row)
    match = Match(row.rules, first_dealer=1, seed=0, players=row.players)
    match.start_deal(row.decks[0])
    deal = match.deal
    assert deal is not None
    for seq in range(25):
        action = deal.legal_actions()[0]
        match.play(action)
        store.append_action(
            "g1", 0, seq, action, totals=match.running_totals, status="playing", winner=None
        )
    store.close()

    again = Store(tmp_path / "g.sqlite3")
    loaded = again.load_game("g1")
    again.close()
    assert loaded is not None
    assert loaded.record() == record.Record.from_match(match)
    assert loaded.rules == row.rules and loaded.seats == row.seats
    assert loaded.token_hashes == (token_hash("secret"), None)
    assert loaded.action_count == 25 and list(loaded.totals) == list(match.running_totals)
    resumed = record.to_match(loaded.record())
    assert resumed.deal is not None and resumed.deal.state == deal.state


def test_the_same_action_position_can_never_be_stored_twice(tmp_path: Path) -> None:
    store = Store(tmp_path / "g.sqlite3")
    try:
        store.create_game(new_row())
        store.append_action("g1", 0, 0, 0, totals=(0, 0), status="playing", winner=None)
        with pytest.raises(StoreConflict):
            store.append_action("g1", 0, 0, 1, totals=(0, 0), status="playing", winner=None)
        loaded = store.load_game("g1")
        assert loaded is not None and loaded.actions == [[0]] and loaded.action_count == 1
    finally:
        store.close()


def test_a_second_server_on_the_same_database_is_refused(tmp_path: Path) -> None:
    first = Store(tmp_path / "g.sqlite3")
    try:
        with pytest.raises(StoreError, match="in use by another marjolet server"):
            Store(tmp_path / "g.sqlite3")
    finally:
        first.close()
    Store(tmp_path / "g.sqlite3").close()  # free again once the first one is closed


def test_a_closed_store_leaves_no_lock_file(tmp_path: Path) -> None:
    lock = tmp_path / "g.sqlite3.lock"
    store = Store(tmp_path / "g.sqlite3")
    assert lock.exists()  # held while the store is open
    with pytest.raises(StoreError, match="in use by another marjolet server"):
        Store(tmp_path / "g.sqlite3")
    assert lock.exists()  # the refused second store leaves the first one's lock
    store.close()
    assert not lock.exists()
    assert (tmp_path / "g.sqlite3").exists()  # the database stays


def test_a_store_never_removes_a_lock_file_another_holder_made(tmp_path: Path) -> None:
    """The lock file was deleted by hand while the store held it, and a
    second server started (a new lock file): closing the first leaves it."""
    lock = tmp_path / "g.sqlite3.lock"
    first = Store(tmp_path / "g.sqlite3")
    lock.unlink()
    second = Store(tmp_path / "g.sqlite3")
    try:
        first.close()
        assert lock.exists()
        with pytest.raises(StoreError, match="in use by another marjolet server"):
            Store(tmp_path / "g.sqlite3")  # the second one's lock still holds
    finally:
        second.close()
    assert not lock.exists()


def test_a_file_that_is_not_a_database_is_a_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "notes.txt"
    bad.write_text("shopping list: eggs, milk, a new deck of cards\n" * 20)
    with pytest.raises(StoreError, match="is not a marjolet database"):
        Store(bad)
    (tmp_path / "a-file").write_text("x")
    with pytest.raises(StoreError, match="cannot open database"):
        Store(tmp_path / "a-file" / "g.sqlite3")  # a folder that is a file


def test_a_database_from_a_newer_marjolet_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "g.sqlite3"
    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA user_version = 99")
    with pytest.raises(StoreError, match="schema version 99"):
        Store(path)


NEWER_0999 = "written by a newer marjolet: it is at schema revision 0999"


def test_a_database_at_a_later_marjolet_revision_is_refused_unchanged(tmp_path: Path) -> None:
    path = tmp_path / "g.sqlite3"
    Store(path).close()
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE alembic_version SET version_num = '0999'")
    before = path.read_bytes()
    with pytest.raises(StoreError, match=NEWER_0999):
        Store(path)
    assert path.read_bytes() == before


def test_another_programs_alembic_database_is_not_taken_for_a_newer_marjolet(
    tmp_path: Path,
) -> None:
    path = tmp_path / "g.sqlite3"
    with closing(sqlite3.connect(path)) as conn:
        conn.execute("CREATE TABLE alembic_version (version_num VARCHAR(32) PRIMARY KEY)")
        conn.execute("INSERT INTO alembic_version VALUES ('ae1027a6acf')")
        conn.execute("CREATE TABLE games (id INTEGER PRIMARY KEY, title TEXT)")
        conn.commit()
    before = path.read_bytes()
    with pytest.raises(StoreError) as refused:
        Store(path)
    message = str(refused.value)
    assert "is not a marjolet database" in message and "newer" not in message, message
    assert path.read_bytes() == before  # not even its journal mode


def test_an_invite_code_gives_its_seat_once(tmp_path: Path) -> None:
    store = Store(tmp_path / "g.sqlite3")
    try:
        row = new_row()
        row.invite_hash = token_hash("invite")
        row.status = "waiting"
        store.create_game(row)
        assert not store.claim_invite("g1", token_hash("wrong"), 1, token_hash("t1"), "Bo")
        assert store.claim_invite("g1", token_hash("invite"), 1, token_hash("t1"), "Bo")
        assert not store.claim_invite("g1", token_hash("invite"), 1, token_hash("t2"), "Cy")
        loaded = store.load_game("g1")
        assert loaded is not None
        assert loaded.token_hashes[1] == token_hash("t1") and loaded.players[1] == "Bo"
        assert loaded.status == "playing" and loaded.invite_hash is None
    finally:
        store.close()


def test_history_lists_the_latest_games_first(tmp_path: Path) -> None:
    store = Store(tmp_path / "g.sqlite3")
    try:
        store.create_game(new_row("old"))
        time.sleep(0.01)
        store.create_game(new_row("new"))
        store.append_action("old", 0, 0, 3, totals=(0, 0), status="playing", winner=None)
        assert [g.id for g in store.list_games()] == ["old", "new"]
        assert sorted(store.unfinished_ids()) == ["new", "old"]
        assert store.count_games() == 2
        summary = store.list_games()[0].summary()
        assert summary["actions"] == 1 and summary["players"] == ["Ann", "random"]
        assert "token" not in str(summary) and "secret" not in str(summary)
    finally:
        store.close()


def test_rules_are_stored_in_full(tmp_path: Path) -> None:
    store = Store(tmp_path / "g.sqlite3")
    try:
        row = new_row()
        row.rules = CLASSIC.replace(deal_pattern=(2, 2, 2), jack_queen="same-suit")
        store.create_game(row)
        loaded = store.load_game("g1")
        assert loaded is not None and loaded.rules == row.rules
    finally:
        store.close()


def test_a_failed_write_in_a_group_commit_undoes_only_itself(tmp_path: Path) -> None:
    store = Store(tmp_path / "g.sqlite3")
    try:
        store.create_game(new_row())
        with store.batch():
            store.append_action("g1", 0, 0, 0, totals=(0, 0), status="playing", winner=None)
            with pytest.raises(StoreConflict):
                store.append_action("g1", 0, 0, 5, totals=(9, 9), status="playing", winner=None)
            store.append_action("g1", 0, 1, 1, totals=(0, 0), status="playing", winner=None)
        loaded = store.load_game("g1")
        assert loaded is not None and loaded.actions == [[0, 1]] and loaded.action_count == 2
    finally:
        store.close()


def test_the_group_writer_answers_each_caller_after_the_commit(tmp_path: Path) -> None:
    from marjolet.web.writer import GroupWriter

    store = Store(tmp_path / "g.sqlite3")
    writer = GroupWriter(store)
    try:
        writer.submit(store.create_game, new_row()).result(10)
        futures = [
            writer.submit(
                store.append_action, "g1", 0, seq, seq, totals=(0, 0), status="playing", winner=None
            )
            for seq in (0, 1, 1, 2)  # the second seq 1 is refused, alone
        ]
        outcomes = [f.exception(10) for f in futures]
        assert [type(e).__name__ if e else None for e in outcomes] == [
            None,
            None,
            "StoreConflict",
            None,
        ]
        loaded = writer.submit(store.load_game, "g1").result(10)
        assert loaded is not None and loaded.actions == [[0, 1, 2]]
        assert writer.calls == 6 and writer.batches <= 6
    finally:
        writer.close()


def test_a_forfeit_finishes_the_game_once_and_loads_back_with_it(tmp_path: Path) -> None:
    store = Store(tmp_path / "g.sqlite3")
    try:
        store.create_game(new_row())
        store.append_action("g1", 0, 0, 0, totals=(0, 0), status="playing", winner=None)
        forfeit = Forfeit.trimmed(1, "random", "no answer within 5 s", "warming up\nstuck\n")
        assert store.forfeit("g1", forfeit, totals=(10, 0))
        assert not store.forfeit("g1", Forfeit.trimmed(0, "x", "again"), totals=(0, 0))
        loaded = store.load_game("g1")
        assert loaded is not None and loaded.forfeit == forfeit
        assert loaded.status == "finished" and loaded.winner == 0 and loaded.totals == (10, 0)
        assert loaded.actions == [[0]]  # the record keeps the moves played, nothing more
        assert store.unfinished_ids() == []
        summary = loaded.summary()["forfeit"]
        assert summary["seat"] == 1 and summary["winner"] == 0
        assert summary["stderr"] == ["warming up", "stuck"]
    finally:
        store.close()


def test_a_forfeit_keeps_one_short_line_and_the_last_lines_of_standard_error() -> None:
    noisy = "\n".join(f"line {i} " + "x" * 500 for i in range(50))
    forfeit = Forfeit.trimmed(0, "mine", "bad\nanswer " + "y" * 2000, noisy)
    assert "\n" not in forfeit.reason and len(forfeit.reason) <= 600
    assert len(forfeit.stderr) == 10 and forfeit.stderr[-1].startswith("line 49 ")
    assert all(len(line) <= 200 for line in forfeit.stderr)
    assert forfeit.message(["mine", "Ann"]).startswith("mine broke down and forfeits the match")


def test_a_version_1_database_gains_forfeits_and_keeps_its_games(tmp_path: Path) -> None:
    path = tmp_path / "g.sqlite3"
    store = Store(path)
    store.create_game(new_row())
    store.append_action("g1", 0, 0, 0, totals=(0, 0), status="playing", winner=None)
    store.close()
    with sqlite3.connect(path) as conn:  # what marjolet wrote before forfeits existed
        conn.execute("ALTER TABLE games DROP COLUMN forfeit")
        conn.execute("PRAGMA user_version = 1")
        for table in ("alembic_version", "leases", "game_players", "seeks", "rating_changes",
                      "sessions", "accounts"):  # nor the migrations and what they add
            conn.execute(f"DROP TABLE {table}")
    again = Store(path)
    try:
        loaded = again.load_game("g1")
        assert loaded is not None and loaded.actions == [[0]] and loaded.forfeit is None
        assert again.forfeit("g1", Forfeit.trimmed(1, "random", "exited"), totals=(0, 0))
        with again.engine.connect() as conn:
            assert conn.exec_driver_sql("PRAGMA user_version").scalar() == 2
            assert conn.exec_driver_sql("SELECT version_num FROM alembic_version").scalar()
    finally:
        again.close()


def _cut_connections(url: str) -> None:
    """What a database restart does to the store: its connection dropped
    by the server (every other session of the database ended)."""
    from sqlalchemy import text

    from marjolet.web.db import make_engine

    admin = make_engine(url)
    with admin.connect() as db:
        db.execute(
            text(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                "WHERE datname = current_database() AND pid <> pg_backend_pid()"
            )
        )
        db.commit()
    admin.dispose()


def test_a_connection_the_database_server_dropped_fails_one_operation_only(
    postgres_url: str,
) -> None:
    from marjolet.web.db import database_unreachable

    store = Store(postgres_url)
    try:
        store.create_game(new_row("g1"))
        for n in range(2, 5):  # each cut fails at most the operation that meets it
            _cut_connections(postgres_url)
            try:
                store.load_game("g1")
            except Exception as exc:  # the driver's word for a cut connection
                assert database_unreachable(exc), exc
                assert "pending" not in str(exc).lower(), exc
            loaded = store.load_game("g1")
            assert loaded is not None and loaded.id == "g1"
            _cut_connections(postgres_url)
            try:  # the server's group commit: writes in a batch, each a savepoint
                with store.batch():
                    store.create_game(new_row(f"lost{n}"))
            except Exception as exc:
                assert database_unreachable(exc), exc
                assert "pending" not in str(exc).lower(), exc
            store.create_game(new_row(f"g{n}"))  # the next write is stored
            assert store.load_game(f"g{n}") is not None
        assert store.load_game("g4") is not None
    finally:
        store.close()


def test_a_database_server_holding_another_program_s_games_table_is_refused(
    postgres_url: str,
) -> None:
    from sqlalchemy import text

    from marjolet.web.db import make_engine

    other = make_engine(postgres_url)
    with other.begin() as db:
        db.execute(text("CREATE TABLE games (id INTEGER PRIMARY KEY, score TEXT)"))
    other.dispose()
    with pytest.raises(StoreError) as refused:
        Store(postgres_url)
    message = str(refused.value)
    assert "is not a marjolet database: it has a 'games' table" in message, message
    assert "PRAGMA" not in message and "+psycopg" not in message, message


def test_a_database_server_of_another_alembic_program_is_refused_unchanged(
    postgres_url: str,
) -> None:
    from sqlalchemy import text

    from marjolet.web.db import make_engine

    other = make_engine(postgres_url)
    with other.begin() as db:
        db.execute(text("CREATE TABLE alembic_version (version_num VARCHAR(32) PRIMARY KEY)"))
        db.execute(text("INSERT INTO alembic_version VALUES ('ae1027a6acf')"))
        db.execute(text("CREATE TABLE widgets (id INTEGER PRIMARY KEY)"))
    with pytest.raises(StoreError) as refused:
        Store(postgres_url)
    message = str(refused.value)
    assert "is not a marjolet database: its 'alembic_version' table holds revision" in message
    assert "'ae1027a6acf'" in message and "newer" not in message, message
    with other.begin() as db:  # nothing created, nothing restamped
        assert db.execute(text("SELECT version_num FROM alembic_version")).scalar() == "ae1027a6acf"
        names = db.execute(text("SELECT tablename FROM pg_tables WHERE schemaname = 'public'"))
        assert sorted(row[0] for row in names) == ["alembic_version", "widgets"]
    other.dispose()


def test_a_database_server_at_a_later_marjolet_revision_is_refused(postgres_url: str) -> None:
    from sqlalchemy import text

    from marjolet.web.db import make_engine

    Store(postgres_url).close()
    other = make_engine(postgres_url)
    with other.begin() as db:
        db.execute(text("UPDATE alembic_version SET version_num = '0999'"))
    other.dispose()
    with pytest.raises(StoreError, match=NEWER_0999):
        Store(postgres_url)


def test_a_batch_whose_connection_was_cut_is_run_again_once_on_a_new_connection(
    postgres_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    # the server's writes go through one group commit: several calls in one
    # transaction. A connection the database server dropped (a restart, an
    # administrator) is found out at the batch's first statement: that
    # transaction never committed, so the batch is run again on a new
    # connection and each write is stored once (trial-ops-run: the first new
    # game after a restart was refused, a move 5 s later too)
    from concurrent.futures import Future
    from typing import Any

    from marjolet.web.writer import GroupWriter

    store = Store(postgres_url)
    writer = GroupWriter(store)
    try:
        writer.submit(store.create_game, new_row("g1")).result(10)
        for round_ in range(3):
            _cut_connections(postgres_url)
            version = writer.submit(store.version_of, "g1").result(10)
            assert version is not None
            _cut_connections(postgres_url)
            batch: list[Any] = [
                (store.create_game, (new_row(f"cut{round_}{i}"),), {}, Future()) for i in range(3)
            ]
            batch.append(
                (
                    store.append_action,
                    ("g1", 0, round_, 0),
                    {"totals": (0, 0), "status": "playing", "winner": None, "expected": version},
                    Future(),
                )
            )
            writer._commit(batch)  # the four calls of one group commit, at once
            for *_, future in batch:
                assert future.exception(10) is None, future.exception()
            assert batch[-1][3].result() == version + 1  # the move stored once
        loaded = writer.submit(store.load_game, "g1").result(10)
        assert loaded is not None and loaded.actions == [[0, 0, 0]]
        for round_ in range(3):
            for i in range(3):
                assert writer.submit(store.load_game, f"cut{round_}{i}").result(10) is not None
        assert writer.submit(store.count_games).result(10) == 10
    finally:
        writer.close()
    lines = [r.getMessage() for r in caplog.records if "connection was lost" in r.getMessage()]
    assert lines and all("\n" not in line and "[SQL" not in line for line in lines), lines


def test_a_batch_that_meets_a_database_server_still_down_fails_with_its_cause(
    postgres_server: Postgres, caplog: pytest.LogCaptureFixture
) -> None:
    # run again on a new connection, a batch whose server is still down
    # fails, each caller told why (not SQLAlchemy's "pending rollback"), in
    # one line of log; the next batch once the server is back is stored
    from concurrent.futures import Future
    from typing import Any

    from sqlalchemy.exc import PendingRollbackError

    from marjolet.web.db import database_unreachable
    from marjolet.web.writer import GroupWriter

    store = Store(postgres_server.new_database())
    writer = GroupWriter(store)
    try:
        writer.submit(store.create_game, new_row("g1")).result(10)
        postgres_server.pause()
        try:
            batch: list[Any] = [
                (store.create_game, (new_row(f"down{i}"),), {}, Future()) for i in range(3)
            ]
            writer._commit(batch)
            for *_, future in batch:
                error = future.exception(10)
                assert error is not None and not isinstance(error, PendingRollbackError), error
                assert database_unreachable(error), error
        finally:
            postgres_server.resume()
        writer.submit(store.create_game, new_row("g2")).result(10)
        assert writer.submit(store.load_game, "g2").result(10) is not None
        assert writer.submit(store.load_game, "down0").result(10) is None  # nothing half-saved
    finally:
        writer.close()
    failed = [r.getMessage() for r in caplog.records if "commit failed" in r.getMessage()]
    assert failed, caplog.text
    for line in failed:  # one line: the driver's reason, not SQLAlchemy's SQL and link
        assert "\n" not in line and "[SQL" not in line and "sqlalche.me" not in line, line


def test_a_database_server_whose_user_may_not_create_tables_says_so_in_one_line(
    postgres_server: Postgres,
) -> None:
    # PostgreSQL 15 and later: only the database's owner creates tables in
    # its schema public (trial-ops-run: "... is not a marjolet database:
    # permission denied for schema public LINE 2: CREATE TABLE ...")
    import os

    from sqlalchemy import create_engine, text

    role, name = f"player_{os.getpid()}", f"noowner_{os.getpid()}"
    admin = create_engine(postgres_server.new_database(), isolation_level="AUTOCOMMIT")
    with admin.connect() as db:
        db.execute(text(f"CREATE ROLE {role} LOGIN"))
        db.execute(text(f"CREATE DATABASE {name}"))  # owned by postgres
    admin.dispose()
    url = f"postgresql+psycopg://{role}@127.0.0.1:{postgres_server.port}/{name}"
    with pytest.raises(StoreError) as refused:
        Store(url)
    assert str(refused.value) == (
        f"user '{role}' may not create tables in schema public of '{name}' "
        f"(createdb -O {role}, or GRANT CREATE ON SCHEMA public TO {role})"
    )
    owner = create_engine(url.replace(role, "postgres", 1), isolation_level="AUTOCOMMIT")
    with owner.connect() as db:  # the advice works
        db.execute(text(f"GRANT CREATE ON SCHEMA public TO {role}"))
    owner.dispose()
    store = Store(url)
    try:
        store.create_game(new_row("g1"))
        assert store.load_game("g1") is not None
    finally:
        store.close()


def test_a_new_database_s_tables_are_logged_once(
    database_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    import logging

    from marjolet.web.db import HEAD_REVISION

    with caplog.at_level(logging.INFO, logger="marjolet.web"):
        Store(database_url).close()
        Store(database_url).close()  # opened again: nothing to say
    created = [r.getMessage() for r in caplog.records if "created the tables" in r.getMessage()]
    assert created == [f"created the tables (revision {HEAD_REVISION})"], caplog.text
