"""Bot spec strings: ``NAME`` or ``NAME:key=value,key=value``.

Bots register here by name; :func:`make_bot` parses a spec, checks every
parameter against the bot's declared :class:`~marjolet.bots.base.Param` list
and builds the bot with a seed.
"""

from __future__ import annotations

import importlib
import re

from marjolet.bots.base import Bot, BotSpecError

#: name -> "module:ClassName", imported on first use so that listing bots or
#: building ``random`` never imports the search code.
_BOTS: dict[str, str] = {
    "random": "marjolet.bots.random_bot:RandomBot",
    "heuristic": "marjolet.bots.heuristic:HeuristicBot",
    "solver": "marjolet.bots.solver_bot:SolverBot",
    "pimc": "marjolet.bots.pimc:PimcBot",
    "ismcts": "marjolet.bots.ismcts:IsmctsBot",
    "cheater": "marjolet.bots.cheater:CheaterBot",
    "best": "marjolet.bots.best:BestBot",
    "expert": "marjolet.bots.expert:ExpertBot",
    "sampler": "marjolet.bots.sampler:SamplerBot",
    "novice": "marjolet.bots.novice:NoviceBot",
    "openspiel-ismcts": "marjolet.rl.ismcts_bot:OpenSpielISMCTSBot",
    "linear": "marjolet.rl.linear_bot:LinearBot",
    "ppo": "marjolet.rl.mlp_bot:PpoBot",
    "dmc": "marjolet.rl.mlp_bot:DmcBot",
}
_LOADED: dict[str, type[Bot]] = {}
#: ``exec:PATH`` (or ``exec:path=PATH,budget_s=S``): a program that speaks
#: the bot protocol. Not a registered name, so never listed as a choice.
EXEC = "exec"
#: ``level:KEY``: the bot behind a player level (marjolet.bots.levels), built
#: as its own spec, so that a run stores what was really played.
LEVEL = "level"


#: What a registered name may be: it starts a spec string (``NAME:key=value``).
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")


def register(name: str, target: str | type[Bot]) -> None:
    """Register a bot class (or a lazy ``"module:Class"`` path) under ``name``.

    The name must be one a spec can start with, must not be taken by another
    bot (``random`` is the arena's anchor: replacing it would quietly change
    every rating), and must be the class's own ``name``, which its
    :attr:`Bot.spec` starts with: a bot whose spec named another bot could
    not be rebuilt from it (the arena rebuilds every bot from its spec).
    Registering the same class again under its name changes nothing.
    Refusals are :class:`BotSpecError`, one line.
    """
    if not isinstance(name, str) or not _NAME.fullmatch(name) or name in (EXEC, LEVEL):
        raise BotSpecError(
            f"register({name!r}): a bot's name is letters, digits, '-', '_' and '.', "
            f"starting with a letter or a digit, and not {EXEC!r} or {LEVEL!r}"
        )
    if isinstance(target, str):
        path = target
    elif isinstance(target, type) and issubclass(target, Bot):
        path = f"{target.__module__}:{target.__qualname__}"
    else:
        raise BotSpecError(
            f"register({name!r}, {target!r}): give a Bot subclass or a 'module:Class' path"
        )
    taken = _BOTS.get(name)
    if taken is not None and taken != path:
        raise BotSpecError(
            f"register({name!r}): the name is taken by {taken}; choose another name"
        )
    if not isinstance(target, str) and target.name != name:
        raise BotSpecError(
            f"register({name!r}, {target.__qualname__}): the class's name is "
            f"{target.name!r}; set name = {name!r} in the class (a bot's spec starts "
            "with its name, and the arena rebuilds bots from their specs)"
        )
    _BOTS[name] = path
    if isinstance(target, str):
        _LOADED.pop(name, None)
    else:
        _LOADED[name] = target


def bot_names() -> list[str]:
    return list(_BOTS)


def bot_class(name: str) -> type[Bot]:
    if name == EXEC:  # an external program: marjolet.bots.external
        from marjolet.bots.external import ExternalBot

        return ExternalBot
    if name not in _BOTS:
        raise BotSpecError(
            f"unknown bot {name!r} (known: {', '.join(_BOTS)}; also exec:PATH, a program "
            "speaking the bot protocol, and level:KEY, a player level)"
        )
    if name not in _LOADED:
        module, _, cls = _BOTS[name].partition(":")
        loaded: type[Bot] = getattr(importlib.import_module(module), cls)
        if loaded.name != name:
            raise BotSpecError(
                f"bot {name!r} is registered as {_BOTS[name]}, whose name is {loaded.name!r}; "
                "a bot's class must carry the name it is registered under"
            )
        _LOADED[name] = loaded
    return _LOADED[name]


def resolve_spec(spec: str) -> str:
    """The spec itself, or for ``level:KEY`` the spec of that player level:
    the one place a level's name becomes a bot."""
    name, _, key = spec.strip().partition(":")
    if name != LEVEL:
        return spec
    from marjolet.bots.levels import LEVELS

    for lv in LEVELS:
        if lv.key == key.strip():
            return lv.spec
    keys = ", ".join(f"level:{lv.key}" for lv in LEVELS)
    raise BotSpecError(f"bot spec {spec!r}: no such level (levels: {keys})")


def parse_spec(spec: str) -> tuple[str, dict[str, str]]:
    """Split a spec string into the bot name and its raw parameters (a
    player level's spec for ``level:KEY``)."""
    if not isinstance(spec, str) or not spec.strip():
        raise BotSpecError(f"empty bot spec {spec!r}")
    spec = resolve_spec(spec)
    name, _, rest = spec.strip().partition(":")
    if name == EXEC and rest and not rest.startswith("path="):
        return name, {"path": rest}  # exec:PATH takes the path verbatim
    params: dict[str, str] = {}
    if rest:
        for part in rest.split(","):
            key, eq, value = part.partition("=")
            key = key.strip()
            if not eq or not key:
                raise BotSpecError(f"bot spec {spec!r}: expected key=value, got {part!r}")
            if key in params:
                raise BotSpecError(f"bot spec {spec!r}: parameter {key!r} given twice")
            params[key] = value.strip()
    return name, params


def make_bot(spec: str, seed: int | None = None) -> Bot:
    """Build a bot from its spec string, e.g. ``make_bot("pimc:worlds=64", seed=1)``;
    ``level:KEY`` builds the bot of that player level."""
    name, raw = parse_spec(spec)
    cls = bot_class(name)
    known = {p.name: p for p in cls.params}
    options = {}
    for key, text in raw.items():
        if key not in known:
            names = ", ".join(known)
            listed = names or "none"
            raise BotSpecError(
                f"bot spec {spec!r}: {name} has no parameter {key!r} (parameters: {listed})",
                kind="unknown", param=key, value=names,
            )
        options[key] = known[key].parse(text, spec)
    try:
        return cls(seed=seed, **options)
    except BotSpecError as error:
        raise _as_typed(error, spec) from None


#: The head of a bot's own refusal ("bot 'pimc': ...", "bot spec 'exec:x': ...").
_REFUSAL_HEAD = re.compile(r"""^bot (?:spec )?(['"]).*?\1: """)


def _as_typed(error: BotSpecError, spec: str) -> BotSpecError:
    """A bot's refusal quoting the spec the user typed, not the bot's name
    or its canonical spec: ``exec:path=./x,budget_s=2`` is named as typed."""
    head = f"bot spec {spec!r}: "
    message = str(error)
    if message.startswith(head):
        return error
    typed = head + _REFUSAL_HEAD.sub("", message, count=1)
    return BotSpecError(typed, kind=error.kind, param=error.param, value=error.value)
