"""The web server's one door to its database.

:class:`Ledger` owns the :class:`~marjolet.web.store.Store` and the
:class:`~marjolet.web.writer.GroupWriter` thread it runs in: every read and
write of a game goes through one of its methods, awaited on the event loop
and run in the store's thread (never on the loop), returning once the
transaction holding it is committed. The hub asks it for games to create,
list and load; each live table writes its own game's moves through it (see
:mod:`~marjolet.web.tables`). Nothing else touches the store.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine, Sequence
from typing import Any, Concatenate, ParamSpec, TypeVar

from sqlalchemy import Engine
from sqlalchemy.exc import SQLAlchemyError

from marjolet.web.db import database_unreachable, one_line_reason
from marjolet.web.errors import database_down
from marjolet.web.store import Forfeit, GameRow, Mode, Store, StoreError
from marjolet.web.writer import GroupWriter

P = ParamSpec("P")
T = TypeVar("T")


def _in_store(
    method: Callable[Concatenate[Store, P], T],
) -> Callable[Concatenate[Ledger, P], Coroutine[Any, Any, T]]:
    """A ledger method that awaits the store's ``method`` (same arguments),
    run in the store's thread and committed."""

    name = method.__name__

    async def call(self: Ledger, /, *args: P.args, **kwargs: P.kwargs) -> T:
        bound: Callable[P, T] = getattr(self._store, name)  # as the store has it now
        return await self._writer.call(bound, *args, **kwargs)

    call.__name__, call.__doc__ = name, method.__doc__
    return call


class Ledger:
    """Awaitable store calls, run and committed in the store's own thread."""

    def __init__(self, store: Store) -> None:
        self._store = store
        self._writer = GroupWriter(store)

    @property
    def engine(self) -> Engine:
        """The database engine, for the tables the store does not own (the
        reviews keep theirs in the same database)."""
        return self._store.engine

    # -- games --------------------------------------------------------------------------

    async def _read(self, fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        """A read; a damaged file (a garbled page: the driver's
        "database disk image is malformed") is a :class:`StoreError`."""
        try:
            return await self._writer.call(fn, *args, **kwargs)
        except SQLAlchemyError as exc:
            if database_unreachable(exc):  # not damage: the client may try again
                raise database_down() from None
            raise StoreError(f"the database cannot be read: {one_line_reason(exc)}") from None

    async def create(self, game: GameRow) -> None:
        await self._writer.call(self._store.create_game, game)

    async def load(self, game_id: str) -> GameRow | None:
        return await self._read(self._store.load_game, game_id)

    async def games(self, limit: int) -> list[GameRow]:
        """The latest ``limit`` games, newest first (the history page)."""
        return await self._read(self._store.list_games, limit)

    def quarantine(self, game_id: str, reason: str) -> None:
        """Note a game whose record cannot be replayed (logged once)."""
        self._store.quarantine(game_id, reason)

    def damaged(self) -> dict[str, str]:
        """The games found unreadable so far, id -> reason (a copy)."""
        return dict(self._store.damaged)

    async def versions_of(self, game_ids: Sequence[str]) -> dict[str, int]:
        """The stored versions of several games (one query)."""
        return await self._read(self._store.versions_of, game_ids)

    @property
    def shared(self) -> bool:
        """Other processes may write the same games (a database server,
        not a SQLite file, which one process holds locked)."""
        return self._store.path is None

    async def unfinished(self, mode: Mode | None = None) -> list[str]:
        return await self._read(self._store.unfinished_ids, mode)

    async def idle_people(self, before: float) -> list[str]:
        return await self._read(self._store.idle_people_ids, before)

    # -- one game's changes (its table calls these) --------------------------------------

    #: Store a move; the game's new version (:class:`StoreConflict`: the
    #: game is no longer at version ``expected``).
    append_action = _in_store(Store.append_action)
    #: Store a deal's deck; the game's new version (or :class:`StoreConflict`).
    add_deal = _in_store(Store.add_deal)

    async def version_of(self, game_id: str) -> int | None:
        """The stored version of a game (None: no such game)."""
        return await self._read(self._store.version_of, game_id)

    async def forfeit(
        self, game_id: str, forfeit: Forfeit, *, totals: tuple[int, int], expected: int
    ) -> bool:
        """End the game as forfeited (False: it was finished already, or is
        no longer at version ``expected``)."""
        return await self._writer.call(
            self._store.forfeit, game_id, forfeit, totals=totals, expected=expected
        )

    async def claim_invite(
        self,
        game_id: str,
        invite_hash: str,
        seat: int,
        token_hash: str,
        name: str,
        *,
        updated: float | None = None,
    ) -> bool:
        """Give ``seat`` to the holder of the invite (``False``: not this invite)."""
        return await self._writer.call(
            self._store.claim_invite, game_id, invite_hash, seat, token_hash, name, updated
        )

    def close(self) -> None:
        """Finish the queued calls and close the database (blocking)."""
        self._writer.close()
