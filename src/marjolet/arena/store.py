"""The arena database: every run with its settings, every match as a
replayable record (SQLite, standard library).

Tables (schema version 1, in ``PRAGMA user_version``):

``runs``
    ``id``, ``started``/``finished`` (UTC ISO 8601), ``status`` (``running``,
    ``done``, ``sprt``, ``interrupted``, ``failed``), ``bots`` (JSON list of
    bot specs), ``matches`` (planned per pairing), ``seed``, ``rules`` (JSON,
    every setting), ``sprt`` (JSON or NULL), ``backend``, ``workers``,
    ``version`` (of marjolet), ``command`` (the command line that plays the
    run again, if any), ``summary`` (the ``--json`` result of the run, once it stopped),
    ``folder`` (the working folder it was started in, from which an
    ``exec:`` program given by a relative path is found again on resuming;
    NULL in databases written before it was kept).
``matches``
    one row per finished match, key ``(run_id, pairing, pair, game)``:
    ``bot0``/``bot1`` (specs by seat), ``seed0``/``seed1`` (bot seeds),
    ``winner`` (seat), ``total0``/``total1``, ``deals``, ``deal_points``
    (JSON list of ``[seat0, seat1]``, completed deals), ``record`` (record.md
    JSON, so that ``marjolet replay`` replays it), ``seconds``, ``forfeit``
    (why the loser forfeited, NULL normally).

Rows of matches are written in batches (at most every half second) and
always before the run stops, also on Ctrl-C.
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from marjolet.arena.tasks import MatchOutcome
from marjolet.errors import MarjoletError
from marjolet.outputs import (
    SQLITE_HEADER,
    OutputError,
    check_database,
    sqlite_damage,
    sqlite_files_state,
    sqlite_read_only_uri,
    sqlite_tables,
)
from marjolet.rules import Rules

SCHEMA_VERSION = 1
DEFAULT_DB = "marjolet-arena.db"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    started TEXT NOT NULL,
    finished TEXT,
    status TEXT NOT NULL,
    bots TEXT NOT NULL,
    matches INTEGER NOT NULL,
    seed INTEGER NOT NULL,
    rules TEXT NOT NULL,
    sprt TEXT,
    backend TEXT NOT NULL,
    workers INTEGER NOT NULL,
    version TEXT NOT NULL,
    command TEXT,
    summary TEXT,
    folder TEXT
);
CREATE TABLE IF NOT EXISTS matches (
    run_id INTEGER NOT NULL REFERENCES runs(id),
    pairing INTEGER NOT NULL,
    pair INTEGER NOT NULL,
    game INTEGER NOT NULL,
    bot0 TEXT NOT NULL,
    bot1 TEXT NOT NULL,
    seed0 INTEGER NOT NULL,
    seed1 INTEGER NOT NULL,
    winner INTEGER NOT NULL,
    total0 INTEGER NOT NULL,
    total1 INTEGER NOT NULL,
    deals INTEGER NOT NULL,
    deal_points TEXT NOT NULL,
    record TEXT NOT NULL,
    seconds REAL NOT NULL,
    forfeit TEXT,
    PRIMARY KEY (run_id, pairing, pair, game)
);
"""


class StoreError(MarjoletError):
    """The arena database cannot be opened, read or written."""


@dataclass(frozen=True, slots=True)
class RunInfo:
    """A row of ``runs``: the settings of a run and how far it got."""

    id: int
    started: str
    finished: str | None
    status: str
    bots: tuple[str, ...]
    matches: int
    seed: int
    rules: Rules
    sprt: dict[str, float] | None
    backend: str
    workers: int
    version: str
    command: str | None
    summary: dict[str, Any] | None
    #: Matches finished so far (from the ``matches`` table).
    played: int
    #: The working folder the run was started in (None if not recorded).
    folder: str | None = None


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def _reason(exc: BaseException) -> str:
    return str(exc) or type(exc).__name__


def _check_readable(target: Path, shown: str) -> bool:
    """Whether an existing file starts as a SQLite database does; one that
    cannot be read (no permission) is named for what it is, not taken for a
    file that is no database."""
    try:
        with open(target, "rb") as f:
            return f.read(len(SQLITE_HEADER)) == SQLITE_HEADER
    except OSError as exc:
        raise StoreError(
            f"cannot read the arena database {shown!r}: {exc.strerror or exc}; left untouched"
        ) from None


