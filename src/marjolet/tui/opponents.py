"""The opponents a player chooses from: player levels, not programs.

The levels are the project's (:data:`marjolet.bots.levels.LEVELS`: a key,
a name and one plain sentence in each language, and the bot spec that plays
it). The start screen lists them; the table calls the opponent by its
level's name (no program name on a player's screen). Research bots stay
reachable with ``marjolet play --opponent SPEC``.

A save names a level's player as the web's records do: by the level's
English name (``Skilled``, :func:`recorded_name`), not by the spec behind
it, which may change from one version to the next; :func:`level_named`
reads it back.
"""

from __future__ import annotations

from collections.abc import Sequence

from marjolet.bots.levels import DEFAULT_LEVEL, LEVELS, Level
from marjolet.bots.registry import LEVEL
from marjolet.i18n import LANGS

#: The level chosen when the player just presses Enter.
DEFAULT = DEFAULT_LEVEL

PlayerLevel = Level


def levels() -> list[Level]:
    """The levels of the menu, weakest first."""
    return list(LEVELS)


def level_of(spec: str, choices: Sequence[Level] | None = None) -> Level | None:
    """The level played by ``spec``, if any."""
    return next((lv for lv in (choices or levels()) if lv.spec == spec), None)


def recorded_name(level: Level) -> str:
    """How a save names the player of ``level``: its English name, as the
    web's records do (``Skilled``; the screens show it in their language)."""
    return level.name("en")


def level_in_spec(spec: str) -> Level | None:
    """The level a bot spec plays: ``level:KEY``'s; ``None`` for any other
    spec. A level's display name is not a spec: ``--opponent Expert``
    would otherwise play the strongest level while ``--opponent expert``
    plays the rule-based ``expert`` bot (``--level`` takes names)."""
    if not spec.startswith(f"{LEVEL}:"):
        return None
    key = spec.removeprefix(f"{LEVEL}:").strip()
    return next((lv for lv in levels() if lv.key == key), None)


def level_named(name: str) -> Level | None:
    """The level a save's player name (or an ``--opponent``) stands for: a
    level's name as written in any language (``Skilled``, ``Confirmé``) or
    ``level:KEY``; ``None`` for anything else (a bot spec such as
    ``expert``, a person's name)."""
    key = name.removeprefix(f"{LEVEL}:").strip() if name.startswith(f"{LEVEL}:") else None
    for lv in levels():
        if key == lv.key or name in {lv.name(lang) for lang in LANGS}:
            return lv
    return None
