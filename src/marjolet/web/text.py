"""Text from clients that is not text: a lone UTF-16 surrogate.

JSON may spell any code unit (``"\\ud800"``), and Python decodes such an
escape into a ``str`` that cannot be encoded as UTF-8: hashing it, storing
it, logging it or writing it back in an answer raises
``UnicodeEncodeError``. So every JSON body (:mod:`~marjolet.web.schemas`)
and WebSocket message (:mod:`~marjolet.web.protocol`, the lobby socket) is
searched for one before anything reads it, and refused naming the field
(:func:`surrogate_refusal`); and every refusal's own text is made safe to
write (:func:`printable_line`), whatever it quotes.
"""

from __future__ import annotations

import re

#: A lone surrogate: never part of text that UTF-8 can encode.
_SURROGATE = re.compile("[\ud800-\udfff]")
#: Line breaks and other control characters: a refusal is one line.
_CONTROL = re.compile("[\x00-\x1f\x7f]+")
#: Longest refusal text written to a client or the log (it may quote what
#: the client sent, which can be a few kilobytes).
MAX_LINE = 400


def lone_surrogate(value: object) -> str | None:
    """Where ``value`` (a decoded JSON value) holds a string with a lone
    surrogate, as a dotted path of keys and indexes (``""``: the value
    itself), or ``None`` if it holds none. Iterative: JSON nested as deeply
    as the parser allows is searched without recursion."""
    stack: list[tuple[str, object]] = [("", value)]
    while stack:
        where, item = stack.pop()
        if isinstance(item, str):
            if _SURROGATE.search(item):
                return where
        elif isinstance(item, dict):
            for key, inner in item.items():
                path = f"{where}.{key}" if where else str(key)
                if _SURROGATE.search(str(key)):
                    return printable_line(path)
                stack.append((path, inner))
        elif isinstance(item, list | tuple):
            stack.extend((f"{where}.{i}" if where else str(i), v) for i, v in enumerate(item))
    return None


def surrogate_refusal(value: object) -> str | None:
    """The one-line refusal of a JSON value holding a lone surrogate
    (``None``: it holds none)."""
    where = lone_surrogate(value)
    if where is None:
        return None
    field = f"'{printable_line(where)[:60]}'" if where else "the message"
    return (
        f"{field} is not valid text: it holds a lone UTF-16 surrogate "
        "(an escape such as \\ud800 that is half of a character)"
    )


def printable_line(text: str) -> str:
    """``text`` as one line that can be written anywhere: lone surrogates
    as their escapes, control characters as one space, at most
    :data:`MAX_LINE` characters."""
    text = text.encode("utf-8", "backslashreplace").decode("utf-8")
    text = _CONTROL.sub(" ", text)
    return text if len(text) <= MAX_LINE else text[: MAX_LINE - 1] + "…"
