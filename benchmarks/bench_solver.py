"""The ending solver: agreement with plain minimax, and time per full ending.

Targets of the bots issue: the solver agrees with a plain minimax on 10,000
random endings, and solves a full six-card ending (the position right after
the last draw) in a median of at most 2 ms and at worst 50 ms, in pure
Python. Each ending comes from a random deck played with random legal moves
up to the last draw. The timed call is ``solve`` (exact value, the set of
optimal cards and their preference order) with a fresh solver, so no table
is carried from one ending to the next; the reference is
``minimax_value`` (no pruning, no table, over the Deal API), which takes far
longer: ``--no-verify`` skips it.

    nice .venv/bin/python benchmarks/bench_solver.py              # 10,000 endings
    nice .venv/bin/python benchmarks/bench_solver.py --count 500 --json

``EndingSolver`` answers through the C kernel when it is built
(docs/kernel.md); ``MARJOLET_KERNEL=0`` measures the pure-Python solver.
The output names the engine.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time

from marjolet import kernel
from marjolet.bots.solver import EndingSolver, minimax_value
from marjolet.engine import Deal
from marjolet.rules import CLASSIC, ENCYCLOPEDIA, Rules

TARGET_MEDIAN_MS = 2.0
TARGET_WORST_MS = 50.0


def full_ending(rng: random.Random, rules: Rules) -> Deal:
    """A random deal played at random up to the last draw (trick 11 to lead)."""
    deck = list(range(32))
    rng.shuffle(deck)
    deal = Deal(deck, rng.randrange(2), rules)
    while not deal.stock_empty:
        actions = deal.legal_actions()
        deal.push(actions[rng.randrange(len(actions))])
    return deal


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="ending solver benchmark")
    parser.add_argument("--count", type=int, default=10_000, help="random endings (default 10000)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--rules",
        choices=["classic", "encyclopedia", "both"],
        default="both",
        help="rule profile of the endings (both: alternate)",
    )
    parser.add_argument("--no-verify", action="store_true", help="skip the minimax comparison")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)

    profiles = {
        "classic": [CLASSIC],
        "encyclopedia": [ENCYCLOPEDIA],
        "both": [CLASSIC, ENCYCLOPEDIA],
    }
    rules_cycle = profiles[args.rules]
    rng = random.Random(args.seed)
    times: list[float] = []
    nodes: list[int] = []
    disagreements = 0
    minimax_time = 0.0
    clock = time.process_time  # CPU time: robust when other jobs share the cores
    for i in range(args.count):
        deal = full_ending(rng, rules_cycle[i % len(rules_cycle)])
        start = clock()
        solver = EndingSolver.for_deal(deal)
        solution = solver.solve(deal)
        times.append(clock() - start)
        nodes.append(solver.nodes)
        if not args.no_verify:
            start = clock()
            reference = minimax_value(deal)
            minimax_time += clock() - start
            if reference != solution.value:
                disagreements += 1
                print(
                    f"disagreement on ending {i}: solver {solution.value}, minimax {reference}: "
                    f"{deal!r}",
                    file=sys.stderr,
                )
        if not args.json and (i + 1) % 1000 == 0:
            print(f"  {i + 1} endings...", file=sys.stderr)
    ms = sorted(t * 1000 for t in times)
    figures = {
        "endings": args.count,
        "verified": not args.no_verify,
        "disagreements": disagreements if not args.no_verify else None,
        "median_ms": round(statistics.median(ms), 3),
        "p90_ms": round(ms[int(0.9 * (len(ms) - 1))], 3),
        "p99_ms": round(ms[int(0.99 * (len(ms) - 1))], 3),
        "worst_ms": round(ms[-1], 3),
        "median_nodes": statistics.median(nodes),
        "worst_nodes": max(nodes),
        "endings_per_s": round(len(ms) / (sum(ms) / 1000), 1),
        "minimax_mean_s": round(minimax_time / args.count, 4) if not args.no_verify else None,
        "target_median_ms": TARGET_MEDIAN_MS,
        "target_worst_ms": TARGET_WORST_MS,
        "engine": kernel.description(),
    }
    ok = (
        figures["median_ms"] <= TARGET_MEDIAN_MS
        and figures["worst_ms"] <= TARGET_WORST_MS
        and (args.no_verify or disagreements == 0)
    )
    figures["ok"] = ok
    if args.json:
        print(json.dumps(figures))
    else:
        python = sys.version.split()[0]
        print(f"full six-card endings: {args.count} ({args.rules} rules), python {python}")
        print(f"engine: {kernel.description()}")
        if not args.no_verify:
            print(
                f"agreement with plain minimax: {args.count - disagreements}/{args.count}"
                f" (minimax: {minimax_time / args.count * 1000:.1f} ms an ending)"
            )
        print(
            f"solve time: median {figures['median_ms']} ms, p90 {figures['p90_ms']} ms, "
            f"p99 {figures['p99_ms']} ms, worst {figures['worst_ms']} ms "
            f"(targets: median <= {TARGET_MEDIAN_MS}, worst <= {TARGET_WORST_MS})"
        )
        print(
            f"nodes: median {figures['median_nodes']}, worst {figures['worst_nodes']}; "
            f"{figures['endings_per_s']} endings/s"
        )
        print("OK" if ok else "TARGET MISSED")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
