"""The keys of the table and the key bar that follows the situation.

The footer shows only the keys that do something now: ``1-6 Play card``
(``1-5`` with five cards left, ``2,4`` when the last tricks' duty allows
only those cards) while the human chooses a card, ``1-3
Declare`` and ``d Draw`` in the meld window, only help and quit while the
computer thinks or once the deal is over. :func:`key_bar` decides it from
plain values; :func:`show_key_bar` writes it into the App's bindings.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from textual.binding import Binding, BindingType

from marjolet.tui.state import HumanTurn, Waiting, choices
from marjolet.tui.words import tr

#: The most cards a hand holds, and the most lines of a meld window.
HAND_SLOTS = 6
MAX_KEYS = 9

#: The keys of a French (AZERTY) keyboard's top row without Shift, which
#: give 1 to 9 with it: a French player need not press Shift for each card.
AZERTY_DIGITS = (
    "ampersand", "é", "quotation_mark", "apostrophe", "left_parenthesis",
    "minus", "è", "underscore", "ç",
)  # fmt: skip


def number_keys(n: int) -> str:
    """The keys that stand for the number ``n`` (1 to :data:`MAX_KEYS`)."""
    return f"{n},{AZERTY_DIGITS[n - 1]}"


BINDINGS: list[BindingType] = [
    Binding(number_keys(1), "pick(1)", "Play card", key_display="1-6"),
    *(Binding(number_keys(n), f"pick({n})", show=False) for n in range(2, MAX_KEYS + 1)),
    Binding("left", "move(-1)", "Choose", key_display="←→"),
    Binding("right", "move(1)", show=False),
    Binding("enter,space", "confirm", "Play", key_display="⏎"),
    Binding("d", "draw", "Draw"),
    Binding("question_mark", "hint", "Hint", key_display="?"),
    Binding("h,f1", "help", "Help"),
    Binding("q", "quit_game", "Quit"),
    Binding("ctrl+c", "quit_game", show=False, priority=True),
]

#: Actions that change the game; refused while another screen is on top.
GAME_ACTIONS = frozenset({"pick", "move", "confirm", "draw", "hint"})


@dataclass(frozen=True, slots=True)
class KeyBar:
    """Which game keys the footer shows now, and how the number keys read."""

    #: ``1-6``, ``1-3``, ``1``; empty: the number keys are not shown.
    numbers: str = ""
    #: What the number keys do: ``tui.key_play_card`` or ``tui.key_declare``.
    numbers_label: str = "tui.key_play_card"
    #: The arrows and Enter choose a card (outside the meld window).
    arrows: bool = False
    confirm: bool = False
    #: What Enter does: play the chosen card, or take the window's chosen line.
    confirm_label: str = "tui.key_play"
    draw: bool = False
    hint: bool = False

    def shows(self, action: str) -> bool:
        """Whether the footer shows (and the keys run) ``action`` now."""
        shown = {
            "pick": bool(self.numbers),
            "move": self.arrows,
            "confirm": self.confirm,
            "draw": self.draw,
            "hint": self.hint,
        }
        return shown.get(action, True)


def _span(n: int) -> str:
    return "1" if n == 1 else f"1-{n}"


def _keys(places: Sequence[int], hand_size: int) -> str:
    """``1-6`` when every card may be played, else the keys that may: ``2,4``."""
    if len(places) == hand_size:
        return _span(hand_size)
    return ",".join(str(i + 1) for i in places)


def key_bar(waiting: Waiting, turn: HumanTurn, hand: Sequence[int], options: int) -> KeyBar:
    """The key bar for the situation: ``options`` is the number of lines of
    the meld window (when it is open), ``hand`` the cards as shown."""
    if waiting != Waiting.HUMAN:
        return KeyBar()
    if turn.in_window:
        return KeyBar(
            _span(options),
            "tui.key_declare",
            confirm=True,
            confirm_label="tui.key_take_line",
            draw=True,
            hint=True,
        )
    places = choices(hand, turn.playable)
    if not places:
        return KeyBar()
    return KeyBar(_keys(places, len(hand)), arrows=True, confirm=True, hint=True)


def show_key_bar(bindings: Any, bar: KeyBar) -> None:
    """Write ``bar``'s number keys into the first number binding of a
    Textual ``BindingsMap`` (the key and its words in the language in use),
    and what Enter does now into its binding."""
    table = bindings.key_to_bindings
    for key in ("enter", "space"):
        table[key] = [
            replace(b, description=tr(bar.confirm_label)) if b.action == "confirm" else b
            for b in table.get(key, [])
        ]
    if not bar.numbers:
        return
    items = table.get("1", [])
    table["1"] = [
        replace(b, key_display=bar.numbers, description=tr(bar.numbers_label))
        if b.action == "pick(1)"
        else b
        for b in items
    ]


__all__ = [
    "AZERTY_DIGITS",
    "BINDINGS",
    "GAME_ACTIONS",
    "HAND_SLOTS",
    "KeyBar",
    "key_bar",
    "number_keys",
    "show_key_bar",
]
