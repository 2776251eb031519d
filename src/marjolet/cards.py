"""Cards as ints 0-31 and sets of cards as 32-bit int masks (rule R1, R2).

A card is ``suit * 8 + rank`` where suits are ``C D H S`` (0-3) and ranks go
from the weakest to the strongest for winning tricks: ``7 8 9 J Q K T A``
(0-7). Within one suit a higher int is a higher card, so trick comparison is
an integer comparison, and each suit is one byte of a mask. Hot loops use raw
ints; :class:`CardSet` wraps a mask for the public API in the style of
python-chess's ``SquareSet``.
"""

from __future__ import annotations

import operator
import random
from collections.abc import Iterable, Iterator
from typing import SupportsIndex

from marjolet.errors import CardError

SUITS = "CDHS"
SUIT_SYMBOLS = "♣♦♥♠"
SUIT_NAMES = ("clubs", "diamonds", "hearts", "spades")
RANKS = "789JQKTA"
RANK_NAMES = ("7", "8", "9", "J", "Q", "K", "10", "A")

CLUBS, DIAMONDS, HEARTS, SPADES = range(4)
SEVEN, EIGHT, NINE, JACK, QUEEN, KING, TEN, ACE = range(8)

ALL_CARDS = (1 << 32) - 1
SUIT_MASKS = tuple(0xFF << (8 * s) for s in range(4))


def shuffled_deck(rng: random.Random) -> list[int]:
    """A deck order (R4) shuffled by ``rng``: the one shuffle of the package."""
    deck = list(range(32))
    rng.shuffle(deck)
    return deck


def deck_stream(rng: random.Random) -> Iterator[list[int]]:
    """Shuffled decks one after the other from ``rng``, without end."""
    while True:
        yield shuffled_deck(rng)


def _rank_mask(rank: int) -> int:
    return sum(1 << (s * 8 + rank) for s in range(4))


SEVENS = _rank_mask(SEVEN)
JACKS = _rank_mask(JACK)
QUEENS = _rank_mask(QUEEN)
KINGS = _rank_mask(KING)
TENS = _rank_mask(TEN)
ACES = _rank_mask(ACE)
#: Aces and tens: the cards worth points when captured (R2).
POINT_CARDS = ACES | TENS
#: What each ace and each ten is worth when captured (R2); the others nothing.
POINT_CARD_POINTS = 10
#: Card points by card index (R2), for hot loops.
CARD_POINTS = tuple(POINT_CARD_POINTS if (1 << c) & POINT_CARDS else 0 for c in range(32))

_SUIT_OF_CHAR = {ch: i for i, ch in enumerate(SUITS)}
_SUIT_OF_CHAR.update({ch: i for i, ch in enumerate(SUIT_SYMBOLS)})
_RANK_OF_TEXT = {ch: i for i, ch in enumerate(RANKS)}
_RANK_OF_TEXT["10"] = TEN

CARD_NAMES = tuple(RANKS[c & 7] + SUITS[c >> 3] for c in range(32))

# For each suit and byte value, the cards of its set bits in increasing order:
# a mask becomes a card list by four table look-ups instead of a bit loop.
_BYTE_BITS = tuple(tuple(b for b in range(8) if v >> b & 1) for v in range(256))
SUIT_BYTE_CARDS = tuple(
    tuple(tuple(8 * s + b for b in _BYTE_BITS[v]) for v in range(256)) for s in range(4)
)


def card(rank: int, suit: int) -> int:
    """The card of ``rank`` (0-7, see ``RANKS``) in ``suit`` (0-3)."""
    return suit * 8 + rank


def suit_of(c: int) -> int:
    return c >> 3


def rank_of(c: int) -> int:
    return c & 7


def parse_card(text: str) -> int:
    """Parse card text such as ``AS``, ``TD``, ``10D`` or ``Q♠`` (R1).

    Raises :class:`CardError` quoting the text when it is not one of the 32
    cards.
    """
    if not isinstance(text, str):
        raise CardError(f"card must be text like 'QS', got {text!r}")
    body = text.strip()
    if len(body) >= 2:
        rank = _RANK_OF_TEXT.get(body[:-1])
        suit = _SUIT_OF_CHAR.get(body[-1])
        if rank is not None and suit is not None:
            return suit * 8 + rank
    fix = card_fix(text)
    if fix is not None and fix[0] == "capitals":
        raise CardError(
            f"unknown card {text!r}: cards are written in capitals, {fix[1]!r} "
            "(expected rank 7 8 9 T J Q K A and suit C D H S)"
        )
    if fix is not None:
        letter = body[:-1].upper()
        raise CardError(
            f"unknown card {text!r}: {letter} is the French {FRENCH_RANKS[letter][1]}, "
            f"written {fix[1]} (expected rank 7 8 9 T J Q K A and suit C D H S: "
            "clubs, diamonds, hearts, spades)"
        )
    raise CardError(
        f"unknown card {text!r} (expected rank 7 8 9 T J Q K A and suit C D H S, like 'QS')"
    )


#: The French rank letters a card may be typed with (roi, dame, valet): the
#: notation's letter for each and the rank's English name.
FRENCH_RANKS = {"R": ("K", "king"), "D": ("Q", "queen"), "V": ("J", "jack")}


