"""The plain line interface of ``marjolet play``: prompts on standard output,
answers on standard input, so a game can be scripted through a pipe.

The human is a :class:`~marjolet.match.Seat` like any bot: it is shown its
observation (R23) and the numbered legal actions, and answers with a number
(from 1) or the action text (``QS``, ``meld KQS``, ``dix``, ``draw``; case
does not matter). The :class:`Narrator` reports what happened from the
human's side, using only what that seat may know.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import TextIO

from marjolet.actions import DIX, DRAW, MELD_BASE, parse_action
from marjolet.cards import card_name, parse_card
from marjolet.errors import ActionError, CardError
from marjolet.i18n import LANGS, card_label
from marjolet.match import Match
from marjolet.melds import MELD_COUNT, MELD_VALUES, meld_cards
from marjolet.observation import Observation
from marjolet.rules import LAST_CARD_POINTS, SEVEN_POINTS
from marjolet.tui.describe import (
    choice_label,
    follow_rule,
    hand_order,
    last_card_kind,
    meld_short,
    meld_words,
    refusal,
    shown_trick,
    window_options,
)
from marjolet.tui.hint import compute_hint
from marjolet.tui.launch import resume_command
from marjolet.tui.words import card as card_symbol
from marjolet.tui.words import lang, number, suit_name, tr
from marjolet.tui.wrapping import fit_to_terminal

#: The plain interface's commands, in either language (a French player
#: types "aide" as readily as "help").
COMMANDS = {
    "quit": "quit", "exit": "quit", "q": "quit", "quitter": "quit",
    "help": "help", "?": "help", "aide": "help",
    "hand": "hand", "main": "hand",
    "hint": "hint", "conseil": "hint",
    "rules": "rules", "règles": "rules", "regles": "rules",
}
#: Every card as a screen in any language shows it (``D♥`` roi, dame, valet
#: in French; ``Q♥``), so that a player may type what they see.
SHOWN_CARDS = {card_label(c, language).upper(): c for c in range(32) for language in LANGS}


def _symbols(mask: int) -> str:
    """Cards in the full screen's order (♠ ♥ ♣ ♦, highest first), so a
    card's number is the same in both interfaces."""
    return " ".join(card_symbol(c) for c in hand_order(mask))


class Wrapped:
    """The line interface's output, its long lines wrapped to the
    terminal's width between words (:func:`fit_to_terminal`; a terminal
    breaks them anywhere, mid-word), each text of ``keep`` (a command to
    paste) whole. Shorter lines and the prompt go out as they are, and
    everything in a pipe."""

    def __init__(self, out: TextIO, keep: Sequence[str] = ()) -> None:
        self.out = out
        self.keep = [k for k in keep if k]

    def width(self) -> int | None:
        """The terminal's width less one (a line as wide as the terminal
        wraps there on some); ``None`` in a pipe, whose reader (a script)
        gets every line whole."""
        import shutil

        try:
            tty = self.out.isatty()
        except (AttributeError, ValueError):
            tty = False
        return shutil.get_terminal_size((80, 24)).columns - 1 if tty else None

    def write(self, text: str) -> int:
        width = self.width()
        if width is None:
            return self.out.write(text)
        lines = text.split("\n")
        fitted = [
            fit_to_terminal(line, width, self.keep) if len(line) > width else line
            for line in lines
        ]
        return self.out.write("\n".join(fitted))

    def flush(self) -> None:
        self.out.flush()

    def __getattr__(self, name: str) -> object:
        return getattr(self.out, name)


