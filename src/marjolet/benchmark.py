"""The engine benchmark behind ``marjolet bench``: complete random deals on
one core, and the cost of ``copy()`` and of ``push``+``pop``.

Every card play, meld, ``dix`` and ``draw`` counts as one action (as in
record.md); the random player is uniform over the legal actions, meld-window
actions included. Each figure is the median of several rounds.
"""

from __future__ import annotations

import random
import statistics
import time
from dataclasses import dataclass

from marjolet.cards import shuffled_deck
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
    return [shuffled_deck(rng) for _ in range(n)]


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
