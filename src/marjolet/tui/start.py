"""The start screen of ``marjolet play``: the opponent's level and who
deals first, chosen with the keys.

The levels are player levels (:data:`marjolet.bots.levels.LEVELS`: a name
and one plain sentence each), never program names; the research bots stay on the
command line (``--opponent SPEC``). :func:`choose` runs the screen and
returns a :class:`StartChoice`, or ``None`` when the player quits.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from textual import on
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import Footer, OptionList, Static
from textual.widgets.option_list import Option

from marjolet.tui.opponents import DEFAULT, PlayerLevel, levels
from marjolet.tui.words import lang, tr, translate_bindings
from marjolet.tui.wrapping import keep_unbreakable_spaces

#: Who deals the first deal: random (R3), the player (seat 0), the opponent.
DEALERS = (None, 0, 1)


@dataclass(frozen=True, slots=True)
class StartChoice:
    """The opponent's bot spec, the first dealer (``None``: drawn at
    random) and the level's name, which the table calls the opponent."""

    opponent: str
    first_dealer: int | None
    name: str | None = None


class StartApp(App[StartChoice | None]):
    """Two lists side by side, the opponent's level and the first dealer,
    and the chosen level's sentence below."""

    TITLE = "Marjolet"
    ENABLE_COMMAND_PALETTE = False
    CSS_PATH = "marjolet.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "start", "Start", priority=True),
        Binding("q,escape", "quit_start", "Quit"),
    ]

    def __init__(self, choices: Sequence[PlayerLevel], default: int) -> None:
        super().__init__()
        translate_bindings(self._bindings)
        keep_unbreakable_spaces()
        self.choices = list(choices)
        self.default = default

    def compose(self) -> ComposeResult:
        yield Static(tr("tui.start_title"), id="start-title")
        with Horizontal(id="lists"):
            with Vertical(classes="column"):
                yield Static(tr("lobby.opponent"))
                yield OptionList(
                    *[Option(c.name(lang()), id=c.key) for c in self.choices], id="level"
                )
            with Vertical(classes="column"):
                yield Static(tr("tui.start_dealer"))
                yield OptionList(
                    Option(tr("tui.start_dealer_random"), id="random"),
                    Option(tr("tui.start_dealer_you"), id="you"),
                    Option(tr("tui.start_dealer_them"), id="them"),
                    id="dealer",
                )
        yield Static(id="level-sentence")
        yield Static(tr("tui.start_keys"), id="start-keys")
        yield Footer()

    def on_mount(self) -> None:
        menu = self.query_one("#level", OptionList)
        menu.highlighted = self.default
        self.query_one("#dealer", OptionList).highlighted = 0
        menu.focus()

    @on(OptionList.OptionHighlighted, "#level")
    def _level_moved(self, event: OptionList.OptionHighlighted) -> None:
        level = self.choices[event.option_index]
        self.query_one("#level-sentence", Static).update(level.about(lang()))

    def chosen(self) -> StartChoice:
        level = self.choices[self.query_one("#level", OptionList).highlighted or 0]
        dealer = self.query_one("#dealer", OptionList).highlighted or 0
        return StartChoice(level.spec, DEALERS[dealer], level.name(lang()))

    def action_start(self) -> None:
        self.exit(self.chosen())

    def action_quit_start(self) -> None:
        self.exit(None)


def menu() -> tuple[list[PlayerLevel], int]:
    """The levels and the index of the default one."""
    choices = levels()
    return choices, next(i for i, c in enumerate(choices) if c.key == DEFAULT)


def choose() -> StartChoice | None:
    """Run the start screen; ``None`` if the player quit."""
    return StartApp(*menu()).run()


__all__ = ["DEALERS", "StartApp", "StartChoice", "choose", "menu"]
