"""From match outcomes to the figures of a run: per-pairing results, the
rating table and the SPRT verdict.

:func:`aggregate` is a pure function of the outcomes (it sorts them by task
coordinates first), so the figures do not depend on the order in which
workers finished, and ``marjolet arena report`` recomputes exactly what the
run printed from the rows of the database.

Definitions (from the pairing's first bot's side, "A" against "B"):

- *win rate*: matches won by A / matches played (R22 always decides a match,
  so there are no draws);
- *deal-point margin* (``margin``): the mean over every deal played of
  A's deal score minus B's (R21), interval by pairs (cluster-robust);
  ``None`` when no deal was finished;
- *match margin* (``match_margin``): the mean over matches of A's final
  total minus B's, interval by pairs;
- *Elo*: the logistic Elo difference of A's match score, interval by pairs.

A forfeited match (see :mod:`marjolet.arena.tasks`) is a loss for the bot
that forfeited; its completed deals count in the margins, and its totals are
those of its completed deals.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from marjolet.arena import stats
from marjolet.arena.tasks import MatchOutcome

Interval = tuple[float, float]


@dataclass(frozen=True, slots=True)
class PairingResult:
    """The figures of one pairing (A against B, from A's side)."""

    bots: tuple[str, str]
    matches: int
    wins: tuple[int, int]
    win_rate: float
    win_rate_ci: Interval
    #: ``None`` when no deal was finished (every match forfeited in its first deal)
    margin: float | None
    margin_ci: Interval | None
    match_margin: float
    match_margin_ci: Interval | None
    elo: float
    elo_ci: Interval | None
    #: Complete duplicate pairs: (lost 0-2, split 1-1, won 2-0) from A's side.
    pairs: tuple[int, int, int]
    deals: int
    #: Matches forfeited by A and by B (a ``BotFault``: lost, counted in the
    #: win rate and Elo; only their completed deals count in the margins).
    forfeits: tuple[int, int] = (0, 0)
    #: Why A and B forfeited, each the first of its forfeits in match order
    #: (the bot's words: "exited with status 1; its standard error ends:
    #: ..."), ``None`` for a bot that never forfeited.
    forfeit_reasons: tuple[str | None, str | None] = (None, None)

    def to_json(self) -> dict[str, Any]:
        return {
            "bots": list(self.bots),
            "matches": self.matches,
            "wins": list(self.wins),
            "win_rate": json_number(self.win_rate, 4),
            "win_rate_ci": json_interval(self.win_rate_ci, 4),
            "margin": None if self.margin is None else json_number(self.margin, 2),
            "margin_ci": json_interval(self.margin_ci, 2),
            "elo": json_number(self.elo, 1),
            "elo_ci": json_interval(self.elo_ci, 1),
            "match_margin": json_number(self.match_margin, 1),
            "match_margin_ci": json_interval(self.match_margin_ci, 1),
            "pairs": {"lost": self.pairs[0], "split": self.pairs[1], "won": self.pairs[2]},
            "deals": self.deals,
            "forfeits": list(self.forfeits),
            "forfeit_reasons": list(self.forfeit_reasons),
        }


@dataclass(frozen=True, slots=True)
class Rating:
    """One row of the rating table."""

    bot: str
    elo: float
    #: 95% interval of the difference to the anchor (``None`` for the anchor).
    elo_ci: Interval | None
    matches: int
    #: Fraction of its matches the bot won.
    score: float
    anchor: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            "elo": json_number(self.elo, 1),
            "elo_ci": json_interval(self.elo_ci, 1),
            "matches": self.matches,
            "score": json_number(self.score, 4),
            "anchor": self.anchor,
        }


@dataclass(frozen=True, slots=True)
class SprtResult:
    """State of a sequential probability ratio test."""

    elo0: float
    elo1: float
    alpha: float
    beta: float
    llr: float
    lower: float
    upper: float
    #: ``"H1"`` (the first bot is at least ``elo1`` better), ``"H0"`` (at
    #: most ``elo0``) or ``None`` (undecided: the match budget ran out or
    #: the run was interrupted).
    decision: str | None
    #: Complete pairs the decision is based on.
    pairs: int

    def to_json(self) -> dict[str, Any]:
        return {
            "elo0": self.elo0,
            "elo1": self.elo1,
            "alpha": self.alpha,
            "beta": self.beta,
            "llr": json_number(self.llr, 3),
            "bounds": [json_number(self.lower, 3), json_number(self.upper, 3)],
            "decision": self.decision,
            "pairs": self.pairs,
        }

    def describe(self) -> str:
        verdict = {
            "H1": f"H1 accepted: Elo >= {self.elo1:g}",
            "H0": f"H0 accepted: Elo <= {self.elo0:g}",
            None: "undecided",
        }[self.decision]
        return (
            f"SPRT Elo {self.elo0:g} vs {self.elo1:g} (alpha {self.alpha:g}, beta {self.beta:g}): "
            f"LLR {self.llr:+.2f} (bounds {self.lower:+.2f} and {self.upper:+.2f}) "
            f"after {self.pairs} pairs, {verdict}"
        )


