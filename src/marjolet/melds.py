"""Meld ids, the cards each one needs and their values (R11, R12).

Meld ids are 0-11 in the order of ``MELD_NAMES``; the action id of declaring
meld ``m`` is ``MELD_BASE + m`` (see :mod:`marjolet.actions`). Which cards a
meld needs depends on the trump suit and, for ``JQs``, on the ``jack_queen``
setting; tables for every combination are built once at import.
"""

from __future__ import annotations

from marjolet.cards import ACES, JACK, KING, KINGS, QUEEN, QUEENS, SUITS, TENS, card, display_order
from marjolet.rules import SAME_SUIT, Rules

MELD_NAMES = (
    "4A", "4T", "4K", "4Q",
    "KQC", "KQD", "KQH", "KQS",
    "JQC", "JQD", "JQH", "JQS",
)  # fmt: skip
MELD_COUNT = len(MELD_NAMES)
MELD_INDEX = {name: i for i, name in enumerate(MELD_NAMES)}
FOUR_ACES, FOUR_TENS, FOUR_KINGS, FOUR_QUEENS = range(4)
MARRIAGE_BASE = 4  # KQs = 4 + suit
JACK_QUEEN_BASE = 8  # JQs = 8 + suit


def _meld_cards(trump: int, same_suit: bool) -> tuple[int, ...]:
    masks = [ACES, TENS, KINGS, QUEENS]
    masks += [1 << card(KING, s) | 1 << card(QUEEN, s) for s in range(4)]
    for s in range(4):
        jack = card(JACK, s if same_suit else trump)
        masks.append(1 << jack | 1 << card(QUEEN, s))
    return tuple(masks)


def _meld_values(trump: int) -> tuple[int, ...]:
    values = [100, 80, 60, 40]
    values += [40 if s == trump else 20 for s in range(4)]
    values += [40 if s == trump else 20 for s in range(4)]
    return tuple(values)


#: ``MELD_CARDS[same_suit][trump][m]``: the mask of the cards meld ``m`` needs.
MELD_CARDS = tuple(tuple(_meld_cards(t, bool(ss)) for t in range(4)) for ss in range(2))
#: ``MELD_VALUES[trump][m]``: the points of meld ``m`` (R11).
MELD_VALUES = tuple(_meld_values(t) for t in range(4))


def meld_cards(meld: int, trump: int, rules: Rules) -> int:
    """The mask of the cards meld ``meld`` needs under ``rules`` with ``trump``."""
    return MELD_CARDS[rules.jack_queen == SAME_SUIT][trump][meld]


def meld_card_order(meld: int, mask: int) -> list[int]:
    """The cards of meld ``meld`` (``mask``) in the order players name them:
    the jack first in a jack-queen meld ("the jack with a queen"), else the
    players' sorting order; every front end lists a meld's cards so."""
    order = display_order(mask)
    if meld >= JACK_QUEEN_BASE:
        order.sort(key=lambda c: c & 7)  # the jack, then the queen
    return order


def meld_value(meld: int, trump: int) -> int:
    """The points meld ``meld`` scores with ``trump`` (R11)."""
    return MELD_VALUES[trump][meld]


def meld_description(meld: int, trump: int, rules: Rules) -> str:
    """A human description such as ``K♥-Q♥ (trump marriage)``."""
    from marjolet.cards import card_symbol

    cards = "-".join(card_symbol(c) for c in meld_card_order(meld, meld_cards(meld, trump, rules)))
    if meld < MARRIAGE_BASE:
        return f"four {('aces', 'tens', 'kings', 'queens')[meld]}"
    suit = meld & 3
    kind = "marriage" if meld < JACK_QUEEN_BASE else "marjolet"
    if suit == trump:
        kind = f"trump {kind}"
    return f"{cards} ({kind}, {SUITS[suit]})"