def card_fix(text: object) -> tuple[str, str] | None:
    """How to write a card typed in a common wrong way, else ``None``:
    ``("capitals", "QS")`` for ``qs`` (or ``q♠``, written ``Q♠``), and
    ``("french", "K")`` for a French rank letter (``RC``, ``D♥``, ``V♠``:
    R, D, V are the king, queen and jack), the notation's letter for it.
    The suit of ``RC`` is not guessed: C is clubs in the notation, while a
    French player may mean *cœur*.

    >>> card_fix("qs"), card_fix("D♥"), card_fix("QS"), card_fix("XZ")
    (('capitals', 'QS'), ('french', 'Q'), None, None)
    """
    if not isinstance(text, str):
        return None
    body = text.strip()
    if len(body) < 2 or (body[:-1] in _RANK_OF_TEXT and body[-1] in _SUIT_OF_CHAR):
        return None
    rank, suit = body[:-1].upper(), body[-1].upper()
    if suit not in _SUIT_OF_CHAR:
        return None
    if rank in _RANK_OF_TEXT:
        return ("capitals", rank + suit)
    if rank in FRENCH_RANKS:
        return ("french", FRENCH_RANKS[rank][0])
    return None


def checked_id(value: object, count: int, what: str, error: type[ValueError]) -> int:
    """``value`` as an id in ``0 .. count - 1``, else ``error`` quoting it.

    Any integer type is accepted (NumPy's too, as an ``argmax`` gives),
    never a bool or a negative index counted from the end.

    >>> checked_id(3, 32, "card id", CardError)
    3
    >>> checked_id(-1, 32, "card id", CardError)
    Traceback (most recent call last):
    ...
    marjolet.errors.CardError: card id must be 0-31, got -1
    """
    if not isinstance(value, bool):
        try:
            index = operator.index(value)  # type: ignore[arg-type]  # any integer type
        except TypeError:
            pass
        else:
            if 0 <= index < count:
                return index
    raise error(f"{what} must be 0-{count - 1}, got {value!r}")


def card_name(c: SupportsIndex) -> str:
    """The ASCII text of a card: ``AS``, ``TD``, ``7C`` (R1).

    >>> card_name(31), card_name(0)
    ('AS', '7C')
    """
    return CARD_NAMES[checked_id(c, 32, "card id", CardError)]


def card_symbol(c: SupportsIndex) -> str:
    """A display form with the suit symbol and ``10``: ``A♠``, ``10♦``."""
    card = checked_id(c, 32, "card id", CardError)
    return RANK_NAMES[card & 7] + SUIT_SYMBOLS[card >> 3]


def mask_cards(mask: int) -> list[int]:
    """The cards of a mask in increasing id order (by suit C D H S, low to high)."""
    t = SUIT_BYTE_CARDS
    return [
        *t[0][mask & 255],
        *t[1][(mask >> 8) & 255],
        *t[2][(mask >> 16) & 255],
        *t[3][(mask >> 24) & 255],
    ]


def display_order(mask: int) -> list[int]:
    """The cards of a mask as players sort them: by suit, highest first."""
    t = SUIT_BYTE_CARDS
    return [c for s in range(4) for c in reversed(t[s][(mask >> (8 * s)) & 255])]


def mask_of(cards: Iterable[int]) -> int:
    m = 0
    for c in cards:
        m |= 1 << c
    return m


class CardSet:
    """An immutable set of cards backed by a 32-bit mask.

    ``str`` is the card notation (``"AS TS 9D"``), ``repr`` a constructor
    call, and the usual set operators work between card sets and raw masks.
    """

    __slots__ = ("mask",)

    mask: int

    def __init__(self, cards: int | Iterable[int] | CardSet = 0) -> None:
        if isinstance(cards, CardSet):
            m = cards.mask
        elif isinstance(cards, int):
            m = cards
        else:
            m = mask_of(cards)
        if not 0 <= m <= ALL_CARDS:
            raise CardError(f"card mask {m:#x} is outside the 32 cards")
        object.__setattr__(self, "mask", m)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("CardSet is immutable")

    @classmethod
    def parse(cls, text: str) -> CardSet:
        """Parse space- or comma-separated card text; the inverse of ``str``."""
        m = 0
        for token in text.replace(",", " ").split():
            c = parse_card(token)
            if m >> c & 1:
                raise CardError(f"card {token!r} appears twice in {text!r}")
            m |= 1 << c
        return cls(m)

    def __str__(self) -> str:
        return " ".join(CARD_NAMES[c] for c in display_order(self.mask))

    def __repr__(self) -> str:
        return f"CardSet({self.mask:#010x})"

    def symbols(self) -> str:
        return " ".join(card_symbol(c) for c in display_order(self.mask))

    def __iter__(self) -> Iterator[int]:
        return iter(display_order(self.mask))

    def __len__(self) -> int:
        return self.mask.bit_count()

    def __bool__(self) -> bool:
        return self.mask != 0

    def __contains__(self, c: object) -> bool:
        return isinstance(c, int) and 0 <= c < 32 and bool(self.mask >> c & 1)

    def __int__(self) -> int:
        return self.mask

    def __index__(self) -> int:
        return self.mask

    def __eq__(self, other: object) -> bool:
        if isinstance(other, CardSet):
            return self.mask == other.mask
        if isinstance(other, int):
            return self.mask == other
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.mask)

    def __or__(self, other: CardSet | int) -> CardSet:
        return CardSet(self.mask | int(other))

    def __and__(self, other: CardSet | int) -> CardSet:
        return CardSet(self.mask & int(other))

    def __sub__(self, other: CardSet | int) -> CardSet:
        return CardSet(self.mask & ~int(other))

    def __xor__(self, other: CardSet | int) -> CardSet:
        return CardSet(self.mask ^ int(other))

    def __invert__(self) -> CardSet:
        return CardSet(ALL_CARDS & ~self.mask)

    __ror__ = __or__
    __rand__ = __and__
    __rxor__ = __xor__

    def suit(self, s: int) -> CardSet:
        """The cards of this set in suit ``s``."""
        return CardSet(self.mask & SUIT_MASKS[s])

    def issubset(self, other: CardSet | int) -> bool:
        return self.mask & ~int(other) == 0
