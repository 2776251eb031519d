"""What one seat knows (R23), and a sampler of worlds consistent with it.

Bots and user interfaces receive an :class:`Observation`, never a
:class:`~marjolet.engine.Deal`. An observation holds the seat's own hand,
everything public (indicator, tricks, declarations and exposed cards, the
stock count, scores, the action history) and what follows from it: the cards
known to be in the opponent's hand (exposed melds, the indicator taken by a
dix exchange, and the whole hand once the stock is empty) and the *unseen*
cards, whose place (opponent's hand or stock) the seat cannot know.

:func:`sample_world` deals the unseen cards at random into the opponent's
hand and the stock, keeping every known card in place and the indicator at
the bottom of the stock: the basis of every search bot.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from marjolet.actions import ACTION_NAMES
from marjolet.cards import ALL_CARDS, CARD_NAMES, CardSet, mask_cards
from marjolet.engine import (
    EXPOSED,
    HAND,
    INDICATOR,
    LAST_WINNER,
    LATE_TRICKS,
    LEAD,
    MELDS,
    POINTS,
    SEVEN_BY,
    STOCK_CARDS,
    TRICKS,
    TURN,
    WINDOW,
    WON,
    Deal,
    draw_positions,
)
from marjolet.errors import DealError
from marjolet.melds import MELD_COUNT, MELD_NAMES
from marjolet.rules import Rules


@dataclass(frozen=True, slots=True)
class Observation:
    """Everything ``seat`` may know about the deal in progress (R23)."""

    seat: int
    rules: Rules
    dealer: int
    #: Trump suit (0-3, ``C D H S``).
    trump: int
    #: The card turned up at the start of the deal.
    turned_up: int
    #: The face-up card under the stock while it is there, else ``None``.
    indicator: int | None
    #: The seat's current hand, exposed cards included.
    hand: CardSet
    #: The six cards dealt to the seat (empty in a sampled world).
    dealt: CardSet
    #: The cards the seat has drawn, in order.
    draws: tuple[int, ...]
    #: Exposed cards of player 0 and player 1 (R13).
    exposed: tuple[CardSet, CardSet]
    #: Cards known to be in the opponent's hand.
    opponent_known: CardSet
    #: Cards whose place the seat does not know (opponent's hand or stock).
    unseen: CardSet
    #: Cards captured by player 0 and player 1.
    won: tuple[CardSet, CardSet]
    #: Card led to the current trick, if any.
    lead: int | None
    #: Player to act (-1 when the deal is over).
    to_move: int
    in_window: bool
    tricks_played: int
    #: Cards left to draw, the indicator included.
    stock_size: int
    hand_sizes: tuple[int, int]
    #: Deal points so far of player 0 and player 1.
    points: tuple[int, int]
    #: Meld-id masks scored by player 0 and player 1 (bit m: ``MELD_NAMES[m]``).
    melds: tuple[int, int]
    seven_scored_by: int | None
    #: Every action of the deal so far (all public).
    actions: tuple[int, ...]
    #: The deal's number in the match, from 0, and the match totals of the
    #: completed deals before it.
    deal_index: int = 0
    totals: tuple[int, int] = (0, 0)
    #: The public part of the state list; the opponent's hand holds only
    #: ``opponent_known``. Used by :func:`sample_world`.
    public_state: tuple[int, ...] = ()

    @property
    def opponent(self) -> int:
        return self.seat ^ 1

    @property
    def last_trick_winner(self) -> int | None:
        """Winner of the latest completed trick, if any."""
        w = self.public_state[LAST_WINNER] if self.public_state else -1
        return None if w < 0 else w

    @property
    def stock_empty(self) -> bool:
        return self.stock_size == 0

    @property
    def is_my_turn(self) -> bool:
        return self.to_move == self.seat

    def melds_of(self, player: int) -> tuple[str, ...]:
        return tuple(MELD_NAMES[m] for m in range(MELD_COUNT) if self.melds[player] >> m & 1)

    def action_texts(self) -> list[str]:
        return [ACTION_NAMES[a] for a in self.actions]

    def __str__(self) -> str:
        ind = CARD_NAMES[self.indicator] if self.indicator is not None else "taken"
        return (
            f"seat {self.seat}: hand {self.hand}; indicator {ind}; stock {self.stock_size}; "
            f"opponent known [{self.opponent_known}]; points {self.points[0]}-{self.points[1]}"
        )


def opponent_known_mask(deal: Deal, seat: int) -> int:
    """The cards of the opponent's hand that ``seat`` knows (R23)."""
    s = deal.state
    opp = seat ^ 1
    hand = s[HAND + opp]
    if deal.stock_empty:
        return hand  # known by elimination (R23)
    known = s[EXPOSED + opp]
    if s[SEVEN_BY] == opp and s[INDICATOR] != deal.turned_up:
        known |= hand & 1 << deal.turned_up  # the indicator taken by the exchange
    return known


