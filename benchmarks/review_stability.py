"""How stable are the review's marks? Two reviews of the same records under
two seeds, compared decision by decision (issue 25).

Plays ``--matches`` seeded matches to 500 (``best:worlds=64,time=0`` against
``heuristic``, seats alternating), reviews each one twice from the
players' own views (``review_record``, the code path of ``marjolet
review``) with the default estimator built under seeds ``--seeds A B``
at ``--budget`` seconds a decision, and reports over the phase-1 (seat
view) decisions:

* the share of decisions whose mark (none, inaccuracy, mistake, blunder)
  differs between the two reviews, in all and per trick;
* the fewest worlds behind any mark, and how many marks came from fewer
  than 32 worlds;
* per trick: decisions, median worlds, mean standard error of the loss;
* how many decisions were judged by the chance of winning the match lost
  (near the end of a match, docs/review.md) and how many of those changed
  mark.

The worlds of each decision are ``Decision.worlds`` (the estimator's count).
``--eval`` sets the playouts of the review's worlds (``REVIEW_EVAL``, e.g. ``tuned``, the
bot's own), to measure them before the review takes them.

    nice .venv/bin/python benchmarks/review_stability.py                   # 4 matches
    nice .venv/bin/python benchmarks/review_stability.py --matches 2 --json
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from marjolet.analysis import DEFAULT_BUDGET, Decision, estimators, judgement, review_record
from marjolet.analysis.estimators import default_estimator
from marjolet.bots import make_bot
from marjolet.bots.best import EVAL_MODES
from marjolet.match import Match
from marjolet.record import Record
from marjolet.turns import play_match

#: The issue's floor: no mark from fewer worlds than this.
MIN_MARK_WORLDS = 32
#: The issue's ceiling on marks changing between two seeds.
TARGET_FLIP_SHARE = 0.01
PLAYERS = ("best:worlds=64,time=0", "heuristic")


def match_record(seed: int) -> Record:
    """A match to 500 from ``seed``, ``best`` and ``heuristic`` alternating seats."""
    specs = PLAYERS if seed % 2 else PLAYERS[::-1]
    match = Match(seed=seed, players=list(specs))
    play_match(match, [make_bot(s, seed=seed + i) for i, s in enumerate(specs)])
    return Record.from_match(match)


@dataclass(frozen=True, slots=True)
class Judged:
    trick: int
    mark: str | None
    worlds: int
    stderr: float
    loss: float
    #: the loss's standard error were the worlds not paired
    unpaired: float
    #: the mark is given by the chance of winning the match lost (then
    #: ``loss`` and ``stderr`` are that chance's, in percentage points)
    by_chance: bool = False


#: Wall and CPU seconds of every review done, in order.
TIMES: list[tuple[float, float]] = []


def review_once(
    record: Record, budget: float, seed: int, worlds: int | None
) -> dict[tuple[int, int], Judged]:
    """Phase-1 seat-view decisions of ``record``: (deal, action) -> figures."""
    estimator = default_estimator(budget, seed=seed, worlds=worlds)
    wall, cpu = time.perf_counter(), time.process_time()
    review = review_record(record, budget=budget, estimator=estimator)
    TIMES.append((time.perf_counter() - wall, time.process_time() - cpu))
    return {(d.deal, d.action): judged(d) for d in review.decisions if d.view == "seat"}


def judged(d: Decision) -> Judged:
    """The figures of one seat-view decision."""
    unpaired = math.hypot(d.stderr_played or 0.0, d.stderr_best or 0.0)
    if d.match is not None and d.match.decides:
        m = d.match
        loss, stderr = 100 * m.loss, 100 * m.stderr_loss
        return Judged(d.trick, judgement(d), d.worlds or 0, stderr, loss, unpaired, True)
    return Judged(
        d.trick, judgement(d), d.worlds or 0, d.stderr_loss or 0.0, d.loss, unpaired, False
    )


def compare(runs: Sequence[tuple[dict[tuple[int, int], Judged], ...]]) -> dict[str, Any]:
    """The figures of the module docstring over every record's two reviews."""
    per_trick: dict[int, dict[str, list[float]]] = defaultdict(
        lambda: {"flips": [], "worlds": [], "stderr": []}
    )
    marks: list[Judged] = []
    changed: list[str] = []
    for m, (first, second) in enumerate(runs):
        for key, a in first.items():
            b = second[key]
            if a.mark != b.mark:
                changed.append(
                    f"match {m} deal {key[0]} action {key[1]} trick {a.trick}: "
                    + " / ".join(
                        f"{j.mark} (loss {j.loss:.1f}±{j.stderr:.1f}"
                        f"{' chance' if j.by_chance else ''}, {j.worlds} worlds)"
                        for j in (a, b)
                    )
                )
            row = per_trick[a.trick]
            row["flips"].append(float(a.mark != b.mark))
            for j in (a, b):
                row["worlds"].append(j.worlds)
                row["stderr"].append(j.stderr)
                if j.mark is not None:
                    marks.append(j)
    lost = [
        j
        for run in runs
        for review in run
        for j in review.values()
        if j.loss > 0 and not j.by_chance
    ]
    by_chance = [(a, second[k]) for first, second in runs for k, a in first.items() if a.by_chance]
    decisions = sum(len(r["flips"]) for r in per_trick.values())
    flips = sum(sum(r["flips"]) for r in per_trick.values())
    return {
        "decisions": decisions,
        "flips": int(flips),
        "flip_share": round(flips / decisions, 4) if decisions else 0.0,
        "review_wall_s": [round(w, 1) for w, _ in TIMES],
        "review_cpu_s": [round(c, 1) for _, c in TIMES],
        "marks": len(marks),
        "chance_decisions": len(by_chance),
        "chance_flips": sum(a.mark != b.mark for a, b in by_chance),
        "chance_marks": sum(j.mark is not None for pair in by_chance for j in pair),
        "stderr_paired_vs_unpaired": [
            round(statistics.fmean(j.stderr for j in lost), 2) if lost else None,
            round(statistics.fmean(j.unpaired for j in lost), 2) if lost else None,
        ],
        "changed": changed,
        "fewest_worlds_behind_a_mark": min((m.worlds for m in marks), default=None),
        "marks_below_32_worlds": sum(1 for m in marks if m.worlds < MIN_MARK_WORLDS),
        "tricks": {
            t: {
                "decisions": len(r["flips"]),
                "flips": int(sum(r["flips"])),
                "median_worlds": statistics.median(r["worlds"]),
                "mean_stderr": round(statistics.fmean(r["stderr"]), 2),
            }
            for t, r in sorted(per_trick.items())
        },
    }


