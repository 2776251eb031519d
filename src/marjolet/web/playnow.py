""""Play now" among any number of server processes: the queue in the database.

Each waiting player is a row of ``play_now`` (revisions 0007, 0008), so a player
may join on one process and ask on another (no sticky sessions). The
player's place is a secret key; the server keeps only its SHA-256, and the
hash of the seat token the player will be given, derived from the key
(:func:`~marjolet.web.lobby.seat_token`), so that whichever process makes
the game, any process shown the key hands the player their seat.

Every poll of the place (``GET /api/play-now/KEY``) and every ``wait``
message on a lobby socket is the player's sign of life: a place without
one for ``play_now_timeout`` seconds (the tab was closed, the player's
connection died) is given up and never paired, so nobody is paired into a
game that nobody plays. Two places of one account or one browser are
never paired together.

The pairing is a job with one owner (the ``pairing`` lease,
:mod:`marjolet.web.leases`): each round its owner reads the live places,
chooses pairs with :class:`~marjolet.web.lobby.Pairing`, and *claims* each
pair in one transaction (both places still free, or neither is taken) with
the id of the game it is about to make and the seats of the accounts in
``game_players``; then it makes the game under that id. A place is matched
once its game exists. If the owner dies between claim and game, the next
owner finds the claim of a game that was never made and frees the places
again: a player is paired once, into one game.
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
import time
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass
from typing import Any, TypeGuard

from sqlalchemy import Connection, Engine, delete, exists, func, insert, select, update

from marjolet.bots.catalogue import BotChoice
from marjolet.bots.levels import level
from marjolet.rules import Rules
from marjolet.web.accounts import token_digest
from marjolet.web.db import game_players, games, play_now, reader
from marjolet.web.hub import Hub
from marjolet.web.levels import level_choice
from marjolet.web.lobby import Pairing, Seeker, Waiting, seat_token
from marjolet.web.schemas import OPAQUE_ID

log = logging.getLogger("marjolet.web")

#: The level of the computer opponent a player gets when nobody answered.
COMPUTER_LEVEL = "expert"
#: The lease of the pairing rounds.
PAIRING_JOB = "pairing"
#: A matched place is forgotten this long after its game was made.
KEEP_MATCHED_S = 600.0
#: Seconds between two heartbeats written for one place (polls in between
#: change nothing: no write per poll), at most a quarter of the time-out.
HEARTBEAT_EVERY = 1.0


def well_formed_key(key: object) -> TypeGuard[str]:
    """Whether ``key`` may be the key of a place (``secrets.token_urlsafe``)."""
    return isinstance(key, str) and OPAQUE_ID.fullmatch(key) is not None


def place_seat_token(key: str) -> str:
    """The seat token of the player holding place ``key``."""
    return seat_token(key, "play-now")


@dataclass(frozen=True, slots=True)
class Place:
    """Where one place stands: still waiting, or its game and seat."""

    game_id: str | None
    seat: int | None


def answer(key: str, place: Place | None) -> dict[str, Any] | None:
    """What a player is told of their place: waiting, or matched with the
    seat (its token derived from the key); None: no such place."""
    if place is None:
        return None
    if place.game_id is None or place.seat is None:
        return {"status": "waiting", "game": None}
    game = {
        "id": place.game_id,
        "seat": place.seat,
        "token": place_seat_token(key),
        "url": f"/game/{place.game_id}",
    }
    return {"status": "matched", "game": game}


class _Gone(Exception):
    """A place left the queue (or was taken) since the round read it."""


class PlayNowQueue:
    """The ``play_now`` rows (blocking calls: run them in a worker thread)."""

    def __init__(
        self, engine: Engine, *, timeout: float, reclaim_after: float, clock: Callable[[], float]
    ) -> None:
        self.engine = engine
        self.reader = reader(engine)
        self.timeout = timeout
        self.heartbeat_every = min(HEARTBEAT_EVERY, timeout / 4)
        self.reclaim_after = reclaim_after
        self.clock = clock

    def join(
        self,
        seeker: Seeker,
        rating: float,
        rules: str,
        rated: bool,
        bot_after: float | None,
        browser: str | None = None,
    ) -> str:
        """Queue a player (from ``browser``, if told); the secret key of their place."""
        key = secrets.token_urlsafe(18)
        now = self.clock()
        with self.engine.begin() as db:
            db.execute(
                insert(play_now).values(
                    key_hash=token_digest(key),
                    created=now,
                    seen=now,
                    name=seeker.name,
                    account_id=None if seeker.account is None else seeker.account.id,
                    rating=rating,
                    rules=rules,
                    rated=rated,
                    bot_after=bot_after,
                    seat_hash=token_digest(place_seat_token(key)),
                    browser=browser,
                )
            )
        return key

    def status(self, key: str) -> Place | None:
        """The place of ``key`` (None: no such place, or given up), its
        heartbeat renewed; matched only once its game exists."""
        return self.statuses([key])[key]

    def statuses(self, keys: Sequence[str], *, renew: bool = True) -> dict[str, Place | None]:
        """:meth:`status` of several places at once; ``renew=False``: only
        read them (a lobby socket's check for matched places: its player's
        sign of life is each ``wait`` message, not the open socket).

        The places are read on the read path; a write transaction is opened
        only when a live place's heartbeat is due (not for an unknown key,
        nor for polls within :data:`HEARTBEAT_EVERY`), so polls never queue
        behind the moves' writes for nothing."""
        now = self.clock()
        digests = {token_digest(key): key for key in keys}
        made = exists().where(games.c.id == play_now.c.game_id)
        with self.reader.connect() as db:
            rows = db.execute(
                select(
                    play_now.c.key_hash,
                    play_now.c.game_id,
                    play_now.c.seat,
                    play_now.c.seen,
                    made.label("made"),
                ).where(play_now.c.key_hash.in_(list(digests)))
            ).all()
        due = [
            str(row.key_hash)
            for row in rows
            if now - self.timeout <= row.seen < now - self.heartbeat_every
        ]
        if renew and due:
            self._renew(due, now)
        out: dict[str, Place | None] = dict.fromkeys(keys)
        for row in rows:
            if row.game_id is not None and row.made:
                out[digests[row.key_hash]] = Place(str(row.game_id), int(row.seat))
            elif row.game_id is not None or row.seen >= now - self.timeout:
                out[digests[row.key_hash]] = Place(None, None)
        return out

    def _renew(self, key_hashes: list[str], now: float) -> None:
        """The heartbeat of live places (one given up meanwhile stays so)."""
        with self.engine.begin() as db:
            db.execute(
                update(play_now)
                .where(
                    play_now.c.key_hash.in_(key_hashes),
                    play_now.c.seen >= now - self.timeout,
                    play_now.c.seen < now - self.heartbeat_every,
                )
                .values(seen=now)
            )

    def leave(self, key: str) -> bool:
        """Leave the queue (False: no such place, or a game is being made for it)."""
        with self.engine.begin() as db:
            done = db.execute(
                delete(play_now).where(
                    play_now.c.key_hash == token_digest(key), play_now.c.game_id.is_(None)
                )
            ).rowcount
        return bool(done == 1)

    def waiting_count(self) -> int:
        with self.reader.connect() as db:
            count = db.execute(
                select(func.count()).where(
                    play_now.c.game_id.is_(None), play_now.c.seen >= self.clock() - self.timeout
                )
            ).scalar_one()
        return int(count)

    def tidy(self) -> None:
        """Forget the places given up and the matched ones of long ago, and
        free the places claimed for a game that was never made (its maker
        died in between)."""
        now = self.clock()
        made = exists().where(games.c.id == play_now.c.game_id)
        with self.engine.begin() as db:
            db.execute(
                delete(play_now).where(
                    play_now.c.game_id.is_(None), play_now.c.seen < now - self.timeout
                )
            )
            db.execute(delete(play_now).where(play_now.c.claimed < now - KEEP_MATCHED_S))
            lost = select(play_now.c.game_id).where(
                play_now.c.claimed < now - self.reclaim_after, ~made
            )
            lost_ids = [str(r.game_id) for r in db.execute(lost).all()]
            if lost_ids:
                self._free(db, lost_ids)
                log.warning("play now: %d game(s) never made: their players wait", len(lost_ids))

    def live(self) -> list[Waiting]:
        """The places free to be paired (their player alive)."""
        with self.reader.connect() as db:
            rows = db.execute(
                select(play_now).where(
                    play_now.c.game_id.is_(None), play_now.c.seen >= self.clock() - self.timeout
                )
            ).all()
        return [
            Waiting(
                str(r.key_hash),
                float(r.rating),
                str(r.rules),
                float(r.created),
                r.bot_after,
                {"name": str(r.name), "seat_hash": str(r.seat_hash), "rated": bool(r.rated)},
                r.account_id,
                r.browser,
            )
            for r in rows
        ]

    def claim(self, seats: list[Waiting], game_id: str, rated: bool) -> bool:
        """Take the places ``seats`` (seat 0, 1, ...) for the game
        ``game_id`` about to be made, with their accounts' seats: all of
        them, or none if one is no longer free."""
        now = self.clock()
        try:
            with self.engine.begin() as db:
                for seat, place in enumerate(seats):
                    taken = db.execute(
                        update(play_now)
                        .where(play_now.c.key_hash == place.key, play_now.c.game_id.is_(None))
                        .values(game_id=game_id, seat=seat, claimed=now)
                    ).rowcount
                    if taken != 1:
                        raise _Gone  # rolls back the places taken so far
                    if place.account_id is not None:
                        db.execute(
                            insert(game_players).values(
                                game_id=game_id,
                                seat=seat,
                                account_id=place.account_id,
                                rated=rated,
                                days_per_move=None,
                            )
                        )
        except _Gone:
            return False
        return True

    def unclaim(self, game_id: str) -> None:
        """The game could not be made: its places wait again."""
        with self.engine.begin() as db:
            self._free(db, [game_id])

    @staticmethod
    def _free(db: Connection, game_ids: list[str]) -> None:
        db.execute(delete(game_players).where(game_players.c.game_id.in_(game_ids)))
        db.execute(
            update(play_now)
            .where(play_now.c.game_id.in_(game_ids))
            .values(game_id=None, seat=None, claimed=None)
        )


