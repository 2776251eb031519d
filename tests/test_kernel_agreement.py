"""The C kernel agrees with the Python engine, the reference (issue 12).

Skipped when the kernel is not built or is disabled (MARJOLET_KERNEL=0);
test_kernel_build.py makes sure that "not built" cannot pass unnoticed where
a C compiler exists. ``make kernel-check`` runs the same checks on 100,000
deals and 10,000 endings."""

from __future__ import annotations

import random
import zlib

import pytest

from kernel_support import (
    check_deal,
    check_ending,
    check_exact,
    every_rules,
    late_position,
    random_ending,
)
from marjolet import kernel
from marjolet.rules import CLASSIC, ENCYCLOPEDIA, SAME_SUIT, Rules

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


#: The all-six bonus at the ends of what the kernel takes (0-1000, R17),
#: beyond every_rules' 40 and 50.
BONUS_EDGES = [
    CLASSIC.replace(all_tricks_bonus=0),
    CLASSIC.replace(all_tricks_bonus=1000, dix_on_play=False),
    ENCYCLOPEDIA.replace(
        all_tricks_bonus=0, deal_pattern=(2, 2, 2), jack_queen=SAME_SUIT, one_meld_per_window=True
    ),
]


@pytest.mark.parametrize("rules", BONUS_EDGES, ids=[_rules_id(r) for r in BONUS_EDGES])
def test_the_kernel_agrees_with_python_at_the_bonus_limits(rules: Rules) -> None:
    rng = random.Random(3 + (zlib.crc32(repr(rules).encode())))
    assert sum(check_deal(rng, rules) for _ in range(20)) > 20 * 30
    table = kernel.new_table()
    for _ in range(25):
        check_ending(random_ending(rng, rules), table)
