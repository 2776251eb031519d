"""Game analysis: the points lost on every decision of a record
(``marjolet review``, docs/review.md).

Measurement layer: it uses the bots (the ending solver, the sampled-world
search, the ``best`` bot when installed) and is never imported by the core.
"""

from __future__ import annotations

from collections.abc import Sequence

from marjolet.analysis.estimators import (
    BestEstimator,
    Estimates,
    Estimator,
    SamplingEstimator,
    default_estimator,
)
from marjolet.analysis.report import Review, annotate, format_review
from marjolet.analysis.review import (
    DEFAULT_BUDGET,
    Decision,
    ProgressHook,
    Reviewer,
    review_decisions,
)
from marjolet.analysis.summary import PlayerSummary, judgement, summarise
from marjolet.record import Record


def review_record(
    record: Record,
    *,
    budget: float = DEFAULT_BUDGET,
    seats: Sequence[int] = (0, 1),
    deals: Sequence[int] | None = None,
    view: str = "seat",
    estimator: Estimator | None = None,
    progress: ProgressHook | None = None,
) -> Review:
    """Review ``record`` (see :mod:`marjolet.analysis.review`): every
    decision of ``seats`` in ``deals`` (default all), phase 1 judged from
    the deciding seat's view (``view="seat"``) or with every card known
    (``view="open"``), ``budget`` seconds per estimated decision."""
    est = estimator if estimator is not None else default_estimator(budget)
    reviewer = Reviewer(view=view, estimator=est, budget=budget)
    decisions = review_decisions(
        record, seats=seats, deals=deals, reviewer=reviewer, progress=progress
    )
    name = est.name if view == "seat" else "open"
    return Review(tuple(decisions), tuple(seats), view, budget, name)


__all__ = [
    "DEFAULT_BUDGET",
    "BestEstimator",
    "Decision",
    "Estimates",
    "Estimator",
    "PlayerSummary",
    "Review",
    "Reviewer",
    "SamplingEstimator",
    "annotate",
    "default_estimator",
    "format_review",
    "judgement",
    "review_decisions",
    "review_record",
    "summarise",
]
