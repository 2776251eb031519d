"""When an estimated loss earns a mark: the thresholds, the cautious
(lower-bound) loss a mark is given by, and when an estimate has enough
worlds behind it that more would hardly change its mark.

All points in Marjolet come in tens, so exact losses are multiples of 10.
A decision is an *inaccuracy* from :data:`INACCURACY` points lost, a
*mistake* from :data:`MISTAKE` and a *blunder* from :data:`BLUNDER`.

An estimated loss is ``max mean - mean played`` over sampled worlds. It
is judged by a one-sided lower confidence bound: the loss less ``z``
standard errors of the difference (paired over the same worlds when the
estimator gives them), where ``z`` grows with the number of rival actions
(Bonferroni over the ``k - 1`` actions that could have been the best: the
largest of several noisy means is biased upward), so that sampling noise
alone rarely makes a mark. The bound earns a threshold's mark from
:data:`TOLERANCE` below it: a loss of exactly 20 in nearly every world
(bound 19.99) is a mistake, as its exact figure would be. An estimate from
fewer than :data:`MIN_WORLDS` worlds gets no mark at all (docs/review.md).

Near the end of a match, where the review judges a decision by the chance
of winning the match that it lost (the ``best`` bot maximises that chance
there, :mod:`marjolet.analysis.match_chance`), the same rules apply on the
:data:`CHANCE` scale: an inaccuracy from 5 percentage points of match
chance lost, a mistake from 10, a blunder from 20. At the end of a match a
point of deal margin is worth about half a percentage point of match
chance (the match table's mean slope at level totals from 350 to 450 of
500: 0.39-0.48 percentage points a point), so these are the 10, 20 and 40
points of the marks elsewhere; lichess's marks on winning chances (5, 10
and 15 points of percentage) are of the same size. Chances do not come in
steps: no tolerance.
"""

from __future__ import annotations

from dataclasses import dataclass
from statistics import NormalDist

INACCURACY = 10
MISTAKE = 20
BLUNDER = 40
THRESHOLDS = (INACCURACY, MISTAKE, BLUNDER)
#: The marks, from the smallest loss up (what :func:`mark_of` gives).
MARK_NAMES = ("inaccuracy", "mistake", "blunder")
#: How far below a threshold an estimate's lower bound still earns its mark
#: (every point comes in tens: half a point is far from any other figure).
TOLERANCE = 0.5
#: One-sided error rate of a mark's lower bound, shared among the rivals.
ALPHA = 0.025
#: The fewest worlds an estimated mark may come from (issue 25).
MIN_WORLDS = 32
#: An estimate is *settled* when its lower-bound loss lies at least this
#: many standard errors away from every threshold.
SETTLE_MARGIN = 2.5


@dataclass(frozen=True, slots=True)
class Scale:
    """What a loss is measured in: its (inaccuracy, mistake, blunder)
    thresholds and how far below one an estimate's bound still earns it."""

    thresholds: tuple[float, float, float]
    tolerance: float


#: Deal points (the default everywhere but near the end of a match).
POINTS = Scale((INACCURACY, MISTAKE, BLUNDER), TOLERANCE)
#: The chance of winning the match (0-1), near the end of a match.
CHANCE = Scale((0.05, 0.10, 0.20), 0.0)


def caution(actions: int) -> float:
    """``z``: the standard errors taken off an estimated loss among
    ``actions`` legal actions (1.96 for two, 2.39 for four, 2.69 for eight)."""
    rivals = max(1, actions - 1)
    return NormalDist().inv_cdf(1.0 - ALPHA / rivals)


def lower_bound(loss: float, stderr: float, actions: int) -> float:
    """The cautious loss, before clamping at 0: ``loss - z * stderr``."""
    return loss - caution(actions) * stderr


def mark_of(
    loss: float, tolerance: float = 0.0, thresholds: tuple[float, float, float] = THRESHOLDS
) -> str | None:
    """``"inaccuracy"``, ``"mistake"``, ``"blunder"`` or ``None`` for a loss
    (exact, or an estimate's lower bound with ``tolerance`` =
    :data:`TOLERANCE`) against ``thresholds`` (points by default)."""
    for name, threshold in reversed(list(zip(MARK_NAMES, thresholds, strict=True))):
        if loss >= threshold - tolerance:
            return name
    return None


def settled(loss: float, stderr: float, actions: int, scale: Scale = POINTS) -> bool:
    """Whether the estimate's mark is clear: its lower bound lies
    :data:`SETTLE_MARGIN` standard errors or more from every threshold of
    ``scale`` (a lower bound moves by about one standard error between two
    seeds)."""
    bound = lower_bound(loss, stderr, actions)
    return all(
        abs(bound - (t - scale.tolerance)) >= SETTLE_MARGIN * stderr for t in scale.thresholds
    )
