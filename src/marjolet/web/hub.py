"""The server's games: creating, loading and resuming tables.

The hub owns the :class:`~marjolet.web.ledger.Ledger` (the one door to the
database), the pool of threads where bots think, the source of shuffles, and
the live tables; each table owns its game (the row it was loaded from, its
match) and writes that game's changes through the ledger itself. A table is
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
import dataclasses
import functools
import logging
import random
import secrets
import time
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, ParamSpec, TypeVar

from sqlalchemy.exc import SQLAlchemyError

from marjolet.bots.catalogue import BotCatalogue, BotChoice
from marjolet.cards import shuffled_deck
from marjolet.errors import MarjoletError
from marjolet.match import Match
from marjolet.record import UNSEATED_FRIEND, Record, to_match
from marjolet.rules import Rules
from marjolet.web.beacons import Beacons, NoBeacons, RedisBeacons
from marjolet.web.bus import Bus, RedisBus, hear_forever, make_bus
from marjolet.web.config import WebConfig
from marjolet.web.countdowns import Countdowns
from marjolet.web.errors import WebError, storage_failure
from marjolet.web.fairpool import FairPool, PoolBusy
from marjolet.web.leases import Leases
from marjolet.web.ledger import Ledger
from marjolet.web.levels import resolve_choice
from marjolet.web.presence import Presence
from marjolet.web.store import GameRow, Mode, SeatInfo, Store, StoreError, token_hash
from marjolet.web.tables import Table

log = logging.getLogger("marjolet.web")

#: The lease of the look for abandoned games (one process at a time does it).
ABANDON_JOB = "abandoned"

P = ParamSpec("P")

#: Game creators remembered at most (then forgotten all at once: their
#: tables think under the first seated connection's address instead).
MOST_OWNERS = 100_000
T = TypeVar("T")


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


@dataclass(frozen=True, slots=True)
class Seating:
    """The seats and players of a new game, and the secrets only its creator
    is given: seat 0's token (no person: ``None``) and the invite code."""

    seats: tuple[SeatInfo, SeatInfo]
    players: tuple[str, str]
    token: str | None = None
    invite: str | None = None
    #: A lobby game: seat 1's token (its player was found already).
    token1: str | None = None
    #: A lobby game: a seat's token hash given instead of a token (a seek's
    #: owner, whose token is derived from their owner token).
    hashes: tuple[str | None, str | None] = (None, None)


