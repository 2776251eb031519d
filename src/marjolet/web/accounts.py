"""Player accounts: names, passwords, login sessions and rated results.

An account is a unique name (3-20 letters, digits, ``_`` or ``-``, unique
regardless of case; the letters are Latin ones, accented too, so that
"Amélie" and "Françoise" are names, written in one Unicode form; no two
look alike, see :func:`name_look`) and a
password of at least 8 characters, kept only as an Argon2id hash
(argon2-cffi). Logging in creates a session: a random token that the
browser keeps in a cookie and the server keeps only as its SHA-256, so a
stolen database opens no session; logging out deletes it.

A wrong password and an unknown name give the same error
(:class:`AccountError` with code ``bad_credentials``), and an unknown name
still costs one hash verification, so neither the answer nor its time says
which names exist.

Rated results go through :meth:`Accounts.record_result`: a (game, account)
key in ``rating_changes`` makes a result count once, even when it arrives
twice or after a restart, and each rated game is one Glicko-2 rating
period for each player (:mod:`marjolet.web.ratings`). The stored deviation
is the one after the player's last rated game; the account shows it grown
by the time since (:meth:`~marjolet.web.ratings.RatingSystem.idle`), and
the next game is rated from that grown one.
"""

from __future__ import annotations

import hashlib
import json
import re
import secrets
import threading
import time
import unicodedata
from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import Any

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from sqlalchemy import (
    Connection,
    Engine,
    Row,
    Select,
    delete,
    func,
    insert,
    or_,
    select,
    update,
)
from sqlalchemy.exc import IntegrityError

from marjolet.errors import MarjoletError
from marjolet.record import DELETED_PLAYER, UNNAMED_PLAYER, UNSEATED_FRIEND
from marjolet.web.db import (
    accounts,
    game_players,
    games,
    play_now,
    rating_changes,
    reader,
    seeks,
    sessions,
)
from marjolet.web.errors import WebError
from marjolet.web.ratings import Rating, RatingSystem
from marjolet.web.reviews import rename_reviews

#: An account name: Latin letters (with their accents: French, and the other
#: languages written in Latin-1, and the ligatures Œ œ), digits, ``_``, ``-``.
#: Other scripts are left out, whose look-alike letters could pass for another
#: player's name.
NAME_PATTERN = re.compile(r"[A-Za-z0-9_\-À-ÖØ-öø-ÿŒœ]{3,20}")
MIN_PASSWORD = 8
#: Longest password accepted (Argon2 takes any length; this bounds the work).
MAX_PASSWORD = 256
#: Bytes of randomness in a session token.
TOKEN_BYTES = 32
#: A session unused for this long (seconds) is over: log in again.
SESSION_MAX_AGE = 30 * 86_400.0
#: Seconds in a day: a deviation grows by the days since the last rated game.
DAY = 86_400.0
#: The name a deleted account's seat has in the games it played (the pages
#: show it in their language, as they show the default names "you" and
#: "friend"); the ``opponent_id`` of its opponents' rating changes becomes 0.
DELETED_NAME = DELETED_PLAYER
DELETED_ID = 0


def _with_last_rated() -> Select[Any]:
    """An account's row with ``rated_at``: when its last rated game was rated
    (None: never), from which its deviation grows."""
    last = (
        select(func.max(rating_changes.c.at))
        .where(rating_changes.c.account_id == accounts.c.id)
        .scalar_subquery()
    )
    return select(accounts, last.label("rated_at"))


