"""The learning curves of docs/rl.md: run the baselines, then plot them.

    python -m marjolet.rl.curves run --out build/rl-curves --jobs 9    # about 12 CPU-minutes
    python -m marjolet.rl.curves plot --out build/rl-curves --img docs/img/rl-ppo-curves.png --force
    python -m marjolet.rl.curves run --algo dmc --out build/rl-dmc --jobs 1 --nice 19 \
        --steps 2000000 --eval-every 250000
    python -m marjolet.rl.curves plot --algo dmc --out build/rl-dmc \
        --img docs/img/rl-dmc-curves.png --force

``run`` trains masked PPO (:mod:`marjolet.rl.train_ppo`) against ``random``,
against ``heuristic`` and in self-play, three seeds each, every run in its
own process (``nice``), each writing its evaluations (greedy policy,
duplicate deals against random, heuristic and pimc) to ``RUN.jsonl`` and
its actor to ``RUN.npz``. ``--algo dmc`` trains Deep Monte-Carlo
(:mod:`marjolet.rl.train_dmc`, self-play) instead, three seeds, evaluated
against random and heuristic. ``plot`` pools the three seeds at each
evaluation point: win rate of deals with a 95% Wilson interval, mean deal
margin with a 95% normal interval, and prints the table of the last point;
the figure goes to ``--img`` (default ``OUT/rl-ALGO-curves.png``, beside
the runs); an existing figure is replaced only with ``--force``, and its
folder must exist. Bad arguments are refused in one line (exit 2) before
anything runs: ``run`` into a directory that holds runs already, ``plot``
of a directory without any.

A module of the package, so that it runs from the installed wheel (``run``
needs the ``train`` extra, ``plot`` the ``plot`` extra); it imports only the
standard library and the package's own modules until ``plot`` loads
matplotlib. ``benchmarks/rl_curves.py``
in a clone is a wrapper of it.
"""

from __future__ import annotations

import argparse
import importlib.util
import io
import json
import math
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from marjolet.outputs import OutputError, check_output, write_atomic

SEEDS = (1, 2, 3)


@dataclass(frozen=True)
class Algo:
    """One baseline: its training module, regimes (``--opponent`` of each
    run, or none), evaluation opponents, the runs' file prefix and the
    trainer's other options (``options``)."""

    module: str
    regimes: tuple[str, ...]
    eval: tuple[str, ...]
    eval_deals: tuple[str, ...]
    prefix: str
    title: str
    options: tuple[str, ...] = ()


ALGOS = {
    # --env python: the batch of the published curves (docs/rl.md). The C batch
    # (--env auto, where the kernel is built) skips the rows of ended episodes,
    # so its step counts and weights differ, and differ between seeds.
    "ppo": Algo("marjolet.rl.train_ppo", ("random", "heuristic", "self"),
                ("random", "heuristic", "pimc:worlds=16"), ("100", "100", "10"), "",
                "Masked PPO", ("--env", "python")),
    "dmc": Algo("marjolet.rl.train_dmc", ("self",), ("random", "heuristic"), ("100", "100"),
                "dmc-", "Deep Monte-Carlo (self-play)"),
}  # fmt: skip


#: The command's name in its usage and in every error line.
PROG = "python -m marjolet.rl.curves"


def commands(algo: Algo, out: Path, steps: int, eval_every: int, nice: int) -> list[list[str]]:
    """The training command of every run, seed-major (an interrupted batch
    of runs still covers every regime)."""
    result = []
    for seed in SEEDS:
        for regime in algo.regimes:
            name = out / f"{algo.prefix}{regime}-{seed}"
            opponent = [] if algo.module.endswith("dmc") else ["--opponent", regime]
            result.append(
                [
                    "nice", "-n", str(nice), sys.executable, "-m", algo.module, *opponent,
                    *algo.options,
                    "--seed", str(seed), "--steps", str(steps),
                    "--eval-every", str(eval_every), "--eval", *algo.eval,
                    "--eval-deals", *algo.eval_deals,
                    "--out", f"{name}.npz", "--log", f"{name}.jsonl",
                ]
            )  # fmt: skip
    return result


def run(algo: Algo, out: Path, jobs: int, steps: int, eval_every: int, nice: int) -> None:
    out.mkdir(parents=True, exist_ok=True)
    commands_ = commands(algo, out, steps, eval_every, nice)

    finished: list[str] = []

    def one(cmd: list[str]) -> int:
        log = cmd[cmd.index("--log") + 1].replace(".jsonl", ".txt")
        with open(log, "w") as text:
            code = subprocess.call(cmd, stdout=text, stderr=subprocess.STDOUT)
        finished.append(log)  # (list.append is atomic: the threads share it)
        failed = f" (failed, exit status {code})" if code else ""
        print(f"{len(finished)}/{len(commands_)} done: {Path(log).name}{failed}", flush=True)
        return code

    print(f"{len(commands_)} runs, {min(jobs, len(commands_))} at a time; their output goes to "
          f"{out}/*.txt", flush=True)
    with ThreadPoolExecutor(jobs) as pool:
        codes = list(pool.map(one, commands_))
    if any(codes):
        sys.exit(f"{PROG}: error: {sum(1 for c in codes if c)} run(s) failed (see {out}/*.txt)")