class Hub:
    """Live tables and everything they share (see the module docstring)."""

    def __init__(
        self,
        config: WebConfig,
        store: Store,
        catalogue: BotCatalogue,
        *,
        process: str | None = None,
    ) -> None:
        self.config = config
        #: When this process started: a live game's move clock starts no
        #: earlier (a restart makes nobody late at once; Table.move_deadline).
        self.started = time.time()
        self.ledger = Ledger(store)
        self.catalogue = catalogue
        self.tables: dict[str, Table] = {}
        self.bot_pool = FairPool(
            config.bot_threads, config.bot_threads_per_client, config.queued_per_client
        )
        self.closer = ThreadPoolExecutor(max_workers=8, thread_name_prefix="marjolet-bot-close")
        self._closing: set[asyncio.Future[None]] = set()
        self._hooks: set[asyncio.Task[None]] = set()
        self.rng: random.Random = secrets.SystemRandom()
        #: Tables being loaded, by game: a second caller waits for the
        #: first one's load; loads of different games run side by side.
        self._loading: dict[str, asyncio.Future[Table]] = {}
        #: Who is at which table, and the away clocks (web/presence.py).
        self.presence = Presence(grace_live=config.away_grace)
        #: Called once a table's match is over (played out, forfeited or
        #: claimed): the online service rates lobby games here.
        self.on_finish: list[Callable[[Table], Coroutine[Any, Any, None]]] = []
        #: Called when a table is loaded or created: the online service adds
        #: the accounts and ratings of its seats.
        self.on_open: list[Callable[[Table], Awaitable[None]]] = []
        #: Called after each change a table stores (a move, a deal, a seat
        #: taken): the online service tells its players' lobby sockets.
        self.on_change: list[Callable[[Table], None]] = []
        #: The address that created each game (its tables' share of the bot pool).
        self.owners: dict[str, str] = {}
        #: "Game G is at version V" between processes (web/bus.py).
        self.bus: Bus = make_bus(config.broker)
        #: Which process plays each game's bots (web/leases.py).
        #: ``process``: this process's id, if chosen already (web/deployment.py).
        self.leases = Leases(self.ledger.engine, process, seconds=config.lease_seconds)
        #: The shared "opponent gone" countdowns (web/countdowns.py).
        self.countdowns = Countdowns(self.leases)
        #: Which seats other processes hold (web/beacons.py).
        self.beacons: Beacons = NoBeacons()
        if isinstance(self.bus, RedisBus):
            ttl = max(1.0, 3 * config.sync_interval)
            self.beacons = RedisBeacons(self.bus.client, self.leases.owner, ttl)
        self._listeners: list[asyncio.Task[None]] = []
        if self.shared:  # the id that other processes' log lines name
            log.info("this is process %s among the database's servers", self.leases.owner)

    # -- shared services --------------------------------------------------------------

    def in_closer(self, fn: Callable[P, None], *args: P.args, **kwargs: P.kwargs) -> None:
        """Run ``fn`` (closing bots) in a closer thread; shutdown waits for it."""
        future = asyncio.get_running_loop().run_in_executor(
            self.closer, functools.partial(fn, *args, **kwargs)
        )
        self._closing.add(future)
        future.add_done_callback(self._closing.discard)

    async def think(self, key: str, fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        """``fn`` in the bot pool under ``key`` (a client address): a table's
        bot move, never refused however long that client's queue."""
        return await self.bot_pool.run(key, functools.partial(fn, *args, **kwargs))

    async def extra_work(
        self, key: str, fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs
    ) -> T:
        """Work a visitor asks for (a hint, a review step, a replay) in the
        bot pool under ``key``; ``busy`` when that client already has
        ``queued_per_client`` such jobs waiting."""
        try:
            future = self.bot_pool.submit(
                key, functools.partial(fn, *args, **kwargs), refusable=True
            )
        except PoolBusy:
            raise WebError(
                "busy", "the server is still working on your earlier requests; try again soon"
            ) from None
        return await asyncio.wrap_future(future)

    def new_deck(self, index: int) -> list[int]:
        """A fresh deck order from a cryptographically strong source (R6)."""
        if self.config.deck_for is not None:
            return list(self.config.deck_for(index))
        return shuffled_deck(self.rng)

    @staticmethod
    def match_of(game: GameRow) -> Match:
        """The match of a stored game, rebuilt by replaying its record."""
        return to_match(game.record())

    def finished(self, table: Table) -> None:
        """A table's match is over: run the ``on_finish`` hooks (in tasks
        of their own: a hook never holds up the table)."""
        self.presence.forget(table.id)
        if self.shared and table.has_humans:
            self.spawn(self.stop_countdowns(table.id))
        for hook in self.on_finish:
            task = asyncio.get_running_loop().create_task(hook(table))
            self._hooks.add(task)
            task.add_done_callback(self._hooks.discard)

    async def own(self, job: str, note: str | None = None) -> bool:
        """Take or renew this process's lease on ``job`` (a game's bots, a
        review with its progress in ``note``, the pairing):
        always True for one process; among several, True for one live
        process at a time, and another takes the job over once a dead
        owner's lease runs out (``lease_seconds``)."""
        if not self.shared:
            return True
        try:
            return await asyncio.to_thread(self.leases.acquire, job, note)
        except SQLAlchemyError as exc:
            log.warning("lease %s: the database did not answer: %s", job, exc)
            return False

    async def stop_countdowns(self, game_id: str, seats: tuple[int, ...] = (0, 1)) -> None:
        """No countdown runs for ``seats`` of the game any more (they came
        back, or the game ended); a failure is left to the next sweep."""
        try:
            for seat in seats:
                await asyncio.to_thread(self.countdowns.stop, game_id, seat)
        except SQLAlchemyError as exc:
            log.warning("game %s: could not stop a countdown: %s", game_id, exc)

    async def give_back(self, job: str) -> None:
        """Give up the lease on ``job`` at once (nothing to do for now)."""
        if not self.shared:
            return
        try:
            await asyncio.to_thread(self.leases.release, job)
        except SQLAlchemyError as exc:  # it runs out by itself
            log.warning("lease %s: could not give it back: %s", job, exc)

    def changed(self, table: Table) -> None:
        """A table stored a change: run the ``on_change`` hooks and tell
        the other processes its new version (in a task: the table never
        waits for the bus)."""
        for hook in self.on_change:
            hook(table)
        if self.shared:  # (one process: its tables are the only copies)
            self.spawn(self._publish(table.id, table.game.version))

    @property
    def shared(self) -> bool:
        """Other processes serve the same games (a shared database)."""
        return self.ledger.shared

    async def _publish(self, game_id: str, version: int) -> None:
        try:
            await self.bus.publish(game_id, version)
        except Exception as exc:  # the periodic sync catches up without it
            log.warning("game %s: could not publish version %d: %s", game_id, version, exc)

    async def _listen(self) -> None:
        """Catch up each table another process changed (bus messages),
        subscribing again after a lost connection to the broker (what was
        missed meanwhile, the periodic sweep reads from the database)."""

        async def heard(message: tuple[str, int]) -> None:
            game_id, version = message
            table = self.tables.get(game_id)
            if table is not None and version > table.game.version:
                self.spawn(table.refresh(version))

        await hear_forever("the games'", self.bus.ready, self.bus.subscribe, heard)

    async def _sweep(self) -> None:
        """Every ``sync_interval``: the tables with connections catch up
        with the database (a bus message may have been missed), and the
        seats held here and elsewhere are told and learnt (web/beacons.py)."""
        while True:
            await asyncio.sleep(self.config.sync_interval)
            tables = [t for t in self.tables.values() if t.peers and not t.closed]
            try:
                await self._catch_up(tables)
            except Exception as exc:  # the database away: the next round tries again
                log.warning("the periodic check could not read the games: %s", exc)
            try:
                await self._beacon_round(tables)
            except Exception as exc:  # Redis away: each process sees its own seats
                log.warning("the seats' beacons failed: %s", exc)

    async def _end_abandoned(self) -> None:
        """Every ``abandon_check`` seconds, end the games between two people
        whose mover's deadline passed ``abandon_after`` seconds ago with
        nobody claiming them (:meth:`Table.end_abandoned`); among several
        processes, the one holding the job's lease, renewed at each game."""
        after = self.config.abandon_after
        while True:
            await asyncio.sleep(self.config.abandon_check)
            try:
                for game_id in await self.ledger.idle_people(time.time() - after):
                    if self.shared and not await self.own(ABANDON_JOB):
                        break  # another process looks this round (renewed at each game)
                    try:
                        table = await self.table(game_id)
                    except WebError as exc:  # damaged: the store logged it once
                        log.debug("game %s: not looked at for abandonment: %s", game_id, exc)
                        continue
                    await table.end_abandoned(after)
                    self.release(table)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # the database away, a damaged game: next round
                log.warning("the look for abandoned games failed: %s", exc)

    async def _catch_up(self, tables: list[Table]) -> None:
        """Refresh the tables another process moved on (one query), and let
        the others' bots play if their owner died (its lease ran out)."""
        stored = await self.ledger.versions_of([t.id for t in tables])
        for table in tables:
            if stored.get(table.id, table.game.version) > table.game.version:
                self.spawn(table.refresh(stored[table.id]))
            else:
                table.kick()

    async def _beacon_round(self, tables: list[Table]) -> None:
        held = [(t.id, seat) for t in tables for seat in t.local_seats()]
        await self.beacons.beat(held)
        for table in tables:
            if table.watches_presence:
                others = {s for s in (0, 1) if s not in table.local_seats()}
                elsewhere = {s for s in others if await self.beacons.elsewhere(table.id, s)}
                table.held_elsewhere(elsewhere)
            if table.watches_presence or table.clocks:
                await table.keep_clocks()

    def seat_left(self, game_id: str, seat: int) -> None:
        """The last connection of a seat on this process closed."""
        if self.shared:
            self.spawn(self._quietly(self.beacons.gone(game_id, seat)))

    def seat_arrived(self, game_id: str, seat: int) -> None:
        """A seat's connection opened here: other processes hear it at once."""
        if self.shared:
            self.spawn(self._quietly(self.beacons.beat([(game_id, seat)])))

    @staticmethod
    async def _quietly(coroutine: Coroutine[Any, Any, None]) -> None:
        try:
            await coroutine
        except Exception as exc:  # the next beat or its time-out corrects it
            log.warning("the seats' beacons failed: %s", exc)

    def spawn(self, coroutine: Coroutine[Any, Any, None]) -> None:
        """Run ``coroutine`` in a task of its own; shutdown waits for it."""
        task = asyncio.get_running_loop().create_task(coroutine)
        self._hooks.add(task)
        task.add_done_callback(self._hooks.discard)

    async def _opened(self, table: Table) -> None:
        for hook in self.on_open:
            await hook(table)

    # -- games ----------------------------------------------------------------------------

    async def create_game(
        self,
        mode: Mode,
        rules: Rules,
        *,
        name: str,
        bots: Sequence[BotChoice] = (),
        first_dealer: int | None = None,
        seating: Seating | None = None,
        owner: str = "",
        game_id: str | None = None,
        seat_hash: str | None = None,
    ) -> NewGame:
        """Store a new game with its first deal and open its table.

        ``bot``: the creator (seat 0) against ``bots[0]``; ``friend``: seat 1
        is given to whoever opens the invite link; ``watch``: ``bots[0]``
        against ``bots[1]``, no person seated. ``first_dealer`` (a rematch)
        overrides the configured or random first dealer. ``seating`` (a
        lobby game: two persons, both seated at once) replaces the mode's.
        ``owner``: the
        client address that asked (its bots think under that address's
        share of the bot pool). ``game_id``: the id chosen beforehand ("Play
        now" claims its players' places for it); ``seat_hash``: seat 0's
        token is the one of this hash, known to its player only.
        """
        game_id = game_id or secrets.token_urlsafe(9)
        seating = seating or self._seating(mode, name, bots)
        if seat_hash is not None:
            seating = dataclasses.replace(seating, token=None, hashes=(seat_hash, None))
        if first_dealer is None:  # a rematch names it; else the config's, else random
            first_dealer = self.config.first_dealer
        if first_dealer is None:
            first_dealer = self.rng.randrange(2)
        now = time.time()
        invite = seating.invite
        game = GameRow(
            id=game_id,
            created=now,
            updated=now,
            mode=mode,
            rules=rules,
            first_dealer=first_dealer,
            players=seating.players,
            seats=seating.seats,
            token_hashes=(
                seating.hashes[0] or (token_hash(seating.token) if seating.token else None),
                seating.hashes[1] or (token_hash(seating.token1) if seating.token1 else None),
            ),
            invite_hash=token_hash(invite) if invite else None,
            status="waiting" if invite else "playing",
            decks=[tuple(self.new_deck(0))],
            actions=[[]],
        )
        try:
            await self.ledger.create(game)
        except Exception as exc:
            log.error("a new game could not be stored: %s", exc)
            raise storage_failure(exc, "the new game", key="error.storage_game") from None
        game.deal_count = 1
        if owner:
            if len(self.owners) >= MOST_OWNERS:
                self.owners.clear()
            self.owners[game_id] = owner
        table = Table(self, game, self.match_of(game))
        self.tables[game_id] = table
        await self._opened(table)
        table.kick()
        log.info("game %s created (%s, %s)", game_id, mode, " vs ".join(seating.players))
        return NewGame(game_id, None if mode == "watch" else 0, seating.token, invite)

    def _seating(self, mode: Mode, name: str, bots: Sequence[BotChoice]) -> Seating:
        """Who sits where in a new game, and the creator's secrets."""
        if mode == "watch":
            same = bots[0].name == bots[1].name
            labels = [f"{b.label} #{i + 1}" if same else b.label for i, b in enumerate(bots)]
            return Seating(
                (self._bot_seat(bots[0]), self._bot_seat(bots[1])), (labels[0], labels[1])
            )
        token = secrets.token_urlsafe(24)
        if mode == "bot":
            return Seating(
                (SeatInfo("human"), self._bot_seat(bots[0])), (name, bots[0].label), token
            )
        invite = secrets.token_urlsafe(18)
        seats = (SeatInfo("human"), SeatInfo("human"))
        return Seating(seats, (name, UNSEATED_FRIEND), token, invite)

    async def create_pair(
        self,
        rules: Rules,
        players: tuple[str, str],
        hashes: tuple[str | None, str | None] = (None, None),
        *,
        game_id: str | None = None,
        first_dealer: int | None = None,
    ) -> tuple[str, str, str]:
        """A game between two persons who are both known already (a lobby
        game): a friend game whose invite was claimed at once. Returns the
        game id and the two seats' tokens (each shown only once); a seat
        given its token's hash in ``hashes`` gets it, and its token is ''.
        ``first_dealer``: as :meth:`create_game` (a rematch names it)."""
        tokens = tuple("" if h else secrets.token_urlsafe(24) for h in hashes)
        seating = Seating(
            (SeatInfo("human"), SeatInfo("human")),
            players,
            tokens[0] or None,
            None,
            tokens[1] or None,
            hashes,
        )
        new = await self.create_game(
            "friend",
            rules,
            name=players[0],
            seating=seating,
            game_id=game_id,
            first_dealer=first_dealer,
        )
        return new.id, tokens[0], tokens[1]

    def _bot_seat(self, choice: BotChoice) -> SeatInfo:
        return SeatInfo("bot", choice.name, choice.spec, self.rng.randrange(1 << 30))

    async def rematch(self, table: Table, seat: int, owner: str = "") -> NewGame:
        """A new match for ``seat`` of the finished match at ``table``: the
        same opponent and rules, the other player dealing first."""
        if not table.over:  # played to its end, or ended by a forfeit (a resignation...)
            raise WebError("not_over", "the match is not over yet")
        if table.paired:  # a table waiting for a friend's link that nobody would bring
            raise WebError(
                "no_rematch",
                "a game found online is rematched by an offer the other player accepts",
            )
        game = table.game
        bots: list[BotChoice] = []
        if game.mode == "bot":
            try:
                bots = [resolve_choice(self.catalogue, game.seats[1 - seat].bot)]
            except MarjoletError as exc:
                raise WebError(
                    "bot_unavailable", str(exc), params={"bot": game.seats[1 - seat].bot}
                ) from None
        return await self.create_game(
            game.mode,
            game.rules,
            name=game.players[seat],
            bots=bots,
            first_dealer=1 - game.first_dealer if seat == 0 else game.first_dealer,
            owner=owner,
        )

    async def table(self, game_id: str) -> Table:
        """The live table of a game, loaded from the store if needed (and,
        when other processes share the database, brought up to date)."""
        table = self.tables.get(game_id)
        if table is not None:
            if self.shared:
                async with table.lock:
                    await table.sync()
            return table
        loading = self._loading.get(game_id)
        if loading is not None:
            return await asyncio.shield(loading)
        loading = asyncio.get_running_loop().create_future()
        self._loading[game_id] = loading
        try:
            table = await self._load_table(game_id)
        except asyncio.CancelledError:
            loading.cancel()
            raise
        except BaseException as exc:
            loading.set_exception(exc)
            loading.exception()  # retrieved: no "never retrieved" warning
            raise
        finally:
            del self._loading[game_id]
        loading.set_result(table)
        table.kick()
        return table

    async def _load_table(self, game_id: str) -> Table:
        """Load a game into a new live table (one load per game at a time)."""
        game = await self.load(game_id)
        try:
            match = self.match_of(game)
        except MarjoletError as exc:  # its record breaks the rules: quarantined
            reason = f"game {game_id}: its record cannot be replayed: {exc}"
            self.ledger.quarantine(game_id, reason)
            raise WebError("corrupt", f"this game cannot be resumed: {exc}") from None
        table = Table(self, game, match)
        await self._opened(table)
        self.tables[game_id] = table
        log.info("game %s resumed at deal %d, %d actions", game_id, match.deal_index, table.version)
        return table

    def running_watches(self) -> list[str]:
        """The ids of the bot-vs-bot matches in memory and not finished."""
        return [t.id for t in self.tables.values() if not t.has_humans and not t.over]

    def release(self, table: Table) -> None:
        """Forget an idle table; its game stays in the database."""
        if table.idle() and self.tables.get(table.id) is table:
            del self.tables[table.id]
            table.unload()

    async def startup(self) -> None:
        """Resume the bot-vs-bot matches that were under way. A game that
        cannot be read is logged once (by the store) and left; a file too
        damaged to list them is one line, and the server serves what it can.
        A process sharing its database listens to the bus and sweeps."""
        loop = asyncio.get_running_loop()
        if self.shared:
            self._listeners = [loop.create_task(self._listen()), loop.create_task(self._sweep())]
        if self.config.abandon_after > 0:
            self._listeners.append(loop.create_task(self._end_abandoned()))
        try:
            unfinished = await self.ledger.unfinished("watch")
        except StoreError as exc:
            log.error("%s; no match resumed (run marjolet serve --check-db)", exc)
            return
        for game_id in unfinished:
            try:
                await self.table(game_id)
            except WebError as exc:
                if exc.code != "corrupt":  # a damaged game: the store logged it once
                    log.error("game %s not resumed: %s", game_id, exc)

    async def shutdown(self) -> None:
        """Stop every table, close every bot (no bot program outlives the
        server), then finish the pending writes and close the database."""
        for listener in self._listeners:
            listener.cancel()
        await asyncio.gather(*self._listeners, return_exceptions=True)
        tables = list(self.tables.values())
        await asyncio.gather(*(table.close() for table in tables))
        for table in tables:  # another process takes their bots at once
            if table.bots:
                await self.give_back(table.bot_job)
        await asyncio.gather(*self._hooks, return_exceptions=True)
        await self.bus.close()
        self.bot_pool.shutdown(cancel_futures=True)
        while pending := [f for f in self._closing if not f.done()]:
            await asyncio.gather(*pending, return_exceptions=True)
        self.closer.shutdown(wait=False)
        await asyncio.to_thread(self.ledger.close)

    # -- history ------------------------------------------------------------------------

    def damaged(self) -> list[dict[str, str]]:
        """The games that could not be read (the history lists them apart)."""
        return [{"id": g, "reason": r} for g, r in sorted(self.ledger.damaged().items())]

    async def summaries(self) -> list[dict[str, Any]]:
        """The history's games (``damaged_db`` if the file cannot be listed)."""
        try:
            rows = await self.ledger.games(self.config.history_limit)
        except StoreError as exc:
            log.error("the history cannot be read: %s", exc)
            raise WebError(
                "damaged_db",
                "the list of games cannot be read: the server's database is damaged",
            ) from None
        out = []
        for row in rows:
            item = row.summary()
            live = self.tables.get(row.id)
            item["watchers"] = sum(1 for p in live.peers if p.seat is None) if live else 0
            item["replay"] = "full" if shareable_in_full(row) else "finished deals"
            out.append(item)
        return out

    async def shareable_record(self, game_id: str) -> tuple[GameRow, Record, bool]:
        """The record anyone may see (:func:`shareable_part`), worked out
        off the event loop."""
        game = await self.load(game_id)
        try:
            record, complete = await asyncio.to_thread(shareable_part, game)
        except MarjoletError as exc:
            self.ledger.quarantine(game_id, f"game {game_id}: its record cannot be replayed: {exc}")
            raise WebError("corrupt", f"this game cannot be read: {exc}") from None
        return game, record, complete

    async def exists(self, game_id: str) -> bool:
        """Whether a game has this id: live here, else stored (one cheap
        read, never the whole game). A game that cannot be read now
        (damaged, the database down) counts as one: its table says what
        is wrong."""
        if game_id in self.tables:
            return True
        if not _looks_like_id(game_id):
            return False
        try:
            return await self.ledger.version_of(game_id) is not None
        except (StoreError, WebError):
            return True

    async def load(self, game_id: str) -> GameRow:
        """A stored game (``not_found`` for an id no game can have, unread;
        ``corrupt`` for a game whose rows cannot be read: the store logged
        it once and lists it as damaged)."""
        try:
            game = await self.ledger.load(game_id) if _looks_like_id(game_id) else None
        except StoreError as exc:
            raise WebError("corrupt", f"this game cannot be read: {exc}") from None
        if game is None:
            raise WebError("not_found", "no such game")
        return game


def shareable_part(game: GameRow) -> tuple[Record, bool]:
    """The record of ``game`` anyone may see, and whether it is all of it:
    the whole game once it is finished or when no person plays it;
    otherwise only its finished deals, because the deck of the deal in
    progress would show a player hidden cards."""
    record = game.record()
    if shareable_in_full(game):
        return record, True
    return finished_deals(record), False


def finished_deals(record: Record) -> Record:
    """``record`` without its deal in progress, if it has one."""
    match = to_match(record)
    finished = [d for d, deal in zip(record.deals, match.deals, strict=True) if deal.is_over]
    return Record(record.rules, record.first_dealer, record.players, tuple(finished))


def shareable_in_full(game: GameRow) -> bool:
    return game.status == "finished" or all(s.kind == "bot" for s in game.seats)


def _looks_like_id(game_id: str) -> bool:
    return 0 < len(game_id) <= 32 and all(ch.isalnum() or ch in "-_" for ch in game_id)
