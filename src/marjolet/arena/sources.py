"""Where a pairing's deal-point margin comes from: the margin split by the
source of the points (R21), from the stored records of its matches.

Each finished deal of a stored match is replayed on the engine, and each
player's deal score is split into the cards won in tricks 1-10 and in
tricks 11-16, the melds, the seven of trumps, the last stock card, the last
trick and the bonus for all six last tricks (R15, R17-R19). Summed per
duplicate pair and divided by the deals played, as the deal margin is
(:func:`marjolet.arena.stats.ratio_interval`, intervals by pairs), the
sources add up exactly to the pairing's deal margin.

Duplicate play makes the split meaningful: both bots played every deck from
both seats, so a source's margin is what one bot makes of the same cards
that the other does not (``docs/arena.md``, "Where the points come from").

>>> from marjolet.arena import MatchTask, aggregate, play_task
>>> from marjolet.rules import CLASSIC
>>> bots = ("heuristic", "random")
>>> outcomes = [play_task(MatchTask(0, 0, game, bots, 1, CLASSIC)) for game in (0, 1)]
>>> split = pairing_sources(outcomes)
>>> [s.source for s in split.sources][:3]
['cards_phase1', 'cards_phase2', 'melds']
>>> margin = aggregate(bots, outcomes).pairings[0].margin
>>> abs(sum(s.margin for s in split.sources) - margin) < 1e-9
True
>>> abs(split.total.margin - margin) < 1e-9
True
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from marjolet.arena import stats
from marjolet.arena.results import ArenaResult, json_interval, json_number, pairings_of
from marjolet.arena.tasks import MatchOutcome
from marjolet.engine import Deal
from marjolet.errors import MarjoletError
from marjolet.match import dealer_of
from marjolet.record import Record, loads
from marjolet.rules import Rules

Interval = tuple[float, float]

#: The sources, in the order the report lists them: (key, words).
SOURCES: tuple[tuple[str, str], ...] = (
    ("cards_phase1", "cards won in tricks 1-10"),
    ("cards_phase2", "cards won in tricks 11-16"),
    ("melds", "melds"),
    ("seven", "seven of trumps"),
    ("last_card", "last card of the stock"),
    ("last_trick", "last trick"),
    ("all_tricks", "all six last tricks"),
)


class SourcesError(MarjoletError):
    """A stored match whose record does not replay to its stored points."""


@dataclass(frozen=True, slots=True)
class SourceMargin:
    """One source's share of the deal margin, from the pairing's first
    bot's side: points a deal and the 95% interval by pairs."""

    source: str
    words: str
    margin: float
    margin_ci: Interval | None

    def to_json(self) -> dict[str, Any]:
        return {
            "margin": json_number(self.margin, 2),
            "margin_ci": json_interval(self.margin_ci, 2),
        }


def deal_sources(
    deck: Sequence[int], dealer: int, rules: Rules, actions: Sequence[int]
) -> tuple[Deal, tuple[dict[str, int], dict[str, int]]]:
    """Play a deal's ``actions`` from its ``deck`` and split each seat's
    points by source (the keys of :data:`SOURCES`): the deal as played, and
    the split of seat 0 and of seat 1. The cards of tricks 1-10 are those
    won when the stock emptied."""
    deal = Deal(deck, dealer, rules)
    phase1: list[int] | None = None
    for action in actions:
        deal.push(action)
        if phase1 is None and deal.stock_empty:
            phase1 = [deal.breakdown(seat).cards for seat in (0, 1)]
    early = phase1 or [deal.breakdown(seat).cards for seat in (0, 1)]
    split = []
    for seat in (0, 1):
        bd = deal.breakdown(seat)
        split.append({
            "cards_phase1": early[seat],
            "cards_phase2": bd.cards - early[seat],
            "melds": bd.melds,
            "seven": bd.dix,
            "last_card": bd.last_card,
            "last_trick": bd.last_trick,
            "all_tricks": bd.all_tricks,
        })
    return deal, (split[0], split[1])


def match_sources(outcome: MatchOutcome) -> list[dict[str, int]]:
    """Per finished deal of a stored match, the pairing's first bot's points
    minus the other's, by source."""
    first = outcome.first_seat
    record = _record_of(outcome)
    margins = []
    for index, points in enumerate(outcome.deal_points):
        deal, scored = _replayed(outcome, record, index)
        if tuple(sum(s.values()) for s in scored) != tuple(points):
            raise SourcesError(
                f"{_where(outcome)}: deal {index} of its record replays to "
                f"{deal.points[0]}-{deal.points[1]}, not the stored {points[0]}-{points[1]}"
            )
        mine, theirs = scored[first], scored[1 - first]
        margins.append({key: mine[key] - theirs[key] for key, _ in SOURCES})
    return margins


