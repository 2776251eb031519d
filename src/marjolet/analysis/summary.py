"""Judging losses: inaccuracies, mistakes, blunders, and an accuracy figure.

The marks and their thresholds are :mod:`marjolet.analysis.marks`: an
exact loss is judged as it is; an estimated loss by its lower confidence
bound (the estimate less a few standard errors of the difference, more
with more legal actions), and only from :data:`MIN_WORLDS` worlds up.
Near the end of a match, where the ``best`` bot plays for the match
(``Decision.match.decides``), the mark is given the same way by the chance
of winning the match lost, on the :data:`~marjolet.analysis.marks.CHANCE`
scale. Figures that are neither exact nor have a standard error (the open view's
single search of the true deal early in phase 1) are shown but not judged:
no mark and not in the accuracy.

*Accuracy* is the mean over a seat's decisions of ``100 * 2**(-loss/20)``:
100 for a perfect decision, 50 for a 20-point loss, 25 for 40 points
(docs/review.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from marjolet.analysis.marks import CHANCE, MIN_WORLDS, TOLERANCE, lower_bound, mark_of
from marjolet.analysis.review import Decision
from marjolet.i18n import translate

#: The loss that halves a decision's accuracy.
HALF_ACCURACY_LOSS = 20.0


def judged_loss(d: Decision) -> float:
    """The loss the marks are given by: exact, or the estimate's lower
    confidence bound (:func:`~marjolet.analysis.marks.lower_bound`, never
    below 0)."""
    if d.exact or d.stderr_loss is None:
        return d.loss
    return max(0.0, lower_bound(d.loss, d.stderr_loss, len(d.values)))


def is_judged(d: Decision) -> bool:
    """Exact, or an estimate with a standard error."""
    return d.exact or d.stderr_loss is not None


def judged_by_chance(d: Decision) -> bool:
    """Whether ``d``'s mark is given by the chance of winning the match lost."""
    return d.match is not None and d.match.decides


def judgement(d: Decision) -> str | None:
    """``"inaccuracy"``, ``"mistake"``, ``"blunder"`` or ``None``; never a
    mark from an estimate of fewer than :data:`MIN_WORLDS` worlds. A
    decision read back from a stored review keeps the mark stored with it
    (:attr:`Decision.stored_mark`): its figures, stored rounded, could
    give another one at a threshold."""
    if d.stored_mark is not None:
        return d.stored_mark.judgement
    if not is_judged(d) or (not d.exact and d.worlds is not None and d.worlds < MIN_WORLDS):
        return None
    if d.match is not None and d.match.decides:
        bound = lower_bound(d.match.loss, d.match.stderr_loss, len(d.match.values))
        return mark_of(max(0.0, bound), CHANCE.tolerance, CHANCE.thresholds)
    return mark_of(judged_loss(d), 0.0 if d.exact or d.stderr_loss is None else TOLERANCE)


def lost_something(d: Decision) -> bool:
    """Whether the action played lost points, or near the end of a match
    chances of winning it."""
    return d.loss > 0 or (d.match is not None and d.match.loss > 0)


def decision_accuracy(loss: float) -> float:
    return float(100.0 * 2.0 ** (-loss / HALF_ACCURACY_LOSS))


@dataclass(frozen=True, slots=True)
class PlayerSummary:
    seat: int
    decisions: int
    exact_decisions: int
    exact_loss: int
    estimated_loss: float
    inaccuracies: int
    mistakes: int
    blunders: int
    accuracy: float | None

    @property
    def estimated_decisions(self) -> int:
        return self.decisions - self.exact_decisions

    @property
    def exact_mean_loss(self) -> float | None:
        return self.exact_loss / self.exact_decisions if self.exact_decisions else None

    @property
    def estimated_mean_loss(self) -> float | None:
        n = self.estimated_decisions
        return self.estimated_loss / n if n else None

    def to_json(self) -> dict[str, Any]:
        def r(x: float | None) -> float | None:
            return None if x is None else round(x, 2)

        return {
            "seat": self.seat,
            "decisions": self.decisions,
            "exact_decisions": self.exact_decisions,
            "estimated_decisions": self.estimated_decisions,
            "exact_loss": self.exact_loss,
            "exact_mean_loss": r(self.exact_mean_loss),
            "estimated_loss": round(self.estimated_loss, 2),
            "estimated_mean_loss": r(self.estimated_mean_loss),
            "inaccuracies": self.inaccuracies,
            "mistakes": self.mistakes,
            "blunders": self.blunders,
            "accuracy": r(self.accuracy),
        }


def marks_counted(p: PlayerSummary, lang: str = "en") -> tuple[str, str, str]:
    """A player's marks counted in ``lang``'s words, a singular for one
    (and for none in French): "1 inaccuracy", "0 mistakes", "2 blunders";
    the catalogues' plurals (:mod:`marjolet.i18n`), shared by the command's
    summary and the terminal's."""
    counts = {"inaccuracies": p.inaccuracies, "mistakes": p.mistakes, "blunders": p.blunders}
    texts = [translate(f"review.{kind}", lang, n=n) for kind, n in counts.items()]
    return texts[0], texts[1], texts[2]


def summarise(decisions: Sequence[Decision], seat: int) -> PlayerSummary:
    mine = [d for d in decisions if d.seat == seat]
    judged = [d for d in mine if is_judged(d)]
    exact = [d for d in mine if d.exact]
    marks = [judgement(d) for d in mine]
    return PlayerSummary(
        seat=seat,
        decisions=len(mine),
        exact_decisions=len(exact),
        exact_loss=int(sum(d.loss for d in exact)),
        estimated_loss=sum(d.loss for d in mine if not d.exact),
        inaccuracies=marks.count("inaccuracy"),
        mistakes=marks.count("mistake"),
        blunders=marks.count("blunder"),
        accuracy=(
            sum(decision_accuracy(d.loss) for d in judged) / len(judged) if judged else None
        ),
    )
