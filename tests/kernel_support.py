"""Differential checks of the C kernel against the Python engine, shared by
tests/test_kernel_agreement.py (a few thousand positions) and
benchmarks/kernel_check.py (``make kernel-check``: 100,000 deals).

Each check raises AssertionError naming the position when the kernel and
the engine disagree."""

from __future__ import annotations

import itertools
import random
from typing import Any

from marjolet import kernel
from marjolet.bots.heuristic import POLICY
from marjolet.bots.solver import INF, EndingSolver, NotAnEndingError
from marjolet.engine import Deal
from marjolet.rules import CLASSIC, SAME_SUIT, TRUMP_JACK, Rules


def every_rules() -> list[Rules]:
    """Every combination of the deal-level settings of rules.md (32)."""
    out = []
    for pattern, bonus, dix, jq, one in itertools.product(
        [(3, 3), (2, 2, 2)], [50, 40], [True, False], [TRUMP_JACK, SAME_SUIT], [False, True]
    ):
        out.append(
            CLASSIC.replace(
                deal_pattern=pattern,
                all_tricks_bonus=bonus,
                dix_on_play=dix,
                jack_queen=jq,
                one_meld_per_window=one,
            )
        )
    return out


def random_deck(rng: random.Random) -> list[int]:
    deck = list(range(32))
    rng.shuffle(deck)
    return deck


def check_deal(rng: random.Random, rules: Rules) -> int:
    """Play one random deal in both engines side by side: the legal-action
    set and the whole state (both scores included) must agree after every
    action; the conversion of a Python deal must give the same kernel deal;
    the kernel's heuristic policy must choose what bots/heuristic.py does.
    Returns the number of actions played."""
    deck = random_deck(rng)
    dealer = rng.randrange(2)
    deal = Deal(deck, dealer, rules)
    kd = kernel.KERNEL.Deal(deck, dealer, kernel.rules_tuple(rules))
    n = 0
    while True:
        where = f"{deal!r} rules={rules.to_record()}"
        assert kd.state() == deal.state, f"state differs: {kd.state()} != {deal.state} at {where}"
        legal = deal.legal_actions()
        assert kd.legal_actions() == legal, f"legal differs at {where}"
        assert kd.check() == 0, f"kernel state inconsistent at {where}"
        if not legal:
            return n
        assert kd.heuristic_action(n) == POLICY.act(deal), f"heuristic policy differs at {where}"
        assert kd.fast_action(n) in legal, f"fast policy's action illegal at {where}"
        assert kd.tuned_action(n) in legal, f"tuned policy's action illegal at {where}"
        if rng.random() < 0.1:
            assert kernel.kernel_deal(deal).state() == deal.state, f"conversion at {where}"
            check_playouts(kd, rng, where)
        a = legal[rng.randrange(len(legal))]
        deal.push(a)
        kd.play(a)
        n += 1


def check_playouts(kd: Any, rng: random.Random, where: str) -> None:
    """Random and heuristic playouts from ``kd`` end in a finished,
    consistent deal with all 32 cards captured; with ``stop_at_ending`` the
    heuristic playout stops at the last draw."""
    for name in ("random_playout", "heuristic_playout", "fast_playout"):
        end = kd.copy()
        getattr(end, name)(rng.randrange(1 << 30))
        state = end.state()
        assert end.is_over and end.check() == 0, f"playout from {where}"
        assert state[4] | state[5] == (1 << 32) - 1, f"playout lost cards from {where}"
    part = kd.copy()
    part.heuristic_playout(rng.randrange(1 << 30), stop_at_ending=True)
    assert part.stock_empty or part.is_over, f"stop_at_ending from {where}"


def random_ending(rng: random.Random, rules: Rules) -> Deal:
    """A random deal played at random into phase 2: at the start of trick 11
    one time in three, else some random cards later (mid-trick included)."""
    deal = Deal(random_deck(rng), rng.randrange(2), rules)
    while not deal.stock_empty:
        legal = deal.legal_actions()
        deal.push(legal[rng.randrange(len(legal))])
    extra = 0 if rng.randrange(3) == 0 else rng.randrange(1, 11)
    for _ in range(extra):
        legal = deal.legal_actions()
        deal.push(legal[rng.randrange(len(legal))])
    return deal


