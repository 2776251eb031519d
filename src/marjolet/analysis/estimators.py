"""Phase-1 estimators: the value of every legal action from one seat's
observation (R23), with a standard error.

An :class:`Estimator` gets an :class:`~marjolet.observation.Observation`
and the legal actions and returns an :class:`Estimates`: for each action
the mean final deal-score difference (the deciding seat minus its opponent,
points already scored included) and the standard error of that mean. Two
implementations:

* :class:`SamplingEstimator` (``pimc``-style): deals worlds consistent with
  the observation (:func:`~marjolet.observation.sample_world`) and scores
  every action on every world with the search bots'
  :class:`~marjolet.bots.search.WorldEvaluator`. The worlds are common to
  all actions, so the difference between two actions has a *paired*
  standard error, much smaller than either value's.
* :class:`BestEstimator`: an adapter over any object with
  ``estimate(obs, legal) -> {action: (mean, stderr)}``, the interface of
  the ``best`` bot (``marjolet.bots.best.BestBot``). It has no per-world
  samples, so a difference's standard error is the conservative
  ``sqrt(se_a**2 + se_b**2)``.

:func:`default_estimator` picks ``best`` when ``marjolet.bots.best`` can be
imported, else the sampling estimator.
"""

from __future__ import annotations

import importlib
import importlib.util
import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from marjolet.bots.search import Budget, WorldEvaluator
from marjolet.observation import Observation, sample_world

#: The fewest worlds a sampled decision gets, whatever the budget: a
#: standard error needs at least two.
MIN_WORLDS = 8


@dataclass(frozen=True, slots=True)
class Estimates:
    """Estimated action values of one decision.

    ``values[a] = (mean, stderr)``. ``samples`` (optional) holds each
    action's per-world values, in the same world order for every action,
    which gives paired standard errors of differences.
    """

    values: Mapping[int, tuple[float, float]]
    samples: Mapping[int, Sequence[float]] = field(default_factory=dict)
    method: str = "sampling"

    def mean(self, action: int) -> float:
        return self.values[action][0]

    def stderr(self, action: int) -> float:
        return self.values[action][1]

    def difference_stderr(self, a: int, b: int) -> float:
        """Standard error of ``mean(a) - mean(b)``: paired over common worlds
        when the samples are known, else the conservative sum of variances."""
        if a == b:
            return 0.0
        sa, sb = self.samples.get(a), self.samples.get(b)
        if sa is not None and sb is not None and len(sa) == len(sb) >= 2:
            return standard_error([x - y for x, y in zip(sa, sb, strict=True)])
        return math.hypot(self.stderr(a), self.stderr(b))


class Estimator(Protocol):
    """What the review needs for a phase-1 decision."""

    #: A short name for reports (``"sampling"``, ``"best"``).
    name: str

    def estimate(self, obs: Observation, legal: Sequence[int]) -> Estimates: ...


def standard_error(xs: Sequence[float]) -> float:
    """The standard error of the mean of ``xs`` (0 for fewer than two)."""
    n = len(xs)
    if n < 2:
        return 0.0
    mean = sum(xs) / n
    var = sum((x - mean) ** 2 for x in xs) / (n - 1)
    return math.sqrt(var / n)


class SamplingEstimator:
    """``pimc``-style estimates: common sampled worlds for every action.

    ``budget`` is the time in seconds a decision gets (``clock`` ``wall``
    or ``cpu``); at least :data:`MIN_WORLDS` and at most ``max_worlds``
    worlds are dealt (exactly :data:`MIN_WORLDS` with a budget of 0).
    ``exact`` is the evaluator's number of last phase-1 tricks solved
    exactly in each world. ``seed`` makes the worlds of a
    decision reproducible when combined with a world cap.
    """

    name = "sampling"

    def __init__(
        self,
        budget: float,
        *,
        seed: int = 0,
        max_worlds: int = 100_000,
        exact: int = 1,
        clock: str = "wall",
    ) -> None:
        self.budget = budget
        self.seed = seed
        self.max_worlds = max(max_worlds, MIN_WORLDS)
        self.clock = clock
        self.evaluator = WorldEvaluator(exact)

    def estimate(self, obs: Observation, legal: Sequence[int]) -> Estimates:
        rng = random.Random(f"review/{self.seed}/{obs.deal_index}/{len(obs.actions)}")
        budget = Budget(self.budget, self.clock) if self.budget > 0 else None
        samples: dict[int, list[float]] = {a: [] for a in legal}
        value = self.evaluator.value
        me = obs.seat
        self.evaluator.reset_tables()
        worlds = 0
        while worlds < self.max_worlds:
            world = sample_world(obs, rng)
            for a in legal:
                world.push(a)
                samples[a].append(float(value(world, me)))
                world.pop()
            worlds += 1
            if worlds >= MIN_WORLDS and (budget is None or budget.spent()):
                break
        values = {a: (sum(xs) / len(xs), standard_error(xs)) for a, xs in samples.items()}
        return Estimates(values, samples, self.name)


class BestEstimator:
    """Adapter over the ``best`` bot's ``estimate(obs, legal)`` (or any
    object with that method returning ``{action: (mean, stderr)}``)."""

    name = "best"

    def __init__(self, bot: object) -> None:
        self.bot = bot

    def estimate(self, obs: Observation, legal: Sequence[int]) -> Estimates:
        raw = self.bot.estimate(obs, list(legal))  # type: ignore[attr-defined]
        values = {int(a): (float(m), float(se)) for a, (m, se) in raw.items()}
        missing = [a for a in legal if a not in values]
        if missing:
            raise RuntimeError(f"best estimator gave no value for actions {missing}")
        return Estimates(values, {}, self.name)


def best_available() -> bool:
    """Whether the ``best`` bot (``marjolet.bots.best``) is installed."""
    try:
        return importlib.util.find_spec("marjolet.bots.best") is not None
    except (ImportError, ValueError):
        return False


def make_best_estimator(budget: float, *, seed: int = 0) -> BestEstimator:
    """The ``best`` bot with ``budget`` seconds a decision (when its
    parameters include ``time``), wrapped as an estimator."""
    module = importlib.import_module("marjolet.bots.best")
    cls = module.BestBot
    names = {p.name for p in getattr(cls, "params", ())}
    # time=0 means "no limit" to the search bots: the review's 0 means "least work"
    options: dict[str, object] = {"time": max(budget, 0.001)} if "time" in names else {}
    return BestEstimator(cls(seed=seed, **options))


def default_estimator(budget: float, *, seed: int = 0, kind: str = "auto") -> Estimator:
    """``kind``: ``auto`` (``best`` if importable, else sampling),
    ``best`` or ``sampling``."""
    if kind == "best" or (kind == "auto" and best_available()):
        return make_best_estimator(budget, seed=seed)
    if kind not in ("auto", "sampling"):
        raise ValueError(f"unknown estimator {kind!r} (auto, best, sampling)")
    return SamplingEstimator(budget, seed=seed)
