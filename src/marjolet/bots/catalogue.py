"""The bots a player may choose (the web lobby, the terminal start screen):
a server-side list of names.

A client never sends a bot spec. It picks a *choice* by name from the list
this module builds (``GET /api/options`` shows names, labels and
descriptions, never specs), and the server maps the name to a spec string for
:func:`marjolet.bots.make_bot`. Only the operator adds choices
(``marjolet serve --allow-bot NAME=SPEC``), which is the only way a bot that
starts a program (``exec:PATH``, :mod:`marjolet.bots.external`) is ever
offered: a browser can never make the server start a program. Such an
entry is checked at start-up (the file exists and is executable) and its
path made absolute, so a game resumed after a restart runs the same file.

The default list holds every registered bot that can be built with its
defaults, except those that see hidden cards and those that start a
program, each at up to three strengths when the bot has a budget parameter
(``quick`` a quarter of the default budget, ``normal`` the default,
``strong`` twice it).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from marjolet.bots import bot_names, make_bot, parse_spec
from marjolet.bots.base import Bot, Param
from marjolet.bots.registry import EXEC, bot_class
from marjolet.errors import MarjoletError

#: Parameters that measure a bot's thinking budget, most telling first.
BUDGET_PARAMS = (
    "worlds",
    "iterations",
    "simulations",
    "sims",
    "playouts",
    "rollouts",
    "samples",
    "budget_s",
    "seconds",
    "time",
    "depth",
)
#: Preference order for the hint and the default opponent when
#: ``marjolet.bots.STRONGEST`` is not defined.
FALLBACK_ORDER = ("pimc", "ismcts", "mcts", "expectimax", "heuristic", "greedy", "random")
NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,31}$")
LEVELS = ("quick", "normal", "strong")
#: The level of the entry made for :data:`marjolet.bots.STRONGEST` when no
#: level of its family has exactly its spec (see :func:`with_strongest`).
STRONGEST_LEVEL = "strongest"
_LEVEL_FACTORS = {"quick": 0.25, "normal": 1.0, "strong": 2.0}


class BotChoiceError(MarjoletError):
    """An unknown bot choice, or a bad ``--allow-bot`` entry."""


@dataclass(frozen=True, slots=True)
class BotChoice:
    """One entry of the list: ``name`` is what the browser sends."""

    name: str
    #: The bot family shown in the opponent menu (``pimc``).
    family: str
    #: ``quick``, ``normal``, ``strong``, ``strongest`` (the default bot) or
    #: ``""`` for a single-strength bot.
    level: str
    spec: str
    label: str
    description: str

    def public(self) -> dict[str, str]:
        """What the browser may know: everything but the spec."""
        return {
            "name": self.name,
            "family": self.family,
            "level": self.level,
            "label": self.label,
            "description": self.description,
        }


def starts_program(bot: str | type[Bot] | Bot) -> bool:
    """Whether a bot (a spec string, a bot class or a bot) runs another
    program: ``exec:PATH`` or any subclass of the external bot."""
    if isinstance(bot, str):
        try:
            name = parse_spec(bot)[0]
        except MarjoletError:
            return False
        if name == EXEC:
            return True
        try:
            bot = bot_class(name)
        except (ImportError, AttributeError, MarjoletError):
            return False
    from marjolet.bots.external import ExternalBot

    if isinstance(bot, type):
        return issubclass(bot, ExternalBot)
    return isinstance(bot, ExternalBot)


def check_spec(spec: str) -> type[Bot]:
    """Check a spec string the way :func:`make_bot` would, without starting
    anything, and return the bot class. The bot is built (cheap: a program
    is checked, not started), so that a value its own checks refuse
    (``best:time=-1``) is refused now, not at the first game hours later."""
    return type(make_bot(spec, seed=0))


def absolute_spec(spec: str) -> str:
    """An ``exec`` spec with its program path made absolute (so that the
    spec stored with a game means the same file after a restart from
    another folder); any other spec unchanged."""
    name, raw = parse_spec(spec)
    if not starts_program(spec) or "path" not in raw:
        return spec
    path = os.path.abspath(raw["path"])
    rest = [f"{k}={v}" for k, v in raw.items() if k != "path"]
    if not rest:
        return f"{name}:{path}" if name == EXEC else f"{name}:path={path}"
    return f"{name}:path={path}," + ",".join(rest)


def strongest_spec() -> str:
    """``marjolet.bots.STRONGEST`` if the bots package names one, else the
    first registered bot of :data:`FALLBACK_ORDER`."""
    import marjolet.bots as bots

    named = getattr(bots, "STRONGEST", None)
    if isinstance(named, str) and named:
        try:
            check_spec(named)
            return named
        except MarjoletError:
            pass
    registered = set(bot_names())
    for name in FALLBACK_ORDER:
        if name in registered:
            return name
    return "random"


def _budget_param(cls: type[Bot]) -> Param | None:
    by_name = {p.name: p for p in cls.params}
    for name in BUDGET_PARAMS:
        p = by_name.get(name)
        if (
            p is not None
            and p.type in (int, float)
            and isinstance(p.default, int | float)
            and p.default > 0
        ):
            return p
    return None


def _level_spec(name: str, param: Param, level: str) -> str:
    value = param.default * _LEVEL_FACTORS[level]
    if level == "normal":
        return name
    if param.type is int:
        return f"{name}:{param.name}={max(1, round(value))}"
    return f"{name}:{param.name}={value:g}"


def _family_choices(name: str, base_spec: str | None = None) -> list[BotChoice]:
    cls = bot_class(name)
    description = cls.description or name
    param = _budget_param(cls) if base_spec is None else None
    if param is None:
        spec = base_spec or name
        return [BotChoice(name, name, "", spec, name, description)]
    return [
        BotChoice(
            f"{name}-{level}" if level != "normal" else name,
            name,
            level,
            _level_spec(name, param, level),
            f"{name} ({level})",
            description,
        )
        for level in LEVELS
    ]


def _builds(spec: str) -> bool:
    """Whether a built-in bot can be made with its defaults (one that needs
    a weights file or a missing extra is left out of the default list)."""
    try:
        make_bot(spec, seed=0)
    except Exception:
        return False
    return True


def with_strongest(choices: list[BotChoice], strongest: str) -> list[BotChoice]:
    """``choices`` holding :data:`marjolet.bots.STRONGEST` itself, so that
    the default opponent is the strongest bot: when no level of its family
    has exactly that spec, a ``strongest`` level is added after the family's
    other levels (derived from the spec, never written by hand)."""
    if any(c.spec == strongest for c in choices) or starts_program(strongest):
        return choices
    try:
        family = parse_spec(strongest)[0]
        description = bot_class(family).description or family
    except (ImportError, AttributeError, MarjoletError):
        return choices
    extra = BotChoice(
        f"{family}-{STRONGEST_LEVEL}",
        family,
        STRONGEST_LEVEL,
        strongest,
        f"{family} (strongest)",
        description,
    )
    last = max((i for i, c in enumerate(choices) if c.family == family), default=len(choices) - 1)
    return [*choices[: last + 1], extra, *choices[last + 1 :]]


class BotCatalogue:
    """The allowed bot choices of one server."""

    def __init__(self, choices: Iterable[BotChoice], default: str, hint_spec: str) -> None:
        self.choices: dict[str, BotChoice] = {}
        for c in choices:
            self.choices[c.name] = c
        if default not in self.choices:
            raise BotChoiceError(f"default bot choice {default!r} is not in the list")
        self.default = default
        self.hint_spec = hint_spec

    @classmethod
    def build(
        cls, allowed: Mapping[str, str] | None = None, *, defaults: bool = True
    ) -> BotCatalogue:
        """The default list (every registered bot that plays fair) plus the
        operator's ``NAME=SPEC`` entries, each checked."""
        choices: list[BotChoice] = []
        if defaults:
            for name in bot_names():
                try:
                    bot = bot_class(name)
                except (ImportError, AttributeError, MarjoletError):
                    continue  # a bot whose module is missing is simply not offered
                if bot.sees_hidden_cards or starts_program(bot) or name.startswith(EXEC):
                    continue  # never offered unless the operator allows it by name
                family = _family_choices(name)
                if all(_builds(c.spec) for c in family):
                    choices.extend(family)
        for name, spec in (allowed or {}).items():
            if not NAME_RE.match(name):
                raise BotChoiceError(
                    f"--allow-bot: bad name {name!r} (letters, digits, '_', '.', '-'; up to 32)"
                )
            try:
                bot = check_spec(spec)
                spec = absolute_spec(spec)
            except MarjoletError as exc:
                raise BotChoiceError(f"--allow-bot {name}={spec}: {exc}") from None
            choices = [c for c in choices if c.name != name]
            choices.append(BotChoice(name, name, "", spec, name, bot.description or spec))
        if not choices:
            raise BotChoiceError("no bot is available to play against")
        strongest = strongest_spec()
        if defaults:
            choices = with_strongest(choices, strongest)
        default = next((c.name for c in choices if c.spec == strongest), choices[0].name)
        return cls(choices, default, strongest)

    def resolve(self, name: object) -> BotChoice:
        """The choice a client named; a clear error for anything else."""
        if not isinstance(name, str) or name not in self.choices:
            known = ", ".join(self.choices)
            shown = repr(name)[:40]
            raise BotChoiceError(f"unknown bot {shown} (choices: {known})")
        return self.choices[name]

    def public(self) -> list[dict[str, Any]]:
        return [c.public() for c in self.choices.values()]

    def allows(self, spec: str) -> bool:
        """Whether ``spec`` is the spec of one of this server's choices (a
        stored game that runs a program resumes only if the operator still
        allows that program)."""
        return any(c.spec == spec for c in self.choices.values())


def parse_allow(entries: Iterable[str]) -> dict[str, str]:
    """``NAME=SPEC`` command-line entries as a mapping (later wins)."""
    out: dict[str, str] = {}
    for entry in entries:
        name, eq, spec = entry.partition("=")
        if not eq or not name.strip() or not spec.strip():
            raise BotChoiceError(f"--allow-bot expects NAME=SPEC, got {entry!r}")
        out[name.strip()] = spec.strip()
    return out
