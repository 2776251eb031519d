"""Arena throughput: matches per second with 1 and with K workers.

The target of the arena issue: 2 workers give at least 1.8x the throughput
of 1 on ``random`` vs ``heuristic``. Each configuration is timed
``--repeats`` times, alternating, and the medians are compared; the matches
go to a throw-away SQLite database like a real run (``--no-db`` to leave it
out). The machine should be otherwise idle: the figure is only meaningful
when K cores are free.

    nice .venv/bin/python benchmarks/bench_arena.py --matches 600 --repeats 5
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

from marjolet.arena import run_arena
from marjolet.arena.backends import default_workers


def _cpu_seconds() -> float:
    """CPU time of this process and of its finished children (the workers)."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def timed_run(
    specs: list[str], matches: int, seed: int, workers: int, db: Path | None
) -> tuple[float, float]:
    """Matches per wall-clock second and CPU-seconds per match of one run."""
    cpu = _cpu_seconds()
    start = time.perf_counter()
    result = run_arena(specs, matches=matches, seed=seed, workers=workers, db=db)
    elapsed = time.perf_counter() - start
    return result.matches / elapsed, (_cpu_seconds() - cpu) / result.matches


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--bots", nargs="+", default=["random", "heuristic"])
    parser.add_argument("--matches", type=int, default=600, help="matches per run (even)")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--workers", type=int, default=2, help="the parallel configuration")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--no-db", action="store_true", help="do not store the matches")
    args = parser.parse_args(argv)

    load_before = os.getloadavg()[0]
    rates: dict[int, list[float]] = {1: [], args.workers: []}
    costs: dict[int, list[float]] = {1: [], args.workers: []}
    with tempfile.TemporaryDirectory() as folder:
        for r in range(args.repeats):
            for workers in rates:
                db = None if args.no_db else Path(folder) / f"bench-{workers}-{r}.db"
                rate, cost = timed_run(args.bots, args.matches, args.seed + r, workers, db)
                rates[workers].append(rate)
                costs[workers].append(cost)
    one = statistics.median(rates[1])
    many = statistics.median(rates[args.workers])
    print(f"bots: {' vs '.join(args.bots)}; {args.matches} matches a run, {args.repeats} runs each,"
          f" database {'off' if args.no_db else 'on'}; CPUs available: {default_workers()};"
          f" load average before: {load_before:.2f}, after: {os.getloadavg()[0]:.2f}")
    for workers, values in rates.items():
        shown = ", ".join(f"{v:.1f}" for v in values)
        cost = statistics.median(costs[workers]) * 1000
        print(f"{workers} worker(s): median {statistics.median(values):.1f} matches/s  ({shown});"
              f" {cost:.2f} CPU-ms per match (all processes)")
    print(f"speed-up {args.workers} vs 1 worker: {many / one:.2f}x (target >= 1.8x for 2 workers)")
    # On idle cores the pool's throughput is bounded by its CPU cost: this
    # estimate does not depend on what else the machine is doing.
    ideal = args.workers * statistics.median(costs[1]) / statistics.median(costs[args.workers])
    print(f"CPU-cost bound of the speed-up on {args.workers} idle cores: {ideal:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
