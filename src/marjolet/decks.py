"""Whole deck orders consistent with what one seat knows (R23).

The engine's sampler (:func:`marjolet.observation.sample_world`) deals the
unseen cards between the opponent's hand and the stock *now*. Tools that
replay a deal from its start need more: a full deck order (R4) from which
the same public actions replay legally and the seat sees exactly what it
saw. The bot protocol's server rebuilds the host's observation this way
(:func:`marjolet.bots.protocol.rebuild_deal`), and OpenSpiel's
``resample_from_infostate`` resamples with it.

:func:`consistent_deck` builds one from the facts a seat holds (its dealt
cards, its draws, the card turned up and the public actions):

1. the seat's own cards stay where the seat saw them: its dealt cards, the
   cards it drew, the card turned up (R4, R5);
2. every card the opponent played, declared or exchanged goes to one of the
   opponent's dealt places or draws made before that action (earliest need
   first, at random among the places that fit, so a place is always left
   when the actions are legal);
3. the unseen rest is shuffled into the free places.

Every consistent deck gives the seat the same observation, since an
observation holds nothing hidden. :func:`deck_for` does the same from an
:class:`~marjolet.observation.Observation`.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from marjolet.actions import DIX, DRAW, MELD_BASE
from marjolet.cards import CARD_NAMES, SEVEN, card, mask_cards
from marjolet.errors import DealError
from marjolet.history import PHASE1_TRICKS, STOCK_CARDS, draws, walk
from marjolet.melds import MELD_CARDS
from marjolet.observation import Observation
from marjolet.rules import SAME_SUIT, Rules

#: Deck positions of the card turned up and of the first stock card (R5).
INDICATOR_POS = 12
STOCK_START = 13


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
    rules: Rules,
    dealer: int,
    seat: int,
    turned_up: int,
    dealt: Sequence[int],
    drawn: Sequence[int],
    actions: Sequence[int],
    rng: random.Random,
) -> list[int]:
    """A deck order from which ``actions`` can replay with ``dealer``
    dealing and after which ``seat`` holds what it was dealt (``dealt``, in
    deal order) and drew (``drawn``, the face-up card included when it took
    it). Raises :class:`~marjolet.errors.DealError` naming the first fact
    that no deck can satisfy."""
    opp = seat ^ 1
    trump = turned_up >> 3
    seven = card(SEVEN, trump)
    places = dealt_positions(rules.deal_pattern, dealer)
    deck = [-1] * 32
    deck[INDICATOR_POS] = turned_up
    if len(dealt) != len(places[seat]):
        raise DealError(f"the seat was dealt {len(dealt)} cards, not {len(places[seat])}")
    for place, c in zip(places[seat], dealt, strict=True):
        deck[place] = c
    for step in walk(actions, dealer, trump):
        if step.action == DRAW and not 1 <= step.tricks <= PHASE1_TRICKS:
            raise DealError(f"actions[{step.position}]: 'draw' after trick {step.tricks} (R9)")
    timeline = list(draws(actions, dealer, trump))
    own = [(i, pos) for i, who, pos in timeline if who == seat]
    if len(own) != len(drawn):
        raise DealError(
            f"'draws' lists {len(drawn)} card(s) but seat {seat} has drawn "
            f"{len(own)} by these actions"
        )
    for (_, pos), c in zip(own, drawn, strict=True):
        if pos < STOCK_CARDS:
            if c in deck:
                raise DealError(f"drawn card {CARD_NAMES[c]} is also dealt or turned up")
            deck[STOCK_START + pos] = c
    known = {c for c in deck if c >= 0}
    needed = _opponent_needs(rules, actions, dealer, opp, turned_up, seven, timeline)

    # place the opponent's needed cards, earliest need first
    free = [(-1, place) for place in places[opp]]
    free += [(i, STOCK_START + pos) for i, who, pos in timeline if who == opp and pos < STOCK_CARDS]
    for c, deadline in sorted(needed.items(), key=lambda item: item[1]):
        if c in known:
            raise DealError(
                f"actions[{deadline}]: the opponent uses {CARD_NAMES[c]}, which this seat "
                "holds, drew or saw turned up"
            )
        options = [i for i, (release, _) in enumerate(free) if release < deadline]
        if not options:
            raise DealError(f"actions[{deadline}]: the opponent cannot hold {CARD_NAMES[c]} yet")
        _, place = free.pop(options[rng.randrange(len(options))])
        deck[place] = c
        known.add(c)

    rest = [c for c in range(32) if c not in known]
    rng.shuffle(rest)
    holes = [i for i, c in enumerate(deck) if c < 0]
    if len(rest) != len(holes):
        raise DealError("the cards of the seat's knowledge do not fit in one deck")
    for place, c in zip(holes, rest, strict=True):
        deck[place] = c
    return deck


def _opponent_needs(
    rules: Rules,
    actions: Sequence[int],
    dealer: int,
    opp: int,
    turned_up: int,
    seven: int,
    timeline: Sequence[tuple[int, int, int]],
) -> dict[int, int]:
    """Each card the opponent must have taken from the deck, with the first
    action that used it (cards it got from the face-up card do not count)."""
    trump = turned_up >> 3
    received: dict[int, int] = {}  # card -> action index it arrived at
    needed: dict[int, int] = {}  # card -> first action index that used it
    dix_done = False
    meld_cards = MELD_CARDS[rules.jack_queen == SAME_SUIT][trump]
    last_draw = next(((i, who) for i, who, pos in timeline if pos == STOCK_CARDS), None)
    for step in walk(actions, dealer, trump):
        i, a = step.position, step.action
        if a == DIX:
            dix_done = True
        if last_draw == (i, opp):
            received.setdefault(seven if dix_done else turned_up, i)
        if step.player != opp:
            continue
        if a < MELD_BASE:
            used = [a]
        elif a < DIX:
            used = mask_cards(meld_cards[a - MELD_BASE])
        elif a == DIX:
            used = [seven]
            received.setdefault(turned_up, i)
        else:
            used = []
        for c in used:
            if c not in received or received[c] >= i:
                needed.setdefault(c, i)
    return needed


def deck_for(
    obs: Observation, rng: random.Random, own_dealt_order: Sequence[int] | None = None
) -> list[int]:
    """:func:`consistent_deck` for the seat of ``obs``. ``own_dealt_order``
    is the seat's six dealt cards in the order they were dealt (the order
    carries no information; by default the cards of ``obs.dealt`` in id
    order). Raises :class:`~marjolet.errors.DealError` for an observation
    that does not come from a real deal (``obs.dealt`` empty)."""
    own = list(own_dealt_order) if own_dealt_order is not None else mask_cards(obs.dealt.mask)
    if len(own) != 6 or sum(1 << c for c in own) != obs.dealt.mask:
        raise DealError("the observation does not hold the seat's six dealt cards")
    return consistent_deck(
        obs.rules, obs.dealer, obs.seat, obs.turned_up, own, obs.draws, obs.actions, rng
    )
