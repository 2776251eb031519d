"""Messages from the browser: checked strictly before anything acts on them.

Every message is one JSON object of at most ``max_size`` bytes with a
``type``::

    {"type": "hello", "token": "..."}        # take your seat (first message)
    {"type": "hello", "watch": true}         # watch a bot-vs-bot match
    {"type": "act", "action": "QS", "version": 17}
    {"type": "hint"}
    {"type": "next", "version": 42}          # start the next deal
    {"type": "ping"}

``version`` is the position the client saw (the ``version`` of its last
``state``), so a double click or a message sent before an update arrived is
refused instead of being played in a position the player never saw.
Anything else raises :class:`ProtocolError` with a code and a one-line
message naming what is wrong.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from marjolet.actions import parse_action
from marjolet.errors import ActionError, MarjoletError


class ProtocolError(MarjoletError):
    """A message that cannot be understood; ``code`` is machine-readable."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


@dataclass(frozen=True, slots=True)
class Hello:
    token: str | None
    watch: bool


@dataclass(frozen=True, slots=True)
class Act:
    action: int
    version: int


@dataclass(frozen=True, slots=True)
class Hint:
    pass


@dataclass(frozen=True, slots=True)
class Next:
    version: int


@dataclass(frozen=True, slots=True)
class Ping:
    pass


ClientMessage = Hello | Act | Hint | Next | Ping

MAX_TOKEN = 128
MAX_ACTION_TEXT = 16


def _version(obj: dict[str, Any]) -> int:
    v = obj.get("version")
    if not isinstance(v, int) or isinstance(v, bool) or v < 0:
        raise ProtocolError("malformed", f"'version' must be a whole number >= 0, got {_short(v)}")
    return v


def _short(value: object) -> str:
    text = json.dumps(value) if not isinstance(value, str) else repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


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
    if not isinstance(obj, dict):
        raise ProtocolError("malformed", "a message must be a JSON object with a 'type'")
    kind = obj.get("type")
    if kind == "act":
        text = obj.get("action")
        if not isinstance(text, str) or len(text) > MAX_ACTION_TEXT:
            raise ProtocolError(
                "malformed",
                f"'action' must be text like 'QS', 'meld KQH', 'dix' or 'draw', got {_short(text)}",
            )
        try:
            action = parse_action(text)
        except ActionError as exc:
            raise ProtocolError("unknown_action", str(exc)) from None
        return Act(action, _version(obj))
    if kind == "hello":
        token = obj.get("token")
        watch = obj.get("watch", False)
        if token is not None and (not isinstance(token, str) or not 0 < len(token) <= MAX_TOKEN):
            raise ProtocolError("malformed", "'token' must be the seat's secret text")
        if not isinstance(watch, bool):
            raise ProtocolError("malformed", "'watch' must be true or false")
        if token is None and not watch:
            raise ProtocolError("malformed", "'hello' needs a 'token' (to play) or 'watch': true")
        return Hello(token, watch)
    if kind == "hint":
        return Hint()
    if kind == "next":
        return Next(_version(obj))
    if kind == "ping":
        return Ping()
    raise ProtocolError(
        "malformed",
        f"unknown message type {_short(kind)} (expected act, hint, next, ping or hello)",
    )