def observe(
    deal: Deal, seat: int, *, deal_index: int = 0, totals: tuple[int, int] = (0, 0)
) -> Observation:
    """The observation of ``seat`` in ``deal`` (R23)."""
    if seat not in (0, 1) or isinstance(seat, float):
        # A negative seat would index the state list from its end and give
        # another player's cards as this seat's, silently.
        raise DealError(f"seat must be 0 or 1, got {seat!r}")
    s = deal.state
    opp = seat ^ 1
    known = opponent_known_mask(deal, seat)
    stock_size = deal.stock_size
    indicator = s[INDICATOR] if stock_size > 0 else None
    public = list(s)
    public[HAND + opp] = known
    lead = s[LEAD]
    seen = s[HAND + seat] | s[WON] | s[WON + 1] | known
    if lead >= 0:
        seen |= 1 << lead
    if indicator is not None:
        seen |= 1 << indicator
    return Observation(
        seat=seat,
        rules=deal.rules,
        dealer=deal.dealer,
        trump=deal.trump,
        turned_up=deal.turned_up,
        indicator=indicator,
        hand=CardSet(s[HAND + seat]),
        dealt=CardSet(deal.dealt[seat]),
        draws=tuple(deal.draws(seat)),
        exposed=(CardSet(s[EXPOSED]), CardSet(s[EXPOSED + 1])),
        opponent_known=CardSet(known),
        unseen=CardSet(ALL_CARDS & ~seen),
        won=(CardSet(s[WON]), CardSet(s[WON + 1])),
        lead=None if lead < 0 else lead,
        to_move=s[TURN],
        in_window=bool(s[WINDOW]),
        tricks_played=s[TRICKS],
        stock_size=stock_size,
        hand_sizes=(s[HAND].bit_count(), s[HAND + 1].bit_count()),
        points=(s[POINTS], s[POINTS + 1]),
        melds=(s[MELDS], s[MELDS + 1]),
        seven_scored_by=None if s[SEVEN_BY] < 0 else s[SEVEN_BY],
        actions=tuple(deal.moves),
        deal_index=deal_index,
        totals=totals,
        public_state=tuple(public),
    )


def sample_world(obs: Observation, rng: random.Random) -> Deal:
    """A deal consistent with ``obs``: the unseen cards dealt at random into
    the opponent's hand and the hidden stock, the indicator at the bottom.

    Every world consistent with the observation is equally likely (under a
    uniform prior that ignores what the opponent's play suggests).
    """
    opp = obs.seat ^ 1
    unseen = mask_cards(obs.unseen.mask)
    rng.shuffle(unseen)
    missing = obs.hand_sizes[opp] - obs.opponent_known.mask.bit_count()
    hidden_stock = max(0, obs.stock_size - 1)
    if missing < 0 or missing + hidden_stock != len(unseen):
        raise DealError(
            f"observation is inconsistent: {len(unseen)} unseen cards for {missing} in the "
            f"opponent's hand and {hidden_stock} in the stock"
        )
    hidden = 0
    for c in unseen[:missing]:
        hidden |= 1 << c
    stock = [-1] * STOCK_CARDS
    stock[STOCK_CARDS - hidden_stock :] = unseen[missing:]
    # the seat's own past draws go back where they came from
    positions = draw_positions(obs.actions, obs.dealer, obs.trump, obs.seat)
    for idx, c in zip(positions, obs.draws, strict=False):
        if idx < STOCK_CARDS:
            stock[idx] = c
    return world_deal(obs, hidden, stock)


def world_deal(obs: Observation, hidden: int, stock: Sequence[int]) -> Deal:
    """The world of ``obs`` in which the opponent's unexposed cards are the
    mask ``hidden`` and the stock is ``stock`` (19 cards in drawing order,
    -1 where nothing is left to draw): what every world sampler builds."""
    state = list(obs.public_state)
    state[HAND + (obs.seat ^ 1)] |= hidden
    dealt = [0, 0]
    dealt[obs.seat] = obs.dealt.mask
    return Deal.from_state(
        obs.rules,
        obs.dealer,
        obs.turned_up,
        stock,
        state,
        dealt=(dealt[0], dealt[1]),
        moves=obs.actions,
    )


def late_tricks(obs: Observation) -> tuple[int, int]:
    """Tricks 11-16 won so far by each player."""
    st = obs.public_state
    return (st[LATE_TRICKS], st[LATE_TRICKS + 1])
