"""Phase-1 estimators: the value of every legal action from one seat's
observation (R23), with a standard error.

An :class:`Estimator` gets an :class:`~marjolet.observation.Observation`
and the legal actions and returns an :class:`Estimates`: for each action
the mean final deal-score difference (the deciding seat minus its opponent,
points already scored included) and the standard error of that mean. Two
implementations, both scoring every action on the *same* sampled worlds
and keeping each world's values, so that the difference between two
actions has a *paired* standard error, much smaller than either value's:

* :class:`SamplingEstimator` (``pimc``-style): deals worlds consistent with
  the observation (:func:`~marjolet.observation.sample_world`) and scores
  them with the search bots' :class:`~marjolet.bots.search.WorldEvaluator`.
* :class:`BestEstimator`: the ``best`` bot's worlds and scoring, one world
  at a time (``BestBot.world_values``). An object with only
  ``estimate(obs, legal) -> {action: (mean, stderr)}`` is used as it is,
  without per-world values: a difference's standard error is then the
  conservative ``sqrt(se_a**2 + se_b**2)``.

How many worlds (:func:`collect`): at least :data:`MIN_WORLDS` whatever
the budget; then until the budget is spent; then, while the mark of the
decision is not settled (:func:`marjolet.analysis.marks.settled`), on up
to :data:`EXTEND` times the budget. A ``worlds=`` count replaces all of
this with exactly that many worlds (reproducible under a seed).

:func:`default_estimator` picks ``best`` when ``marjolet.bots.best`` can be
imported, else the sampling estimator.

Near the end of a match (:func:`marjolet.analysis.match_chance.near_end`)
:class:`BestEstimator` also gives each action's chance of winning the
match, on the same worlds (``Estimates.match``: the mean over worlds of the
match table's value of each world's final deal points, with its standard
error: ``BestBot.world_chances``, the kernel's per-world utilities, or their
pure-Python twin). Where the bot plays for the match (``Estimates.by_chance``)
the mark is decided by the chance lost, so the worlds go on while *that*
mark is unsettled. The sampling estimator gives deal points only.
"""

from __future__ import annotations

import importlib
import importlib.util
import math
import random
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from marjolet.analysis.marks import CHANCE, MIN_WORLDS, POINTS, Scale, settled
from marjolet.analysis.match_chance import near_end
from marjolet.bots.search import CLOCKS, WorldEvaluator
from marjolet.observation import Observation, sample_world

#: An estimate whose mark is not settled when its budget is spent may go on
#: up to this many times the budget.
EXTEND = 3.0
#: The settled test runs each time the worlds grow by this factor.
CHECK_GROWTH = 1.25
#: The exact horizon of the review's ``best`` (phase-1 tricks left): the
#: same at every budget, and cheap (about 0.15 ms a world from trick 9), so
#: that tricks 8 and 9 get as many worlds as trick 7 (docs/review.md).
REVIEW_EXACT = 2
#: The playouts of the review's ``best``: the bot's own (the tuned policy,
#: docs/bots.md), so the review values a world as the bot plays it; the
#: marks' stability was measured with them (docs/review.md, *Stability*).
REVIEW_EVAL = "tuned"
#: The inference of the review's ``best`` (its ``infer``): the 0.3 its
#: marks' stability was measured with (docs/review.md); the bot's own
#: default became 0.1 afterwards and the review has not been measured
#: with it.
REVIEW_INFER = 0.3

#: Each action's values, one per world, in the same world order for all.
Samples = Mapping[int, Sequence[float]]
#: One world: each action's deal value and, when asked, its chance of
#: winning the match.
World = tuple[Mapping[int, float], Mapping[int, float] | None]


