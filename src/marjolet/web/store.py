"""The web server's store: every game as its record, appended action by action.

A game is stored the way ``docs/record.md`` describes it (rules, first
dealer, player names, a deck per deal, the actions of each deal) plus what
the server needs to run it again: the seats (a human, or a bot with its spec
and seed), the SHA-256 hashes of the seats' secret tokens and of the invite
code, and a summary for the history page (status, totals, winner, counts)
and, when a bot broke down, the :class:`Forfeit` that ended the game. A
forfeit is a property of the stored game, not of its record: the record
stays the moves that were played, valid under the record format.

The tables are declared once in :mod:`marjolet.web.db` (SQLAlchemy Core)
and evolve by its Alembic migrations, so the same store runs on the
embedded SQLite file and on PostgreSQL (a ``postgresql://`` URL). Writes
are small transactions, committed before the server acknowledges the move
they hold (on SQLite in WAL mode with ``synchronous=FULL``): a move that a
player saw acknowledged survives a killed server (``SIGKILL``) and a power
cut. Resuming a game is replaying its record (:func:`marjolet.record.to_match`).

The store is used from one thread at a time (the web server gives it its own
single worker thread). On a SQLite file it takes an exclusive lock file
beside the database so that two servers never drive the same games.

A row that cannot be read (a damaged value in one game) is that game's
problem only: :meth:`Store.load_game` raises :class:`StoreError` naming the
game, and :meth:`Store.list_games` leaves it out and lists it in
:attr:`Store.damaged`.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import os
import re
import time
from collections.abc import Iterator, Sequence
from contextlib import closing, contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from sqlalchemy import (
    Connection,
    NestedTransaction,
    RootTransaction,
    case,
    func,
    insert,
    inspect,
    select,
    text,
    update,
)
from sqlalchemy.exc import DatabaseError, IntegrityError, SQLAlchemyError

from marjolet import lockfile
from marjolet.actions import ACTION_NAMES, parse_action
from marjolet.cards import CARD_NAMES, parse_card
from marjolet.errors import MarjoletError
from marjolet.outputs import OutputError, check_database, read_unchanged, sqlite_damage
from marjolet.record import DealRecord, Record
from marjolet.rules import Rules
from marjolet.web.db import (
    LEGACY_VERSION,
    ForeignDatabase,
    NewerDatabase,
    ServersRunning,
    actions,
    check_revision,
    database_url,
    deals,
    game_players,
    games,
    make_engine,
    migrate,
    one_line_reason,
    read_only_sqlite,
)
from marjolet.web.presence import DAY

log = logging.getLogger("marjolet.web")


def _stamped_revision(db: Any) -> str:
    """The Alembic revision a SQLite file is stamped with ('' if none), read
    with the standard library's ``sqlite3`` so that nothing is written."""
    if not db.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'alembic_version'"
    ).fetchone():
        return ""
    row = db.execute("SELECT version_num FROM alembic_version").fetchone()
    return str(row[0]) if row else ""

#: The tables every web database has (an existing file without them is refused).
TABLES = ("games", "deals", "actions")

Mode = Literal["bot", "friend", "watch"]
Status = Literal["waiting", "playing", "finished"]

#: Longest forfeit reason kept, and lines (and their length) of a bot's
#: standard error kept with it.
MAX_REASON = 600
MAX_STDERR_LINES = 10
MAX_STDERR_LINE = 200


class StoreError(MarjoletError):
    """The database cannot be opened, is in use, or holds something unreadable."""


class StoreConflict(StoreError):
    """A write that the database refused because its key is taken: an
    action at a position that already holds one (a move is stored once)."""


