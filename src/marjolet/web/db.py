"""The web server's database schema (SQLAlchemy Core) and its migrations (Alembic).

Every table the server keeps is declared here once, so that the same code
runs on the embedded SQLite file and, given a URL, on PostgreSQL. The
schema evolves only through the Alembic revisions in
``marjolet/web/migrations/versions``; :func:`migrate` brings any database
up to date at start:

* a new file gets every revision from the first;
* a file written by a marjolet from before the migrations (tables created
  by hand, the version in SQLite's ``user_version``: 1 or 2) is first
  brought to the last hand-made schema, then stamped as revision 0001 and
  upgraded from there, with nothing lost.

Tables: ``games``, ``deals``, ``actions`` (every game as its record, see
:mod:`marjolet.web.store`), ``accounts``, ``sessions`` and
``rating_changes`` (see :mod:`marjolet.web.accounts`), ``seeks`` and
``game_players`` (see :mod:`marjolet.web.lobby`), ``play_now`` (see
:mod:`marjolet.web.playnow`), ``leases`` (see
:mod:`marjolet.web.leases`), ``reviews`` (see :mod:`marjolet.web.reviews`) and
``deployment`` (see :mod:`marjolet.web.deployment`).
"""

from __future__ import annotations

import logging
import os
import re
import time
from pathlib import Path
from typing import Any

from sqlalchemy import (
    Boolean,
    Column,
    Connection,
    Engine,
    Float,
    ForeignKey,
    ForeignKeyConstraint,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    create_engine,
    event,
    func,
    inspect,
    select,
    text,
)

log = logging.getLogger("marjolet.web")

metadata = MetaData()

games = Table(
    "games",
    metadata,
    Column("id", Text, primary_key=True),
    Column("created", Float, nullable=False),
    Column("updated", Float, nullable=False),
    Column("mode", Text, nullable=False),
    Column("rules", Text, nullable=False),
    Column("first_dealer", Integer, nullable=False),
    Column("players", Text, nullable=False),
    Column("seats", Text, nullable=False),
    Column("token_hashes", Text, nullable=False),
    Column("invite_hash", Text),
    Column("status", Text, nullable=False),
    Column("totals", Text, nullable=False),
    Column("winner", Integer),
    Column("deal_count", Integer, nullable=False, server_default="0"),
    Column("action_count", Integer, nullable=False, server_default="0"),
    Column("forfeit", Text),
    #: Bumped by every change of the game (revision 0006): a process holding
    #: the game in memory compares it with the database's (docs/deploy.md).
    Column("version", Integer, nullable=False, server_default="0"),
    Index("games_by_update", "updated"),
)

deals = Table(
    "deals",
    metadata,
    Column("game_id", Text, ForeignKey("games.id"), primary_key=True),
    Column("idx", Integer, primary_key=True),
    Column("deck", Text, nullable=False),
)

actions = Table(
    "actions",
    metadata,
    Column("game_id", Text, primary_key=True),
    Column("deal", Integer, primary_key=True),
    Column("seq", Integer, primary_key=True),
    Column("action", Text, nullable=False),
    Column("at", Float, nullable=False),
    ForeignKeyConstraint(["game_id", "deal"], ["deals.game_id", "deals.idx"]),
)

accounts = Table(
    "accounts",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("name", String(20), nullable=False),
    #: The name folded to lower case: names are unique regardless of case.
    Column("name_key", String(20), nullable=False, unique=True),
    #: The name as a reader sees it, accents and case set aside
    #: (accounts.name_look; revision 0011): no two accounts look alike.
    #: NULL for an older account that already looked like an earlier one.
    Column("name_look", String(100)),
    Column("password_hash", Text, nullable=False),
    Column("created", Float, nullable=False),
    Column("rating", Float, nullable=False),
    Column("rd", Float, nullable=False),
    Column("volatility", Float, nullable=False),
    Column("games", Integer, nullable=False, server_default="0"),
    Column("wins", Integer, nullable=False, server_default="0"),
    Column("losses", Integer, nullable=False, server_default="0"),
    Index("accounts_by_look", "name_look", unique=True),
)

sessions = Table(
    "sessions",
    metadata,
    #: SHA-256 of the session cookie's value: the server never keeps the value.
    Column("token_hash", String(64), primary_key=True),
    Column("account_id", Integer, ForeignKey("accounts.id"), nullable=False),
    Column("created", Float, nullable=False),
    Column("last_seen", Float, nullable=False),
    Index("sessions_by_account", "account_id"),
)