def check_ending(deal: Deal, table: Any) -> None:
    """Kernel values and optimal sets equal the Python ending solver's."""
    solver = EndingSolver.for_deal(deal)
    solver._ktable = None  # force the pure-Python path
    expected = _python_solve(solver, deal)
    kd = kernel.kernel_deal(deal)
    value, mask = kd.solve(table)
    where = f"{deal!r} rules={deal.rules.to_record()}"
    assert value == expected[0], f"value {value} != {expected[0]} at {where}"
    assert mask == expected[1], f"optimal set {mask:#x} != {expected[1]:#x} at {where}"
    assert kd.ending_value(table) == expected[0], f"ending_value at {where}"
    assert kernel.solve(deal, table) == expected[2], f"kernel.solve at {where}"


def _python_solve(solver: EndingSolver, deal: Deal) -> tuple[int, int, Any]:
    """The pure-Python solver's (value, optimal mask, Solution)."""
    saved = kernel.KERNEL
    kernel.KERNEL = None  # the solver's kernel path is off while it runs
    try:
        solution = solver.solve(deal)
    finally:
        kernel.KERNEL = saved
    return solution.value, sum(1 << a for a in solution.best), solution


# -- late phase 1: plain minimax reference -------------------------------------------


def minimax_exact(deal: Deal) -> int:
    """The reference for the kernel's exact search: plain minimax over the
    Deal API in phase 1 (every legal action, meld windows included, no
    pruning), and the Python ending solver once the stock is empty (itself
    checked against plain minimax by tests/test_bots_solver.py). Returns the
    final deal-score difference for the player to move."""
    me = deal.to_move
    solvers: dict[tuple[int, bool, int], EndingSolver] = {}

    def search() -> int:
        if deal.is_over:
            return deal.points[me] - deal.points[me ^ 1]
        if deal.stock_empty:
            key = (deal.trump, deal.seven_scored_by is None, deal.rules.all_tricks_bonus)
            solver = solvers.get(key)
            if solver is None:
                solver = solvers[key] = EndingSolver.for_deal(deal)
            v = solver.solve_value(deal)
            return v if deal.to_move == me else -v
        maximise = deal.to_move == me
        best = -INF if maximise else INF
        for a in deal.legal_actions():
            deal.push(a)
            v = search()
            deal.pop()
            if (v > best) if maximise else (v < best):
                best = v
        return best

    if me < 0:
        raise NotAnEndingError("the deal is over")
    saved = kernel.KERNEL
    kernel.KERNEL = None
    try:
        return search()
    finally:
        kernel.KERNEL = saved


def late_position(rng: random.Random, rules: Rules, tricks_left: int) -> Deal:
    """A random deal played at random until ``tricks_left`` phase-1 tricks
    remain (at the lead, in the middle of a trick or in a meld window)."""
    deal = Deal(random_deck(rng), rng.randrange(2), rules)
    stop = 10 - tricks_left
    while deal.tricks_played < stop or (deal.in_window and rng.random() < 0.5):
        legal = deal.legal_actions()
        deal.push(legal[rng.randrange(len(legal))])
    if rng.random() < 0.3 and not deal.in_window:
        legal = deal.legal_actions()
        deal.push(legal[rng.randrange(len(legal))])  # mid-trick
    return deal


def check_exact(deal: Deal, table: Any) -> None:
    """The kernel's exact search equals plain minimax, for the position and
    for every legal action."""
    where = f"{deal!r} rules={deal.rules.to_record()}"
    me = deal.to_move
    kd = kernel.kernel_deal(deal)
    value, mask = kd.exact(table)
    expected = minimax_exact(deal)
    assert value == expected, f"exact value {value} != minimax {expected} at {where}"
    values = kd.exact_action_values(table)
    optimal = 0
    for a in deal.legal_actions():
        deal.push(a)
        if deal.is_over:
            v = _final(deal, me)
        else:
            v = minimax_exact(deal)
            if deal.to_move != me:
                v = -v
        deal.pop()
        assert values[a] == v, f"action {a}: kernel {values[a]} != minimax {v} at {where}"
        if v == expected:
            optimal |= 1 << a
    assert mask == optimal, f"optimal set {mask:#x} != {optimal:#x} at {where}"


def _final(deal: Deal, player: int) -> int:
    return deal.points[player] - deal.points[player ^ 1]


__all__ = [
    "check_deal",
    "check_ending",
    "check_exact",
    "every_rules",
    "late_position",
    "minimax_exact",
    "random_ending",
]
