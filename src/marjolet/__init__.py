"""Marjolet: the reference implementation of the French trick-and-draw game.

The core (this package's top-level modules) uses the standard library only:

>>> from marjolet import Deal, Match, CardSet, parse_card
"""

from marjolet.actions import DIX, DRAW, MELD_BASE, Action, action_name, parse_action
from marjolet.cards import CardSet, card_name, parse_card
from marjolet.engine import Breakdown, Deal, LegalActions, Outcome
from marjolet.errors import (
    ActionError,
    CardError,
    DealError,
    IllegalActionError,
    IllegalTurnError,
    MarjoletError,
    MatchOverError,
    RecordError,
    RulesError,
    TurnError,
)
from marjolet.match import Match
from marjolet.observation import Observation, observe, sample_world
from marjolet.rules import CLASSIC, ENCYCLOPEDIA, Rules
from marjolet.turns import Seat, Turn, TurnDriver, play_deal, play_match

#: pyproject.toml's version, through the installed metadata (:mod:`marjolet.version`).
#: Read on first use: the metadata machinery (importlib.metadata, email, zipfile)
#: costs about a third of the package's import time, which most uses never need.
__version__: str


def __getattr__(name: str) -> str:
    if name == "__version__":
        from marjolet.version import version

        value = version()
        globals()["__version__"] = value
        return value
    raise AttributeError(f"module 'marjolet' has no attribute {name!r}")


__all__ = [
    "CLASSIC",
    "DIX",
    "DRAW",
    "ENCYCLOPEDIA",
    "MELD_BASE",
    "Action",
    "ActionError",
    "Breakdown",
    "CardError",
    "CardSet",
    "Deal",
    "DealError",
    "IllegalActionError",
    "IllegalTurnError",
    "LegalActions",
    "MarjoletError",
    "Match",
    "MatchOverError",
    "Observation",
    "Outcome",
    "RecordError",
    "Rules",
    "RulesError",
    "Seat",
    "Turn",
    "TurnDriver",
    "TurnError",
    "action_name",
    "card_name",
    "observe",
    "parse_action",
    "parse_card",
    "play_deal",
    "play_match",
    "sample_world",
]
