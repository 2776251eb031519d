"""The JSON bodies the API accepts, as Pydantic models with their limits.

FastAPI validates a body against its model before the route runs; a body
that does not fit is answered ``400`` with one line naming the field
(:func:`marjolet.web.errors.from_validation`). The size of every body is
capped before it is even parsed (``max_body_size`` of the application and
of the upload route, :mod:`marjolet.web.routes`), and JSON nested too deeply
is refused by the parser; so no body can cost more than its limit.

What a model cannot know (the bots this server offers: the operator's
``--allow-bot`` list) is checked by the route, against the hub's catalogue.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, model_validator

from marjolet.errors import MarjoletError
from marjolet.record import UNNAMED_PLAYER
from marjolet.rules import CLASSIC, Rules, check_new_match
from marjolet.web.text import surrogate_refusal

#: Longest display name, in characters (longer ones are cut).
MAX_NAME = 24
#: Longest secret a client may quote (seat token, invite code).
MAX_SECRET = 128
#: Longest name or password a client may send (the accounts' own rules are stricter).
MAX_CREDENTIAL = 256
#: Correspondence: the longest time a move may take, in days.
MAX_DAYS = 14
#: Longest bot choice name a client may send (longer is no choice of ours).
MAX_BOT_NAME = 200

Mode = Literal["bot", "friend", "watch"]


def required(meaning: str) -> Any:
    """The default of a required text field: absent, the body is refused in one
    line naming it and what it is ("'new' is missing: the new password"), not
    read as empty (a missing password would be "too short") nor refused with
    Pydantic's "Field required". ``meaning``: what the field holds."""
    return Field(default="", json_schema_extra={"missing": meaning})


def clean_name(value: object, default: str) -> str:
    """A display name: printable, trimmed, at most :data:`MAX_NAME` characters."""
    if not isinstance(value, str):
        return default
    text = "".join(ch for ch in value if ch.isprintable()).strip()
    return text[:MAX_NAME] or default


def _mode(value: object) -> object:
    if value not in ("bot", "friend", "watch"):
        raise ValueError(f"'mode' must be 'bot', 'friend' or 'watch', got {str(value)[:20]!r}")
    return value


def _rules(value: object) -> Rules:
    """A rule set a new match may be played with (R1-R23 and the limits of
    ``marjolet rules``), from a profile name or a record's ``rules`` object."""
    if isinstance(value, Rules):
        return value
    try:
        return check_new_match(Rules.from_json(value))
    except MarjoletError as exc:
        raise ValueError(f"rules: {exc}") from None


def _bot_name(value: object) -> object:
    if not isinstance(value, str) or len(value) > MAX_BOT_NAME:
        raise ValueError(f"unknown bot {repr(value)[:40]} (see /api/options for the choices)")
    return value


def _bot_pair(value: object) -> object:
    if not isinstance(value, list | tuple) or len(value) != 2:
        raise ValueError("'bots' must name two bot choices")
    return tuple(_bot_name(v) for v in value)


def _text(what: str, limit: int) -> BeforeValidator:
    def check(value: object) -> object:
        if not isinstance(value, str) or len(value) > limit:
            raise ValueError(what)
        return value

    return BeforeValidator(check)


def _secret(what: str, *, optional: bool = False) -> BeforeValidator:
    """A secret (a token, an invite code) of at most MAX_SECRET characters;
    ``what`` is the refusal's message. ``optional``: ``None`` passes."""

    def check(value: object) -> object:
        if optional and value is None:
            return value
        if not isinstance(value, str) or not 0 < len(value) <= MAX_SECRET:
            raise ValueError(what)
        return value

    return BeforeValidator(check)


class Body(BaseModel):
    """A request body: a JSON object; unknown keys are ignored. No string
    in it, known key or not, may hold a lone surrogate (web/text.py): it is
    refused first, naming the field, before a name is hashed or a secret
    compared."""

    model_config = ConfigDict(extra="ignore", frozen=True, arbitrary_types_allowed=True)

    @model_validator(mode="before")
    @classmethod
    def _only_text(cls, data: object) -> object:
        refusal = surrogate_refusal(data) if isinstance(data, dict) else None
        if refusal is not None:
            raise ValueError(refusal)
        return data

    @model_validator(mode="before")
    @classmethod
    def _nothing_missing(cls, data: object) -> object:
        """A field made with :func:`required` absent: refused, named (a present
        one of the wrong kind gets its own check's sentence)."""
        if isinstance(data, dict):
            for name, field in cls.model_fields.items():
                extra = field.json_schema_extra
                if isinstance(extra, dict) and "missing" in extra and name not in data:
                    raise ValueError(f"{name!r} is missing: {extra['missing']}")
        return data


class NewGame(Body):
    """``POST /api/games``: a game against a bot, with a friend, or a
    bot-vs-bot match to watch."""

    mode: Annotated[Mode, BeforeValidator(_mode)] = Field(default=None, validate_default=True)
    rules: Annotated[Rules, BeforeValidator(_rules)] = CLASSIC
    #: ``bot`` mode: the player level (``beginner`` ... ``expert``), what the
    #: lobby sends; else ``bot``, a bot choice (programs, old clients); the
    #: server's default level when neither is given.
    level: Annotated[str | None, BeforeValidator(_bot_name)] = None
    bot: Annotated[str | None, BeforeValidator(_bot_name)] = None
    #: ``watch`` mode: the two bot choices (a level is ``level:KEY``).
    bots: Annotated[tuple[str, str] | None, BeforeValidator(_bot_pair)] = None
    name: Annotated[str, BeforeValidator(lambda v: clean_name(v, UNNAMED_PLAYER))] = UNNAMED_PLAYER

    @model_validator(mode="after")
    def _watch_needs_bots(self) -> NewGame:
        if self.mode == "watch" and self.bots is None:
            raise ValueError("'bots' must name two bot choices")
        return self


