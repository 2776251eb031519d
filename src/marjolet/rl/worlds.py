"""Whole deck orders consistent with what one seat knows (R23).

The engine's sampler (:func:`marjolet.observation.sample_world`) deals the
unseen cards between the opponent's hand and the stock *now*. Tools that
replay a deal from its start, such as OpenSpiel's
``resample_from_infostate``, need more: a full deck order (R4) from which the
same public actions replay legally and the seat sees exactly what it saw.
:func:`consistent_deck` builds one in three steps:

1. the seat's own cards stay where the seat saw them: its dealt cards, the
   cards it drew, the indicator (R5);
2. :func:`~marjolet.observation.sample_world` decides the opponent's current
   hand and the order of the undrawn stock;
3. the cards the opponent ever took from the deck (its current hand and every
   card it played, declared or exchanged, less those it took from the
   indicator) are spread over its dealt and drawn positions so that each card
   arrived before the opponent first used it, uniformly among the spreads
   that respect this.

Standard library only.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from marjolet.actions import DIX, DRAW, MELD_BASE
from marjolet.cards import SEVEN, card, mask_cards
from marjolet.melds import MELD_CARDS
from marjolet.observation import Observation, sample_world
from marjolet.rules import SAME_SUIT, Rules

STOCK_START = 13  # deck[13..31] is the stock (R5)
INDICATOR_POS = 12
PHASE1_TRICKS = 10
_NEVER = 1 << 30


def dealt_positions(pattern: Sequence[int], dealer: int) -> tuple[list[int], list[int]]:
    """The deck positions dealt to player 0 and to player 1 (R4), in deal order."""
    elder_pos: list[int] = []
    dealer_pos: list[int] = []
    pos = 0
    for batch in pattern:
        elder_pos += range(pos, pos + batch)
        pos += batch
        dealer_pos += range(pos, pos + batch)
        pos += batch
    if dealer == 0:
        return dealer_pos, elder_pos
    return elder_pos, dealer_pos


def consistent_deck(
    obs: Observation,
    rng: random.Random,
    own_dealt_order: Sequence[int] | None = None,
) -> list[int]:
    """A deck order from which ``obs.actions`` replay legally with
    ``obs.dealer`` dealing, and after which ``obs.seat`` sees exactly
    ``obs`` (same hand, same draws, same public facts).

    ``own_dealt_order`` is the seat's six dealt cards in the order they were
    dealt (the order carries no information; by default the cards of
    ``obs.dealt`` in id order). Raises :class:`ValueError` for an
    observation that does not come from a real deal (``obs.dealt`` empty).
    """
    seat = obs.seat
    opp = seat ^ 1
    rules = obs.rules
    own_dealt = list(own_dealt_order) if own_dealt_order is not None else mask_cards(obs.dealt.mask)
    if len(own_dealt) != 6 or sum(1 << c for c in own_dealt) != obs.dealt.mask:
        raise ValueError("the observation does not hold the seat's six dealt cards")
    history = _public_history(obs.actions, obs.dealer, obs.trump, obs.turned_up, rules)
    deck = [-1] * 32
    positions = dealt_positions(rules.deal_pattern, obs.dealer)
    for pos, c in zip(positions[seat], own_dealt, strict=True):
        deck[pos] = c
    deck[INDICATOR_POS] = obs.turned_up
    own_draws = [pos for p, pos, _ in history.draws if p == seat]
    drawn_cards = list(obs.draws)
    if history.indicator_to == seat:
        drawn_cards = drawn_cards[:-1]  # the last one is the indicator, not a deck card
    if len(drawn_cards) != len(own_draws):
        raise ValueError(
            f"the observation lists {len(obs.draws)} draws for seat {seat}, "
            f"the actions imply {len(own_draws)}"
        )
    for pos, c in zip(own_draws, drawn_cards, strict=True):
        deck[pos] = c

    world = sample_world(obs, rng)
    for i, c in enumerate(world.stock):
        if c >= 0:
            deck[STOCK_START + i] = c
    opp_hand = world.hand_mask(opp)

    # Cards the opponent took from the deck, each with the move before which it
    # must have arrived (its first use), and the opponent's deck slots in time order.
    used = history.first_use[opp]
    from_deck = set(used)
    from_deck.update(c for c in mask_cards(opp_hand) if c not in history.from_indicator_now[opp])
    slots = [(-1, pos) for pos in positions[opp]]
    slots += [(move, pos) for p, pos, move in history.draws if p == opp]
    if len(from_deck) != len(slots):
        raise ValueError(
            f"inconsistent observation: the opponent took {len(slots)} cards from the deck "
            f"but {len(from_deck)} cards are accounted to it"
        )
    cards = sorted(from_deck, key=lambda c: used.get(c, _NEVER))
    rng.shuffle(cards)  # random order among equal deadlines, then a stable sort
    cards.sort(key=lambda c: used.get(c, _NEVER))
    free = list(range(len(slots)))
    for c in cards:
        deadline = used.get(c, _NEVER)
        choices = [i for i in free if slots[i][0] < deadline]
        if not choices:
            raise ValueError(f"inconsistent observation: no deck slot for card {c} of the opponent")
        i = choices[rng.randrange(len(choices))]
        free.remove(i)
        deck[slots[i][1]] = c
    if sorted(deck) != list(range(32)):
        raise ValueError("inconsistent observation: the rebuilt deck is not a permutation")
    return deck


class _History:
    """What the public action history says about draws and first uses."""

    __slots__ = ("draws", "first_use", "from_indicator_now", "indicator_to")

    def __init__(self) -> None:
        #: (player, deck position, move index) of every card drawn from the deck.
        self.draws: list[tuple[int, int, int]] = []
        #: Per player: card -> index of the move that first used it (play, meld, dix),
        #: for cards that came from the deck.
        self.first_use: tuple[dict[int, int], dict[int, int]] = ({}, {})
        #: Per player: cards now in hand that were taken from the indicator.
        self.from_indicator_now: tuple[set[int], set[int]] = (set(), set())
        #: Player who took the indicator as the last card (R15), or -1.
        self.indicator_to = -1


def _public_history(
    actions: Sequence[int], dealer: int, trump: int, turned_up: int, rules: Rules
) -> _History:
    """Replay the public actions: who acted, who drew which deck position, and
    when each player first used each card."""
    h = _History()
    meld_cards = MELD_CARDS[rules.jack_queen == SAME_SUIT][trump]
    seven = card(SEVEN, trump)
    indicator = turned_up
    turn = dealer ^ 1
    lead = -1
    tricks = 0

    def use(p: int, c: int, move: int) -> None:
        if c in h.from_indicator_now[p]:
            return
        h.first_use[p].setdefault(c, move)

    for i, a in enumerate(actions):
        p = turn
        if a < 32:
            use(p, a, i)
            h.from_indicator_now[p].discard(a)
            if lead < 0:
                lead = a
                turn = p ^ 1
                continue
            if a >> 3 == lead >> 3:
                w = p if a > lead else p ^ 1
            elif a >> 3 == trump:
                w = p
            else:
                w = p ^ 1
            lead = -1
            tricks += 1
            turn = w
        elif a == DRAW:
            i_stock = 2 * tricks - 2
            h.draws.append((p, STOCK_START + i_stock, i))
            if tricks < PHASE1_TRICKS:
                h.draws.append((p ^ 1, STOCK_START + i_stock + 1, i))
            else:
                h.from_indicator_now[p ^ 1].add(indicator)
                h.indicator_to = p ^ 1
        elif a == DIX:
            use(p, seven, i)
            h.from_indicator_now[p].add(indicator)
            indicator = seven
        elif a >= MELD_BASE:
            for c in mask_cards(meld_cards[a - MELD_BASE]):
                use(p, c, i)
    return h