def print_report(summary: dict[str, Any], budget: float, seeds: Sequence[int]) -> None:
    print(
        f"budget {budget:g} s, seeds {seeds[0]} and {seeds[1]}: {summary['decisions']} "
        f"phase-1 decisions, {summary['flips']} change mark ({100 * summary['flip_share']:.1f}%, "
        f"target <= {100 * TARGET_FLIP_SHARE:.0f}%); {summary['marks']} marks, fewest worlds "
        f"behind one {summary['fewest_worlds_behind_a_mark']}, "
        f"{summary['marks_below_32_worlds']} from fewer than {MIN_MARK_WORLDS}"
    )
    print(
        f"a match reviewed in {min(summary['review_wall_s'])}-{max(summary['review_wall_s'])} s "
        f"wall, {min(summary['review_cpu_s'])}-{max(summary['review_cpu_s'])} s CPU"
    )
    print(
        f"judged by the chance of winning the match: {summary['chance_decisions']} decisions, "
        f"{summary['chance_flips']} change mark, {summary['chance_marks']} marks"
    )
    paired, unpaired = summary["stderr_paired_vs_unpaired"]
    print(f"decisions that lost points: mean standard error {paired} paired, {unpaired} unpaired")
    for line in summary["changed"]:
        print(f"  changed: {line}")
    print("trick  decisions  flips  median worlds  mean stderr of the loss")
    for t, r in summary["tricks"].items():
        print(
            f"{t:>5}  {r['decisions']:>9}  {r['flips']:>5}  {r['median_worlds']:>13}  "
            f"{r['mean_stderr']:>8.2f}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--matches", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1, help="first match seed")
    parser.add_argument("--seeds", type=int, nargs=2, default=(1, 2), metavar=("A", "B"))
    parser.add_argument("--budget", type=float, default=DEFAULT_BUDGET)
    parser.add_argument(
        "--worlds", type=int, help="that many worlds a decision instead of the time budget"
    )
    parser.add_argument(
        "--eval",
        choices=EVAL_MODES,
        default=estimators.REVIEW_EVAL,
        help="the playouts of the review's worlds (best's eval; default: the review's own)",
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    estimators.REVIEW_EVAL = args.eval
    runs = []
    for i in range(args.matches):
        record = match_record(args.seed + i)
        runs.append(tuple(review_once(record, args.budget, s, args.worlds) for s in args.seeds))
        if not args.json:
            done = compare(runs)
            print(f"match {i + 1}/{args.matches}: {done['flips']}/{done['decisions']}", flush=True)
    summary = compare(runs)
    if args.json:
        print(json.dumps({"budget": args.budget, "seeds": args.seeds, **summary}))
    else:
        print_report(summary, args.budget, args.seeds)


if __name__ == "__main__":
    main()
