"""The lobby: open seeks that another player accepts, and quick pairing.

A *seek* is an offer to play under given rules, rated or not, live or by
correspondence (``days_per_move``). Its owner gets a secret owner token
(kept only as a hash, like every token here) that lets them cancel it and
learn the seat they were given. Accepting is a race that exactly one
acceptor wins: the seek's status moves from ``open`` to ``matched`` in one
conditional update, and only the request whose update changed the row goes
on to create the game (:meth:`Lobby.accept`, then :meth:`Lobby.attach`).

Rated seeks need an account on both sides; nobody can accept their own
seek. Once a live seek is taken, the other open live seeks of its two
accounts are withdrawn: a player waiting on several offers gets one game
from them, not several at once (a player may still start another live
game while one is open, e.g. one whose opponent left). A
live seek stays in the lobby only while its owner is there: each
sign of life (its owner's lobby socket following it, or the owner asking
its status) is stored in ``seeks.alive``, and a live seek without one for
``timeout`` seconds is neither listed, nor accepted, nor counted among
its owner's open offers, so nobody is seated in a live game against a
player who closed the page long ago. A correspondence seek waits for days
anyway and needs no sign of life. Which account holds which seat of a game is kept in
``game_players``: that is how a logged-in player finds their games from
any browser (:meth:`Lobby.games_of`).

:class:`Pairing` is the "Play now" queue: players waiting under the same
rules are paired when their ratings are close, the accepted gap widening
the longer they wait; a player who asked for it is offered a computer
opponent once their chosen wait is over. It holds no game state, only who
waits: each round of :mod:`marjolet.web.playnow` fills one from the places
in the database and takes its pairs.
"""

from __future__ import annotations

import base64
import contextlib
import hmac
import json
import secrets
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from sqlalchemy import (
    ColumnElement,
    Engine,
    Row,
    and_,
    case,
    func,
    insert,
    or_,
    select,
    update,
)

from marjolet.errors import MarjoletError
from marjolet.web.accounts import Account, token_digest
from marjolet.web.db import game_players, reader, seeks

#: A rematch offer may also end ``declined`` (by the other seat) or
#: ``expired`` (:mod:`marjolet.web.rematches`); ``cancelled`` is withdrawn.
SeekStatus = Literal["open", "matched", "cancelled", "declined", "expired"]
#: Open seeks one owner (account or address) may have at once.
MAX_OPEN_PER_OWNER = 3
#: Client addresses whose guests' open seeks are remembered at most (more,
#: and the memory is cleared: a flood of addresses cannot grow it for ever).
MOST_GUEST_ADDRESSES = 10_000
#: Correspondence: the longest time a move may take, in days.
MAX_DAYS_PER_MOVE = 14
#: Open seeks listed at most.
LOBBY_SIZE = 100
#: Seconds a live seek stays in the lobby with no sign of life from its owner.
SEEK_TIMEOUT = 90.0


