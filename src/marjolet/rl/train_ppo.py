"""Masked PPO on Marjolet, PyTorch on the CPU: the baselines of ``docs/rl.md``.

    python -m marjolet.rl.train_ppo --opponent random --steps 200000 --seed 1 --out ppo.npz
    python -m marjolet.rl.train_ppo --opponent heuristic --log run.jsonl
    python -m marjolet.rl.train_ppo --opponent self          # self-play
    marjolet arena ppo:weights=ppo.npz heuristic --matches 100 --seed 1

What it does: proximal policy optimisation (clipped objective, GAE, separate
actor and critic networks of two ``tanh`` layers) on one seat of
``marjolet/SingleAgent-v0`` (the seat drawn each deal), dense rewards (each
point scored or conceded, / 100), illegal actions masked out of the softmax
with the environment's ``action_mask``. The opponent is a bot spec
(``random``, ``heuristic``...) or ``self``: the policy's own snapshots,
sampling, one of the last few drawn at each deal. Every ``--eval-every``
steps the greedy policy plays duplicate deals (each deal from both seats)
against each ``--eval`` opponent; the results go to ``--log`` as JSON lines.
The actor is written with :func:`marjolet.rl.mlp_bot.save_policy`, which the
``ppo`` bot reads with numpy only.

The environment batch is built by :func:`make_batch`: ``--env vector``
uses the batched C environment ``marjolet.rl.vector.MarjoletVectorEnv``;
``--env python`` steps N Gymnasium environments in a plain loop; ``--env
gym`` wraps them in Gymnasium's ``SyncVectorEnv``. ``--env auto`` (the
default) is ``vector`` where the C kernel is built and plays the opponent
(``random``, ``heuristic``), else ``python`` (self-play, other bots, no
kernel or ``MARJOLET_KERNEL=0``): :func:`resolve_env`. Both batches deal
the same episodes under the same seed. ``vector`` and ``gym`` go through
:class:`VectorBatch`, which reads any Gymnasium ``VectorEnv`` that puts the
legal-action mask in ``infos["action_mask"]``, whichever autoreset mode it
uses.

Needs the ``train`` extra (``pip install 'marjolet[train]'``: PyTorch).
Seeded runs are reproducible on one machine (same PyTorch build, one thread).
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import re
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol

from marjolet.bots import make_bot
from marjolet.bots.base import Bot
from marjolet.cli import OneLineParser
from marjolet.errors import MarjoletError
from marjolet.match import Match
from marjolet.outputs import OutputError, check_distinct, check_output, write_atomic
from marjolet.rl import exit_missing_extra, exit_refused, missing_extra
from marjolet.rules import CLASSIC
from marjolet.turns import play_deal

#: The command's name in its usage and in every error line.
PROG = "python -m marjolet.rl.train_ppo"

try:  # the train extra: run without it, the command says so in one line
    import numpy as np
    import numpy.typing as npt
    import torch
    from torch import nn

    from marjolet.rl.encoder import NUM_ACTIONS, OBSERVATION_SIZE, POINT_SCALE
    from marjolet.rl.gym import SingleAgentEnv
    from marjolet.rl.mlp_bot import MlpPolicy, PpoBot, save_policy
    from marjolet.rl.vector import MAX_ENVS
except ModuleNotFoundError as exc:
    if __name__ != "__main__" or not missing_extra(exc):
        raise
    exit_missing_extra(PROG, "train", exc)
except MarjoletError as exc:  # the kernel module refused its settings
    if __name__ != "__main__":
        raise
    exit_refused(PROG, exc)

FloatArray = npt.NDArray[np.float32]
SELF = "self"
DEFAULT_EVAL = ("random", "heuristic", "pimc:worlds=16")


# -- the environment batch ------------------------------------------------------


class Batch(Protocol):
    """N environments stepped together: observations ``(N, 335)``, masks
    ``(N, 46)``. A row whose mask is all zero has no decision to make (its
    episode just ended and resets on the next step): its action is ignored
    and its step is not a transition."""

    num_envs: int

    def reset(self, seed: int) -> tuple[FloatArray, npt.NDArray[np.int8]]: ...

    def step(
        self, actions: npt.NDArray[np.int64]
    ) -> tuple[FloatArray, npt.NDArray[np.int8], FloatArray, npt.NDArray[np.bool_], list[float]]:
        """Observations, masks, rewards, episode ends, and the deal margins
        (mine minus the opponent's) of the episodes that ended."""
        ...

    def close(self) -> None:
        """End the opponents' programs (``exec:`` specs), if any."""
        ...


class PythonBatch:
    """N :class:`~marjolet.rl.gym.SingleAgentEnv` in a loop; an ended episode
    is reset in the same step (its row then shows the next episode)."""

    def __init__(self, envs: Sequence[SingleAgentEnv]) -> None:
        self.envs = list(envs)
        self.num_envs = len(self.envs)
        self.obs = np.zeros((self.num_envs, OBSERVATION_SIZE), dtype=np.float32)
        self.mask = np.zeros((self.num_envs, NUM_ACTIONS), dtype=np.int8)

    def close(self) -> None:
        for env in self.envs:
            env.close()

    def reset(self, seed: int) -> tuple[FloatArray, npt.NDArray[np.int8]]:
        for i, env in enumerate(self.envs):
            self.obs[i], info = env.reset(seed=seed + i)
            self.mask[i] = info["action_mask"]
        return self.obs.copy(), self.mask.copy()

    def step(
        self, actions: npt.NDArray[np.int64]
    ) -> tuple[FloatArray, npt.NDArray[np.int8], FloatArray, npt.NDArray[np.bool_], list[float]]:
        rewards = np.zeros(self.num_envs, dtype=np.float32)
        dones = np.zeros(self.num_envs, dtype=np.bool_)
        margins: list[float] = []
        for i, env in enumerate(self.envs):
            obs, reward, terminated, truncated, info = env.step(int(actions[i]))
            rewards[i] = reward
            if terminated or truncated:
                dones[i] = True
                mine, theirs = info["deal_points"]
                margins.append(float(mine - theirs))
                obs, info = env.reset()
            self.obs[i] = obs
            self.mask[i] = info["action_mask"]
        return self.obs.copy(), self.mask.copy(), rewards, dones, margins


class VectorBatch:
    """A Gymnasium ``VectorEnv`` whose ``infos["action_mask"]`` holds the
    masks. With next-step autoreset (Gymnasium's default) the row of an
    ended episode shows an all-zero mask until the next step resets it; with
    same-step autoreset it shows the next episode at once: both work."""

    def __init__(self, env: Any) -> None:
        self.env = env
        self.num_envs = int(env.num_envs)

    def close(self) -> None:
        self.env.close()

    def reset(self, seed: int) -> tuple[FloatArray, npt.NDArray[np.int8]]:
        obs, infos = self.env.reset(seed=seed)
        return np.asarray(obs, dtype=np.float32), self._masks(infos)

    def step(
        self, actions: npt.NDArray[np.int64]
    ) -> tuple[FloatArray, npt.NDArray[np.int8], FloatArray, npt.NDArray[np.bool_], list[float]]:
        obs, rewards, terminated, truncated, infos = self.env.step(actions)
        dones = np.logical_or(terminated, truncated)
        masks = self._masks(infos)
        margins = _ended_margins(infos, dones)
        return np.asarray(obs, dtype=np.float32), masks, rewards.astype(np.float32), dones, margins

    def _masks(self, infos: dict[str, Any]) -> npt.NDArray[np.int8]:
        masks = np.asarray(infos["action_mask"], dtype=np.int8)
        present = infos.get("_action_mask")
        if present is not None:  # SyncVectorEnv: rows without the key are zeros already
            masks[~np.asarray(present, dtype=bool)] = 0
        return masks


def _ended_margins(infos: dict[str, Any], dones: npt.NDArray[np.bool_]) -> list[float]:
    """Deal margins of the ended episodes, where the infos carry them."""
    if "deal_points" not in infos:
        return []
    points = infos["deal_points"]
    present = infos.get("_deal_points", dones)
    result = []
    for i in np.flatnonzero(np.logical_and(dones, present)):
        mine, theirs = points[i]
        result.append(float(mine) - float(theirs))
    return result


ENV_KINDS = ("auto", "vector", "python", "gym")


def resolve_env(kind: str, opponent: str) -> str:
    """``--env auto``: ``vector`` where the C kernel plays ``opponent`` in a
    batch, else ``python``; any other kind is itself."""
    if kind != "auto":
        return kind
    from marjolet import kernel
    from marjolet.rl.vector import KERNEL_OPPONENTS

    return "vector" if opponent in KERNEL_OPPONENTS and kernel.supports(CLASSIC) else "python"


def make_batch(kind: str, num_envs: int, opponents: Sequence[str | Bot]) -> Batch:
    """The environment batch of ``--env`` (``auto`` resolved): one opponent per
    environment."""
    if kind == "python":
        return PythonBatch([SingleAgentEnv(opponent=o, reward="dense") for o in opponents])
    if kind == "gym":
        import gymnasium

        def factory(o: str | Bot) -> Callable[[], SingleAgentEnv]:
            return lambda: SingleAgentEnv(opponent=o, reward="dense")

        return VectorBatch(gymnasium.vector.SyncVectorEnv([factory(o) for o in opponents]))
    if kind == "vector":
        from marjolet.rl.vector import MarjoletVectorEnv

        spec = opponents[0]
        if not isinstance(spec, str) or any(o != spec for o in opponents):
            raise MarjoletError("--env vector takes one bot spec for every environment")
        return VectorBatch(MarjoletVectorEnv(num_envs, opponent=spec, reward="dense"))
    raise MarjoletError(f"--env must be one of {', '.join(ENV_KINDS)}, got {kind!r}")


# -- the networks -------------------------------------------------------------------


def mlp(sizes: Sequence[int]) -> nn.Sequential:
    """Linear layers with ``tanh`` between them (none after the last)."""
    layers: list[nn.Module] = []
    for i in range(len(sizes) - 1):
        layers.append(nn.Linear(sizes[i], sizes[i + 1]))
        if i < len(sizes) - 2:
            layers.append(nn.Tanh())
    return nn.Sequential(*layers)


class MaskedCategorical:
    """The softmax over the legal actions (illegal logits at -1e9): the
    arithmetic of ``torch.distributions.Categorical``, typed."""

    def __init__(self, logits: torch.Tensor, mask: torch.Tensor) -> None:
        masked = logits.masked_fill(mask == 0, -1e9)
        self.logits = masked - masked.logsumexp(dim=-1, keepdim=True)
        self.probs = torch.softmax(self.logits, dim=-1)

    def sample(self) -> torch.Tensor:
        return torch.multinomial(self.probs, 1, True).squeeze(-1)

    def log_prob(self, actions: torch.Tensor) -> torch.Tensor:
        return self.logits.gather(-1, actions.long().unsqueeze(-1)).squeeze(-1)

    def entropy(self) -> torch.Tensor:
        logits = torch.clamp(self.logits, min=torch.finfo(self.logits.dtype).min)
        return -(logits * self.probs).sum(-1)


class ActorCritic(nn.Module):
    """Separate actor (logits per action id) and critic (deal value) networks."""

    def __init__(self, hidden: Sequence[int]) -> None:
        super().__init__()
        self.actor = mlp([OBSERVATION_SIZE, *hidden, NUM_ACTIONS])
        self.critic = mlp([OBSERVATION_SIZE, *hidden, 1])

    def dist(self, obs: torch.Tensor, mask: torch.Tensor) -> MaskedCategorical:
        return MaskedCategorical(self.actor(obs), mask)

    def value(self, obs: torch.Tensor) -> torch.Tensor:
        result: torch.Tensor = self.critic(obs).squeeze(-1)
        return result

    def numpy_policy(self) -> MlpPolicy:
        """The actor as numpy arrays (weights ``in x out``), for the ``ppo`` bot."""
        return numpy_policy(self.actor)


def numpy_policy(net: nn.Sequential) -> MlpPolicy:
    """An :func:`mlp` as numpy arrays (weights ``in x out``), for the bots."""
    linear = [m for m in net if isinstance(m, nn.Linear)]
    return MlpPolicy(
        [(m.weight.detach().numpy().T.copy(), m.bias.detach().numpy().copy()) for m in linear]
    )


# -- settings and training ----------------------------------------------------------


@dataclass
class Settings:
    """Every knob of a run (written to the log and the weights file)."""

    opponent: str = "random"
    steps: int = 200_000
    seed: int = 1
    num_envs: int = 16
    rollout: int = 128
    epochs: int = 4
    minibatch: int = 512
    lr: float = 3e-4
    gamma: float = 1.0
    lam: float = 0.95
    clip: float = 0.2
    entropy: float = 0.01
    value_coef: float = 0.5
    hidden: list[int] = field(default_factory=lambda: [128, 128])
    env: str = "auto"
    pool: int = 5
    eval_every: int = 50_000
    eval: list[str] = field(default_factory=lambda: list(DEFAULT_EVAL))
    eval_deals: list[int] = field(default_factory=lambda: [100, 100, 30])


class SnapshotBot(PpoBot):
    """Self-play opponent: at each deal, one of the last ``pool`` snapshots
    of the policy being trained, sampling its softmax."""

    def __init__(self, pool: list[MlpPolicy], seed: int) -> None:
        super().__init__(seed=seed, policy=pool[-1], greedy=False)
        self.pool = pool

    def new_match(self, seed: int | None = None) -> None:
        super().new_match(seed)
        self.policy = self.rng.choice(self.pool)


@dataclass
class Rollout:
    obs: list[FloatArray] = field(default_factory=list)
    masks: list[npt.NDArray[np.int8]] = field(default_factory=list)
    actions: list[npt.NDArray[np.int64]] = field(default_factory=list)
    logps: list[FloatArray] = field(default_factory=list)
    values: list[FloatArray] = field(default_factory=list)
    rewards: list[FloatArray] = field(default_factory=list)
    dones: list[npt.NDArray[np.bool_]] = field(default_factory=list)


def advantages(
    r: Rollout, last_value: FloatArray, last_valid: npt.NDArray[np.bool_], s: Settings
) -> tuple[FloatArray, FloatArray]:
    """GAE over each environment's valid steps (rows with a decision)."""
    steps, n = len(r.rewards), len(last_value)
    adv = np.zeros((steps, n), dtype=np.float32)
    next_value = np.where(last_valid, last_value, 0.0).astype(np.float32)
    gae = np.zeros(n, dtype=np.float32)
    for t in reversed(range(steps)):
        valid = r.masks[t].any(axis=1)
        nonterminal = 1.0 - r.dones[t].astype(np.float32)
        delta = r.rewards[t] + s.gamma * next_value * nonterminal - r.values[t]
        new_gae = delta + s.gamma * s.lam * nonterminal * gae
        gae = np.where(valid, new_gae, gae)
        adv[t] = np.where(valid, new_gae, 0.0)
        next_value = np.where(valid, r.values[t], next_value)
    returns = adv + np.stack(r.values)
    return adv, returns


class Trainer:
    """One PPO run (see the module docstring)."""

    def __init__(
        self,
        s: Settings,
        log: Callable[[dict[str, Any]], None] | None = None,
        checkpoint: Callable[[MlpPolicy, int], None] | None = None,
    ) -> None:
        s = replace(s, env=resolve_env(s.env, s.opponent))  # the log names the batch that ran
        self.s = s
        self.log = log or (lambda record: None)
        #: called with the actor and the steps at every evaluation (``--out`` is rewritten)
        self.checkpoint = checkpoint or (lambda policy, steps: None)
        torch.manual_seed(s.seed)
        self.rng = np.random.default_rng(s.seed)
        self.model = ActorCritic(s.hidden)
        self.optim = torch.optim.Adam(self.model.parameters(), lr=s.lr, eps=1e-5)
        self.pool: list[MlpPolicy] = [self.model.numpy_policy()]
        opponents: list[str | Bot]
        if s.opponent == SELF:
            opponents = [SnapshotBot(self.pool, seed=s.seed * 1000 + i) for i in range(s.num_envs)]
        else:
            make_bot(s.opponent, seed=0)  # a bad spec fails now, in one line
            opponents = [s.opponent] * s.num_envs
        self.batch = make_batch(s.env, s.num_envs, opponents)
        self.steps = 0
        self.margins: list[float] = []

    def run(self) -> MlpPolicy:
        try:
            return self._train()
        finally:
            self.batch.close()

    def _train(self) -> MlpPolicy:
        s = self.s
        obs, mask = self.batch.reset(seed=s.seed * 1_000_003)
        next_eval = 0
        while True:
            if self.steps >= next_eval:
                self.evaluate()
                next_eval += s.eval_every
            if self.steps >= s.steps:
                return self.model.numpy_policy()
            r, obs, mask = self.collect(obs, mask)
            self.update(r, obs, mask)
            if s.opponent == SELF:
                self.pool.append(self.model.numpy_policy())
                del self.pool[: -s.pool]

    def collect(
        self, obs: FloatArray, mask: npt.NDArray[np.int8]
    ) -> tuple[Rollout, FloatArray, npt.NDArray[np.int8]]:
        r = Rollout()
        for _ in range(self.s.rollout):
            valid = mask.any(axis=1)
            safe = mask.copy()
            safe[~valid, 0] = 1  # rows without a decision: any action, ignored
            with torch.no_grad():
                o = torch.from_numpy(obs)
                dist = self.model.dist(o, torch.from_numpy(safe))
                action = dist.sample()
                logp = dist.log_prob(action).numpy()
                value = self.model.value(o).numpy()
            actions = action.numpy().astype(np.int64)
            r.obs.append(obs)
            r.masks.append(mask)
            r.actions.append(actions)
            r.logps.append(logp)
            r.values.append(value)
            obs, mask, reward, done, margins = self.batch.step(actions)
            r.rewards.append(reward / POINT_SCALE)
            r.dones.append(done)
            self.margins.extend(margins)
            self.steps += int(valid.sum())
        return r, obs, mask

    def update(self, r: Rollout, obs: FloatArray, mask: npt.NDArray[np.int8]) -> None:
        s = self.s
        with torch.no_grad():
            last_value = self.model.value(torch.from_numpy(obs)).numpy()
        adv, ret = advantages(r, last_value, np.asarray(mask.any(axis=1)), s)
        valid = np.stack(r.masks).any(axis=2).reshape(-1)
        o = torch.from_numpy(np.stack(r.obs).reshape(-1, OBSERVATION_SIZE)[valid])
        m = torch.from_numpy(np.stack(r.masks).reshape(-1, NUM_ACTIONS)[valid])
        a = torch.from_numpy(np.stack(r.actions).reshape(-1)[valid])
        old = torch.from_numpy(np.stack(r.logps).reshape(-1)[valid])
        advs = torch.from_numpy(adv.reshape(-1)[valid])
        rets = torch.from_numpy(ret.reshape(-1)[valid])
        n = len(a)
        for _ in range(s.epochs):
            order = self.rng.permutation(n)
            for start in range(0, n, s.minibatch):
                idx = torch.from_numpy(order[start : start + s.minibatch])
                self.minibatch_step(o[idx], m[idx], a[idx], old[idx], advs[idx], rets[idx])

    def minibatch_step(
        self,
        o: torch.Tensor,
        m: torch.Tensor,
        a: torch.Tensor,
        old: torch.Tensor,
        adv: torch.Tensor,
        ret: torch.Tensor,
    ) -> None:
        s = self.s
        dist = self.model.dist(o, m)
        ratio = torch.exp(dist.log_prob(a) - old)
        adv = (adv - adv.mean()) / (adv.std() + 1e-8) if len(adv) > 1 else adv
        policy_loss = -torch.min(ratio * adv, ratio.clamp(1 - s.clip, 1 + s.clip) * adv).mean()
        value_loss = ((self.model.value(o) - ret) ** 2).mean()
        loss = policy_loss + s.value_coef * value_loss - s.entropy * dist.entropy().mean()
        self.optim.zero_grad()
        loss.backward()  # type: ignore[no-untyped-call]
        nn.utils.clip_grad_norm_(self.model.parameters(), 0.5)
        self.optim.step()

    def evaluate(self) -> None:
        policy = self.model.numpy_policy()
        self.checkpoint(policy, self.steps)
        evaluate(policy, self.steps, self.s.eval, self.s.eval_deals, self.margins[-500:], self.log)


# -- evaluation -----------------------------------------------------------------------


def duplicate_margins(policy: MlpPolicy, spec: str, deals: int, seed: int) -> list[float]:
    """The greedy policy against ``spec`` on ``deals`` duplicate deals: each
    deal (same cards, same dealer) played from both seats; returns the deal
    margins (policy's score minus the opponent's), two per deal."""
    me = PpoBot(seed=0, policy=policy)
    opponent = make_bot(spec, seed=0)
    margins: list[float] = []
    for i in range(deals):
        for seat in (0, 1):
            match = Match(CLASSIC, seed=seed + i)
            match.start_deal()
            me.new_match(seed + i)
            opponent.new_match(seed + i)
            seats = [me, opponent] if seat == 0 else [opponent, me]
            play_deal(match, seats)
            assert match.deal is not None
            points = match.deal.points
            margins.append(float(points[seat] - points[seat ^ 1]))
    return margins


def evaluate(
    policy: MlpPolicy,
    steps: int,
    specs: Sequence[str],
    deals: Sequence[int],
    recent: Sequence[float],
    log: Callable[[dict[str, Any]], None],
) -> None:
    """Log the greedy policy's duplicate deals against each of ``specs``
    (``recent``: the last training deals' margins, for the record)."""
    for spec, n in zip(specs, deals, strict=True):
        start = time.process_time()
        margins = duplicate_margins(policy, spec, n, seed=10_000)
        log(
            {
                "steps": steps,
                "opponent": spec,
                "margins": margins,
                "win_rate": win_rate(margins),
                "margin": float(np.mean(margins)),
                "train_margin": float(np.mean(recent)) if recent else None,
                "eval_cpu_s": round(time.process_time() - start, 2),
            }
        )


def win_rate(margins: Sequence[float]) -> float:
    """Deals won (a tie counts half)."""
    return float(np.mean([1.0 if m > 0 else 0.5 if m == 0 else 0.0 for m in margins]))


# -- command line ---------------------------------------------------------------------


#: The largest seed numpy and torch both take.
MAX_SEED = 2**63 - 1
#: ``--lr``: Adam's step size, a float32 (1e308 overflowed in the optimizer).
LR_RANGE = (1e-10, 1.0)
#: ``--hidden``: the most weights a network may have (a network of two
#: layers of 128 has about 65,000; 10,000,000 take 40 MB, and Adam keeps two more copies).
MAX_WEIGHTS = 10_000_000


def network_weights(hidden: Sequence[int], outputs: int = NUM_ACTIONS) -> int:
    """Weights and biases of an :func:`mlp` from the tensor through ``hidden`` to ``outputs``."""
    sizes = [OBSERVATION_SIZE, *hidden, outputs]
    return sum((a + 1) * b for a, b in itertools.pairwise(sizes))


class _DefaultsShown(argparse.HelpFormatter):
    """``--help`` with each option's default, where it has one to show."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        if action.default in (None, False, argparse.SUPPRESS) or "default" in text:
            return text
        return text + " (default: %(default)s)"


def training_parser(prog: str, doc: str | None) -> argparse.ArgumentParser:
    """A trainer's parser: usage errors are one line (exit 2), ``--help``
    shows the defaults."""
    return OneLineParser(
        prog=prog, description=(doc or "").split("\n\n")[0], formatter_class=_DefaultsShown
    )


def add_shared_args(p: argparse.ArgumentParser, d: Settings | Any) -> None:
    """The options both trainers share: seed, learning rate, network,
    evaluations and output files."""
    p.add_argument("--seed", type=int, default=d.seed, help=f"0 to {MAX_SEED}")
    p.add_argument("--lr", type=float, default=d.lr,
                   help=f"Adam step size ({LR_RANGE[0]:g} to {LR_RANGE[1]:g})")  # fmt: skip
    p.add_argument("--hidden", type=int, nargs="+", default=d.hidden,
                   help=f"hidden layer widths (at most {MAX_WEIGHTS:,} weights)")  # fmt: skip
    p.add_argument("--eval-every", type=int, default=d.eval_every, help="steps between evaluations")
    p.add_argument("--eval", nargs="*", default=d.eval,
                   help="bot specs to measure against (none: no evaluation)")  # fmt: skip
    p.add_argument("--eval-deals", type=int, nargs="*", default=None,
                   help=f"duplicate deals against each --eval bot (default {d.eval_deals} "
                   f"for the default bots, else {d.eval_deals[0]} each)")  # fmt: skip
    p.add_argument("--out", type=Path, help="write the network here (.npz for the ppo bot)")
    p.add_argument("--log", type=Path, help="write the evaluations here (JSON lines)")
    p.add_argument("--force", action="store_true", help="replace --out and --log if they exist")


def refuse_below_one(p: argparse.ArgumentParser, **options: Sequence[int]) -> None:
    """Refuse (one line, exit 2) the first value below 1 of the options
    given (``num_envs=[...]`` stands for ``--num-envs``), naming it."""
    for name, values in options.items():
        for value in values:
            if value < 1:
                p.error(f"--{name.replace('_', '-')} must be >= 1, got {value}")


def check_shared_args(p: argparse.ArgumentParser, args: argparse.Namespace, d: Any) -> list[int]:
    """Refuse (one line, exit 2) what :func:`add_shared_args` cannot take;
    return the deals of each evaluation."""
    deals: list[int] = args.eval_deals
    if deals is None:
        default = args.eval == list(d.eval)
        deals = list(d.eval_deals) if default else [d.eval_deals[0]] * len(args.eval)
    if len(args.eval) != len(deals):
        p.error("--eval and --eval-deals need one entry each per opponent")
    refuse_below_one(p, eval_every=[args.eval_every], eval_deals=deals, hidden=args.hidden)
    if not 0 <= args.seed <= MAX_SEED:
        p.error(f"--seed must be within 0..{MAX_SEED}, got {args.seed}")
    low, high = LR_RANGE
    if not (math.isfinite(args.lr) and low <= args.lr <= high):
        p.error(f"--lr must be a number within {low:g}..{high:g}, got {args.lr}")
    weights = network_weights(args.hidden)
    if weights > MAX_WEIGHTS:
        widths = " ".join(map(str, args.hidden))
        p.error(
            f"--hidden {widths}: a network of {weights:,} weights, above the limit of "
            f"{MAX_WEIGHTS:,}"
        )
    if args.num_envs > MAX_ENVS:
        p.error(f"--num-envs must be within 1..{MAX_ENVS}, got {args.num_envs}")
    return deals


def parse_args(argv: Sequence[str] | None) -> tuple[Settings, argparse.Namespace]:
    d = Settings()
    p = training_parser(PROG, __doc__)
    p.add_argument("--opponent", default=d.opponent, help="a bot spec, or 'self' (self-play)")
    p.add_argument("--steps", type=int, default=d.steps,
                   help="agent steps to train (whole updates: the first that reaches it ends)")
    p.add_argument("--num-envs", type=int, default=d.num_envs, help="environments in the batch")
    p.add_argument("--rollout", type=int, default=d.rollout, help="steps per env per update")
    p.add_argument("--entropy", type=float, default=d.entropy, help="entropy bonus (>= 0)")
    p.add_argument("--env", choices=ENV_KINDS, default=d.env,
                   help="auto: the C batch where the kernel plays the opponent, else python")
    add_shared_args(p, d)
    args = p.parse_args(argv)
    eval_deals = check_shared_args(p, args, d)
    refuse_below_one(p, steps=[args.steps], num_envs=[args.num_envs], rollout=[args.rollout])
    if not (math.isfinite(args.entropy) and args.entropy >= 0):
        p.error(f"--entropy must be a number 0 or above, got {args.entropy}")
    s = Settings(
        opponent=args.opponent, steps=args.steps, seed=args.seed, num_envs=args.num_envs,
        rollout=args.rollout, lr=args.lr, entropy=args.entropy, hidden=args.hidden,
        env=resolve_env(args.env, args.opponent), eval_every=args.eval_every, eval=args.eval,
        eval_deals=eval_deals,
    )
    return s, args


class Run(Protocol):
    """A training run: ``steps`` done so far, ``run()`` returns the policy."""

    steps: int

    def run(self) -> MlpPolicy: ...


Log = Callable[[dict[str, Any]], None]
Checkpoint = Callable[[MlpPolicy, int], None]


def run_logged(
    settings: Any, args: argparse.Namespace, make: Callable[[Log, Checkpoint], Run],
    prog: str = PROG,
) -> int:
    """Run ``make(log, checkpoint)`` with the evaluations printed and written
    to ``args.log`` (JSON lines, the settings first) and the policy to
    ``args.out`` at every evaluation and at the end; an existing file is
    replaced only with ``args.force``, and ``--out`` and ``--log`` naming one
    file are refused; errors are one line (exit 2) that starts as the
    parser's do, ``PROG: error:``."""
    out: Path | None = args.out
    log_path: Path | None = args.log
    records: list[dict[str, Any]] = []
    try:
        check_distinct((out, "--out"), (log_path, "--log"))  # first: --force cannot help
        for path, flag in ((out, "--out"), (log_path, "--log")):
            if path is not None:
                check_output(path, force=args.force, flag=flag)
        torch.set_num_threads(1)

        def write_log() -> None:
            if log_path is not None:
                lines = [json.dumps({"settings": asdict(settings)})]
                lines += [json.dumps(r) for r in records]
                write_atomic(log_path, ("\n".join(lines) + "\n").encode())

        def log(record: dict[str, Any]) -> None:
            records.append(record)
            print(
                f"steps {record['steps']:>8}  vs {record['opponent']:<16} "
                f"win {record['win_rate']:6.1%}  margin {record['margin']:+7.1f}",
                flush=True,
            )
            write_log()

        write_log()  # the settings at once: a run with no evaluation still has its log

        def checkpoint(policy: MlpPolicy, steps: int) -> None:
            if out is not None:
                save_policy(out, policy.layers, trained_steps=steps, **asdict(settings))

        start = time.process_time()
        trainer = make(log, checkpoint)
        checkpoint(trainer.run(), trainer.steps)
        print(f"{trainer.steps} steps in {time.process_time() - start:.0f} CPU s", flush=True)
    except (MarjoletError, OutputError) as exc:
        print(f"{prog}: error: {exc}", file=sys.stderr)
        return 2
    except (MemoryError, RuntimeError) as exc:
        if not (isinstance(exc, MemoryError) or "allocate" in str(exc)):
            raise
        print(f"{prog}: error: {out_of_memory(exc)}", file=sys.stderr)
        return 2
    return 0


def out_of_memory(exc: BaseException) -> str:
    """One line for an allocation that failed (PyTorch's message is a paragraph)."""
    asked = re.search(r"allocate (\d+) bytes", str(exc))
    size = f" (it asked for {int(asked.group(1)):,} bytes)" if asked else ""
    return (
        f"not enough memory for this run{size}: make --hidden, --num-envs or --rollout smaller"
    )


def main(argv: Sequence[str] | None = None) -> int:
    s, args = parse_args(argv)
    return run_logged(s, args, lambda log, checkpoint: Trainer(s, log, checkpoint))


if __name__ == "__main__":
    sys.exit(main())
