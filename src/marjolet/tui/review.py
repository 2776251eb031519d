"""The review of one finished deal (key ``r`` on the deal summary): the
decisions that lost points (near the end of a match, chances of winning
it) and each player's summary (docs/review.md).

The review runs on a worker thread, so the screen stays responsive and shows
its progress; Escape, Enter or ``r`` goes back to the summary.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, ClassVar

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from marjolet.record import Record
from marjolet.rules import Rules
from marjolet.tui import describe
from marjolet.tui.session import DEFAULT_NAMES
from marjolet.tui.words import lang, tr, translate_bindings

if TYPE_CHECKING:
    from marjolet.analysis.review import Decision
    from marjolet.analysis.summary import PlayerSummary

log = logging.getLogger("marjolet.tui")

#: Seconds per phase-1 decision in the terminal: half the command's default,
#: so a deal is reviewed in a few seconds.
TUI_BUDGET = 0.15


def review_lines(
    record: Record,
    deal: int,
    names: Sequence[str],
    budget: float,
    hints: Mapping[tuple[int, int], int] | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> list[str]:
    """The review of deal ``deal`` as lines of text (computed here: slow).
    ``hints``: the hints the human followed, (deal, action index) -> action;
    ``progress(done, total)`` is told after each decision."""
    from marjolet.analysis import review_record
    from marjolet.record import to_match

    review = review_record(record, budget=budget, deals=[deal], progress=progress)
    played = to_match(record).deals[deal]
    followed = hints or {}
    shown, small = listed(review.decisions)
    lines = [
        decision_line(
            d, names[d.seat], played.trump, played.rules, hinted=(d.deal, d.action) in followed
        )
        for d in shown
    ]
    if small:  # told in one line, not one each
        lines.append(tr("tui.review_small", n=small))
    elif not shown:
        lines.append(tr("tui.review_no_loss"))
    lines.append("")
    for p in review.players:
        lines.append(player_line(p, names[p.seat]))
    return lines


def listed(decisions: Sequence[Decision]) -> tuple[list[Decision], int]:
    """The decisions the review lists, one line each (those that lost
    points or match chances, marked or beyond the review's own noise), and
    how many others lost perhaps a point or two within that noise."""
    from marjolet.analysis.summary import judgement, lost_something

    losing = [d for d in decisions if lost_something(d)]
    shown = [d for d in losing if judgement(d) is not None or not _within_noise(d)]
    return shown, len(losing) - len(shown)


def _within_noise(d: Decision) -> bool:
    """An estimated loss smaller than twice its standard error (unmarked:
    the review cannot tell it from its own sampling)."""
    return not d.exact and d.stderr_loss is not None and d.loss < 2 * d.stderr_loss


def _whole_loss(d: Decision) -> int:
    """The points a decision lost, in whole points (at least 1)."""
    return max(1, round(d.loss))


def _loss_words(d: Decision) -> str:
    """The points lost in whole points: ``12`` when exact, ``about 12`` for
    an estimate, ``perhaps 3`` when the estimate is within its uncertainty."""
    n = _whole_loss(d)
    if d.exact:
        return str(n)
    if _within_noise(d):
        return tr("tui.review_perhaps", n=n)
    return tr("tui.review_about", n=n)


def _chance(x: float, exact: bool) -> str:
    """A chance of winning the match in whole percent, in the reader's
    words (never 0 or 100 from an estimate)."""
    from marjolet.analysis.match_chance import percent

    return tr("tui.percent", n=percent(x, certain=exact))


def decision_line(
    d: Decision,
    name: str,
    trump: int | None = None,
    rules: Rules | None = None,
    *,
    hinted: bool = False,
) -> str:
    """A decision that lost points, in the player's words: the cards as the
    table shows them, whole points, who should have played what; near the
    end of a match the chance of winning it, with the best move and with
    the one played; a followed hint says why the review may still count a
    loss."""
    from marjolet.analysis.summary import judgement

    mark = judgement(d)
    m = d.match
    you = "_you" if name in DEFAULT_NAMES else ""  # "vous avez joué", not "Vous a joué"
    n = _whole_loss(d)
    by_chance = m is not None and d.played not in m.best and (m.decides or d.loss == 0)
    best = m.best if m is not None and by_chance else d.best
    words = dict(
        trick=d.trick,
        name=name,
        did=describe.did_label(d.played, trump, rules),
        judgement=tr("tui.review_judgement", judgement=tr(f"review.{mark}")) if mark else "",
        better=describe.or_join([describe.choice_label(a, trump, rules) for a in best]),
        source=tr("tui.review_exact" if d.exact else "tui.review_estimate"),
    )
    if m is not None and by_chance:
        best_chance, played_chance = _chance(m.top, d.exact), _chance(m.played, d.exact)
        line = tr(
            f"tui.review_decision_chance{you}", best=best_chance, played=played_chance, **words
        )
        if d.loss > 0:
            line += " " + tr("tui.review_points_too", loss=_loss_words(d), n=n)
    else:
        line = tr(f"tui.review_decision{you}", loss=_loss_words(d), n=n, **words)
        if m is not None and d.played in m.best:
            line += " " + tr("review.match_kept", played=_chance(m.played, d.exact))
        elif m is not None:
            line += " " + tr(
                "review.match_chance",
                best=_chance(m.top, d.exact),
                played=_chance(m.played, d.exact),
            )
    if hinted:
        line += " " + tr("tui.review_hint_followed")
    return line


def player_line(p: PlayerSummary, name: str) -> str:
    """A player's summary of the deal in the player's words (whole points)."""
    from marjolet.analysis.summary import marks_counted

    lost = p.exact_loss + round(p.estimated_loss)
    inaccuracies, mistakes, blunders = marks_counted(p, lang())
    return tr(
        "tui.review_player",
        name=name,
        decisions=tr("tui.review_decisions", n=p.decisions),
        accuracy="-" if p.accuracy is None else tr("tui.percent", n=f"{p.accuracy:.0f}"),
        lost=tr("tui.review_points_lost", n=lost),
        inaccuracies=inaccuracies,
        mistakes=mistakes,
        blunders=blunders,
    )


class DealReviewScreen(ModalScreen[None]):
    """Reviews deal ``deal`` of ``record`` on a thread and shows the result."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,enter,r,q", "close", "Back", priority=True),
    ]

    def __init__(
        self,
        record: Record,
        deal: int,
        names: Sequence[str],
        budget: float = TUI_BUDGET,
        *,
        hints: Mapping[tuple[int, int], int] | None = None,
    ) -> None:
        super().__init__()
        translate_bindings(self._bindings)
        self.record = record
        self.deal = deal
        self.names = list(names)
        self.budget = budget
        self.hints = dict(hints or {})
        self.lines: list[str] | None = None

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = tr("tui.review_title", n=self.deal + 1)
            box.border_subtitle = tr("tui.review_keys")
            with VerticalScroll():
                yield Static(tr("tui.review_running"), id="review-text")

    def on_mount(self) -> None:
        # the arrows and page keys scroll the review at once (no Tab first)
        self.query_one(VerticalScroll).focus()
        self._review()

    @work(thread=True, group="review", exit_on_error=False, name="review")
    def _review(self) -> None:
        """Review the deal on a worker thread; show it on the screen's thread."""
        def progress(done: int, total: int) -> None:
            try:
                self.app.call_from_thread(self._show_progress, done, total)
            except RuntimeError:  # the app closed meanwhile
                pass

        try:
            lines = review_lines(
                self.record, self.deal, self.names, self.budget, self.hints, progress
            )
        except Exception:  # a review must never stop the game
            # the error is for the log; the player reads a sentence, not Python
            log.exception("the review of deal %d failed", self.deal + 1)
            lines = [tr("tui.review_failed")]
        try:
            self.app.call_from_thread(self._show, lines)
        except RuntimeError:  # the app closed meanwhile
            pass

    def _show_progress(self, done: int, total: int) -> None:
        if self.lines is None:  # the result, once shown, stays
            count = tr("tui.review_progress", done=done, total=total)
            self.query_one("#review-text", Static).update(f"{tr('tui.review_running')} {count}")

    def _show(self, lines: list[str]) -> None:
        self.lines = lines
        self.query_one("#review-text", Static).update("\n".join(lines))

    def action_close(self) -> None:
        self.dismiss(None)
