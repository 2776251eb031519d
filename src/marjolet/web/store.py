"""The web server's SQLite store: every game as its record, appended action by action.

A game is stored the way ``record.md`` describes it (rules, first dealer,
player names, a deck per deal, the actions of each deal) plus what the server
needs to run it again: the seats (a human, or a bot with its spec and seed),
the SHA-256 hashes of the seats' secret tokens and of the invite code, and a
summary for the history page (status, totals, winner, counts) and, when a
bot broke down, the :class:`Forfeit` that ended the game. A forfeit is a
property of the stored game, not of its record: the record stays the moves
that were played, valid under ``record.md``.

Writes are small transactions, committed before the server acknowledges the
move they hold, in WAL mode with ``synchronous=FULL``: a move that a player
saw acknowledged survives a killed server (``SIGKILL``) and a power cut.
Resuming a game is replaying its record (:func:`marjolet.record.to_match`).

The store is used from one thread at a time (the web server gives it its own
single worker thread); it takes an exclusive lock file beside the database so
that two servers never drive the same games.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import sqlite3
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from marjolet.actions import ACTION_NAMES, parse_action
from marjolet.cards import CARD_NAMES, parse_card
from marjolet.errors import MarjoletError
from marjolet.outputs import OutputError, check_database
from marjolet.record import DealRecord, Record
from marjolet.rules import Rules

SCHEMA_VERSION = 2
#: The tables every web database has (an existing file without them is refused).
TABLES = ("games", "deals", "actions")

Mode = Literal["bot", "friend", "watch"]
Status = Literal["waiting", "playing", "finished"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id            TEXT PRIMARY KEY,
    created       REAL NOT NULL,
    updated       REAL NOT NULL,
    mode          TEXT NOT NULL,
    rules         TEXT NOT NULL,
    first_dealer  INTEGER NOT NULL,
    players       TEXT NOT NULL,
    seats         TEXT NOT NULL,
    token_hashes  TEXT NOT NULL,
    invite_hash   TEXT,
    status        TEXT NOT NULL,
    totals        TEXT NOT NULL,
    winner        INTEGER,
    deal_count    INTEGER NOT NULL DEFAULT 0,
    action_count  INTEGER NOT NULL DEFAULT 0,
    forfeit       TEXT
);
CREATE INDEX IF NOT EXISTS games_by_update ON games (updated);
CREATE TABLE IF NOT EXISTS deals (
    game_id  TEXT NOT NULL REFERENCES games (id),
    idx      INTEGER NOT NULL,
    deck     TEXT NOT NULL,
    PRIMARY KEY (game_id, idx)
);
CREATE TABLE IF NOT EXISTS actions (
    game_id  TEXT NOT NULL,
    deal     INTEGER NOT NULL,
    seq      INTEGER NOT NULL,
    action   TEXT NOT NULL,
    at       REAL NOT NULL,
    PRIMARY KEY (game_id, deal, seq),
    FOREIGN KEY (game_id, deal) REFERENCES deals (game_id, idx)
);
"""
#: Steps that bring a database of an older schema version up to date.
_MIGRATIONS = {
    1: "ALTER TABLE games ADD COLUMN forfeit TEXT;",  # version 1 -> 2: forfeits
}
_COLUMNS = (
    "id, created, updated, mode, rules, first_dealer, players, seats, token_hashes, "
    "invite_hash, status, totals, winner, deal_count, action_count, forfeit"
)
#: Longest forfeit reason kept, and lines (and their length) of a bot's
#: standard error kept with it.
MAX_REASON = 600
MAX_STDERR_LINES = 10
MAX_STDERR_LINE = 200


class StoreError(MarjoletError):
    """The database cannot be opened, is in use, or holds something unreadable."""