@dataclass(frozen=True, slots=True)
class ArenaResult:
    """Everything a run found; :meth:`to_json` is the ``--json`` output."""

    bots: tuple[str, ...]
    pairings: tuple[PairingResult, ...]
    ratings: dict[str, Rating]
    anchor: str
    sprt: SprtResult | None = None
    #: Id of the run in the database (``None`` without a database).
    run_id: int | None = None
    #: ``"done"``, ``"sprt"`` (stopped by the SPRT), ``"interrupted"``.
    status: str = "done"
    #: Matches planned for the whole run (including those not yet played).
    planned: int = 0
    seed: int = 0
    settings: dict[str, Any] = field(default_factory=dict)

    @property
    def matches(self) -> int:
        return sum(p.matches for p in self.pairings)

    def pairing(self, a: str, b: str) -> PairingResult:
        """The pairing of ``a`` and ``b`` seen from ``a``'s side."""
        for p in self.pairings:
            if p.bots == (a, b):
                return p
            if p.bots == (b, a):
                return flip(p)
        raise KeyError(f"no pairing {a!r} vs {b!r} in this run")

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "pairings": [p.to_json() for p in self.pairings],
            "ratings": {name: r.to_json() for name, r in self.ratings.items()},
            "anchor": self.anchor,
            "run": self.run_id,
            "status": self.status,
            "seed": self.seed,
            "matches": self.matches,
            "planned": self.planned,
        }
        if self.sprt is not None:
            out["sprt"] = self.sprt.to_json()
        return out


def json_number(x: float, digits: int) -> float:
    """``x`` rounded for JSON, never ``-0.0``: an even score's Elo, or a
    margin a hair below zero, is written ``0.0``."""
    return round(x, digits) + 0.0


def json_interval(pair: Interval | None, digits: int) -> list[float] | None:
    """An interval for JSON: ``None`` when unknown or unbounded (JSON has no
    infinity)."""
    if pair is None or not all(math.isfinite(x) for x in pair):
        return None
    return [json_number(pair[0], digits), json_number(pair[1], digits)]


def flip(p: PairingResult) -> PairingResult:
    """The same pairing from the second bot's side."""

    def neg(i: Interval | None) -> Interval | None:
        return None if i is None else (-i[1], -i[0])

    return PairingResult(
        bots=(p.bots[1], p.bots[0]),
        matches=p.matches,
        wins=(p.wins[1], p.wins[0]),
        win_rate=1.0 - p.win_rate,
        win_rate_ci=(1.0 - p.win_rate_ci[1], 1.0 - p.win_rate_ci[0]),
        margin=None if p.margin is None else -p.margin,
        margin_ci=neg(p.margin_ci),
        match_margin=-p.match_margin,
        match_margin_ci=neg(p.match_margin_ci),
        elo=-p.elo,
        elo_ci=neg(p.elo_ci),
        pairs=(p.pairs[2], p.pairs[1], p.pairs[0]),
        deals=p.deals,
        forfeits=(p.forfeits[1], p.forfeits[0]),
        forfeit_reasons=(p.forfeit_reasons[1], p.forfeit_reasons[0]),
    )


def pairings_of(bots: Sequence[str]) -> list[tuple[str, str]]:
    """The pairings of a round robin, in run order (i < j)."""
    return [(bots[i], bots[j]) for i in range(len(bots)) for j in range(i + 1, len(bots))]


def pairing_result(bots: tuple[str, str], outcomes: Sequence[MatchOutcome]) -> PairingResult | None:
    """The figures of one pairing from its outcomes (any order); ``None``
    when no match was played."""
    if not outcomes:
        return None
    ordered = sorted(outcomes, key=lambda o: o.key)
    n = len(ordered)
    wins_a = sum(1 for o in ordered if o.first_won)
    by_pair: dict[int, list[MatchOutcome]] = {}
    for o in ordered:
        by_pair.setdefault(o.pair, []).append(o)
    # Per-pair values (a pair with one finished game still counts as a
    # cluster of one match for the margins; only complete pairs enter the
    # pair counts and the Elo).
    deal_sums = [float(sum(sum(o.first_deal_margins) for o in group)) for group in by_pair.values()]
    deal_counts = [float(sum(len(o.deal_points) for o in group)) for group in by_pair.values()]
    match_means = [sum(o.first_margin for o in group) / len(group) for group in by_pair.values()]
    complete = [group for group in by_pair.values() if len(group) == 2]
    pair_scores = [sum(1 for o in group if o.first_won) / 2 for group in complete]
    counts = (
        sum(1 for s in pair_scores if s == 0.0),
        sum(1 for s in pair_scores if s == 0.5),
        sum(1 for s in pair_scores if s == 1.0),
    )
    margin: float | None = None
    margin_ci: Interval | None = None
    if sum(deal_counts) > 0:  # else every match was forfeited during its first deal
        margin, margin_ci = stats.ratio_interval(deal_sums, deal_counts)
    match_margin, match_margin_ci = stats.mean_interval(match_means)
    if pair_scores:
        elo, elo_ci = stats.pair_elo(pair_scores, n)
    else:
        elo, elo_ci = stats.elo_from_score(stats.clamp_score(wins_a / n, n)), None
    return PairingResult(
        bots=bots,
        matches=n,
        wins=(wins_a, n - wins_a),
        win_rate=wins_a / n,
        win_rate_ci=stats.wilson(wins_a, n),
        margin=margin,
        margin_ci=margin_ci,
        match_margin=match_margin,
        match_margin_ci=match_margin_ci,
        elo=elo,
        elo_ci=elo_ci,
        pairs=counts,
        deals=int(sum(deal_counts)),
        forfeits=(
            sum(1 for o in ordered if o.forfeit is not None and not o.first_won),
            sum(1 for o in ordered if o.forfeit is not None and o.first_won),
        ),
        forfeit_reasons=(_first_forfeit(ordered, False), _first_forfeit(ordered, True)),
    )


