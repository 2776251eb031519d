"""The engine benchmark behind ``marjolet bench``: complete random deals on
one core, and the cost of ``copy()`` and of ``push``+``pop``.

Every card play, meld, ``dix`` and ``draw`` counts as one action (as in
record.md); the random player is uniform over the legal actions, meld-window
actions included. Each figure is the median of several rounds.

:func:`run_kernel_bench` measures the C kernel (docs/kernel.md) when it is
built: the same random-deal workload run in C (RNG and legal-move generation
included), the median time of an exact six-card ending solve, and the best
bot's sampled worlds a second.
"""

from __future__ import annotations

import random
import statistics
import time
from dataclasses import dataclass
from typing import Any

from marjolet import kernel
from marjolet.engine import Deal
from marjolet.rules import CLASSIC, Rules


@dataclass(frozen=True, slots=True)
class EngineBench:
    deals_per_s: float
    actions_per_s: float
    copy_us: float
    push_pop_us: float
    rounds: int
    deals_per_round: int

    def to_json(self) -> dict[str, float]:
        return {
            "deals_per_s": round(self.deals_per_s, 1),
            "actions_per_s": round(self.actions_per_s, 1),
            "copy_us": round(self.copy_us, 3),
            "push_pop_us": round(self.push_pop_us, 3),
        }


def _decks(rng: random.Random, n: int) -> list[list[int]]:
    decks = []
    for _ in range(n):
        deck = list(range(32))
        rng.shuffle(deck)
        decks.append(deck)
    return decks


def random_deals(decks: list[list[int]], rules: Rules, rng: random.Random) -> tuple[float, int]:
    """Play one random deal per deck; return (seconds, actions)."""
    rnd = rng.random
    actions = 0
    start = time.perf_counter()
    for i, deck in enumerate(decks):
        deal = Deal(deck, i & 1, rules)
        legal = deal.legal_actions()
        while legal:
            deal.push(legal[int(rnd() * len(legal))])
            actions += 1
            legal = deal.legal_actions()
    return time.perf_counter() - start, actions


def _positions(rules: Rules, rng: random.Random, n: int) -> list[Deal]:
    """Mid-deal positions reached by random play (a spread of phases)."""
    out = []
    for deck in _decks(rng, n):
        deal = Deal(deck, 0, rules)
        stop = rng.randrange(40)
        while deal.legal_actions() and len(deal.moves) < stop:
            legal = deal.legal_actions()
            deal.push(legal[rng.randrange(len(legal))])
        if not deal.is_over:
            out.append(deal)
    return out


def run_engine_bench(
    *, rounds: int = 5, deals: int = 2000, seed: int = 1, rules: Rules = CLASSIC
) -> EngineBench:
    rng = random.Random(seed)
    deal_rates, action_rates = [], []
    for _ in range(rounds):
        decks = _decks(rng, deals)
        seconds, actions = random_deals(decks, rules, rng)
        deal_rates.append(deals / seconds)
        action_rates.append(actions / seconds)
    positions = _positions(rules, rng, 200)
    reps = 200
    copy_times, push_pop_times = [], []
    for _ in range(rounds):
        start = time.perf_counter()
        for deal in positions:
            for _ in range(reps):
                deal.copy()
        copy_times.append((time.perf_counter() - start) / (len(positions) * reps) * 1e6)
        start = time.perf_counter()
        for deal in positions:
            action = deal.legal_actions()[0]
            for _ in range(reps):
                deal.push(action)
                deal.pop()
        push_pop_times.append((time.perf_counter() - start) / (len(positions) * reps) * 1e6)
    return EngineBench(
        deals_per_s=statistics.median(deal_rates),
        actions_per_s=statistics.median(action_rates),
        copy_us=statistics.median(copy_times),
        push_pop_us=statistics.median(push_pop_times),
        rounds=rounds,
        deals_per_round=deals,
    )


#: C deals per round for every Python deal of the engine benchmark (C is
#: about a hundred times faster; this keeps a round long enough to time).
KERNEL_DEALS_FACTOR = 20
#: Endings solved per round by the kernel's solve benchmark.
KERNEL_ENDINGS = 2000


@dataclass(frozen=True, slots=True)
class KernelBench:
    actions_per_s: float
    solve_median_us: float
    pimc_worlds_per_s: float | None

    def to_json(self) -> dict[str, Any]:
        return {
            "actions_per_s": round(self.actions_per_s, 1),
            "solve_median_us": round(self.solve_median_us, 2),
            "pimc_worlds_per_s": (
                None if self.pimc_worlds_per_s is None else round(self.pimc_worlds_per_s, 1)
            ),
        }


def best_bot_worlds_per_s() -> float | None:
    """Sampled worlds a second of the best bot's phase-1 search, from
    ``marjolet.bots.best.measure_worlds_per_s`` when that bot exists."""
    try:
        from marjolet.bots.best import measure_worlds_per_s  # type: ignore[import-not-found,unused-ignore]
    except ImportError:
        return None
    return float(measure_worlds_per_s())


def run_kernel_bench(
    *, rounds: int = 5, deals: int = 2000, seed: int = 1, rules: Rules = CLASSIC
) -> KernelBench | None:
    """The kernel figures (medians over ``rounds``), or ``None`` when the
    kernel is not in use or does not cover ``rules``.

    * actions_per_s: uniform random legal actions through whole deals in C,
      ``deals * KERNEL_DEALS_FACTOR`` deals a round (decks shuffled before
      the clock starts, as in the engine benchmark);
    * solve_median_us: the median time to solve exactly (value and every
      optimal card) the six-card ending at the start of trick 11 of random
      deals played at random; the table is cleared before each solve (an
      O(1) generation bump), so no solve reuses another's work;
    * pimc_worlds_per_s: see :func:`best_bot_worlds_per_s`.
    """
    if not kernel.supports(rules):
        return None
    k = kernel.KERNEL
    r = kernel.rules_tuple(rules)
    rates, solves = [], []
    for i in range(rounds):
        actions, seconds = k.bench_random(r, deals * KERNEL_DEALS_FACTOR, seed + i)
        rates.append(actions / seconds)
        solves.append(statistics.median(k.bench_solve(r, KERNEL_ENDINGS, seed + i)) * 1e6)
    return KernelBench(
        actions_per_s=statistics.median(rates),
        solve_median_us=statistics.median(solves),
        pimc_worlds_per_s=best_bot_worlds_per_s(),
    )
