"""The table: the screen the game is played on (the App's default screen).

It lays the table out and draws a :class:`~marjolet.tui.state.TableView`;
it decides nothing. Layout at 80x24 (the styles are in ``marjolet.tcss``)::

    top bar: deal, trick, trumps, phase
    +- table ----------------------------+- score board --+
    | opponent: name, hand (backs and    | tricks/deal/   |
    |   shown cards)                     | match          |
    | stock, indicator, the trick        +- meld window --+
    | you: name, hand (keys 1-6)         | (when open)    |
    | prompt / why a card is refused     +- log ----------+
    +------------------------------------+----------------+
    footer: the keys of the moment
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Footer, OptionList, Static
from textual.widgets.option_list import Option

from marjolet.tui import board
from marjolet.tui.state import TableView
from marjolet.tui.widgets import GameLog, MeldMenu, ScoreBoard
from marjolet.tui.words import number, tr

#: From this width the screen gets the class ``-wide``: larger, centred cards.
WIDE = 140


def shell_lines(command: str, width: int) -> list[str]:
    """``command`` in lines of at most ``width`` columns, which a shell
    given all of them reads as the one command: a line that ends between
    words ends with ``" \\"``, one that cuts a long word (a path) ends with
    ``"\\"`` (a shell drops a backslash and its line break wherever they
    are, but inside quotes: a quoted word too long stays whole).

    >>> shell_lines("marjolet play --resume '/tmp/my game.json' --plain", 30)
    ['marjolet play --resume \\\\', "'/tmp/my game.json' --plain"]
    >>> shell_lines("play --resume /tmp/a/long/path.json", 12)
    ['play \\\\', '--resume \\\\', '/tmp/a/long\\\\', '/path.json']
    """
    try:
        words = [shlex.quote(word) for word in shlex.split(command)]
    except ValueError:  # not a shell line: shown as it is
        return [command]
    lines = [""]
    for word in words:
        if not lines[-1] or len(lines[-1]) + 1 + len(word) + 2 > width:
            if lines[-1]:
                lines[-1] += " \\"
                lines.append("")
            while len(word) + 2 > width and "'" not in word and width > 2:
                lines[-1] = word[: width - 1] + "\\"
                lines.append("")
                word = word[width - 1 :]
            lines[-1] = word
        else:
            lines[-1] += " " + word
    return lines


class TableScreen(Screen[None]):
    """The card table, the score board, the meld window and the log."""

    HORIZONTAL_BREAKPOINTS = [(0, "-normal"), (WIDE, "-wide")]  # noqa: RUF012 (Textual's name)

    def compose(self) -> ComposeResult:
        yield Static(id="topbar")
        yield Static(id="too-small")
        yield Static(id="too-small-command")
        with Horizontal(id="main"):
            with Vertical(id="table"):
                yield Static(id="opp-line", classes="who")
                yield board.OpponentHand(id="opp-hand", classes="cards")
                yield board.Middle(id="middle")
                yield Static(id="me-line", classes="who")
                yield board.Hand(id="hand", classes="cards")
                yield Static(id="status")
            with Vertical(id="side"):
                yield Static(id="scores")
                with Vertical(id="window"):
                    yield MeldMenu(id="window-options")
                yield GameLog(id="log")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#scores").border_title = tr("tui.score")
        self.query_one("#log").border_title = tr("tui.log")
        self.query_one("#window").border_title = tr("tui.window")

    # -- drawing -------------------------------------------------------------------

    def show(self, view: TableView) -> None:
        """Draw the whole table from ``view``."""
        # the bar spans the terminal: its width is the terminal's, known at
        # once after a resize (the bar's own size lags while it was hidden)
        bar = self.query_one("#topbar", Static)
        bar.update(board.topbar(view.obs, view.colour, self.app.size.width - 2))
        opp_line = self.query_one("#opp-line", Static)
        opp_line.update(board.opponent_line(view, opp_line.content_size.width or None))
        self.query_one(board.OpponentHand).show(view)
        self.query_one(board.Middle).show(view)
        me_line = self.query_one("#me-line", Static)
        me_line.update(board.my_line(view, me_line.content_size.width or None))
        self.show_hand(view)
        self._show_scores(view)

    def show_hand(self, view: TableView) -> None:
        """Redraw the human's cards only (the cursor moved)."""
        self.query_one(board.Hand).show(view)

    def _show_scores(self, view: TableView) -> None:
        obs = view.obs
        tricks = (len(obs.won[0]) // 2, len(obs.won[1]) // 2)
        scores = self.query_one("#scores", Static)
        scores.update(ScoreBoard(view.names, tricks, obs.points, view.totals))
        scores.border_subtitle = tr("tui.match_to", n=number(view.target))

    def show_status(self, text: Text, problem: bool) -> None:
        """The prompt, or a message, above the footer."""
        status = self.query_one("#status", Static)
        status.set_class(problem, "problem")
        status.update(text)

    def say(self, line: Text) -> None:
        """Add a line to the log."""
        self.query_one("#log", GameLog).say(line)

    def show_too_small(self, notice: str | None, command: str = "", width: int = 80) -> None:
        """``notice`` instead of the table (the terminal is too small), or
        the table again (``None``); below it ``command`` (the line
        interface's) from the left edge, in lines of ``width`` columns that
        a shell reads as one (:func:`shell_lines`): a command cut at the
        edge started a new match, and one the terminal wraps runs its
        second line on its own when pasted."""
        self.set_class(notice is not None, "too-small")
        if notice is not None:
            self.query_one("#too-small", Static).update(notice)
            lines = shell_lines(command, width)
            shown = self.query_one("#too-small-command", Static)
            shown.update(Text("\n".join(lines), no_wrap=True, overflow="crop"))
            shown.styles.height = len(lines) + 1

    # -- the meld window --------------------------------------------------------------

    @property
    def menu(self) -> OptionList:
        return self.query_one("#window-options", OptionList)

    def open_window(self, lines: Sequence[tuple[Text, int]]) -> None:
        """Open the meld window with ``lines`` (text, action) and focus it."""
        menu = self.menu
        menu.clear_options()
        for text, action in lines:
            menu.add_option(Option(text, id=str(action)))
        menu.highlighted = 0
        self.query_one("#window").add_class("open")
        menu.focus()

    def close_window(self) -> None:
        self.query_one("#window").remove_class("open")
        self.set_focus(None)

    def highlighted_action(self) -> int | None:
        """The action of the meld window's highlighted line."""
        menu = self.menu
        if menu.highlighted is None:
            return None
        option = menu.get_option_at_index(menu.highlighted)
        return None if option.id is None else int(option.id)

    def highlight_action(self, action: int) -> None:
        """Put the meld window's highlight on ``action``'s line."""
        for i in range(self.menu.option_count):
            if self.menu.get_option_at_index(i).id == str(action):
                self.menu.highlighted = i
