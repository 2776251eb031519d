"""The panel of issue 25: one bot against every panel opponent.

Never measure a bot only against its own earlier self: this script plays
the bot given (``best:time=0.025,clock=cpu`` by default) against each
opponent of the panel through the arena (duplicate matches to 500, CPU
clocks, one arena run a pairing) and prints one row a pairing: wins, win
rate, deal margin and Elo, each with its 95% interval, as a Markdown table
ready for docs/bots.md. Rows print as each pairing finishes.

The panel (``--time`` is the budget of the search opponents that play at
equal time; the outside-bot stand-in and the issue-12 baseline keep their
fixed 0.25 s):

=================  =====================================================
name               spec
=================  =====================================================
heuristic          ``heuristic`` (hand-written rules)
expert             ``expert`` (rule-based counting player, not best's code)
ismcts             ``ismcts:iterations=100000,time=T,clock=cpu``
pimc               ``pimc:worlds=100000,time=T,clock=cpu`` (kernel endings)
openspiel-ismcts   ``openspiel-ismcts`` (OpenSpiel's IS-MCTS, 200 simulations)
baseline-pimc      ``exec:benchmarks/baseline_pimc`` (issue 12, 0.25 s, no kernel)
baseline-best      ``exec:benchmarks/baseline_best`` (best of a406591 at T s)
sampler            ``sampler:time=0.25,clock=cpu`` (the outside bot's stand-in)
=================  =====================================================

    nice -n 5 .venv/bin/python benchmarks/panel.py 'best:time=0.025,clock=cpu' \\
        --matches 40 --seed 1 --workers 1 --db panel.db
    nice -n 5 .venv/bin/python benchmarks/panel.py 'best:time=0.25,clock=cpu' \\
        --time 0.25 --only sampler baseline-best --matches 200

``--db FILE`` keeps every match (one arena run a pairing; ``marjolet arena
report --db FILE`` shows them); the default stores nothing.
"""

from __future__ import annotations

import argparse
import math
import os
import subprocess
import sys
import time
from pathlib import Path

from marjolet import kernel
from marjolet.arena import ArenaInterrupted, PairingResult, run_arena
from marjolet.arena.progress import NullProgress, PlainProgress, Progress
from marjolet.errors import MarjoletError

HERE = Path(__file__).resolve().parent
#: The fixed budget of the outside bot of issue 25 and of the issue-12 baseline.
OUTSIDE_TIME = 0.25


def panel(time_s: float) -> dict[str, str]:
    """Panel name -> bot spec, the search opponents at ``time_s`` seconds of CPU."""
    t = f"{time_s:g}"
    return {
        "heuristic": "heuristic",
        "expert": "expert",
        "ismcts": f"ismcts:iterations=100000,time={t},clock=cpu",
        "pimc": f"pimc:worlds=100000,time={t},clock=cpu",
        "openspiel-ismcts": "openspiel-ismcts",
        "baseline-pimc": f"exec:path={HERE / 'baseline_pimc'},budget_s={OUTSIDE_TIME:g}",
        "baseline-best": f"exec:path={HERE / 'baseline_best'},budget_s={t}",
        "sampler": f"sampler:time={OUTSIDE_TIME:g},clock=cpu",
    }


def _ci(interval: tuple[float, float] | None, fmt: str, sign: str = "") -> str:
    if interval is None or not all(math.isfinite(x) for x in interval):
        return "[n/a]"
    lo, hi = (format(round(x, 4) + 0.0, sign + fmt) for x in interval)
    return f"[{lo}, {hi}]"


def row(name: str, p: PairingResult) -> str:
    """One Markdown table row, from the panel bot's side."""
    wins = f"{p.wins[0]}-{p.wins[1]}"
    lo, hi = p.win_rate_ci
    rate = f"{100 * p.win_rate:.1f}% {_ci((100 * lo, 100 * hi), '.1f')}"
    margin = "n/a" if p.margin is None else f"{p.margin:+.1f} {_ci(p.margin_ci, '.1f', '+')}"
    elo = f"{p.elo:+.0f}" if math.isfinite(p.elo) else "n/a"
    elo += f" {_ci(p.elo_ci, '.0f', '+')}"
    forfeits = f" (forfeits {p.forfeits[0]}-{p.forfeits[1]})" if any(p.forfeits) else ""
    return f"| {name} | {p.matches} | {wins}{forfeits} | {rate} | {margin} | {elo} |"


def build_frozen_best() -> str | None:
    """Build the frozen best before the arena starts it (its first start
    builds it, which may outlast the protocol's 10 s for ``hello`` on a
    busy machine): an error line, or ``None``."""
    done = subprocess.run(
        [str(HERE / "baseline_best")], stdin=subprocess.DEVNULL, capture_output=True,
        text=True, timeout=600,
    )
    if done.returncode != 0:
        return done.stderr.strip().splitlines()[-1] if done.stderr.strip() else "failed"
    return None


HEADER = (
    "| opponent | matches | wins | win rate | deal margin | Elo |\n"
    "|---|---|---|---|---|---|"
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("bot", nargs="?", default="best:time=0.025,clock=cpu")
    parser.add_argument("--matches", type=int, default=40, help="matches per pairing (even)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--time", type=float, default=0.025, dest="time_s",
                        help="seconds of CPU a move of the equal-time opponents")
    parser.add_argument("--only", nargs="+", metavar="NAME", help="these opponents only")
    parser.add_argument("--db", help="SQLite file keeping every match (default: none)")
    parser.add_argument("--quiet", action="store_true", help="no progress on standard error")
    args = parser.parse_args(argv)
    if not 0 < args.time_s < 60:
        print(f"panel: --time must be in (0, 60) seconds, got {args.time_s:g}", file=sys.stderr)
        return 2
    opponents = panel(args.time_s)
    chosen = args.only or list(opponents)
    unknown = [n for n in chosen if n not in opponents]
    if unknown:
        print(f"panel: unknown opponent {unknown[0]!r} (known: {', '.join(opponents)})",
              file=sys.stderr)
        return 2
    # the frozen best's budget (an exec: spec takes no arguments)
    os.environ["MARJOLET_BASELINE_TIME"] = f"{args.time_s:g}"
    if "baseline-best" in chosen:
        error = build_frozen_best()
        if error is not None:
            print(f"panel: baseline-best: {error}", file=sys.stderr)
            return 2
    print(f"panel of {args.bot}: {args.matches} matches a pairing, seed {args.seed}, "
          f"duplicate, to 500, CPU clocks; equal-time opponents at {args.time_s:g} s; "
          f"this checkout: {kernel.description()}")
    print()
    print(HEADER, flush=True)
    for name in chosen:
        progress: Progress = NullProgress() if args.quiet else PlainProgress(sys.stderr)
        start = time.monotonic()
        try:
            result = run_arena(
                [args.bot, opponents[name]], matches=args.matches, seed=args.seed,
                workers=args.workers, db=args.db, progress=progress,
                command=f"benchmarks/panel.py {args.bot} ({name})",
            )
        except ArenaInterrupted:
            print(f"panel: interrupted during {name}", file=sys.stderr)
            return 130
        except MarjoletError as exc:
            print(f"panel: {name}: {exc}", file=sys.stderr)
            return 2
        print(row(name, result.pairings[0]), flush=True)
        if not args.quiet:
            print(f"panel: {name} done in {time.monotonic() - start:.0f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
