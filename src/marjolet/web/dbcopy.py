"""Copy a marjolet database into an empty one: ``marjolet db-copy SOURCE TARGET``.

An operator whose one process on a SQLite file has grown too small moves
its players, ratings and games to PostgreSQL (docs/deploy.md); the other
way, a PostgreSQL database is backed up into a new SQLite file. Every
table of :data:`marjolet.web.db.metadata` is copied row for row, in
foreign-key order, in one transaction on the target: a copy that fails
leaves no row behind it, and a SQLite file it created is removed.

Refused, each in one line (:class:`CopyError`) and before anything is
written:

* a source that is not a marjolet database, or not at this marjolet's
  revision (:data:`~marjolet.web.db.HEAD_REVISION`): the source is only
  read, never upgraded; a server started on it once upgrades it;
* a target that holds a row, or a table that is not marjolet's: a copy
  never writes over anything (a SQLite target is a new or empty file);
* a source or a target a server runs on: a live ``server:`` lease
  (:mod:`marjolet.web.deployment`) or, on a SQLite file, the lock file a
  server holds. A copy of a database in use would miss its later moves;
* the same database as both.

The target is brought to the newest revision by the server's own code
(:class:`~marjolet.web.store.Store` and its Alembic migrations). On
PostgreSQL the sequences of the serial columns (``accounts.id``) are then
set past the copied keys, so that the next account gets a new number.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import (
    Connection,
    Engine,
    Integer,
    Table,
    create_engine,
    func,
    insert,
    inspect,
    select,
    text,
)
from sqlalchemy.exc import SQLAlchemyError

from marjolet import lockfile
from marjolet.errors import MarjoletError
from marjolet.outputs import OutputError, check_database, real_target
from marjolet.web import backends
from marjolet.web.db import (
    HEAD_REVISION,
    ForeignDatabase,
    NewerDatabase,
    check_revision,
    current_revision,
    leases,
    metadata,
    one_line_reason,
    read_only_sqlite,
)
from marjolet.web.deployment import DEPLOYMENT_LOCK, JOB_PREFIX
from marjolet.web.leases import LEASE_SECONDS
from marjolet.web.store import TABLES, Store, StoreError

#: Rows read and written at a time.
BATCH = 1000
#: Seconds a check waits for a database server to answer.
CONNECT_TIMEOUT = int(backends.CONNECT_TIMEOUT)


class CopyError(MarjoletError):
    """A copy refused or failed (one line): the target has none of its rows."""


@dataclass(frozen=True, slots=True)
class Side:
    """The source or the target, as the command line gives it."""

    role: str  # SOURCE or TARGET
    given: str
    #: A SQLite file, or a SQLAlchemy PostgreSQL URL.
    where: Path | str

    @property
    def name(self) -> str:
        """The database in a message: a quoted path, or the URL without its password."""
        if isinstance(self.where, Path):
            return repr(str(self.where))
        return backends.hidden(self.given)

    @property
    def shown(self) -> str:
        return f"{self.role} {self.name}"


@dataclass(frozen=True, slots=True)
class Copied:
    """What a copy did: the rows of each table, in the order copied."""

    source: Side
    target: Side
    rows: dict[str, int]

    def summary(self) -> str:
        """One line: the total, then each table that had rows."""
        total = sum(self.rows.values())
        tables = ", ".join(f"{name} {count}" for name, count in self.rows.items() if count)
        line = f"copied {total} row(s) from {self.source.name} to {self.target.name}"
        return f"{line} ({tables})" if tables else line


def copy_database(source: str, target: str) -> Copied:
    """Copy the marjolet database ``source`` into the empty ``target``
    (each a SQLite path or a PostgreSQL URL, read as ``serve --db``)."""
    src = Side("SOURCE", source, backends.database_target(source, "SOURCE"))
    dst = Side("TARGET", target, backends.database_target(target, "TARGET"))
    if same_database(src, dst):
        raise CopyError(
            f"SOURCE and TARGET are the same database ({src.name}): give another TARGET"
        )
    try:
        with ExitStack() as stack:
            reading = stack.enter_context(open_source(src))
            store = stack.enter_context(open_target(dst))
            rows = copy_rows(reading, store.engine, dst)
    except SQLAlchemyError as exc:  # a server gone in the middle
        raise CopyError(
            f"the copy failed: {one_line_reason(exc)}; {dst.shown} has none of its rows"
        ) from None
    except OSError as exc:
        where = f" ({exc.filename})" if exc.filename else ""
        raise CopyError(f"the copy failed: {exc.strerror or exc}{where}") from None
    return Copied(src, dst, rows)


def same_database(a: Side, b: Side) -> bool:
    """Whether two sides name one database: one file (links followed), or
    one database on one server (host, port, name)."""
    if isinstance(a.where, Path) and isinstance(b.where, Path):
        try:
            return os.path.samefile(a.where, b.where)
        except OSError:  # one of them does not exist yet
            return real_target(a.where) == real_target(b.where)
    if isinstance(a.where, str) and isinstance(b.where, str):
        return _server_key(a.where) == _server_key(b.where)
    return False


def _server_key(url: str) -> tuple[str, int, str]:
    from sqlalchemy.engine import make_url

    parsed = make_url(url)
    host = parsed.host or str(parsed.query.get("host", ""))
    return host.lower(), parsed.port or 5432, parsed.database or ""


# -- the source ------------------------------------------------------------------


@contextmanager
def open_source(src: Side) -> Iterator[Connection]:
    """A connection reading one snapshot of the source, checked to be a
    marjolet database at the newest revision that no server runs on."""
    with ExitStack() as stack:
        if isinstance(src.where, Path):
            path = existing_file(src, src.where)
            stack.enter_context(server_lock(src, path))
            engine = read_only_sqlite(path)
        else:
            engine = server_engine(src, src.where)
        stack.callback(engine.dispose)
        db = stack.enter_context(engine.connect())
        if engine.dialect.name == "postgresql":  # one snapshot, and never a write
            db.execution_options(isolation_level="REPEATABLE READ", postgresql_readonly=True)
        stack.enter_context(db.begin())
        try:
            check_source(db, src)
        except SQLAlchemyError as exc:
            raise CopyError(
                f"{src.shown} cannot be read as a marjolet database: {one_line_reason(exc)}"
            ) from None
        yield db


def existing_file(src: Side, path: Path) -> Path:
    """The source's SQLite file, which must exist and hold something."""
    if not path.exists():
        raise CopyError(f"{src.shown}: no such file")
    if not path.is_file():
        raise CopyError(f"{src.shown}: not a file (a SQLite file is expected)")
    if path.stat().st_size == 0:
        raise CopyError(f"{src.shown} is an empty file, not a marjolet database")
    return path


