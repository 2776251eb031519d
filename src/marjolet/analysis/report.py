"""A finished review: the JSON shape of ``marjolet review``, the text a
player reads, and the annotations written into a record as comments."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from marjolet.actions import ACTION_NAMES
from marjolet.analysis.marks import (
    BLUNDER,
    CHANCE,
    INACCURACY,
    MARK_NAMES,
    MIN_WORLDS,
    MISTAKE,
    THRESHOLDS,
)
from marjolet.analysis.match_chance import percent
from marjolet.analysis.review import Decision
from marjolet.analysis.summary import (
    PlayerSummary,
    judged_by_chance,
    judgement,
    lost_something,
    marks_counted,
    summarise,
)
from marjolet.i18n import translate
from marjolet.record import Comment, Record, name_column, printable_name

MARKS = {"inaccuracy": "?!", "mistake": "?", "blunder": "??"}


@dataclass(frozen=True, slots=True)
class Review:
    """The decisions of a record and the summary of each reviewed seat."""

    decisions: tuple[Decision, ...]
    seats: tuple[int, ...]
    #: ``seat`` (phase 1 from the deciding seat's observation) or ``open``
    view: str
    budget: float
    estimator: str

    @property
    def players(self) -> list[PlayerSummary]:
        return [summarise(self.decisions, s) for s in self.seats]

    def to_json(self) -> dict[str, Any]:
        decisions = []
        for d in self.decisions:
            item = d.to_json()
            item["judgement"] = judgement(d)
            decisions.append(item)
        return {
            "decisions": decisions,
            "players": [p.to_json() for p in self.players],
            "view": self.view,
            "budget": self.budget,
            "estimator": self.estimator,
            "thresholds": dict(zip(MARK_NAMES, THRESHOLDS, strict=True)),
            "match_thresholds": dict(zip(MARK_NAMES, CHANCE.thresholds, strict=True)),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Review:
        """The review as :meth:`to_json` wrote it (a stored review, such as
        the web's): its decisions, and the seats its summaries are of."""
        return cls(
            decisions=tuple(Decision.from_json(d) for d in data["decisions"]),
            seats=tuple(int(p["seat"]) for p in data["players"]),
            view=str(data["view"]),
            budget=float(data["budget"]),
            estimator=str(data["estimator"]),
        )


def _names(d: Sequence[int]) -> str:
    return " ".join(ACTION_NAMES[a] for a in d)


def figure(x: float, exact: bool) -> str:
    return f"{int(x):+d}" if exact else f"{x:+.1f}"


def loss_text(d: Decision) -> str:
    if d.exact:
        return f"{int(d.loss)}"
    if d.stderr_loss is not None:
        return f"{d.loss:.1f}±{d.stderr_loss:.1f}"
    return f"{d.loss:.1f}"


def source(d: Decision) -> str:
    """Which view a figure comes from, in words."""
    if d.view == "ending":
        return "exact, ending"
    if d.view == "open":
        return "exact, open cards" if d.exact else "estimate, open cards"
    return f"estimate, {d.method}, seat's view"


def chance_text(d: Decision) -> str:
    """Near the end of a match, the chance of winning it with the best
    action and with the action played (``; chance of winning the match:
    62% -> 48%``, the best for the match named when it was not played and
    is not the best in points);
    else ``""``."""
    if d.match is None:
        return ""
    m = d.match
    top, played = percent(m.top, certain=d.exact), percent(m.played, certain=d.exact)
    text = f"; chance of winning the match: {top}% -> {played}%"
    if d.played not in m.best and set(m.best) != set(d.best):
        text += f" (best for the match {_names(m.best)})"
    return text


def annotation(d: Decision) -> str:
    """One line about a decision, as written into the record."""
    mark = judgement(d)
    head = f"{ACTION_NAMES[d.played]}{MARKS.get(mark or '', '')}"
    if d.played in d.best and d.loss == 0:
        word = f" {mark}:" if mark else ""
        return f"{head}{word} best {figure(d.value_played, d.exact)}{chance_text(d)} ({source(d)})"
    word = f" {mark}:" if mark else ""
    return (
        f"{head}{word} best was {_names(d.best)} {figure(d.value_best, d.exact)}, "
        f"played {figure(d.value_played, d.exact)}, lost {loss_text(d)}{chance_text(d)} "
        f"({source(d)})"
    )


def annotate(record: Record, review: Review, *, all_decisions: bool = False) -> Record:
    """``record`` with a comment after every decision that lost points (or
    every decision with ``all_decisions``) and one per deal and seat with
    its summary, keeping the comments it had."""
    notes = list(record.comments)
    for d in review.decisions:
        if all_decisions or lost_something(d):
            notes.append(Comment(d.deal, d.action + 1, annotation(d)))
    for deal in range(len(record.deals)):
        for seat in review.seats:
            p = summarise([d for d in review.decisions if d.deal == deal], seat)
            if p.decisions:
                notes.append(Comment(deal, 0, f"review: player {seat}: {summary_line(p)}"))
    return record.with_comments(notes)


def summary_line(p: PlayerSummary) -> str:
    """A player's summary in ``marjolet review`` and in a record's comments
    (English, as the rest of the command's text)."""
    acc = "-" if p.accuracy is None else f"{p.accuracy:.0f}%"
    decisions = translate("tui.review_decisions", "en", n=p.decisions)
    parts = [f"{decisions} ({p.exact_decisions} exact)", f"accuracy {acc}"]
    if p.exact_decisions:
        parts.append(f"exact loss {p.exact_loss} (mean {p.exact_mean_loss:.1f})")
    if p.estimated_decisions:
        parts.append(
            f"estimated loss {p.estimated_loss:.1f} (mean {p.estimated_mean_loss or 0:.1f})"
        )
    parts.append(", ".join(marks_counted(p)))
    return "; ".join(parts)


def format_review(review: Review, names: Sequence[str] | None = None) -> str:
    """The text a player reads: every decision, marked, then the summary."""
    players = list(names) if names is not None else ["player 0", "player 1"]
    column = name_column(players)
    view = (
        "phase 1 judged from each player's own view (estimates); tricks 11-16 exact"
        if review.view == "seat"
        else "phase 1 judged with every card known (open view); tricks 11-16 exact"
    )
    lines = [f"review: {view}; budget {review.budget:g} s per phase-1 decision"]
    lines.append(
        "values: final deal-score difference, the player deciding minus the opponent; "
        "±: one standard error"
    )
    deal = -1
    for d in review.decisions:
        if d.deal != deal:
            deal = d.deal
            lines.append(f"deal {deal}")
        mark = judgement(d)
        played = f"{ACTION_NAMES[d.played]}{MARKS.get(mark or '', '')}"
        if d.loss == 0:
            verdict = "best" if d.match is None or d.played in d.match.best else "most points"
        else:
            verdict = f"lost {loss_text(d)}, best {_names(d.best)} {figure(d.value_best, d.exact)}"
        lines.append(
            f"  {d.deal}:{d.action:<3} trick {d.trick:>2}  {column[d.seat]} "
            f"{played:<11} {figure(d.value_played, d.exact):>7}  {verdict}{chance_text(d)}"
            f"{'  ' + mark if mark else ''}  [{source(d)}]"
        )
    lines.append(
        f"marks: ?! inaccuracy (>= {INACCURACY}), ? mistake (>= {MISTAKE}), "
        f"?? blunder (>= {BLUNDER} points; estimates by a lower confidence bound, "
        f"from {MIN_WORLDS} worlds up)"
    )
    if any(judged_by_chance(d) for d in review.decisions):
        a, b, c = (round(100 * t) for t in CHANCE.thresholds)
        lines.append(
            "near the end of the match, marks by the chance of winning the match lost: "
            f"?! from {a}, ? from {b}, ?? from {c} percentage points"
        )
    for p in review.players:
        lines.append(f"{printable_name(players[p.seat])}: {summary_line(p)}")
    return "\n".join(lines)
