"""One live game on the server: its match, its seats, its connections.

A table owns its game: the stored row it was loaded from, the match rebuilt
from it, and every write of that game (through the hub's
:class:`~marjolet.web.ledger.Ledger`): a move, a new deal, a forfeit, a
friend taking seat 1 (:meth:`Table.join`).

A move is checked once, where it enters (the edge): a person's by
:meth:`~marjolet.turns.TurnDriver.check` in :meth:`Table.act` (the right
seat, the position the person saw, the rules), a bot's against its turn's
legal actions in the bot thread (:meth:`~marjolet.turns.Turn.move`). Either
way the result is a :class:`~marjolet.turns.Move`, and every change of a
game then goes through :meth:`Table._commit`, under the table's lock, in
this order: the move is applied unchecked
(:meth:`~marjolet.turns.TurnDriver.push`, which only confirms the position
is still the one it was checked in), stored in the database (a committed
transaction; if that fails the table is rebuilt from the database), and only
then announced to the connections. So a move is never acknowledged before it is saved, and
no other move of the same table can slip in between. Because the match is
ahead of the database while the write runs, everything that reads the match
(a new connection's first picture, a hint, a bot's observation) holds the
lock too.

Bots think in the hub's thread pool, never on the event loop: a bot's turn
takes a snapshot of its observation under the lock, thinks without it, then
commits its action like any player. A thinking bot at one table therefore
never delays another table's replies.

A bot that breaks down (it raises :class:`~marjolet.bots.BotFault`: an
external program's garbled or illegal answer, time-out or exit; or any
exception at all from a bot that runs a program) **forfeits**: its seat
loses the match, the game is stored as finished with the other seat as
winner and the :class:`~marjolet.web.store.Forfeit` (reason and the end of
the program's standard error), every connection is told, and no bot of the
table is asked to move again, even after a restart. Any other exception of
an in-process bot is a bug of this server, not of the player: that one move
is replaced by a random legal one, the table is told, and the game goes on.

A table's bots are retired once: when the match ends (external bots are sent
``result`` first), when the table leaves memory, and at shutdown. Closing an
external bot ends and reaps its program and may take a second, so it runs in
the hub's closer threads, never on the event loop.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import logging
import random
import secrets
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from marjolet.actions import ACTION_NAMES
from marjolet.bots import make_bot
from marjolet.bots.base import Bot, BotFault
from marjolet.bots.catalogue import starts_program
from marjolet.bots.hint import hint as advise
from marjolet.engine import Deal, Outcome
from marjolet.errors import MarjoletError, TurnError
from marjolet.match import Match
from marjolet.turns import Move, Turn, TurnDriver
from marjolet.web import views
from marjolet.web.errors import WebError, from_turn, storage_failure
from marjolet.web.presence import move_deadline
from marjolet.web.store import (
    ABORTED_REASON,
    RESIGNED_REASON,
    Forfeit,
    GameRow,
    Status,
    StoreConflict,
    token_hash,
)

if TYPE_CHECKING:
    from marjolet.web.hub import Hub

log = logging.getLogger("marjolet.web")

#: The reason stored with the forfeit of a person who left and did not come back.
LEFT_REASON = "left the game"
#: ... and of one who did not move in time (docs/web.md, "Slow players").
TIMEOUT_REASON = "did not move in time"
#: The catalogue text that tells each person's forfeit.
NOTICE_KEYS = {
    LEFT_REASON: "notice.claimed",
    TIMEOUT_REASON: "notice.timed_out",
    RESIGNED_REASON: "notice.resigned",
    ABORTED_REASON: "notice.aborted",
}
#: Refusals of a change the store could not save, or of a database that does
#: not answer (the bot loop retries them).
SAVE_FAILURES = frozenset({"storage", "disk_full", "database_down"})

#: In a watched match, the pause before the next deal (to read the summary),
#: in bot paces.
SUMMARY_PACES = 4


class Peer(Protocol):
    """A connection to one browser (a seat, or a spectator when ``seat`` is None)."""

    seat: int | None

    def send(self, text: str) -> None:
        """Queue a message; never blocks."""


class Table:
    """A game being played (see the module docstring)."""

    def __init__(self, hub: Hub, game: GameRow, match: Match) -> None:
        self.hub = hub
        self.ledger = hub.ledger
        self.game = game
        self.match = match
        self.driver = TurnDriver(match, forfeit=_forfeit_outcome(game))
        self.lock = asyncio.Lock()
        self.peers: set[Peer] = set()
        self.bots: dict[int, Bot] = {} if self.over else self._build_bots()
        self._bot_task: asyncio.Task[None] | None = None
        self._steps: views.StepLog | None = None
        self.closed = False
        #: A failed write left the match in memory ahead of the database, and
        #: the database could not be read back: rebuild it at the next sync.
        self._must_reload = False
        self._bots_retired = False
        #: The last hint given, by (seat, position version): asked again at
        #: the same position, a player gets the same advice and figure (a
        #: search under a time budget would answer "29 points", then "28").
        self._last_hint: tuple[tuple[int, int], dict[str, Any]] | None = None
        #: When the last connection left (a watched match pauses after a while).
        self.unwatched_since = time.monotonic()
        #: The seats' accounts (``{"name", "rating", "provisional"}``) of a
        #: lobby game, whether it is rated, and its days per move (None:
        #: live); set by the online service when the table opens.
        self.accounts: list[dict[str, Any] | None] = [None, None]
        #: The ids of those accounts: whose lobby sockets hear of a change.
        self.account_ids: frozenset[int] = frozenset()
        #: Seats connected to another server process (web/beacons.py).
        self.elsewhere: set[int] = set()
        #: With several processes: the stored deadline (epoch seconds) of
        #: each away seat's countdown, as last read (web/countdowns.py).
        self.clocks: dict[int, float] = {}
        #: A lobby game of an account: anyone may watch it (hands hidden).
        self.public = False
        #: Two players paired by the lobby or "Play now" (accounts or guests):
        #: its players have no invite link to pass on, so no rematch table.
        self.paired = False
        self.rated = False
        self.days_per_move: int | None = None
        #: Whose share of the bot pool this table's bots use: the address
        #: that created the game (kept by the hub while the table leaves
        #: memory and comes back), else the first seated connection's, else
        #: the game's own.
        self.owner = hub.owners.get(game.id, f"game:{game.id}")

    def _build_bots(self) -> dict[int, Bot]:
        """The bots of the seats, from the specs stored with the game. A bot
        that runs a program is built only if the operator still allows that
        very spec (``--allow-bot``) on this server; building starts nothing."""
        bots: dict[int, Bot] = {}
        for seat, info in enumerate(self.game.seats):
            if info.kind != "bot":
                continue
            if starts_program(info.spec) and not self.hub.catalogue.allows(info.spec):
                raise WebError(
                    "bot_unavailable",
                    f"the bot {info.bot!r} of this game runs a program that this server "
                    "does not allow now (the operator's --allow-bot list)",
                    key="error.bot_not_allowed",
                    params={"bot": info.bot},
                )
            try:
                bots[seat] = make_bot(info.spec, seed=info.seed + seat)
            except MarjoletError as exc:
                raise WebError(
                    "bot_unavailable",
                    f"the bot {info.bot!r} of this game is not available: {exc}",
                    params={"bot": info.bot},
                ) from None
        return bots

    # -- who is who -----------------------------------------------------------------

    @property
    def id(self) -> str:
        return self.game.id

    @property
    def has_humans(self) -> bool:
        return any(info.kind == "human" for info in self.game.seats)

    def seat_of(self, token: str) -> int | None:
        """The seat whose secret token this is (compared in constant time)."""
        digest = token_hash(token)
        found = None
        for seat, stored in enumerate(self.game.token_hashes):
            if stored is not None and hmac.compare_digest(stored, digest):
                found = seat
        return found

    @property
    def version(self) -> int:
        """The driver's version: what a browser quotes with its move."""
        return self.driver.version

    @property
    def over(self) -> bool:
        """The match was played to its end, or a bot forfeited it."""
        return self.driver.is_over

    def status(self) -> Status:
        if self.over:
            return "finished"
        if self.game.invite_hash is not None:
            return "waiting"
        return "playing"

    # -- connections ------------------------------------------------------------------

    async def attach(self, peer: Peer) -> bool:
        """Seat a connection and send it the position. Under the lock: a
        move being stored is applied to the match already, and nobody may
        see it before it is saved. False if the table left memory while the
        connection waited (the caller seats it at the table loaded anew)."""
        async with self.lock:
            if self.closed:
                return False
            self.peers.add(peer)  # before any wait: a table with a peer stays in memory
            await self.sync()
            self._arrived(peer.seat)
            await self._ask_elsewhere()
            peer.send(json.dumps(self._welcome(peer.seat)))
            peer.send(self._state_text(peer.seat, {}))
            self._announce_presence()
        return True

    def detach(self, peer: Peer) -> None:
        if peer in self.peers and peer.seat is not None and self._two_people:
            self.hub.presence.disconnected(self.id, peer.seat)
        was_here = peer in self.peers
        self.peers.discard(peer)
        if was_here and peer.seat is not None and peer.seat not in self.local_seats():
            self.hub.seat_left(self.id, peer.seat)
        if not self.peers:
            self.unwatched_since = time.monotonic()
        self._announce_presence()
        self.hub.release(self)

    def idle(self) -> bool:
        """No connection and no bot at work: the table may leave memory (its
        game is in the database and is loaded again when someone comes)."""
        if self.peers:
            return False
        task = self._bot_task
        return task is None or task.done() or task is asyncio.current_task()

    def _connected_seats(self) -> list[bool]:
        out = [info.kind == "bot" for info in self.game.seats]
        for seat in self.local_seats() | self.elsewhere:
            out[seat] = True
        return out

    def local_seats(self) -> set[int]:
        """The seats with a connection to this process."""
        return {peer.seat for peer in self.peers if peer.seat is not None}

    @property
    def watches_presence(self) -> bool:
        """A live two-person game: who is here matters (the away clock)."""
        return self._two_people and self.days_per_move is None

    async def _ask_elsewhere(self) -> None:
        """With several processes: learn at once which seats another one
        holds (else the sweep tells within ``sync_interval``)."""
        if not self.hub.shared or not self.watches_presence:
            return
        others = {0, 1} - self.local_seats()
        try:
            there = {s for s in others if await self.hub.beacons.elsewhere(self.id, s)}
        except Exception as exc:
            log.warning("game %s: the seats' beacons failed: %s", self.id, exc)
            return
        for seat in there:
            self.hub.presence.seen_elsewhere(self.id, seat)
        self.elsewhere = there
        await self.keep_clocks(announce=False)

    async def keep_clocks(self, *, announce: bool = True) -> None:
        """With several processes, at each sweep: the countdown of each away
        seat is the one stored in the database (started here if none is,
        renewed if this process owns it, taken over if its owner died:
        web/countdowns.py); a seat that is here again has none. Tells the
        connections when a deadline changed. Only a process that shows the
        game to someone holds a countdown: one whose last connection closed
        during its sweep leaves it to the processes still showing the game
        (else it would start one it never renews, and the others could take
        it over only once its lease ran out)."""
        if not self.hub.shared:
            return
        here = self.local_seats() | self.elsewhere
        before = dict(self.clocks)
        try:
            for seat in (0, 1):
                if self.watches_presence and seat not in here:
                    if self.peers:  # (an away seat's countdown is never stopped here)
                        await self._hold_clock(seat)
                elif self.clocks.pop(seat, None) is not None:
                    await asyncio.to_thread(self.hub.countdowns.stop, self.id, seat)
        except Exception as exc:  # the database away: the next sweep tries again
            log.warning("game %s: the countdowns could not be kept: %s", self.id, exc)
        if announce and self.clocks != before:
            self._announce_presence()

    async def _hold_clock(self, seat: int) -> None:
        """Learn (or start) the stored deadline of an away seat."""
        left = self.hub.presence.away_left(self.id, seat)
        if left is None:  # not away as this process counts (yet)
            return
        mine = time.time() + left
        deadline = await asyncio.to_thread(self.hub.countdowns.hold, self.id, seat, mine)
        if deadline is None:
            self.clocks.pop(seat, None)
        else:
            self.clocks[seat] = deadline

    def held_elsewhere(self, seats: set[int]) -> None:
        """Another server process holds connections of ``seats``: they are
        not away, and their away clocks start again (web/beacons.py)."""
        for seat in seats:
            self.hub.presence.seen_elsewhere(self.id, seat)
        if seats != self.elsewhere:
            self.elsewhere = seats
            self._announce_presence()

    @property
    def _two_people(self) -> bool:
        """Two persons play here, both seated, and the match goes on: the
        only tables where leaving starts a clock."""
        return self._people_only and self.game.invite_hash is None and not self.over

    @property
    def _people_only(self) -> bool:
        """Both seats are persons' (no bot)."""
        return all(info.kind == "human" for info in self.game.seats)

    def _arrived(self, seat: int | None) -> None:
        """A seat's connection opened: it is back; a seat nobody opened
        since the table was loaded starts its away clock now."""
        if seat is None:
            return
        self.hub.seat_arrived(self.id, seat)
        if not self._two_people:
            return
        presence = self.hub.presence
        presence.track(self.id, self.days_per_move)
        presence.connected(self.id, seat)
        presence.absent(self.id, 1 - seat)
        if self.hub.shared and self.days_per_move is None:  # back: its countdown ends
            self.clocks.pop(seat, None)
            self.hub.spawn(self.hub.stop_countdowns(self.id, (seat,)))

    def away(self) -> list[float | None]:
        """Per seat: seconds before the other player may claim the match
        (0: they may now), or None while the seat is here."""
        if not self._two_people or self.days_per_move is not None:
            return [None, None]  # correspondence: the deadline counts, not presence
        left = [self._away_left(seat) for seat in (0, 1)]
        return [None if v is None else round(v, 1) for v in left]

    def _away_left(self, seat: int) -> float | None:
        """Seconds before ``seat``'s opponent may claim (None: it is here):
        from the stored deadline when several processes share the game,
        else (or before it is read) from this process's own clock."""
        if seat in self.elsewhere or seat in self.local_seats():
            return None
        deadline = self.clocks.get(seat)
        if deadline is not None:
            return max(0.0, deadline - time.time())
        return self.hub.presence.away_left(self.id, seat)

    def _announce_presence(self) -> None:
        text = json.dumps(
            {"type": "presence", "connected": self._connected_seats(), "away": self.away()}
        )
        for peer in list(self.peers):
            peer.send(text)

    @property
    def gives_hints(self) -> bool:
        """Whether a seat may ask the bots for advice: against a bot and
        between friends, yes; never in a rated game (a rating measures the
        player alone), nor against a stranger found online, who expects to
        play a person alone, rated or not."""
        return not self.rated and not (self.paired and self._people_only)

    def _welcome(self, seat: int | None) -> dict[str, Any]:
        game = self.game
        return {
            "type": "welcome",
            "game": game.id,
            "mode": game.mode,
            "seat": seat,
            "players": list(game.players),
            "seats": [
                {"kind": info.kind, "bot": info.bot} if info.kind == "bot" else {"kind": "human"}
                for info in game.seats
            ],
            "rules": self.match.rules.to_json(),
            "accounts": self.accounts,
            "rated": self.rated,
            "days_per_move": self.days_per_move,
            "paired": self.paired,
            "hints": self.gives_hints,
        }

    # -- pictures --------------------------------------------------------------------

    def _current_steps(self) -> list[views.Step]:
        deal = self.match.deal
        if deal is None:
            return []
        if self._steps is None:
            self._steps = views.StepLog(deal)
        return self._steps.update(deal)

    def view_for(self, seat: int | None) -> views.View:
        """The picture a seat (or, for ``None``, a spectator) may see."""
        steps = self._current_steps()
        if seat is None and self.has_humans:  # a lobby game's spectator: no hidden card
            return views.public_view(self.match, steps)
        if seat is None:
            return views.open_view(self.match, steps)
        return views.seat_view(self.match, seat, steps)

    def _state_text(self, seat: int | None, extra: dict[str, Any]) -> str:
        view = self.view_for(seat)
        view["type"] = "state"
        view["version"] = self.version
        view["status"] = self.status()
        view["connected"] = self._connected_seats()
        # when the player to move runs out of time (epoch seconds)
        view["deadline"] = self.move_deadline()
        # who has made a move of their own yet: before it, a claim cancels the game
        view["moved"] = list(seats_moved(self.match))
        forfeit = self.game.forfeit
        view["forfeit"] = forfeit.to_json() if forfeit is not None else None
        if forfeit is not None:  # the match ended here, whatever the cards say
            view["match_over"] = True
            view["winner"] = forfeit.winner
            view["legal"] = []
            view["blocked"], view["must_play"] = {}, []
            view["duty"] = None
        view.update(extra)
        return json.dumps(view)

    def tell_all(self, message: dict[str, Any]) -> None:
        """Send every connection of this process the same message."""
        text = json.dumps(message)
        for peer in list(self.peers):
            peer.send(text)

    def broadcast(self, extra: dict[str, Any] | None = None) -> None:
        """Send every connection its own picture of the new position."""
        cache: dict[int | None, str] = {}
        for peer in list(self.peers):
            if peer.seat not in cache:
                cache[peer.seat] = self._state_text(peer.seat, extra or {})
            peer.send(cache[peer.seat])

    # -- playing ------------------------------------------------------------------------

    async def invite_status(self, invite: str) -> dict[str, str]:
        """What an invite link leads to, before its holder is asked a name:
        ``open`` (seat 1 is theirs to take), ``used`` or ``bad`` (not this
        game's code), and the name of the player who sent it."""
        async with self.lock:
            await self.sync()
            game = self.game
            if game.mode != "friend":  # never had an invite link
                status = "bad"
            elif game.invite_hash is None:
                status = "used"
            elif hmac.compare_digest(game.invite_hash, token_hash(invite)):
                status = "open"
            else:
                status = "bad"
            return {"status": status, "host": game.players[0]}

    async def join(self, invite: str, name: str) -> tuple[int, str]:
        """Give seat 1 of a friend game to the holder of its invite code;
        returns the seat and its new secret token (shown only once)."""
        async with self.lock:
            game = self.game
            if game.mode != "friend":  # never had an invite link
                raise WebError("bad_invite", "this invite link is not valid")
            if game.invite_hash is None:
                raise WebError("invite_used", "this invite link was already used")
            token = secrets.token_urlsafe(24)
            now = time.time()  # one stamp for the database and this table
            claimed = await self.ledger.claim_invite(
                self.id, token_hash(invite), 1, token_hash(token), name, updated=now
            )
            if not claimed:
                await self.sync()
                raise WebError("bad_invite", "this invite link is not valid")
            game.version += 1
            game.updated = now  # the move clock starts when both are seated
            game.invite_hash = None
            game.token_hashes = (game.token_hashes[0], token_hash(token))
            game.players = (game.players[0], name)
            if self.match.players is not None:
                self.match.players = game.players
            game.status = "playing"
            self.broadcast()
            self.hub.changed(self)
        return 1, token

    async def act(self, seat: int, action: int, version: int) -> None:
        """A person's move, checked here once (the edge): refused with a
        :class:`~marjolet.web.errors.WebError` unless it is that seat's
        turn, in the position the person saw, and legal."""
        async with self.lock:
            await self.sync()
            self._check_open()
            if self.game.invite_hash is not None:
                raise WebError("waiting", "your opponent has not joined yet: share the invite link")
            if version != self.version:  # sent for a position that is gone: stale,
                # whoever is to move now (a double click, or the same move taken
                # by another process a moment before)
                raise from_turn(TurnError("stale", code="stale"), version, self.version)
            try:
                move = self.driver.check(action, version, seat)
            except TurnError as refused:
                raise from_turn(refused, version, self.version) from None
            await self._commit(move)
        self.kick()

    async def next_deal(self, version: int) -> None:
        """Start the next deal (a person asks once the summary is read)."""
        async with self.lock:
            await self.sync()
            self._check_open()
            if not self.driver.needs_deal or version != self.version:
                return  # someone else already started it: harmless
            await self._start_deal()
        self.kick()

    def _check_open(self) -> None:
        if self.closed:
            raise WebError("closed", "this table is closing; reconnect in a moment")
        forfeit = self.game.forfeit
        if forfeit is not None and forfeit.aborted:
            raise WebError("match_over", "the game was cancelled", key="error.match_aborted")
        if forfeit is not None:
            name = self.game.players[forfeit.seat]
            raise WebError(
                "match_over",
                f"the match is over: {name} forfeited it",
                key="error.match_forfeited",
                params={"name": name},
            )
        if self.match.is_over:
            raise WebError("match_over", "the match is over")

    async def _commit(self, move: Move) -> None:
        """Apply, store and announce a checked move. Caller holds the lock.

        The move is applied first so that the stored summary (totals,
        winner) is the match's own; nobody sees the new position before the
        transaction commits, and if it fails the table is rebuilt from the
        database, where the move is not.
        """
        match = self.match
        deal = match.deal
        assert deal is not None
        index, seq = match.deal_index, len(deal.moves)
        self.driver.push(move)  # checked at the edge: applied unchecked
        action = move.action
        now = time.time()  # one stamp for the database and this table
        try:
            stored = await self.ledger.append_action(
                self.id,
                index,
                seq,
                action,
                totals=match.running_totals,
                status=self.status(),
                winner=match.winner,
                expected=self.game.version,
                updated=now,
            )
        except StoreConflict:  # another process stored a change first
            sent = move.version
            await self._reload()
            self.broadcast()
            raise from_turn(TurnError("stale", code="stale"), sent, self.version) from None
        except Exception as exc:
            log.error("game %s: could not store %s: %s", self.id, ACTION_NAMES[action], exc)
            await self._reload_after_failure()
            raise storage_failure(exc) from None
        self.game.updated = now  # the move clock restarts (move_deadline)
        self.game.version = stored
        self.hub.changed(self)
        self.broadcast({"last_action": {"player": move.seat, "action": ACTION_NAMES[action]}})
        if match.is_over:
            winner = match.winner
            assert winner is not None
            self.retire_bots((match.totals, winner))
            self.hub.finished(self)

    async def _forfeit(self, seat: int, fault: BotFault) -> None:
        """The bot of ``seat`` broke down: it loses the match. Stored as a
        finished game before anyone is told (caller holds the lock)."""
        forfeit = Forfeit.trimmed(seat, self.game.seats[seat].bot, str(fault), fault.stderr_tail)
        totals = self.match.running_totals
        if not await self._store_forfeit(forfeit, "forfeit", key="error.storage_forfeit"):
            # another process ended the game (or moved on) first
            await self._reload()
            self.broadcast()
            return
        game = self.game
        game.version += 1
        self.hub.changed(self)
        game.forfeit, game.status, game.winner, game.totals = forfeit, "finished", 1 - seat, totals
        message = forfeit.message(game.players)
        self.driver.forfeit(seat, message)
        log.warning("game %s: %s", self.id, message)
        if forfeit.stderr:
            tail = "\n  ".join(forfeit.stderr)
            log.warning("game %s: its standard error ends:\n  %s", self.id, tail)
        self._notice(
            message,
            key="notice.forfeit",
            params={
                "name": game.players[seat],
                "reason": forfeit.reason,
                "winner": game.players[1 - seat],
            },
            forfeit=forfeit.to_json(),
        )
        self.broadcast()
        self.retire_bots((totals, 1 - seat))
        self.hub.finished(self)

    async def claim(self, seat: int) -> None:
        """``seat`` claims the match: its opponent left a two-person game
        and did not come back within the grace (web/presence.py). Stored
        as a forfeit of the absent seat (the claimant wins; a rated game
        is rated like any other end)."""
        async with self.lock:
            await self.sync()
            self._check_open()
            other = 1 - seat
            if self.hub.shared and self.days_per_move is None:  # ask afresh
                try:
                    there = await self.hub.beacons.elsewhere(self.id, other)
                except Exception as exc:  # no word from the other processes
                    log.warning("game %s: the seats' beacons failed: %s", self.id, exc)
                    raise WebError("storage", "the server cannot tell now: try again") from None
                self.held_elsewhere({other} if there else set())
                await self.keep_clocks()  # the stored deadline, read afresh
            reason = self._claim_reason(seat) if self._two_people else None
            if reason is None:
                # another process may have ended the game meanwhile (its end
                # deletes the countdown read just now): that is the answer
                await self.sync()
                self._check_open()
                raise WebError("cannot_claim", "your opponent is here or may still come back: wait")
            ending = self._ending(other, reason)
            await self._person_forfeit(ending, "claim")
            said = f"seat {other} {ending.reason}"
            log.info("game %s: seat %d claimed the match (%s)", self.id, seat, said)
        self.hub.finished(self)

    async def end_abandoned(self, after: float) -> bool:
        """End the match as lost on time by the person to move once its
        abandonment deadline (:meth:`_abandon_deadline`) is past and nobody
        claimed it (both players gone): True if it did. Between deals,
        where nobody is to move, the server starts the next deal itself
        once ``after`` seconds have passed, and its mover's clock runs from
        there. Stored first, like a claim; another process ending or moving
        the game first makes this a no-op."""
        async with self.lock:
            await self.sync()
            if self.over or self.closed or self.game.forfeit is not None:
                return False
            deadline, mover = self._abandon_deadline(), self.driver.to_move
            if deadline is None or time.time() < deadline + after:
                return False
            if mover is None:  # between deals, left on the summary
                await self._start_deal()
                return False
            ending = self._ending(mover, TIMEOUT_REASON)
            try:
                await self._person_forfeit(ending, "claim")
            except WebError as exc:  # moved or ended elsewhere meanwhile
                log.info("game %s: not ended as abandoned: %s", self.id, exc)
                return False
            log.info("game %s: abandoned; seat %d %s", self.id, mover, ending.reason)
        self.hub.finished(self)
        return True

    def _abandon_deadline(self) -> float | None:
        """When the game counts as left, before ``abandon_after``: the
        mover's deadline, a correspondence game's too counted from no
        earlier than this server process (players cannot move while the
        server is down); between deals, the end of the deal. None where
        no clock runs (no limit, not two people)."""
        if self.over or not self._two_people:
            return None
        since = max(self.game.updated, self.hub.started)
        if self.driver.to_move is None:
            return since if self.driver.needs_deal else None
        if self.days_per_move is not None:
            return move_deadline(since, self.days_per_move)
        return self.move_deadline()

    def _ending(self, seat: int, reason: str) -> Forfeit:
        """How a claim or an abandonment ends the game against ``seat``:
        lost for ``reason``, or *aborted* when ``seat`` never made a move of
        its own in the match (it never took part: no result, never rated,
        as lichess aborts a game before both players moved)."""
        if not seats_moved(self.match)[seat]:
            return Forfeit(seat, "", ABORTED_REASON)
        return Forfeit(seat, "", reason)

    async def resign(self, seat: int) -> None:
        """``seat`` gives the match up: stored as its forfeit (the other seat
        wins; a rated game is rated like any other end)."""
        async with self.lock:
            await self.sync()
            self._check_open()
            await self._person_forfeit(Forfeit(seat, "", RESIGNED_REASON), "resign")
            log.info("game %s: seat %d resigned", self.id, seat)
        self.hub.finished(self)

    async def _store_forfeit(self, forfeit: Forfeit, what: str, key: str = "") -> bool:
        """Store ``forfeit`` as the end of the game, before anyone is told
        (the caller holds the lock); False if another process ended the
        game, or stored a move, first. A storage failure reloads the table
        and refuses with ``storage`` (``key``: its catalogue text)."""
        try:
            return await self.ledger.forfeit(
                self.id, forfeit, totals=self.match.running_totals, expected=self.game.version
            )
        except Exception as exc:
            log.error("game %s: could not store the %s: %s", self.id, what, exc)
            await self._reload_after_failure()
            raise storage_failure(exc, f"the {what}", key=key) from None

    async def _person_forfeit(self, forfeit: Forfeit, what: str) -> None:
        """End the match as lost by ``forfeit.seat``, a person who left
        (``what`` is ``claim``) or resigned (``resign``): stored first, then
        told (the caller holds the lock)."""
        totals = self.match.running_totals
        if not await self._store_forfeit(forfeit, what):
            # another process ended the game, or stored a move, first
            await self._reload()
            self.broadcast()
            self._check_open()
            raise WebError(f"cannot_{what}", "the game moved on meanwhile: look again")
        game = self.game
        game.version += 1
        self.hub.changed(self)
        game.forfeit, game.status, game.winner, game.totals = (
            forfeit, "finished", forfeit.winner, totals
        )
        if forfeit.winner is None:
            self._told_aborted(forfeit.seat)
            return
        loser, winner = game.players[forfeit.seat], game.players[forfeit.winner]
        said = f"{loser} {forfeit.reason}; {winner} wins"
        self.driver.forfeit(forfeit.seat, said)
        self._notice(
            said,
            key=NOTICE_KEYS[forfeit.reason],
            params={"name": loser, "winner": winner, "seat": forfeit.seat},
        )
        self.broadcast()
        self.retire_bots((totals, forfeit.winner))  # resigned against a bot: it hears the end

    def _told_aborted(self, seat: int) -> None:
        """The game was aborted (``seat`` never moved): every page hears it
        has no result (the caller stored it and holds the lock)."""
        name = self.game.players[seat]
        said = f"the game is cancelled: {name} never made a move; no result"
        self.driver.abort(said)
        self._notice(said, key=NOTICE_KEYS[ABORTED_REASON], params={"name": name, "seat": seat})
        self.broadcast()
        self.retire_bots()

    def move_deadline(self) -> float | None:
        """When the person to move runs out of time (epoch seconds): days
        per move in a correspondence game, ``move_limit`` in a live one
        between two people; None otherwise (no limit, nobody to move: the
        game is over, or between deals). The clock restarts with every
        stored move, deal and join; a live game's clock starts no earlier
        than this server process (after a restart nobody is late at once;
        a table loaded again, a page reconnecting, changes nothing). The
        first move of a deal after the first has twice the live limit: the
        player to move may still be reading the last deal's summary when
        the other started this one."""
        if self.over or not self._two_people or self.driver.to_move is None:
            return None
        if self.days_per_move is not None:
            return move_deadline(self.game.updated, self.days_per_move)
        limit = self.hub.config.move_limit
        if limit <= 0:
            return None
        deal = self.match.deal
        if self.match.deal_index > 0 and deal is not None and not deal.moves:
            limit *= 2
        return max(self.game.updated, self.hub.started) + limit

    def _claim_reason(self, seat: int) -> str | None:
        """Why ``seat`` may claim the match, or None: the other seat is to
        move and out of time (:meth:`move_deadline`), or, in a live game, it
        left and its grace ran out (being away is no fault in a
        correspondence game)."""
        deadline = self.move_deadline()
        their_move = self.driver.to_move == 1 - seat
        if their_move and deadline is not None and time.time() > deadline:
            return TIMEOUT_REASON
        if self.days_per_move is not None:
            return None
        if self.hub.shared:  # the stored deadline, for every process
            left = self._away_left(1 - seat)
            gone = (1 - seat) in self.clocks and left is not None and left <= 0.0
        else:
            here = (1 - seat) in self.elsewhere
            gone = not here and self.hub.presence.may_claim(self.id, seat)
        return LEFT_REASON if gone else None

    async def _reload(self) -> None:
        """Rebuild the match from the database (after a failed write, or a
        change that another process stored)."""
        game = await self.ledger.load(self.id)
        if game is None:
            self.closed = True
            return
        self.game = game
        self.match = self.hub.match_of(game)
        self.driver = TurnDriver(self.match, forfeit=_forfeit_outcome(game))
        self._steps = None

    async def _reload_after_failure(self) -> None:
        """After a failed write: rebuild the match from the database; if
        that cannot be read either (a database server gone), at the next
        :meth:`sync` instead (the failure is the caller's to report)."""
        try:
            await self._reload()
            self._must_reload = False
        except Exception as exc:
            log.warning("game %s: cannot read it back now (%s); later", self.id, exc)
            self._must_reload = True

    async def sync(self) -> bool:
        """Catch up with the database of record (caller holds the lock):
        when other processes may write this game and its stored version is
        not the one in memory, rebuild the game from the database and show
        every connection the new position. True if it changed."""
        if self._must_reload and not self.closed:
            await self._reload()  # raises again while the database is gone
            self._must_reload = False
            self.broadcast()
            return True
        if not self.ledger.shared or self.closed:
            return False
        stored = await self.ledger.version_of(self.id)
        if stored is None or stored == self.game.version:
            return False
        was_over = self.over
        await self._reload()
        log.debug("game %s: caught up to version %d", self.id, self.game.version)
        self.broadcast()
        if self.over and not was_over:  # ended on another process: run the hooks here
            self.retire_bots()  # too, so that these pages hear the new ratings
            self.hub.finished(self)
        return True

    async def refresh(self, version: int) -> None:
        """The bus said the game is at ``version``: catch up if behind."""
        if self.closed or version <= self.game.version:
            return
        async with self.lock:
            await self.sync()
        self.kick()

    async def _start_deal(self) -> None:
        """Shuffle, store and start the next deal. Caller holds the lock."""
        index = len(self.match.deals)
        deck = self.hub.new_deck(index)
        now = time.time()
        try:
            stored = await self.ledger.add_deal(
                self.id, index, deck, status=self.status(), expected=self.game.version, updated=now
            )
        except StoreConflict:  # another process started it (or moved on) first
            await self._reload()
            self.broadcast()
            return
        except Exception as exc:
            log.error("game %s: could not store deal %d: %s", self.id, index + 1, exc)
            raise storage_failure(exc, "the next deal") from None
        self.game.updated = now  # as stored: the clock restarts with the deal
        self.game.version = stored
        self.hub.changed(self)
        self.driver.start_deal(deck)
        self.broadcast()

    # -- bots -----------------------------------------------------------------------------

    def kick(self) -> None:
        """Let a bot play if one is to move (one bot task per table at most)."""
        if self.closed or not self.bots or self.over:
            return
        if self._bot_task is not None and not self._bot_task.done():
            return
        if self._bot_turn() is None and not (self.driver.needs_deal and not self.has_humans):
            return
        self._bot_task = asyncio.get_running_loop().create_task(self._bot_loop())

    @property
    def bot_job(self) -> str:
        """The lease name of this game's bots (one process plays them)."""
        return f"bot:{self.id}"

    def _bot_turn(self) -> Turn | None:
        turn = self.driver.turn()
        return turn if turn is not None and turn.seat in self.bots else None

    @property
    def pace(self) -> float:
        return self.hub.config.bot_delay if self.has_humans else self.hub.config.watch_delay

    async def _bot_loop(self) -> None:
        """Play the bots' turns (and a watched match's next deals) until a
        person is to act, the match ends, the table closes or nobody watches.
        A bot's move (or a deal) the store cannot save is not lost and the
        bot is not stuck: the players are told, and it is tried again every
        ``save_retry`` seconds until it is saved (the disk has space again)."""
        failing = False
        try:
            while not self.closed:
                if self.paused():
                    log.info("game %s paused: nobody watches it", self.id)
                    await self.hub.give_back(self.bot_job)
                    return
                try:
                    more = await self._bot_step()
                except WebError as exc:
                    if exc.code == "stale":  # another process moved first: look again
                        continue
                    if exc.code not in SAVE_FAILURES:
                        raise
                    if not failing:
                        self._notice(exc.message, key="notice.save_failed", params={})
                    failing = True
                    await asyncio.sleep(self.hub.config.save_retry)
                    continue
                if failing:
                    failing = False
                    log.info("game %s: saving works again", self.id)
                    self._notice(
                        "the server can save again: the game goes on",
                        key="notice.save_resumed",
                        params={},
                    )
                if not more:  # a person is to act: whichever process they reach plays next
                    await self.hub.give_back(self.bot_job)
                    return
        except WebError as exc:
            log.error("game %s: a bot move failed: %s", self.id, exc)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("game %s: the bot loop stopped", self.id)
        finally:
            self.hub.release(self)

    async def _bot_step(self) -> bool:
        """One bot move, or the next deal of a watched match; ``False``
        when there is nothing more for the bots to do, or another process
        owns this table's bots (their lease: see :meth:`Hub.own`)."""
        async with self.lock:
            await self.sync()
            if self.over or (self.driver.needs_deal and self.has_humans):
                return False
            wait_deal = self.driver.needs_deal
        if not await self.hub.own(self.bot_job):  # another live process plays them
            return False
        if wait_deal:  # a watched match: a pause to read the summary
            await asyncio.sleep(self.pace * SUMMARY_PACES)
            async with self.lock:
                if not self.closed and self.driver.needs_deal:
                    await self._start_deal()
            return True
        async with self.lock:
            turn = self._bot_turn()
            if turn is None:
                return False
            bot = self.bots[turn.seat]
            self.driver.brief(bot, turn)
        started = asyncio.get_running_loop().time()
        try:
            move = await self._think(bot, turn)
        except BotFault as fault:
            async with self.lock:
                # a bot closed under a closing table breaks down too: no forfeit
                if not self.closed and self.version == turn.version and not self.over:
                    await self._forfeit(turn.seat, fault)
            return False
        rest = self.pace - (asyncio.get_running_loop().time() - started)
        if rest > 0:
            await asyncio.sleep(rest)
        async with self.lock:
            # checked in the bot thread: only the position may have moved on
            if not self.closed and self.version == move.version:
                await self._commit(move)
        return True

    def paused(self) -> bool:
        """A watched match stops when no spectator has been there for
        ``watch_pause_after`` seconds (it goes on when someone opens it)."""
        return (
            not self.has_humans
            and not self.peers
            and time.monotonic() - self.unwatched_since >= self.hub.config.watch_pause_after
        )

    async def _think(self, bot: Bot, turn: Turn) -> Move:
        """The bot's checked move, computed in the bot pool.

        :class:`BotFault` (and any failure of a bot that runs a program) is
        raised: the bot forfeits. An in-process bot that fails otherwise or
        answers an illegal action is replaced for this move by a random legal
        one, and the table is told."""
        seat = turn.seat
        try:
            return await self.hub.think(self.owner, self._choose, bot, turn)
        except BotFault as fault:
            fault.seat = seat
            raise
        except Exception as exc:
            if starts_program(bot):
                raise BotFault(f"the bot failed: {exc}", seat=seat) from exc
            log.error("game %s: bot %s failed: %s", self.id, bot.spec, exc)
        name = self.game.players[seat]
        self._notice(
            f"the {name} bot failed; a random legal move was played",
            key="notice.bot_replaced",
            params={"name": name},
        )
        return Move(seat, random.choice(list(turn.legal)), turn.version)  # legal by choice

    def _choose(self, bot: Bot, turn: Turn) -> Move:
        """The bot's answer checked against its turn's legal actions, in a
        bot thread (an illegal one raises). If the table closed meanwhile the
        bot is closed here too: a program it started while the table was
        closing must not outlive the table."""
        try:
            return turn.move(bot.choose(turn.observation, list(turn.legal)))
        finally:
            if self.closed:
                _retire([bot], None)

    def _notice(self, message: str, *, key: str, params: dict[str, Any], **extra: Any) -> None:
        """Tell every browser: the catalogue text ``key`` with ``params`` in
        its page's language, ``message`` (English) if it has no such key."""
        text = json.dumps(
            {"type": "notice", "message": message, "key": key, "params": params, **extra}
        )
        for peer in list(self.peers):
            peer.send(text)

    async def hint(self, seat: int, client: str) -> dict[str, Any]:
        """What the strongest available bot would play for ``seat`` now,
        computed from that seat's own observation only, in ``client``'s
        share of the bot pool."""
        if self.rated:  # a rating measures the player, not the player and a bot
            raise WebError("hint_rated", "a rated game has no hints: each player plays alone")
        if not self.gives_hints:
            raise WebError(
                "hint_online", "a game against a player found online has no hints: each plays alone"
            )
        async with self.lock:
            turn = self.driver.turn()
            if turn is None or turn.seat != seat:
                raise WebError(
                    "not_your_turn", "a hint is for your own turn", key="error.hint_not_your_turn"
                )
            obs, legal, version = turn.observation, list(turn.legal), turn.version
            if self._last_hint is not None and self._last_hint[0] == (seat, version):
                return self._last_hint[1]
        spec = self.hub.catalogue.hint_spec
        try:
            advice = await self.hub.extra_work(client, advise, obs, legal, spec=spec, seed=None)
        except WebError:
            raise
        except Exception as exc:
            log.error("game %s: the hint bot %s failed: %s", self.id, spec, exc)
            raise WebError("hint", "no hint is available right now") from None
        if advice.action not in legal:
            raise WebError("hint", "no hint is available right now")
        answer = {
            "type": "hint",
            "action": ACTION_NAMES[advice.action],
            "value": round(advice.value, 1),
            "exact": advice.exact,
            "forced": advice.forced,
            "version": version,
            "by": spec.split(":")[0],
        }
        self._last_hint = ((seat, version), answer)
        return answer

    def retire_bots(self, result: tuple[tuple[int, int], int] | None = None) -> None:
        """Done with this table's bots (once): tell external bots the
        ``result`` (totals, winner) when the match ended, then close them,
        in the hub's closer threads (closing may wait for a program)."""
        if self._bots_retired or not self.bots:
            return
        self._bots_retired = True
        self.hub.in_closer(_retire, list(self.bots.values()), result)

    def unload(self) -> None:
        """The table leaves memory (its game stays in the database)."""
        self.closed = True
        self.retire_bots()

    async def close(self) -> None:
        """Server shutdown: stop the bot task and retire the bots (a bot in
        the middle of a move is closed under it; that is no forfeit)."""
        self.closed = True
        task = self._bot_task
        self.retire_bots()
        if task is not None and not task.done():
            task.cancel()
            try:
                await task
            except (asyncio.CancelledError, Exception):
                pass


