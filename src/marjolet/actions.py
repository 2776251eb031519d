"""Stable integer action ids and their text forms (record.md).

==========  ==========  =====================================
id          text        meaning
==========  ==========  =====================================
0-31        ``QS``      play that card to the current trick
32-43       ``meld ID`` declare meld ``ID`` (R11) in the window
44          ``dix``     exchange the seven of trumps (R18)
45          ``draw``    close the meld window; both draw (R9)
==========  ==========  =====================================
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import SupportsIndex

from marjolet.cards import CARD_NAMES, card_fix, checked_id, parse_card
from marjolet.errors import ActionError, CardError
from marjolet.melds import MELD_COUNT, MELD_INDEX, MELD_NAMES

MELD_BASE = 32
DIX = MELD_BASE + MELD_COUNT  # 44
DRAW = DIX + 1  # 45
ACTION_COUNT = DRAW + 1  # 46

ACTION_NAMES = (
    *CARD_NAMES,
    *(f"meld {name}" for name in MELD_NAMES),
    "dix",
    "draw",
)


def action_name(action: SupportsIndex) -> str:
    """The record text of an action id: ``QS``, ``meld KQS``, ``dix``, ``draw``.

    An id outside 0-45 is refused, as :class:`Action` refuses it:

    >>> action_name(45)
    'draw'
    >>> action_name(-1)
    Traceback (most recent call last):
    ...
    marjolet.errors.ActionError: action id must be 0-45, got -1
    """
    return ACTION_NAMES[checked_id(action, ACTION_COUNT, "action id", ActionError)]


def parse_action(text: str) -> int:
    """Parse action text into its id; the inverse of :func:`action_name`.

    Cards accept the forms of R1 (``10D``, ``Q♠``). Raises
    :class:`ActionError` quoting the text for anything else, with the rule
    that excludes it where one does (``meld 4J``: R11).
    """
    if not isinstance(text, str):
        raise ActionError(
            f"action must be text like 'QS', 'meld KQS', 'dix' or 'draw', got {text!r}"
        )
    body = " ".join(text.split())
    if body == "dix":
        return DIX
    if body == "draw":
        return DRAW
    if body.startswith("meld "):
        meld = body[5:]
        if meld in MELD_INDEX:
            return MELD_BASE + MELD_INDEX[meld]
        if meld == "4J":
            raise ActionError("R11: four jacks score nothing; 4J is not a meld")
        raise ActionError(f"R11: unknown meld {meld!r} in {text!r} (melds: {' '.join(MELD_NAMES)})")
    try:
        return parse_card(body)
    except CardError as exc:
        if card_fix(body) is not None:  # a card mistyped: say how to write it
            raise ActionError(str(exc)) from None
        raise ActionError(
            f"unknown action {text!r} (expected a card like 'QS', 'meld ID', 'dix' or 'draw')"
        ) from None


def is_card(action: int) -> bool:
    return action < MELD_BASE


def is_meld(action: int) -> bool:
    return MELD_BASE <= action < DIX


@dataclass(frozen=True, slots=True, order=True)
class Action:
    """An action as a value: ``str`` is the record text, ``int`` the stable id."""

    id: int

    def __post_init__(self) -> None:
        # any integer type (a NumPy argmax) is kept as an int; a bool is no id
        object.__setattr__(self, "id", checked_id(self.id, ACTION_COUNT, "action id", ActionError))

    @classmethod
    def parse(cls, text: str) -> Action:
        return cls(parse_action(text))

    def __str__(self) -> str:
        return ACTION_NAMES[self.id]

    def __repr__(self) -> str:
        return f"Action.parse({ACTION_NAMES[self.id]!r})"

    def __int__(self) -> int:
        return self.id

    def __index__(self) -> int:
        return self.id
