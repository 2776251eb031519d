"""What the full-screen game waits for and what the table shows, as plain
values: the App keeps them in reactive attributes and its ``watch_``
methods redraw the table when they change (:mod:`marjolet.tui.app`).

Nothing here touches Textual, so the rules of the screen (which cards may be
chosen, where the cursor goes) are tested without a terminal.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from marjolet.actions import DRAW, MELD_BASE
from marjolet.observation import Observation


class Waiting(StrEnum):
    """What the game waits for."""

    START = "start"
    #: The human's move (a card, or a line of the meld window).
    HUMAN = "human"
    #: The computer is thinking.
    BOT = "bot"
    #: A deal is over: its summary is (about to be) on screen.
    SUMMARY = "summary"
    #: The match is over.
    OVER = "over"
    #: The opponent broke down: the game stops, saved.
    ERROR = "error"


@dataclass(frozen=True, slots=True)
class Note:
    """A message above the prompt until the next action; ``problem`` ones
    (a refused card, a failure) are drawn in the warning colour. Only a
    ``lasting`` one (a save that failed) outlives the start of the human's
    turn: a stray key's answer must not hide what was led."""

    text: str
    problem: bool = False
    lasting: bool = False


@dataclass(frozen=True, slots=True)
class HumanTurn:
    """The human's legal actions now (empty when it is not their turn)."""

    legal: tuple[int, ...] = ()

    @property
    def in_window(self) -> bool:
        """The meld window is open: declare, exchange the seven or draw."""
        return DRAW in self.legal

    @property
    def playable(self) -> int:
        """The mask of the cards the human may play."""
        mask = 0
        for a in self.legal:
            if a < MELD_BASE:
                mask |= 1 << a
        return mask


NO_TURN = HumanTurn()


def choices(hand: Sequence[int], playable: int) -> list[int]:
    """The places in ``hand`` of the cards that may be played."""
    return [i for i, c in enumerate(hand) if playable >> c & 1]


def placed_cursor(hand: Sequence[int], playable: int, cursor: int | None) -> int | None:
    """The cursor after the hand changed: where it was if that card may
    still be played, else on the first card that may."""
    places = choices(hand, playable)
    if cursor in places:
        return cursor
    return places[0] if places else None


def moved_cursor(hand: Sequence[int], playable: int, cursor: int | None, step: int) -> int | None:
    """The cursor ``step`` playable cards further, round the hand."""
    places = choices(hand, playable)
    if not places:
        return None
    if cursor not in places:
        return places[0]
    return places[(places.index(cursor) + step) % len(places)]


@dataclass(frozen=True, slots=True)
class TableView:
    """Everything the table draws: the human's observation (R23) and the
    state of the screen."""

    obs: Observation
    names: tuple[str, str]
    totals: tuple[int, int]
    target: int
    hand: tuple[int, ...]
    playable: int
    cursor: int | None
    #: The human is choosing a card (their turn, outside the meld window).
    choosing: bool
    colour: bool