def _first_forfeit(ordered: Sequence[MatchOutcome], first_won: bool) -> str | None:
    """The reason of the first forfeit in ``ordered`` by the bot that lost it
    (B when ``first_won``, else A)."""
    return next(
        (o.forfeit for o in ordered if o.forfeit is not None and o.first_won == first_won), None
    )


def sprt_prefix(
    outcomes: Iterable[MatchOutcome], bounds: stats.SprtBounds
) -> tuple[SprtResult, int]:
    """Run the SPRT over the complete pairs of pairing 0 in pair order and
    stop at the first decision.

    Returns the test state and the number of pairs it used: the figures of
    the run are then computed on those pairs only, so the verdict and the
    figures do not depend on which later matches happened to finish before
    the workers were stopped.
    """
    games: dict[int, dict[int, MatchOutcome]] = {}
    for o in outcomes:
        if o.pairing == 0:
            games.setdefault(o.pair, {})[o.game] = o
    counts = [0, 0, 0]
    llr = 0.0
    used = 0
    decision: str | None = None
    k = 0
    while k in games and len(games[k]) == 2:
        score = sum(1 for o in games[k].values() if o.first_won)
        counts[score] += 1
        used = k + 1
        llr = stats.sprt_llr(counts, bounds)
        decision = bounds.decide(llr)
        if decision is not None:
            break
        k += 1
    result = SprtResult(
        bounds.elo0, bounds.elo1, bounds.alpha, bounds.beta, llr, bounds.lower, bounds.upper,
        decision, used,
    )
    return result, used


def aggregate(
    bots: Sequence[str],
    outcomes: Iterable[MatchOutcome],
    *,
    anchor: str | None = None,
    sprt: stats.SprtBounds | None = None,
    run_id: int | None = None,
    status: str = "done",
    planned: int = 0,
    seed: int = 0,
    settings: dict[str, Any] | None = None,
) -> ArenaResult:
    """The figures of a run from its outcomes (order does not matter).

    ``anchor`` is the bot rated 0: ``random`` when it plays, else the first
    bot. With ``sprt``, only the pairs up to the test's decision count.
    """
    outcomes = list(outcomes)
    sprt_result: SprtResult | None = None
    if sprt is not None:
        sprt_result, used = sprt_prefix(outcomes, sprt)
        if sprt_result.decision is not None:
            outcomes = [o for o in outcomes if o.pair < used]
    if anchor is None:
        anchor = "random" if "random" in bots else bots[0]
    pairs = pairings_of(bots)
    grouped: dict[int, list[MatchOutcome]] = {i: [] for i in range(len(pairs))}
    for o in outcomes:
        grouped[o.pairing].append(o)
    results = []
    wins: dict[tuple[str, str], int] = {}
    played: dict[str, int] = dict.fromkeys(bots, 0)
    won: dict[str, int] = dict.fromkeys(bots, 0)
    for i, pairing in enumerate(pairs):
        result = pairing_result(pairing, grouped[i])
        if result is None:
            continue
        results.append(result)
        a, b = pairing
        wins[(a, b)] = wins.get((a, b), 0) + result.wins[0]
        wins[(b, a)] = wins.get((b, a), 0) + result.wins[1]
        played[a] += result.matches
        played[b] += result.matches
        won[a] += result.wins[0]
        won[b] += result.wins[1]
    estimates = stats.bradley_terry(bots, wins, anchor)
    ratings = {
        name: Rating(
            bot=name,
            elo=estimates[name].elo,
            elo_ci=estimates[name].interval,
            matches=played[name],
            score=won[name] / played[name] if played[name] else 0.0,
            anchor=name == anchor,
        )
        for name in sorted(bots, key=lambda n: (-estimates[n].elo, bots.index(n)))
    }
    return ArenaResult(
        bots=tuple(bots),
        pairings=tuple(results),
        ratings=ratings,
        anchor=anchor,
        sprt=sprt_result,
        run_id=run_id,
        status=status,
        planned=planned,
        seed=seed,
        settings=dict(settings or {}),
    )