def token_hash(token: str) -> str:
    """The stored form of a secret token: the server never keeps tokens."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


@dataclass(frozen=True, slots=True)
class SeatInfo:
    """Who plays a seat: a person in a browser, or a bot.

    ``bot`` is the name of the server's bot choice (never a spec typed by a
    client) and ``spec`` the spec string it stood for when the game began,
    kept so the game resumes with the same bot.
    """

    kind: Literal["human", "bot"]
    bot: str = ""
    spec: str = ""
    seed: int = 0

    def to_json(self) -> dict[str, Any]:
        if self.kind == "human":
            return {"kind": "human"}
        return {"kind": "bot", "bot": self.bot, "spec": self.spec, "seed": self.seed}

    @classmethod
    def from_json(cls, value: Any) -> SeatInfo:
        if value.get("kind") == "human":
            return cls("human")
        return cls("bot", str(value["bot"]), str(value["spec"]), int(value["seed"]))


#: The reason of a game *aborted*: it ended (claimed, or abandoned) before
#: ``seat`` ever made a move of its own, so it has no result at all (no
#: winner, never rated; docs/web.md, "A game nobody started").
ABORTED_REASON = "aborted before their first move"
#: The reason of a forfeit by a person who gave the match up.
RESIGNED_REASON = "resigned"


@dataclass(frozen=True, slots=True)
class Forfeit:
    """A game ended before its last deal: lost by a bot that broke down (a
    :class:`~marjolet.bots.BotFault`: an external program's garbled or
    illegal answer, time-out or exit) or by a person who left, ran out of
    time or resigned; or aborted (:data:`ABORTED_REASON`).

    ``seat`` lost (an aborted game: the seat that never moved); the other
    seat is the winner, an aborted game has none. ``bot`` is the server's
    name of the bot choice, ``reason`` one line, ``stderr`` the last lines
    the bot's program wrote to its standard error (trimmed).
    """

    seat: int
    bot: str
    reason: str
    stderr: tuple[str, ...] = ()
    at: float = 0.0

    @classmethod
    def trimmed(
        cls, seat: int, bot: str, reason: str, stderr: str = "", at: float | None = None
    ) -> Forfeit:
        """A forfeit whose texts are cut to what the store and pages keep."""
        one_line = " ".join(reason.split())
        if len(one_line) > MAX_REASON:
            one_line = one_line[: MAX_REASON - 3] + "..."
        lines = [line.rstrip() for line in stderr.splitlines() if line.strip()]
        kept = tuple(
            line if len(line) <= MAX_STDERR_LINE else line[: MAX_STDERR_LINE - 3] + "..."
            for line in lines[-MAX_STDERR_LINES:]
        )
        return cls(seat, bot, one_line, kept, time.time() if at is None else at)

    @property
    def aborted(self) -> bool:
        """Ended before ``seat``'s first move: no result."""
        return self.reason == ABORTED_REASON

    @property
    def resigned(self) -> bool:
        """``seat`` gave the match up (said "by resignation", not "by forfeit")."""
        return self.reason == RESIGNED_REASON

    @property
    def winner(self) -> int | None:
        return None if self.aborted else 1 - self.seat

    def to_json(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "winner": self.winner,
            "bot": self.bot,
            "reason": self.reason,
            "stderr": list(self.stderr),
            "at": self.at,
        }

    @classmethod
    def from_json(cls, value: Any) -> Forfeit:
        return cls(
            int(value["seat"]),
            str(value["bot"]),
            str(value["reason"]),
            tuple(str(line) for line in value.get("stderr", ())),
            float(value.get("at", 0.0)),
        )

    def message(self, players: Sequence[str]) -> str:
        """The one-line notice: who broke down, why, and who wins."""
        return (
            f"{players[self.seat]} broke down and forfeits the match "
            f"({self.reason}); {players[1 - self.seat]} wins"
        )


@dataclass(slots=True)
class GameRow:
    """One stored game: the record and the server's data about its seats."""

    id: str
    created: float
    updated: float
    mode: Mode
    rules: Rules
    first_dealer: int
    players: tuple[str, str]
    seats: tuple[SeatInfo, SeatInfo]
    token_hashes: tuple[str | None, str | None]
    invite_hash: str | None
    status: Status
    totals: tuple[int, int] = (0, 0)
    winner: int | None = None
    deal_count: int = 0
    action_count: int = 0
    #: Set when the game ended before its last deal (status ``finished``):
    #: a forfeit, or an abort (no winner).
    forfeit: Forfeit | None = None
    #: Bumped by every stored change of the game (see :meth:`Store.version_of`).
    version: int = 0
    decks: list[tuple[int, ...]] = field(default_factory=list)
    actions: list[list[int]] = field(default_factory=list)

    def record(self) -> Record:
        """The game record (record.md) of everything stored so far."""
        deals = tuple(
            DealRecord(deck, tuple(self.actions[i]) if i < len(self.actions) else ())
            for i, deck in enumerate(self.decks)
        )
        return Record(self.rules, self.first_dealer, self.players, deals)

    def summary(self) -> dict[str, Any]:
        """What the history page lists (nothing secret)."""
        return {
            "id": self.id,
            "created": self.created,
            "updated": self.updated,
            "mode": self.mode,
            "players": list(self.players),
            "seats": [s.kind for s in self.seats],
            "status": self.status,
            "totals": list(self.totals),
            "winner": self.winner,
            "deals": self.deal_count,
            "actions": self.action_count,
            "target": self.rules.target,
            "forfeit": self.forfeit.to_json() if self.forfeit is not None else None,
        }