rating_changes = Table(
    "rating_changes",
    metadata,
    #: One row per (game, account): the key makes a result count once.
    Column("game_id", Text, primary_key=True),
    Column("account_id", Integer, ForeignKey("accounts.id"), primary_key=True),
    Column("at", Float, nullable=False),
    Column("score", Float, nullable=False),
    Column("opponent_id", Integer, nullable=False),
    Column("rating_before", Float, nullable=False),
    Column("rating_after", Float, nullable=False),
    Column("rd_after", Float, nullable=False),
    Column("volatility_after", Float, nullable=False),
    Index("rating_changes_by_account", "account_id", "at"),
)

seeks = Table(
    "seeks",
    metadata,
    Column("id", String(24), primary_key=True),
    Column("created", Float, nullable=False),
    #: The seeker's account, or None for a guest.
    Column("account_id", Integer, ForeignKey("accounts.id")),
    #: SHA-256 of the seek's owner token: only its owner may cancel it or
    #: learn the seat it was given.
    Column("owner_hash", String(64), nullable=False),
    Column("name", String(24), nullable=False),
    Column("rating", Float),
    Column("rules", Text, nullable=False),
    Column("rated", Boolean, nullable=False),
    Column("days_per_move", Integer),
    #: open -> matched (game_id, seat: the seeker's) or cancelled.
    Column("status", String(10), nullable=False),
    Column("game_id", Text),
    Column("seat", Integer),
    Column("acceptor_id", Integer),
    #: SHA-256 of the seat token the owner gets once matched, which any
    #: process derives from the owner token (revision 0006; None before).
    Column("seat_hash", String(64)),
    #: A rematch offer (revision 0009): the finished game it follows and the
    #: seat that offered it; only the other seat may take it, the lobby never
    #: lists it. None for an ordinary seek.
    Column("rematch_of", Text),
    Column("rematch_seat", Integer),
    #: A live seek's last sign of life (revision 0012): its owner's lobby
    #: socket following it, or the owner asking its status. A live seek
    #: without one for ``seek_timeout`` seconds is neither listed nor
    #: accepted (its owner is gone); None: none since (a seek of before).
    Column("alive", Float),
    Index("seeks_by_status", "status", "created"),
    Index("seeks_by_rematch", "rematch_of", "created"),
)

game_players = Table(
    "game_players",
    metadata,
    #: The seats held by accounts (a guest's seat has no row).
    Column("game_id", Text, primary_key=True),
    Column("seat", Integer, primary_key=True),
    Column("account_id", Integer, ForeignKey("accounts.id"), nullable=False),
    Column("rated", Boolean, nullable=False),
    Column("days_per_move", Integer),
    Index("game_players_by_account", "account_id"),
)

leases = Table(
    "leases",
    metadata,
    #: A background job (a game's bot, a countdown, the pairing, a review).
    Column("job", String(120), primary_key=True),
    #: The process that owns it until ``expires`` (see marjolet.web.leases).
    Column("owner", String(64), nullable=False),
    Column("expires", Float, nullable=False),
    #: What the owner tells the others of its progress (a review's
    #: "done/total"; revision 0007).
    Column("note", String(64)),
)

play_now = Table(
    "play_now",
    metadata,
    #: One player waiting in "Play now" (revision 0007), by the SHA-256 of
    #: the secret key of their place (see marjolet.web.playnow).
    Column("key_hash", String(64), primary_key=True),
    Column("created", Float, nullable=False),
    #: The player's last sign of life (their last poll): a place not asked
    #: about for ``play_now_timeout`` seconds is given up, never paired.
    Column("seen", Float, nullable=False),
    Column("name", String(24), nullable=False),
    Column("account_id", Integer, ForeignKey("accounts.id")),
    Column("rating", Float, nullable=False),
    #: The rules and whether rated, as one JSON text (players wait together
    #: only under the same text).
    Column("rules", Text, nullable=False),
    Column("rated", Boolean, nullable=False),
    Column("bot_after", Float),
    #: SHA-256 of the seat token the player will be given, derived from the key.
    Column("seat_hash", String(64), nullable=False),
    #: Set when the pairing takes the place for a game (the game may still
    #: be being made), with the player's seat and when.
    Column("game_id", Text),
    Column("seat", Integer),
    Column("claimed", Float),
    #: The browser that queued (a random id its page keeps; revision 0008):
    #: two places of one browser are never paired together.
    Column("browser", String(64)),
    Index("play_now_by_game", "game_id"),
)

reviews = Table(
    "reviews",
    metadata,
    #: One computed review per game, record digest and view (docs/review.md).
    Column("game_id", Text, primary_key=True),
    Column("digest", String(64), primary_key=True),
    Column("view", String(10), primary_key=True),
    Column("budget", Float, nullable=False),
    Column("body", Text, nullable=False),
)

