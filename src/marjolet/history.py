"""The public history walk: who made each action of a deal, which trick it
belongs to, who won each trick and where every drawn card came from.

Everything here follows from the public action list alone, the dealer and
the trump suit: the elder leads trick 1 (R3), the follower completes a trick
and its winner leads the next (R8), the winner of tricks 1-10 has a meld
window closed by ``draw`` (R9), in which both players draw (R9, R15). This is
the one place outside :class:`~marjolet.engine.Deal` that knows the turn
order; every front end, adapter and the bot protocol ask it.

>>> from marjolet.actions import parse_action
>>> moves = [parse_action(t) for t in "QC JC draw KC".split()]
>>> [(s.player, s.trick, s.winner) for s in walk(moves, dealer=0, trump=2)]
[(1, 1, None), (0, 1, 1), (1, 1, None), (1, 2, None)]
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import NamedTuple, Protocol

from marjolet.actions import DRAW, MELD_BASE
from marjolet.trick import beats

# The counts of a deal's structure, named once (the engine re-exports them;
# the C kernel's rules_constants.h is generated from them).
#: Hidden stock cards, deck[13..31] (R5); as a stock position, "the face-up card".
STOCK_CARDS = 19
#: Tricks played while the stock lasts, each won one opening a meld window (R9).
PHASE1_TRICKS = 10
#: The number of the last trick of a deal (R17).
LAST_TRICK = 16
#: Strict tricks after the stock is gone, both hands known (R16); winning
#: all of them earns the all-tricks bonus (R17).
PHASE2_TRICKS = LAST_TRICK - PHASE1_TRICKS


class Progress(Protocol):
    """Where a deal stands: a :class:`~marjolet.engine.Deal` or an
    :class:`~marjolet.observation.Observation`."""

    @property
    def tricks_played(self) -> int: ...

    @property
    def in_window(self) -> bool: ...


def phase1_tricks_left(position: Progress) -> int:
    """Phase-1 tricks still to finish, the current one included: a meld
    window counts with the trick it closes (R9), so 10 before the first
    lead and 1 in trick 10 or its window; 0 or less once the stock is gone."""
    return PHASE1_TRICKS - position.tricks_played + (1 if position.in_window else 0)


class Step(NamedTuple):
    """One action of a deal as the public history tells it."""

    #: Position of the action in the deal, from 0.
    position: int
    action: int
    #: The player who made it.
    player: int
    #: Tricks completed before it (0-16).
    tricks: int
    #: For the card that completes a trick: the card it follows.
    lead: int | None
    #: For the card that completes a trick: the trick's winner (R8).
    winner: int | None

    @property
    def trick(self) -> int:
        """The trick the action belongs to (1-16): a window action belongs to
        the trick just won."""
        if self.action >= MELD_BASE:
            return self.tricks
        return self.tricks + 1

    @property
    def completes_trick(self) -> bool:
        return self.winner is not None


@dataclass(frozen=True, slots=True)
class TrickCards:
    """A completed trick: who led, the two cards and the winner (R8)."""

    number: int
    leader: int
    lead: int
    follow: int
    winner: int


def tricks(actions: Sequence[int], dealer: int, trump: int) -> list[TrickCards]:
    """The completed tricks of a deal, in order."""
    return [
        TrickCards(s.tricks + 1, s.player ^ 1, s.lead, s.action, s.winner)
        for s in walk(actions, dealer, trump)
        if s.lead is not None and s.winner is not None
    ]


def trick_winner(lead: int, follow: int, trump: int, leader: int) -> int:
    """Who wins the trick ``lead``-``follow`` led by ``leader`` (R8)."""
    return leader ^ 1 if beats(lead, follow, trump) else leader


def walk(actions: Sequence[int], dealer: int, trump: int) -> Iterator[Step]:
    """Each action of a deal with who made it and what it did (see
    :class:`Step`); works from the public action list alone."""
    for i, (a, (player, tricks, lead, winner)) in enumerate(
        zip(actions, turns(actions, dealer, trump), strict=True)
    ):
        yield Step(
            i, a, player, tricks, None if lead < 0 else lead, None if winner < 0 else winner
        )


def turns(actions: Sequence[int], dealer: int, trump: int) -> Iterator[tuple[int, int, int, int]]:
    """The walk itself, as plain tuples for the hot paths (the sampler of
    every search bot): (player, tricks completed before, the card led when
    this card completes a trick or -1, that trick's winner or -1)."""
    turn = dealer ^ 1
    lead = -1
    tricks = 0
    for a in actions:
        if a >= MELD_BASE:
            yield turn, tricks, -1, -1
        elif lead < 0:
            yield turn, tricks, -1, -1
            lead = a
            turn ^= 1
        else:
            winner = trick_winner(lead, a, trump, turn ^ 1)
            yield turn, tricks, lead, winner
            turn = winner
            lead = -1
            tricks += 1


def draw_position(tricks: int, winner: int, player: int) -> int:
    """Where ``player``'s card came from in the draw after trick ``tricks``
    won by ``winner``: a hidden stock index, or ``STOCK_CARDS`` (19) for the
    face-up card that the loser of trick 10 takes (R9, R15)."""
    if player == winner:
        return 2 * tricks - 2
    return 2 * tricks - 1 if tricks < PHASE1_TRICKS else STOCK_CARDS


def draws(actions: Sequence[int], dealer: int, trump: int) -> Iterator[tuple[int, int, int]]:
    """Every card drawn in the deal, in order: (action index, player, stock
    position from :func:`draw_position`). The winner draws first."""
    for i, (a, (player, tricks, _, _)) in enumerate(
        zip(actions, turns(actions, dealer, trump), strict=True)
    ):
        if a == DRAW:
            yield i, player, draw_position(tricks, player, player)
            yield i, player ^ 1, draw_position(tricks, player, player ^ 1)


def draw_positions(actions: Sequence[int], dealer: int, trump: int, player: int) -> list[int]:
    """Where each card ``player`` drew came from (see :func:`draw_position`)."""
    return [pos for _, who, pos in draws(actions, dealer, trump) if who == player]
