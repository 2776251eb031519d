"""Each rule and heuristic parameter written once per language, and the C
twin agrees with the Python one (issue 19).

The trick rules: ``marjolet.trick.beats`` / ``mk_beats`` (R8) on every
trick, ``follow_mask`` / ``mk_follow_mask`` (R16) on every class of
position: every lead, every trump, every holding in the suit led, and the
rest of the hand empty, trumps only, other suits only, or both.

The heuristic's tuning: ``bots/heuristic_params.py`` and
``_kernel/heuristic_params.h`` hold the same names with the same values
(the policies' agreement tests then check their choices).
"""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

import marjolet
from marjolet import kernel
from marjolet.bots import heuristic_params
from marjolet.cards import SUIT_MASKS
from marjolet.trick import BEATS, beats, follow_mask

needs_kernel = pytest.mark.skipif(not kernel.available(), reason=kernel.description())


def _hands(lead: int, trump: int, rng: random.Random) -> list[int]:
    """One hand per class of the rest of the hand, for every holding in the
    suit led (the led card itself is never in the follower's hand)."""
    lead_suit = SUIT_MASKS[lead >> 3]
    trumps = SUIT_MASKS[trump] & ~lead_suit
    others = ~(lead_suit | SUIT_MASKS[trump]) & 0xFFFFFFFF
    out = []
    for byte in range(256):
        in_suit = (byte << (8 * (lead >> 3))) & ~(1 << lead)
        for rest in (0, trumps, others, trumps | others):
            out.append(in_suit | (rng.getrandbits(32) & rest or rest))
    return out


def test_r8_beats_table_is_the_function() -> None:
    for trump in range(4):
        for lead in range(32):
            for answer in range(32):
                assert BEATS[trump][lead << 5 | answer] == beats(lead, answer, trump)


def test_r8_a_higher_card_of_the_suit_led_or_a_trump_wins() -> None:
    # KS (29) led, clubs (0) trumps: AS (31) and any club win, QS (28) and a heart lose
    assert beats(29, 31, 0) and beats(29, 0, 0)
    assert not beats(29, 28, 0) and not beats(29, 23, 0)
    # a trump led is beaten only by a higher trump
    assert beats(3, 7, 0) and not beats(3, 2, 0) and not beats(3, 31, 0)


def test_r16_follow_mask_is_a_nonempty_part_of_the_hand() -> None:
    rng = random.Random(16)
    for lead in range(32):
        for trump in range(4):
            for hand in _hands(lead, trump, rng):
                legal = follow_mask(lead, hand, trump)
                assert legal & ~hand == 0
                assert (legal != 0) == (hand != 0)


@needs_kernel
def test_r8_the_kernel_agrees_on_every_trick() -> None:
    k = kernel.KERNEL
    for trump in range(4):
        for lead in range(32):
            for answer in range(32):
                if answer != lead:
                    assert k.beats(lead, answer, trump) == beats(lead, answer, trump), (
                        lead,
                        answer,
                        trump,
                    )


@needs_kernel
def test_r16_the_kernel_agrees_on_every_class_of_position() -> None:
    k = kernel.KERNEL
    rng = random.Random(1116)
    for lead in range(32):
        for trump in range(4):
            for hand in _hands(lead, trump, rng):
                assert k.follow_mask(lead, hand, trump) == follow_mask(lead, hand, trump), (
                    lead,
                    hex(hand),
                    trump,
                )


@needs_kernel
@pytest.mark.parametrize(
    ("args", "message"),
    [((32, 0, 0), "lead"), ((0, -1, 0), "answer"), ((0, 1, 4), "trump")],
)
def test_the_kernel_twins_refuse_what_is_not_a_card(
    args: tuple[int, int, int], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        kernel.KERNEL.beats(*args)


HEADER = Path(marjolet.__file__).parent / "_kernel" / "heuristic_params.h"
_SCALAR = re.compile(r"^#define ([A-Z][A-Z0-9_]*) (-?[0-9.]+)$")
_TABLE = re.compile(r"^static const double ([A-Z][A-Z0-9_]*)\[(\d+)\] = \{([^}]*)\};$")


def _number(text: str) -> float | int:
    return float(text) if "." in text else int(text)


def header_params() -> dict[str, object]:
    """The named constants of the C header, as Python values."""
    out: dict[str, object] = {}
    for line in HEADER.read_text(encoding="utf-8").splitlines():
        if m := _SCALAR.match(line):
            out[m[1]] = _number(m[2])
        elif m := _TABLE.match(line):
            values = tuple(_number(v.strip()) for v in m[3].split(","))
            assert len(values) == int(m[2]), line
            out[m[1]] = values
    return out


def python_params() -> dict[str, object]:
    return {k: v for k, v in vars(heuristic_params).items() if k.isupper()}


def test_the_heuristic_parameters_are_the_same_in_c_and_python() -> None:
    c, py = header_params(), python_params()
    assert set(c) == set(py), f"only in C: {set(c) - set(py)}, only in Python: {set(py) - set(c)}"
    for name, value in py.items():
        assert c[name] == value, name
        # an int stays an int (the C expressions must keep their arithmetic)
        kinds = [type(x) for x in (value if isinstance(value, tuple) else (value,))]
        c_value = c[name]
        c_kinds = [type(x) for x in (c_value if isinstance(c_value, tuple) else (c_value,))]
        assert kinds == c_kinds, name


def test_the_header_reader_sees_every_constant() -> None:
    # a line the reader could not parse would silently drop a parameter
    lines = HEADER.read_text(encoding="utf-8").splitlines()
    named = [ln for ln in lines if ln.startswith(("#define ", "static const"))]
    guards = [ln for ln in named if "MARJOLET_HEURISTIC_PARAMS_H" in ln]
    assert len(header_params()) == len(named) - len(guards) > 20