def _retire(bots: Sequence[Bot], result: tuple[tuple[int, int], int] | None) -> None:
    """Run in a closer thread: ``result`` to the bots that take it, then
    close every bot (an external one: ``quit``, kill, reap). A bot that fails
    here is logged and does not stop the others."""
    for bot in bots:
        try:
            if result is not None:
                bot.end_match(*result)
            bot.close()
        except Exception:
            log.exception("closing bot %s failed", bot.spec)


DeckSource = Callable[[int], Sequence[int]]


def _forfeit_outcome(game: GameRow) -> Outcome | None:
    """The driver's outcome of a game stored as forfeited (or aborted), if it was."""
    forfeit = game.forfeit
    if forfeit is None:
        return None
    if forfeit.aborted:
        return Outcome("aborted", None, game.totals, forfeit.reason)
    return Outcome("forfeit", forfeit.winner, game.totals, forfeit.message(game.players))


def seats_moved(match: Match) -> tuple[bool, bool]:
    """Whether each seat has made a move of its own in the match (a card,
    an exchange, a declaration: any action of its record). Starting a deal
    is nobody's move. The elder's first move is the first lead; the dealer's
    comes only once the elder led. Replays the deals from their decks until
    both seats are seen, so in practice two moves at most."""
    moved = [False, False]
    for deal in match.deals:
        if deal.deck is None:
            continue
        replay = Deal(deal.deck, deal.dealer, deal.rules)
        for action in deal.moves:
            moved[replay.to_move] = True
            if moved[0] and moved[1]:
                return (True, True)
            replay.push(action)
    return (moved[0], moved[1])