@dataclass(frozen=True, slots=True)
class Estimates:
    """Estimated action values of one decision.

    ``values[a] = (mean, stderr)``. ``samples`` (optional) holds each
    action's per-world values, in the same world order for every action,
    which gives paired standard errors of differences. ``worlds``: how many
    worlds the figures come from (``None`` when unknown). ``match``: near
    the end of a match, each action's chance of winning it (0-1) on the same
    worlds, as an ``Estimates`` of its own; ``by_chance``: whether the mark
    is decided by that chance (the bot plays for the match there).
    """

    values: Mapping[int, tuple[float, float]]
    samples: Samples = field(default_factory=dict)
    method: str = "sampling"
    worlds: int | None = None
    match: Estimates | None = None
    by_chance: bool = False

    @classmethod
    def from_samples(
        cls,
        samples: Samples,
        method: str,
        *,
        match: Estimates | None = None,
        by_chance: bool = False,
    ) -> Estimates:
        values = {a: (math.fsum(xs) / len(xs), standard_error(xs)) for a, xs in samples.items()}
        worlds = min(len(xs) for xs in samples.values())
        return cls(values, samples, method, worlds, match, by_chance and match is not None)

    def mean(self, action: int) -> float:
        return self.values[action][0]

    def stderr(self, action: int) -> float:
        return self.values[action][1]

    def difference_stderr(self, a: int, b: int) -> float:
        """Standard error of ``mean(a) - mean(b)``: paired over common worlds
        when the samples are known, else the conservative sum of variances."""
        if a == b:
            return 0.0
        paired = difference_stderr(self.samples, a, b)
        return math.hypot(self.stderr(a), self.stderr(b)) if paired is None else paired


class Estimator(Protocol):
    """What the review needs for a phase-1 decision. An estimator may also
    take ``played=`` (the action played: :func:`collect` then settles that
    action's mark rather than every action's); see :func:`estimate_played`."""

    #: A short name for reports (``"sampling"``, ``"best"``).
    name: str

    def estimate(self, obs: Observation, legal: Sequence[int]) -> Estimates: ...


def estimate_played(
    estimator: Estimator, obs: Observation, legal: Sequence[int], played: int
) -> Estimates:
    """``estimator``'s estimates, told the action played when it takes it."""
    if getattr(estimator, "takes_played", False):
        return estimator.estimate(obs, legal, played=played)  # type: ignore[call-arg]
    return estimator.estimate(obs, legal)


def standard_error(xs: Sequence[float]) -> float:
    """The standard error of the mean of ``xs`` (0 for fewer than two)."""
    n = len(xs)
    if n < 2:
        return 0.0
    mean = math.fsum(xs) / n
    var = math.fsum((x - mean) ** 2 for x in xs) / (n - 1)
    return math.sqrt(var / n)


def difference_stderr(samples: Samples, a: int, b: int) -> float | None:
    """The paired standard error of ``mean(a) - mean(b)`` over common
    worlds, or ``None`` without (two or more) common worlds."""
    sa, sb = samples.get(a), samples.get(b)
    if sa is None or sb is None or len(sa) != len(sb) or len(sa) < 2:
        return None
    return standard_error([x - y for x, y in zip(sa, sb, strict=True)])


def marks_settled(samples: Samples, played: int | None, scale: Scale = POINTS) -> bool:
    """Whether the mark of ``played`` (or, unknown, of every action) is
    settled by these worlds (:func:`marjolet.analysis.marks.settled`), the
    losses measured on ``scale``."""
    means = {a: math.fsum(xs) / len(xs) for a, xs in samples.items()}
    top = max(means, key=lambda a: means[a])
    for p in means if played is None else (played,):
        se = difference_stderr(samples, top, p) if p != top else 0.0
        loss = means[top] - means[p]
        if not settled(loss, se if se is not None else 0.0, len(means), scale):
            return False
    return True


def collect(
    worlds: Iterator[Mapping[int, float]],
    legal: Sequence[int],
    *,
    budget: float,
    clock: str | Callable[[], float] = "wall",
    count: int | None = None,
    played: int | None = None,
    max_worlds: int = 200_000,
) -> dict[int, list[float]]:
    """Each legal action's values over the worlds drawn from ``worlds``, as
    many as the module docstring says (``count`` worlds exactly if given);
    ``clock``: ``wall``, ``cpu`` or a function giving seconds."""
    both = ((values, None) for values in worlds)
    return collect_chances(
        both,
        legal,
        budget=budget,
        clock=clock,
        count=count,
        played=played,
        max_worlds=max_worlds,
    )[0]


