"""A server log that cannot flood (issue 21).

At a low open-file limit, one error repeated thousands of times a second
(each with its traceback) filled 599 MB of log in 70 s. :class:`OncePerWindow`
is a :class:`logging.Filter` that lets the first record of a kind through
and holds back the same kind for ``window`` seconds; the next one let
through says how many were held back. Two records are of the same kind when
they come from the same logger at the same level with the same message once
numbers and identifiers are blanked (a game id, a count of seconds, an
address), and the same exception type.

``marjolet serve`` installs one on every handler of the root logger and of
uvicorn's loggers (:func:`install`).

:class:`OneLine` keeps each record one line, with its time (docs/deploy.md):
an exception given as an argument (``log.error("...: %s", exc)``) is
written as its one-line reason, and a text argument that holds a line break
(a client's) as its escape. A database error is the driver's message,
without the ``[SQL: ...]``, ``[parameters: ...]`` and background link that
SQLAlchemy's text adds on lines of their own; the web server's logger has
one from its start (:func:`keep_one_line`).

>>> guard = OncePerWindow(window=60.0)
>>> def rec(msg: str) -> logging.LogRecord:
...     return logging.LogRecord("marjolet.web", logging.ERROR, "x", 1, msg, None, None)
>>> [guard.filter(rec(f"game g{i}: could not store JS")) for i in range(3)]
[True, False, False]
>>> guard.held_back()
2
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable, Iterable

__all__ = ["OncePerWindow", "OneLine", "install", "keep_one_line", "kind_of", "one_line"]

#: Seconds during which the same kind of record is logged once.
DEFAULT_WINDOW_S = 60.0
#: Kinds remembered at most (then forgotten all at once).
MOST_KINDS = 10_000

# a token with a digit in it (an id, a count, an address), or a long
# identifier-like token (a game id made of letters only)
_VARIABLE = re.compile(r"[\w.-]*\d[\w.-]*|\b[\w-]{12,}\b")


def kind_of(record: logging.LogRecord) -> tuple[str, int, str, str]:
    """What makes two records "the same" (see the module docstring)."""
    try:
        message = record.getMessage()
    except Exception:  # a bad format must not break logging
        message = str(record.msg)
    exc = record.exc_info[0].__name__ if record.exc_info and record.exc_info[0] else ""
    return record.name, record.levelno, _VARIABLE.sub("#", message[:500]), exc


class OncePerWindow(logging.Filter):
    """Let one record of each kind through per ``window`` seconds (see the
    module docstring); ``clock`` is for tests."""

    def __init__(
        self, window: float = DEFAULT_WINDOW_S, clock: Callable[[], float] = time.monotonic
    ) -> None:
        super().__init__()
        self.window = window
        self.clock = clock
        #: kind -> (when it was last let through, how many held back since)
        self._seen: dict[tuple[str, int, str, str], tuple[float, int]] = {}

    def filter(self, record: logging.LogRecord) -> bool:
        kind = kind_of(record)
        now = self.clock()
        seen = self._seen.get(kind)
        if seen is not None and now - seen[0] < self.window:
            self._seen[kind] = (seen[0], seen[1] + 1)
            return False
        if len(self._seen) >= MOST_KINDS:
            self._seen.clear()
        self._seen[kind] = (now, 0)
        if seen is not None and seen[1]:
            record.msg = f"{record.msg} (and {seen[1]} more like it in the last {self.window:g} s)"
        return True

    def held_back(self) -> int:
        """Records held back in the current windows, in all."""
        return sum(count for _, count in self._seen.values())


def one_line(exc: BaseException) -> str:
    """``exc`` as one line: a database error (SQLAlchemy's, with the
    driver's error in ``orig``) as the driver's message, cut to 300
    characters; any other with its lines joined."""
    original = getattr(exc, "orig", None)
    if original is not None:
        return " ".join(str(original).split())[:300]
    return " ".join(str(exc).split())


#: Line breaks and other control characters, which a client can put in what
#: a record quotes (a WebSocket's path is logged decoded: ``/ws/%0a...``).
_CONTROL = re.compile("[\x00-\x1f\x7f]")


def flat(text: str) -> str:
    """``text`` on one line: each control character as its escape (a client
    cannot start a forged line of the log), and a lone surrogate too (the
    log file is UTF-8)."""
    text = _CONTROL.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), text)
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


class OneLine(logging.Filter):
    """Write every exception among a record's arguments as :func:`one_line`,
    and every text argument as :func:`flat` (see the module docstring)."""

    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args
        if isinstance(args, tuple):
            record.args = tuple(
                one_line(a) if isinstance(a, BaseException) else flat(a) if isinstance(a, str)
                else a
                for a in args
            )
        if isinstance(record.msg, str):
            record.msg = flat(record.msg)
        return True


_ONE_LINE = OneLine()


def keep_one_line(logger: logging.Logger) -> None:
    """Put the :class:`OneLine` filter on ``logger`` (once)."""
    if _ONE_LINE not in logger.filters:
        logger.addFilter(_ONE_LINE)


def install(
    guard: logging.Filter | None = None,
    loggers: Iterable[str] = ("", "uvicorn", "uvicorn.error", "uvicorn.access", "asyncio"),
) -> logging.Filter:
    """Put ``guard`` (a new :class:`OncePerWindow` by default) on every
    handler of ``loggers`` (the root logger's included); returns it."""
    guard = guard or OncePerWindow()
    for name in loggers:
        for handler in logging.getLogger(name).handlers:
            if guard not in handler.filters:
                handler.addFilter(guard)
    return guard