def server_engine(side: Side, url: str) -> Engine:
    """An engine on a PostgreSQL database, reached once first (one line if not)."""
    backends.check_database(url, side.given, side.role)
    return create_engine(url, connect_args={"connect_timeout": CONNECT_TIMEOUT})


@contextmanager
def server_lock(side: Side, path: Path) -> Iterator[None]:
    """Hold the lock file a server holds beside its SQLite file
    (:mod:`marjolet.lockfile`), so that no server starts on it during the
    copy; refuse if a server holds it. The lock file is removed again."""
    lock = path.with_name(path.name + ".lock")
    try:
        fd = lockfile.take(lock)
    except lockfile.LockHeld:
        raise CopyError(
            f"{side.shown} is in use by a running marjolet server (it holds "
            f"{lock.name!r}): stop the server first"
        ) from None
    except OSError:
        if lock.exists():
            raise
        fd = None  # a folder nobody may write in: no server can lock the file either
    try:
        yield
    finally:
        lockfile.release(fd, lock)


def check_source(db: Connection, src: Side) -> None:
    """Refuse a source that is not a marjolet database at this marjolet's
    revision (it is never upgraded here), or that a server runs on."""
    revision = current_revision(db)
    refuse_unknown_revision(src, revision)
    if not revision and not inspect(db).has_table("games"):
        raise CopyError(f"{src.shown} is not a marjolet database (it has none of its tables)")
    if revision != HEAD_REVISION:
        at = f"schema revision {revision}" if revision else "a schema from before the revisions"
        raise CopyError(
            f"{src.shown} is at {at}, this marjolet's is {HEAD_REVISION}: start `marjolet "
            f"serve --db {src.name}` once (it upgrades the database), stop it, then copy"
        )
    refuse_running(db, src)


def refuse_unknown_revision(side: Side, revision: str) -> None:
    """Refuse a newer marjolet's database, or another program's."""
    try:
        check_revision(revision)
    except NewerDatabase as exc:
        raise CopyError(
            f"{side.shown} was written by a newer marjolet: {exc} (upgrade marjolet)"
        ) from None
    except ForeignDatabase as exc:
        raise CopyError(f"{side.shown} is not a marjolet database: {exc}") from None


def refuse_running(db: Connection, side: Side) -> None:
    """Refuse a database a server runs on: a live ``server:`` lease."""
    servers = leases.c.job.startswith(JOB_PREFIX, autoescape=True)
    live = leases.c.expires >= time.time()
    running = db.execute(select(func.count()).select_from(leases).where(servers, live)).scalar_one()
    if running:
        raise CopyError(
            f"{side.shown}: {running} marjolet server(s) running on it (a live server lease): "
            f"stop every server first (a crashed one's lease runs out within {LEASE_SECONDS:g} s)"
        )


# -- the target ------------------------------------------------------------------