class Store:
    """Games in one database (see the module docstring)."""

    def __init__(self, target: str | os.PathLike[str]) -> None:
        url = database_url(target)
        self.path: Path | None = None
        self.url = url
        self.damaged: dict[str, str] = {}
        self._lock_fd: int | None = None
        self._trans: list[RootTransaction | NestedTransaction] = []
        if url.startswith("sqlite:"):
            self.path = Path(os.fspath(target))
            try:
                check_database(self.path, tables=TABLES, what="a marjolet database")
            except OutputError as exc:
                raise StoreError(str(exc)) from None
            self._take_lock()
        try:
            self._refuse_newer()
            self.engine = make_engine(url)
        except StoreError:
            self._release_lock()
            raise
        try:
            self._setup()
            self._live: Connection = self.engine.connect()
        except StoreError:
            self.engine.dispose()
            self._release_lock()
            raise
        except SQLAlchemyError as exc:
            self.engine.dispose()
            self._release_lock()
            raise StoreError(f"cannot open database {self._shown()}: {_reason(exc)}") from None

    # -- opening and closing -----------------------------------------------------

    @property
    def _conn(self) -> Connection:
        """The store's connection. One that a database server dropped (a
        restart, a cut connection) is replaced by a new one at the next use
        outside a batch, so that only the operation that met the failure
        fails (a server still down: an ``OperationalError``, a
        :class:`DatabaseError`)."""
        if (self._live.closed or self._live.invalidated) and not self._trans:
            self._live = self.engine.connect()
        return self._live

    def _after_failure(self) -> None:
        """End what a failed statement left: its transaction, and a
        connection the server dropped (reopened by :attr:`_conn`)."""
        with suppress(Exception):
            self._live.rollback()
        if self._live.invalidated and not self._trans:
            with suppress(Exception):
                self._live.close()

    def _shown(self) -> str:
        if self.path is not None:
            return repr(str(self.path))
        url = self.engine.url  # as the user wrote it: without the driver's name
        return repr(url.set(drivername=url.get_backend_name()).render_as_string(hide_password=True))

    def _lock_path(self) -> Path:
        assert self.path is not None
        return self.path.with_name(self.path.name + ".lock")

    def _take_lock(self) -> None:
        """Hold the database's lock file (:mod:`marjolet.lockfile`): a second
        server on the same file is refused."""
        assert self.path is not None
        try:
            self._lock_fd = lockfile.take(self._lock_path())
        except lockfile.LockHeld:
            raise StoreError(
                f"database {str(self.path)!r} is in use by another marjolet server"
            ) from None
        except OSError as exc:
            raise StoreError(
                f"cannot open database {str(self.path)!r}: {exc.strerror or exc}"
            ) from None

    def _release_lock(self) -> None:
        """Drop the lock and remove its file, unless another process has
        made and taken a new one since (so that no ``.lock`` is left behind
        by a failed start or a normal close)."""
        if self._lock_fd is not None:
            lockfile.release(self._lock_fd, self._lock_path())
            self._lock_fd = None

    def _refuse_newer(self) -> None:
        """Refuse a SQLite file of a newer hand-made schema, read only (a
        refused file is never changed, not even its journal mode)."""
        if self.path is None or not self.path.exists() or self.path.stat().st_size == 0:
            return
        import sqlite3

        try:
            uri = f"{self.path.resolve().as_uri()}?mode=ro"
            with closing(sqlite3.connect(uri, uri=True)) as db:
                version = int(db.execute("PRAGMA user_version").fetchone()[0])
                revision = _stamped_revision(db)
        except sqlite3.Error as exc:
            raise StoreError(f"{self._shown()} is not a marjolet database: {exc}") from None
        try:
            check_revision(revision)
        except (ForeignDatabase, NewerDatabase) as exc:
            raise self._refusal(exc) from None
        if version > LEGACY_VERSION:
            raise StoreError(
                f"database {str(self.path)!r} has schema version {version}; this marjolet "
                f"reads version {LEGACY_VERSION} (upgrade marjolet)"
            )

    def _setup(self) -> None:
        """Bring the database up to this marjolet's newest revision."""
        try:
            migrate(self.engine)
        except (ForeignDatabase, NewerDatabase) as exc:
            raise self._refusal(exc) from None
        except ServersRunning as exc:
            raise StoreError(f"database {self._shown()}: {exc}") from None
        except DatabaseError as exc:
            if _sqlstate(exc) == INSUFFICIENT_PRIVILEGE:
                raise self._not_allowed(exc) from None
            shown = self._shown()
            raise StoreError(f"{shown} is not a marjolet database: {_primary(exc)}") from None

    def _not_allowed(self, exc: DatabaseError) -> StoreError:
        """The one-line refusal of a database server whose user may not
        create (or change) the tables: PostgreSQL 15 and later let only the
        database's owner create tables in its schema ``public``."""
        url = self.engine.url
        user, database = url.username or "", url.database or ""
        with suppress(SQLAlchemyError), self.engine.connect() as db:  # as the server knows them
            row = db.execute(text("SELECT current_user, current_database()")).first()
            if row is not None:
                user, database = str(row[0]), str(row[1])
        reason = _primary(exc)
        found = re.fullmatch(r"permission denied for schema (\S+)", reason)
        if found:
            schema = found.group(1)
            return StoreError(
                f"user {user!r} may not create tables in schema {schema} of {database!r} "
                f"(createdb -O {user}, or GRANT CREATE ON SCHEMA {schema} TO {user})"
            )
        return StoreError(
            f"user {user!r} may not change the tables of {database!r}: {reason} (serve as "
            "the user that owns them, or make it their owner)"
        )

    def _refusal(self, exc: ForeignDatabase | NewerDatabase) -> StoreError:
        """The one-line refusal of a database this marjolet must not touch."""
        if isinstance(exc, NewerDatabase):
            shown = self._shown()
            return StoreError(
                f"database {shown} was written by a newer marjolet: {exc} (upgrade marjolet)"
            )
        return StoreError(f"{self._shown()} is not a marjolet database: {exc}")

    def close(self) -> None:
        """Close the database and give back its lock file (removed)."""
        try:
            self._live.close()
            self.engine.dispose()
        finally:
            self._release_lock()

    @property
    def journal_mode(self) -> str:
        """SQLite's journal mode ('wal'), or the backend's name elsewhere."""
        if self.path is None:
            return self.engine.dialect.name
        with self._reading():
            return str(self._conn.exec_driver_sql("PRAGMA journal_mode").scalar())

    @contextmanager
    def _transaction(self) -> Iterator[Connection]:
        """A transaction, or a savepoint inside the :meth:`batch` in progress:
        a failing write then undoes only itself, not its neighbours."""
        db = self._conn
        trans = db.begin_nested() if self._trans else db.begin()
        self._trans.append(trans)
        try:
            yield db
        except BaseException:
            self._trans.pop()
            with suppress(SQLAlchemyError):
                trans.rollback()
            if not self._trans:
                self._after_failure()
            raise
        self._trans.pop()
        try:
            trans.commit()
        except BaseException:  # a failed commit (a damaged file, a full disk) ends it too
            with suppress(SQLAlchemyError):
                trans.rollback()
            if not self._trans:
                self._after_failure()
            raise

    @contextmanager
    def batch(self) -> Iterator[None]:
        """Run several writes in one transaction, committed (and synced to
        disk) once at the end: the group commit of the web server."""
        with self._transaction():
            yield

    # -- writing -----------------------------------------------------------------

    def create_game(self, game: GameRow) -> None:
        """Store a new game (with its first deal, if it has one)."""
        with self._transaction() as db:
            db.execute(
                insert(games).values(
                    id=game.id,
                    created=game.created,
                    updated=game.updated,
                    mode=game.mode,
                    rules=json.dumps(game.rules.to_json()),
                    first_dealer=game.first_dealer,
                    players=json.dumps(list(game.players)),
                    seats=json.dumps([s.to_json() for s in game.seats]),
                    token_hashes=json.dumps(list(game.token_hashes)),
                    invite_hash=game.invite_hash,
                    status=game.status,
                    totals=json.dumps(list(game.totals)),
                    winner=game.winner,
                    deal_count=0,
                    action_count=0,
                )
            )
            for i, deck in enumerate(game.decks):
                self._insert_deal(db, game.id, i, deck)

    def add_deal(
        self,
        game_id: str,
        index: int,
        deck: Sequence[int],
        *,
        status: Status,
        expected: int | None = None,
        updated: float | None = None,
    ) -> int:
        """Store the deck of deal ``index`` (before anyone sees a card of
        it); returns the game's new version. A deal stored already, or a
        game no longer at version ``expected`` (when given), is a
        :class:`StoreConflict`: another process got there first.
        ``updated``: the game's new time stamp (now if not given), which
        the caller keeps too, so that both show one deadline."""
        now = time.time() if updated is None else updated
        try:
            with self._transaction() as db:
                version = self._bump(
                    db, game_id, expected, updated=now, status=status, deal_count=index + 1
                )
                self._insert_deal(db, game_id, index, deck)
        except IntegrityError:
            raise StoreConflict(f"game {game_id}: deal {index} is stored already") from None
        return version

    @staticmethod
    def _bump(db: Connection, game_id: str, expected: int | None, **values: Any) -> int:
        """Bump the game's version (and set ``values``) if it is at
        ``expected``; the new version, or :class:`StoreConflict`. On
        PostgreSQL the row lock makes a second process wait for the first
        one's commit, then find the version moved on."""
        where = [games.c.id == game_id]
        if expected is not None:
            where.append(games.c.version == expected)
        changed = db.execute(
            update(games)
            .where(*where)
            .values(version=games.c.version + 1, **values)
        ).rowcount
        if changed != 1:
            raise StoreConflict(f"game {game_id}: it changed meanwhile (not at version {expected})")
        return int(db.execute(select(games.c.version).where(games.c.id == game_id)).scalar_one())

    @staticmethod
    def _insert_deal(db: Connection, game_id: str, index: int, deck: Sequence[int]) -> None:
        db.execute(
            insert(deals).values(
                game_id=game_id, idx=index, deck=" ".join(CARD_NAMES[c] for c in deck)
            )
        )
        count = case((games.c.deal_count < index + 1, index + 1), else_=games.c.deal_count)
        db.execute(update(games).where(games.c.id == game_id).values(deal_count=count))

    def append_action(
        self,
        game_id: str,
        deal: int,
        seq: int,
        action: int,
        *,
        totals: tuple[int, int],
        status: Status,
        winner: int | None,
        expected: int | None = None,
        updated: float | None = None,
    ) -> int:
        """Append action ``seq`` of deal ``deal`` and the game summary after it,
        in one committed transaction; returns the game's new version. A
        second append at the same position fails with :class:`StoreConflict`
        (the primary key), and so does an append to a game that is no longer
        at version ``expected`` (when given): a move is stored once, even
        when two processes take it at the same moment. ``updated``: the
        action's and the game's time stamp (now if not given)."""
        now = time.time() if updated is None else updated
        try:
            with self._transaction() as db:
                version = self._bump(
                    db,
                    game_id,
                    expected,
                    updated=now,
                    status=status,
                    totals=json.dumps(list(totals)),
                    winner=winner,
                    action_count=games.c.action_count + 1,
                )
                db.execute(
                    insert(actions).values(
                        game_id=game_id,
                        deal=deal,
                        seq=seq,
                        action=ACTION_NAMES[action],
                        at=now,
                    )
                )
        except IntegrityError:
            raise StoreConflict(
                f"game {game_id}: deal {deal} already has an action {seq}"
            ) from None
        return version

    def forfeit(
        self,
        game_id: str,
        forfeit: Forfeit,
        *,
        totals: tuple[int, int],
        expected: int | None = None,
    ) -> bool:
        """End an unfinished game as lost by ``forfeit.seat``: status
        ``finished``, the other seat the winner (none when it is aborted),
        the forfeit kept with it.
        Returns False (and changes nothing) if the game is already finished,
        or, given ``expected``, no longer at that version (a move or another
        ending was stored since it was checked): one conditional write, so
        a game is ended once whichever processes try."""
        where = [games.c.id == game_id, games.c.status != "finished"]
        if expected is not None:
            where.append(games.c.version == expected)
        with self._transaction() as db:
            result = db.execute(
                update(games)
                .where(*where)
                .values(
                    updated=time.time(),
                    status="finished",
                    totals=json.dumps(list(totals)),
                    winner=forfeit.winner,
                    forfeit=json.dumps(forfeit.to_json()),
                    version=games.c.version + 1,
                )
            )
            return result.rowcount == 1

    def claim_invite(
        self,
        game_id: str,
        invite_hash: str,
        seat: int,
        new_token_hash: str,
        name: str,
        updated: float | None = None,
    ) -> bool:
        """Give ``seat`` (and its display name) to whoever holds the invite
        code; the code works once. ``updated``: the game's new time stamp
        (now if not given)."""
        with self._transaction() as db:
            row = db.execute(
                select(games.c.invite_hash, games.c.token_hashes, games.c.players).where(
                    games.c.id == game_id
                )
            ).first()
            if row is None or row[0] is None or not hmac.compare_digest(row[0], invite_hash):
                return False
            hashes = json.loads(row[1])
            hashes[seat] = new_token_hash
            players = json.loads(row[2])
            players[seat] = name
            done = db.execute(
                update(games)
                .where(games.c.id == game_id, games.c.invite_hash == invite_hash)
                .values(
                    invite_hash=None,
                    token_hashes=json.dumps(hashes),
                    players=json.dumps(players),
                    status="playing",
                    updated=time.time() if updated is None else updated,
                    version=games.c.version + 1,
                )
            ).rowcount
        return done == 1

    # -- reading -----------------------------------------------------------------

    def load_game(self, game_id: str) -> GameRow | None:
        """A stored game with its decks and actions, or ``None``; a game
        whose rows cannot be read raises :class:`StoreError` naming it (and
        is kept in :attr:`damaged`, logged once)."""
        with self._reading():
            try:
                return read_game(self._conn, game_id)
            except StoreError as exc:
                self.quarantine(game_id, str(exc))
                raise

    def list_games(self, limit: int = 200) -> list[GameRow]:
        """The most recently updated games (summaries only, no decks); a
        game whose row cannot be read is left out and kept in
        :attr:`damaged`."""
        with self._reading():
            rows = self._conn.execute(
                select(games).order_by(games.c.updated.desc()).limit(limit)
            ).all()
        listed = []
        for row in rows:
            try:
                listed.append(self._row(row))
            except StoreError as exc:
                self.quarantine(str(row.id), str(exc))
        return listed

    def quarantine(self, game_id: str, reason: str) -> None:
        """Note a game that cannot be read (logged once)."""
        if game_id not in self.damaged:
            log.error("damaged game %s left out: %s", game_id, reason)
        self.damaged[game_id] = reason

    def version_of(self, game_id: str) -> int | None:
        """The stored version of a game (None: no such game): one cheap
        read that tells a process whether its copy in memory is current."""
        with self._reading():
            value = self._conn.execute(
                select(games.c.version).where(games.c.id == game_id)
            ).scalar()
        return None if value is None else int(value)

    def versions_of(self, game_ids: Sequence[str]) -> dict[str, int]:
        """The stored versions of several games at once (one query: the
        periodic check of a process sharing its database)."""
        if not game_ids:
            return {}
        with self._reading():
            rows = self._conn.execute(
                select(games.c.id, games.c.version).where(games.c.id.in_(list(game_ids)))
            ).all()
        return {str(r.id): int(r.version) for r in rows}

    def idle_people_ids(self, before: float) -> list[str]:
        """The unfinished games between two seated people (no invite link
        waiting) whose last change is older than ``before`` (epoch seconds),
        a correspondence game's older by its days per move as well: the
        ones that may have been abandoned (web/hub.py)."""
        days = (
            select(game_players.c.game_id, func.max(game_players.c.days_per_move).label("days"))
            .group_by(game_players.c.game_id)
            .subquery()
        )
        query = (
            select(games.c.id)
            .select_from(games.outerjoin(days, days.c.game_id == games.c.id))
            .where(
                games.c.status != "finished",
                games.c.mode == "friend",
                games.c.invite_hash.is_(None),
                games.c.updated < before - func.coalesce(days.c.days, 0) * DAY,
            )
        )
        with self._reading():
            return [str(r[0]) for r in self._conn.execute(query)]

    def unfinished_ids(self, mode: Mode | None = None) -> list[str]:
        query = select(games.c.id).where(games.c.status != "finished")
        if mode is not None:
            query = query.where(games.c.mode == mode)
        with self._reading():
            return [str(r[0]) for r in self._conn.execute(query)]

    def count_games(self) -> int:
        with self._reading():
            return int(self._conn.execute(select(func.count()).select_from(games)).scalar_one())

    @contextmanager
    def _reading(self) -> Iterator[None]:
        """Reads outside a batch end their implicit transaction at once, so
        that they never hold a snapshot (or a lock) while the store waits."""
        try:
            yield
        except SQLAlchemyError:
            if not self._trans:
                self._after_failure()
            raise
        finally:
            if not self._trans and not self._live.closed and self._live.in_transaction():
                with suppress(SQLAlchemyError):
                    self._live.rollback()

    @staticmethod
    def _row(row: Any) -> GameRow:
        """A games row as a :class:`GameRow`; :class:`StoreError` naming
        the game if any value in it cannot be read."""
        try:
            players = json.loads(row.players)
            seats = [SeatInfo.from_json(s) for s in json.loads(row.seats)]
            hashes = json.loads(row.token_hashes)
            totals = json.loads(row.totals)
            return GameRow(
                id=row.id,
                created=row.created,
                updated=row.updated,
                mode=row.mode,
                rules=Rules.from_json(json.loads(row.rules)),
                first_dealer=int(row.first_dealer),
                players=(str(players[0]), str(players[1])),
                seats=(seats[0], seats[1]),
                token_hashes=(hashes[0], hashes[1]),
                invite_hash=row.invite_hash,
                status=row.status,
                totals=(int(totals[0]), int(totals[1])),
                winner=row.winner,
                deal_count=row.deal_count,
                action_count=row.action_count,
                forfeit=Forfeit.from_json(json.loads(row.forfeit)) if row.forfeit else None,
                version=int(row.version),
            )
        except (ValueError, TypeError, KeyError, IndexError, AttributeError) as exc:
            raise StoreError(f"game {row.id}: its row cannot be read ({exc})") from None