class InviteCode(Body):
    """``POST /api/games/ID/invite``: an invite link's code, to be checked."""

    invite: Annotated[str, _secret("'invite' must be the code of the invite link")] = required(
        "the code of the invite link"
    )


class Join(Body):
    """``POST /api/games/ID/join``: take seat 1 of a friend game."""

    invite: Annotated[str, _secret("'invite' must be the code of the invite link")] = required(
        "the code of the invite link"
    )
    name: Annotated[str, BeforeValidator(lambda v: clean_name(v, "friend"))] = "friend"


class SeatToken(Body):
    """``/api/games/ID/rematch``: the seat's secret token (a seat held by the
    logged-in account needs none) and, for a game found online, ``owner``:
    the owner token of the seat's rematch offer, which seats a guest who
    offered it at the new table."""

    token: Annotated[
        str | None, _secret("'token' must be the token of your seat", optional=True)
    ] = None
    owner: Annotated[
        str | None, _secret("'owner' must be the owner token of your offer", optional=True)
    ] = None
    #: ``POST /api/games/ID/rematch`` only: take the other seat's open offer
    #: and never make one (an Accept pressed after the offer was withdrawn).
    take: Annotated[bool, BeforeValidator(_take)] = False


class NoOptions(Body):
    """``POST /api/games/ID/review``: ``{}`` (read all the same, so that the
    body is held to the request limit and checked like any other)."""


class Credentials(Body):
    """``POST /api/accounts`` and ``POST /api/session``: a name and a password
    (their rules are checked by web/accounts.py, with one message each)."""

    name: Annotated[str, _text("'name' must be your account's name", MAX_CREDENTIAL)] = required(
        "your account's name"
    )
    password: Annotated[str, _text("'password' must be your password (text)", MAX_CREDENTIAL)] = (
        required("your password")
    )


class PasswordChange(Body):
    """``POST /api/me/password``: the current password and the new one (the
    new one held to the sign-up's rule by web/accounts.py)."""

    current: Annotated[
        str, _text("'current' must be your current password (text)", MAX_CREDENTIAL)
    ] = required("your current password")
    new: Annotated[str, _text("'new' must be the new password (text)", MAX_CREDENTIAL)] = required(
        "the new password"
    )


class PasswordCheck(Body):
    """``DELETE /api/me``: the account's password, asked again."""

    password: Annotated[str, _text("'password' must be your password (text)", MAX_CREDENTIAL)] = (
        required("your password")
    )


def _rated(value: object) -> object:
    if not isinstance(value, bool):
        raise ValueError("'rated' must be true or false")
    return value


def _take(value: object) -> object:
    if not isinstance(value, bool):
        raise ValueError("'take' must be true or false")
    return value


def _days(value: object) -> object:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_DAYS:
        raise ValueError(f"'days_per_move' must be a whole number of days from 1 to {MAX_DAYS}")
    return value


def _bot_after(value: object) -> object:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 600:
        raise ValueError("'bot_after' must be a number of seconds from 0 to 600, or null")
    return float(value)


class NewSeek(Body):
    """``POST /api/seeks``: an offer to play (rated ones need a login)."""

    rules: Annotated[Rules, BeforeValidator(_rules)] = CLASSIC
    rated: Annotated[bool, BeforeValidator(_rated)] = False
    days_per_move: Annotated[int | None, BeforeValidator(_days)] = None
    #: A guest's display name (an account plays under its own name).
    name: Annotated[str, BeforeValidator(lambda v: clean_name(v, "guest"))] = "guest"


#: A random id made by ``secrets.token_urlsafe`` or a page (a "Play now"
#: place's key, a browser's id): anything else is refused before it is
#: hashed or stored (a lone surrogate cannot even be encoded).
OPAQUE_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")


def _browser(value: object) -> object:
    if value is None:
        return None
    if not isinstance(value, str) or not OPAQUE_ID.fullmatch(value):
        raise ValueError("'browser' must be 1 to 64 letters, digits, '-' or '_', or null")
    return value



class PlayNow(Body):
    """``POST /api/play-now``: wait for an opponent of close rating, and
    take a computer opponent after ``bot_after`` seconds (null: never);
    ``browser``: the page's own id, so that its places are never paired
    together."""

    rules: Annotated[Rules, BeforeValidator(_rules)] = CLASSIC
    rated: Annotated[bool, BeforeValidator(_rated)] = False
    bot_after: Annotated[float | None, BeforeValidator(_bot_after)] = None
    name: Annotated[str, BeforeValidator(lambda v: clean_name(v, "guest"))] = "guest"
    browser: Annotated[str | None, BeforeValidator(_browser)] = None


class AcceptSeek(Body):
    """``POST /api/seeks/ID/accept``: a guest's display name (an account
    plays under its own)."""

    name: Annotated[str, BeforeValidator(lambda v: clean_name(v, "guest"))] = "guest"


class OwnerToken(Body):
    """``DELETE /api/seeks/ID``: the seek's owner token (an account that
    owns the seek needs none)."""

    token: Annotated[
        str | None, _secret("'token' must be the owner token of the offer", optional=True)
    ] = None


__all__ = [
    "MAX_NAME",
    "AcceptSeek",
    "Credentials",
    "Join",
    "Mode",
    "NewGame",
    "NewSeek",
    "NoOptions",
    "OwnerToken",
    "PasswordChange",
    "PasswordCheck",
    "PlayNow",
    "SeatToken",
    "clean_name",
]