def collect_chances(
    worlds: Iterator[World],
    legal: Sequence[int],
    *,
    budget: float,
    clock: str | Callable[[], float] = "wall",
    count: int | None = None,
    played: int | None = None,
    max_worlds: int = 200_000,
    by_chance: bool = False,
) -> tuple[dict[int, list[float]], dict[int, list[float]] | None]:
    """As :func:`collect`, from worlds that may also give each action's
    chance of winning the match: (values, chances, or ``None`` when no world
    gave them). With ``by_chance`` the worlds go on while the mark by the
    chance lost (:data:`~marjolet.analysis.marks.CHANCE`) is unsettled,
    rather than the mark by points."""
    samples: dict[int, list[float]] = {a: [] for a in legal}
    chances: dict[int, list[float]] = {a: [] for a in legal}
    tick = CLOCKS[clock] if isinstance(clock, str) else clock
    start = tick()
    check_at = MIN_WORLDS
    limit = count if count is not None else max_worlds
    judged, scale = (chances, CHANCE) if by_chance else (samples, POINTS)
    n = 0
    for n, (values, odds) in enumerate(worlds, 1):
        for a in legal:
            samples[a].append(values[a])
            if odds is not None:
                chances[a].append(odds[a])
        if n >= limit:
            break
        if count is not None or n < MIN_WORLDS:
            continue
        spent = tick() - start
        if spent < budget:
            continue
        if spent >= EXTEND * budget:
            break
        if n >= check_at:
            if marks_settled(judged, played, scale):
                break
            check_at = int(n * CHECK_GROWTH) + 1
    complete = n > 0 and all(len(xs) == n for xs in chances.values())
    return samples, chances if complete else None


class SamplingEstimator:
    """``pimc``-style estimates: common sampled worlds for every action.

    ``budget`` is the time in seconds a decision gets (``clock`` ``wall``
    or ``cpu``), spent as :func:`collect` says (exactly :data:`MIN_WORLDS`
    worlds with a budget of 0, ``worlds`` worlds if given). ``exact`` is the
    evaluator's number of last phase-1 tricks solved exactly in each world.
    ``seed`` makes the worlds of a decision reproducible with a world count.
    """

    name = "sampling"
    takes_played = True

    def __init__(
        self,
        budget: float,
        *,
        seed: int = 0,
        worlds: int | None = None,
        exact: int = 1,
        clock: str = "wall",
    ) -> None:
        if worlds is not None and worlds < 2:
            raise ValueError(f"worlds must be at least 2, got {worlds}")
        self.budget = budget
        self.seed = seed
        self.worlds = worlds
        self.clock = clock
        self.evaluator = WorldEvaluator(exact)

    def estimate(
        self, obs: Observation, legal: Sequence[int], played: int | None = None
    ) -> Estimates:
        rng = random.Random(f"review/{self.seed}/{obs.deal_index}/{len(obs.actions)}")
        self.evaluator.reset_tables()
        samples = collect(
            self._worlds(obs, legal, rng),
            legal,
            budget=self.budget,
            clock=self.clock,
            count=self.worlds,
            played=played,
        )
        return Estimates.from_samples(samples, self.name)

    def _worlds(
        self, obs: Observation, legal: Sequence[int], rng: random.Random
    ) -> Iterator[dict[int, float]]:
        value = self.evaluator.value
        while True:
            world = sample_world(obs, rng)
            values = {}
            for a in legal:
                world.push(a)
                values[a] = float(value(world, obs.seat))
                world.pop()
            yield values