def read_game(db: Connection, game_id: str) -> GameRow | None:
    """A game with its decks and actions from any connection, or ``None``;
    :class:`StoreError` naming the game and the place if a row is damaged."""
    row = db.execute(select(games).where(games.c.id == game_id)).first()
    if row is None:
        return None
    game = Store._row(row)
    deck_rows = db.execute(
        select(deals.c.idx, deals.c.deck).where(deals.c.game_id == game_id).order_by(deals.c.idx)
    ).all()
    action_rows = db.execute(
        select(actions.c.deal, actions.c.seq, actions.c.action)
        .where(actions.c.game_id == game_id)
        .order_by(actions.c.deal, actions.c.seq)
    ).all()
    for idx, deck in deck_rows:
        if idx != len(game.decks):
            raise StoreError(f"game {game_id}: deal {len(game.decks)} is missing")
        game.decks.append(_parse(game_id, f"the deck of deal {idx}", deck, _deck))
        game.actions.append([])
    for deal, seq, action in action_rows:
        if deal >= len(game.actions) or seq != len(game.actions[deal]):
            raise StoreError(f"game {game_id}: action {seq} of deal {deal} is out of place")
        where = f"action {seq} of deal {deal}"
        game.actions[deal].append(_parse(game_id, where, action, parse_action))
    return game


