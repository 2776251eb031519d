"""The tuned playout policy (``eval=tuned``): the heuristic plus a learned term.

The kernel's ``mk_tuned_action`` adds to the heuristic's value of each card
in tricks 1-10 the weights of the card's features
(``_kernel/policy_weights.h``, fitted by ``benchmarks/fit_policy.py``).
These tests recompute its choice in Python from the features the kernel
reports and the weights read from the header, check that the features read
only what the seat may know (R23), and that ``best`` plays with it."""

from __future__ import annotations

import math
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
from marjolet.rules import CLASSIC

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


def _opponent_lead(seed: int) -> tuple[Deal, Deal]:
    """A classic deal just before seat 1 leads in trick 3-9 and just after
    (seat 0 to answer), reached by heuristic play."""
    rng = random.Random(seed)
    while True:
        deal = Deal(random_deck(rng), rng.randrange(2), CLASSIC)
        while not deal.is_over and not deal.stock_empty:
            leads = deal.to_move == 1 and deal.lead is None and not deal.in_window
            if leads and 2 <= deal.tricks_played <= 8:
                before = deal.copy()
                deal.push(POLICY.act(deal))
                return before, deal
            deal.push(POLICY.act(deal))


def _tuned_gap(world: Deal, card: int, weights: list[float]) -> float:
    """The tuned value of ``card`` below the favourite's, for the player to
    lead in ``world``, recomputed from the kernel's features and the header."""
    record = kernel.kernel_deal(world).policy_record()
    assert record is not None
    values: dict[int, float] = {c: v + sum(weights[i] for i in idx) for c, v, idx in record[1]}
    return values[card] - max(values.values())


@pytest.mark.parametrize("seed", [3, 6])
def test_the_lead_reading_deals_worlds_in_proportion_to_the_policys_chance_of_the_lead(
    seed: int,
) -> None:
    # Each uniform world of the answering seat, weighted by the keep chance
    # floor + (1 - floor) * exp(beta * gap), predicts how often each unseen
    # card lies in the opponent's hand under the reading; the kernel's
    # reading must deal it that often.
    from marjolet.bots.best import base_deal, world_spec
    from marjolet.observation import world_deal

    beta, floor, n = 0.135, 0.1, 12000
    before, after = _opponent_lead(seed)
    led = after.lead
    assert led is not None
    obs, seen_before = observe(after, 0), observe(before, 0)
    spec = world_spec(obs)
    kd = kernel.kernel_deal(base_deal(obs, spec))
    args = (kd, 0, spec.unseen, spec.opp_missing, spec.first_slot, n, 11)
    k = kernel.KERNEL
    assert k is not None
    weights = header_weights()
    keeps, uniform_hands = [], []
    for hidden, stock in k.sample(*args):
        world = world_deal(seen_before, hidden | 1 << led, stock)
        keeps.append(floor + (1 - floor) * math.exp(beta * _tuned_gap(world, led, weights)))
        uniform_hands.append(hidden)
    read_hands = [hidden for hidden, _ in k.sample(*args, None, (), (beta, floor))]
    total = sum(keeps)
    moved = 0.0
    for c in range(32):
        if not spec.unseen >> c & 1:
            continue
        predicted = sum(w for w, h in zip(keeps, uniform_hands, strict=True) if h >> c & 1) / total
        uniform = sum(h >> c & 1 for h in uniform_hands) / n
        dealt = sum(h >> c & 1 for h in read_hands) / n
        assert abs(dealt - predicted) < 0.025, f"card {c}: {dealt:.3f} dealt, {predicted:.3f} due"
        moved = max(moved, abs(predicted - uniform))
    assert moved > 0.04, "the lead says something about the hand in this position"


def test_the_lead_reading_is_off_where_the_seat_leads_or_is_in_a_window() -> None:
    from marjolet.bots.best import base_deal, world_spec

    before, _ = _opponent_lead(3)
    obs = observe(before, 1)  # seat 1 leads: nothing to read
    spec = world_spec(obs)
    kd = kernel.kernel_deal(base_deal(obs, spec))
    k = kernel.KERNEL
    assert k is not None
    args = (kd, 1, spec.unseen, spec.opp_missing, spec.first_slot, 500, 5)
    assert k.sample(*args, None, (), (50.0, 0.0)) == k.sample(*args)
    with pytest.raises(ValueError, match="beta"):
        k.sample(*args, None, (), (-1.0, 0.5))
    with pytest.raises(TypeError, match="beta, floor"):
        k.sample(*args, None, (), 0.135)