class BestEstimator:
    """The ``best`` bot's estimates: its worlds one at a time
    (``world_values``) when it has them, spent as :func:`collect` says;
    otherwise its ``estimate(obs, legal) -> {action: (mean, stderr)}`` as
    it is (any object with that method)."""

    name = "best"
    takes_played = True

    def __init__(
        self,
        bot: object,
        *,
        budget: float = 0.0,
        worlds: int | None = None,
        clock: str = "wall",
    ) -> None:
        if worlds is not None and worlds < 2:
            raise ValueError(f"worlds must be at least 2, got {worlds}")
        self.bot = bot
        self.budget = budget
        self.worlds = worlds
        self.clock = clock

    def estimate(
        self, obs: Observation, legal: Sequence[int], played: int | None = None
    ) -> Estimates:
        source = getattr(self.bot, "world_values", None)
        if source is None:
            return self._plain_estimate(obs, legal)
        chances = getattr(self.bot, "world_chances", None)
        if chances is not None and near_end(obs):
            return self._chance_estimate(obs, legal, played)
        samples = collect(
            source(obs, list(legal)),
            legal,
            budget=self.budget,
            clock=self.clock,
            count=self.worlds,
            played=played,
        )
        return Estimates.from_samples(samples, self.name)

    def _chance_estimate(
        self, obs: Observation, legal: Sequence[int], played: int | None
    ) -> Estimates:
        """Deal values and chances of winning the match on the same worlds;
        the mark by the chance where the bot plays for the match."""
        plays_for_match = getattr(self.bot, "plays_for_match", None)
        by_chance = bool(plays_for_match(obs)) if plays_for_match is not None else False
        samples, chances = collect_chances(
            self.bot.world_chances(obs, list(legal)),  # type: ignore[attr-defined]
            legal,
            budget=self.budget,
            clock=self.clock,
            count=self.worlds,
            played=played,
            by_chance=by_chance,
        )
        match = None if chances is None else Estimates.from_samples(chances, self.name)
        return Estimates.from_samples(samples, self.name, match=match, by_chance=by_chance)

    def _plain_estimate(self, obs: Observation, legal: Sequence[int]) -> Estimates:
        raw = self.bot.estimate(obs, list(legal))  # type: ignore[attr-defined]
        values = {int(a): (float(m), float(se)) for a, (m, se) in raw.items()}
        missing = [a for a in legal if a not in values]
        if missing:
            raise RuntimeError(f"best estimator gave no value for actions {missing}")
        worlds = getattr(self.bot, "last_worlds", None)
        return Estimates(values, {}, self.name, worlds if isinstance(worlds, int) else None)


def best_available() -> bool:
    """Whether the ``best`` bot (``marjolet.bots.best``) is installed."""
    try:
        return importlib.util.find_spec("marjolet.bots.best") is not None
    except (ImportError, ValueError):
        return False


def make_best_estimator(
    budget: float, *, seed: int = 0, worlds: int | None = None, exact: int = REVIEW_EXACT
) -> BestEstimator:
    """The ``best`` bot (exact horizon ``exact`` when it takes one) with
    ``budget`` seconds a decision, or ``worlds`` worlds, as an estimator."""
    module = importlib.import_module("marjolet.bots.best")
    cls = module.BestBot
    names = {p.name for p in getattr(cls, "params", ())}
    options: dict[str, object] = {}
    if "time" in names:  # only for a bot without world_values
        # time=0 means "no limit" to the search bots: the review's 0 means "least work"
        options["time"] = max(budget, 0.001)
    if "exact" in names:
        options["exact"] = exact
    if "eval" in names:
        options["eval"] = REVIEW_EVAL
    if "infer" in names:
        options["infer"] = REVIEW_INFER
    return BestEstimator(cls(seed=seed, **options), budget=budget, worlds=worlds)


def default_estimator(
    budget: float, *, seed: int = 0, kind: str = "auto", worlds: int | None = None
) -> Estimator:
    """``kind``: ``auto`` (``best`` if importable, else sampling),
    ``best`` or ``sampling``; ``worlds``: that many worlds a decision
    instead of a time budget."""
    if kind == "best" or (kind == "auto" and best_available()):
        return make_best_estimator(budget, seed=seed, worlds=worlds)
    if kind not in ("auto", "sampling"):
        raise ValueError(f"unknown estimator {kind!r} (auto, best, sampling)")
    return SamplingEstimator(budget, seed=seed, worlds=worlds)