def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def pooled(algo: Algo, out: Path) -> dict[tuple[str, str], list[dict[str, float]]]:
    """(regime, opponent) -> one point per evaluation, seeds pooled.

    The k-th evaluation of each seed against an opponent pools with the k-th
    of the others, whatever its step count: runs of one regime evaluate at
    the same points only where every update has the same number of agent
    steps (the Python batch), not on the C batch, whose rows of ended
    episodes are not steps. A point's ``steps`` is the mean over its seeds,
    ``steps_min``/``steps_max`` their range, ``seeds`` how many pooled."""
    margins: dict[tuple[str, str, int], list[float]] = {}
    steps: dict[tuple[str, str, int], list[int]] = {}
    for regime in algo.regimes:
        for seed in SEEDS:
            path = out / f"{algo.prefix}{regime}-{seed}.jsonl"
            if not path.exists():
                continue
            index: dict[str, int] = {}  # evaluations against each opponent so far
            for line in path.read_text().splitlines():
                record: dict[str, Any] = json.loads(line)
                if "steps" not in record:
                    continue
                opponent = record["opponent"]
                k = index.get(opponent, 0)
                index[opponent] = k + 1
                key = (regime, opponent, k)
                margins.setdefault(key, []).extend(record["margins"])
                steps.setdefault(key, []).append(int(record["steps"]))
    curves: dict[tuple[str, str], list[dict[str, float]]] = {}
    for key, values in sorted(margins.items()):
        regime, opponent, _ = key
        at = steps[key]
        n = len(values)
        wins = sum(1.0 if m > 0 else 0.5 if m == 0 else 0.0 for m in values)
        mean = sum(values) / n if n else 0.0
        sd = math.sqrt(sum((m - mean) ** 2 for m in values) / max(n - 1, 1))
        low, high = wilson(wins, n)
        curves.setdefault((regime, opponent), []).append(
            {
                "steps": round(sum(at) / len(at)), "steps_min": min(at), "steps_max": max(at),
                "seeds": len(at), "n": n, "win": wins / n if n else 0.0, "win_low": low,
                "win_high": high, "margin": mean,
                "margin_half": 1.96 * sd / math.sqrt(n) if n else 0.0,
            }
        )
    return curves


def seeds_pooled(curves: dict[tuple[str, str], list[dict[str, float]]]) -> str:
    """How many seeds the curves pool, in words: "3 seeds pooled" ("one seed"
    for a single run, which pools nothing), or a
    range where some runs are missing or unfinished.

    >>> seeds_pooled({("self", "random"): [{"seeds": 1}]})
    'one seed'
    >>> seeds_pooled({("self", "random"): [{"seeds": 3}], ("random", "random"): [{"seeds": 2}]})
    '2-3 seeds pooled'
    """
    counts = {int(p["seeds"]) for points in curves.values() for p in points} or {0}
    low, high = min(counts), max(counts)
    if low == high:
        return "one seed" if low == 1 else f"{low} seeds pooled"
    return f"{low}-{high} seeds pooled"


