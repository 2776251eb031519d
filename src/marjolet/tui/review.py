"""The review of one finished deal (key ``r`` on the deal summary): the
decisions that lost points and each player's summary (docs/review.md).

The review runs on a worker thread, so the screen stays responsive and shows
its progress; Escape, Enter or ``r`` goes back to the summary.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from marjolet.record import Record

#: Seconds per phase-1 decision in the terminal: half the command's default,
#: so a deal is reviewed in a few seconds.
TUI_BUDGET = 0.15


def review_lines(record: Record, deal: int, names: Sequence[str], budget: float) -> list[str]:
    """The review of deal ``deal`` as lines of text (computed here: slow)."""
    from marjolet.analysis import review_record
    from marjolet.analysis.report import annotation, summary_line

    review = review_record(record, budget=budget, deals=[deal])
    lines = []
    for d in review.decisions:
        if d.loss > 0:
            lines.append(f"trick {d.trick:>2} {names[d.seat]}: {annotation(d)}")
    if not lines:
        lines.append("No decision lost points.")
    lines.append("")
    for p in review.players:
        lines.append(f"{names[p.seat]}: {summary_line(p)}")
    return lines


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
        self.record = record
        self.deal = deal
        self.names = list(names)
        self.budget = budget
        self.lines: list[str] | None = None

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = f"Review of deal {self.deal + 1}"
            box.border_subtitle = "Esc: back to the summary"
            with VerticalScroll():
                yield Static("Reviewing the deal…", id="review-text")

    def on_mount(self) -> None:
        record, deal, names, budget = self.record, self.deal, self.names, self.budget

        def work() -> None:
            try:
                lines = review_lines(record, deal, names, budget)
            except Exception as exc:  # a review must never stop the game
                lines = [f"No review: {exc}"]
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
