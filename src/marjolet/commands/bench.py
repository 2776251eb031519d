"""``marjolet bench [--json]``: the engine benchmark (one core)."""

from __future__ import annotations

import argparse
import json

from marjolet.commands.common import add_rules_arguments, plain_int, rules_from_args


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    parser.add_argument(
        "--rounds", type=plain_int, default=5, help="rounds; figures are medians (default 5)"
    )
    parser.add_argument(
        "--deals", type=plain_int, default=2000, help="random deals per round (default 2000)"
    )
    parser.add_argument(
        "--seed", type=plain_int, default=1, help="seed of the decks and the random play"
    )
    add_rules_arguments(parser)


def run(args: argparse.Namespace) -> int:
    from marjolet import kernel
    from marjolet.benchmark import run_engine_bench, run_kernel_bench
    from marjolet.errors import MarjoletError

    if args.rounds < 1 or args.deals < 1:
        raise MarjoletError("--rounds and --deals must be at least 1")
    rules = rules_from_args(args)
    result = run_engine_bench(rounds=args.rounds, deals=args.deals, seed=args.seed, rules=rules)
    fast = run_kernel_bench(rounds=args.rounds, deals=args.deals, seed=args.seed, rules=rules)
    if args.json:
        figures = result.to_json() | {"kernel": None if fast is None else fast.to_json()}
        print(json.dumps(figures))
        return 0
    print(
        f"engine benchmark: {result.rounds} rounds x {result.deals_per_round} random deals, "
        "one core, medians"
    )
    print(f"  deals/s      {result.deals_per_s:12,.0f}")
    print(f"  actions/s    {result.actions_per_s:12,.0f}")
    print(f"  copy()       {result.copy_us:12.3f} us")
    print(f"  push+pop     {result.push_pop_us:12.3f} us")
    print(f"engine in use: {kernel.description()}")
    if fast is not None:
        worlds = "n/a" if fast.pimc_worlds_per_s is None else f"{fast.pimc_worlds_per_s:,.0f}"
        print(f"  kernel actions/s        {fast.actions_per_s:14,.0f}")
        print(f"  kernel ending solve     {fast.solve_median_us:14.2f} us (median, six cards)")
        print(f"  kernel pimc worlds/s    {worlds:>14}")
    return 0
