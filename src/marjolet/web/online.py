"""Online play: accounts, the lobby, "Play now", and rated results, wired
to the hub's tables.

:class:`Online` is the one object the online routes talk to (through
:mod:`marjolet.web.deps`). It owns the :class:`~marjolet.web.accounts.Accounts`,
the :class:`~marjolet.web.lobby.Lobby`, "Play now"
(:class:`~marjolet.web.playnow.PlayNow`) and the :class:`~marjolet.web.ratelimits.RateLimits`,
all on the store's engine, and runs their blocking calls (database,
Argon2) in worker threads, never on the event loop.

A lobby game is a two-person game the hub creates with both seats taken
at once (:meth:`~marjolet.web.hub.Hub.create_pair`, a friend game whose
invite was claimed on the spot). Each seat has its secret token, as every
seat has; a seat held by an account may also be taken by any browser where
that account is logged in: the table's socket reads the session cookie
(``hello`` with ``"account": true``) and ``game_players`` says which seat
the account holds. So the token flow stays for guests and the account's
session is the proof of the seat for everyone else.

Rated games are rated once (``rating_changes`` has one row per game and
account): when a table's match ends (:meth:`Online.finished`) and, at
start-up, for every finished rated game that has no rating yet
(:meth:`Online.startup`), so a result that arrived while the server was
stopping is not lost.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from sqlalchemy import Engine, Row, and_, select
from starlette.websockets import WebSocket

from marjolet.rules import Rules
from marjolet.web.accounts import DELETED_NAME, Account, AccountError, Accounts, token_digest
from marjolet.web.bus import AccountEvent, hear_forever
from marjolet.web.connection import Connection
from marjolet.web.db import game_players, games, play_now, rating_changes, seeks
from marjolet.web.errors import WebError
from marjolet.web.hub import Hub
from marjolet.web.lobby import Lobby, LobbyError, Seek, Seeker, owner_seat_token
from marjolet.web.playnow import PlayNow, well_formed_key
from marjolet.web.ratelimits import DEFAULT_LIMITS, RateLimits
from marjolet.web.store import Forfeit
from marjolet.web.tables import Table

log = logging.getLogger("marjolet.web")

T = TypeVar("T")

#: The session cookie (HttpOnly, SameSite=Lax, Secure behind HTTPS).
SESSION_COOKIE = "marjolet_session"
#: A session cookie lives this long in the browser (the server may revoke it sooner).
SESSION_MAX_AGE = 30 * 86_400
#: Games listed in "my games" at most (the latest first).
MY_GAMES = 200
#: The close code of a table or lobby socket whose session ended (a policy's).
CLOSE_SESSION_ENDED = 1008
#: The close reason that goes with it (the pages tell it from a flood's 1008).
SESSION_ENDED_REASON = "logged out"
#: Games whose movers (the seats whose turn it is) are remembered, by
#: version, for the count of games waiting for a player: past that, forgotten.
MOVERS_KEPT = 10_000
#: Least seconds between two readings of the listed seeks by
#: :meth:`Online.tell_lapsed` (a lapse is told within about that).
LAPSE_CHECK_EVERY = 5.0
#: Seconds between two checks, among several processes, that the sessions
#: proving the table sockets' seats and the lobby sockets' accounts still
#: exist (a lost account event's backstop, besides a table's check before
#: each move).
SESSION_CHECK_EVERY = 10.0


def refused(exc: AccountError | LobbyError) -> WebError:
    """An account or lobby refusal as the web error a client is told."""
    return WebError(exc.code, str(exc))


@dataclass(slots=True, eq=False)
class Listener:
    """One lobby socket: its outgoing queue and the seeks it owns."""

    queue: asyncio.Queue[str] = field(default_factory=lambda: asyncio.Queue(256))
    #: The seeks followed, with the owner token each was followed with.
    seeks: dict[str, str | None] = field(default_factory=dict)
    #: The one "Play now" place waited for (its key), told once matched:
    #: a new ``wait`` replaces it. Kept alive by each ``wait`` message (the
    #: page re-sends it every few seconds), not by the open socket, which
    #: may be dead without anyone knowing for a while.
    place: str | None = None
    #: The account logged in on this socket's page (None: a visitor): told
    #: ``{"type": "turn"}`` when one of its games changes.
    account_id: int | None = None
    #: The digest of the session that proved ``account_id`` (None: a
    #: visitor): its end closes the socket, as it closes the table sockets.
    session: str | None = None
    #: The socket itself, closed when its session ends (None: no socket to close).
    ws: WebSocket | None = None

    @property
    def followed(self) -> int:
        return len(self.seeks) + (self.place is not None)

    def send(self, text: str) -> None:
        with contextlib.suppress(asyncio.QueueFull):
            self.queue.put_nowait(text)


class Online:
    """Accounts, lobby, pairing and ratings of one server (see the module docstring)."""

    def __init__(self, hub: Hub, *, clock: Callable[[], float] = time.time) -> None:
        engine = hub.ledger.engine
        config = hub.config
        self.hub = hub
        self.clock = clock
        self.accounts = Accounts(engine)
        self.lobby = Lobby(engine, timeout=config.seek_timeout)
        self.limits = RateLimits(
            {**DEFAULT_LIMITS, **(config.rate_limits or {})}, config.rate_limit_storage
        )
        #: "Play now": its queue in the database, paired by one process.
        self.play_now = PlayNow(hub, initial_rating=self.accounts.system.initial.value)
        #: seek id -> the seeker's seat (``{"id", "seat", "token", "url"}``),
        #: kept in memory: a token is never stored (see docs/web.md).
        self.seat_replies: dict[str, dict[str, Any]] = {}
        self.listeners: set[Listener] = set()
        #: game id -> (its version, the seats whose turn it is then): the
        #: count of games waiting for a player opens a table only when its
        #: game changed since (the version says so, whichever process moved).
        self._movers: dict[str, tuple[int, frozenset[int]]] = {}
        #: The pairing rounds and, among several processes, the lobby's
        #: bus listener; and the lobby changes being published.
        self._tasks: list[asyncio.Task[None]] = []
        self._publishing: set[asyncio.Task[None]] = set()
        #: The seeks listed when the lobby sockets here were last told (None:
        #: just told, so read again before comparing) and when that was read;
        #: how many times they were told, and when last (the lobby's clock).
        self._listed: frozenset[str] | None = None
        self._listed_at = 0.0
        self._tells = 0
        self._told_at = 0.0
        #: When the table and lobby sockets' sessions were last checked (recheck_sessions;
        #: at start there is no socket to check).
        self._sessions_checked_at = clock()
        hub.on_finish.append(self.finished)
        hub.on_open.append(self.opened)
        hub.on_change.append(self.turn_changed)

    @staticmethod
    async def run(fn: Callable[..., T], *args: Any) -> T:
        """A blocking call (database, password hash) in a worker thread,
        its refusal turned into a :class:`WebError`."""
        try:
            return await asyncio.to_thread(fn, *args)
        except (AccountError, LobbyError) as exc:
            raise refused(exc) from None

    # -- life cycle ---------------------------------------------------------------------

    async def startup(self) -> None:
        """Rate what was left unrated, then start the pairing rounds."""
        for game_id in await asyncio.to_thread(self._unrated_finished):
            await self.rate(game_id)
        loop = asyncio.get_running_loop()
        self._tasks.append(loop.create_task(self._pair_forever()))
        if self.hub.shared:
            self._tasks.append(loop.create_task(self._hear_lobby()))
            self._tasks.append(loop.create_task(self._hear_accounts()))

    async def shutdown(self) -> None:
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, *self._publishing, return_exceptions=True)

    # -- sessions -------------------------------------------------------------------------

    async def provisional(self, account_id: int | None) -> bool | None:
        """Whether an account's rating is still uncertain (``None``: a guest)."""
        if account_id is None:
            return None
        account = await self.run(self.accounts.by_id, account_id)
        return None if account is None else account.rating.provisional

    async def account_of(self, token: str | None) -> Account | None:
        """The account of a session cookie's value (None: not logged in)."""
        if not token:
            return None
        return await asyncio.to_thread(self.accounts.for_token, token)

    def allow(self, name: str, *keys: str) -> None:
        """Count one use of the limit ``name`` for each key; refuse when over."""
        keys = tuple(dict.fromkeys(keys))  # a key named twice counts once
        if not self.limits.allows(name, *keys):
            wait = max(1, round(max(self.limits.retry_after(name, key) for key in keys)))
            if wait < 90:
                raise WebError(
                    "too_many_requests",
                    f"too many attempts; try again in {wait} s",
                    params={"seconds": wait},
                )
            minutes = -(-wait // 60)
            raise WebError(
                "too_many_requests",
                f"too many attempts; try again in {minutes} minutes",
                key="error.too_many_requests_minutes",
                params={"n": minutes},
            )

    async def sessions_ended(
        self, account_id: int, keep: str | None = None, *, renewed: str | None = None
    ) -> int:
        """Close the table and lobby sockets whose account a session of
        ``account_id`` other than the one of the token ``keep`` proved: a
        device logged out plays no more, even on a table it had open
        (reconnecting, it is asked to log in), and is no longer told of the
        account's offers, games and "Play now" place. ``renewed``: the token ``keep`` replaces on
        the asking device (a password change gives it a new session): its
        sockets are proved by ``keep``'s session from now on, so that this
        and a later "log out everywhere else" keep them. Done here and,
        through the bus, on every other process (:meth:`hear_account_event`).
        Returns how many sockets this process closed."""
        kept = None if keep is None else token_digest(keep)
        was = None if renewed is None or kept is None else token_digest(renewed)
        self._announce(AccountEvent("ended", self.hub.leases.owner, (account_id,), kept, was))
        return await self._end_sessions(account_id, kept, was)

    async def session_logged_out(self, token: str) -> int:
        """This device logged out (its session of the token ``token`` is
        deleted): close this process's table and lobby sockets that session proved,
        as :meth:`sessions_ended` closes the other devices'. The other
        processes' close at their next move or within SESSION_CHECK_EVERY
        (:meth:`close_ended_sessions`). Returns how many here."""
        digest = token_digest(token)
        doomed = [sock for sock in self._account_sockets(None) if sock.session == digest]
        await self._close_sockets(doomed)
        return len(doomed)

    async def _end_sessions(self, account_id: int, kept: str | None, was: str | None) -> int:
        """:meth:`sessions_ended` on this process's sockets, by digests."""
        if was is not None and kept is not None:
            self._renew(account_id, was, kept)
        doomed = [sock for sock in self._account_sockets(account_id) if sock.session != kept]
        await self._close_sockets(doomed)
        return len(doomed)

    def _renew(self, account_id: int, was: str, now: str) -> int:
        """This process's table and lobby sockets of ``account_id`` proved
        by the session digest ``was`` are proved by ``now`` instead. Returns
        how many."""
        moved = [sock for sock in self._account_sockets(account_id) if sock.session == was]
        for sock in moved:
            sock.session = now
        return len(moved)

    def _account_sockets(self, account_id: int | None) -> list[Connection | Listener]:
        """The table sockets here whose seat an account's session proved,
        and the lobby sockets whose account it proved (``None``: every
        account's; a visitor's lobby socket is none of them)."""
        tables: list[Connection | Listener] = [
            peer
            for table in list(self.hub.tables.values())
            for peer in list(table.peers)
            if isinstance(peer, Connection)
            and peer.session is not None
            and (account_id is None or peer.account_id == account_id)
        ]
        lobby = [
            listener
            for listener in list(self.listeners)
            if listener.session is not None
            and (account_id is None or listener.account_id == account_id)
        ]
        return tables + lobby

    async def _close_sockets(self, doomed: Sequence[Connection | Listener]) -> None:
        """Close sockets whose session ended; a lobby socket is told nothing
        more from now on (its offers matched, its turns, its place found)."""
        for sock in doomed:
            if isinstance(sock, Listener):
                self.listeners.discard(sock)
        await close_for_session(doomed)

    async def close_ended_sessions(self) -> int:
        """Close the table and lobby sockets here whose session no longer
        exists in the database (one query): the backstop of a lost account
        event, run after the bus is back and every SESSION_CHECK_EVERY seconds."""
        sockets = self._account_sockets(None)
        digests = {sock.session for sock in sockets if sock.session is not None}
        if not digests:
            return 0
        live = await asyncio.to_thread(self.accounts.live_sessions, digests)
        doomed = [sock for sock in sockets if sock.session not in live]
        await self._close_sockets(doomed)
        return len(doomed)

    def account_deleted(self, account_id: int, renamed: Sequence[tuple[str, int]]) -> None:
        """An account is gone (:meth:`Accounts.delete`): its seats at the
        tables this process holds in memory take the deleted player's name,
        as they have in the database, and the lobby drops its offers; the
        other processes hear both (:meth:`hear_account_event`, and the
        lobby's channel)."""
        for game_id, seat in renamed:
            self._rename_seat(game_id, seat)
        self.lobby_changed()
        self._announce(AccountEvent("deleted", self.hub.leases.owner, (account_id,)))

    def _rename_seat(self, game_id: str, seat: int) -> None:
        """A seat of a table in memory takes the deleted player's name, and
        the pages that have it open are shown it at once (the name on the
        plate, the result and the log; the rating gone), not at a reload."""
        table = self.hub.tables.get(game_id)
        if table is None:
            return
        names = list(table.game.players)
        names[seat] = DELETED_NAME
        table.game.players = (names[0], names[1])
        if table.match.players is not None:
            table.match.players = table.game.players
        if table.accounts[seat] is not None:
            table.accounts[seat] = None
        table.tell_all({"type": "accounts", "accounts": table.accounts})
        table.broadcast()

    async def _rename_deleted(self, account_id: int) -> None:
        """Another process deleted ``account_id``: the tables here it sat
        at take the names the database now gives their seats."""
        held = [t.id for t in self.hub.tables.values() if account_id in t.account_ids]
        if not held:
            return
        stored = await asyncio.to_thread(self._stored_players, held)
        for game_id, names in stored.items():
            table = self.hub.tables.get(game_id)
            shown = () if table is None else table.game.players
            for seat, name in enumerate(shown):
                if names[seat] == DELETED_NAME != name:
                    self._rename_seat(game_id, seat)

    def _stored_players(self, game_ids: list[str]) -> dict[str, list[str]]:
        """The players' names the database gives these games (blocking)."""
        query = select(games.c.id, games.c.players).where(games.c.id.in_(game_ids))
        with self.hub.ledger.engine.connect() as db:
            return {str(r.id): json.loads(r.players) for r in db.execute(query)}

    # -- account events between processes ---------------------------------------------------

    def _announce(self, event: AccountEvent) -> None:
        """Publish an account event for the other processes (in a task: the
        request never waits for the bus; one process publishes nothing)."""
        if not self.hub.shared:
            return
        task = asyncio.get_running_loop().create_task(self._publish_account(event))
        self._publishing.add(task)
        task.add_done_callback(self._publishing.discard)

    async def _publish_account(self, event: AccountEvent) -> None:
        try:
            await self.hub.bus.publish_account(event)
        except Exception as exc:  # the sockets' own checks catch up (hear_account_event)
            log.warning(
                "could not tell the other processes of an account's %s: %s", event.kind, exc
            )

    async def hear_account_event(self, event: AccountEvent) -> None:
        """Apply to this process's sockets an account event another process
        published (its origin applied it already, and ignores its own).

        A lost event (pub/sub is not a queue; a process may be deaf to
        Redis for a while) is caught up by the sockets' own checks: a table
        socket whose session ended proves it again before each move and is
        closed then, and every SESSION_CHECK_EVERY seconds and once the bus
        is back all of them, and the lobby sockets, are checked
        (:meth:`close_ended_sessions`); a device whose renewal was lost is
        closed at its next move (its lobby socket at that check) as if its
        session had ended, and its page reconnects with its new cookie; a
        lost turn is seen at the page's minute's asking (and every lobby
        socket here asks again once the bus is back); a deleted player's
        name shows until its table leaves memory here."""
        if event.origin == self.hub.leases.owner:
            return
        if event.kind == "ended":
            await self._end_sessions(event.accounts[0], event.keep, event.renewed)
        elif event.kind == "turn":
            self._tell_turn(frozenset(event.accounts))
        else:
            await self._rename_deleted(event.accounts[0])

    async def _hear_accounts(self) -> None:
        """Hear the other processes' account events, subscribing again after
        a lost connection to the broker (then catching up what was missed)."""
        bus = self.hub.bus

        async def heard(event: AccountEvent) -> None:
            try:
                await self.hear_account_event(event)
            except Exception as exc:  # one event failing never deafens the rest
                log.warning("could not apply an account's %s from the bus: %s", event.kind, exc)

        await hear_forever(
            "the accounts'", bus.ready, bus.subscribe_accounts, heard, self._deaf_ended
        )

    async def recheck_sessions(self) -> None:
        """Every SESSION_CHECK_EVERY seconds (a step of the pairing rounds
        among several processes): :meth:`close_ended_sessions`."""
        now = self.clock()
        if now - self._sessions_checked_at < SESSION_CHECK_EVERY:
            return
        self._sessions_checked_at = now
        await self.close_ended_sessions()

    async def _deaf_ended(self) -> None:
        """Back on the bus: catch up what its lost events said."""
        self._tell_turn(None)
        await self.close_ended_sessions()

    # -- tables -----------------------------------------------------------------------------

    async def opened(self, table: Table) -> None:
        """A table opens: tell it its seats' accounts, rated or not, days per
        move, and whether the lobby or "Play now" paired its players."""
        rows = await asyncio.to_thread(self.players_of, table.id)
        if rows:
            table.paired = True
        elif all(info.kind == "human" for info in table.game.seats):  # two guests?
            table.paired = await asyncio.to_thread(self._paired, table.id)
        if not rows:
            return
        table.public = True  # a lobby game: spectators see names, never hidden cards
        table.accounts = await asyncio.to_thread(self._seat_accounts, rows, table.id)
        table.account_ids = frozenset(account_id for _, account_id, _, _ in rows)
        for _, _, rated, days in rows:
            table.rated = table.rated or rated
            table.days_per_move = days

    async def finished(self, table: Table) -> None:
        """A table's match is over: rate it if it was a rated lobby game, and
        tell the table's pages the players' new ratings and their change.
        An aborted game (one player never moved) has no result: not rated."""
        forfeit = table.game.forfeit
        if not table.rated or (forfeit is not None and forfeit.aborted):
            return
        await self.rate(table.id)
        rows = await asyncio.to_thread(self.players_of, table.id)
        table.accounts = await asyncio.to_thread(self._seat_accounts, rows, table.id)
        table.tell_all({"type": "accounts", "accounts": table.accounts})

    def _seat_accounts(
        self, rows: Sequence[tuple[int, int, bool, int | None]], game_id: str
    ) -> list[dict[str, Any] | None]:
        """Each seat's account as a table shows it; once the game is rated,
        with ``change``, the rating points it won or lost by this game, and
        ``after``, the rating this game left (``provisional_after``): the
        rating now may have moved since, by later games."""
        provisional_rd = self.accounts.system.provisional_rd
        with self.hub.ledger.engine.connect() as db:
            changes = {
                int(r.account_id): {
                    "change": round(r.rating_after - r.rating_before),
                    "after": round(r.rating_after),
                    "provisional_after": r.rd_after > provisional_rd,
                }
                for r in db.execute(
                    select(rating_changes).where(rating_changes.c.game_id == game_id)
                ).all()
            }
        seats: list[dict[str, Any] | None] = [None, None]
        for seat, account_id, _, _ in rows:
            account = self.accounts.by_id(account_id)
            if account is not None:
                seats[seat] = public_rating(account)
                if account_id in changes:
                    seats[seat] = {**public_rating(account), **changes[account_id]}
        return seats

    async def rate(self, game_id: str) -> bool:
        """Rate a finished rated game once (False: not rated now)."""
        try:
            return await asyncio.to_thread(self._rate, game_id)
        except Exception:
            log.exception("game %s: rating failed (it will be tried at the next start)", game_id)
            return False

    def _rate(self, game_id: str) -> bool:
        """Rate the game if it is finished with a winner (an aborted game has
        none: :meth:`Accounts.record_result` never sees it)."""
        with self.hub.ledger.engine.connect() as db:
            row = db.execute(
                select(games.c.status, games.c.winner).where(games.c.id == game_id)
            ).first()
            seats = db.execute(
                select(game_players.c.seat, game_players.c.account_id).where(
                    game_players.c.game_id == game_id, game_players.c.rated.is_(True)
                )
            ).all()
        holders = {int(r.seat): int(r.account_id) for r in seats}
        if row is None or row.status != "finished" or row.winner is None or len(holders) != 2:
            return False
        score = 1.0 if int(row.winner) == 0 else 0.0
        done = self.accounts.record_result(game_id, holders[0], holders[1], score)
        if done:
            log.info("game %s rated (seat %d won)", game_id, int(row.winner))
        return done

    def _unrated_finished(self) -> list[str]:
        """Finished rated games with no rating change yet."""
        rated = select(rating_changes.c.game_id).where(rating_changes.c.game_id == games.c.id)
        query = (
            select(games.c.id)
            .join(game_players, and_(game_players.c.game_id == games.c.id))
            .where(games.c.status == "finished", game_players.c.rated.is_(True))
            .where(games.c.winner.is_not(None))  # an aborted game is never rated
            .where(~rated.exists())
            .distinct()
        )
        with self.hub.ledger.engine.connect() as db:
            return [str(r.id) for r in db.execute(query).all()]

    def _paired(self, game_id: str) -> bool:
        """A game of two guests made from a seek or from "Play now"."""
        with self.hub.ledger.engine.connect() as db:
            for made in (seeks.c.game_id, play_now.c.game_id):
                if db.execute(select(made).where(made == game_id).limit(1)).first() is not None:
                    return True
        return False

    def players_of(self, game_id: str) -> list[tuple[int, int, bool, int | None]]:
        """(seat, account id, rated, days per move) of each seat an account holds."""
        with self.hub.ledger.engine.connect() as db:
            rows = db.execute(select(game_players).where(game_players.c.game_id == game_id)).all()
        return [(int(r.seat), int(r.account_id), bool(r.rated), r.days_per_move) for r in rows]

    # -- the lobby --------------------------------------------------------------------------

    async def accept(
        self,
        seek_id: str,
        acceptor: Seeker,
        *,
        rematch: bool = False,
        seeker_deals: bool | None = None,
    ) -> dict[str, Any]:
        """Take an open seek (one acceptor wins) and seat both players; the
        acceptor's seat is returned, the seeker's is kept for them and told
        to their lobby sockets at once. A rematch offer is taken only with
        ``rematch`` (:mod:`marjolet.web.rematches` checked the seat), and
        ``seeker_deals`` says whether the seek's player deals first (a
        rematch: whoever did not deal first last time; else at random)."""
        seek = await self.run(lambda: self.lobby.accept(seek_id, acceptor, rematch=rematch))
        rules = Rules.from_json(seek.rules)
        seeker_seat = self.hub.rng.randrange(2)
        names = [seek.name, acceptor.name]
        if seeker_seat == 1:
            names.reverse()
        hashes: list[str | None] = [None, None]
        if seek.account_id is None:  # a guest's seat token: derived from their owner token
            hashes[seeker_seat] = seek.seat_hash  # (an account's session proves its seat)
        try:
            first_dealer = None
            if seeker_deals is not None:
                first_dealer = seeker_seat if seeker_deals else 1 - seeker_seat
            game_id, token0, token1 = await self.hub.create_pair(
                rules, (names[0], names[1]), (hashes[0], hashes[1]), first_dealer=first_dealer
            )
            await self.run(self.lobby.attach, seek_id, game_id, seeker_seat, acceptor)
        except BaseException:
            await self.run(self.lobby.reopen, seek_id)  # never matched with no game
            raise
        tokens = (token0, token1)
        table = self.hub.tables.get(game_id)
        if table is not None:
            await self.opened(table)
        if tokens[seeker_seat]:  # an account's (or an older) seek: kept in memory
            self.seat_replies[seek_id] = seat_reply(game_id, seeker_seat, tokens[seeker_seat])
        matched = await self.run(self.lobby.get, seek_id)
        if matched is not None:
            self.tell_seeker(matched)
        self.lobby_changed()
        log.info("seek %s accepted: game %s", seek_id, game_id)
        return seat_reply(game_id, 1 - seeker_seat, tokens[1 - seeker_seat])

    def seek_status(self, seek: Seek, owner_token: str | None = None) -> dict[str, Any]:
        """``GET /api/seeks/ID`` for its owner: once matched, the owner's
        seat, with its token when ``owner_token`` is the owner token (any
        process derives it, :func:`~marjolet.web.lobby.seat_token`)."""
        out: dict[str, Any] = {"id": seek.id, "status": seek.status, "game": None}
        if seek.status == "matched" and seek.game_id is not None and seek.seat is not None:
            token = owner_seat_token(seek, owner_token)
            reply = self.seat_replies.get(seek.id)
            if token is not None:
                reply = seat_reply(seek.game_id, seek.seat, token)
            out["game"] = reply or {
                "id": seek.game_id,
                "seat": seek.seat,
                "token": None,  # no owner token: the account's session is the proof
                "url": f"/game/{seek.game_id}",
            }
        return out

    # -- lobby sockets ----------------------------------------------------------------------

    def lobby_changed(self) -> None:
        """Tell every lobby socket the open seeks changed (they fetch them),
        here and, through the bus, on the other processes."""
        self._tell_lobby()
        if self.hub.shared:
            task = asyncio.get_running_loop().create_task(self._publish_lobby())
            self._publishing.add(task)
            task.add_done_callback(self._publishing.discard)

    def _tell_lobby(self) -> None:
        self._listed, self._listed_at = None, 0.0  # what they fetch now: the new baseline
        self._tells += 1
        self._told_at = self.lobby.clock()
        text = json.dumps({"type": "lobby"})
        for listener in list(self.listeners):
            listener.send(text)

    async def _publish_lobby(self) -> None:
        try:
            await self.hub.bus.publish_lobby(self.hub.leases.owner)
        except Exception as exc:  # the others' sockets see it at their next fetch
            log.warning("could not tell the other processes of a lobby change: %s", exc)

    async def _hear_lobby(self) -> None:
        """Tell the lobby sockets here of the changes made on the other
        processes, subscribing again after a lost connection to the broker
        (then every socket fetches the offers changed while deaf)."""
        bus, owner = self.hub.bus, self.hub.leases.owner

        async def heard(origin: str) -> None:
            if origin != owner:
                self._tell_lobby()

        async def back() -> None:
            self._tell_lobby()

        await hear_forever("the lobby's", bus.ready, bus.subscribe_lobby, heard, back)

    async def tell_lapsed(self) -> None:
        """Tell the lobby sockets here when the listed seeks changed with
        nobody posting, taking or withdrawing one: a live seek whose page
        was closed leaves the lobby after ``seek_timeout`` (and one followed
        again comes back) by the clock alone, and a page that was never told
        would offer to accept it long after (``seek_gone``). Read at most
        every LAPSE_CHECK_EVERY seconds, and only while a socket listens.

        Just after a tell, what the pages fetch is compared as of the tell
        (a seek that lapsed before this first reading is told too; the seeks'
        signs of life are today's, so one revived meanwhile counts as listed
        then), and a
        reading that a tell overtook is dropped: it may predate the change
        told (its seeks compared later would tell a change that is none,
        or hide one)."""
        now = self.clock()
        if not self.listeners or now - self._listed_at < LAPSE_CHECK_EVERY:
            return
        self._listed_at = now
        tells, told_at, before = self._tells, self._told_at, self._listed

        def read() -> tuple[frozenset[str], frozenset[str]]:
            listed = frozenset(seek.id for seek in self.lobby.open_seeks())
            if before is not None or not tells:  # (never told: the first reading is it)
                return listed, listed if before is None else before
            return listed, frozenset(seek.id for seek in self.lobby.open_seeks(told_at))

        listed, baseline = await self.run(read)
        if self._tells != tells:  # told meanwhile: the next round reads again
            return
        if listed != baseline:
            self._tell_lobby()
        self._listed = listed

    def tell_seeker(self, seek: Seek) -> None:
        """Tell the lobby sockets following ``seek`` (matched: the owner's
        seat; cancelled) and stop following it."""
        for listener in list(self.listeners):
            if seek.id not in listener.seeks:
                continue
            status = self.seek_status(seek, listener.seeks.pop(seek.id))
            listener.send(
                json.dumps({"type": status["status"], "seek": seek.id, "game": status["game"]})
            )

    async def tell_elsewhere_matched(self) -> None:
        """The followed seeks another process matched or cancelled: told
        here too (several processes share the lobby; one query a round)."""
        followed = {seek_id for listener in self.listeners for seek_id in listener.seeks}
        if not followed:
            return
        for seek in await self.run(self.lobby.settled, sorted(followed)):
            self.tell_seeker(seek)

    # -- "Play now" ---------------------------------------------------------------------------

    async def tell_waiting(self) -> None:
        """The places waited for on the lobby sockets here: once matched or
        given up, told and no longer followed (read only: see
        :attr:`Listener.place`)."""
        keys = sorted({listener.place for listener in self.listeners if listener.place})
        if not keys:
            return
        answers = await self.play_now.statuses(keys)
        for listener in list(self.listeners):
            key = listener.place
            if key is None or key not in answers:
                continue
            answer = answers[key]
            if answer is None or answer["status"] == "matched":
                listener.place = None
                listener.send(play_now_message(key, answer))

    async def queue_status(self, key: str) -> dict[str, Any]:
        """Still waiting, or the seat of the game found (any process answers)."""
        if not well_formed_key(key):
            raise WebError("malformed", "not the key of a place in the queue")
        status = await self.play_now.status(key)
        if status is None:
            raise WebError("not_in_queue", "no such place in the queue")
        return status

    async def _pair_forever(self) -> None:
        """Each ``pairing_interval``: a pairing round, then the waiting
        sockets told, each step on its own (one failing never stalls the
        others)."""
        steps: list[tuple[str, Callable[[], Awaitable[None]]]] = [
            ("the pairing round", self.play_now.round),
            ("telling the waiting players", self.tell_waiting),
            ("telling the lobby of lapsed offers", self.tell_lapsed),
        ]
        if self.hub.shared:
            steps.append(("telling the followed offers", self.tell_elsewhere_matched))
            steps.append(("closing the tables of ended sessions", self.recheck_sessions))
        while True:
            await asyncio.sleep(self.hub.config.pairing_interval)
            for name, step in steps:
                try:
                    await step()
                except Exception:
                    log.exception("%s failed", name)

    # -- my games -------------------------------------------------------------------------------

    async def my_games(self, account: Account) -> list[dict[str, Any]]:
        """The account's games, those waiting for them first. Finished games
        are read from their summary; only unfinished ones open their table
        (to know whose turn it is)."""
        rows = await asyncio.to_thread(self._held_games, account.id)
        out = []
        for row in rows:
            if row["finished"]:
                out.append(row)
                continue
            try:
                table = await self.hub.table(row["id"])
            except WebError:
                continue
            out.append(game_entry(table, row["seat"], row["rated"]))
            self.hub.release(table)
        out.sort(key=lambda g: (-int(g["my_turn"]), g["finished"], -g["updated"]))
        return out

    async def waiting_count(self, account: Account) -> int:
        """How many games wait for the account: its turn, or a rematch offer
        to answer (the ``my_turn`` of :meth:`my_games`, counted). Each page
        of a logged-in player asks for it every minute, so a game's movers
        are remembered by its version and its table is opened again only
        once it changed."""
        answers, playing = await asyncio.to_thread(self._turn_rows, account.id)
        waiting = answers
        for game_id, seat, version in playing:
            movers = self._movers.get(game_id)
            if movers is None or movers[0] != version:
                movers = await self._movers_now(game_id)
            waiting += movers is not None and seat in movers[1]
        return waiting

    async def _movers_now(self, game_id: str) -> tuple[int, frozenset[int]] | None:
        """A game's version and the seats whose turn it is (None: no table)."""
        try:
            table = await self.hub.table(game_id)
        except WebError:
            return None
        try:
            seats = (s for s in (0, 1) if game_entry(table, s, False)["my_turn"])
            movers = (table.game.version, frozenset(seats))
        finally:
            self.hub.release(table)
        if len(self._movers) >= MOVERS_KEPT:
            self._movers.clear()
        self._movers[game_id] = movers
        return movers

    def _turn_rows(self, account_id: int) -> tuple[int, list[tuple[str, int, int]]]:
        """The account's rematch offers awaiting its answer, and its
        unfinished games as (id, seat, version) (blocking)."""
        rows = account_game_rows(self.hub.ledger.engine, account_id, MY_GAMES)
        since = self.lobby.clock() - self.hub.config.rematch_wait
        offers = self.lobby.open_rematches([r.id for r in rows if r.status == "finished"], since)
        answers = sum(1 for r in rows if offers.get(r.id) == 1 - int(r.seat))
        playing = [(r.id, int(r.seat), int(r.version)) for r in rows if r.status != "finished"]
        return answers, playing

    def turn_changed(self, table: Table) -> None:
        """A lobby game changed (a move, a deal): its players' lobby sockets
        are told ``{"type": "turn"}`` and ask their count again, here and,
        through the bus, on the other processes (a lost message: their
        pages see it at their next minute's asking)."""
        if not table.account_ids:
            return
        self._tell_turn(table.account_ids)
        ids = tuple(sorted(table.account_ids))[:2]
        self._announce(AccountEvent("turn", self.hub.leases.owner, ids))

    def _tell_turn(self, account_ids: frozenset[int] | None) -> None:
        """Tell the lobby sockets here of these accounts (None: of every
        account) that one of their games changed."""
        text = json.dumps({"type": "turn"})
        for listener in list(self.listeners):
            if listener.account_id is None:
                continue
            if account_ids is None or listener.account_id in account_ids:
                listener.send(text)

    def game_ids(self, account: Account) -> list[str]:
        """The ids of the unfinished games the account sits at (blocking):
        those whose seat key a browser must forget when the account logs out."""
        query = (
            select(game_players.c.game_id)
            .join(games, games.c.id == game_players.c.game_id)
            .where(game_players.c.account_id == account.id, games.c.status != "finished")
        )
        with self.hub.ledger.engine.connect() as db:
            return [str(r.game_id) for r in db.execute(query)]

    def open_offers(self, account_id: int) -> dict[str, str]:
        """Of the account's finished games, those with a rematch offer open
        (blocking): game id -> ``theirs`` (awaiting the account's answer) or
        ``mine``; two queries, no table opened."""
        return {
            g["id"]: "theirs" if g["rematch_offered"] else "mine"
            for g in self._held_games(account_id)
            if g["rematch_offered"] or g["rematch_mine"]
        }

    def _held_games(self, account_id: int) -> list[dict[str, Any]]:
        rows = account_game_rows(self.hub.ledger.engine, account_id, MY_GAMES)
        since = self.lobby.clock() - self.hub.config.rematch_wait
        offers = self.lobby.open_rematches([r.id for r in rows if r.status == "finished"], since)
        out = []
        for r in rows:
            seat, players = int(r.seat), json.loads(r.players)
            offered = offers.get(r.id) == 1 - seat  # the opponent's rematch awaits an answer
            mine = offers.get(r.id) == seat  # and this player's awaits the opponent's
            out.append(
                {
                    "id": r.id,
                    "url": f"/game/{r.id}",
                    "seat": seat,
                    "players": players,
                    "opponent": players[1 - seat],
                    "rated": bool(r.rated),
                    "days_per_move": r.days_per_move,
                    "my_turn": offered,
                    "rematch_offered": offered,
                    "rematch_mine": mine,
                    "finished": r.status == "finished",
                    "winner": r.winner,
                    "forfeit": r.forfeit is not None,
                    "resigned": ended_by_resignation(r),
                    "aborted": ended_without_result(r),
                    "totals": json.loads(r.totals),
                    "updated": r.updated,
                    "deadline": None,
                }
            )
        return out


async def close_for_session(sockets: Sequence[Connection | Listener]) -> None:
    """Close table or lobby sockets whose session ended (CLOSE_SESSION_ENDED:
    their page says the device is no longer logged in)."""
    for sock in sockets:
        if sock.ws is None:
            continue
        with contextlib.suppress(Exception):
            await sock.ws.close(code=CLOSE_SESSION_ENDED, reason=SESSION_ENDED_REASON)


def account_game_rows(
    engine: Engine, account_id: int, limit: int
) -> Sequence[Row[*tuple[Any, ...]]]:
    """The account's latest ``limit`` games, newest first (blocking): the
    game's summary and the account's seat at it, for the game lists."""
    query = (
        select(
            games.c.id,
            games.c.updated,
            games.c.status,
            games.c.winner,
            games.c.forfeit,
            games.c.players,
            games.c.totals,
            games.c.version,
            game_players.c.seat,
            game_players.c.rated,
            game_players.c.days_per_move,
        )
        .join(game_players, game_players.c.game_id == games.c.id)
        .where(game_players.c.account_id == account_id)
        .order_by(games.c.updated.desc())
        .limit(limit)
    )
    with engine.connect() as db:
        return db.execute(query).all()


def ended_by_resignation(row: Row[*tuple[Any, ...]]) -> bool:
    """A row of :func:`account_game_rows` of a game a player resigned (the
    pages say "by resignation" rather than "by forfeit")."""
    if row.forfeit is None:
        return False
    try:
        return Forfeit.from_json(json.loads(row.forfeit)).resigned
    except (ValueError, KeyError, TypeError, AttributeError):  # damaged: a plain forfeit
        return False


def ended_without_result(row: Row[*tuple[Any, ...]]) -> bool:
    """A row of :func:`account_game_rows` of an aborted game: finished
    early with no winner (one player never moved)."""
    return bool(row.status == "finished" and row.forfeit is not None and row.winner is None)


def play_now_message(key: str, answer: dict[str, Any] | None) -> str:
    """The lobby socket's word on a place: matched (with the seat) or gone."""
    if answer is None:
        return json.dumps({"type": "play_now", "key": key, "status": "gone", "game": None})
    return json.dumps({"type": "play_now", "key": key, **answer})


def seat_reply(game_id: str, seat: int, token: str) -> dict[str, Any]:
    return {"id": game_id, "seat": seat, "token": token, "url": f"/game/{game_id}"}


def public_rating(account: Account) -> dict[str, Any]:
    """What a table shows of a player's account: name and rating."""
    return {
        "name": account.name,
        "rating": round(account.rating.value),
        "provisional": account.rating.provisional,
    }


def game_entry(table: Table, seat: int, rated: bool) -> dict[str, Any]:
    """One line of ``GET /api/me/games``."""
    game, driver = table.game, table.driver
    turn = driver.turn()
    over = table.over
    my_turn = not over and (
        (turn is not None and turn.seat == seat) or (turn is None and driver.needs_deal)
    )
    entry: dict[str, Any] = {
        "id": game.id,
        "url": f"/game/{game.id}",
        "seat": seat,
        "players": list(game.players),
        "opponent": game.players[1 - seat],
        "rated": rated,
        "days_per_move": table.days_per_move,
        "my_turn": my_turn,
        "rematch_offered": False,
        "rematch_mine": False,
        "finished": over,
        "winner": game.winner if over else None,
        "forfeit": game.forfeit is not None,
        "resigned": game.forfeit is not None and game.forfeit.resigned,
        "aborted": game.forfeit is not None and game.forfeit.aborted,
        "totals": list(table.match.running_totals),
        "updated": game.updated,
        "deadline": table.move_deadline() if table.days_per_move is not None else None,
    }
    return entry
