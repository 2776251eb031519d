"""What the exact ending solvers answer, below both of them.

Two solvers answer the same questions about an ending (tricks 11-16, once
the stock is empty): the pure-Python :mod:`marjolet.bots.solver` and the C
kernel's (:func:`marjolet.kernel.solve`). Their common result type, their
error and their tie-break order live here, so that neither imports the
other's module.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from marjolet.cards import CARD_NAMES
from marjolet.errors import MarjoletError

__all__ = ["NotAnEndingError", "Solution", "cheapness", "check_ending"]


class NotAnEndingError(MarjoletError):
    """The position is not in phase 2 (the stock is not empty yet)."""


@dataclass(frozen=True, slots=True)
class Solution:
    """The exact result of an ending.

    ``value`` is the final deal-score difference (``to_move`` minus the
    opponent) under optimal play by both; ``best`` lists every optimal
    action, the preferred one first (see
    :meth:`marjolet.bots.solver.EndingSolver.preferred`).
    """

    to_move: int
    value: int
    best: tuple[int, ...]

    def to_json(self) -> dict[str, object]:
        return {
            "to_move": self.to_move,
            "value": self.value,
            "best": [CARD_NAMES[c] for c in self.best],
        }


def cheapness(c: int, trump: int) -> tuple[int, int, int]:
    """Sort key of "the lowest card": by rank, then non-trumps first, then suit."""
    return (c & 7, 1 if c >> 3 == trump else 0, c >> 3)


class _Position(Protocol):
    @property
    def is_over(self) -> bool: ...
    @property
    def stock_empty(self) -> bool: ...
    @property
    def trick_number(self) -> int: ...
    @property
    def stock_size(self) -> int: ...


def check_ending(deal: _Position) -> None:
    """Raise :class:`NotAnEndingError` unless ``deal`` is an ending still to play."""
    if deal.is_over:
        raise NotAnEndingError("the deal is over: there is nothing to solve")
    if not deal.stock_empty:
        raise NotAnEndingError(
            f"the stock is not empty (trick {deal.trick_number}, {deal.stock_size} cards to "
            "draw): the solver plays tricks 11-16 only"
        )
