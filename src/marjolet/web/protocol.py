"""Messages from the browser: checked strictly before anything acts on them.

Every message is one JSON object of at most ``max_size`` bytes with a
``type``::

    {"type": "hello", "token": "..."}        # take your seat (first message)
    {"type": "hello", "watch": true}         # watch a bot-vs-bot match
    {"type": "hello", "account": true}       # the seat of the logged-in account
    {"type": "act", "action": "QS", "version": 17}
    {"type": "hint"}
    {"type": "next", "version": 42}          # start the next deal
    {"type": "ping"}
    {"type": "claim"}                        # the opponent left for good: take the win

``version`` is the position the client saw (the ``version`` of its last
``state``), so a double click or a message sent before an update arrived is
refused instead of being played in a position the player never saw.
Anything else raises :class:`ProtocolError` with a code and a one-line
message naming what is wrong. The messages are Pydantic models (one per
``type``, a union told apart by ``type``), with their checks as validators;
the size and the JSON itself are checked first.
"""

from __future__ import annotations

import json
import sys
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    TypeAdapter,
    ValidationError,
    model_validator,
)
from pydantic_core import PydanticCustomError

from marjolet.actions import parse_action
from marjolet.errors import ActionError, MarjoletError
from marjolet.web.text import surrogate_refusal


class ProtocolError(MarjoletError):
    """A message that cannot be understood; ``code`` is machine-readable."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


MAX_TOKEN = 128
MAX_ACTION_TEXT = 16
TYPES = "act, hint, next, ping, claim or hello"


def _short(value: object) -> str:
    text = json.dumps(value) if not isinstance(value, str) else repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _version(value: object) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise ValueError(f"'version' must be a whole number >= 0, got {_short(value)}")
    return value


def _action(value: object) -> int:
    """An action spelled as in records; an unknown spelling has its own code."""
    if not isinstance(value, str) or len(value) > MAX_ACTION_TEXT:
        raise ValueError(
            f"'action' must be text like 'QS', 'meld KQH', 'dix' or 'draw', got {_short(value)}"
        )
    try:
        return parse_action(value)
    except ActionError as exc:
        raise PydanticCustomError("unknown_action", str(exc)) from None


def _token(value: object) -> object:
    if value is not None and (not isinstance(value, str) or not 0 < len(value) <= MAX_TOKEN):
        raise ValueError("'token' must be the seat's secret text")
    return value


def _watch(value: object) -> object:
    if not isinstance(value, bool):
        raise ValueError("'watch' must be true or false")
    return value


def _account(value: object) -> object:
    if not isinstance(value, bool):
        raise ValueError("'account' must be true or false")
    return value


#: A version that must be given (absent, its own check refuses it).
Version = Annotated[int, BeforeValidator(_version)]
REQUIRED: Any = Field(default=None, validate_default=True)


class Message(BaseModel):
    """A message from a browser; unknown keys are ignored."""

    model_config = ConfigDict(extra="ignore", frozen=True)


class Hello(Message):
    type: Literal["hello"]
    token: Annotated[str | None, BeforeValidator(_token)] = None
    watch: Annotated[bool, BeforeValidator(_watch)] = False
    #: Take the seat the logged-in account (the session cookie) holds.
    account: Annotated[bool, BeforeValidator(_account)] = False

    @model_validator(mode="after")
    def _token_or_watch(self) -> Hello:
        if self.token is None and not self.watch and not self.account:
            raise ValueError(
                "'hello' needs a 'token' (to play), 'account': true (your account's seat) "
                "or 'watch': true"
            )
        return self


class Act(Message):
    type: Literal["act"]
    action: Annotated[int, BeforeValidator(_action)] = REQUIRED
    version: Version = REQUIRED


class Hint(Message):
    type: Literal["hint"]


class Next(Message):
    type: Literal["next"]
    version: Version = REQUIRED


class Ping(Message):
    type: Literal["ping"]


class Claim(Message):
    """Claim the match: the opponent left and their grace ran out."""

    type: Literal["claim"]


class Resign(Message):
    """Give the match up: the other seat wins it."""

    type: Literal["resign"]


ClientMessage = Hello | Act | Hint | Next | Ping | Claim | Resign

_MESSAGES: TypeAdapter[ClientMessage] = TypeAdapter(
    Annotated[ClientMessage, Field(discriminator="type")]
)


def parse_message(data: str | bytes | None, max_size: int) -> ClientMessage:
    """Check and decode one message from a browser."""
    if data is None or isinstance(data, bytes):
        raise ProtocolError("malformed", "messages must be JSON text, not binary frames")
    size = len(data.encode("utf-8", "surrogatepass"))
    if size > max_size:
        raise ProtocolError(
            "too_large", f"message too large ({size} bytes; the limit is {max_size})"
        )
    try:
        obj = json.loads(data)
    except (json.JSONDecodeError, RecursionError) as exc:
        where = f" at column {exc.colno}" if isinstance(exc, json.JSONDecodeError) else ""
        raise ProtocolError("malformed", f"malformed JSON{where}") from None
    except ValueError:  # an integer longer than Python converts (sys.get_int_max_str_digits)
        raise ProtocolError(
            "malformed", f"a number of more than {sys.get_int_max_str_digits()} digits"
        ) from None
    if not isinstance(obj, dict):
        raise ProtocolError("malformed", "a message must be a JSON object with a 'type'")
    refusal = surrogate_refusal(obj)
    if refusal is not None:
        raise ProtocolError("malformed", refusal)
    try:
        return _MESSAGES.validate_python(obj)
    except ValidationError as exc:
        raise _refusal(exc, obj.get("type")) from None


def _refusal(exc: ValidationError, kind: object) -> ProtocolError:
    """The first problem of a message, in one line with its code."""
    first = exc.errors()[0]
    if first["type"] in ("union_tag_invalid", "union_tag_not_found"):
        return ProtocolError("malformed", f"unknown message type {_short(kind)} (expected {TYPES})")
    if first["type"] == "unknown_action":
        return ProtocolError("unknown_action", first["msg"])
    cause = first.get("ctx", {}).get("error")
    return ProtocolError("malformed", str(cause) if cause is not None else first["msg"])