class AccountError(MarjoletError):
    """A refused account operation; ``code`` names the reason for programs."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


@dataclass(frozen=True, slots=True)
class Account:
    """One account as the server shows it (never the password hash)."""

    id: int
    name: str
    rating: Rating
    games: int
    wins: int
    losses: int

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "rating": self.rating.to_json(),
            "games": self.games,
            "wins": self.wins,
            "losses": self.losses,
        }


def account_name(name: object) -> str | None:
    """The name in the one form it is stored in (NFC: "é" as one character,
    whatever the keyboard sent), or None if it is no valid account name."""
    if not isinstance(name, str):
        return None
    name = unicodedata.normalize("NFC", name)
    return name if NAME_PATTERN.fullmatch(name) else None


#: Latin letters that no Unicode decomposition splits into a base letter
#: and a mark, written as they are read ("Ørjan" looks like "Orjan").
_UNSPLIT = str.maketrans(
    {"Ø": "O", "ø": "o", "Æ": "AE", "æ": "ae", "Œ": "OE", "œ": "oe", "Đ": "D", "đ": "d",
     "Ł": "L", "ł": "l", "Ð": "D", "ð": "d", "Þ": "TH", "þ": "th", "ı": "i"}
)  # fmt: skip


#: Greek and Cyrillic letters that look like a Latin one, as that letter
#: (case kept): the Unicode confusables (TR39's confusables.txt, 2020) of the
#: Greek and Cyrillic letters whose prototype is one ASCII letter, except
#: that the capital letters shaped like I are I, as a Latin capital I is
#: read (case is set aside after). So "аlice" with a Cyrillic а, and "АLICE",
#: look like "alice".
_PROTOTYPES = str.maketrans(
    "ͿΑΒΕΖΗΘΙΚΜΝΟΡΤΥΧαγηθινορσυϜϳϺЅІЈАБВЕКМНОРСТУХЬагеорсухѕіјћѡѢѣѲѳѴѵѽҌҍғҚҞҢҪҫҬҮүҰұҲһҽҿ"
    "ӀӇӉӍӏӨөԁԌԛԜԝᴦꙇꚕ",
    "JABEZHOIKMNOPTYXaynOivopouFjMSIJAbBEKMHOPCTYXbareopcyxsijhwbbOoVvwbbrKKHCcTYyYyXhee"
    "IHHMiOodGqWwrih",
)
#: A capital I after a small letter reads as an l ("aIice" looks like "alice").
_CAPITAL_I_AS_L = re.compile(r"(?<=[a-z])I")
#: After case is set aside: the ASCII look-alikes of TR39 ("0" is "o", "1"
#: and "|" are "l", "rn" is "m").
_ASCII_LOOKALIKES = (("0", "o"), ("1", "l"), ("|", "l"), ("rn", "m"))


def name_look(name: str) -> str:
    """How a name looks to a reader, accents, case and look-alike letters
    set aside: "Amélie", "amelie" and "AMELIE" look alike, and so do
    "alice", "аlice" (a Cyrillic а), "aIice" and "a1ice"; so no two
    accounts (and no guest and an account) may have names that look the
    same. A skeleton in the manner of Unicode TR39, for the letters of
    Latin, Greek and Cyrillic (:data:`_PROTOTYPES`)."""
    decomposed = unicodedata.normalize("NFKD", name).translate(_UNSPLIT)
    bare = "".join(c for c in decomposed if not unicodedata.combining(c))
    look = _CAPITAL_I_AS_L.sub("l", bare.translate(_PROTOTYPES)).casefold()
    for lookalike, letter in _ASCII_LOOKALIKES:
        look = look.replace(lookalike, letter)
    return look


#: The scripts whose letters pass for one another.
_CONFUSABLE_SCRIPTS = ("LATIN", "GREEK", "CYRILLIC")


#: The names the pages read as something else than a person (common.js,
#: ``localName``/``recordName``), as they read them in every language: a
#: level's player (``Expert``, ``Skilled #2``, « Confirmé #2 »), a bot's
#: (``best (strong)``, « best (fort) »), the guest not yet seated
#: (``friend``, « ami »), a player who gave no name (``you``, read « vous »
#: by themselves and « Joueur » by the others) or a deleted account's seat
#: (« joueur supprimé »).
def _read_as_other() -> re.Pattern[str]:
    from marjolet.bots import catalogue, levels
    from marjolet.i18n import LANGS, translate

    def any_of(words: Collection[str]) -> str:
        return "|".join(re.escape(w) for w in sorted(set(words), key=len, reverse=True))

    names = any_of([lv.name(lang) for lv in levels.LEVELS for lang in LANGS])
    strengths = any_of(
        [s for level in (*catalogue.LEVELS, catalogue.STRONGEST_LEVEL)
         for s in (level, *(translate(f"level.{level}", lang) for lang in LANGS))]
    )
    people = any_of(
        [DELETED_NAME, UNSEATED_FRIEND, UNNAMED_PLAYER]
        + [translate(key, lang) for lang in LANGS
           for key in ("player.deleted", "lobby.friend_default", "lobby.you_default",
                       "player.you", "player.default_name")]
    )
    # in any case: "Vous" reads as the default name as "vous" does (board.js lowercases)
    return re.compile(
        rf"(?:(?:{names})(?: #\d)?|{people}|\S+ \((?:{strengths})\)(?: #\d)?)", re.IGNORECASE
    )


_READ_AS_OTHER = _read_as_other()


def read_as_other(name: str) -> bool:
    """Whether the pages would show ``name`` as a level, a bot, a deleted
    player or the default names, in the reader's language: a guest under it
    would pass for one of them.

    >>> [read_as_other(n) for n in ("Expert", "deleted player", "Expert Jo", "Rémi")]
    [True, True, False, False]
    >>> [read_as_other(n) for n in ("Confirmé #2", "joueur supprimé", "best (fort)", "Vous")]
    [True, True, True, True]
    """
    return _READ_AS_OTHER.fullmatch(name.strip()) is not None


def mixed_scripts(name: str) -> bool:
    """Whether a name mixes letters of Latin, Greek and Cyrillic (a Latin
    name with a Cyrillic "а" in it): a name nobody writes but to pass for
    another."""
    scripts = set()
    for char in name:
        if char.isalpha():
            word = unicodedata.name(char, "").split(" ", 1)[0]
            if word in _CONFUSABLE_SCRIPTS:
                scripts.add(word)
    return len(scripts) > 1


def refuse_a_name_passing_for_another(name: str) -> None:
    """Refuse the name of a person without an account (a guest of the lobby,
    a friend's table's host or guest) that the pages would show as a level,
    a bot, a deleted account or a player who gave no name, or that mixes
    alphabets: the other player would take a person for the computer, or
    for someone else."""
    if read_as_other(name):
        raise WebError(
            "name_read_as_other",
            f"{name!r} is how the pages show a computer player, a deleted account or a "
            "player who gave no name: play under another name",
            params={"name": name},
        )
    if mixed_scripts(name):
        raise WebError(
            "mixed_scripts",
            f"{name!r} mixes Latin, Greek or Cyrillic letters: write a name in one alphabet",
            params={"name": name},
        )


def check_name(name: object) -> str:
    """The name if it is a valid account name, else :class:`AccountError`."""
    valid = account_name(name)
    if valid is None:
        raise AccountError(
            "bad_name", "a name is 3 to 20 letters (accents too), digits, '_' or '-' (no spaces)"
        )
    return valid


def check_password(password: object) -> str:
    """The password if it is long enough (and not absurdly long)."""
    if not isinstance(password, str) or len(password) < MIN_PASSWORD:
        raise AccountError("weak_password", f"a password has at least {MIN_PASSWORD} characters")
    if len(password) > MAX_PASSWORD:
        raise AccountError("weak_password", f"a password has at most {MAX_PASSWORD} characters")
    return password


def token_digest(token: str) -> str:
    """The stored form of a session token."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