def check_database_file(path: str | os.PathLike[str]) -> tuple[int, list[str]]:
    """Read a SQLite database file without changing it: (games read,
    problems). Problems are SQLite's integrity check and every game that
    cannot be read or replayed, one line each (``marjolet serve --check-db``).
    A file no one has open is read as immutable, blind to a writer (a
    server starting) that changes it meanwhile: then it is read again, at
    last under SQLite's locks (:func:`marjolet.outputs.read_unchanged`)."""
    target = Path(path)
    if not target.is_file():
        return 0, [f"{str(target)!r}: no such file"]
    damage = sqlite_damage(target)  # (before anything reads a table of it)
    if damage is not None:
        return 0, [f"{str(target)!r} is a damaged database (SQLite finds: {damage})"]
    return read_unchanged(target, lambda uri: _check_rows(target, uri))


def _check_rows(target: Path, uri: str) -> tuple[int, list[str]]:
    """:func:`check_database_file` once the quick check found no damage,
    reading through the SQLite ``uri``."""
    from marjolet.record import to_match

    engine = read_only_sqlite(target, uri)
    problems: list[str] = []
    count = 0
    try:
        with engine.connect() as db:
            verdict = [str(r[0]) for r in db.execute(text("PRAGMA integrity_check")).all()]
            if verdict != ["ok"]:
                problems.extend(f"integrity: {line}" for line in verdict[:20])
            revision = _revision_problem(db)
            if revision:
                return 0, [f"{str(target)!r}: {revision}"]
            ids = [str(r[0]) for r in db.execute(select(games.c.id)).all()]
            for game_id in ids:
                try:
                    game = read_game(db, game_id)
                    if game is not None:
                        to_match(game.record())
                    count += 1
                except (StoreError, MarjoletError) as exc:
                    problems.append(f"game {game_id}: {exc}")
    except SQLAlchemyError as exc:
        problems.append(f"{str(target)!r} cannot be read as a marjolet database: {_reason(exc)}")
    finally:
        engine.dispose()
    return count, problems


