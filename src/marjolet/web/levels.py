"""The player levels (:mod:`marjolet.bots.levels`) as bot choices of the
web server: what ``/api/options`` lists for a player, and the choice a new
game, a watched match or a rematch names.

A level's choice is named ``level:KEY`` (a ``:`` is never in an operator's
``--allow-bot`` name, so the two never meet); its player name in the
record is the level's English name (``Skilled``), which the pages show in
the reader's language. The spec behind a level stays on the server.
"""

from __future__ import annotations

from marjolet.bots.catalogue import BotCatalogue, BotChoice, BotChoiceError
from marjolet.bots.levels import DEFAULT_LEVEL, LEVELS, Level, level

PREFIX = "level:"


def level_choice(lv: Level) -> BotChoice:
    """The bot choice behind one level."""
    return BotChoice(f"{PREFIX}{lv.key}", "level", lv.key, lv.spec, lv.name("en"), lv.about("en"))


def resolve_choice(catalogue: BotCatalogue, name: object) -> BotChoice:
    """A level (``level:KEY``) or one of the catalogue's bot choices; a
    clear one-line error for anything else."""
    if isinstance(name, str) and name.startswith(PREFIX):
        return level_choice(level(name.removeprefix(PREFIX)))
    try:
        return catalogue.resolve(name)
    except BotChoiceError:  # name the levels too, in the form they take, first:
        # a long list of bots is cut at the end of a refusal's line (web/text.py)
        known = ", ".join(catalogue.choices)
        levels = ", ".join(f"{PREFIX}{lv.key}" for lv in LEVELS)
        shown = repr(name)[:40]
        message = f"unknown bot {shown} (a level: {levels}; or a bot: {known})"
        raise BotChoiceError(message) from None


def public_levels(lang: str) -> list[dict[str, str]]:
    """The levels a player is offered, weakest first, in ``lang``."""
    return [{**lv.public(lang), "choice": f"{PREFIX}{lv.key}"} for lv in LEVELS]


__all__ = ["DEFAULT_LEVEL", "PREFIX", "level_choice", "public_levels", "resolve_choice"]
