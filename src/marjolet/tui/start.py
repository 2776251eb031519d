"""The start screen of ``marjolet play``: the opponent's level and who
deals first, chosen with the keys.

The levels are player levels (:data:`marjolet.bots.levels.LEVELS`: a name
and one plain sentence each), never program names; the research bots stay on the
command line (``--opponent SPEC``). When a saved match is unfinished, a
line offers to continue it (``c``); ``h`` or F1 opens the rules.
:func:`choose` runs the screen and returns a :class:`StartChoice`, or
``None`` when the player quits. The chosen line of each list is marked
``▸``, so it shows without colours (``NO_COLOR``).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from textual import on
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import Footer, OptionList, Static
from textual.widgets.option_list import Option

from marjolet.errors import MarjoletError
from marjolet.tui.opponents import DEFAULT, PlayerLevel, level_named, levels
from marjolet.tui.words import lang, tr, translate_bindings
from marjolet.tui.wrapping import keep_unbreakable_spaces

#: Who deals the first deal: random (R3), the player (seat 0), the opponent.
DEALERS = (None, 0, 1)
#: Before the chosen line of a list, and before the others.
MARK, NO_MARK = "▸ ", "  "


@dataclass(frozen=True, slots=True)
class StartChoice:
    """The opponent's bot spec, the first dealer (``None``: drawn at
    random) and the level's name, which the table calls the opponent."""

    opponent: str
    first_dealer: int | None
    name: str | None = None
    #: The unfinished match to continue instead (its save), if chosen.
    resume: str | None = None


@dataclass(frozen=True, slots=True)
class Unfinished:
    """The newest unfinished saved match: its file and a line about it."""

    path: Path
    line: str
    #: Open in another terminal (its lock is held): not offered with ``c``.
    open_elsewhere: bool = False


class StartApp(App[StartChoice | None]):
    """Two lists side by side, the opponent's level and the first dealer,
    and the chosen level's sentence below."""

    TITLE = "Marjolet"
    ENABLE_COMMAND_PALETTE = False
    CSS_PATH = "marjolet.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "start", "Start", priority=True),
        Binding("c", "continue_match", "Continue"),
        Binding("h,f1", "help", "Help"),
        Binding("q,escape", "quit_start", "Quit"),
    ]

    def __init__(
        self,
        choices: Sequence[PlayerLevel],
        default: int,
        unfinished: Unfinished | None = None,
        skipped: Sequence[Path] = (),
    ) -> None:
        super().__init__()
        translate_bindings(self._bindings)
        keep_unbreakable_spaces()
        self.choices = list(choices)
        self.default = default
        self.unfinished = unfinished
        #: Damaged saves left aside (the warnings name their faults).
        self.skipped = list(skipped)
        self._labels = {
            "level": [c.name(lang()) for c in self.choices],
            "dealer": [tr(f"tui.start_dealer_{k}") for k in ("random", "you", "them")],
        }

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "continue_match":
            return self.unfinished is not None and not self.unfinished.open_elsewhere
        return True

    def compose(self) -> ComposeResult:
        yield Static(tr("tui.start_title"), id="start-title")
        if self.unfinished is not None:
            yield Static(self.unfinished.line, id="start-unfinished")
        if self.skipped:  # one line for them all: the lists keep their room
            files = ", ".join(path.name for path in self.skipped)
            line = tr("tui.start_skipped", n=len(self.skipped), files=files)
            yield Static(line, id="start-skipped")
        with Horizontal(id="lists"):
            with Vertical(classes="column"):
                yield Static(tr("lobby.opponent"))
                yield OptionList(
                    *[Option(NO_MARK + c.name(lang()), id=c.key) for c in self.choices],
                    id="level",
                )
            with Vertical(classes="column"):
                yield Static(tr("tui.start_dealer"))
                dealers = zip(self._labels["dealer"], ("random", "you", "them"), strict=True)
                yield OptionList(*[Option(NO_MARK + t, id=k) for t, k in dealers], id="dealer")
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

    @on(OptionList.OptionHighlighted)
    def _mark(self, event: OptionList.OptionHighlighted) -> None:
        """``▸`` before the chosen line, which colour alone would not show."""
        menu = event.option_list
        labels = self._labels.get(menu.id or "")
        if labels is None:
            return
        for i, label in enumerate(labels):
            menu.replace_option_prompt_at_index(
                i, (MARK if i == event.option_index else NO_MARK) + label
            )

    def chosen(self) -> StartChoice:
        level = self.choices[self.query_one("#level", OptionList).highlighted or 0]
        dealer = self.query_one("#dealer", OptionList).highlighted or 0
        return StartChoice(level.spec, DEALERS[dealer], level.name(lang()))

    def action_start(self) -> None:
        self.exit(self.chosen())

    def action_continue_match(self) -> None:
        if self.unfinished is not None:
            level = self.chosen()
            self.exit(StartChoice(level.opponent, None, resume=str(self.unfinished.path)))

    def action_help(self) -> None:
        from marjolet.rules import CLASSIC
        from marjolet.tui.help import HelpScreen

        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen(CLASSIC))

    def action_quit_start(self) -> None:
        self.exit(None)


def menu() -> tuple[list[PlayerLevel], int]:
    """The levels and the index of the default one."""
    choices = levels()
    return choices, next(i for i, c in enumerate(choices) if c.key == DEFAULT)


def unfinished(
    warn: Callable[[str], None] | None = None, skipped: list[Path] | None = None
) -> Unfinished | None:
    """The newest unfinished saved match, with a line saying against whom
    and the score (or that it is open in another terminal), or ``None``;
    damaged saves are skipped, told to ``warn`` and added to ``skipped``
    (:func:`marjolet.tui.saves.last_unfinished`)."""
    from marjolet import record
    from marjolet.tui import saves

    try:
        path = saves.last_unfinished(warn, skipped)
        if path is None:
            return None
        rec, match = saves.load_match(path)
    except (MarjoletError, OSError):
        return None
    recorded = rec.players[1] if rec.players else ""
    level = level_named(recorded)
    name = level.name(lang()) if level is not None else record.printable_name(recorded)
    you, them = match.totals
    if saves.in_use(path):
        return Unfinished(path, tr("tui.start_unfinished_open", name=name, a=you, b=them), True)
    return Unfinished(path, tr("tui.start_unfinished", name=name, a=you, b=them))


def choose() -> StartChoice | None:
    """Run the start screen; ``None`` if the player quit. A damaged save
    skipped is named on it, and warned of on standard error (which stays
    in the terminal once the screen is gone) as ``--resume`` does."""
    warnings: list[str] = []
    skipped: list[Path] = []
    found = unfinished(warnings.append, skipped)
    for line in warnings:
        print(tr("play.warning", message=line), file=sys.stderr)
    return StartApp(*menu(), found, skipped).run()


__all__ = ["DEALERS", "StartApp", "StartChoice", "Unfinished", "choose", "menu", "unfinished"]
