"""The ``?`` hint in words: what the strongest bot would play for the human,
with its evaluation (:func:`marjolet.bots.hint`).

The hint bot is given exactly what the human sees (the human's observation),
so a hint never leaks a hidden card.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from marjolet.actions import DIX, DRAW, MELD_BASE
from marjolet.observation import Observation
from marjolet.rules import Rules
from marjolet.tui.describe import action_label
from marjolet.tui.words import card as card_symbol
from marjolet.tui.words import tr


def action_words(action: int, trump: int | None = None, rules: Rules | None = None) -> str:
    """``play A♠``, ``declare K♥-Q♥``, ``take the dix``, ``draw`` (melds as
    cards when ``trump`` and ``rules`` are known)."""
    if action < MELD_BASE:
        return tr("hint.play", card=card_symbol(action))
    if action == DRAW:
        return tr("hint.draw")
    if action == DIX:
        return tr("tui.hint_dix")
    return tr("hint.declare", meld=action_label(action, trump, rules))


@dataclass(frozen=True, slots=True)
class Hint:
    """A suggested action, the bot that made it and its evaluation: the
    expected final deal margin (the human's deal points minus the
    opponent's) and the best alternative, if any."""

    action: int
    bot: str
    value: float
    exact: bool = False
    alternative: tuple[int, float] | None = None
    #: The only legal action: nothing was searched, so no margin is shown.
    forced: bool = False
    #: The deal's trumps and rules, to name melds by their cards.
    trump: int | None = None
    rules: Rules | None = None

    def text(self) -> str:
        what = action_words(self.action, self.trump, self.rules)
        if self.forced:
            return tr("tui.hint_forced", bot=self.bot, what=what)
        line = tr("tui.hint_line", bot=self.bot, what=what, outlook=self.outlook(self.value))
        if self.alternative is not None:
            other, value = self.alternative
            same = signed(value) == signed(self.value)  # the same at the points shown
            key = "tui.hint_alternative_same" if same else "tui.hint_alternative"
            line += tr(
                key, what=action_words(other, self.trump, self.rules), outlook=self.outlook(value)
            )
        return line + "."

    def outlook(self, value: float) -> str:
        """Where the deal should end for the player, in words: ``about 23
        points behind``, ``exactly 4 points ahead``, ``level``."""
        n = round(abs(value))
        if n == 0:
            return tr("tui.hint_level")
        how = tr("tui.hint_exactly") if self.exact else tr("tui.hint_expected")
        return tr("tui.hint_ahead" if value > 0 else "tui.hint_behind", how=how, n=n)


def signed(points: float) -> str:
    """Points with their sign, a true minus sign (``+12``, ``−61``, ``0``)."""
    shown = f"{points:+.0f}"
    return "0" if shown in ("+0", "-0") else shown.replace("-", "\u2212")


def hint_spec() -> str:
    """The bot that gives hints: the strongest one answering within about a
    second (the same default as the opponent)."""
    from marjolet.bots import STRONGEST

    return STRONGEST


def compute_hint(obs: Observation, legal: Sequence[int], seed: int | None = None) -> Hint:
    """Ask the hint bot about ``obs`` (up to about a second: call it off the
    UI thread). ``seed`` makes the advice reproducible."""
    from marjolet.bots import hint

    spec = hint_spec()
    advice = hint(obs, list(legal), spec=spec, seed=seed)
    others = sorted(((v, a) for a, v in advice.values.items() if a != advice.action), reverse=True)
    alternative = (others[0][1], others[0][0]) if others else None
    name = spec.split(":", 1)[0]
    return Hint(
        advice.action, name, advice.value, advice.exact, alternative, advice.forced,
        obs.trump, obs.rules,
    )  # fmt: skip
