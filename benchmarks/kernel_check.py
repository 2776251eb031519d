"""The kernel's agreement with the Python engine at scale (``make kernel-check``).

Random deals under every combination of rule settings, played side by side
in both engines (legal-action set and whole state after every action),
random endings solved by both solvers (values and optimal sets), and late
phase-1 positions searched exactly by the kernel and by plain minimax.
The checks are those of tests/kernel_support.py.

    nice .venv/bin/python benchmarks/kernel_check.py                 # 100,000 deals
    nice .venv/bin/python benchmarks/kernel_check.py --deals 2000 --endings 500 --exact 20

Exit status 0 when everything agrees, 1 on the first disagreement (printed).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from kernel_support import (
    check_deal,
    check_ending,
    check_exact,
    every_rules,
    late_position,
    random_ending,
)
from marjolet import kernel


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="kernel agreement with the Python engine")
    parser.add_argument("--deals", type=int, default=100_000, help="random deals (100000)")
    parser.add_argument("--endings", type=int, default=10_000, help="random endings (10000)")
    parser.add_argument(
        "--exact", type=int, default=200, help="late phase-1 positions vs minimax (200)"
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="print the counts as JSON")
    args = parser.parse_args(argv)
    if not kernel.available():
        print(f"kernel-check: {kernel.description()}", file=sys.stderr)
        return 1
    rng = random.Random(args.seed)
    rules = every_rules()
    start = time.perf_counter()
    actions = 0
    try:
        for i in range(args.deals):
            actions += check_deal(rng, rules[i % len(rules)])
        table = kernel.new_table()
        for i in range(args.endings):
            check_ending(random_ending(rng, rules[i % len(rules)]), table)
        for i in range(args.exact):
            tricks_left = 2 if i % 10 == 9 else 1
            check_exact(late_position(rng, rules[i % len(rules)], tricks_left), table)
    except AssertionError as exc:
        print(f"kernel-check: DISAGREEMENT: {exc}", file=sys.stderr)
        return 1
    figures = {
        "deals": args.deals,
        "actions": actions,
        "endings": args.endings,
        "exact_positions": args.exact,
        "rule_sets": len(rules),
        "seconds": round(time.perf_counter() - start, 1),
        "agree": True,
    }
    if args.json:
        print(json.dumps(figures))
    else:
        print(
            f"kernel-check: {args.deals} deals ({actions} actions) under {len(rules)} rule sets, "
            f"{args.endings} endings, {args.exact} late phase-1 positions: all agree "
            f"({figures['seconds']} s; {kernel.description()})"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
