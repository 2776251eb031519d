"""Engine benchmark (the same as ``marjolet bench``), runnable as a script:

    .venv/bin/python benchmarks/bench_engine.py [--rounds 5] [--deals 2000]

Prints medians over the rounds: deals/s, actions/s, copy() and push+pop.
"""

from __future__ import annotations

import argparse
import json

from marjolet.benchmark import run_engine_bench


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--deals", type=int, default=2000)
    args = parser.parse_args()
    print(json.dumps(run_engine_bench(rounds=args.rounds, deals=args.deals).to_json()))


if __name__ == "__main__":
    main()
