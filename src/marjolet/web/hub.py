"""The server's games: creating, loading and resuming tables.

The hub owns the store (used from one worker thread), the pool of threads
where bots think, the source of shuffles, and the live tables. A table is
loaded from its stored record on first use; at start-up the bot-vs-bot
matches that were being played are loaded at once so that they go on by
themselves. Games with a person wait for that person to come back.

Bots are closed (an external bot's program ended and reaped) in the hub's
own closer threads, apart from the pool where bots think so that a closing
never waits behind a long think; shutdown waits for every closing, so no
bot program outlives the server.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import random
import secrets
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, ParamSpec, TypeVar

from marjolet.bots.catalogue import BotCatalogue, BotChoice
from marjolet.cards import shuffled_deck
from marjolet.errors import MarjoletError
from marjolet.match import Match
from marjolet.record import Record, to_match
from marjolet.rules import Rules
from marjolet.web.config import WebConfig
from marjolet.web.store import GameRow, Mode, SeatInfo, Store, token_hash
from marjolet.web.tables import Table, TableError
from marjolet.web.writer import GroupWriter

log = logging.getLogger("marjolet.web")

P = ParamSpec("P")
T = TypeVar("T")

MAX_NAME = 24


def clean_name(value: object, default: str) -> str:
    """A display name: printable, trimmed, at most 24 characters."""
    if not isinstance(value, str):
        return default
    text = "".join(ch for ch in value if ch.isprintable()).strip()
    return text[:MAX_NAME] or default


@dataclass(frozen=True, slots=True)
class NewGame:
    """What the creator of a game is given (tokens are shown only once)."""

    id: str
    seat: int | None
    token: str | None
    invite: str | None

    def reply(self) -> dict[str, Any]:
        """The JSON answer to the request that created the game: its page,
        the creator's seat and token, and the invite link when a friend is
        awaited."""
        out: dict[str, Any] = {
            "id": self.id,
            "seat": self.seat,
            "token": self.token,
            "url": f"/game/{self.id}",
        }
        if self.invite is not None:
            out["invite_url"] = f"/game/{self.id}#invite={self.invite}"
        return out


class Hub:
    """Live tables and everything they share (see the module docstring)."""

    def __init__(self, config: WebConfig, store: Store, catalogue: BotCatalogue) -> None:
        self.config = config
        self.store = store
        self.catalogue = catalogue
        self.tables: dict[str, Table] = {}
        self.writer = GroupWriter(store)
        self.bot_pool = ThreadPoolExecutor(
            max_workers=max(1, config.bot_threads), thread_name_prefix="marjolet-bot"
        )
        self.closer = ThreadPoolExecutor(max_workers=8, thread_name_prefix="marjolet-bot-close")
        self._closing: set[asyncio.Future[None]] = set()
        self.rng: random.Random = secrets.SystemRandom()
        self._load_lock = asyncio.Lock()

    # -- shared services --------------------------------------------------------------

    async def db(self, fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        """Run a store call in the store's own thread (never on the event
        loop); it returns once the transaction holding it is committed."""
        return await self.writer.call(fn, *args, **kwargs)

    def in_closer(self, fn: Callable[P, None], *args: P.args, **kwargs: P.kwargs) -> None:
        """Run ``fn`` (closing bots) in a closer thread; shutdown waits for it."""
        future = asyncio.get_running_loop().run_in_executor(
            self.closer, functools.partial(fn, *args, **kwargs)
        )
        self._closing.add(future)
        future.add_done_callback(self._closing.discard)

    def new_deck(self, index: int) -> list[int]:
        """A fresh deck order from a cryptographically strong source (R6)."""
        if self.config.deck_for is not None:
            return list(self.config.deck_for(index))
        return shuffled_deck(self.rng)

    @staticmethod
    def match_of(game: GameRow) -> Match:
        """The match of a stored game, rebuilt by replaying its record."""
        return to_match(game.record())

    # -- games ----------------------------------------------------------------------------

    async def create_game(
        self,
        mode: Mode,
        rules: Rules,
        *,
        name: str,
        bots: Sequence[BotChoice] = (),
        first_dealer: int | None = None,
    ) -> NewGame:
        """Store a new game with its first deal and open its table.

        ``bot``: the creator (seat 0) against ``bots[0]``; ``friend``: seat 1
        is given to whoever opens the invite link; ``watch``: ``bots[0]``
        against ``bots[1]``, no person seated. ``first_dealer`` (a rematch)
        overrides the configured or random first dealer.
        """
        game_id = secrets.token_urlsafe(9)
        token: str | None = None
        invite: str | None = None
        seats: list[SeatInfo] = []
        players: list[str] = []
        hashes: list[str | None] = [None, None]
        if mode == "watch":
            same = bots[0].name == bots[1].name
            for i in (0, 1):
                seats.append(self._bot_seat(bots[i]))
                players.append(f"{bots[i].label} #{i + 1}" if same else bots[i].label)
        else:
            token = secrets.token_urlsafe(24)
            hashes[0] = token_hash(token)
            seats.append(SeatInfo("human"))
            players.append(name)
            if mode == "bot":
                seats.append(self._bot_seat(bots[0]))
                players.append(bots[0].label)
            else:
                invite = secrets.token_urlsafe(18)
                seats.append(SeatInfo("human"))
                players.append("friend")
        if first_dealer is None:  # a rematch names it; else the config's, else random
            first_dealer = self.config.first_dealer
        if first_dealer is None:
            first_dealer = self.rng.randrange(2)
        now = time.time()
        game = GameRow(
            id=game_id,
            created=now,
            updated=now,
            mode=mode,
            rules=rules,
            first_dealer=first_dealer,
            players=(players[0], players[1]),
            seats=(seats[0], seats[1]),
            token_hashes=(hashes[0], hashes[1]),
            invite_hash=token_hash(invite) if invite else None,
            status="waiting" if invite else "playing",
            decks=[tuple(self.new_deck(0))],
            actions=[[]],
        )
        await self.db(self.store.create_game, game)
        game.deal_count = 1
        table = Table(self, game, self.match_of(game))
        self.tables[game_id] = table
        table.kick()
        log.info("game %s created (%s, %s)", game_id, mode, " vs ".join(players))
        return NewGame(game_id, None if mode == "watch" else 0, token, invite)

    def _bot_seat(self, choice: BotChoice) -> SeatInfo:
        return SeatInfo("bot", choice.name, choice.spec, self.rng.randrange(1 << 30))

    async def join(self, game_id: str, invite: str, name: str) -> tuple[int, str]:
        """Give seat 1 of a friend game to the holder of its invite code."""
        table = await self.table(game_id)
        async with table.lock:
            if table.game.invite_hash is None:
                raise TableError("invite_used", "this invite link was already used")
            token = secrets.token_urlsafe(24)
            ok = await self.db(
                self.store.claim_invite, game_id, token_hash(invite), 1, token_hash(token), name
            )
            if not ok:
                raise TableError("bad_invite", "this invite link is not valid")
            game = table.game
            game.invite_hash = None
            game.token_hashes = (game.token_hashes[0], token_hash(token))
            game.players = (game.players[0], name)
            if table.match.players is not None:
                table.match.players = game.players
            game.status = "playing"
            table.broadcast()
        return 1, token

    async def table(self, game_id: str) -> Table:
        """The live table of a game, loaded from the store if needed."""
        table = self.tables.get(game_id)
        if table is not None:
            return table
        async with self._load_lock:
            table = self.tables.get(game_id)
            if table is not None:
                return table
            if not _looks_like_id(game_id):
                raise TableError("not_found", "no such game")
            game = await self.db(self.store.load_game, game_id)
            if game is None:
                raise TableError("not_found", "no such game")
            try:
                match = self.match_of(game)
            except MarjoletError as exc:
                log.error("game %s cannot be resumed: %s", game_id, exc)
                raise TableError("corrupt", f"this game cannot be resumed: {exc}") from None
            table = Table(self, game, match)
            self.tables[game_id] = table
            log.info(
                "game %s resumed at deal %d, %d actions", game_id, match.deal_index, table.version
            )
        table.kick()
        return table

    def release(self, table: Table) -> None:
        """Forget an idle table; its game stays in the database."""
        if table.idle() and self.tables.get(table.id) is table:
            del self.tables[table.id]
            table.unload()

    async def startup(self) -> None:
        """Resume the bot-vs-bot matches that were under way."""
        for game_id in await self.db(self.store.unfinished_ids, "watch"):
            try:
                await self.table(game_id)
            except TableError as exc:
                log.error("game %s not resumed: %s", game_id, exc)

    async def shutdown(self) -> None:
        """Stop every table, close every bot (no bot program outlives the
        server), then finish the pending writes and close the database."""
        await asyncio.gather(*(table.close() for table in list(self.tables.values())))
        self.bot_pool.shutdown(wait=False, cancel_futures=True)
        while pending := [f for f in self._closing if not f.done()]:
            await asyncio.gather(*pending, return_exceptions=True)
        self.closer.shutdown(wait=False)
        await asyncio.to_thread(self.writer.close)

    # -- history ------------------------------------------------------------------------

    async def summaries(self) -> list[dict[str, Any]]:
        rows = await self.db(self.store.list_games, self.config.history_limit)
        out = []
        for row in rows:
            item = row.summary()
            live = self.tables.get(row.id)
            item["watchers"] = sum(1 for p in live.peers if p.seat is None) if live else 0
            item["replay"] = "full" if shareable_in_full(row) else "finished deals"
            out.append(item)
        return out

    async def shareable_record(self, game_id: str) -> tuple[GameRow, Record, bool]:
        """The record anyone may see: the whole game once it is finished or
        when no person plays it; otherwise only its finished deals, because
        the deck of the deal in progress would show a player hidden cards."""
        if not _looks_like_id(game_id):
            raise TableError("not_found", "no such game")
        game = await self.db(self.store.load_game, game_id)
        if game is None:
            raise TableError("not_found", "no such game")
        record = game.record()
        if shareable_in_full(game):
            return game, record, True
        match = to_match(record)
        finished = [d for d, deal in zip(record.deals, match.deals, strict=True) if deal.is_over]
        return (
            game,
            Record(record.rules, record.first_dealer, record.players, tuple(finished)),
            False,
        )


def shareable_in_full(game: GameRow) -> bool:
    return game.status == "finished" or all(s.kind == "bot" for s in game.seats)


def _looks_like_id(game_id: str) -> bool:
    return 0 < len(game_id) <= 32 and all(ch.isalnum() or ch in "-_" for ch in game_id)