class QuitGame(Exception):
    """The human asked to stop, or standard input ended."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def describe_action(obs: Observation, action: int) -> str:
    """The text of an action in the menu: a card, or a window choice in the
    full-screen window's words (its cards, what it is, its points); never
    its record code."""
    if action < MELD_BASE:
        return card_symbol(action)
    return window_options(obs, [action])[0].label


def show_position(obs: Observation, match_totals: tuple[int, int]) -> str:
    """A compact picture of what the human sees."""
    me, opp = obs.seat, obs.seat ^ 1
    ind = card_symbol(obs.indicator) if obs.indicator is not None else tr("tui.taken")
    lines = [
        tr(
            "tui.plain_position",
            n=obs.deal_index + 1,
            trick=shown_trick(obs),
            trump=suit_name(obs.trump),
            card=ind,
            stock=max(0, obs.stock_size - 1),  # the hidden cards, as the full screen counts them
            a=number(obs.points[me]),
            b=number(obs.points[opp]),
            ta=number(match_totals[me]),
            tb=number(match_totals[opp]),
        ),
        tr("tui.plain_hand", cards=_symbols(obs.hand.mask)),
    ]
    if obs.exposed[me]:
        lines.append(tr("tui.plain_exposed", cards=_symbols(obs.exposed[me].mask)))
    if obs.opponent_known:
        key = "tui.plain_opp_hand" if obs.stock_empty else "tui.plain_opp_shows"
        known = _symbols(obs.opponent_known.mask)
        lines.append(tr(key, cards=known, n=obs.hand_sizes[opp]))
    if obs.lead is not None:
        lines.append(tr("tui.plain_led", card=card_symbol(obs.lead)))  # who led: said just before
    return "\n".join(lines)


def menu_order(legal: Sequence[int]) -> list[int]:
    """Legal actions as a player reads them: cards as the full screen sorts
    the hand (♠ ♥ ♣ ♦, highest first), then melds, dix and draw."""
    cards = 0
    for a in legal:
        if a < MELD_BASE:
            cards |= 1 << a
    return [*hand_order(cards), *(a for a in legal if a >= MELD_BASE)]


def _listed_window_action(text: str, obs: Observation, legal: Sequence[int]) -> int | None:
    """A meld-window line typed as the list shows its cards (``R♥-D♥``,
    ``7♠⇄10♠``, with or without the dash), in any case; else any meld typed
    by its cards (``K♥-Q♥``, ``R♥ D♥``, ``QH-KH``: either language, any
    order) even when it cannot be declared, so that the refusal can say why."""
    typed = text.replace("-", "").replace(" ", "").upper()
    if obs.in_window:
        for option in window_options(obs, legal):
            if option.action != DRAW and option.cards.replace("-", "").upper() == typed:
                return option.action
    cards = _typed_cards(text)
    for m in range(MELD_COUNT):
        if cards == meld_cards(m, obs.trump, obs.rules):
            return MELD_BASE + m
    return None


def _typed_cards(text: str) -> int | None:
    """The cards of ``K♥-Q♥``, ``R♥ D♥`` or ``QH-KH`` as a mask (two or more
    cards, each as either language shows it or by its name), else None."""
    words = [w for w in re.split(r"[-\s]+", text.upper()) if w]
    mask = 0
    for word in words:
        c = SHOWN_CARDS.get(word)
        if c is None:
            try:
                c = parse_card(word)
            except CardError:
                return None
        mask |= 1 << c
    return mask if len(words) > 1 else None


def _unknown_text(answer: str, text: str, obs: Observation) -> str:
    """Why typed text is no action, in the player's words: the parser's
    reason is English and names the melds by their record codes, so the
    melds are listed as the screen shows them (``4×A``, ``K♥-Q♥``)."""
    if not text.startswith("meld "):
        return tr("tui.plain_unknown_text", answer=answer)
    if text[5:].strip().upper() == "4J":
        return tr("tui.plain_four_jacks")
    melds = ", ".join(meld_short(m, obs.trump, obs.rules) for m in range(MELD_COUNT))
    return tr("tui.plain_unknown_meld", answer=answer, melds=melds)


class LineSeat:
    """A human player on a text stream."""

    def __init__(
        self,
        names: Sequence[str],
        stdin: TextIO,
        stdout: TextIO,
        match_totals: Callable[[], tuple[int, int]],
        resume: str = "",
        hint_seed: int | None = None,
        on_hint: Callable[[int], None] | None = None,
    ) -> None:
        self.names = names
        #: the hints' seed, and who is told the action each hint advised
        #: (the session, which saves it for the review)
        self.hint_seed = hint_seed
        self.on_hint = on_hint
        #: the command that continues this match (the help text names it)
        self.resume = resume or resume_command()
        self.stdin = stdin
        self.stdout = stdout
        self.match_totals = match_totals

    def _say(self, text: str) -> None:
        self.stdout.write(text + "\n")
        self.stdout.flush()

    def choose(self, obs: Observation, legal: Sequence[int]) -> int:
        if list(legal) == [DRAW]:
            one_made = obs.rules.one_meld_per_window and MELD_BASE <= obs.actions[-1] < DIX
            self._say(tr("tui.plain_auto_draw_one_meld" if one_made else "tui.plain_auto_draw"))
            return DRAW
        legal = menu_order(legal)
        self._show_choices(obs, legal)
        while True:
            self.stdout.write("> ")
            self.stdout.flush()
            line = self.stdin.readline()
            if not line:
                raise QuitGame("input ended")
            answer = line.strip()
            if not answer:
                continue
            command = COMMANDS.get(answer.lower())
            if command == "quit":
                raise QuitGame("quit")
            if command is not None:
                self._run_command(command, obs, legal)
                continue
            choice = self._parse_choice(answer, legal, obs)
            if choice is not None:
                return choice

    def _run_command(self, command: str, obs: Observation, legal: Sequence[int]) -> None:
        """Answers a command that is no action (``help``, ``rules``,
        ``hand``, ``hint``); the same choice is asked again after it."""
        if command == "help":
            help_text = tr("tui.plain_help", resume=self.resume)
            self._say(fit_to_terminal(help_text, keep=[self.resume]))  # pastes whole
        elif command == "rules":  # the full screen's and the web's rule book, this match's rules
            from marjolet.i18n.rulebook import rulebook, to_text

            self._say(to_text(rulebook(obs.rules, lang()), tr("rules.title")))
        elif command == "hand":
            self._show_choices(obs, legal)
        elif command == "hint":
            advice = compute_hint(obs, legal, self.hint_seed)
            self._say("   " + advice.text())
            if self.on_hint is not None:
                self.on_hint(advice.action)

    def _show_choices(self, obs: Observation, legal: Sequence[int]) -> None:
        """The position, then the numbered actions (``hand`` shows them again)."""
        self._say(show_position(obs, self.match_totals()))
        if obs.in_window:
            self._say(tr("tui.plain_window"))
        elif (rule := follow_rule(obs)) is not None:
            self._say(f"   {rule.explain()}")
        for i, action in enumerate(legal, 1):
            self._say(f"   {i:2d}) {describe_action(obs, action)}")

    def _parse_choice(self, answer: str, legal: Sequence[int], obs: Observation) -> int | None:
        if answer.isdigit():
            n = int(answer)
            if 1 <= n <= len(legal):
                return legal[n - 1]
            self._say(tr("tui.plain_no_action", n=n, count=len(legal)))
            return None
        text = answer.upper()
        if text.startswith("MELD "):
            text = "meld " + text[5:].strip()
        elif text in ("DIX", "DRAW"):
            text = text.lower()
        elif text in ("PIOCHER", "PIOCHE"):
            text = "draw"
        elif (shown := SHOWN_CARDS.get(text.replace(" ", ""))) is not None:
            text = card_name(shown)
        elif (listed := _listed_window_action(text, obs, legal)) is not None:
            return self._checked(listed, legal, obs)
        try:
            action = parse_action(text)
        except ActionError:
            self._say(_unknown_text(answer, text, obs))
            return None
        return self._checked(action, legal, obs)

    def _checked(self, action: int, legal: Sequence[int], obs: Observation) -> int | None:
        """``action`` if it is legal, else ``None`` once the player is told
        why (the engine's refusal, in the player's words)."""
        if action in legal:
            return action
        reason = refusal(obs, action)
        if reason is None:  # legal for the engine, not offered here
            reason = tr("tui.plain_not_legal", action=choice_label(action, obs.trump, obs.rules))
        else:
            reason = f"   {reason}"
        self._say(reason)
        return None


class Narrator:
    """Reports each action from the human's side of the table (R23)."""

    def __init__(self, human: int, names: Sequence[str], out: TextIO) -> None:
        self.human = human
        self.names = names
        self.out = out
        self._hand_before = 0
        self._indicator: int | None = None
        self._turned_up = -1

    def _say(self, text: str) -> None:
        self.out.write(text + "\n")
        self.out.flush()

    def before(self, match: Match) -> None:
        obs = match.observation(self.human)
        self._hand_before = obs.hand.mask
        self._indicator = obs.indicator
        self._turned_up = obs.turned_up

    def __call__(self, match: Match, seat: int, action: int) -> None:
        obs = match.observation(self.human)
        mine = seat == self.human
        who = tr("player.you") if mine else self.names[seat]
        you = "tui.plain_you_" if mine else "tui.plain_"
        if action < MELD_BASE:
            self._say(tr(you + "played", who=who, card=card_symbol(action)))
            if obs.lead is None:  # the trick is complete
                w = obs.last_trick_winner
                assert w is not None
                winner = tr("player.you") if w == self.human else self.names[w]
                key = "tui.plain_you_won" if w == self.human else "tui.plain_won"
                self._say(tr(key, who=winner, n=obs.tricks_played))
        elif action == DRAW:
            gained = obs.hand.mask & ~self._hand_before
            got = _symbols(gained)
            if obs.stock_empty:
                self._say(self._last_draw(seat, got))
                self._say(tr("tui.stock_empty_line"))
                opponent = self.names[self.human ^ 1]
                known = _symbols(obs.opponent_known.mask)
                self._say(tr("tui.plain_opp_known", name=opponent, cards=known))
            else:
                self._say(tr("tui.plain_both_drew", cards=got))
        elif action == DIX:
            self._say(tr(you + "dix", who=who, n=SEVEN_POINTS))
        else:
            m = action - MELD_BASE
            what, value = meld_words(m, obs.trump, obs.rules), MELD_VALUES[obs.trump][m]
            self._say(tr(you + "declared", who=who, what=what, n=value))
        self._hand_before = obs.hand.mask
        self._indicator = obs.indicator
        self._turned_up = obs.turned_up

    def _last_draw(self, winner: int, got: str) -> str:
        """Trick 10's draw: its winner drew the last hidden card, the loser
        took the indicator and scores 10 for the last card (R15)."""
        ind = card_symbol(self._indicator) if self._indicator is not None else "?"
        seven = last_card_kind(self._indicator, self._turned_up)
        if winner == self.human:
            return tr(
                f"tui.they_took_{seven}",
                cards=got,
                name=self.names[winner ^ 1],
                card=ind,
                n=LAST_CARD_POINTS,
            )
        return tr(f"tui.you_drew_{seven}", card=ind, n=LAST_CARD_POINTS)