deployment = Table(
    "deployment",
    metadata,
    #: A setting every process sharing the database must share (revision
    #: 0010), by its option (``--away-grace``), and the value the first
    #: process wrote (see marjolet.web.deployment).
    Column("setting", String(40), primary_key=True),
    Column("value", Text, nullable=False),
    Column("changed", Float, nullable=False),
    Column("changed_by", String(64), nullable=False),
)

#: The hand-made schema steps of the marjolet versions before the
#: migrations (SQLite ``user_version`` -> statements to the next version).
LEGACY_STEPS = {1: "ALTER TABLE games ADD COLUMN forfeit TEXT"}
#: The last hand-made schema version; revision 0001 is that schema.
LEGACY_VERSION = 2
MIGRATIONS = Path(__file__).with_name("migrations")
#: The lease of a running server process (``server:`` and its id; web/deployment.py).
SERVER_JOB_PREFIX = "server:"
#: The PostgreSQL advisory lock key that one migrating process holds at a time.
MIGRATE_LOCK = 0x6D61726A
#: The newest revision in ``migrations/versions`` (a test checks it).
HEAD_REVISION = "0013"


def database_url(target: str | os.PathLike[str]) -> str:
    """A SQLAlchemy URL for a database URL or a path to a SQLite file."""
    raw = os.fspath(target)
    if "://" in raw:
        return raw
    return f"sqlite:///{Path(raw)}"


def make_engine(target: str | os.PathLike[str]) -> Engine:
    """An engine for ``target``; SQLite files get WAL, full sync and
    foreign keys on every connection, as the store always had."""
    url = database_url(target)
    options: dict[str, Any] = {"connect_args": {"timeout": 30.0}}
    if not url.startswith("sqlite"):  # a server: fail fast, survive its restarts
        options = {"connect_args": {"connect_timeout": 10}, "pool_pre_ping": True}
    engine = create_engine(url, future=True, **options)
    if engine.dialect.name == "sqlite":
        event.listen(engine, "connect", _sqlite_pragmas)
        event.listen(engine, "begin", _sqlite_begin)
    return engine


def read_only_sqlite(path: Path, uri: str | None = None) -> Engine:
    """An engine that reads the SQLite file ``path`` and never changes it,
    through ``uri`` or :func:`marjolet.outputs.sqlite_read_only_uri`'s:
    read only, and as an immutable file when no one has it open, so that
    not even SQLite's shared-memory side files are created (``serve
    --check-db``, the source of ``db-copy``). No marjolet server may write
    it meanwhile: ``db-copy`` holds its lock file, and ``--check-db`` reads
    it again when it changed during the read
    (:func:`marjolet.outputs.read_unchanged`)."""
    from marjolet.outputs import sqlite_read_only_uri

    given = uri or sqlite_read_only_uri(path)  # file:///PATH?mode=ro..., percent-encoded
    return create_engine(f"sqlite:///{given.replace('file://', 'file:', 1)}&uri=true")


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    # SQLAlchemy, not the sqlite3 module, starts transactions (so that
    # savepoints work): see _sqlite_begin.
    dbapi_connection.isolation_level = None
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=FULL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()


def _sqlite_begin(connection: Connection) -> None:
    """A SQLite transaction takes the write lock at once (one writer at a
    time, and no transaction ever fails to upgrade from reading to
    writing), except on a :func:`reader`'s connections, whose read-only
    transactions never wait for a writer (WAL mode)."""
    mode = connection.get_execution_options().get("sqlite_begin", "IMMEDIATE")
    connection.exec_driver_sql(f"BEGIN {mode}")


def reader(engine: Engine) -> Engine:
    """The same engine (and pool) for reads only: on SQLite its transactions
    are deferred, so a read never queues behind a writer."""
    return engine.execution_options(sqlite_begin="DEFERRED")


def migrate(engine: Engine) -> str:
    """Bring the database up to the newest revision; returns that revision.
    A database already at it is left without loading Alembic (most of a
    second of imports for each process that joins or restarts)."""
    with engine.begin() as connection:
        if connection.dialect.name == "postgresql":  # processes starting together
            connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": MIGRATE_LOCK})
        _adopt_legacy(connection)
        before = current_revision(connection)
        check_revision(before)
        if before == HEAD_REVISION:
            return before
        refuse_upgrade_while_served(connection, before)
        _upgrade(connection)
        after = current_revision(connection)
    if before and after != before:  # an existing database was upgraded
        log.info("database schema upgraded from revision %s to %s", before, after)
    elif not before:  # a new database
        log.info("created the tables (revision %s)", after)
    return after


def _upgrade(connection: Connection) -> None:
    """Alembic's upgrade to the newest revision, on ``connection``."""
    logging.getLogger("alembic").setLevel(logging.WARNING)  # one line of ours instead
    from alembic import command
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.attributes["connection"] = connection
    command.upgrade(config, "head")


