"""The help screen: the rules in brief and the keys (press ``h`` or F1)."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Markdown, Static

from marjolet.rules import SAME_SUIT, Rules

KEYS = """\
## Keys

- **1**-**6**: play that card of your hand (its number is on the card)
- **←** **→** then **Enter** (or **Space**): choose a card, then play it
- In your meld window: **↑** **↓** then **Enter**, or the line's number
  **1**-**9**, to declare a meld or take the dix; **d** to draw
- **?**: a hint, what the strongest bot would do
- **h** or **F1**: this help; **Esc** closes it
- **q**: quit. The game is saved after every move; continue it with
  `marjolet play --resume`
"""


def rules_text(rules: Rules) -> str:
    """The rules in brief, with the settings of ``rules`` filled in."""
    if rules.jack_queen == SAME_SUIT:
        jack_queen = "jack + queen of the same suit: 20, in trumps 40"
    else:
        jack_queen = "jack of trumps + any queen: 20, with the trump queen 40"
    seven = (
        "when exchanged, turned up (to the dealer) or played if never exchanged"
        if rules.dix_on_play
        else "when exchanged or turned up (to the dealer)"
    )
    one_meld = (
        " Only one meld per window (the dix does not count)." if rules.one_meld_per_window else ""
    )
    return f"""\
## The game in brief

Two players, 32 cards (A 10 K Q J 9 8 7 in each suit, highest first).
Each gets 6 cards; the next card, the **indicator**, is turned up and
names **trumps**; the rest is the stock. A match goes to
**{rules.target}** points ({rules.profile} rules).

**Tricks 1-10 (stock open).** Play any card; nobody has to follow suit.
The highest trump wins the trick, else the higher card of the suit led.
The winner gets a **meld window**: declare melds, exchange the seven of
trumps for the indicator (the **dix**, +10), then **draw**. Both players
draw a card (the winner first) and the winner leads.{one_meld}

**Melds** (the cards stay in your hand, shown to the opponent):

- four aces 100, four tens 80, four kings 60, four queens 40
- king + queen of a suit (marriage): 20, in trumps 40
- {jack_queen}

Each meld counts once per player and deal; a card may serve in melds of
different kinds. Four jacks are worth nothing.

**Tricks 11-16 (stock empty).** Both hands are known. You must follow
suit and beat the card led if you can; with no card of that suit you must
trump if you can; otherwise play any card. The cards you may not play
are greyed and have no number, and the line above the hand says why.

**Points.** Every ace and ten won in tricks: 10. The seven of trumps: 10
{seven}. The player who takes the last card of the stock: 10. The last
trick: 10. All six last tricks: a further {rules.all_tricks_bonus}.

`marjolet rules` prints every setting; the rules are numbered R1-R23 in
the project documentation.
"""


class HelpScreen(ModalScreen[None]):
    """The rules in brief and the keys, scrollable, fitting 80x24."""

    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > Vertical {
        width: 100%;
        height: 100%;
        max-height: 40;
        border: round $accent;
        border-title-align: center;
        background: $surface;
    }
    HelpScreen VerticalScroll { height: 1fr; padding: 0 1; }
    HelpScreen #help-keys {
        height: 1; dock: bottom; content-align: center middle; color: $text-muted;
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,h,f1,q", "close", "Close"),
    ]

    def __init__(self, rules: Rules) -> None:
        super().__init__()
        self.rules = rules

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = "Marjolet: help"
            with VerticalScroll():
                yield Markdown(KEYS + "\n" + rules_text(self.rules))
            yield Static("↑↓ PgUp PgDn scroll · Esc close", id="help-keys")

    def on_mount(self) -> None:
        self.query_one(VerticalScroll).focus()

    def action_close(self) -> None:
        self.dismiss(None)
