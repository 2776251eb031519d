"""The opponents a player chooses from: player levels, not programs.

Each level has a key, a name and one plain sentence in each language, and
the bot spec that plays it. The start screen lists the levels; the table
calls the opponent by its level's name (no program name on a player's
screen). Research bots stay reachable with ``marjolet play --opponent SPEC``.

:func:`levels` is the one place that says where the list comes from: the
project's list of levels (``marjolet.bots.levels.LEVELS``) is meant to
replace :data:`PROVISIONAL` here, by mapping each of its entries to a
:class:`PlayerLevel`. Standard library only.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class PlayerLevel:
    """One level of the menu."""

    key: str
    #: language -> name (``Débutant``, ``Beginner``)
    names: Mapping[str, str]
    #: language -> one plain sentence
    sentences: Mapping[str, str]
    #: the bot that plays it (:func:`marjolet.bots.make_bot`)
    spec: str

    def name(self, lang: str) -> str:
        return self.names.get(lang) or self.names["en"]

    def sentence(self, lang: str) -> str:
        return self.sentences.get(lang) or self.sentences["en"]


def _strongest() -> str:
    from marjolet.bots import STRONGEST

    return STRONGEST


#: The levels until the project's own list is wired in (see the module's doc).
PROVISIONAL: tuple[tuple[str, tuple[str, str], tuple[str, str], str | None], ...] = (
    ("beginner", ("Beginner", "Débutant"),
     ("Plays any card it may: good for learning the rules.",
      "Joue n'importe quelle carte permise : idéal pour apprendre les règles."), "random"),
    ("amateur", ("Amateur", "Amateur"),
     ("Plays by simple rules of thumb.", "Joue selon des règles simples."), "heuristic"),
    ("seasoned", ("Seasoned", "Confirmé"),
     ("Thinks a moment before each card.", "Réfléchit un moment avant chaque carte."),
     "best:time=0.125"),
    ("expert", ("Expert", "Expert"),
     ("The strongest: counts the cards and plays the last tricks perfectly.",
      "Le plus fort : compte les cartes et joue les derniers plis sans faute."), None),
)  # fmt: skip
#: The level chosen when the player just presses Enter.
DEFAULT = "expert"


def levels() -> list[PlayerLevel]:
    """The levels of the menu, weakest first."""
    return [
        PlayerLevel(key, {"en": en, "fr": fr}, {"en": s_en, "fr": s_fr}, spec or _strongest())
        for key, (en, fr), (s_en, s_fr), spec in PROVISIONAL
    ]


def level_of(spec: str, choices: Sequence[PlayerLevel] | None = None) -> PlayerLevel | None:
    """The level played by ``spec``, if any."""
    return next((lv for lv in (choices or levels()) if lv.spec == spec), None)
