"""The end-of-deal screen: the deal's points by source, the match totals,
and the end of the match."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import ClassVar

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Footer, Static

from marjolet.engine import Breakdown
from marjolet.rules import Rules
from marjolet.tui.describe import summary_table
from marjolet.tui.words import number, tr, translate_bindings


def standing(totals: tuple[int, int], target: int, opponent: str) -> str:
    """Where an undecided match stands after a deal, the player's total
    first: who leads by how much, or a tie (at the target or above, R22:
    another deal decides)."""
    t0, t1 = totals
    if t0 == t1 >= target:
        lead = tr("tui.level_at_target", n=number(target))
    elif t0 == t1:
        lead = tr("tui.level")
    elif t0 > t1:
        lead = tr("tui.you_lead_by", n=number(t0 - t1))
    else:
        lead = tr("tui.leads_by", name=opponent, n=number(t1 - t0))
    return tr("tui.match_lead", n=number(target), lead=lead)


class DealSummaryScreen(ModalScreen[str]):
    """Shows one finished deal. Dismissed with ``"next"`` (Enter), ``"new"``
    (a new match, once the match is over), ``"review"`` (``r``: review the
    deal, then come back) or ``"quit"``."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter,space,n", "next", "Next", priority=True),
        Binding("escape", "close", show=False),
        Binding("h,f1", "help", "Help"),
        Binding("r", "review", "Review"),
        Binding("q", "quit_game", "Quit"),
    ]

    def __init__(
        self,
        *,
        deal_number: int,
        names: Sequence[str],
        breakdowns: Sequence[Breakdown],
        totals: tuple[int, int],
        target: int,
        winner: int | None,
        rules: Rules | None = None,
        resume: str = "",
    ) -> None:
        super().__init__()
        translate_bindings(self._bindings)
        if winner is not None:  # Enter starts a new match: the key bar says so
            table = self._bindings.key_to_bindings
            for key, items in table.items():
                table[key] = [
                    replace(b, description=tr("tui.key_new_match")) if b.action == "next" else b
                    for b in items
                ]
        self.deal_number = deal_number
        self.names = names
        self.breakdowns = breakdowns
        self.totals = totals
        self.target = target
        self.winner = winner
        self.rules = rules if rules is not None else Rules()
        self.resume = resume

    def compose(self) -> ComposeResult:
        table = Table(box=None, padding=(0, 1), expand=True, show_edge=False)
        table.add_column(tr("tui.points"), style="dim", no_wrap=True)
        table.add_column(Text(self.names[0][:12], style="bold"), justify="right")
        table.add_column(Text(self.names[1][:12], style="bold"), justify="right")
        rows = summary_table(self.breakdowns)
        for label, a, b in rows[:-1]:
            table.add_row(label, str(a) if a else "·", str(b) if b else "·")
        label, a, b = rows[-1]
        table.add_row(
            Text(label, style="bold"),
            Text(number(a), style="bold"),
            Text(number(b), style="bold"),
            end_section=True,
        )
        table.add_row(
            Text(tr("tui.match"), style="bold"),
            Text(number(self.totals[0]), style="bold reverse"),
            Text(number(self.totals[1]), style="bold reverse"),
        )
        if self.winner is None:
            outcome = standing(self.totals, self.target, self.names[1])
            keys = tr("tui.summary_keys")
            title = tr("tui.summary_title", n=self.deal_number)
        else:
            won = tr("tui.you_won") if self.winner == 0 else tr("tui.won", name=self.names[1])
            outcome = f"{won} {number(max(self.totals))}\u00a0–\u00a0{number(min(self.totals))}"
            keys = tr("tui.summary_keys_over")
            title = tr("tui.summary_title_over", n=self.deal_number)
        with Vertical() as box:
            box.border_title = title
            yield Static(table)
            yield Static(outcome, id="summary-outcome")
            yield Static(keys, id="summary-keys")
            yield Static(tr("tui.summary_review"), id="summary-review", classes="keys")
        yield Footer()  # the key bar of the deal's end

    def action_next(self) -> None:
        self.dismiss("next" if self.winner is None else "new")

    def action_quit_game(self) -> None:
        self.dismiss("quit")

    def action_review(self) -> None:
        self.dismiss("review")

    def action_close(self) -> None:
        """Esc closes the summary like Enter between deals; it never quits
        (``q`` does) nor starts a new match (``n`` does)."""
        if self.winner is None:
            self.dismiss("next")

    def action_help(self) -> None:
        from marjolet.tui.help import HelpScreen

        self.app.push_screen(HelpScreen(self.rules, self.resume))