def _check_intact(target: Path, shown: str) -> None:
    """A damaged database is refused before it is opened for writing: the
    first write (even setting the journal mode) would change the file
    before the damage showed. Checked before anything else opens it, so
    that the -wal and -shm files a look at it makes are removed again."""
    damage = sqlite_damage(target)
    if damage is not None:
        raise StoreError(
            f"{shown!r} is a damaged database (SQLite finds: {damage}); left untouched"
        )


def _check_existing(target: Path, shown: str) -> None:
    """Reading needs an arena database already there: an empty file or an
    empty SQLite database is refused before anything opens it for writing
    (opening would turn the file into a database)."""
    if target.stat().st_size == 0:
        raise StoreError(f"{shown!r} is an empty file, not an arena database; left untouched")
    tables = sqlite_tables(target)
    if tables is None:
        raise StoreError(f"{shown!r} is not a database, not an arena database; left untouched")
    if not tables:
        raise StoreError(f"{shown!r} is an empty database, not an arena database; left untouched")
    if not {"runs", "matches"} <= tables:
        raise StoreError(f"{shown!r} is not an arena database (no runs table); left untouched")


class ArenaStore:
    """An open arena database. Use as a context manager.

    ``create=False`` needs an arena database already there; ``read_only``
    (which implies it) opens it read-only, for reading commands (``arena
    report``): a database the user may not write is read, and no -wal or
    -shm file is left beside it (:func:`marjolet.outputs.sqlite_read_only_uri`);
    nothing is written, not even the columns older databases lack."""

    def __init__(
        self, path: str | os.PathLike[str], *, create: bool = True, read_only: bool = False
    ) -> None:
        self.path = str(path)
        self.read_only = read_only
        create = create and not read_only
        self._missing: set[str] = set()  # columns an older database lacks, read as NULL
        #: The file's state when an immutable connection was made (_select), or None.
        self._opened_state: tuple[object, ...] | None = None
        if not create and not Path(self.path).is_file():
            raise StoreError(
                f"no arena database at {self.path!r} (run `marjolet arena` first, or pass --db)"
            )
        given = Path(self.path)
        if given.is_file() and _check_readable(given, self.path):  # (a FIFO is not opened)
            _check_intact(given, self.path)
        if not create:  # reading: an arena database must already be there
            _check_existing(Path(self.path), self.path)
        try:
            check_database(
                self.path,
                tables=("runs", "matches"),
                what="a marjolet arena database",
                prefix=f"cannot use the arena database {self.path!r}",
            )
        except OutputError as exc:
            raise StoreError(str(exc)) from None
        try:
            if read_only:
                self._connect_read_only()
            else:
                self.conn = sqlite3.connect(self.path, timeout=30.0)
                self.conn.execute("PRAGMA journal_mode=WAL")
                self.conn.execute("PRAGMA synchronous=NORMAL")
            version = self._select("PRAGMA user_version")[0][0]
            if version > SCHEMA_VERSION:
                raise StoreError(
                    f"the arena database {self.path!r} has schema version {version}, newer than "
                    f"this marjolet understands ({SCHEMA_VERSION})"
                )
            if create:
                self.conn.executescript(_SCHEMA)
                self.conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
                self.conn.commit()
            else:
                listed = self._select("SELECT name FROM sqlite_master WHERE type='table'")
                tables = {row[0] for row in listed}
                if not {"runs", "matches"} <= tables:
                    raise StoreError(f"{self.path!r} is not an arena database (no runs table)")
            self._add_column("matches", "forfeit")  # databases from before forfeits
            self._add_column("runs", "folder")  # and from before the run's folder was kept
        except sqlite3.Error as exc:
            raise self._error("use", exc) from None
        self._pending: list[tuple[Any, ...]] = []

    def _connect_read_only(self, *, locked: bool = False) -> None:
        """Open the database read-only (immutable when no one has it open,
        :func:`marjolet.outputs.sqlite_read_only_uri`), noting the file's
        state first, which :meth:`_select` compares after each read."""
        path = Path(self.path)
        self._opened_state = sqlite_files_state(path)
        uri = sqlite_read_only_uri(path, locked=locked)
        if "immutable=1" not in uri:
            self._opened_state = None  # SQLite's locks see every change
        self.conn = sqlite3.connect(uri, uri=True, timeout=30.0)

    def _select(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        """The rows of a query. Through an immutable connection they are
        kept only if no one opened or changed the file since it was made
        (an arena run started beside a report): else the connection is made
        again, under SQLite's locks, and the query asked again, where the
        immutable one would read the pages it cached beside new ones."""
        try:
            rows: list[Any] = self.conn.execute(sql, params).fetchall()
            failure: sqlite3.Error | None = None
        except sqlite3.Error as exc:  # (perhaps a page the writer moved)
            rows, failure = [], exc
        state = self._opened_state
        if state is not None and sqlite_files_state(Path(self.path)) != state:
            self.conn.close()
            self._connect_read_only(locked=True)
            return self.conn.execute(sql, params).fetchall()
        if failure is not None:
            raise failure
        return rows

    def _add_column(self, table: str, column: str) -> None:
        """Add a nullable text column that older databases lack (read
        as NULL when the database is open read-only)."""
        columns = {row[1] for row in self._select(f"PRAGMA table_info({table})")}
        if column not in columns and self.read_only:
            self._missing.add(column)
        elif column not in columns:
            self.conn.execute(f"ALTER TABLE {table} ADD COLUMN {column} TEXT")
            self.conn.commit()

    def _column(self, name: str) -> str:
        """``name`` in a query, or NULL where the database lacks it."""
        return "NULL" if name.rpartition(".")[2] in self._missing else name

    def _error(self, verb: str, exc: BaseException) -> StoreError:
        return StoreError(f"cannot {verb} the arena database {self.path!r}: {_reason(exc)}")

    def __enter__(self) -> ArenaStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        try:
            self.flush()
        finally:
            self.conn.close()

    def _write(self, sql: str, params: Sequence[Any] = ()) -> sqlite3.Cursor:
        try:
            cursor = self.conn.execute(sql, params)
            self.conn.commit()
            return cursor
        except sqlite3.Error as exc:
            raise self._error("write", exc) from None

    # -- runs ------------------------------------------------------------------

    def create_run(
        self,
        *,
        bots: Sequence[str],
        matches: int,
        seed: int,
        rules: Rules,
        sprt: dict[str, float] | None,
        backend: str,
        workers: int,
        command: str | None,
    ) -> int:
        from marjolet import __version__

        cursor = self._write(
            "INSERT INTO runs (started, status, bots, matches, seed, rules, sprt, backend, "
            "workers, version, command, folder) "
            "VALUES (?, 'running', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                _now(),
                json.dumps(list(bots)),
                matches,
                seed,
                json.dumps(rules.to_json()),
                json.dumps(sprt) if sprt is not None else None,
                backend,
                workers,
                __version__,
                command,
                os.getcwd(),
            ),
        )
        run_id = cursor.lastrowid
        assert run_id is not None
        return run_id

    def mark_running(self, run_id: int, *, backend: str, workers: int) -> None:
        self._write(
            "UPDATE runs SET status='running', finished=NULL, backend=?, workers=? WHERE id=?",
            (backend, workers, run_id),
        )

    def finish_run(self, run_id: int, status: str, summary: dict[str, Any] | None) -> None:
        self.flush()
        self._write(
            "UPDATE runs SET status=?, finished=?, summary=? WHERE id=?",
            (status, _now(), json.dumps(summary) if summary is not None else None, run_id),
        )

    def run(self, run_id: int) -> RunInfo:
        rows = self._runs("WHERE r.id = ?", (run_id,))
        if not rows:
            raise StoreError(f"no run {run_id} in the arena database {self.path!r}")
        return rows[0]

    def runs(self) -> list[RunInfo]:
        return self._runs("", ())

    def latest_run(self) -> RunInfo:
        rows = self._runs("ORDER BY r.id DESC LIMIT 1", ())
        if not rows:
            raise StoreError(f"the arena database {self.path!r} holds no run yet")
        return rows[0]

    def _runs(self, where: str, params: Sequence[Any]) -> list[RunInfo]:
        sql = (
            "SELECT r.id, r.started, r.finished, r.status, r.bots, r.matches, r.seed, r.rules, "
            "r.sprt, r.backend, r.workers, r.version, r.command, r.summary, "
            "(SELECT COUNT(*) FROM matches m WHERE m.run_id = r.id), "
            f"{self._column('r.folder')} FROM runs r "
        )
        if not where.startswith("ORDER"):
            where = where + " ORDER BY r.id" if where else "ORDER BY r.id"
        try:
            rows = self._select(sql + where, params)
        except sqlite3.Error as exc:
            raise self._error("read", exc) from None
        out = []
        for row in rows:
            try:
                rules = Rules.from_json(json.loads(row[7]))
            except (MarjoletError, ValueError) as exc:
                raise StoreError(f"run {row[0]} in {self.path!r} has bad rules: {exc}") from None
            out.append(
                RunInfo(
                    id=row[0],
                    started=row[1],
                    finished=row[2],
                    status=row[3],
                    bots=tuple(json.loads(row[4])),
                    matches=row[5],
                    seed=row[6],
                    rules=rules,
                    sprt=json.loads(row[8]) if row[8] else None,
                    backend=row[9],
                    workers=row[10],
                    version=row[11],
                    command=row[12],
                    summary=json.loads(row[13]) if row[13] else None,
                    played=row[14],
                    folder=row[15],
                )
            )
        return out

    # -- matches -----------------------------------------------------------------

    def add_match(self, run_id: int, o: MatchOutcome) -> None:
        """Queue a finished match; written at the next :meth:`flush` (the
        runner flushes after every batch, :meth:`close` at the end)."""
        self._pending.append(
            (
                run_id, o.pairing, o.pair, o.game, o.seat_specs[0], o.seat_specs[1],
                o.bot_seeds[0], o.bot_seeds[1], o.winner, o.totals[0], o.totals[1],
                len(o.deal_points), json.dumps([list(p) for p in o.deal_points]),
                o.record, o.seconds, o.forfeit,
            )
        )

    def flush(self) -> None:
        """Write the queued matches in one transaction."""
        if not self._pending:
            return
        rows, self._pending = self._pending, []
        try:
            with self.conn:
                self.conn.executemany(
                    "INSERT OR REPLACE INTO matches (run_id, pairing, pair, game, bot0, bot1, "
                    "seed0, seed1, winner, total0, total1, deals, deal_points, record, seconds, "
                    "forfeit) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    rows,
                )
        except sqlite3.Error as exc:
            raise self._error("write", exc) from None

    def outcomes(self, run_id: int) -> Iterator[MatchOutcome]:
        """The finished matches of a run, in task order."""
        try:
            rows = self._select(
                "SELECT pairing, pair, game, bot0, bot1, seed0, seed1, winner, total0, total1, "
                f"deal_points, record, seconds, {self._column('forfeit')} FROM matches "
                "WHERE run_id = ? "
                "ORDER BY pairing, pair, game",
                (run_id,),
            )
        except sqlite3.Error as exc:
            raise self._error("read", exc) from None
        for r in rows:
            yield MatchOutcome(
                pairing=r[0],
                pair=r[1],
                game=r[2],
                seat_specs=(r[3], r[4]),
                bot_seeds=(r[5], r[6]),
                winner=r[7],
                totals=(r[8], r[9]),
                deal_points=self._deal_points(run_id, r[0], r[1], r[2], r[10]),
                record=r[11],
                seconds=r[12],
                forfeit=r[13],
            )

    def _deal_points(
        self, run_id: int, pairing: int, pair: int, game: int, stored: object
    ) -> tuple[tuple[int, int], ...]:
        """A match's ``deal_points`` column read back: a JSON list of
        ``[seat0, seat1]`` pairs; anything else names the damaged match."""
        try:
            if not isinstance(stored, str):
                raise TypeError(f"{type(stored).__name__}, not JSON text")
            return tuple((int(p[0]), int(p[1])) for p in json.loads(stored))
        except (TypeError, ValueError, IndexError, KeyError) as exc:
            raise StoreError(
                f"the arena database {self.path!r} is damaged: run {run_id} pairing {pairing} "
                f"pair {pair} game {game} has unreadable deal points ({_reason(exc)})"
            ) from None

    def record(self, run_id: int, pairing: int, pair: int, game: int) -> str:
        """The record.md JSON of one match."""
        found = self._select(
            "SELECT record FROM matches WHERE run_id=? AND pairing=? AND pair=? AND game=?",
            (run_id, pairing, pair, game),
        )
        row = found[0] if found else None
        if row is None:
            raise StoreError(
                f"no match pairing {pairing} pair {pair} game {game} "
                f"in run {run_id} of {self.path!r}"
            )
        text: str = row[0]
        return text