def token_hash(token: str) -> str:
    """The stored form of a secret token: the server never keeps tokens."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


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


@dataclass(frozen=True, slots=True)
class Forfeit:
    """A game lost by a bot that broke down (a :class:`~marjolet.bots.BotFault`:
    an external program's garbled or illegal answer, time-out or exit).

    ``seat`` lost; the other seat is the winner. ``bot`` is the server's
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
    def winner(self) -> int:
        return 1 - self.seat

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
            f"({self.reason}); {players[self.winner]} wins"
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
    #: Set when a bot broke down and lost the game (status ``finished``).
    forfeit: Forfeit | None = None
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
    """Games in one SQLite file (WAL mode); see the module docstring."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self._lock_fd: int | None = None
        self._depth = 0
        try:
            check_database(self.path, tables=TABLES, what="a marjolet database")
        except OutputError as exc:
            raise StoreError(str(exc)) from None
        try:
            self._take_lock()
            self._db = sqlite3.connect(
                self.path, isolation_level=None, check_same_thread=False, timeout=5.0
            )
        except OSError as exc:
            self._release_lock(remove=True)
            raise StoreError(
                f"cannot open database {str(self.path)!r}: {exc.strerror or exc}"
            ) from None
        except sqlite3.Error as exc:
            self._release_lock(remove=True)
            raise StoreError(f"cannot open database {str(self.path)!r}: {exc}") from None
        try:
            self._setup()
        except StoreError:
            self.close(remove_lock=True)
            raise
        except sqlite3.DatabaseError as exc:
            self.close(remove_lock=True)
            raise StoreError(f"{str(self.path)!r} is not a marjolet database: {exc}") from None

    # -- opening and closing -----------------------------------------------------

    def _take_lock(self) -> None:
        try:
            import fcntl
        except ImportError:  # not POSIX: no cross-process guard
            return
        lock_path = self.path.with_name(self.path.name + ".lock")
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            raise StoreError(
                f"database {str(self.path)!r} is in use by another marjolet server"
            ) from None
        self._lock_fd = fd

    def _release_lock(self, remove: bool = False) -> None:
        """Drop the lock; ``remove`` (a failed start) also deletes the lock
        file, while it is still held, so that no ``.lock`` is left behind."""
        if self._lock_fd is not None:
            if remove:
                with suppress(OSError):
                    os.unlink(self.path.with_name(self.path.name + ".lock"))
            os.close(self._lock_fd)  # closing the descriptor drops the flock
            self._lock_fd = None

    def _setup(self) -> None:
        db = self._db
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=FULL")
        db.execute("PRAGMA foreign_keys=ON")
        version = db.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise StoreError(
                f"database {str(self.path)!r} has schema version {version}; this marjolet "
                f"reads version {SCHEMA_VERSION} (upgrade marjolet)"
            )
        if version < SCHEMA_VERSION:
            # a new file gets the whole schema, an older one its missing steps;
            # executescript commits on its own, all of it or nothing
            steps = (
                _SCHEMA
                if version == 0
                else "".join(_MIGRATIONS[v] for v in range(version, SCHEMA_VERSION))
            )
            db.executescript(f"BEGIN; {steps} PRAGMA user_version = {SCHEMA_VERSION}; COMMIT;")

    def close(self, *, remove_lock: bool = False) -> None:
        try:
            self._db.close()
        finally:
            self._release_lock(remove_lock)

    @property
    def journal_mode(self) -> str:
        return str(self._db.execute("PRAGMA journal_mode").fetchone()[0])

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        """A transaction, or a savepoint inside the :meth:`batch` in progress:
        a failing write then undoes only itself, not its neighbours."""
        db = self._db
        if self._depth == 0:
            db.execute("BEGIN IMMEDIATE")
            begin, commit, undo = None, "COMMIT", "ROLLBACK"
        else:
            name = f"w{self._depth}"
            begin, commit, undo = f"SAVEPOINT {name}", f"RELEASE {name}", f"ROLLBACK TO {name}"
            db.execute(begin)
        self._depth += 1
        try:
            yield db
        except BaseException:
            self._depth -= 1
            db.execute(undo)
            if begin is not None:
                db.execute(commit)  # a rolled-back savepoint must still be released
            raise
        self._depth -= 1
        db.execute(commit)

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
                "INSERT INTO games (id, created, updated, mode, rules, first_dealer, players, "
                "seats, token_hashes, invite_hash, status, totals, winner, deal_count, "
                "action_count) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, 0)",
                (
                    game.id,
                    game.created,
                    game.updated,
                    game.mode,
                    json.dumps(game.rules.to_json()),
                    game.first_dealer,
                    json.dumps(list(game.players)),
                    json.dumps([s.to_json() for s in game.seats]),
                    json.dumps(list(game.token_hashes)),
                    game.invite_hash,
                    game.status,
                    json.dumps(list(game.totals)),
                    game.winner,
                ),
            )
            for i, deck in enumerate(game.decks):
                self._insert_deal(db, game.id, i, deck)

    def add_deal(self, game_id: str, index: int, deck: Sequence[int], *, status: Status) -> None:
        """Store the deck of deal ``index`` (before anyone sees a card of it)."""
        with self._transaction() as db:
            self._insert_deal(db, game_id, index, deck)
            db.execute(
                "UPDATE games SET updated = ?, status = ?, deal_count = ? WHERE id = ?",
                (time.time(), status, index + 1, game_id),
            )

    @staticmethod
    def _insert_deal(db: sqlite3.Connection, game_id: str, index: int, deck: Sequence[int]) -> None:
        db.execute(
            "INSERT INTO deals (game_id, idx, deck) VALUES (?, ?, ?)",
            (game_id, index, " ".join(CARD_NAMES[c] for c in deck)),
        )
        db.execute(
            "UPDATE games SET deal_count = MAX(deal_count, ?) WHERE id = ?", (index + 1, game_id)
        )

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
    ) -> None:
        """Append action ``seq`` of deal ``deal`` and the game summary after it,
        in one committed transaction. A second append at the same position
        fails (the primary key), so a move can never be stored twice."""
        now = time.time()
        with self._transaction() as db:
            db.execute(
                "INSERT INTO actions (game_id, deal, seq, action, at) VALUES (?, ?, ?, ?, ?)",
                (game_id, deal, seq, ACTION_NAMES[action], now),
            )
            db.execute(
                "UPDATE games SET updated = ?, status = ?, totals = ?, winner = ?, "
                "action_count = action_count + 1 WHERE id = ?",
                (now, status, json.dumps(list(totals)), winner, game_id),
            )

    def forfeit(self, game_id: str, forfeit: Forfeit, *, totals: tuple[int, int]) -> bool:
        """End an unfinished game as lost by ``forfeit.seat``: status
        ``finished``, the other seat the winner, the forfeit kept with it.
        Returns False (and changes nothing) if the game is already finished."""
        with self._transaction() as db:
            cursor = db.execute(
                "UPDATE games SET updated = ?, status = 'finished', totals = ?, winner = ?, "
                "forfeit = ? WHERE id = ? AND status != 'finished'",
                (
                    time.time(),
                    json.dumps(list(totals)),
                    forfeit.winner,
                    json.dumps(forfeit.to_json()),
                    game_id,
                ),
            )
            return cursor.rowcount == 1

    def claim_invite(
        self, game_id: str, invite_hash: str, seat: int, new_token_hash: str, name: str
    ) -> bool:
        """Give ``seat`` (and its display name) to whoever holds the invite
        code; the code works once."""
        with self._transaction() as db:
            row = db.execute(
                "SELECT invite_hash, token_hashes, players FROM games WHERE id = ?", (game_id,)
            ).fetchone()
            if row is None or row[0] is None or not hmac.compare_digest(row[0], invite_hash):
                return False
            hashes = json.loads(row[1])
            hashes[seat] = new_token_hash
            players = json.loads(row[2])
            players[seat] = name
            db.execute(
                "UPDATE games SET invite_hash = NULL, token_hashes = ?, players = ?, "
                "status = 'playing', updated = ? WHERE id = ?",
                (json.dumps(hashes), json.dumps(players), time.time(), game_id),
            )
        return True

    # -- reading -----------------------------------------------------------------

    def load_game(self, game_id: str) -> GameRow | None:
        """A stored game with its decks and actions, or ``None``."""
        db = self._db
        row = db.execute(f"SELECT {_COLUMNS} FROM games WHERE id = ?", (game_id,)).fetchone()
        if row is None:
            return None
        game = self._row(row)
        for idx, deck in db.execute(
            "SELECT idx, deck FROM deals WHERE game_id = ? ORDER BY idx", (game_id,)
        ):
            if idx != len(game.decks):
                raise StoreError(f"game {game_id}: deal {len(game.decks)} is missing")
            game.decks.append(tuple(parse_card(t) for t in deck.split()))
            game.actions.append([])
        for deal, seq, action in db.execute(
            "SELECT deal, seq, action FROM actions WHERE game_id = ? ORDER BY deal, seq", (game_id,)
        ):
            if deal >= len(game.actions) or seq != len(game.actions[deal]):
                raise StoreError(f"game {game_id}: action {seq} of deal {deal} is out of place")
            game.actions[deal].append(parse_action(action))
        return game

    def list_games(self, limit: int = 200) -> list[GameRow]:
        """The most recently updated games (summaries only, no decks)."""
        rows = self._db.execute(
            f"SELECT {_COLUMNS} FROM games ORDER BY updated DESC LIMIT ?", (limit,)
        ).fetchall()
        return [self._row(r) for r in rows]

    def unfinished_ids(self, mode: Mode | None = None) -> list[str]:
        if mode is None:
            rows = self._db.execute("SELECT id FROM games WHERE status != 'finished'")
        else:
            rows = self._db.execute(
                "SELECT id FROM games WHERE status != 'finished' AND mode = ?", (mode,)
            )
        return [r[0] for r in rows]

    def count_games(self) -> int:
        return int(self._db.execute("SELECT COUNT(*) FROM games").fetchone()[0])

    @staticmethod
    def _row(row: Sequence[Any]) -> GameRow:
        players = json.loads(row[6])
        seats = [SeatInfo.from_json(s) for s in json.loads(row[7])]
        hashes = json.loads(row[8])
        totals = json.loads(row[11])
        return GameRow(
            id=row[0],
            created=row[1],
            updated=row[2],
            mode=row[3],
            rules=Rules.from_json(json.loads(row[4])),
            first_dealer=row[5],
            players=(players[0], players[1]),
            seats=(seats[0], seats[1]),
            token_hashes=(hashes[0], hashes[1]),
            invite_hash=row[9],
            status=row[10],
            totals=(totals[0], totals[1]),
            winner=row[12],
            deal_count=row[13],
            action_count=row[14],
            forfeit=Forfeit.from_json(json.loads(row[15])) if row[15] else None,
        )
