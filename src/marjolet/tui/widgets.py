"""The pieces of the table: cards, the score board and coloured text.

Every widget here is drawn from an :class:`~marjolet.observation.Observation`
and plain numbers; none of them ever receives a hidden card (R23).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, RenderResult
from rich.table import Table
from rich.text import Text
from textual import events
from textual.message import Message
from textual.widgets import OptionList, RichLog, Static

from marjolet.cards import SUIT_SYMBOLS
from marjolet.tui.words import card as card_symbol
from marjolet.tui.words import number, tr

#: Hearts and diamonds are red, clubs and spades black (with ``NO_COLOR``
#: Textual turns every colour to grey; nothing relies on colour alone).
RED_SUITS = (1, 2)
_CARD_IN_TEXT = re.compile(r"(10|[789JQKARDV])([♣♦♥♠])")  # R D V: roi, dame, valet
#: The red of the red suits, and in a terminal of 16 colours (``TERM=linux``),
#: where ``#d03030`` would turn into the nearest of them, yellow: the
#: terminal's own red.
RED = "#d03030"
RED_16 = "red"
_red = RED


def use_colour_system(system: str | None) -> None:
    """Draw the red suits for the terminal's colour system (Rich's name:
    ``"standard"`` for 16 colours); the app sets it as it starts."""
    global _red
    _red = RED_16 if system == "standard" else RED


def suit_style(suit: int, colour: bool = True) -> str:
    """Bold, and red for hearts and diamonds when colours are on."""
    return f"bold {_red}" if colour and suit in RED_SUITS else "bold"


def colour_cards(line: str, colour: bool = True) -> Text:
    """A line with every card symbol in bold, red suits in red when
    ``colour`` (off under ``NO_COLOR``, where grey-on-grey would be hard to
    read)."""
    text = Text(line)
    for m in _CARD_IN_TEXT.finditer(line):
        text.stylize(suit_style(SUIT_SYMBOLS.index(m.group(2)), colour), m.start(), m.end())
    return text


class CardView(Static):
    """One card: a face, a back, or an empty place on the table.

    ``index`` is the card's place in the hand (for clicks); ``title`` is drawn
    on the top edge (the key that plays it), ``subtitle`` on the bottom one.
    """

    DEFAULT_CSS = """
    CardView {
        width: 7;
        height: 3;
        border: round #8c8c8c;
        background: #f4f1e8;
        color: #1a1a1a;
        content-align: center middle;
        text-style: bold;
        border-title-align: center;
        border-subtitle-align: center;
        border-title-color: #1a1a1a;
        border-subtitle-color: #505050;
    }
    CardView.red { color: #d03030; }
    CardView.back {
        background: #27466f;
        color: #6d8fc0;
        border: round #6d8fc0;
    }
    CardView.empty {
        background: transparent;
        border: round #555555;
        color: #777777;
    }
    CardView.gone { display: none; }
    CardView.illegal {
        background: #8a877f;
        color: #3c3c3c;
        text-style: not bold;
        border: round #5c5c5c;
        border-title-color: #3c3c3c;
    }
    CardView.selected {
        border: heavy #ffb000;
        border-title-color: #1a1a1a;
        border-title-background: #ffb000;
    }
    """

    class Clicked(Message):
        """A card of the hand (or of the table) was clicked."""

        def __init__(self, view: CardView) -> None:
            super().__init__()
            self.view = view

    def __init__(self, index: int = -1, *, id: str | None = None, classes: str = "") -> None:
        super().__init__("", id=id, classes=classes)
        self.index = index
        self.card: int | None = None

    def show_face(
        self, c: int, *, title: str = "", subtitle: str = "", classes: Sequence[str] = ()
    ) -> None:
        self.card = c
        self._set(card_symbol(c), title, subtitle, ["red"] if c >> 3 in (1, 2) else [], classes)

    def show_back(self, *, title: str = "", subtitle: str = "") -> None:
        self.card = None
        self._set("░░░", title, subtitle, ["back"], ())

    def show_empty(self, text: str = "", *, title: str = "", subtitle: str = "") -> None:
        self.card = None
        self._set(text, title, subtitle, ["empty"], ())

    def hide(self) -> None:
        self.card = None
        self._set("", "", "", ["gone"], ())

    def _set(
        self, body: str, title: str, subtitle: str, kind: list[str], extra: Sequence[str]
    ) -> None:
        self.update(body)
        self.border_title = title
        self.border_subtitle = subtitle
        for name in ("red", "back", "empty", "gone", "illegal", "selected"):
            self.set_class(name in kind or name in extra, name)

    def on_click(self) -> None:
        self.post_message(self.Clicked(self))


class MeldMenu(OptionList):
    """The meld window's choices: the arrows stop at the first and the last
    line instead of wrapping around (a wrap would land on *draw* from the
    best meld with a single key)."""

    def action_cursor_down(self) -> None:
        if self.highlighted is not None and self.highlighted >= self.option_count - 1:
            return
        super().action_cursor_down()

    def action_cursor_up(self) -> None:
        if self.highlighted is not None and self.highlighted <= 0:
            return
        super().action_cursor_up()


#: The names' room on a score board of unknown width: nine cells each.
NAMES_ROOM = 18


def fit_names(names: Sequence[str], room: int) -> tuple[str, str]:
    """The two names in ``room`` cells together: whole when they fit, else
    the opponent's (the level's, which the table calls it) whole as long as
    the player's keeps four cells, and a cut name ends with ``…``."""
    mine, theirs = cell_len(names[0]), cell_len(names[1])
    if mine + theirs <= room:
        return names[0], names[1]
    their_room = max(min(theirs, room - min(mine, 4)), 1)
    return _cut(names[0], max(room - their_room, 1)), _cut(names[1], their_room)


