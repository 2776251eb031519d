"""Progress of a run: a live bar on a terminal, plain lines otherwise.

The runner calls :meth:`Progress.update` after every finished batch with a
function that computes the running figures; reporters call it only when
they draw (at most ten times a second on a terminal, every ten percent or
ten seconds in plain mode), so a fast run is not slowed down by statistics.
Everything goes to standard error, leaving standard output to the results.
"""

from __future__ import annotations

import shutil
import sys
import time
from collections.abc import Callable
from typing import Protocol, TextIO

Figures = Callable[[], str]


class Progress(Protocol):
    def start(self, total: int, done: int, title: str) -> None: ...

    def update(self, done: int, figures: Figures) -> None: ...

    def finish(self) -> None: ...


def _duration(seconds: float) -> str:
    whole = round(seconds)
    h, rest = divmod(whole, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


class _Clock:
    """Rate and ETA of the matches played in this session."""

    def __init__(self) -> None:
        self.total = 0
        self.first = 0
        self.started = time.monotonic()

    def reset(self, total: int, done: int) -> None:
        self.total, self.first, self.started = total, done, time.monotonic()

    def rate(self, done: int) -> float:
        elapsed = time.monotonic() - self.started
        return (done - self.first) / elapsed if elapsed > 0 else 0.0

    def eta(self, done: int) -> str:
        rate = self.rate(done)
        if rate <= 0:
            return "?"
        return _duration((self.total - done) / rate)


class NullProgress:
    """Reports nothing (``--quiet`` and the Python API's default)."""

    def start(self, total: int, done: int, title: str) -> None:
        pass

    def update(self, done: int, figures: Figures) -> None:
        pass

    def finish(self) -> None:
        pass


class TerminalProgress:
    """One line redrawn in place: bar, count, rate, ETA, running figures.
    ``eta`` is the word before the time left (``marjolet review`` says it
    in the player's language)."""

    def __init__(
        self, stream: TextIO | None = None, interval: float = 0.1, *, eta: str = "ETA"
    ) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.interval = interval
        self.eta = eta
        self.clock = _Clock()
        self._last = 0.0
        self._done = 0
        self._title = ""

    def start(self, total: int, done: int, title: str) -> None:
        self.clock.reset(total, done)
        self._title = title
        self._done = done
        self._draw(done, "")

    def update(self, done: int, figures: Figures) -> None:
        self._done = done
        now = time.monotonic()
        if now - self._last >= self.interval or done >= self.clock.total:
            self._draw(done, figures())

    def _draw(self, done: int, figures: str) -> None:
        self._last = time.monotonic()
        total = max(self.clock.total, 1)
        width = shutil.get_terminal_size((100, 24)).columns
        bar_width = 20
        filled = int(bar_width * done / total)
        bar = "#" * filled + "-" * (bar_width - filled)
        rate = self.clock.rate(done)
        head = (
            f"{self._title} [{bar}] {done}/{self.clock.total} "
            f"{rate:.1f}/s {self.eta} {self.clock.eta(done)}"
        )
        line = f"{head}  {figures}" if figures else head
        self.stream.write("\r" + line[: width - 1] + "\x1b[K")
        self.stream.flush()

    def finish(self) -> None:
        self.stream.write("\r\x1b[K")
        self.stream.flush()


class PlainProgress:
    """A line every tenth of the run or every ten seconds, for logs and pipes."""

    def __init__(self, stream: TextIO | None = None, seconds: float = 10.0) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.seconds = seconds
        self.clock = _Clock()
        self._last_time = 0.0
        self._last_done = 0
        self._title = ""

    def start(self, total: int, done: int, title: str) -> None:
        self.clock.reset(total, done)
        self._title = title
        self._last_time = time.monotonic()
        self._last_done = done
        resumed = f" ({done} already played)" if done else ""
        print(f"{title}: {total} matches{resumed}", file=self.stream, flush=True)

    def update(self, done: int, figures: Figures) -> None:
        total = self.clock.total
        step = max(1, total // 10)
        now = time.monotonic()
        if (
            done >= total
            or done // step > self._last_done // step
            or now - self._last_time >= self.seconds
        ):
            self._last_time = now
            self._last_done = done
            pct = 100.0 * done / max(total, 1)
            print(
                f"{self._title}: {done}/{total} matches ({pct:.0f}%), "
                f"{self.clock.rate(done):.1f}/s, ETA {self.clock.eta(done)}; {figures()}",
                file=self.stream,
                flush=True,
            )

    def finish(self) -> None:
        pass


def auto_progress(stream: TextIO | None = None) -> Progress:
    """A bar on a terminal, plain lines otherwise."""
    stream = stream if stream is not None else sys.stderr
    isatty = getattr(stream, "isatty", None)
    if isatty is not None and isatty():
        return TerminalProgress(stream)
    return PlainProgress(stream)
