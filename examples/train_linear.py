"""Train a small linear policy against ``random``, then measure it in the arena.

    python examples/train_linear.py                 # about 3 minutes of training
    python examples/train_linear.py --quick         # a few seconds, for a smoke test
    python examples/train_linear.py --minutes 10 --out policy.npz --seed 7
    python examples/train_linear.py --deals 50000   # a fixed budget: the same weights every time

What it does, plainly: REINFORCE (policy gradient) with a linear value
baseline, all in numpy, on the Gymnasium adapter ``marjolet/SingleAgent-v0``
with dense rewards (each point scored or conceded is paid when it happens).
The policy scores each of the 46 actions as ``W[a] . x + b[a]`` on the shared
observation tensor ``x`` and samples among the legal ones. The weights go to
a ``.npz`` file that the ``linear`` bot loads (``linear:weights=FILE``), and
the script ends with a duplicate arena run of the greedy policy against
``random``.

What to expect: a linear policy learns the easy points (declare melds, take
the seven's 10, put tens and aces on tricks it wins) and beats ``random``
clearly within minutes, but it sees no combinations of cards and plans
nothing: it stays far below the ``heuristic`` bot. It is an example of the
adapters at work, not a strong player.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import gymnasium as gym
import numpy as np
import numpy.typing as npt

import marjolet.rl.gym  # noqa: F401  (registers marjolet/SingleAgent-v0)
from marjolet.bots.catalogue import check_spec
from marjolet.errors import MarjoletError
from marjolet.outputs import OutputError, check_output
from marjolet.rl.encoder import NUM_ACTIONS, OBSERVATION_SIZE, POINT_SCALE
from marjolet.rl.linear_bot import save_weights

Array = npt.NDArray[np.float64]


class Adam:
    """The Adam optimiser for a list of numpy parameters (ascent)."""

    def __init__(self, params: list[Array], lr: float) -> None:
        self.params = params
        self.lr = lr
        self.m = [np.zeros_like(p) for p in params]
        self.v = [np.zeros_like(p) for p in params]
        self.t = 0

    def step(self, grads: list[Array]) -> None:
        self.t += 1
        b1, b2 = 0.9, 0.999
        for p, g, m, v in zip(self.params, grads, self.m, self.v, strict=True):
            m *= b1
            m += (1 - b1) * g
            v *= b2
            v += (1 - b2) * g * g
            mhat = m / (1 - b1**self.t)
            vhat = v / (1 - b2**self.t)
            p += self.lr * mhat / (np.sqrt(vhat) + 1e-8)


def train(
    seconds: float, max_deals: int | None, seed: int, batch: int, lr: float, opponent: str
) -> tuple[Array, Array, int, int]:
    """Train for about ``seconds`` (or exactly ``max_deals`` deals, rounded up
    to a batch); return the policy weights, bias, deals and steps."""
    env = gym.make("marjolet/SingleAgent-v0", opponent=opponent, reward="dense")
    rng = np.random.default_rng(seed)
    w = np.zeros((NUM_ACTIONS, OBSERVATION_SIZE))
    b = np.zeros(NUM_ACTIONS)
    vw = np.zeros(OBSERVATION_SIZE)  # value baseline
    vb = np.zeros(1)
    policy_opt = Adam([w, b], lr)
    value_opt = Adam([vw, vb], lr)
    deals = steps = 0
    start = time.perf_counter()
    obs, info = env.reset(seed=seed)
    recent: list[float] = []
    while (
        deals < max_deals if max_deals is not None else time.perf_counter() - start < seconds
    ):
        gw, gb = np.zeros_like(w), np.zeros_like(b)
        gvw, gvb = np.zeros_like(vw), np.zeros_like(vb)
        for _ in range(batch):
            xs: list[Array] = []
            legals: list[npt.NDArray[np.intp]] = []
            chosen: list[int] = []
            probs: list[Array] = []
            rewards: list[float] = []
            done = False
            while not done:
                legal = np.asarray(info["legal_actions"], dtype=np.intp)
                x = obs.astype(np.float64)
                z = w[legal] @ x + b[legal]
                p = np.exp(z - z.max())
                p /= p.sum()
                k = int(rng.choice(len(legal), p=p))
                obs, reward, terminated, truncated, info = env.step(int(legal[k]))
                done = terminated or truncated
                if len(legal) > 1:  # forced moves teach nothing
                    xs.append(x)
                    legals.append(legal)
                    chosen.append(k)
                    probs.append(p)
                    rewards.append(float(reward) / POINT_SCALE)
                elif rewards:
                    rewards[-1] += float(reward) / POINT_SCALE
                steps += 1
            recent.append(float(info["deal_points"][0] - info["deal_points"][1]))
            deals += 1
            # returns-to-go (undiscounted: a deal is short and points are points)
            g = np.cumsum(rewards[::-1])[::-1]
            for x, legal, k, p, ret in zip(xs, legals, chosen, probs, g, strict=True):
                value = vw @ x + vb[0]
                adv = ret - value
                grad = -p
                grad[k] += 1.0
                gw[legal] += adv * np.outer(grad, x)
                gb[legal] += adv * grad
                gvw += adv * x
                gvb += adv
            obs, info = env.reset()
        n = float(batch)
        policy_opt.step([gw / n, gb / n])
        value_opt.step([gvw / n, gvb / n])
        if deals % (batch * 50) == 0:
            mean = sum(recent) / len(recent)
            elapsed = time.perf_counter() - start
            print(f"  {deals:6d} deals, {elapsed:5.0f} s: mean deal margin of the last "
                  f"{len(recent)} (sampling policy) {mean:+.1f}", flush=True)
            recent.clear()
    env.close()
    return w, b, deals, steps


def evaluate(path: Path, matches: int, seed: int, workers: int) -> None:
    """A duplicate arena run of the greedy policy against ``random``."""
    from marjolet.arena import run_arena

    result = run_arena(
        [f"linear:weights={path}", "random"], matches=matches, seed=seed, workers=workers
    )
    p = result.pairings[0]
    lo, hi = p.win_rate_ci
    print(f"arena, {matches} duplicate matches against random (seed {seed}):")
    print(f"  win rate {100 * p.win_rate:.1f}% [{100 * lo:.1f}, {100 * hi:.1f}]")
    if p.margin_ci is not None:
        mlo, mhi = p.margin_ci
        print(f"  deal margin {p.margin:+.1f} points per deal [{mlo:+.1f}, {mhi:+.1f}]")
    print(f"  (same run: marjolet arena linear:weights={path} random "
          f"--matches {matches} --seed {seed})")


def bad_numbers(seconds: float, matches: int, args: argparse.Namespace) -> str | None:
    """What is wrong with the numbers given, in one line, or None."""
    if not (math.isfinite(seconds) and seconds > 0) or (args.deals is not None and args.deals < 1):
        return "--minutes and --deals must be above 0"
    if matches <= 0 or matches % 2:
        return f"--matches must be even and above 0, got {matches}"
    if args.seed < 0:
        return f"--seed must be 0 or more, got {args.seed}"
    if args.batch < 1 or args.workers < 1:
        return "--batch and --workers must be 1 or more"
    if not (math.isfinite(args.lr) and args.lr > 0):
        return f"--lr must be a number above 0, got {args.lr}"
    return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--minutes", type=float, default=3.0, help="training time (default 3)")
    parser.add_argument("--quick", action="store_true",
                        help="train 5 seconds and play 4 arena matches (a smoke test)")
    parser.add_argument("--out", type=Path, default=Path("linear-policy.npz"),
                        help="weights file (default linear-policy.npz)")
    parser.add_argument("--force", action="store_true", help="replace --out if it exists")
    parser.add_argument("--deals", type=int, default=None,
                        help="train on this many deals instead of for a time (reproducible)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--batch", type=int, default=16, help="deals per update")
    parser.add_argument("--lr", type=float, default=0.01, help="Adam step size")
    parser.add_argument("--opponent", default="random", help="training opponent (a bot spec)")
    parser.add_argument("--matches", type=int, default=200, help="arena matches (even)")
    parser.add_argument("--workers", type=int, default=1, help="arena worker processes")
    args = parser.parse_args(argv)
    seconds = 5.0 if args.quick else args.minutes * 60.0
    matches = 4 if args.quick else args.matches
    problem = bad_numbers(seconds, matches, args)
    if problem:
        print(f"train_linear: {problem}", file=sys.stderr)
        return 2
    try:
        check_output(args.out, force=args.force, flag="--out")
        check_spec(args.opponent)  # a bad spec is named before training starts
    except (OutputError, MarjoletError) as exc:
        print(f"train_linear: {exc}", file=sys.stderr)
        return 2
    budget = f"{args.deals} deals" if args.deals is not None else f"{seconds:.0f} s"
    print(f"training a linear policy against {args.opponent} for {budget} ...")
    w, b, deals, steps = train(seconds, args.deals, args.seed, args.batch, args.lr, args.opponent)
    save_weights(args.out, w, b, deals=deals, steps=steps, seed=args.seed, lr=args.lr,
                 opponent=args.opponent)
    print(f"trained on {deals} deals ({steps} steps); weights in {args.out}")
    evaluate(args.out, matches, args.seed, args.workers)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