@dataclass(frozen=True, slots=True)
class SourceSplit:
    """A pairing's deal margin split by source: one :class:`SourceMargin`
    per entry of :data:`SOURCES`, and their sum, the deal margin."""

    sources: tuple[SourceMargin, ...]
    total: SourceMargin

    def to_json(self) -> dict[str, Any]:
        out = {s.source: s.to_json() for s in self.sources}
        out["deal_margin"] = self.total.to_json()
        return out


def pairing_sources(outcomes: Iterable[MatchOutcome]) -> SourceSplit | None:
    """The deal margin of one pairing's matches split by source; ``None``
    when no deal was finished."""
    sums: dict[int, dict[str, float]] = {}
    counts: dict[int, float] = {}
    for outcome in sorted(outcomes, key=lambda o: o.key):
        pair = sums.setdefault(outcome.pair, dict.fromkeys((k for k, _ in SOURCES), 0.0))
        for deal in match_sources(outcome):
            for key, value in deal.items():
                pair[key] += value
        counts[outcome.pair] = counts.get(outcome.pair, 0.0) + len(outcome.deal_points)
    pairs = sorted(sums)
    denominators = [counts[p] for p in pairs]
    if not pairs or sum(denominators) <= 0:
        return None
    split = []
    for key, words in SOURCES:
        margin, ci = stats.ratio_interval([sums[p][key] for p in pairs], denominators)
        split.append(SourceMargin(key, words, margin, ci))
    margin, ci = stats.ratio_interval([sum(sums[p].values()) for p in pairs], denominators)
    return SourceSplit(tuple(split), SourceMargin("deal_margin", "deal margin", margin, ci))


def run_sources(
    result: ArenaResult, outcomes: Iterable[MatchOutcome]
) -> list[tuple[tuple[str, str], SourceSplit | None]]:
    """:func:`pairing_sources` of each pairing of a run that played a match,
    with its bots (``None``: no deal finished). The matches counted are
    those of the run's figures: after an SPRT decision, only the pairs it
    decided on."""
    decided = result.sprt is not None and result.sprt.decision is not None
    used = result.sprt.pairs if result.sprt is not None and decided else None
    pairings = pairings_of(list(result.bots))
    grouped: list[list[MatchOutcome]] = [[] for _ in pairings]
    for o in outcomes:
        if o.pairing < len(pairings) and (used is None or o.pair < used):
            grouped[o.pairing].append(o)
    return [(bots, pairing_sources(group)) for bots, group in zip(pairings, grouped, strict=True)
            if group]


def sources_json(
    splits: Sequence[tuple[tuple[str, str], SourceSplit | None]],
) -> list[dict[str, Any]]:
    """The ``sources`` of ``marjolet arena --json --sources``: per pairing,
    its bots and each source's margin and interval (``null`` when no deal
    was finished)."""
    unknown = {"margin": None, "margin_ci": None}
    return [
        {"bots": list(bots),
         **(split.to_json() if split is not None
            else {key: unknown for key in (*(k for k, _ in SOURCES), "deal_margin")})}
        for bots, split in splits
    ]


def _where(outcome: MatchOutcome) -> str:
    """A stored match as the arena's other messages place it (from 0)."""
    return f"pairing {outcome.pairing} pair {outcome.pair} game {outcome.game}"


def _record_of(outcome: MatchOutcome) -> Record:
    if not isinstance(outcome.record, str):
        raise SourcesError(f"{_where(outcome)}: its stored record is not text")
    try:
        return loads(outcome.record)
    except MarjoletError as exc:
        raise SourcesError(f"{_where(outcome)}: its stored record does not read: {exc}") from None


def _replayed(
    outcome: MatchOutcome, record: Record, index: int
) -> tuple[Deal, tuple[dict[str, int], dict[str, int]]]:
    """Deal ``index`` of a match's record played to its end, and its split."""
    if index >= len(record.deals):
        raise SourcesError(f"{_where(outcome)}: its record has no deal {index}")
    stored = record.deals[index]
    dealer = dealer_of(record.first_dealer, index)
    deal, split = deal_sources(stored.deck, dealer, record.rules, stored.actions)
    if not deal.is_over:
        raise SourcesError(f"{_where(outcome)}: deal {index} of its record is not finished")
    return deal, split
