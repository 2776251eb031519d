"""Game review: the points lost on every decision of a record.

A *decision* is an action chosen among two or more legal actions (meld
window actions included). For each one :func:`review_record` gives the
seat, the action played, the best action(s), their values and the loss.
A value is the final deal-score difference, the deciding seat minus its
opponent, counting the points already earned in the deal (as ``marjolet
solve`` defines it); ``loss = value_best - value_played``, never negative.

Where the figures come from (``Decision.view``):

* ``ending``: the stock is empty, both hands are known to both players
  (R23): exact values from the ending solver; ``best`` holds every optimal
  action and the loss is an exact integer. The same in either view.
* ``seat``: a phase-1 decision judged from the deciding seat's observation
  only (R23): estimates with standard errors from an
  :class:`~marjolet.analysis.estimators.Estimator`.
* ``open``: a phase-1 decision judged with every card known (the true
  deal): exact late in phase 1, a single search of the true deal earlier
  (see :mod:`marjolet.analysis.open_view`).

Near the end of a match a seat-view decision also carries
``Decision.match`` (:class:`MatchChance`): each action's chance of winning
the match, the chance lost by the action played and whether the decision's
mark comes from it (:mod:`marjolet.analysis.match_chance`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from marjolet.actions import ACTION_NAMES, parse_action
from marjolet.analysis.estimators import (
    Estimates,
    Estimator,
    default_estimator,
    estimate_played,
)
from marjolet.analysis.marks import MARK_NAMES
from marjolet.analysis.open_view import (
    OPEN_EXACT_TRICKS,
    OpenSearch,
    playout_values,
)
from marjolet.bots.heuristic import public_deal
from marjolet.bots.search import WorldEvaluator
from marjolet.bots.solver import EndingSolver
from marjolet.engine import Deal
from marjolet.errors import MarjoletError
from marjolet.history import phase1_tricks_left
from marjolet.match import Match
from marjolet.observation import observe
from marjolet.record import Record, to_match

#: Seconds of search a phase-1 decision gets by default: a whole match to
#: 500 is reviewed in about a minute on one core
#: (``benchmarks/bench_review.py``).
DEFAULT_BUDGET = 0.3

SEAT, OPEN, ENDING = "seat", "open", "ending"

#: Called after each decision with (decisions done, decisions in all).
ProgressHook = Callable[[int, int], None]


@dataclass(frozen=True, slots=True)
class MatchChance:
    """Near the end of a match: the chance of winning the match (0-1) that
    each legal action leaves, estimated on the decision's worlds."""

    #: every legal action's chance
    values: Mapping[int, float]
    #: the action(s) with the highest chance
    best: tuple[int, ...]
    #: the chance with the action played, and with the best action
    played: float
    top: float
    #: ``top - played``, never negative, and its (paired) standard error
    loss: float
    stderr_loss: float
    #: whether the decision's mark is given by ``loss`` (the ``best`` bot
    #: plays for the match here), else by the points lost
    decides: bool

    @classmethod
    def from_estimates(cls, est: Estimates, played: int, decides: bool) -> MatchChance:
        values = {a: est.mean(a) for a in est.values}
        top = max(values.values())
        best = tuple(a for a in values if values[a] == top)
        first = played if played in best else best[0]
        return cls(
            values=values,
            best=best,
            played=values[played],
            top=top,
            loss=max(0.0, top - values[played]),
            stderr_loss=est.difference_stderr(first, played),
            decides=decides,
        )

    def to_json(self) -> dict[str, Any]:
        def r(x: float) -> float:
            return round(x, 4)

        return {
            "chance_played": r(self.played),
            "chance_best": r(self.top),
            "loss": r(self.loss),
            "stderr": r(self.stderr_loss),
            "best": [ACTION_NAMES[a] for a in self.best],
            "chances": {ACTION_NAMES[a]: r(v) for a, v in self.values.items()},
            "decides_mark": self.decides,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> MatchChance:
        """The chance as :meth:`to_json` wrote it (its figures rounded)."""
        return cls(
            values=_action_figures(data["chances"]),
            best=_actions(data["best"]),
            played=float(data["chance_played"]),
            top=float(data["chance_best"]),
            loss=float(data["loss"]),
            stderr_loss=float(data["stderr"]),
            decides=bool(data["decides_mark"]),
        )


@dataclass(frozen=True, slots=True)
class StoredMark:
    """The mark a stored review gave a decision: ``"inaccuracy"``,
    ``"mistake"``, ``"blunder"``, or ``None`` (no mark)."""

    judgement: str | None


@dataclass(frozen=True, slots=True)
class Decision:
    """One decision of a record and how good it was."""

    deal: int
    #: index of the action in its deal (record.md's error positions)
    action: int
    seat: int
    #: the trick being played (1-16); a window counts with its trick
    trick: int
    played: int
    #: the best action(s): every optimal one when exact, else the best estimate
    best: tuple[int, ...]
    value_played: float
    value_best: float
    loss: float
    exact: bool
    view: str
    #: ``solver``, ``alpha-beta``, ``playout`` or the estimator's name
    method: str
    #: every legal action's value
    values: Mapping[int, float] = field(default_factory=dict)
    #: standard errors of estimates (``None`` when exact or deterministic)
    stderr_played: float | None = None
    stderr_best: float | None = None
    stderr_loss: float | None = None
    #: how many sampled worlds an estimate comes from (``None``: exact, or unknown)
    worlds: int | None = None
    #: near the end of a match: the chance of winning it (seat view, ``best``)
    match: MatchChance | None = None
    #: the mark the review gave, when read back from a stored review
    #: (:meth:`from_json`; ``None``: work it out from the figures). The
    #: figures are stored rounded, and rounded figures could give another
    #: mark at a threshold (:func:`marjolet.analysis.summary.judgement`).
    stored_mark: StoredMark | None = None

    def to_json(self) -> dict[str, Any]:
        def num(x: float) -> float | int:
            return int(x) if self.exact or float(x).is_integer() else round(x, 2)

        out: dict[str, Any] = {
            "deal": self.deal,
            "action": self.action,
            "seat": self.seat,
            "trick": self.trick,
            "played": ACTION_NAMES[self.played],
            "best": [ACTION_NAMES[a] for a in self.best],
            "value_played": num(self.value_played),
            "value_best": num(self.value_best),
            "loss": num(self.loss),
            "exact": self.exact,
            "view": self.view,
            "method": self.method,
            "values": {ACTION_NAMES[a]: num(v) for a, v in self.values.items()},
        }
        if self.stderr_loss is not None:
            out["stderr"] = {
                "played": round(self.stderr_played or 0.0, 2),
                "best": round(self.stderr_best or 0.0, 2),
                "loss": round(self.stderr_loss, 2),
            }
        if self.worlds is not None:
            out["worlds"] = self.worlds
        if self.match is not None:
            out["match"] = self.match.to_json()
        if self.stored_mark is not None:
            out["judgement"] = self.stored_mark.judgement
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Decision:
        """The decision as :meth:`to_json` wrote it (a stored review: its
        estimates rounded to two decimals), with the mark the review gave it
        where it was stored (``judgement``, as :class:`~marjolet.analysis.Review`
        writes it), else worked out again from the figures; keys it does not
        know are left."""
        stderr_played, stderr_best, stderr_loss = _stderrs(data.get("stderr"))
        match = data.get("match")
        return cls(
            deal=int(data["deal"]),
            action=int(data["action"]),
            seat=int(data["seat"]),
            trick=int(data["trick"]),
            played=parse_action(data["played"]),
            best=_actions(data["best"]),
            value_played=float(data["value_played"]),
            value_best=float(data["value_best"]),
            loss=float(data["loss"]),
            exact=bool(data["exact"]),
            view=str(data["view"]),
            method=str(data["method"]),
            values=_action_figures(data["values"]),
            stderr_played=stderr_played,
            stderr_best=stderr_best,
            stderr_loss=stderr_loss,
            worlds=None if data.get("worlds") is None else int(data["worlds"]),
            match=None if match is None else MatchChance.from_json(match),
            stored_mark=_stored_mark(data),
        )


def _actions(names: Sequence[str]) -> tuple[int, ...]:
    """The action ids a stored review names (its ``best``)."""
    return tuple(parse_action(a) for a in names)


def _action_figures(figures: Mapping[str, Any]) -> dict[int, float]:
    """A stored review's figure for each action (its ``values``, its
    ``chances``), keyed by action id."""
    return {parse_action(a): float(v) for a, v in figures.items()}


def _stderrs(
    stderr: Mapping[str, Any] | None,
) -> tuple[float | None, float | None, float | None]:
    """A stored decision's standard errors (played, best, loss), or three
    ``None`` where it has none (exact or deterministic figures)."""
    if stderr is None:
        return None, None, None
    return float(stderr["played"]), float(stderr["best"]), float(stderr["loss"])


def _stored_mark(data: Mapping[str, Any]) -> StoredMark | None:
    """The mark a stored decision carries (``None``: it carries none, and
    its mark is worked out again from its figures)."""
    if "judgement" not in data:
        return None
    mark = data["judgement"]
    if mark is not None and mark not in MARK_NAMES:
        raise MarjoletError(
            f"stored decision (deal {data['deal']}, action {data['action']}): judgement must be "
            f"{', '.join(MARK_NAMES)} or null, got {mark!r}"
        )
    return StoredMark(mark)


@dataclass(frozen=True, slots=True)
class DecisionPoint:
    """A position where a seat had a choice, before the action was played."""

    deal_index: int
    action_index: int
    deal: Deal
    match: Match
    legal: tuple[int, ...]
    played: int


def decision_points(
    match: Match, record: Record, deals: Sequence[int] | None = None
) -> Iterator[DecisionPoint]:
    """Replay ``record`` into the empty ``match`` and yield every decision
    (two or more legal actions) before it is played."""
    wanted = None if deals is None else set(deals)
    for d, deal_record in enumerate(record.deals):
        deal = match.start_deal(deal_record.deck)
        for a, action in enumerate(deal_record.actions):
            legal = deal.legal_actions()
            if len(legal) >= 2 and (wanted is None or d in wanted):
                yield DecisionPoint(d, a, deal, match, tuple(legal), action)
            match.play(action)


def count_decisions(record: Record, seats: Sequence[int], deals: Sequence[int] | None) -> int:
    match = Match(record.rules, first_dealer=record.first_dealer, players=record.players)
    return sum(1 for p in decision_points(match, record, deals) if p.deal.to_move in seats)


class Reviewer:
    """Judges decision points: exact endings, phase 1 by ``view``."""

    def __init__(
        self,
        *,
        view: str = SEAT,
        estimator: Estimator | None = None,
        budget: float = DEFAULT_BUDGET,
        open_exact: int = OPEN_EXACT_TRICKS,
    ) -> None:
        if view not in (SEAT, OPEN):
            raise ValueError(f"unknown view {view!r} (seat or open)")
        self.view = view
        self.budget = budget
        self._estimator = estimator
        self.open_exact = open_exact
        self._ending: EndingSolver | None = None
        self._evaluator = WorldEvaluator(1)
        #: the open search of the deal under review (its table serves every
        #: decision of that deal: the true deal does not change)
        self._open: tuple[Deal, OpenSearch] | None = None

    @property
    def estimator(self) -> Estimator:
        if self._estimator is None:
            self._estimator = default_estimator(self.budget)
        return self._estimator

    def judge(self, point: DecisionPoint) -> Decision:
        deal = point.deal
        if deal.stock_empty:
            return self._ending_decision(point)
        if self.view == OPEN:
            return self._open_decision(point)
        return self._seat_decision(point)

    def _ending_decision(self, point: DecisionPoint) -> Decision:
        seat = point.deal.to_move
        obs = observe(point.deal, seat, deal_index=point.deal_index)
        position = public_deal(obs)  # the stock is empty: both hands are public (R23)
        solver = self._ending
        if solver is None or not solver.matches(position) or len(solver.table) > 400_000:
            solver = self._ending = EndingSolver.for_deal(position)
        values = solver.exact_values(position)
        return _exact_decision(point, values, ENDING, "solver")

    def _open_decision(self, point: DecisionPoint) -> Decision:
        world = point.deal.copy(stack=False)  # the true deal: every card known
        if phase1_tricks_left(world) <= self.open_exact:
            if self._open is None or self._open[0] is not point.deal:
                self._open = (point.deal, OpenSearch(self._evaluator))
            values = self._open[1].action_values(world)
            return _exact_decision(point, values, OPEN, "alpha-beta")
        scored = playout_values(world, self._evaluator)
        best_value = max(scored.values())
        best = tuple(a for a in point.legal if scored[a] == best_value)
        v = scored[point.played]
        return Decision(
            **_where(point),
            best=best,
            value_played=float(v),
            value_best=float(best_value),
            loss=float(best_value - v),
            exact=False,
            view=OPEN,
            method="playout",
            values={a: float(x) for a, x in scored.items()},
        )

    def _seat_decision(self, point: DecisionPoint) -> Decision:
        seat = point.deal.to_move
        obs = observe(point.deal, seat, deal_index=point.deal_index, totals=point.match.totals)
        est = estimate_played(self.estimator, obs, point.legal, point.played)
        means = {a: est.mean(a) for a in point.legal}
        top = max(means.values())
        best = tuple(a for a in point.legal if means[a] == top)
        first = point.played if point.played in best else best[0]
        loss = max(0.0, top - means[point.played])
        return Decision(
            **_where(point),
            best=best,
            value_played=means[point.played],
            value_best=top,
            loss=loss,
            exact=False,
            view=SEAT,
            method=est.method,
            values=means,
            stderr_played=est.stderr(point.played),
            stderr_best=est.stderr(first),
            stderr_loss=est.difference_stderr(first, point.played),
            worlds=est.worlds,
            match=(
                None
                if est.match is None
                else MatchChance.from_estimates(est.match, point.played, est.by_chance)
            ),
        )


def _where(point: DecisionPoint) -> dict[str, Any]:
    return {
        "deal": point.deal_index,
        "action": point.action_index,
        "seat": point.deal.to_move,
        "trick": point.deal.trick_number,
        "played": point.played,
    }


def _exact_decision(
    point: DecisionPoint, values: Mapping[int, int], view: str, method: str
) -> Decision:
    best_value = max(values.values())
    best = tuple(a for a in point.legal if values[a] == best_value)
    v = values[point.played]
    return Decision(
        **_where(point),
        best=best,
        value_played=v,
        value_best=best_value,
        loss=best_value - v,
        exact=True,
        view=view,
        method=method,
        values={a: values[a] for a in point.legal},
    )


def review_decisions(
    record: Record,
    *,
    seats: Sequence[int] = (0, 1),
    deals: Sequence[int] | None = None,
    reviewer: Reviewer | None = None,
    progress: ProgressHook | None = None,
) -> list[Decision]:
    """Every decision of ``seats`` in ``deals`` (default: all) of a record,
    judged. The record must be legal: call :func:`marjolet.record.replay`
    (or :func:`to_match`) first; it raises the same errors as ``replay``."""
    to_match(record)  # raises RecordError exactly like `marjolet replay`
    reviewer = reviewer if reviewer is not None else Reviewer()
    total = count_decisions(record, seats, deals) if progress is not None else 0
    match = Match(record.rules, first_dealer=record.first_dealer, players=record.players)
    out: list[Decision] = []
    for point in decision_points(match, record, deals):
        if point.deal.to_move not in seats:
            continue
        out.append(reviewer.judge(point))
        if progress is not None:
            progress(len(out), total)
    return out
