"""The C kernel agrees with the Python engine, the reference (issue 12).

Skipped when the kernel is not built or is disabled (MARJOLET_KERNEL=0);
test_kernel_build.py makes sure that "not built" cannot pass unnoticed where
a C compiler exists. ``make kernel-check`` runs the same checks on 100,000
deals and 10,000 endings."""

from __future__ import annotations

import random
import zlib
from fractions import Fraction

import pytest

from kernel_support import (
    chance_minimax,
    check_deal,
    check_ending,
    check_exact,
    every_rules,
    late_position,
    random_ending,
)
from marjolet import kernel
from marjolet.rules import Rules

pytestmark = pytest.mark.skipif(not kernel.available(), reason=kernel.description())

RULES = every_rules()


def _rules_id(r: Rules) -> str:
    dix = "dix" if r.dix_on_play else "nodix"
    one = "one" if r.one_meld_per_window else "any"
    return f"{''.join(map(str, r.deal_pattern))}-{r.all_tricks_bonus}-{dix}-{r.jack_queen}-{one}"


IDS = [_rules_id(r) for r in RULES]


@pytest.mark.parametrize("rules", RULES, ids=IDS)
def test_legal_actions_and_state_agree_after_every_action_of_random_deals(rules: Rules) -> None:
    rng = random.Random(zlib.crc32(repr(rules).encode()))
    actions = sum(check_deal(rng, rules) for _ in range(40))
    assert actions > 40 * 30


@pytest.mark.parametrize("rules", RULES, ids=IDS)
def test_ending_solver_values_and_optimal_sets_agree_with_python(rules: Rules) -> None:
    rng = random.Random(1 + (zlib.crc32(repr(rules).encode())))
    table = kernel.new_table()
    for _ in range(25):
        check_ending(random_ending(rng, rules), table)


@pytest.mark.parametrize("rules", RULES[::3], ids=IDS[::3])
def test_exact_late_phase_one_search_agrees_with_plain_minimax(rules: Rules) -> None:
    rng = random.Random(2 + (zlib.crc32(repr(rules).encode())))
    table = kernel.new_table()
    for _ in range(3):
        check_exact(late_position(rng, rules, 1), table)


@pytest.mark.parametrize("rules", RULES[::3], ids=IDS[::3])
def test_exact_search_with_the_stock_order_unknown_is_the_mean_over_the_draws(
    rules: Rules,
) -> None:
    """Each draw but the last is a chance node: the kernel rounds each mean
    to a point, so it may differ from the exact fraction by half a point per
    chance draw still ahead (two from trick 8's window, one from trick 9)."""
    rng = random.Random(3 + (zlib.crc32(repr(rules).encode())))
    table = kernel.new_table()
    for _ in range(4):
        deal = late_position(rng, rules, 2)
        draws_ahead = 2 if deal.in_window else 1
        value = kernel.kernel_deal(deal).exact_chance(table)
        expected = chance_minimax(deal, table)
        assert abs(value - expected) <= Fraction(draws_ahead, 2), (
            f"exact_chance {value} != expectimax {float(expected):.2f} at {deal!r}"
        )


@pytest.mark.parametrize("rules", RULES[::8], ids=IDS[::8])
def test_at_the_last_draw_the_unknown_stock_order_changes_nothing(rules: Rules) -> None:
    rng = random.Random(4 + (zlib.crc32(repr(rules).encode())))
    table = kernel.new_table()
    checked = 0
    while checked < 5:
        deal = late_position(rng, rules, 1)
        if deal.in_window:  # trick 9's draw is still to come: a chance node
            continue
        kd = kernel.kernel_deal(deal)
        assert kd.exact_chance(table) == kd.exact(table)[0], f"at {deal!r}"
        checked += 1
