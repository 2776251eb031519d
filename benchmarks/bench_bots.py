"""Search bots: moves per second, worlds per second, endings solved per second.

Each bot answers the same positions: the non-trivial decisions (two legal
actions or more) of deals played by ``heuristic`` against itself, phase 1
and phase 2 alike, in the proportion a match has them. For every bot it
reports CPU time per decision (median, 90th percentile, worst), moves per
second, sampled worlds per second (``pimc``: worlds dealt and scored for
every legal action; ``ismcts``: determinizations, one per iteration;
``cheater``: its single true world) and exact ending solves per second
(each playout or world ends in one, tricks 11-16 solved exactly).

CPU time (``time.process_time``) is used so that other jobs on the machine
disturb the figures less; run it with ``nice`` on an otherwise quiet
machine all the same.

    nice .venv/bin/python benchmarks/bench_bots.py
    nice .venv/bin/python benchmarks/bench_bots.py --deals 4 \
        --bots pimc:worlds=24 ismcts:iterations=150
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from typing import Any

from marjolet.bots import make_bot
from marjolet.bots.heuristic import POLICY
from marjolet.cards import shuffled_deck
from marjolet.engine import Deal
from marjolet.observation import Observation, observe

DEFAULT_BOTS = ["solver", "pimc", "pimc:worlds=24", "ismcts", "ismcts:iterations=150", "cheater"]


def positions(deals: int, seed: int) -> list[tuple[Deal, Observation, list[int]]]:
    """The non-trivial decisions of ``deals`` heuristic self-play deals."""
    rng = random.Random(seed)
    out = []
    for i in range(deals):
        deal = Deal(shuffled_deck(rng), i & 1)
        while not deal.is_over:
            legal = deal.legal_actions()
            if len(legal) > 1:
                out.append((deal.copy(), observe(deal, deal.to_move), legal))
            deal.push(POLICY.act(deal))
    return out


def measure(
    spec: str, cases: list[tuple[Deal, Observation, list[int]]], seed: int
) -> dict[str, Any]:
    bot = make_bot(spec, seed=seed)
    evaluator = getattr(bot, "evaluator", None)
    times = []
    worlds = 0
    phase1_time = 0.0
    for deal, obs, legal in cases:
        if bot.sees_hidden_cards:
            bot.see_deal(deal)
        start = time.process_time()
        bot.choose(obs, legal)
        spent = time.process_time() - start
        times.append(spent)
        if not obs.stock_empty:
            phase1_time += spent
            worlds += getattr(bot, "last_worlds", 0) or getattr(bot, "last_iterations", 0)
    total = sum(times)
    endings = evaluator.endings if evaluator is not None else None
    ms = sorted(t * 1000 for t in times)
    return {
        "bot": spec,
        "decisions": len(times),
        "median_ms": round(statistics.median(ms), 2),
        "p90_ms": round(ms[int(0.9 * (len(ms) - 1))], 2),
        "worst_ms": round(ms[-1], 2),
        "moves_per_s": round(len(times) / total, 1) if total else None,
        "worlds_per_s": round(worlds / phase1_time, 1) if worlds and phase1_time else None,
        "endings_per_s": round(endings / total, 1) if endings and total else None,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="search bot speed benchmark")
    parser.add_argument("--bots", nargs="+", default=DEFAULT_BOTS, metavar="SPEC")
    parser.add_argument("--deals", type=int, default=6, help="self-play deals giving the positions")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    cases = positions(args.deals, args.seed)
    rows = [measure(spec, cases, args.seed) for spec in args.bots]
    if args.json:
        print(json.dumps({"positions": len(cases), "bots": rows}))
        return 0
    print(f"{len(cases)} decisions from {args.deals} heuristic self-play deals (CPU time)")
    columns = [("median ms", "median_ms"), ("p90 ms", "p90_ms"), ("worst ms", "worst_ms"),
               ("moves/s", "moves_per_s"), ("worlds/s", "worlds_per_s"),
               ("endings/s", "endings_per_s")]  # fmt: skip
    width = max(len("bot"), *(len(r["bot"]) for r in rows))
    head = f"{'bot':<{width}}" + "".join(f" {title:>10}" for title, _ in columns)
    print(head)
    print("-" * len(head))
    for r in rows:
        cells = "".join(f" {'-' if r[key] is None else r[key]:>10}" for _, key in columns)
        print(f"{r['bot']:<{width}}{cells}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
