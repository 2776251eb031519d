"""Deep Monte-Carlo (DMC) self-play on Marjolet, PyTorch on the CPU.

    python -m marjolet.rl.train_dmc --steps 1000000 --seed 1 --out dmc.npz --log dmc.jsonl
    marjolet arena ppo:weights=dmc.npz random --matches 100 --seed 1

What it does, DouZero's recipe made small: one network estimates
``Q(observation, action)`` for the 46 action ids (two ``tanh`` layers, a
head of 46 values); both seats of :class:`marjolet.rl.vector.MarjoletSelfPlayVectorEnv`
play it, each choosing the legal action of highest Q, or with probability
``--epsilon`` a uniform legal action. When a deal ends, every decision of
it is a sample: the observation, the action and the Monte-Carlo return of
the seat that took it (the points difference it gained from that action to
the end of the deal, dense rewards / 100, no discount, no bootstrapping).
The network regresses ``Q(obs)[action]`` on that return (mean squared
error, Adam); each sample is used once.

The batch is in C where the kernel is built, in Python otherwise (the same
episodes, slowly). Every ``--eval-every`` steps the greedy policy plays
duplicate deals against each ``--eval`` bot (as ``train_ppo`` does); the
results go to ``--log``. The network is written in the ``ppo`` bot's format
(its output is the Q values: the bot plays the legal action of highest Q),
so ``ppo:weights=FILE`` plays it with numpy only.

Needs the ``train`` extra (PyTorch). Seeded runs are reproducible on one
machine (same PyTorch build, one thread).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from marjolet.errors import MarjoletError
from marjolet.rl import exit_missing_extra, exit_refused, missing_extra

#: The command's name in its usage and in every error line.
PROG = "python -m marjolet.rl.train_dmc"

try:  # the train extra: run without it, the command says so in one line
    import numpy as np
    import numpy.typing as npt
    import torch

    from marjolet.rl.encoder import NUM_ACTIONS, OBSERVATION_SIZE, POINT_SCALE
    from marjolet.rl.mlp_bot import MlpPolicy
    from marjolet.rl.train_ppo import (
        DEFAULT_EVAL,
        Checkpoint,
        FloatArray,
        Log,
        add_shared_args,
        check_shared_args,
        evaluate,
        mlp,
        numpy_policy,
        refuse_below_one,
        run_logged,
        training_parser,
    )
    from marjolet.rl.vector import MarjoletSelfPlayVectorEnv
except ModuleNotFoundError as exc:
    if __name__ != "__main__" or not missing_extra(exc):
        raise
    exit_missing_extra(PROG, "train", exc)
except MarjoletError as exc:  # the kernel module refused its settings
    if __name__ != "__main__":
        raise
    exit_refused(PROG, exc)

#: One decision of a finished deal: observations, action ids, the seat's returns.
Sample = tuple[FloatArray, npt.NDArray[np.int64], FloatArray]


@dataclass
class DmcSettings:
    """Every knob of a run (written to the log and the weights file)."""

    steps: int = 1_000_000
    seed: int = 1
    num_envs: int = 64
    rollout: int = 64
    epsilon: float = 0.05
    lr: float = 1e-3
    minibatch: int = 512
    hidden: list[int] = field(default_factory=lambda: [128, 128])
    eval_every: int = 250_000
    eval: list[str] = field(default_factory=lambda: list(DEFAULT_EVAL))
    eval_deals: list[int] = field(default_factory=lambda: [100, 100, 30])


class Episodes:
    """The decisions of each environment's deal in progress; a finished deal
    becomes samples ``(observation, action, return of the seat that acted)``."""

    def __init__(self, num_envs: int) -> None:
        self.obs: list[list[FloatArray]] = [[] for _ in range(num_envs)]
        self.actions: list[list[int]] = [[] for _ in range(num_envs)]
        self.seats: list[list[int]] = [[] for _ in range(num_envs)]
        self.rewards: list[list[FloatArray]] = [[] for _ in range(num_envs)]

    def record(
        self,
        obs: FloatArray,
        actions: npt.NDArray[np.int64],
        seats: npt.NDArray[np.int8],
        rewards: FloatArray,
        ended: npt.NDArray[np.bool_],
    ) -> list[Sample]:
        """Add one step of every environment (taken on ``obs``); return the
        samples of the deals that ended in it."""
        done = []
        for i in range(len(actions)):
            self.obs[i].append(obs[i])
            self.actions[i].append(int(actions[i]))
            self.seats[i].append(int(seats[i]))
            self.rewards[i].append(rewards[i])
            if ended[i]:
                done.append(self._samples(i))
        return done

    def _samples(self, i: int) -> Sample:
        rewards = np.stack(self.rewards[i])  # (steps, 2): both seats' rewards a step
        to_go = np.cumsum(rewards[::-1], axis=0)[::-1]  # from each step to the end
        seats = np.array(self.seats[i])
        returns = to_go[np.arange(len(seats)), seats].astype(np.float32)
        samples = (np.stack(self.obs[i]), np.array(self.actions[i], np.int64), returns)
        self.obs[i], self.actions[i], self.seats[i], self.rewards[i] = [], [], [], []
        return samples


def epsilon_greedy(
    q: FloatArray, mask: npt.NDArray[np.int8], epsilon: float, rng: np.random.Generator
) -> npt.NDArray[np.int64]:
    """Per row, the legal action of highest Q, or with probability
    ``epsilon`` a uniform legal action."""
    legal = mask.astype(bool)
    best = np.where(legal, q, -np.inf).argmax(axis=1)
    uniform = np.argmax(rng.random(mask.shape) * legal, axis=1)
    explore = rng.random(len(q)) < epsilon
    result: npt.NDArray[np.int64] = np.where(explore, uniform, best).astype(np.int64)
    return result


class DmcTrainer:
    """One DMC run (see the module docstring)."""

    def __init__(
        self, s: DmcSettings, log: Log | None = None, checkpoint: Checkpoint | None = None
    ) -> None:
        self.s = s
        self.log: Log = log or (lambda record: None)
        self.checkpoint: Checkpoint = checkpoint or (lambda policy, steps: None)
        torch.manual_seed(s.seed)
        self.rng = np.random.default_rng(s.seed)
        self.q = mlp([OBSERVATION_SIZE, *s.hidden, NUM_ACTIONS])
        self.optim = torch.optim.Adam(self.q.parameters(), lr=s.lr)
        self.envs = MarjoletSelfPlayVectorEnv(
            s.num_envs, reward="dense", autoreset_mode="same_step", seed=s.seed * 1_000_003
        )
        self.episodes = Episodes(s.num_envs)
        self.steps = 0

    def policy(self) -> MlpPolicy:
        return numpy_policy(self.q)

    def run(self) -> MlpPolicy:
        s = self.s
        obs, infos = self.envs.reset()
        next_eval = 0
        while True:
            if self.steps >= next_eval:
                policy = self.policy()
                self.checkpoint(policy, self.steps)
                evaluate(policy, self.steps, s.eval, s.eval_deals, [], self.log)
                next_eval += s.eval_every
            if self.steps >= s.steps:
                return self.policy()
            samples, obs, infos = self.collect(obs, infos)
            self.update(samples)

    def collect(
        self, obs: FloatArray, infos: dict[str, Any]
    ) -> tuple[list[Sample], FloatArray, Any]:
        """``--rollout`` steps of every environment (same-step autoreset:
        every row is a decision); the samples of the deals that ended."""
        samples = []
        for _ in range(self.s.rollout):
            with torch.no_grad():
                q = self.q(torch.from_numpy(obs)).numpy()
            actions = epsilon_greedy(q, infos["action_mask"], self.s.epsilon, self.rng)
            seats = infos["seat"]
            next_obs, rewards, terminated, _, infos = self.envs.step(actions)
            ended = self.episodes.record(obs, actions, seats, rewards / POINT_SCALE, terminated)
            samples.extend(ended)
            self.steps += len(actions)
            obs = next_obs
        return samples, obs, infos

    def update(self, samples: Sequence[Sample]) -> None:
        """One pass of minibatches over the samples: ``Q(obs)[action]`` toward the return."""
        if not samples:
            return
        obs = torch.from_numpy(np.concatenate([o for o, _, _ in samples]))
        actions = torch.from_numpy(np.concatenate([a for _, a, _ in samples]))
        returns = torch.from_numpy(np.concatenate([g for _, _, g in samples]))
        order = torch.from_numpy(self.rng.permutation(len(actions)))
        for start in range(0, len(order), self.s.minibatch):
            idx = order[start : start + self.s.minibatch]
            q = self.q(obs[idx]).gather(1, actions[idx].unsqueeze(1)).squeeze(1)
            loss = ((q - returns[idx]) ** 2).mean()
            self.optim.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(self.q.parameters(), 1.0)
            self.optim.step()


def parse_args(argv: Sequence[str] | None) -> tuple[DmcSettings, argparse.Namespace]:
    d = DmcSettings()
    p = training_parser(PROG, __doc__)
    p.add_argument("--steps", type=int, default=d.steps,
                   help="decisions to train, both seats (rounded up to whole updates)")
    p.add_argument("--num-envs", type=int, default=d.num_envs, help="environments in the batch")
    p.add_argument("--rollout", type=int, default=d.rollout, help="steps per env per update")
    p.add_argument("--epsilon", type=float, default=d.epsilon, help="exploration rate (0..1)")
    p.add_argument("--minibatch", type=int, default=d.minibatch, help="samples per update")
    add_shared_args(p, d)
    args = p.parse_args(argv)
    eval_deals = check_shared_args(p, args, d)
    refuse_below_one(p, steps=[args.steps], num_envs=[args.num_envs], rollout=[args.rollout],
                     minibatch=[args.minibatch])
    if not 0.0 <= args.epsilon <= 1.0:
        p.error(f"--epsilon must be within 0..1, got {args.epsilon}")
    s = DmcSettings(
        steps=args.steps, seed=args.seed, num_envs=args.num_envs, rollout=args.rollout,
        epsilon=args.epsilon, lr=args.lr, minibatch=args.minibatch, hidden=args.hidden,
        eval_every=args.eval_every, eval=args.eval, eval_deals=eval_deals,
    )  # fmt: skip
    return s, args


def main(argv: Sequence[str] | None = None) -> int:
    s, args = parse_args(argv)
    make: Callable[[Log, Checkpoint], DmcTrainer] = lambda log, ck: DmcTrainer(s, log, ck)  # noqa: E731
    return run_logged(s, args, make, PROG)


if __name__ == "__main__":
    sys.exit(main())
