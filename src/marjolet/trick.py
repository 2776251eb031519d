"""The two rules of a trick, written once: who wins it (R8) and what the
follower may play in tricks 11-16 (R16).

Everything that plays or judges a trick asks these: the engine
(:meth:`~marjolet.engine.Deal.push`, :meth:`~marjolet.engine.Deal.legal_mask`),
the public history walk, the heuristic and the ending solver. The C kernel
has one twin of each, ``mk_beats`` and ``mk_follow_mask`` in
``_kernel/kernel.h``, exposed as ``_kernel.beats`` and ``_kernel.follow_mask``
so that tests/test_kernel_twins.py can prove that each pair agrees on every
class of position.

Cards are ids 0-31 (suit * 8 + rank, ranks 7 8 9 J Q K T A), so within a
suit a higher id is a higher card.

>>> from marjolet.cards import parse_card
>>> beats(parse_card("KS"), parse_card("AS"), trump=0)
True
>>> beats(parse_card("AS"), parse_card("7C"), trump=0)  # clubs are trumps
True
"""

from __future__ import annotations

from marjolet.cards import SUIT_MASKS

__all__ = ["BEATS", "beats", "follow_mask"]


def beats(lead: int, answer: int, trump: int) -> bool:
    """Whether ``answer``, played on ``lead``, wins the trick (R8): a higher
    card of the suit led, or a trump on a lead of another suit."""
    if answer >> 3 == lead >> 3:
        return answer > lead
    return answer >> 3 == trump


def follow_mask(lead: int, hand: int, trump: int) -> int:
    """The cards of ``hand`` that may answer ``lead`` in tricks 11-16 (R16):
    a higher card of the suit led if it has one, else any card of that suit,
    else a trump, else any card."""
    suit = hand & SUIT_MASKS[lead >> 3]
    if suit:
        return (suit & ~((2 << lead) - 1)) or suit  # the higher ones, else all
    return (hand & SUIT_MASKS[trump]) or hand


#: :func:`beats` tabulated for the hot loops of the engine and the solver:
#: ``BEATS[trump][lead << 5 | answer]``.
BEATS: tuple[tuple[bool, ...], ...] = tuple(
    tuple(beats(lead, answer, trump) for lead in range(32) for answer in range(32))
    for trump in range(4)
)