def _cut(name: str, cells: int) -> str:
    text = Text(name)
    text.truncate(cells, overflow="ellipsis")
    return text.plain


class ScoreBoard:
    """The score board as a Rich renderable: :func:`score_table` at the
    width it is drawn at, so that the names fit it."""

    def __init__(
        self,
        names: Sequence[str],
        tricks: Sequence[int],
        deal: Sequence[int],
        match: Sequence[int],
    ) -> None:
        self.rows = (names, tricks, deal, match)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield score_table(*self.rows, width=options.max_width)


def score_table(
    names: Sequence[str],
    tricks: Sequence[int],
    deal: Sequence[int],
    match: Sequence[int],
    width: int | None = None,
) -> Table:
    """The score board: tricks and points of the deal and of the match; the
    names fitted to ``width`` cells (:func:`fit_names`), if given."""
    labels = (tr("tui.tricks"), tr("tui.deal_row"), tr("tui.match"))
    # between the columns two spaces, none at the edges
    room = NAMES_ROOM if width is None else width - max(map(cell_len, labels)) - 4
    shown = fit_names(names, room)
    table = Table(box=None, padding=(0, 1), expand=True, show_edge=False, pad_edge=False)
    table.add_column("", style="dim", no_wrap=True)
    table.add_column(Text(shown[0], style="bold"), justify="right", no_wrap=True)
    table.add_column(Text(shown[1], style="bold"), justify="right", no_wrap=True)
    table.add_row(labels[0], str(tricks[0]), str(tricks[1]))
    table.add_row(labels[1], number(deal[0]), number(deal[1]))
    table.add_row(
        labels[2], Text(number(match[0]), style="bold"), Text(number(match[1]), style="bold")
    )
    return table


class GameLog(RichLog):
    """The log of the game: a :class:`RichLog` that wraps its lines again
    whenever its width changes. A ``RichLog`` wraps each line once, at the
    width it has when the line is written; after a resize (or a first layout
    narrower than the final one) its lines would stay cut at the old width."""

    #: Lines kept to re-wrap (the oldest go first): a match is a few hundred.
    KEEP = 2000

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(wrap=True, markup=False, auto_scroll=True, min_width=10, id=id)
        self.can_focus = False
        self._said: list[Text] = []
        self._wrapped_at = 0

    def say(self, line: Text) -> None:
        """Write ``line`` and keep it to wrap again."""
        self._said.append(line)
        del self._said[: -self.KEEP]
        self.write(line)

    def on_resize(self, event: events.Resize) -> None:
        super().on_resize(event)
        if event.size.width != self._wrapped_at:
            self._wrapped_at = event.size.width
            self.call_after_refresh(self._wrap_again)

    def _wrap_again(self) -> None:
        """Every kept line again, at the width the log has now."""
        self.clear()
        for line in self._said:
            self.write(line)