class NewerDatabase(Exception):
    """A database at a marjolet revision newer than this marjolet's."""


def check_revision(revision: str) -> None:
    """Refuse, before Alembic reads it, a revision this marjolet does not
    know: a later one of ours (four digits) is a newer marjolet's, anything
    else is another program's table of the same name."""
    ours = re.fullmatch(r"[0-9]{4}", revision) is not None and revision >= "0001"
    if not revision or (ours and revision <= HEAD_REVISION):
        return
    if ours:
        raise NewerDatabase(
            f"it is at schema revision {revision}; this marjolet knows up to {HEAD_REVISION}"
        )
    raise ForeignDatabase(
        f"its 'alembic_version' table holds revision {revision!r}, which is not one of marjolet's"
    )


class ServersRunning(Exception):
    """A database to upgrade while older marjolet processes still serve it."""


def refuse_upgrade_while_served(connection: Connection, revision: str) -> None:
    """Refuse to upgrade a database at ``revision`` while a process holds a
    live ``server:`` lease on it (revision 0010 on): that process is an
    older marjolet, which never reads the revision again and would go on
    writing the old schema's rows into the new one (a name's look by the
    old fold, a live offer without its sign of life), unseen. A rolling
    restart cannot upgrade; every process must stop first (docs/deploy.md)."""
    if not revision or revision >= HEAD_REVISION or not inspect(connection).has_table("leases"):
        return
    from marjolet.web.leases import LEASE_SECONDS  # leases.py imports this module

    servers = leases.c.job.startswith(SERVER_JOB_PREFIX, autoescape=True)
    live = leases.c.expires >= time.time()
    count = select(func.count()).select_from(leases).where(servers, live)
    found = connection.execute(count).scalar_one()
    if found:
        raise ServersRunning(
            f"it is at schema revision {revision} and {found} older marjolet server(s) "
            f"still run on it (or stopped less than {LEASE_SECONDS:g} s ago): stop every "
            f"process before upgrading it to revision {HEAD_REVISION}, then start them all "
            "with the new marjolet (docs/deploy.md, step 6)"
        )


def current_revision(connection: Connection) -> str:
    """The revision the database is at ('' before any)."""
    if not inspect(connection).has_table("alembic_version"):
        return ""
    row = connection.execute(text("SELECT version_num FROM alembic_version")).first()
    return str(row[0]) if row else ""


def database_unreachable(exc: BaseException) -> bool:
    """Whether ``exc`` says the database server cannot be reached now (down,
    restarting, a cut connection, a full pool), rather than a bug or bad
    input: the client may try again."""
    from sqlalchemy import exc as sa

    if isinstance(exc, sa.DBAPIError) and exc.connection_invalidated:
        return True
    return isinstance(
        exc, (sa.OperationalError, sa.InterfaceError, sa.TimeoutError, sa.PendingRollbackError)
    )


def one_line_reason(exc: BaseException) -> str:
    """The driver's own message of a database error, on one line: never
    SQLAlchemy's ``[SQL: ...]``, ``[parameters: ...]`` and background link,
    which would break the log's one line per record (docs/deploy.md)."""
    original = getattr(exc, "orig", None)
    return " ".join(str(original if original is not None else exc).split())[:300]


def connection_lost(exc: BaseException) -> bool:
    """Whether ``exc`` is the database server dropping the connection (a
    restart, an administrator's ``pg_terminate_backend``): SQLAlchemy has
    invalidated it, and its open transaction is gone, never committed."""
    from sqlalchemy import exc as sa

    return isinstance(exc, sa.DBAPIError) and bool(exc.connection_invalidated)


class ForeignDatabase(Exception):
    """A database with tables of the server's names that marjolet did not make."""


def _adopt_legacy(connection: Connection) -> None:
    """Stamp a database of the hand-made schema as revision 0001, after
    completing its hand-made steps (nothing is dropped or rewritten). The
    hand-made schema was SQLite's only: a database server holding a
    ``games`` table without a revision belongs to another program."""
    names = set(inspect(connection).get_table_names())
    if "alembic_version" in names or "games" not in names:
        return
    if connection.dialect.name != "sqlite":
        raise ForeignDatabase("it has a 'games' table that marjolet did not make")
    version = connection.exec_driver_sql("PRAGMA user_version").scalar() or 0
    for step in range(int(version), LEGACY_VERSION):
        connection.exec_driver_sql(LEGACY_STEPS[step])
    connection.exec_driver_sql(f"PRAGMA user_version = {LEGACY_VERSION}")
    connection.exec_driver_sql(
        "CREATE TABLE alembic_version (version_num VARCHAR(32) NOT NULL PRIMARY KEY)"
    )
    connection.exec_driver_sql("INSERT INTO alembic_version VALUES ('0001')")