@contextmanager
def open_target(dst: Side) -> Iterator[Store]:
    """The target checked empty (read only), then opened by the server's
    store, which creates its tables; a SQLite file made here is removed
    again if the copy fails."""
    made: Path | None = None
    if isinstance(dst.where, Path):
        path = target_file(dst, dst.where)
        made = None if path.exists() else path
        engine = read_only_sqlite(path) if made is None and path.stat().st_size else None
    else:
        engine = server_engine(dst, dst.where)
    if engine is not None:
        try:
            refuse_non_empty(engine, dst)
        finally:
            engine.dispose()
    try:
        store = Store(dst.where)
    except StoreError as exc:
        remove_made(made)
        raise CopyError(f"{dst.role}: {exc}") from None
    try:
        yield store
    except BaseException:
        store.close()
        remove_made(made)
        raise
    store.close()  # the server's lock file goes, the database stays


def remove_made(path: Path | None) -> None:
    """Remove the SQLite file this copy made (with its side files): it failed."""
    if path is None:
        return
    for suffix in ("", "-wal", "-shm", "-journal"):
        path.with_name(path.name + suffix).unlink(missing_ok=True)


def target_file(dst: Side, path: Path) -> Path:
    """The target's SQLite file: new or empty (a folder that exists), never
    another kind of file."""
    try:
        return check_database(path, tables=TABLES, what="a marjolet database", prefix=dst.shown)
    except OutputError as exc:
        raise CopyError(str(exc)) from None


def refuse_non_empty(engine: Engine, dst: Side) -> None:
    """Refuse, reading only, a target that holds a table that is not
    marjolet's, a row, or a revision this marjolet does not know."""
    try:
        with engine.connect() as db:
            names = set(inspect(db).get_table_names())
            others = sorted(names - set(metadata.tables) - {"alembic_version"})
            if others:
                raise CopyError(
                    f"{dst.shown} is not empty: it holds tables that are not marjolet's "
                    f"({', '.join(others[:5])}); give an empty database"
                )
            refuse_unknown_revision(dst, current_revision(db))
            refuse_rows(db, dst, names)
    except SQLAlchemyError as exc:
        raise CopyError(f"{dst.shown} cannot be read: {one_line_reason(exc)}") from None


def refuse_rows(db: Connection, dst: Side, names: set[str]) -> None:
    """Refuse a target with a server running on it, or with any row."""
    if "leases" in names:
        refuse_running(db, dst)
    counts = {
        table.name: count
        for table in metadata.sorted_tables
        if table.name in names
        and (count := db.execute(select(func.count()).select_from(table)).scalar_one())
    }
    if counts:
        held = ", ".join(f"{name} {count}" for name, count in counts.items())
        raise CopyError(
            f"{dst.shown} is not empty (rows: {held}): db-copy writes only into an empty "
            "database, never over one"
        )


# -- the copy --------------------------------------------------------------------


def copy_rows(reading: Connection, engine: Engine, dst: Side) -> dict[str, int]:
    """Copy every table, parents first, in one transaction on the target;
    then set PostgreSQL's sequences past the copied keys."""
    with engine.begin() as db:
        if db.dialect.name == "postgresql":  # a server starting now waits for the copy
            held = db.execute(text("SELECT pg_try_advisory_xact_lock(:key)"),
                              {"key": DEPLOYMENT_LOCK}).scalar()
            if not held:
                raise CopyError(f"{dst.shown}: a marjolet server is starting on it: stop it")
        refuse_rows(db, dst, set(metadata.tables))
        rows = {table.name: copy_table(reading, db, table) for table in metadata.sorted_tables}
        fix_sequences(db)
    return rows


def copy_table(reading: Connection, db: Connection, table: Table) -> int:
    """Copy one table's rows in key order, :data:`BATCH` at a time."""
    ordered = select(table).order_by(*table.primary_key.columns)
    result = reading.execution_options(yield_per=BATCH).execute(ordered)
    count = 0
    try:
        for chunk in result.partitions(BATCH):
            db.execute(insert(table), [row._asdict() for row in chunk])
            count += len(chunk)
    except SQLAlchemyError as exc:
        raise CopyError(
            f"table {table.name}: {one_line_reason(exc)}; the target has none of the rows"
        ) from None
    finally:
        result.close()
    return count


def fix_sequences(db: Connection) -> None:
    """Set each serial (or identity) column's sequence past the largest
    copied value: inserting keys explicitly leaves it where it was."""
    if db.dialect.name != "postgresql":
        return  # SQLite's integer keys follow the largest row
    for table in metadata.sorted_tables:
        for column in table.columns:
            if not isinstance(column.type, Integer):
                continue
            sequence = db.execute(
                select(func.pg_get_serial_sequence(table.name, column.name))
            ).scalar()
            if sequence is None:
                continue
            after = func.coalesce(select(func.max(column)).scalar_subquery(), 0) + 1
            db.execute(select(func.setval(sequence, after, False)))
