"""The start screen of ``marjolet play``: the opponent, its strength and who
deals first, chosen with the keys instead of a bot spec string.

The choices are the web lobby's (:class:`marjolet.bots.catalogue.BotCatalogue`:
every registered bot that plays fair, at its strength levels; the default is
:data:`marjolet.bots.STRONGEST`). :func:`choose` runs the screen and returns a
:class:`StartChoice`, or ``None`` when the player quits.
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

from marjolet.tui.words import tr, translate_bindings

#: Who deals the first deal: random (R3), the player (seat 0), the opponent.
DEALERS = (None, 0, 1)


@dataclass(frozen=True, slots=True)
class StartChoice:
    """The opponent's bot spec and the first dealer (``None``: drawn at random)."""

    opponent: str
    first_dealer: int | None


@dataclass(frozen=True, slots=True)
class Level:
    family: str
    level: str
    spec: str


def levels() -> tuple[list[Level], int]:
    """Every bot choice (family, level, spec) and the index of the default."""
    from marjolet.bots.catalogue import BotCatalogue

    catalogue = BotCatalogue.build()
    out = [Level(c.family, c.level, c.spec) for c in catalogue.choices.values()]
    default = list(catalogue.choices).index(catalogue.default)
    return out, default


def _level_name(level: str) -> str:
    return tr(f"level.{level}") if level else tr("level.standard")


class StartApp(App[StartChoice | None]):
    """Three lists side by side: opponent, strength, first dealer."""

    TITLE = "Marjolet"
    ENABLE_COMMAND_PALETTE = False
    CSS_PATH = "marjolet.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "start", "Start", priority=True),
        Binding("q,escape", "quit_start", "Quit"),
    ]

    def __init__(self, choices: Sequence[Level], default: int) -> None:
        super().__init__()
        translate_bindings(self._bindings)
        self.choices = list(choices)
        self.families = list(dict.fromkeys(c.family for c in choices))
        self.default = self.choices[default]

    def compose(self) -> ComposeResult:
        yield Static(tr("tui.start_title"), id="start-title")
        with Horizontal(id="lists"):
            with Vertical(classes="column"):
                yield Static(tr("lobby.opponent"))
                yield OptionList(*[Option(f, id=f) for f in self.families], id="family")
            with Vertical(classes="column"):
                yield Static(tr("lobby.strength"))
                yield OptionList(id="level")
            with Vertical(classes="column"):
                yield Static(tr("tui.start_dealer"))
                yield OptionList(
                    Option(tr("tui.start_dealer_random"), id="random"),
                    Option(tr("tui.start_dealer_you"), id="you"),
                    Option(tr("tui.start_dealer_them"), id="them"),
                    id="dealer",
                )
        yield Static(tr("tui.start_keys"), id="start-keys")
        yield Footer()

    def on_mount(self) -> None:
        family = self.query_one("#family", OptionList)
        family.highlighted = self.families.index(self.default.family)
        self._fill_levels(self.default.family)
        self.query_one("#dealer", OptionList).highlighted = 0
        family.focus()

    def _family_levels(self, family: str) -> list[Level]:
        return [c for c in self.choices if c.family == family]

    def _fill_levels(self, family: str) -> None:
        menu = self.query_one("#level", OptionList)
        menu.clear_options()
        found = self._family_levels(family)
        for c in found:
            menu.add_option(Option(_level_name(c.level), id=c.spec))
        preferred = self.default if self.default in found else None
        if preferred is None:
            preferred = next((c for c in found if c.level == "normal"), found[0])
        menu.highlighted = found.index(preferred)

    @on(OptionList.OptionHighlighted, "#family")
    def _family_moved(self, event: OptionList.OptionHighlighted) -> None:
        if event.option.id is not None:
            self._fill_levels(event.option.id)

    def chosen(self) -> StartChoice:
        level = self.query_one("#level", OptionList)
        dealer = self.query_one("#dealer", OptionList)
        family = self.families[self.query_one("#family", OptionList).highlighted or 0]
        found = self._family_levels(family)
        spec = found[level.highlighted or 0].spec
        return StartChoice(spec, DEALERS[dealer.highlighted or 0])

    def action_start(self) -> None:
        self.exit(self.chosen())

    def action_quit_start(self) -> None:
        self.exit(None)


def choose() -> StartChoice | None:
    """Run the start screen; ``None`` if the player quit."""
    choices, default = levels()
    return StartApp(choices, default).run()


__all__ = ["DEALERS", "Level", "StartApp", "StartChoice", "choose", "levels"]