class Accounts:
    """Accounts, sessions and ratings in the server's database."""

    def __init__(
        self,
        engine: Engine,
        *,
        system: RatingSystem | None = None,
        hasher: PasswordHasher | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.engine = engine
        self.reader = reader(engine)
        self.system = system or RatingSystem()
        self.hasher = hasher or PasswordHasher()
        self.clock = clock
        self._dummy: str | None = None
        self._dummy_lock = threading.Lock()

    @property
    def _dummy_hash(self) -> str:
        """A hash of a random password, checked instead when a name is
        unknown, so that an unknown name takes as long to refuse as a wrong
        password. Made at the first password check rather than when the
        server starts (an Argon2 hash is a quarter of a second); every
        check asks for it before it looks the name up, so the first check
        is the slower one whatever the name."""
        with self._dummy_lock:
            if self._dummy is None:
                self._dummy = self.hasher.hash(secrets.token_hex(16))
            return self._dummy

    # -- accounts and sessions ----------------------------------------------------

    def create(self, name: object, password: object) -> tuple[Account, str]:
        """A new account and a session token for it."""
        name = check_name(name)
        taken = self.looking_like(name)
        if taken is not None:
            raise AccountError("name_taken", f"the name {name!r} is taken (as {taken.name!r})")
        password_hash = self.hasher.hash(check_password(password))
        initial = self.system.initial
        now = self.clock()
        try:
            with self.engine.begin() as db:
                account_id = db.execute(
                    insert(accounts).values(
                        name=name,
                        name_key=name.lower(),
                        name_look=name_look(name),
                        password_hash=password_hash,
                        created=now,
                        rating=initial.value,
                        rd=initial.rd,
                        volatility=initial.volatility,
                    )
                ).inserted_primary_key[0]  # type: ignore[index]
                token = self._open_session(db, int(account_id), now)
        except IntegrityError:
            raise AccountError("name_taken", f"the name {name!r} is taken") from None
        account = self.by_id(int(account_id))
        assert account is not None
        return account, token

    def login(self, name: object, password: object) -> tuple[Account, str]:
        """A session token for the right name and password; the same
        ``bad_credentials`` error for an unknown name or a wrong password."""
        row = None
        dummy = self._dummy_hash  # before the look-up: see _dummy_hash
        valid = account_name(name)
        if valid is not None:
            with self.reader.connect() as db:
                row = db.execute(
                    select(accounts.c.id, accounts.c.password_hash).where(
                        accounts.c.name_key == valid.lower()
                    )
                ).first()
        stored = row.password_hash if row is not None else dummy
        if not self._verify(stored, password) or row is None:
            raise AccountError("bad_credentials", "wrong name or password")
        with self.engine.begin() as db:
            token = self._open_session(db, int(row.id), self.clock())
        account = self.by_id(int(row.id))
        assert account is not None
        return account, token

    def logout(self, token: str) -> None:
        """End the session of ``token`` (nothing happens for an unknown one)."""
        with self.engine.begin() as db:
            db.execute(delete(sessions).where(sessions.c.token_hash == token_digest(token)))

    def logout_everywhere(self, account_id: int) -> int:
        """Revoke every session of an account; returns how many there were."""
        with self.engine.begin() as db:
            result = db.execute(delete(sessions).where(sessions.c.account_id == account_id))
            return int(result.rowcount or 0)

    def end_other_sessions(self, account_id: int, token: str) -> int:
        """End every session of the account but the one of ``token`` (the
        device asking); returns how many ended."""
        with self.engine.begin() as db:
            result = db.execute(
                delete(sessions).where(
                    sessions.c.account_id == account_id,
                    sessions.c.token_hash != token_digest(token),
                )
            )
            return int(result.rowcount or 0)

    def change_password(self, account_id: int, current: object, new: object) -> str:
        """Replace the password after checking the current one; every session
        of the account ends and the one returned (a fresh token, so that a
        token planted before the change is worth nothing) is the asking
        device's. ``bad_password`` for a wrong current password."""
        new = check_password(new)
        self._check_password_of(account_id, current)
        password_hash = self.hasher.hash(new)
        with self.engine.begin() as db:
            db.execute(
                update(accounts)
                .where(accounts.c.id == account_id)
                .values(password_hash=password_hash)
            )
            db.execute(delete(sessions).where(sessions.c.account_id == account_id))
            return self._open_session(db, account_id, self.clock())

    def delete(self, account_id: int, password: object) -> list[tuple[str, int]]:
        """Delete the account after checking its password (docs/web.md,
        "Deleting an account"): refused (``games_in_progress``) while it
        sits at an unfinished game; else its sessions, rating history and
        open offers go, and in its finished games its seat is called
        :data:`DELETED_NAME` (their stored reviews kept valid). Its
        opponents' ratings and histories stay as they are, and the name is
        free again. Returns the (game id, seat) of the seats renamed (so
        that copies held in memory are renamed too)."""
        self._check_password_of(account_id, password)
        with self.engine.begin() as db:
            # its open offers first: an accept under way waits for this
            # (PostgreSQL's row lock), and one that won is seen below
            mine = seeks.c.account_id == account_id
            db.execute(
                update(seeks).where(mine, seeks.c.status == "open").values(status="cancelled")
            )
            being_seated = db.execute(
                select(func.count()).where(
                    or_(mine, seeks.c.acceptor_id == account_id),
                    seeks.c.status == "matched",
                    seeks.c.game_id.is_(None),
                )
            ).scalar_one()
            # a seat whose game is not stored yet ("Play now" seats its
            # players first) is a game in progress too
            held = db.execute(
                select(game_players.c.game_id, game_players.c.seat, games.c.status, games.c.players)
                .outerjoin(games, games.c.id == game_players.c.game_id)
                .where(game_players.c.account_id == account_id)
            ).all()
            playing = sum(1 for r in held if r.status != "finished")
            if playing or being_seated:
                raise AccountError(
                    "games_in_progress",
                    "you still have games in progress: finish or resign them first",
                )
            for r in held:
                _rename_seat(db, str(r.game_id), int(r.seat), json.loads(r.players))
            _erase(db, account_id)
        return [(str(r.game_id), int(r.seat)) for r in held]

    def for_token(self, token: str | None) -> Account | None:
        """The account a session token belongs to, or None."""
        if not token or len(token) > 200:
            return None
        digest = token_digest(token)
        now = self.clock()
        with self.engine.begin() as db:
            row = db.execute(
                select(sessions.c.account_id, sessions.c.last_seen).where(
                    sessions.c.token_hash == digest
                )
            ).first()
            if row is None:
                return None
            if now - row.last_seen > SESSION_MAX_AGE:
                db.execute(delete(sessions).where(sessions.c.token_hash == digest))
                return None
            db.execute(
                update(sessions)
                .where(sessions.c.token_hash == digest)
                .values(last_seen=now)
            )
        return self.by_id(int(row.account_id))

    def live_sessions(self, digests: Collection[str]) -> set[str]:
        """Which of these session digests still open a session (blocking; one
        query): a table socket proves its seat again with it before each
        move, so that a session ended while it was open (on any process)
        plays no more."""
        if not digests:
            return set()
        query = select(sessions.c.token_hash).where(sessions.c.token_hash.in_(sorted(digests)))
        with self.reader.connect() as db:
            return {str(row.token_hash) for row in db.execute(query)}

    def by_id(self, account_id: int) -> Account | None:
        with self.reader.connect() as db:
            row = db.execute(_with_last_rated().where(accounts.c.id == account_id)).first()
        return None if row is None else self._account(row)

    def by_name(self, name: str) -> Account | None:
        """The account of a name, whatever its case (None: no such account)."""
        valid = account_name(name)
        if valid is None:
            return None
        with self.reader.connect() as db:
            row = db.execute(_with_last_rated().where(accounts.c.name_key == valid.lower())).first()
        return None if row is None else self._account(row)

    def for_page(self, name: str) -> Account | None:
        """The account a player's page address names: the account of that
        name, else the one whose name looks like it (:func:`name_look`: no
        two may), so that ``/players/amelie`` typed without its accent
        finds Amélie (None: no such account)."""
        found = self.by_name(name)
        if found is None and account_name(name) is not None:
            found = self.looking_like(name)
        return found

    def looking_like(self, name: str) -> Account | None:
        """The account whose name looks like ``name`` (:func:`name_look`),
        or None: what a new account or a guest may not be called."""
        with self.reader.connect() as db:
            row = db.execute(
                _with_last_rated().where(accounts.c.name_look == name_look(name))
            ).first()
        return None if row is None else self._account(row)

    # -- ratings ---------------------------------------------------------------

    def record_result(self, game_id: str, first: int, second: int, score_first: float) -> bool:
        """Rate a finished rated game between two accounts, once.

        Returns False (and changes nothing) if the game was already rated.
        Both players' new ratings come from their ratings before the game,
        each deviation grown by the time since that player's last rated game.
        """
        if first == second:
            raise AccountError("same_account", "a rated game needs two different accounts")
        try:
            with self.engine.begin() as db:
                done = db.execute(
                    select(func.count()).where(rating_changes.c.game_id == game_id)
                ).scalar_one()
                if done:
                    return False
                low, high = sorted((first, second))  # one lock order: no deadlock
                locked = {low: self._locked(db, low), high: self._locked(db, high)}
                a, b = locked[first], locked[second]
                new_a, new_b = self.system.rate_game(a.rating, b.rating, score_first)
                self._apply(db, game_id, a, b, new_a, score_first)
                self._apply(db, game_id, b, a, new_b, 1.0 - score_first)
        except IntegrityError:  # a concurrent writer rated it first: rolled back
            return False
        return True

    def history(self, account_id: int, limit: int = 500) -> list[dict[str, Any]]:
        """The account's rating after each rated game, oldest first."""
        with self.reader.connect() as db:
            rows = db.execute(
                select(rating_changes)
                .where(rating_changes.c.account_id == account_id)
                .order_by(rating_changes.c.at.desc())
                .limit(limit)
            ).all()
        return [
            {"game": r.game_id, "at": r.at, "rating": round(r.rating_after, 2), "score": r.score}
            for r in reversed(rows)
        ]

    # -- internals ---------------------------------------------------------------

    def _check_password_of(self, account_id: int, password: object) -> None:
        """Nothing if ``password`` is the account's, else ``bad_password``."""
        dummy = self._dummy_hash  # before the look-up: see _dummy_hash
        with self.reader.connect() as db:
            stored = db.execute(
                select(accounts.c.password_hash).where(accounts.c.id == account_id)
            ).scalar()
        if not self._verify(stored or dummy, password) or stored is None:
            raise AccountError("bad_password", "wrong password")

    def _verify(self, stored: str, password: object) -> bool:
        if not isinstance(password, str) or len(password) > MAX_PASSWORD:
            password = ""
        try:
            return bool(self.hasher.verify(stored, password))
        except (VerificationError, InvalidHashError):
            return False

    def _open_session(self, db: Connection, account_id: int, now: float) -> str:
        token = secrets.token_urlsafe(TOKEN_BYTES)
        db.execute(
            insert(sessions).values(
                token_hash=token_digest(token), account_id=account_id, created=now, last_seen=now
            )
        )
        return token

    def _locked(self, db: Connection, account_id: int) -> Account:
        query = select(accounts).where(accounts.c.id == account_id)
        if db.dialect.name == "postgresql":
            query = query.with_for_update()
        row = db.execute(query).first()
        if row is None:
            raise AccountError("no_account", f"no account with id {account_id}")
        rated_at = db.execute(
            select(func.max(rating_changes.c.at)).where(rating_changes.c.account_id == account_id)
        ).scalar()
        return self._account(row, rated_at)

    def _apply(
        self, db: Connection, game_id: str, me: Account, other: Account, new: Rating, score: float
    ) -> None:
        db.execute(
            insert(rating_changes).values(
                game_id=game_id,
                account_id=me.id,
                at=self.clock(),
                score=score,
                opponent_id=other.id,
                rating_before=me.rating.value,
                rating_after=new.value,
                rd_after=new.rd,
                volatility_after=new.volatility,
            )
        )
        db.execute(
            update(accounts)
            .where(accounts.c.id == me.id)
            .values(
                rating=new.value,
                rd=new.rd,
                volatility=new.volatility,
                games=accounts.c.games + 1,
                wins=accounts.c.wins + (1 if score == 1.0 else 0),
                losses=accounts.c.losses + (1 if score == 0.0 else 0),
            )
        )

    def _account(self, row: Row[Any], rated_at: float | None = None) -> Account:
        """The account of a row; its deviation grown by the days since its
        last rated game (``rated_at``, or the row's own ``rated_at``)."""
        rating = Rating(row.rating, row.rd, row.volatility, self.system.provisional_rd)
        if rated_at is None:
            rated_at = getattr(row, "rated_at", None)
        if rated_at is not None:
            rating = self.system.idle(rating, (self.clock() - rated_at) / DAY)
        return Account(row.id, row.name, rating, row.games, row.wins, row.losses)


def _rename_seat(db: Connection, game_id: str, seat: int, names: list[str]) -> None:
    """Call a deleted account's seat in a finished game :data:`DELETED_NAME`
    (in ``db``'s transaction); the game's stored reviews follow, still
    valid (:func:`~marjolet.web.reviews.rename_reviews`)."""
    was = (str(names[0]), str(names[1]))
    now = (DELETED_NAME, was[1]) if seat == 0 else (was[0], DELETED_NAME)
    db.execute(update(games).where(games.c.id == game_id).values(players=json.dumps(list(now))))
    rename_reviews(db, game_id, was, now)


def _erase(db: Connection, account_id: int) -> None:
    """Remove an account and every row that names it (in ``db``'s
    transaction): its sessions, seats, rating history and "Play now"
    places go; its offers are withdrawn and kept under
    :data:`DELETED_NAME` (a matched one tells which game it made)."""
    db.execute(delete(sessions).where(sessions.c.account_id == account_id))
    db.execute(delete(game_players).where(game_players.c.account_id == account_id))
    db.execute(delete(rating_changes).where(rating_changes.c.account_id == account_id))
    db.execute(
        update(rating_changes)
        .where(rating_changes.c.opponent_id == account_id)
        .values(opponent_id=DELETED_ID)
    )
    db.execute(delete(play_now).where(play_now.c.account_id == account_id))
    mine = seeks.c.account_id == account_id
    db.execute(update(seeks).where(mine, seeks.c.status == "open").values(status="cancelled"))
    db.execute(update(seeks).where(mine).values(account_id=None, name=DELETED_NAME))
    db.execute(update(seeks).where(seeks.c.acceptor_id == account_id).values(acceptor_id=None))
    look = db.execute(select(accounts.c.name_look).where(accounts.c.id == account_id)).scalar()
    db.execute(delete(accounts).where(accounts.c.id == account_id))
    if look is not None:
        _hand_look_over(db, look)


def _hand_look_over(db: Connection, look: str) -> None:
    """The look a deleted account held goes to the earliest account that
    looks the same and holds none (revisions 0011 and 0013 leave the later
    of two look-alike accounts without one): else nobody would hold it, and
    a guest could play under that account's very name."""
    unheld = db.execute(
        select(accounts.c.id, accounts.c.name)
        .where(accounts.c.name_look.is_(None))
        .order_by(accounts.c.id)
    ).all()
    for row in unheld:
        if name_look(row.name) == look:
            db.execute(update(accounts).where(accounts.c.id == row.id).values(name_look=look))
            return
