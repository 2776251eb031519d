"""``marjolet review`` on whole matches to 500: the default budget's speed.

Goal of the review issue: a whole match to 500 is reviewed in at most 60 s
on one core with the default ``--budget``. Each match is played by two
``heuristic`` bots from a seed (classic rules, target 500) and reviewed
from both seats' views (``review_record``, the command's code path), then
with ``--open``. Reports, per match: deals, decisions, estimated
decisions, wall and CPU seconds. The review is single-threaded; its wall
time is bounded by the budget (a time budget per decision, measured on the
wall clock) even on a busy machine, while its CPU time shows the work done.

    nice .venv/bin/python benchmarks/bench_review.py                 # 3 matches
    nice .venv/bin/python benchmarks/bench_review.py --matches 1 --budget 0.1 --json
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

from marjolet.analysis import DEFAULT_BUDGET, review_record
from marjolet.bots import make_bot
from marjolet.match import Match
from marjolet.record import Record
from marjolet.turns import play_match

TARGET_SECONDS = 60.0


def match_record(seed: int) -> Record:
    match = Match(seed=seed)
    play_match(match, [make_bot("heuristic", seed=seed), make_bot("heuristic", seed=seed + 1)])
    return Record.from_match(match)


def timed_review(record: Record, budget: float, view: str) -> dict[str, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    review = review_record(record, budget=budget, view=view)
    return {
        "deals": len(record.deals),
        "decisions": len(review.decisions),
        "estimated": sum(1 for d in review.decisions if not d.exact),
        "wall_s": round(time.perf_counter() - wall, 2),
        "cpu_s": round(time.process_time() - cpu, 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--matches", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--budget", type=float, default=DEFAULT_BUDGET)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rows = []
    for i in range(args.matches):
        record = match_record(args.seed + i)
        for view in ("seat", "open"):
            row = {"seed": args.seed + i, "view": view, **timed_review(record, args.budget, view)}
            rows.append(row)
            if not args.json:
                print(
                    f"seed {row['seed']} {view:<4}: {row['deals']} deals, {row['decisions']} "
                    f"decisions ({row['estimated']} estimated), wall {row['wall_s']:.1f} s, "
                    f"cpu {row['cpu_s']:.1f} s",
                    flush=True,
                )
    seat = [r for r in rows if r["view"] == "seat"]
    summary = {
        "budget": args.budget,
        "target_s": TARGET_SECONDS,
        "seat_wall_median_s": statistics.median(r["wall_s"] for r in seat),
        "seat_wall_worst_s": max(r["wall_s"] for r in seat),
        "seat_cpu_worst_s": max(r["cpu_s"] for r in seat),
        "open_wall_worst_s": max(r["wall_s"] for r in rows if r["view"] == "open"),
    }
    if args.json:
        print(json.dumps({"matches": rows, "summary": summary}))
    else:
        ok = summary["seat_wall_worst_s"] <= TARGET_SECONDS
        print(
            f"budget {args.budget:g} s: worst match {summary['seat_wall_worst_s']:.1f} s wall "
            f"({summary['seat_cpu_worst_s']:.1f} s cpu), target {TARGET_SECONDS:.0f} s: "
            f"{'met' if ok else 'NOT met'}; --open worst {summary['open_wall_worst_s']:.1f} s"
        )


if __name__ == "__main__":
    main()
