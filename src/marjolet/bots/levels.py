"""The four levels a player chooses from, beginner to expert.

Each level is a persona (a name and one plain sentence in French and
English, read from the i18n catalogues under ``player_level.KEY`` and
``player_level.KEY.about``) and the bot spec behind it. The levels are
spaced so that each clearly beats the one below it: the gaps, measured in
duplicate arena matches, are in docs/bots.md ("Player levels").

Front ends show :data:`LEVELS` in order, with :meth:`Level.name` and
:meth:`Level.about` in the player's language, and build the opponent with
:meth:`Level.bot` (or ``make_bot(level.spec)``); the spec itself is never
shown to a player. :data:`DEFAULT_LEVEL` is the level preselected in a
menu.

>>> [lv.key for lv in LEVELS]
['beginner', 'amateur', 'skilled', 'expert']
>>> level("amateur").name("fr")
'Amateur'
"""

from __future__ import annotations

from dataclasses import dataclass

from marjolet.bots import STRONGEST, make_bot
from marjolet.bots.base import Bot
from marjolet.errors import MarjoletError
from marjolet.i18n import translate


class LevelError(MarjoletError):
    """An unknown level key."""


@dataclass(frozen=True, slots=True)
class Level:
    """One level: ``key`` is what a client sends and a record may keep."""

    key: str
    #: The bot spec behind the level (server side only: never shown).
    spec: str

    def name(self, lang: str = "en") -> str:
        """The level's display name (``Débutant``, ``Beginner``)."""
        return translate(f"player_level.{self.key}", lang)

    def about(self, lang: str = "en") -> str:
        """One plain sentence on how this opponent plays."""
        return translate(f"player_level.{self.key}.about", lang)

    def bot(self, seed: int | None = None) -> Bot:
        """A fresh opponent of this level."""
        return make_bot(self.spec, seed=seed)

    def public(self, lang: str = "en") -> dict[str, str]:
        """What a client may be shown: key, name and sentence, no spec."""
        return {"key": self.key, "name": self.name(lang), "about": self.about(lang)}


#: The levels, weakest first. The specs:
#: beginner: the heuristic's play with a random card at 30% of its card
#: plays and a forgotten meld now and then; amateur: the heuristic;
#: skilled: the strongest search with only eight sampled deals a move;
#: expert: :data:`marjolet.bots.STRONGEST`.
LEVELS: tuple[Level, ...] = (
    Level("beginner", "novice:mistakes=0.3"),
    Level("amateur", "heuristic"),
    Level("skilled", "best:worlds=8"),
    Level("expert", STRONGEST),
)
#: The level a menu preselects.
DEFAULT_LEVEL = "skilled"

_BY_KEY = {lv.key: lv for lv in LEVELS}


def level(key: str) -> Level:
    """The level named ``key``; :class:`LevelError` (one line) otherwise."""
    found = _BY_KEY.get(key) if isinstance(key, str) else None
    if found is None:
        raise LevelError(f"unknown level {key!r} (levels: {', '.join(_BY_KEY)})")
    return found


def _folded(text: str) -> str:
    """``Confirmé`` -> ``confirme``: what a player may type for a name."""
    import unicodedata

    plain = unicodedata.normalize("NFKD", text.strip())
    return "".join(ch for ch in plain if not unicodedata.combining(ch)).casefold()


def find_level(text: str) -> Level:
    """The level a player names by its key or by its name in any language,
    in any case, with or without accents: ``expert``, ``Confirmé``,
    ``debutant``, ``skilled``; :class:`LevelError` (one line) otherwise.

    >>> find_level("confirme").key, find_level("Beginner").key
    ('skilled', 'beginner')
    """
    from marjolet.i18n import LANGS

    wanted = _folded(text)
    for lv in LEVELS:
        if wanted in {_folded(lv.key), *(_folded(lv.name(lang)) for lang in LANGS)}:
            return lv
    names = ", ".join(lv.name("fr").lower() for lv in LEVELS)
    raise LevelError(f"unknown level {text!r} (levels: {names}; or {', '.join(_BY_KEY)})")


__all__ = ["DEFAULT_LEVEL", "LEVELS", "Level", "LevelError", "find_level", "level"]
