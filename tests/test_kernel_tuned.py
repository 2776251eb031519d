"""The tuned playout policy (``eval=tuned``): the heuristic plus a learned term.

The kernel's ``mk_tuned_action`` adds to the heuristic's value of each card
in tricks 1-10 the weights of the card's features
(``_kernel/policy_weights.h``, fitted by ``benchmarks/fit_policy.py``).
These tests recompute its choice in Python from the features the kernel
reports and the weights read from the header, check that the features read
only what the seat may know (R23), and that ``best`` plays with it."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

import marjolet
from kernel_support import every_rules, random_deck
from marjolet import kernel
from marjolet.bots import make_bot
from marjolet.bots.heuristic import POLICY
from marjolet.engine import Deal
from marjolet.observation import observe, sample_world

pytestmark = pytest.mark.skipif(not kernel.available(), reason=kernel.description())

KERNEL_DIR = Path(marjolet.__file__).parent / "_kernel"


def header_weights() -> list[float]:
    """The weights of policy_weights.h, in order."""
    text = (KERNEL_DIR / "policy_weights.h").read_text(encoding="utf-8")
    body = text.split("MK_POLICY_WEIGHTS", 1)[1].split("{", 1)[1].split("}", 1)[0]
    return [float(x) for x in body.replace("\n", " ").split(",") if x.strip()]


def kernel_define(name: str) -> int:
    """An integer #define of kernel.h (MK_PF_COUNT, MK_PF_MAX)."""
    text = (KERNEL_DIR / "kernel.h").read_text(encoding="utf-8")
    match = re.search(rf"#define {name} (\d+)", text)
    assert match, f"kernel.h defines {name}"
    return int(match.group(1))


def phase1_positions(n_deals: int, seed: int) -> list[Deal]:
    """Card decisions of tricks 1-10 reached by the heuristic, every rule set."""
    rng = random.Random(seed)
    rules = every_rules()
    out = []
    for i in range(n_deals):
        deal = Deal(random_deck(rng), rng.randrange(2), rules[i % len(rules)])
        while not deal.is_over and not deal.stock_empty:
            if not deal.in_window:
                out.append(deal.copy())
            legal = deal.legal_actions()
            # a random action one time in four: positions the heuristic avoids
            deal.push(legal[rng.randrange(len(legal))] if rng.random() < 0.25 else POLICY.act(deal))
    return out


def test_the_weights_fill_every_feature_and_the_fitting_script_agrees() -> None:
    script = (Path(__file__).parent.parent / "benchmarks" / "fit_policy.py").read_text("utf-8")
    match = re.search(r"^COUNT = (\d+)", script, re.MULTILINE)
    assert match, "benchmarks/fit_policy.py names COUNT"
    weights = header_weights()
    assert len(weights) == kernel_define("MK_PF_COUNT") == int(match.group(1))
    assert any(w != 0.0 for w in weights), "the weights are fitted, not the zero placeholder"


def test_the_tuned_policy_plays_the_heuristic_value_plus_the_learned_term() -> None:
    weights = header_weights()
    most = kernel_define("MK_PF_MAX")
    for deal in phase1_positions(64, seed=1):
        kd = kernel.kernel_deal(deal)
        choice, cards = kd.policy_record()
        where = f"{deal!r}"
        assert choice == POLICY.act(deal), f"the record's heuristic card at {where}"
        assert sorted(c for c, _, _ in cards) == deal.legal_actions(), where
        best_card, best_value = -1, -1e9
        for card, value, idx in cards:
            assert 8 <= len(idx) <= most and all(0 <= i < len(weights) for i in idx), where
            assert len(set(idx)) == len(idx), f"a feature counted twice at {where}"
            s = 0.0
            for i in idx:
                s += weights[i]
            v = value + s
            if v > best_value or (v == best_value and (card & 7) < (best_card & 7)):
                best_card, best_value = card, v
        assert kd.tuned_action(0) == best_card, where


def test_r23_the_tuned_policy_reads_only_what_its_seat_may_know() -> None:
    rng = random.Random(2)
    for deal in phase1_positions(40, seed=3):
        seat = deal.to_move
        mine = kernel.kernel_deal(deal)
        for _ in range(3):
            world = sample_world(observe(deal, seat), rng)
            theirs = kernel.kernel_deal(world)
            assert theirs.tuned_action(0) == mine.tuned_action(0), f"{deal!r}"
            assert theirs.policy_record() == mine.policy_record(), f"{deal!r}"


def test_the_tuned_policy_is_the_heuristic_outside_tricks_1_to_10() -> None:
    rng = random.Random(4)
    for i in range(20):
        deal = Deal(random_deck(rng), i % 2, every_rules()[i])
        while not deal.is_over:
            kd = kernel.kernel_deal(deal)
            if deal.in_window or deal.stock_empty:
                assert kd.policy_record() is None
                assert kd.tuned_action(0) == POLICY.act(deal), f"{deal!r}"
            deal.push(POLICY.act(deal))


def test_best_with_tuned_playouts_chooses_a_legal_action_reproducibly() -> None:
    for deal in phase1_positions(4, seed=5)[::7]:
        obs, legal = observe(deal, deal.to_move), deal.legal_actions()
        picks = {
            make_bot("best:worlds=24,time=0,eval=tuned", seed=9).choose(obs, legal)
            for _ in range(2)
        }
        assert len(picks) == 1 and picks <= set(legal)
