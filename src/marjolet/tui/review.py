"""The review of one finished deal (key ``r`` on the deal summary): the
decisions that lost points and each player's summary (docs/review.md).

The review runs on a worker thread, so the screen stays responsive and shows
its progress; Escape, Enter or ``r`` goes back to the summary.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from marjolet.actions import ACTION_NAMES
from marjolet.record import Record
from marjolet.tui.words import lang, tr, translate_bindings

if TYPE_CHECKING:
    from marjolet.analysis.review import Decision
    from marjolet.analysis.summary import PlayerSummary

#: Seconds per phase-1 decision in the terminal: half the command's default,
#: so a deal is reviewed in a few seconds.
TUI_BUDGET = 0.15


def review_lines(record: Record, deal: int, names: Sequence[str], budget: float) -> list[str]:
    """The review of deal ``deal`` as lines of text (computed here: slow)."""
    from marjolet.analysis import review_record

    review = review_record(record, budget=budget, deals=[deal])
    lines = [decision_line(d, names[d.seat]) for d in review.decisions if d.loss > 0]
    if not lines:
        lines.append(tr("tui.review_no_loss"))
    lines.append("")
    for p in review.players:
        lines.append(player_line(p, names[p.seat]))
    return lines


def _number(text: str) -> str:
    """A figure as the language writes it: ``+1.5``, ``+1,5`` in French."""
    return text.replace(".", ",") if lang() == "fr" else text


def _source(d: Decision) -> str:
    """Which view a figure comes from, in words (``report.source`` in English)."""
    if d.view == "ending":
        return tr("tui.review_source_ending")
    if d.view == "open":
        return tr("tui.review_source_open" if d.exact else "tui.review_source_open_estimate")
    return tr("tui.review_source_seat", method=d.method)


def decision_line(d: Decision, name: str) -> str:
    """A decision that lost points, in the player's language; in English the
    annotation ``marjolet review`` writes (:func:`marjolet.analysis.report.annotation`)."""
    from marjolet.analysis.report import MARKS, figure, loss_text
    from marjolet.analysis.summary import judgement

    mark = judgement(d)
    words = {
        "head": ACTION_NAMES[d.played] + MARKS.get(mark or "", ""),
        "best": " ".join(ACTION_NAMES[a] for a in d.best),
        "value_best": _number(figure(d.value_best, d.exact)),
        "value_played": _number(figure(d.value_played, d.exact)),
        "loss": _number(loss_text(d)),
        "source": _source(d),
    }
    if mark:
        what = tr("tui.review_judged", judgement=tr(f"review.{mark}"), **words)
    else:
        what = tr("tui.review_loss", **words)
    return tr("tui.review_line", trick=f"{d.trick:>2}", name=name, what=what)


def player_line(p: PlayerSummary, name: str) -> str:
    """A player's summary of the deal, in the player's language; in English
    :func:`marjolet.analysis.report.summary_line`'s words."""
    losses = ""
    if p.exact_decisions:
        losses += tr(
            "tui.review_exact_loss",
            loss=p.exact_loss,
            mean=_number(f"{p.exact_mean_loss:.1f}"),
        )
    if p.estimated_decisions:
        losses += tr(
            "tui.review_estimated_loss",
            loss=_number(f"{p.estimated_loss:.1f}"),
            mean=_number(f"{p.estimated_mean_loss or 0:.1f}"),
        )
    return tr(
        "tui.review_summary",
        name=name,
        decisions=p.decisions,
        exact=p.exact_decisions,
        accuracy="-" if p.accuracy is None else tr("tui.percent", n=f"{p.accuracy:.0f}"),
        losses=losses,
        inaccuracies=p.inaccuracies,
        mistakes=p.mistakes,
        blunders=p.blunders,
    )


class DealReviewScreen(ModalScreen[None]):
    """Reviews deal ``deal`` of ``record`` on a thread and shows the result."""

    DEFAULT_CSS = """
    DealReviewScreen { align: center middle; }
    DealReviewScreen > Vertical {
        width: 90%; height: 90%;
        border: round $accent; border-title-align: center; border-subtitle-align: center;
        background: $surface; padding: 0 1;
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,enter,r,q", "close", "Back", priority=True),
    ]

    def __init__(
        self, record: Record, deal: int, names: Sequence[str], budget: float = TUI_BUDGET
    ) -> None:
        super().__init__()
        translate_bindings(self._bindings)
        self.record = record
        self.deal = deal
        self.names = list(names)
        self.budget = budget
        self.lines: list[str] | None = None

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = tr("tui.review_title", n=self.deal + 1)
            box.border_subtitle = tr("tui.review_keys")
            with VerticalScroll():
                yield Static(tr("tui.review_running"), id="review-text")

    def on_mount(self) -> None:
        record, deal, names, budget = self.record, self.deal, self.names, self.budget

        def work() -> None:
            try:
                lines = review_lines(record, deal, names, budget)
            except Exception as exc:  # a review must never stop the game
                lines = [tr("tui.review_failed", reason=exc)]
            try:
                self.app.call_from_thread(self._show, lines)
            except RuntimeError:  # the app closed meanwhile
                pass

        self.run_worker(work, thread=True, group="review", exit_on_error=False, name="review")

    def _show(self, lines: list[str]) -> None:
        self.lines = lines
        self.query_one("#review-text", Static).update("\n".join(lines))

    def action_close(self) -> None:
        self.dismiss(None)
