"""Tune the tuned policy's weights by self-play: evolution strategies on
the deal margin.

The tuned playout policy (``mk_tuned_action``) was fitted to imitate
``best``'s choices (``benchmarks/fit_policy.py``). This script instead
moves its 240 weights towards play that scores more points: antithetic
evolution strategies (Salimans et al. 2017), each generation's candidates
``theta +- sigma * eps`` played against ``theta`` itself on the same
random decks (duplicate, every deck twice with the seats swapped; tricks
1-10 by the policies, tricks 11-16 solved exactly), the step taken with
Adam along the difference of each pair's margins. Every ``--check``
generations the weights are played against the starting ones on a fixed
set of decks.

    python benchmarks/tune_policy.py --generations 300 --decks 4000 --out tuned.npy
    python benchmarks/tune_policy.py --noise 8 ...   # one card in 8 random, as in playouts
    python benchmarks/tune_policy.py --write tuned.npy    # policy_weights.h

Needs the kernel built with ``policy_duel`` and NumPy.
"""

from __future__ import annotations

import argparse
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

HEADER = Path(__file__).resolve().parent.parent / "src/marjolet/_kernel/policy_weights.h"
COUNT = 240

_TABLE = None


def shipped_weights() -> np.ndarray:
    src = HEADER.read_text(encoding="utf-8")
    body = src[src.index("{") + 1 : src.index("};")]
    return np.array([float(x) for x in body.replace("\n", " ").split(",") if x.strip()])


def _duel(args: tuple[bytes, bytes | None, int, int, int]) -> tuple[list[float], list[float]]:
    from marjolet.kernel import KERNEL

    global _TABLE
    if KERNEL is None:
        raise SystemExit("tune_policy: the C kernel is not available")
    if _TABLE is None:
        _TABLE = KERNEL.Table(16)
    cand, base, decks, seed, noise = args
    sums, sumsqs = KERNEL.policy_duel(cand, base, decks, seed, _TABLE, noise)
    return list(sums), list(sumsqs)


def pack(rows: np.ndarray) -> bytes:
    return np.ascontiguousarray(rows, dtype="<f8").tobytes()


def duel(pool: ProcessPoolExecutor, cands: np.ndarray, base: np.ndarray | None, decks: int,
         seed: int, workers: int, noise: int = 0) -> np.ndarray:
    """Mean margin of each candidate row against base over the same decks."""
    parts = np.array_split(np.arange(len(cands)), workers)
    packed = None if base is None else pack(base)
    jobs = [(pack(cands[p]), packed, decks, seed, noise) for p in parts if len(p)]
    out: list[float] = []
    for sums, _ in pool.map(_duel, jobs):
        out.extend(sums)
    return np.array(out) / decks


def check(pool: ProcessPoolExecutor, theta: np.ndarray, start: np.ndarray, decks: int,
          workers: int, noise: int = 0) -> tuple[float, float]:
    """theta's margin against start on fixed decks, and its 95% half-width."""
    per = decks // workers
    jobs = [(pack(theta[None]), pack(start), per, 10_000 + i, noise) for i in range(workers)]
    s = q = 0.0
    for sums, sumsqs in pool.map(_duel, jobs):
        s += sums[0]
        q += sumsqs[0]
    n = per * workers
    mean = s / n
    sd = max(0.0, q / n - mean * mean) ** 0.5
    return mean, 1.96 * sd / n**0.5


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--generations", type=int, default=200)
    ap.add_argument("--pairs", type=int, default=32, help="antithetic pairs a generation")
    ap.add_argument("--decks", type=int, default=2000, help="decks a generation")
    ap.add_argument("--sigma", type=float, default=0.5)
    ap.add_argument("--lr", type=float, default=0.05)
    ap.add_argument("--check", type=int, default=10)
    ap.add_argument("--check-decks", type=int, default=20000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--noise", type=int, default=0, help="one card play in N random (0: none)")
    ap.add_argument("--start", help="a .npy of weights to start from (default: shipped)")
    ap.add_argument("--out", default="tuned.npy")
    ap.add_argument("--write", metavar="NPY", help="write NPY's weights to policy_weights.h")
    args = ap.parse_args(argv)
    if args.write:
        return write_header(np.load(args.write))
    rng = np.random.default_rng(args.seed)
    start = shipped_weights()
    theta = np.load(args.start) if args.start else start.copy()
    m = np.zeros(COUNT)
    v = np.zeros(COUNT)
    b1, b2 = 0.9, 0.999
    with ProcessPoolExecutor(args.workers) as pool:
        for gen in range(1, args.generations + 1):
            t0 = time.time()
            eps = rng.standard_normal((args.pairs, COUNT))
            cands = np.concatenate([theta + args.sigma * eps, theta - args.sigma * eps])
            seed = int(rng.integers(1 << 62))
            f = duel(pool, cands, theta, args.decks, seed, args.workers, args.noise)
            diff = f[: args.pairs] - f[args.pairs :]
            grad = (diff[:, None] * eps).sum(0) / (2 * args.sigma * args.pairs)
            m = b1 * m + (1 - b1) * grad
            v = b2 * v + (1 - b2) * grad * grad
            step = args.lr * (m / (1 - b1**gen)) / (np.sqrt(v / (1 - b2**gen)) + 1e-8)
            theta = theta + step
            line = (
                f"gen {gen}: mean +-{np.abs(diff).mean():.2f} |grad| "
                f"{np.linalg.norm(grad):.2f} ({time.time() - t0:.1f} s)"
            )
            if gen % args.check == 0 or gen == args.generations:
                mean, half = check(pool, theta, start, args.check_decks, args.workers, args.noise)
                line += f"  vs start {mean:+.2f} [{mean - half:+.2f}, {mean + half:+.2f}]"
                np.save(args.out, theta)
            print(line, flush=True)
    np.save(args.out, theta)
    return 0


def write_header(theta: np.ndarray) -> int:
    src = HEADER.read_text(encoding="utf-8")
    head, rest = src[: src.index("{") + 1], src[src.index("};") :]
    rows = []
    for i in range(0, COUNT, 6):
        rows.append("    " + " ".join(f"{x:.6f}," for x in theta[i : i + 6]))
    HEADER.write_text(head + "\n" + "\n".join(rows) + "\n" + rest, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
