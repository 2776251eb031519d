"""The full-screen game: ``marjolet play`` in a terminal (Textual).

:class:`MarjoletApp` runs the match: it keeps what the game waits for, the
human's turn, the cursor, the message and the hint in reactive attributes,
and its ``watch_`` methods redraw what each change touches. The table itself
is the :class:`~marjolet.tui.table.TableScreen` (the default screen), drawn
only from the human's observation (R23); the look is in ``marjolet.tcss``.
The bot and the hint think on worker threads so the screen stays
responsive, and every action is saved by the
:class:`~marjolet.tui.session.GameSession` before the screen moves on.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import ClassVar, cast

from rich.text import Text
from textual import events, on, work
from textual.app import App
from textual.binding import Binding, BindingType
from textual.reactive import var
from textual.screen import ModalScreen
from textual.widgets import OptionList

from marjolet.actions import DIX, DRAW, MELD_BASE
from marjolet.bots.base import BotFault
from marjolet.engine import REFUSAL_CODES
from marjolet.errors import IllegalActionError, MarjoletError
from marjolet.observation import Observation
from marjolet.tui import board, describe, keys
from marjolet.tui.board import Hand
from marjolet.tui.help import HelpScreen
from marjolet.tui.hint import Hint, compute_hint
from marjolet.tui.session import GameSession
from marjolet.tui.state import (
    NO_TURN,
    HumanTurn,
    Note,
    TableView,
    Waiting,
    moved_cursor,
    placed_cursor,
)
from marjolet.tui.summary import DealSummaryScreen
from marjolet.tui.table import TableScreen
from marjolet.tui.widgets import CardView, colour_cards, use_colour_system
from marjolet.tui.words import tr, translate_bindings
from marjolet.tui.wrapping import keep_unbreakable_spaces
from marjolet.turns import Turn

log = logging.getLogger("marjolet.tui")

#: How long the last trick of a deal stays in view before the summary, in paces.
LAST_TRICK_PACES = 2
#: A bot's meld-window action (declare, dix, draw) takes this share of a pace.
WINDOW_PACE = 0.5
#: The first bot action after a completed trick waits this many paces, so a
#: trick the bot won stays on the table long enough to be seen.
TRICK_PACES = 2
#: The smallest terminal the table fits in; below it a notice replaces it.
MIN_SIZE = (80, 24)
#: Keys pressed when they do nothing now: say why ("not now", "your turn
#: comes next") instead of staying silent.
NOT_NOW: list[BindingType] = [
    Binding(",".join(keys.number_keys(n) for n in range(1, keys.MAX_KEYS + 1)) + ",enter,space",
            "not_now('play')", show=False),
    Binding("question_mark", "not_now('hint')", show=False),
]  # fmt: skip


class MarjoletApp(App[None]):
    """A match against the computer, one full screen."""

    TITLE = "Marjolet"
    CSS_PATH = "marjolet.tcss"
    ENABLE_COMMAND_PALETTE = False
    AUTO_FOCUS = None
    BINDINGS: ClassVar[list[BindingType]] = [*keys.BINDINGS, *NOT_NOW]

    #: What the game waits for.
    waiting: var[Waiting] = var(Waiting.START, init=False)
    #: The human's legal actions (empty when it is not their turn).
    turn: var[HumanTurn] = var(NO_TURN, init=False)
    #: The place in the hand of the chosen card.
    cursor: var[int | None] = var(None, init=False)
    #: A message above the prompt until the next action.
    note: var[Note | None] = var(None, init=False)
    #: The hint (or "thinking about a hint") below the prompt.
    hint_text: var[str | None] = var(None, init=False)
    #: The terminal is below MIN_SIZE: a notice instead of the table.
    too_small: var[bool] = var(False, init=False)
    #: The game keys the footer shows now.
    key_bar: var[keys.KeyBar] = var(keys.KeyBar(), init=False)

    def __init__(
        self,
        session: GameSession,
        *,
        pace: float = 0.7,
        new_session: Callable[[], GameSession] | None = None,
        hint_seed: int | None = None,
    ) -> None:
        """``pace``: the least time a bot's card play stays on its own before
        the next action (window actions take half), so the human can follow;
        tests use 0. ``new_session`` starts another match after the last."""
        super().__init__()
        translate_bindings(self._bindings)  # the footer in the player's language
        keep_unbreakable_spaces()  # "annoncez : ..." never wraps before its colon
        system = self.console.color_system
        use_colour_system(system)  # in 16 colours, the terminal's red for the red suits
        self.set_class(system == "standard" and not self.no_color, "-sixteen")
        self.session = session
        self.pace = pace
        self.new_session = new_session
        self.hint_seed = hint_seed
        #: The human's cards as shown, left to right.
        self.hand: list[int] = []
        self._hint_version: int | None = None
        #: Enter on *draw* was pressed once with a meld still to declare.
        self._draw_armed = False

    def get_default_screen(self) -> TableScreen:
        return TableScreen()

    @property
    def table(self) -> TableScreen:
        return cast(TableScreen, self.default_screen)

    @property
    def legal(self) -> list[int]:
        return list(self.turn.legal)

    def on_ready(self) -> None:
        """The table is on screen: tell the story so far and play on."""
        self._fit(self.size.width, self.size.height)
        self.say_lines(self.session.opening_lines())
        self.advance()

    # -- the game loop -----------------------------------------------------------

    def advance(self) -> None:
        """Move the game on until the human must act, the bot is thinking or
        a deal summary is on screen."""
        s = self.session
        while not s.match.is_over:
            if s.match.needs_deal:
                self.say_lines(s.start_deal())
            if not s.human_to_move:
                self.start_bot()
                return
            legal = s.legal()
            if legal != [DRAW]:
                self.begin_human_turn(legal)
                return
            self.say_lines(s.play(DRAW))  # won the trick with nothing to declare
            if self._deal_finished():
                return
        self.waiting = Waiting.OVER
        self.refresh_table()

    def after_action(self, lines: list[str]) -> None:
        self.say_lines(lines)
        if self.session.save_error:
            self.flash(self.session.save_error, problem=True, lasting=True)
        if not self._deal_finished():
            self.advance()

    def _deal_finished(self) -> bool:
        """After an action: when the deal is over, show its summary."""
        d = self.session.deal
        if d is None or not d.is_over:
            return False
        self.turn = NO_TURN
        self.waiting = Waiting.SUMMARY
        self.refresh_table()
        if self.pace > 0:  # leave the last trick in view for a moment
            self.set_timer(LAST_TRICK_PACES * self.pace, self._show_summary)
        else:
            self._show_summary()
        return True

    def _show_summary(self) -> None:
        d = self.session.deal
        assert d is not None
        m = self.session.match
        screen = DealSummaryScreen(
            deal_number=len(m.deals),
            names=self.session.names,
            breakdowns=(d.breakdown(0), d.breakdown(1)),
            totals=m.totals,
            target=m.rules.target,
            winner=m.winner,
            rules=m.rules,
            resume=self.session.resume_hint,
        )
        self.push_screen(screen, callback=self._summary_closed)

    def _summary_closed(self, result: str | None) -> None:
        if result == "review":  # r: review the deal, then the summary again
            self._review_deal()
        elif result == "quit" or (result == "new" and self.new_session is None):
            self.action_quit_game()
        elif result == "new":
            self._new_match()
        else:
            self.advance()

    def _review_deal(self) -> None:
        from marjolet.record import Record
        from marjolet.tui.review import DealReviewScreen

        s = self.session
        deal = len(s.match.deals) - 1
        screen = DealReviewScreen(Record.from_match(s.match), deal, s.names, hints=s.followed)
        self.push_screen(screen, callback=lambda _: self._show_summary())

    def _new_match(self) -> None:
        assert self.new_session is not None
        self.session = self.new_session()
        self.say(tr("tui.new_match"))
        self.advance()

    # -- the human ---------------------------------------------------------------

    def begin_human_turn(self, legal: list[int]) -> None:
        self.turn = HumanTurn(tuple(legal))
        self.waiting = Waiting.HUMAN
        self._draw_armed = False
        if self.note is not None and not self.note.lasting:
            self.note = None  # "... is thinking", a stray key's answer: the turn is yours
        obs = self.session.observation()
        if obs.in_window:
            self.cursor = None
            options = describe.window_options(obs, legal)
            colour = not self.no_color
            self.table.open_window(
                [(board.window_line(n, o, colour), o.action) for n, o in enumerate(options, 1)]
            )
        else:
            self.table.close_window()
        self.refresh_table()

    def play_human(self, action: int) -> None:
        if self.waiting != Waiting.HUMAN or not self.session.human_to_move:
            return
        try:
            lines = self.session.play(action)
        except MarjoletError as exc:  # the engine's English is for the log
            log.info("move %s refused: %s", action, exc)
            self.flash(self.refusal_text(exc, action), problem=True)
            return
        self.note = None
        self.hint_text = None
        self.after_action(lines)

    def refusal_text(self, exc: MarjoletError, action: int) -> str:
        """A refused move in the player's words: the engine's refusal code
        (given with the error, else asked again), else a sentence of the
        catalogue; never the error's English text."""
        why = exc.why if isinstance(exc, IllegalActionError) else None
        code = why.get("code") if why else None
        if why and isinstance(code, str) and code in REFUSAL_CODES:
            return describe.refusal_words(code, why, self.session.observation())
        if self.session.deal_in_progress:
            reason = describe.refusal(self.session.observation(), action)
            if reason is not None:
                return reason
        return tr("tui.move_refused")

    def try_card(self, index: int) -> None:
        """The human chose the card at ``index`` of the hand (key or click)."""
        if self.waiting != Waiting.HUMAN:
            self.action_not_now("play")
            return
        if index >= len(self.hand):
            return
        obs = self.session.observation()
        if obs.in_window:
            self.flash(tr("tui.declare_first"), problem=True)
            return
        c = self.hand[index]
        reason = describe.why_not_allowed(obs, c)
        if reason is not None:
            self.bell()
            self.flash(reason, problem=True)
            return
        self.play_human(c)

    def choose_option(self, action: int) -> None:
        """A meld-window line chosen by Enter or a click. Drawing while a
        meld (or the dix) could still score asks for a second Enter first;
        ``d`` draws at once."""
        if action == DRAW and not self._draw_armed:
            obs = self.session.observation()
            skipped = [o for o in describe.window_options(obs, self.legal) if o.action != DRAW]
            if skipped:
                self._draw_armed = True
                best = skipped[0]
                what = best.cards if best.action == DIX else f"{best.cards} {best.kind}"
                self.flash(tr("tui.draw_confirm", what=what, n=best.value), problem=True)
                return
        self.play_human(action)

    # -- keys and clicks ---------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action not in keys.GAME_ACTIONS and action != "not_now":
            return True
        if isinstance(self.screen, ModalScreen) or self.too_small:
            return False  # a screen on top, or no table to see: no move from here
        return action == "not_now" or self.key_bar.shows(action)

    def action_pick(self, n: int) -> None:
        """A number key: a line of the meld window, or a card of the hand; a
        number past the last line or card says which keys there are."""
        if self.turn.in_window:
            options = describe.window_options(self.session.observation(), self.legal)
            if 1 <= n <= len(options):
                self.play_human(options[n - 1].action)
            else:
                self.flash(tr("tui.no_such_line", n=len(options)), problem=True)
        elif n <= len(self.hand):
            self.try_card(n - 1)
        else:
            self.flash(tr("tui.no_such_card", n=len(self.hand)), problem=True)

    def on_key(self, event: events.Key) -> None:
        """A letter that no key of the table takes says so, and where the
        keys are listed, instead of doing nothing."""
        if not event.is_printable or isinstance(self.screen, ModalScreen) or self.too_small:
            return
        if event.key not in self.screen.active_bindings:
            deal = self.session.deal
            stock_open = deal is not None and not deal.stock_empty
            if event.key == "d" and self.waiting == Waiting.HUMAN:  # draw, too soon or too late
                self.flash(tr("tui.draw_not_now" if stock_open else "tui.why_no_stock"),
                           problem=True)
                return
            self.flash(tr("tui.key_does_nothing", key=event.character or event.key), problem=True)

    def action_move(self, step: int) -> None:
        self.cursor = moved_cursor(self.hand, self.turn.playable, self.cursor, step)

    def action_confirm(self) -> None:
        if self.turn.in_window:
            action = self.table.highlighted_action()
            if action is not None:
                self.choose_option(action)
        elif self.cursor is not None:
            self.try_card(self.cursor)

    def action_draw(self) -> None:
        self.play_human(DRAW)

    def action_not_now(self, what: str) -> None:
        """A key that does nothing now says why."""
        if what == "hint":
            self.flash(tr("tui.hint_not_now"))
        elif self.waiting == Waiting.BOT:
            self.flash(tr("tui.bot_thinking_next", name=self.session.names[1]))
        elif self.waiting == Waiting.SUMMARY:  # the last trick in view, then the summary
            self.flash(tr("tui.deal_over_summary_next"))
        elif self.waiting != Waiting.HUMAN:
            self.flash(tr("tui.not_now"))

    def action_help(self) -> None:
        if not isinstance(self.screen, ModalScreen):
            self.push_screen(HelpScreen(self.session.match.rules, self.session.resume_hint))

    def action_quit_game(self) -> None:
        self.exit()

    @on(OptionList.OptionSelected, "#window-options")
    def _option_chosen(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id is not None:
            self.choose_option(int(event.option.id))

    @on(CardView.Clicked)
    def _card_clicked(self, event: CardView.Clicked) -> None:
        view = event.view
        if isinstance(view.parent, Hand) and view.index >= 0:
            self.try_card(view.index)

    def on_resize(self, event: events.Resize) -> None:
        if self.waiting != Waiting.START:  # before on_ready the table is not composed
            self._fit(event.size.width, event.size.height)

    def _fit(self, width: int, height: int) -> None:
        """Below MIN_SIZE the panels would cover the hand: say so instead."""
        small = width < MIN_SIZE[0] or height < MIN_SIZE[1]
        notice = tr("tui.too_small", w=width, h=height, min_w=MIN_SIZE[0], min_h=MIN_SIZE[1])
        command = self.session.resume_hint_for(plain=True)
        if command:
            notice += "\n" + tr("tui.too_small_plain")
        self.table.show_too_small(notice if small else None, command, width)
        self.too_small = small
        self.refresh_table()
        # the players' lines are fitted to their own widths, which the
        # layout after this event sets: fit them again then (else they kept
        # a small window's short words after the window grew)
        self.call_after_refresh(self.refresh_table)

    # -- the bot -----------------------------------------------------------------

    def start_bot(self) -> None:
        request = self.session.bot_request()
        self.turn = NO_TURN
        self.waiting = Waiting.BOT
        self.refresh_table()
        self._think(request, time.monotonic())

    @work(thread=True, group="bot", exit_on_error=False, name="bot")
    def _think(self, request: Turn, started: float) -> None:
        """Ask the bot on a worker thread; answer on the screen's thread."""
        try:
            action: int | None = self.session.bot_choose(request)
            error: Exception | None = None
        except Exception as exc:  # a bot bug must not kill the game unsaved
            action, error = None, exc
        elapsed = time.monotonic() - started
        try:
            self.call_from_thread(self._bot_answered, request, action, error, elapsed)
        except RuntimeError:  # the app closed meanwhile
            pass

    def _bot_answered(
        self, request: Turn, action: int | None, error: Exception | None, elapsed: float
    ) -> None:
        if isinstance(error, BotFault):
            detail = self.session.fault_text(error)
            self.session.forfeit(str(error))
            self.waiting = Waiting.ERROR
            name = self.session.names[1]
            self.flash(tr("tui.bot_forfeit", name=name, fault=detail), problem=True)
        elif error is not None or action is None:
            self.bot_failed(error)
        elif (delay := self._bot_pace(action) - elapsed) > 0:
            self.set_timer(delay, lambda: self._bot_apply(request, action))
        else:
            self._bot_apply(request, action)

    def _bot_pace(self, action: int) -> float:
        """The least time the bot's next action waits: a card ``pace``, a
        window action ``WINDOW_PACE`` of it, but the first action after a
        completed trick ``TRICK_PACES``, so the trick stays in view."""
        deal = self.session.deal
        moves = deal.moves if deal is not None else []
        if moves and moves[-1] < MELD_BASE and deal is not None and deal.lead is None:
            return TRICK_PACES * self.pace  # the trick just completed is still on the table
        return self.pace if action < MELD_BASE else self.pace * WINDOW_PACE

    def _bot_apply(self, request: Turn, action: int) -> None:
        if request.version != self.session.version:
            return
        try:
            lines = self.session.bot_play(request, action)
        except MarjoletError as exc:
            self.bot_failed(exc)
            return
        self.after_action(lines)

    def bot_failed(self, error: Exception | None) -> None:
        """The bot's move failed (an error, or an illegal answer): the game
        stops here, saved, and says so in the player's language."""
        self.waiting = Waiting.ERROR
        self.flash(tr("tui.bot_failed", error=error), problem=True)

    # -- hints -------------------------------------------------------------------

    def action_hint(self) -> None:
        s = self.session
        if not s.human_to_move:
            self.action_not_now("hint")
            return
        self._hint_version = s.version
        self.hint_text = tr("tui.hint_thinking")
        self._think_hint(s.version, s.observation(), self.legal)

    @work(thread=True, group="hint", exit_on_error=False, name="hint")
    def _think_hint(self, version: int, obs: Observation, legal: list[int]) -> None:
        """Ask the hint bot on a worker thread; answer on the screen's thread."""
        try:
            hint: Hint | str = compute_hint(obs, legal, self.hint_seed)
        except Exception as exc:  # a hint must never stop the game
            hint = tr("tui.no_hint", reason=exc)
        try:
            self.call_from_thread(self._hint_ready, version, hint)
        except RuntimeError:
            pass

    def _hint_ready(self, version: int, hint: Hint | str) -> None:
        if version != self.session.version or version != self._hint_version:
            return
        text = hint if isinstance(hint, str) else hint.text()
        self.hint_text = text
        self.say(text)
        if isinstance(hint, Hint):
            self.session.hint_given(hint.action)
            if hint.action in self.hand and not self.turn.in_window:
                self.cursor = self.hand.index(hint.action)
            elif self.turn.in_window:
                self.table.highlight_action(hint.action)

    # -- drawing -----------------------------------------------------------------

    def cards_text(self, line: str) -> Text:
        """``line`` with its card symbols styled (red suits in red unless
        ``NO_COLOR`` is set)."""
        return colour_cards(line, not self.no_color)

    def say(self, line: str) -> None:
        self.table.say(self.cards_text(line))

    def say_lines(self, lines: list[str]) -> None:
        for line in lines:
            self.say(line)

    def flash(self, text: str, *, problem: bool = False, lasting: bool = False) -> None:
        """Show a message above the prompt until the next action (a
        ``lasting`` one until the next move, past the start of a turn)."""
        self.note = Note(text, problem, lasting)

    def view(self) -> TableView | None:
        """What the table shows now (``None`` before the first deal)."""
        s = self.session
        if s.deal is None:
            return None
        obs = s.observation()
        choosing = self.waiting == Waiting.HUMAN and not obs.in_window
        return TableView(
            obs=obs,
            names=s.names,
            totals=s.match.totals,
            target=s.match.rules.target,
            hand=tuple(self.hand),
            playable=self.turn.playable,
            cursor=self.cursor,
            choosing=choosing,
            colour=not self.no_color,
        )

    def refresh_table(self) -> None:
        """Redraw the table, the prompt and the key bar."""
        if self.session.deal is None:
            return
        obs = self.session.observation()
        self.hand = describe.hand_order(obs.hand.mask)
        if self.waiting == Waiting.HUMAN and not obs.in_window:
            self.cursor = placed_cursor(self.hand, self.turn.playable, self.cursor)
        view = self.view()
        assert view is not None
        self.table.show(view)
        self.refresh_status()
        self._refresh_keys()

    def _refresh_keys(self) -> None:
        """The key bar for the situation (:func:`marjolet.tui.keys.key_bar`)."""
        options = 0
        if self.turn.in_window and self.session.deal is not None:
            options = len(describe.window_options(self.session.observation(), self.legal))
        self.key_bar = keys.key_bar(self.waiting, self.turn, self.hand, options)

    def refresh_status(self) -> None:
        if self.note is not None:
            self.table.show_status(self.cards_text(self.note.text), self.note.problem)
            return
        obs = self.session.observation() if self.session.deal is not None else None
        names, hand_size = self.session.names, len(self.hand)
        lines = self.cards_text(board.prompt(self.waiting, obs, names, hand_size, self.legal))
        if self.hint_text:
            lines.append("\n")
            lines.append_text(self.cards_text(self.hint_text))
        self.table.show_status(lines, False)

    # -- watchers ------------------------------------------------------------------

    def watch_waiting(self) -> None:
        self.refresh_status()
        self._refresh_keys()

    def watch_cursor(self) -> None:
        view = self.view()
        if view is not None:
            self.table.show_hand(view)

    def watch_note(self) -> None:
        self.refresh_status()

    def watch_hint_text(self) -> None:
        self.refresh_status()

    def watch_too_small(self) -> None:
        self.refresh_bindings()

    def watch_key_bar(self, bar: keys.KeyBar) -> None:
        keys.show_key_bar(self._bindings, bar)
        self.refresh_bindings()