def plot(algo: Algo, out: Path, img: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    curves = pooled(algo, out)
    fig, axes = plt.subplots(2, len(algo.eval), figsize=(4.5 * len(algo.eval), 7), sharex=True)
    colours = {"random": "tab:blue", "heuristic": "tab:red", "self": "tab:green"}
    for col, opponent in enumerate(algo.eval):
        for regime in algo.regimes:
            points = curves.get((regime, opponent), [])
            if not points:
                continue
            x = [p["steps"] / 1000 for p in points]
            label = f"trained vs {regime}" if regime != "self" else "self-play"
            c = colours[regime]
            ax = axes[0][col]
            ax.plot(x, [100 * p["win"] for p in points], color=c, marker="o", label=label)
            ax.fill_between(x, [100 * p["win_low"] for p in points],
                            [100 * p["win_high"] for p in points], color=c, alpha=0.15)
            ax = axes[1][col]
            ax.plot(x, [p["margin"] for p in points], color=c, marker="o", label=label)
            ax.fill_between(x, [p["margin"] - p["margin_half"] for p in points],
                            [p["margin"] + p["margin_half"] for p in points], color=c, alpha=0.15)
        axes[0][col].set_title(f"against {opponent}")
        axes[0][col].axhline(50, color="grey", lw=0.8)
        axes[1][col].axhline(0, color="grey", lw=0.8)
        axes[1][col].set_xlabel("training steps (thousands)")
    axes[0][0].set_ylabel("deals won, % (95% CI)")
    axes[1][0].set_ylabel("deal margin, points (95% CI)")
    axes[0][0].legend(loc="lower right", fontsize=8)
    fig.suptitle(f"{algo.title}, {seeds_pooled(curves)}, greedy policy on duplicate deals")
    fig.tight_layout()
    buffer = io.BytesIO()
    fig.savefig(buffer, dpi=80, format=img.suffix.lstrip(".").lower() or None)
    plt.close(fig)
    write_atomic(img, buffer.getvalue())
    print(f"wrote {img}")
    print("| trained | steps | against | deals | won (95% CI) | deal margin (95% CI) |")
    print("|---|---:|---|---:|---|---|")
    for (regime, opponent), points in curves.items():
        p = points[-1]
        at = f"{p['steps']:,}"
        if p["steps_min"] != p["steps_max"]:
            at += f" ({p['steps_min']:,}-{p['steps_max']:,})"
        print(
            f"| {regime} | {at} | {opponent} | {p['n']} | {100 * p['win']:.1f}% "
            f"[{100 * p['win_low']:.1f}, {100 * p['win_high']:.1f}] | {p['margin']:+.1f} "
            f"[{p['margin'] - p['margin_half']:+.1f}, {p['margin'] + p['margin_half']:+.1f}] |"
        )


class UsageError(Exception):
    """A bad argument: one line (exit 2)."""


def check_run(algo: Algo, args: argparse.Namespace) -> None:
    """Refuse what ``run`` cannot do before any run starts."""
    for flag in ("jobs", "steps", "eval_every"):
        if getattr(args, flag) < 1:
            raise UsageError(f"--{flag.replace('_', '-')} must be >= 1, got {getattr(args, flag)}")
    if not -20 <= args.nice <= 19:
        raise UsageError(f"--nice must be within -20..19, got {args.nice}")
    out: Path = args.out
    if out.exists() and not out.is_dir():
        raise UsageError(f"--out {out}: not a directory")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"--out {out}: {exc.strerror or exc}") from None
    taken = [
        Path(cmd[cmd.index(flag) + 1]).name
        for cmd in commands(algo, out, args.steps, args.eval_every, args.nice)
        for flag in ("--out", "--log")
        if Path(cmd[cmd.index(flag) + 1]).exists()
    ]
    if taken:
        raise UsageError(
            f"--out {out}: holds runs already ({', '.join(taken[:3])}"
            f"{', ...' if len(taken) > 3 else ''}): choose another directory or remove them"
        )
    if importlib.util.find_spec("torch") is None:
        raise UsageError("run needs the train extra: pip install 'marjolet[train]'")


def check_plot(algo: Algo, out: Path) -> None:
    """Refuse to plot a directory that holds no evaluation of ``algo``."""
    if not out.is_dir():
        raise UsageError(f"--out {out}: no such directory (give the --out of run)")
    logs = [out / f"{algo.prefix}{r}-{seed}.jsonl" for r in algo.regimes for seed in SEEDS]
    if not any(path.exists() for path in logs):
        raise UsageError(
            f"--out {out}: no runs of --algo {next(k for k, a in ALGOS.items() if a is algo)} "
            f"here (no {logs[0].name} or the like)"
        )
    try:
        found = pooled(algo, out)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise UsageError(f"--out {out}: a run's log cannot be read ({exc})") from None
    if not found:
        raise UsageError(f"--out {out}: the runs have no evaluation yet")


def main(argv: list[str] | None = None) -> int:
    from marjolet.cli import OneLineParser

    p = OneLineParser(prog=PROG, description=__doc__.split("\n\n")[0])
    p.add_argument("what", choices=("run", "plot"))
    p.add_argument("--algo", choices=tuple(ALGOS), default="ppo")
    p.add_argument("--out", type=Path, default=Path("build/rl-curves"),
                   help="directory of the runs (default: %(default)s)")  # fmt: skip
    p.add_argument("--img", type=Path, default=None,
                   help="plot: the figure to write (default: OUT/rl-ALGO-curves.png)")  # fmt: skip
    p.add_argument("--force", action="store_true", help="plot: replace an existing --img")
    p.add_argument("--jobs", type=int, default=9, help="runs at a time (default: %(default)s)")
    p.add_argument("--nice", type=int, default=15, help="niceness of each training process")
    p.add_argument("--steps", type=int, default=120_000)
    p.add_argument("--eval-every", type=int, default=40_000)
    args = p.parse_args(argv)
    algo = ALGOS[args.algo]
    try:
        if args.what == "run":
            check_run(algo, args)
            try:
                run(algo, args.out, args.jobs, args.steps, args.eval_every, args.nice)
            except KeyboardInterrupt:
                print(f"\ninterrupted: the runs finished so far are in {args.out}; run again "
                      "into another --out, or remove that directory's runs first",
                      file=sys.stderr)
                return 130
            return 0
        check_plot(algo, args.out)
        if importlib.util.find_spec("matplotlib") is None:
            raise UsageError("plot needs matplotlib: pip install 'marjolet[plot]'")
        img: Path = args.img or args.out / f"rl-{args.algo}-curves.png"
        try:
            check_output(img, force=args.force, flag="--img")
        except OutputError as exc:
            raise UsageError(str(exc)) from None
        try:
            plot(algo, args.out, img)
        except (OSError, ValueError) as exc:  # ValueError: a format matplotlib cannot write
            message = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
            raise UsageError(f"--img {img}: {message}") from None
    except UsageError as exc:
        p.error(str(exc))
    return 0


if __name__ == "__main__":
    sys.exit(main())