class LobbyError(MarjoletError):
    """A refused lobby operation; ``code`` names the reason, ``status`` the
    HTTP status it maps to."""

    def __init__(self, code: str, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.code = code
        self.status = status


@dataclass(frozen=True, slots=True)
class Seeker:
    """Who posts or accepts a seek: an account, or a guest with a name."""

    name: str
    account: Account | None = None

    @property
    def rating(self) -> float | None:
        return None if self.account is None else self.account.rating.value


@dataclass(frozen=True, slots=True)
class Seek:
    """One row of the lobby."""

    id: str
    created: float
    name: str
    rating: float | None
    rules: dict[str, Any]
    rated: bool
    days_per_move: int | None
    status: SeekStatus
    account_id: int | None
    game_id: str | None
    seat: int | None
    #: The hash of the owner's seat token (see :func:`seat_token`).
    seat_hash: str | None = None
    #: A rematch offer: the finished game it follows, and the seat there
    #: that offered it (only the other seat may take it).
    rematch_of: str | None = None
    rematch_seat: int | None = None

    def to_json(self) -> dict[str, Any]:
        """The seek as the lobby lists it (no owner, no game)."""
        return {
            "id": self.id,
            "player": self.name,
            "rating": None if self.rating is None else round(self.rating),
            "rules": self.rules,
            "rated": self.rated,
            "days_per_move": self.days_per_move,
        }


def check_days_per_move(value: object) -> int | None:
    """None (a live game) or a whole number of days from 1 to 14."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise LobbyError("bad_days", "days_per_move must be a whole number of days or null")
    if not 1 <= value <= MAX_DAYS_PER_MOVE:
        raise LobbyError("bad_days", f"days_per_move must be from 1 to {MAX_DAYS_PER_MOVE}")
    return value


class Lobby:
    """Seeks and seat ownership in the server's database."""

    def __init__(
        self,
        engine: Engine,
        *,
        clock: Callable[[], float] = time.time,
        timeout: float = SEEK_TIMEOUT,
    ) -> None:
        self.engine = engine
        self.reader = reader(engine)
        self.clock = clock
        self.timeout = timeout
        #: The seeks each guest address posted (``guest_key`` of :meth:`post`),
        #: in this process: its open ones count against MAX_OPEN_PER_OWNER.
        self._guest_seeks: dict[str, list[str]] = {}
        self._guest_lock = threading.Lock()

    def _present(self, at: float | None = None) -> ColumnElement[bool]:
        """The seeks whose owner is still there (at the moment ``at``, by
        default now): a correspondence seek or a rematch offer (they wait
        anyway), or a live seek with a recent sign of life."""
        return or_(
            seeks.c.days_per_move.is_not(None),
            seeks.c.rematch_of.is_not(None),
            seeks.c.alive >= (self.clock() if at is None else at) - self.timeout,
        )

    def post(
        self,
        seeker: Seeker,
        rules: Mapping[str, Any],
        *,
        rated: bool,
        days_per_move: int | None = None,
        owner_key: str = "",
        guest_key: str = "",
        rematch: tuple[str, int] | None = None,
    ) -> tuple[Seek, str]:
        """Open a seek; returns it and its owner token (shown only once).

        ``owner_key`` is mixed into a guest's owner token. ``guest_key``
        identifies a guest (their address) for the limit on open seeks: a
        guest who changes names has no more of them, two guests of one name
        elsewhere do not share theirs (without it, a guest's name is the
        key); an account is its own key. ``rematch`` (game id, seat)
        makes it the offer of a rematch of that game by that seat: never
        listed, taken only through :meth:`accept` with ``rematch=True``.
        """
        if rated and seeker.account is None:
            raise LobbyError("login_required", "log in to offer a rated game", 401)
        days = check_days_per_move(days_per_move)
        token = secrets.token_urlsafe(18)
        seek_id = secrets.token_urlsafe(9)
        guest = guest_key if seeker.account is None else ""
        with self._guest_lock if guest else contextlib.nullcontext(), self.engine.begin() as db:
            if self._open_count(db, seeker, guest) >= MAX_OPEN_PER_OWNER:
                raise LobbyError(
                    "too_many_seeks", f"at most {MAX_OPEN_PER_OWNER} open offers at once", 429
                )
            db.execute(
                insert(seeks).values(
                    id=seek_id,
                    created=self.clock(),
                    alive=self.clock(),
                    account_id=None if seeker.account is None else seeker.account.id,
                    owner_hash=token_digest(token + "|" + _owner_tag(seeker, owner_key)),
                    name=seeker.name,
                    rating=seeker.rating,
                    rules=json.dumps(dict(rules), sort_keys=True),
                    rated=rated,
                    days_per_move=days,
                    status="open",
                    seat_hash=token_digest(seat_token(token, seek_id)),
                    rematch_of=None if rematch is None else rematch[0],
                    rematch_seat=None if rematch is None else rematch[1],
                )
            )
            if guest:
                if len(self._guest_seeks) >= MOST_GUEST_ADDRESSES:
                    self._guest_seeks.clear()
                self._guest_seeks.setdefault(guest, []).append(seek_id)
        seek = self.get(seek_id)
        assert seek is not None
        return seek, token

    def open_seeks(self, at: float | None = None) -> list[Seek]:
        """The open seeks, oldest first; with ``at`` (a moment past), those
        open now whose last sign of life is recent as of ``at`` (a live seek
        that lapsed since is one of them; one that had lapsed by then and
        shows life again since is one too, as its sign of life is read now)."""
        with self.reader.connect() as db:
            rows = db.execute(
                select(seeks)
                .where(seeks.c.status == "open", seeks.c.rematch_of.is_(None), self._present(at))
                .order_by(seeks.c.created)
                .limit(LOBBY_SIZE)
            ).all()
        return [_seek(row) for row in rows]

    def get(self, seek_id: str) -> Seek | None:
        with self.reader.connect() as db:
            row = db.execute(select(seeks).where(seeks.c.id == seek_id)).first()
        return None if row is None else _seek(row)

    def owns(self, seek: Seek, token: str | None, seeker: Seeker, owner_key: str = "") -> bool:
        """Whether the request comes from the seek's owner: its account, or
        the holder of its owner token."""
        if seeker.account is not None and seek.account_id == seeker.account.id:
            return True
        if not token:
            return False
        with self.reader.connect() as db:
            stored = db.execute(select(seeks.c.owner_hash).where(seeks.c.id == seek.id)).scalar()
        tags = {_owner_tag(seeker, owner_key), _owner_tag(Seeker(seeker.name), owner_key)}
        return any(stored == token_digest(token + "|" + tag) for tag in tags)

    def token_owns(self, seek: Seek, token: str, owner_key: str = "") -> bool:
        """Whether ``token`` is the owner token of ``seek``, whoever quotes
        it (a page whose session is not the one that posted it)."""
        with self.reader.connect() as db:
            stored = db.execute(select(seeks.c.owner_hash).where(seeks.c.id == seek.id)).scalar()
        tags = {f"guest:{owner_key}"}
        if seek.account_id is not None:
            tags.add(f"account:{seek.account_id}")
        return any(
            stored is not None and hmac.compare_digest(stored, token_digest(token + "|" + tag))
            for tag in tags
        )

    def accept(self, seek_id: str, acceptor: Seeker, *, rematch: bool = False) -> Seek:
        """Take an open seek for ``acceptor``: exactly one acceptor wins. A
        rematch offer is taken only with ``rematch`` (the caller checked that
        the acceptor holds the other seat of the game it follows)."""
        seek = self.get(seek_id)
        if seek is None or (seek.rematch_of is not None) != rematch:
            raise LobbyError("no_seek", f"no offer {seek_id!r}", 404)
        if seek.rated and acceptor.account is None:
            raise LobbyError("login_required", "log in to accept a rated game", 401)
        if acceptor.account is not None and seek.account_id == acceptor.account.id:
            raise LobbyError("own_seek", "you cannot accept your own offer", 409)
        with self.engine.begin() as db:
            taken = db.execute(
                update(seeks)
                .where(seeks.c.id == seek_id, seeks.c.status == "open", self._present())
                .values(
                    status="matched",
                    acceptor_id=None if acceptor.account is None else acceptor.account.id,
                )
            ).rowcount
            if taken == 1 and seek.days_per_move is None:
                self._withdraw_other_live_seeks(db, seek, acceptor)
        if taken != 1:
            raise LobbyError("seek_gone", "this offer was taken or withdrawn", 409)
        matched = self.get(seek_id)
        assert matched is not None
        return matched

    @staticmethod
    def _withdraw_other_live_seeks(db: Any, seek: Seek, acceptor: Seeker) -> None:
        """A live game starts: the other open live seeks of both its accounts
        are withdrawn, so that several offers taken together do not seat a
        player in two live games at once (the one not looked at would be
        lost on time)."""
        held = [seek.account_id, None if acceptor.account is None else acceptor.account.id]
        players = [account_id for account_id in held if account_id is not None]
        if not players:
            return
        db.execute(
            update(seeks)
            .where(
                seeks.c.account_id.in_(players),
                seeks.c.id != seek.id,
                seeks.c.status == "open",
                seeks.c.days_per_move.is_(None),
                seeks.c.rematch_of.is_(None),
            )
            .values(status="cancelled")
        )

    def attach(self, seek_id: str, game_id: str, seeker_seat: int, acceptor: Seeker) -> None:
        """Record the game made from a matched seek, and which accounts
        hold its seats."""
        seek = self.get(seek_id)
        if seek is None or seek.status != "matched":
            raise LobbyError("seek_gone", "this offer is not matched", 409)
        holders = {seeker_seat: seek.account_id}
        if acceptor.account is not None:
            holders[1 - seeker_seat] = acceptor.account.id
        with self.engine.begin() as db:
            db.execute(
                update(seeks).where(seeks.c.id == seek_id).values(game_id=game_id, seat=seeker_seat)
            )
            for seat, account_id in holders.items():
                if account_id is not None:
                    db.execute(
                        insert(game_players).values(
                            game_id=game_id,
                            seat=seat,
                            account_id=account_id,
                            rated=seek.rated,
                            days_per_move=seek.days_per_move,
                        )
                    )

    def rematch_offer(self, game_id: str) -> Seek | None:
        """The rematch offer of a finished game that was taken, else the
        latest, whatever its status (two seats that offered at once leave a
        taken offer and the one that gave way to it)."""
        taken_first = case((seeks.c.status == "matched", 0), else_=1)
        with self.reader.connect() as db:
            row = db.execute(
                select(seeks)
                .where(seeks.c.rematch_of == game_id)
                .order_by(taken_first, seeks.c.created.desc())
                .limit(1)
            ).first()
        return None if row is None else _seek(row)

    def open_rematch_offers(self, game_id: str) -> list[Seek]:
        """The open rematch offers of a game, the first made first (two only
        when both seats offered at once)."""
        with self.reader.connect() as db:
            rows = db.execute(
                select(seeks)
                .where(seeks.c.rematch_of == game_id, seeks.c.status == "open")
                .order_by(seeks.c.created, seeks.c.id)
            ).all()
        return [_seek(row) for row in rows]

    def open_rematches(self, game_ids: list[str], since: float) -> dict[str, int]:
        """Of ``game_ids``, those with a rematch offer open and made after
        ``since``: game id -> the seat that offered it."""
        if not game_ids:
            return {}
        with self.reader.connect() as db:
            rows = db.execute(
                select(seeks.c.rematch_of, seeks.c.rematch_seat).where(
                    seeks.c.rematch_of.in_(game_ids),
                    seeks.c.status == "open",
                    seeks.c.created >= since,
                )
            ).all()
        return {row.rematch_of: int(row.rematch_seat) for row in rows}

    def settled(self, seek_ids: list[str]) -> list[Seek]:
        """Of ``seek_ids``, those cancelled or matched with their game made."""
        with self.reader.connect() as db:
            rows = db.execute(
                select(seeks).where(
                    seeks.c.id.in_(seek_ids),
                    (seeks.c.status == "cancelled") | seeks.c.game_id.is_not(None),
                )
            ).all()
        return [_seek(row) for row in rows]

    def touch(self, seek_ids: Sequence[str]) -> int:
        """A sign of life from the owner of each of these open seeks (the
        caller checked ownership): they stay in the lobby. How many were open."""
        if not seek_ids:
            return 0
        with self.engine.begin() as db:
            done = db.execute(
                update(seeks)
                .where(seeks.c.id.in_(list(seek_ids)), seeks.c.status == "open")
                .values(alive=self.clock())
            ).rowcount
        return int(done or 0)

    def reopen(self, seek_id: str) -> None:
        """Put a matched seek back in the lobby (its game could not be made)."""
        with self.engine.begin() as db:
            db.execute(
                update(seeks)
                .where(seeks.c.id == seek_id, seeks.c.status == "matched")
                .values(
                    status="open", acceptor_id=None, game_id=None, seat=None, alive=self.clock()
                )
            )

    def cancel(self, seek_id: str, status: SeekStatus = "cancelled") -> bool:
        """Withdraw an open seek (the caller checked ownership), or end a
        rematch offer ``declined`` or ``expired``."""
        with self.engine.begin() as db:
            done = db.execute(
                update(seeks)
                .where(seeks.c.id == seek_id, seeks.c.status == "open")
                .values(status=status)
            ).rowcount
        return done == 1

    def seat_of(self, game_id: str, account_id: int) -> int | None:
        """The seat an account holds in a game, if any."""
        with self.reader.connect() as db:
            seat = db.execute(
                select(game_players.c.seat).where(
                    game_players.c.game_id == game_id, game_players.c.account_id == account_id
                )
            ).scalar()
        return None if seat is None else int(seat)

    def games_of(self, account_id: int) -> list[tuple[str, int, bool]]:
        """(game id, seat, rated) of every game an account holds a seat in."""
        with self.reader.connect() as db:
            rows = db.execute(
                select(game_players.c.game_id, game_players.c.seat, game_players.c.rated).where(
                    game_players.c.account_id == account_id
                )
            ).all()
        return [(str(r.game_id), int(r.seat), bool(r.rated)) for r in rows]

    def rated_among(self, game_ids: Sequence[str]) -> set[str]:
        """Which of these games are rated (one query)."""
        if not game_ids:
            return set()
        query = (
            select(game_players.c.game_id)
            .where(game_players.c.game_id.in_(list(game_ids)), game_players.c.rated.is_(True))
            .distinct()
        )
        with self.reader.connect() as db:
            return {str(r.game_id) for r in db.execute(query)}

    def holders(self, game_id: str) -> dict[int, int]:
        """seat -> account id for the seats of a game held by accounts."""
        with self.reader.connect() as db:
            rows = db.execute(
                select(game_players.c.seat, game_players.c.account_id).where(
                    game_players.c.game_id == game_id
                )
            ).all()
        return {int(r.seat): int(r.account_id) for r in rows}

    def _open_count(self, db: Any, seeker: Seeker, guest_key: str) -> int:
        """The open seeks still present (:meth:`_present`) of an account, of a
        guest address (``guest_key``; the ones still open are kept, the
        others forgotten) or, without one, of a guest name. The owner's
        open seeks that are no longer present are withdrawn first: not
        counted, they must not come back with a sign of life either (three
        left silent, three new, all six followed again: six in the lobby)."""
        present = self._present()
        if guest_key:
            mine = self._guest_seeks.get(guest_key, [])
            if mine:
                self._withdraw_silent(db, seeks.c.id.in_(mine))
                query = select(seeks.c.id).where(
                    seeks.c.id.in_(mine), seeks.c.status == "open", present
                )
                mine = [row.id for row in db.execute(query)]
                self._guest_seeks[guest_key] = mine
            return len(mine)
        if seeker.account is not None:
            owner = seeks.c.account_id == seeker.account.id
        else:
            owner = and_(seeks.c.account_id.is_(None), seeks.c.name == seeker.name)
        self._withdraw_silent(db, owner)
        query = select(func.count()).where(seeks.c.status == "open", present, owner)
        return int(db.execute(query).scalar_one())

    def _withdraw_silent(self, db: Any, owner: ColumnElement[bool]) -> None:
        """Withdraw the owner's open seeks that are no longer present."""
        db.execute(
            update(seeks)
            .where(
                owner,
                seeks.c.status == "open",
                seeks.c.days_per_move.is_(None),
                seeks.c.rematch_of.is_(None),
                or_(seeks.c.alive.is_(None), seeks.c.alive < self.clock() - self.timeout),
            )
            .values(status="cancelled")
        )


def seat_token(owner_token: str, seek_id: str) -> str:
    """The secret token of a seek owner's seat, derived from the owner
    token: the server keeps only its hash (``seeks.seat_hash``), and any
    process shown the owner token can hand it over once the seek is
    matched, whichever process made the game."""
    digest = hmac.new(owner_token.encode(), f"seat:{seek_id}".encode(), "sha256").digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


def owner_seat_token(seek: Seek, owner_token: str | None) -> str | None:
    """The owner's seat token of a guest's matched seek, if ``owner_token``
    is its owner token (None: not derivable: an account's seek, whose
    session proves its seat, or a seek of before revision 0006)."""
    if not owner_token or seek.seat_hash is None or seek.account_id is not None:
        return None
    token = seat_token(owner_token, seek.id)
    return token if hmac.compare_digest(token_digest(token), seek.seat_hash) else None


def _owner_tag(seeker: Seeker, owner_key: str) -> str:
    return f"account:{seeker.account.id}" if seeker.account is not None else f"guest:{owner_key}"


def _seek(row: Row[Any]) -> Seek:
    return Seek(
        id=row.id,
        created=row.created,
        name=row.name,
        rating=row.rating,
        rules=json.loads(row.rules),
        rated=bool(row.rated),
        days_per_move=row.days_per_move,
        status=row.status,
        account_id=row.account_id,
        game_id=row.game_id,
        seat=row.seat,
        seat_hash=row.seat_hash,
        rematch_of=row.rematch_of,
        rematch_seat=row.rematch_seat,
    )


# -- "Play now" -----------------------------------------------------------------------


@dataclass(slots=True)
class Waiting:
    """One player in the "Play now" queue."""

    key: str
    rating: float
    rules: str
    since: float
    #: Seconds after which the player takes a computer opponent (None: never).
    bot_after: float | None = None
    meta: dict[str, Any] = field(default_factory=dict)
    #: The account waiting (None for a guest): never paired with itself.
    account_id: int | None = None
    #: The browser that queued (its page's id; None: not told): two places
    #: of one browser are never paired together either.
    browser: str | None = None


class Pairing:
    """Pairs waiting players of close rating under the same rules.

    Two players may be paired when their ratings differ by at most
    ``base_gap + widen_per_s * (seconds the longer-waiting one has
    waited)``, capped at ``max_gap``. The closest eligible pair is taken
    first, then the next, so a queue is emptied greedily.
    """

    def __init__(
        self, *, base_gap: float = 100.0, widen_per_s: float = 10.0, max_gap: float = 600.0
    ) -> None:
        self.base_gap = base_gap
        self.widen_per_s = widen_per_s
        self.max_gap = max_gap
        self.queue: dict[str, Waiting] = {}

    def join(self, entry: Waiting) -> None:
        """Queue a player (again: their place is renewed)."""
        self.queue[entry.key] = entry

    def leave(self, key: str) -> bool:
        return self.queue.pop(key, None) is not None

    def gap(self, a: Waiting, b: Waiting, now: float) -> float:
        waited = now - min(a.since, b.since)
        return min(self.max_gap, self.base_gap + self.widen_per_s * max(0.0, waited))

    def pairs(self, now: float) -> list[tuple[Waiting, Waiting]]:
        """Take every pair that may play now out of the queue."""
        found: list[tuple[Waiting, Waiting]] = []
        while True:
            best: tuple[float, Waiting, Waiting] | None = None
            entries = sorted(self.queue.values(), key=lambda w: (w.since, w.key))
            for i, a in enumerate(entries):
                for b in entries[i + 1 :]:
                    distance = abs(a.rating - b.rating)
                    same = (a.account_id is not None and a.account_id == b.account_id) or (
                        a.browser is not None and a.browser == b.browser
                    )
                    fits = not same and a.rules == b.rules and distance <= self.gap(a, b, now)
                    if fits and (best is None or distance < best[0]):
                        best = (distance, a, b)
            if best is None:
                return found
            _, a, b = best
            del self.queue[a.key], self.queue[b.key]
            found.append((a, b))

    def due_for_bot(self, now: float) -> list[Waiting]:
        """Take out the players whose chosen wait is over (they get a bot)."""
        due = [
            w
            for w in self.queue.values()
            if w.bot_after is not None and now - w.since >= w.bot_after
        ]
        for w in due:
            del self.queue[w.key]
        return due
