"""The one bot interface used by the arena, the terminal, the browser and
the research adapters.

A bot gets an :class:`~marjolet.observation.Observation` (never the deal) and
the legal action ids, and returns one of them. It is built from a spec string
by :func:`marjolet.bots.make_bot`, is reproducible under its ``seed``, and
honours its budget parameters. A new match must get a fresh bot (or a call
to :meth:`Bot.new_match`) so that no state leaks between duplicate games.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from marjolet.engine import Deal
from marjolet.errors import MarjoletError
from marjolet.observation import Observation


class BotSpecError(MarjoletError):
    """An unknown bot name or a bad bot parameter in a spec string.

    ``kind`` says which, where a player's command words it itself:
    ``"unknown"`` (no such ``param``; ``value`` lists the bot's parameters,
    empty if it has none), ``"number"`` or ``"integer"`` (``param=value``
    is not one), ``""`` otherwise (the message alone says it)."""

    def __init__(
        self, message: str, *, kind: str = "", param: str = "", value: str = ""
    ) -> None:
        super().__init__(message)
        self.kind, self.param, self.value = kind, param, value


class BotFault(MarjoletError):
    """A bot broke down during a match (an external bot's illegal or garbled
    answer, a time-out, a crash). The bot forfeits the match: hosts catch
    this, score the match for the other seat and report ``str(fault)``.

    ``seat`` is filled in by the host that knows it; ``stderr_tail`` holds
    the last lines the bot wrote to its standard error, if any.
    """

    def __init__(self, message: str, *, seat: int | None = None, stderr_tail: str = "") -> None:
        super().__init__(message)
        self.seat = seat
        self.stderr_tail = stderr_tail


@dataclass(frozen=True, slots=True)
class Param:
    """One parameter of a bot: its type (``int``, ``float``, ``str``,
    ``bool``), default and one-line help."""

    name: str
    type: type
    default: Any
    help: str

    def parse(self, text: str, spec: str) -> Any:
        if self.type in (int, float) and (not text.isascii() or "_" in text):
            # Python's int() and float() also take 1_000 and other scripts'
            # digits (١٠٠): a spec is written, logged and compared as typed,
            # so a number in it is plain ASCII, one spelling per value.
            raise BotSpecError(
                f"bot spec {spec!r}: parameter {self.name}={text!r} is not a plain number "
                "(write it with the digits 0-9, no '_')",
                kind="number", param=self.name, value=text,
            )
        try:
            if self.type is bool:
                if text.lower() in ("1", "true", "yes", "on"):
                    return True
                if text.lower() in ("0", "false", "no", "off"):
                    return False
                raise ValueError(text)
            value = self.type(text)
            if self.type is float and not math.isfinite(value):
                raise ValueError(text)
            return value
        except ValueError:
            kind = "finite number" if self.type is float else f"valid {self.type.__name__}"
            raise BotSpecError(
                f"bot spec {spec!r}: parameter {self.name}={text!r} is not a {kind}",
                kind={float: "number", int: "integer"}.get(self.type, ""), param=self.name,
                value=text,
            ) from None


class Bot:
    """Base class of every bot. Subclasses set ``name``, ``description`` and
    ``params`` and implement :meth:`choose`."""

    name: ClassVar[str] = ""
    description: ClassVar[str] = ""
    params: ClassVar[tuple[Param, ...]] = ()
    #: True only for the ``cheater`` bot: the host then calls
    #: :meth:`see_deal` with the true deal before each :meth:`choose`.
    sees_hidden_cards: ClassVar[bool] = False

    def __init__(self, *, seed: int | None = None, **options: Any) -> None:
        self.seed = seed
        self.rng = random.Random(seed)
        known = {p.name: p for p in self.params}
        for key in options:
            if key not in known:
                raise BotSpecError(f"bot {self.name!r} has no parameter {key!r}")
        self.options: dict[str, Any] = {p.name: options.get(p.name, p.default) for p in self.params}
        for p in self.params:
            value = self.options[p.name]
            if p.type is float and not math.isfinite(value):
                raise BotSpecError(f"bot {self.name!r}: {p.name}={value!r} is not a finite number")

    def choose(self, obs: Observation, legal: Sequence[int]) -> int:
        """Return one of ``legal`` for the position ``obs``."""
        raise NotImplementedError

    def new_match(self, seed: int | None = None) -> None:
        """Forget everything from earlier matches and reseed."""
        self.seed = seed if seed is not None else self.seed
        self.rng = random.Random(self.seed)

    def see_deal(self, deal: Deal) -> None:
        """Only for bots with ``sees_hidden_cards``: the true deal (handed
        over by the turn driver, :meth:`marjolet.turns.TurnDriver.brief`)."""

    def end_match(self, totals: Sequence[int], winner: int) -> None:
        """The match is over (after a forfeit, ``winner`` is the other
        seat). Hosts call it after each match; an external bot sends the
        protocol's ``result``. In-process bots need nothing."""

    def close(self) -> None:
        """The host is done with this bot: release what it holds (an
        external bot ends and reaps its program). Safe to call twice."""

    @property
    def spec(self) -> str:
        """The spec string that rebuilds this bot."""
        changed = [
            f"{p.name}={self.options[p.name]}"
            for p in self.params
            if self.options[p.name] != p.default
        ]
        return self.name + (":" + ",".join(changed) if changed else "")

    def __repr__(self) -> str:
        return f"make_bot({self.spec!r}, seed={self.seed!r})"


def end_match(bots: Sequence[Bot], totals: Sequence[int], winner: int) -> None:
    """Tell every bot that the match is over (:meth:`Bot.end_match`)."""
    for bot in bots:
        bot.end_match(totals, winner)


def close_bots(bots: Sequence[Bot]) -> None:
    """Close every bot (:meth:`Bot.close`). Garbage collection and
    interpreter exit do the same for external bots as a safety net, but a
    host that is done with its bots should say so."""
    for bot in bots:
        bot.close()
