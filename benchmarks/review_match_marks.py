"""Near the end of a match, what do marks by the chance of winning the match
change? (issue 25, docs/review.md)

Plays the seeded matches of ``review_stability.py`` (``best:worlds=64,time=0``
against ``heuristic``, to 500), reviews each one at ``--budget`` seconds a
decision (estimator seed 1), and for every decision whose mark is given by
the chance of winning the match lost, counts the pairs (mark by the points
lost, mark by the chance lost) and lists the decisions where they differ.

    nice .venv/bin/python benchmarks/review_match_marks.py --matches 8 --seed 5
"""

from __future__ import annotations

import argparse
import dataclasses
from collections import Counter

from review_stability import match_record

from marjolet.analysis import DEFAULT_BUDGET, judgement, review_record
from marjolet.analysis.estimators import default_estimator


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--matches", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1, help="first match seed")
    parser.add_argument("--budget", type=float, default=DEFAULT_BUDGET)
    args = parser.parse_args()
    pairs: Counter[tuple[str | None, str | None]] = Counter()
    differ: list[str] = []
    for seed in range(args.seed, args.seed + args.matches):
        estimator = default_estimator(args.budget, seed=1)
        review = review_record(match_record(seed), budget=args.budget, estimator=estimator)
        for d in review.decisions:
            if d.match is None or not d.match.decides:
                continue
            by_points = judgement(dataclasses.replace(d, match=None))
            by_chance = judgement(d)
            pairs[by_points, by_chance] += 1
            if by_points != by_chance:
                m = d.match
                differ.append(
                    f"match {seed} deal {d.deal} action {d.action} trick {d.trick}: "
                    f"{d.loss:.1f} points lost ({by_points}), chance "
                    f"{100 * m.top:.0f}% -> {100 * m.played:.0f}% ({by_chance})"
                )
        print(f"match {seed}: {sum(pairs.values())} decisions judged by the chance", flush=True)
    print("mark by the points lost -> mark by the chance lost: decisions")
    for (a, b), n in sorted(pairs.items(), key=lambda kv: -kv[1]):
        print(f"  {a} -> {b}: {n}")
    for line in differ:
        print(f"  {line}")


if __name__ == "__main__":
    main()