class PlayNow:
    """The "Play now" service of one process: its places, and the pairing
    rounds while this process holds the pairing lease."""

    def __init__(
        self, hub: Hub, *, initial_rating: float, clock: Callable[[], float] = time.time
    ) -> None:
        self.hub = hub
        self.initial_rating = initial_rating
        self.queue = PlayNowQueue(
            hub.ledger.engine,
            timeout=hub.config.play_now_timeout,
            reclaim_after=3 * hub.config.lease_seconds,
            clock=clock,
        )
        self.clock = clock

    async def join(
        self,
        seeker: Seeker,
        rules: Rules,
        rated: bool,
        bot_after: float | None,
        browser: str | None = None,
    ) -> str:
        rating = seeker.rating if seeker.rating is not None else self.initial_rating
        text = json.dumps({"rules": rules.to_json(), "rated": rated}, sort_keys=True)
        return await asyncio.to_thread(
            self.queue.join, seeker, rating, text, rated, bot_after, browser
        )

    async def status(self, key: str) -> dict[str, Any] | None:
        """``GET /api/play-now/KEY``'s answer (None: no such place)."""
        return answer(key, await asyncio.to_thread(self.queue.status, key))

    async def statuses(self, keys: Sequence[str]) -> dict[str, dict[str, Any] | None]:
        """The answers of several places (the lobby sockets' waiting
        players), read only: a socket's sign of life is its ``wait`` message."""
        places = await asyncio.to_thread(self.queue.statuses, keys, renew=False)
        return {key: answer(key, place) for key, place in places.items()}

    async def leave(self, key: str) -> bool:
        return await asyncio.to_thread(self.queue.leave, key)

    async def waiting(self) -> int:
        return await asyncio.to_thread(self.queue.waiting_count)

    async def round(self) -> None:
        """One round, if this process owns the pairing: pair who can be
        paired, give a computer opponent to who waited long enough. A pair
        whose game cannot be made is logged and freed; the others go on."""
        if not await self.hub.own(PAIRING_JOB):
            return
        await asyncio.to_thread(self.queue.tidy)
        pairing = Pairing()
        for place in await asyncio.to_thread(self.queue.live):
            pairing.join(place)
        now = self.clock()
        for a, b in pairing.pairs(now):
            await self._each(self._pair(a, b))
        for place in pairing.due_for_bot(now):
            await self._each(self._bot_game(place))

    @staticmethod
    async def _each(making: Coroutine[Any, Any, None]) -> None:
        try:
            await making
        except Exception:
            log.exception("play now: a game could not be made (its places wait again)")

    async def _pair(self, a: Waiting, b: Waiting) -> None:
        rated = bool(a.meta["rated"]) and a.account_id is not None and b.account_id is not None
        game_id = secrets.token_urlsafe(9)
        if not await asyncio.to_thread(self.queue.claim, [a, b], game_id, rated):
            return
        try:
            rules = Rules.from_json(json.loads(a.rules)["rules"])
            await self.hub.create_pair(
                rules,
                (a.meta["name"], b.meta["name"]),
                (a.meta["seat_hash"], b.meta["seat_hash"]),
                game_id=game_id,
            )
        except BaseException:
            await asyncio.to_thread(self.queue.unclaim, game_id)
            raise
        log.info("play now: game %s made", game_id)

    def _computer_opponent(self) -> BotChoice:
        """Whom a player nobody answered plays: the expert level, shown by
        its level's name (never a program's), or the operator's own first
        bot where the server offers only those (``--only-allowed-bots``)."""
        if self.hub.config.default_bots:
            return level_choice(level(COMPUTER_LEVEL))
        return self.hub.catalogue.resolve(self.hub.catalogue.default)

    async def _bot_game(self, place: Waiting) -> None:
        game_id = secrets.token_urlsafe(9)
        if not await asyncio.to_thread(self.queue.claim, [place], game_id, False):
            return
        try:
            bot = self._computer_opponent()
            rules = Rules.from_json(json.loads(place.rules)["rules"])
            await self.hub.create_game(
                "bot",
                rules,
                name=place.meta["name"],
                bots=[bot],
                game_id=game_id,
                seat_hash=place.meta["seat_hash"],
            )
        except BaseException:
            await asyncio.to_thread(self.queue.unclaim, game_id)
            raise
