"""The review of one finished deal (key ``r`` on the deal summary): the
decisions that lost points (near the end of a match, chances of winning
it) and each player's summary (docs/review.md), worded by
:mod:`marjolet.tui.reports` (``marjolet review`` prints the same).

The review runs on a worker thread, so the screen stays responsive and shows
its progress; Escape, Enter or ``r`` goes back to the summary.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from typing import ClassVar

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from marjolet.record import Record
from marjolet.tui.reports import deal_lines, decision_line, listed, marks_note, player_line
from marjolet.tui.words import tr, translate_bindings

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
    lines = deal_lines(review.decisions, review.seats, names, played.trump, played.rules, hints)
    return [*lines, "", marks_note(review.decisions)]


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


__all__ = ["DealReviewScreen", "decision_line", "listed", "player_line", "review_lines"]
