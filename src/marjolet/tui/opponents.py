"""The opponents a player chooses from: player levels, not programs.

The levels are the project's (:data:`marjolet.bots.levels.LEVELS`: a key,
a name and one plain sentence in each language, and the bot spec that plays
it). The start screen lists them; the table calls the opponent by its
level's name (no program name on a player's screen). Research bots stay
reachable with ``marjolet play --opponent SPEC``.
"""

from __future__ import annotations

from collections.abc import Sequence

from marjolet.bots.levels import DEFAULT_LEVEL, LEVELS, Level

#: The level chosen when the player just presses Enter.
DEFAULT = DEFAULT_LEVEL

PlayerLevel = Level


def levels() -> list[Level]:
    """The levels of the menu, weakest first."""
    return list(LEVELS)


def level_of(spec: str, choices: Sequence[Level] | None = None) -> Level | None:
    """The level played by ``spec``, if any."""
    return next((lv for lv in (choices or levels()) if lv.spec == spec), None)