def _revision_problem(db: Connection) -> str:
    """Why the schema revision stored in ``db`` is not one this marjolet
    serves (a newer marjolet's, another program's), or ``""``: the server
    refuses such a file, so the check must not call it sound."""
    if not inspect(db).has_table("alembic_version"):
        return ""
    row = db.execute(text("SELECT version_num FROM alembic_version")).first()
    try:
        check_revision(str(row[0]) if row else "")
    except (NewerDatabase, ForeignDatabase) as exc:
        return f"not a database this marjolet serves: {exc}"
    return ""


def _deck(text_value: str) -> tuple[int, ...]:
    return tuple(parse_card(t) for t in text_value.split())


def _parse(game_id: str, where: str, value: Any, parse: Any) -> Any:
    """``parse(value)``, or a :class:`StoreError` naming the game and the place."""
    try:
        return parse(value)
    except (ValueError, TypeError, AttributeError) as exc:
        raise StoreError(f"game {game_id}: {where} cannot be read ({exc})") from None


#: PostgreSQL's SQLSTATE for "insufficient privilege" (psycopg's
#: ``InsufficientPrivilege``, under SQLAlchemy's ``ProgrammingError``).
INSUFFICIENT_PRIVILEGE = "42501"


def _sqlstate(exc: SQLAlchemyError) -> str | None:
    """The SQLSTATE of a database server's error (None: SQLite's, or none)."""
    return getattr(getattr(exc, "orig", None), "sqlstate", None)


def _primary(exc: SQLAlchemyError) -> str:
    """The server's own one-line message of an error (PostgreSQL's primary
    message, without the ``LINE 2: CREATE TABLE ...`` of the statement),
    else :func:`_reason`."""
    diag = getattr(getattr(exc, "orig", None), "diag", None)
    primary = getattr(diag, "message_primary", None)
    return " ".join(str(primary).split())[:300] if primary else _reason(exc)


def _reason(exc: SQLAlchemyError) -> str:
    """The driver's own one-line message of a database error."""
    return one_line_reason(exc)
