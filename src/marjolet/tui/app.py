"""The full-screen game: ``marjolet play`` in a terminal (Textual).

The screen is drawn only from the human's observation (R23); the bot thinks
on a worker thread so the interface stays responsive, and every action is
saved by the :class:`~marjolet.tui.session.GameSession` before the screen
moves on. Layout at 80x24::

    top bar: deal, trick, trumps, phase
    +- table ----------------------------+- score board --+
    | opponent: name, hand (backs and    | tricks/deal/   |
    |   shown cards)                     | match          |
    | stock, indicator, the trick        +- meld window --+
    | you: name, hand (keys 1-6)         | (when open)    |
    | prompt / why a card is refused     +- log ----------+
    +------------------------------------+----------------+
    footer: keys
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import ClassVar

from rich.text import Text
from textual import events, on
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Footer, OptionList, RichLog, Static
from textual.widgets.option_list import Option

from marjolet.actions import DIX, DRAW, MELD_BASE
from marjolet.bots.base import BotFault
from marjolet.cards import CARD_POINTS, SUIT_SYMBOLS
from marjolet.errors import MarjoletError
from marjolet.observation import Observation
from marjolet.tui import describe
from marjolet.tui.help import HelpScreen
from marjolet.tui.hint import Hint, compute_hint
from marjolet.tui.session import GameSession
from marjolet.tui.summary import DealSummaryScreen
from marjolet.tui.widgets import CardView, MeldMenu, colour_cards, score_table, suit_style
from marjolet.tui.words import card as card_symbol
from marjolet.tui.words import suit_name, tr, translate_bindings
from marjolet.turns import Turn

HAND_SLOTS = 6
#: How long the last trick of a deal stays in view before the summary, in paces.
LAST_TRICK_PACES = 2
#: A bot's meld-window action (declare, dix, draw) takes this share of a pace.
WINDOW_PACE = 0.5
#: The first bot action after a completed trick waits this many paces, so a
#: trick the bot won stays on the table long enough to be seen.
TRICK_PACES = 2
#: The smallest terminal the table fits in; below it a notice replaces it.
MIN_SIZE = (80, 24)
#: Actions that change the game; refused while another screen is on top.
GAME_ACTIONS = frozenset({"pick", "move", "confirm", "draw", "hint"})


class MarjoletApp(App[None]):
    """A match against the computer, one full screen."""

    TITLE = "Marjolet"
    ENABLE_COMMAND_PALETTE = False
    AUTO_FOCUS = None

    CSS = """
    Screen { layout: vertical; }
    App:nocolor CardView.red { color: #1a1a1a; }
    #topbar { height: 1; background: $primary-background; color: $text; padding: 0 1; }
    #main { height: 1fr; }
    #table { width: 1fr; padding: 0 0 0 1; }
    #side { width: 30; }
    .who { height: 1; margin-top: 1; }
    #opp-line { margin-top: 0; }
    .cards { height: 3; }
    #hand { height: 4; }
    .cards CardView { margin: 0 1 0 0; }
    #hand CardView { margin: 1 1 0 0; }
    #hand CardView.selected { margin: 0 1 1 0; }
    #middle { height: 4; margin-top: 2; }
    .column { width: 8; height: 4; }
    .column CardView { margin: 0; }
    .column .label { width: 7; height: 1; color: $text-muted; content-align: center middle; }
    #trick-gap { width: 3; }
    #trick-note { width: 1fr; height: 4; padding: 0 0 0 1; color: $text; }
    #status { height: 4; margin-top: 1; color: $text; }
    #status.problem { color: $warning; }
    #scores {
        height: 6; border: round $primary; padding: 0 1;
        border-title-align: left; border-subtitle-align: right;
    }
    #window {
        display: none; height: auto; max-height: 12;
        border: round $accent; border-title-align: left;
    }
    #window.open { display: block; }
    #window OptionList { height: auto; max-height: 10; border: none; padding: 0; }
    #log {
        height: 1fr; border: round $primary; border-title-align: left;
        scrollbar-size-vertical: 1; scrollbar-background: $surface;
    }
    #too-small { display: none; height: 1fr; content-align: center middle; text-align: center; }
    Screen.too-small #main, Screen.too-small #topbar { display: none; }
    Screen.too-small #too-small { display: block; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("1", "pick(1)", "Play card", key_display="1-6"),
        *(Binding(str(n), f"pick({n})", show=False) for n in range(2, 10)),
        Binding("left", "move(-1)", "Choose", key_display="←→"),
        Binding("right", "move(1)", show=False),
        Binding("enter,space", "confirm", "Play", key_display="⏎"),
        Binding("d", "draw", "Draw"),
        Binding("question_mark", "hint", "Hint", key_display="?"),
        Binding("h,f1", "help", "Help"),
        Binding("q", "quit_game", "Quit"),
        Binding("ctrl+c", "quit_game", show=False, priority=True),
    ]

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
        self.session = session
        self.pace = pace
        self.new_session = new_session
        self.hint_seed = hint_seed
        #: What the game waits for: "human", "bot", "summary", "over", "error".
        self.waiting = "start"
        self.legal: list[int] = []
        self.hand: list[int] = []
        self.cursor: int | None = None
        self.message: str | None = None
        self.message_is_problem = False
        self.hint_text: str | None = None
        self._hint_version: int | None = None
        #: The terminal is below MIN_SIZE: a notice instead of the table.
        self.too_small = False
        #: Enter on *draw* was pressed once with a meld still to declare.
        self._draw_armed = False

    # -- layout ------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Static(id="topbar")
        yield Static(id="too-small")
        with Horizontal(id="main"):
            with Vertical(id="table"):
                yield Static(id="opp-line", classes="who")
                with Horizontal(id="opp-hand", classes="cards"):
                    for i in range(HAND_SLOTS):
                        yield CardView(i)
                with Horizontal(id="middle"):
                    with Vertical(classes="column"):
                        yield CardView(id="stock")
                        yield Static(id="stock-label", classes="label")
                    with Vertical(classes="column"):
                        yield CardView(id="indicator")
                        yield Static(id="indicator-label", classes="label")
                    yield Static(id="trick-gap")
                    with Vertical(classes="column"):
                        yield CardView(id="trick-opp")
                        yield Static(id="trick-opp-label", classes="label")
                    with Vertical(classes="column"):
                        yield CardView(id="trick-me")
                        yield Static(id="trick-me-label", classes="label")
                    yield Static(id="trick-note")
                yield Static(id="me-line", classes="who")
                with Horizontal(id="hand", classes="cards"):
                    for i in range(HAND_SLOTS):
                        yield CardView(i)
                yield Static(id="status")
            with Vertical(id="side"):
                yield Static(id="scores")
                with Vertical(id="window"):
                    yield MeldMenu(id="window-options")
                log = RichLog(id="log", wrap=True, markup=False, auto_scroll=True, min_width=10)
                log.can_focus = False
                yield log
        yield Footer()

    def on_mount(self) -> None:
        self._fit(self.size.width, self.size.height)
        self.query_one("#scores").border_title = tr("tui.score")
        self.query_one("#log").border_title = tr("tui.log")
        self.query_one("#window").border_title = tr("tui.window")
        s = self.session
        bot = s.names[1] if s.names[1] == s.opponent_spec else f"{s.names[1]} ({s.opponent_spec})"
        self.say(tr("tui.welcome", bot=bot))
        for note in s.notes:
            self.say(note)
        if s.deal_in_progress:
            self.say_lines(s.history())
        if s.deal_in_progress and s.resumed:
            obs = s.observation()
            self.say(
                tr("tui.resumed", n=obs.deal_index + 1, trick=min(obs.tricks_played + 1, 16))
            )
        elif s.resumed and s.match.deals:
            t = s.match.totals
            self.say(tr("tui.resumed_after", n=len(s.match.deals), a=t[0], name=s.names[1], b=t[1]))
        self.advance()

    # -- the game loop -----------------------------------------------------------

    def advance(self) -> None:
        """Move the game on until the human must act, the bot is thinking or
        a deal summary is on screen."""
        s = self.session
        while True:
            if s.match.is_over:
                self.waiting = "over"
                self.refresh_table()
                return
            if s.match.needs_deal:
                self.say_lines(s.start_deal())
            if s.human_to_move:
                legal = s.legal()
                if legal == [DRAW]:  # won the trick with nothing to declare
                    self.say_lines(s.play(DRAW))
                    if self._deal_finished():
                        return
                    continue
                self.begin_human_turn(legal)
                return
            self.start_bot()
            return

    def _deal_finished(self) -> bool:
        """After an action: when the deal is over, show its summary."""
        d = self.session.deal
        if d is None or not d.is_over:
            return False
        self.waiting = "summary"
        self.legal = []
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
        self.push_screen(
            DealSummaryScreen(
                deal_number=len(m.deals),
                names=self.session.names,
                breakdowns=(d.breakdown(0), d.breakdown(1)),
                totals=m.totals,
                target=m.rules.target,
                winner=m.winner,
                rules=m.rules,
            ),
            callback=self._summary_closed,
        )

    def _summary_closed(self, result: str | None) -> None:
        if result == "review":  # r: review the deal, then the summary again
            from marjolet.record import Record
            from marjolet.tui.review import DealReviewScreen

            m = self.session.match
            screen = DealReviewScreen(Record.from_match(m), len(m.deals) - 1, self.session.names)
            self.push_screen(screen, callback=lambda _: self._show_summary())
        elif result == "quit":
            self.action_quit_game()
        elif result == "new":
            if self.new_session is None:
                self.action_quit_game()
                return
            self.session = self.new_session()
            self.say(tr("tui.new_match"))
            self.advance()
        else:
            self.advance()

    def after_action(self, lines: list[str]) -> None:
        self.say_lines(lines)
        if self.session.save_error:
            self.flash(self.session.save_error, problem=True)
        if not self._deal_finished():
            self.advance()

    # -- the human ---------------------------------------------------------------

    def begin_human_turn(self, legal: list[int]) -> None:
        self.waiting = "human"
        self.legal = legal
        self._draw_armed = False
        if not self.message_is_problem:  # "... is thinking" is over: the turn is yours
            self.message = None
        obs = self.session.observation()
        window = self.query_one("#window")
        options = self.query_one("#window-options", OptionList)
        if obs.in_window:
            options.clear_options()
            for n, opt in enumerate(describe.window_options(obs, legal), 1):
                options.add_option(Option(self._option_text(n, opt), id=str(opt.action)))
            options.highlighted = 0
            window.add_class("open")
            options.focus()
            self.cursor = None
        else:
            window.remove_class("open")
            self.set_focus(None)
            self._place_cursor(obs)
        self.refresh_table()

    def _option_text(self, n: int, opt: describe.WindowOption) -> Text:
        text = Text(f"{n} ", style="bold")
        if opt.action == DRAW:
            text.append(tr("tui.option_draw"))
            return text
        label = opt.kind if opt.action < MELD_BASE + 4 else f"{opt.cards} {opt.kind}"
        if opt.action == DIX:
            label = f"{opt.cards} {tr('tui.option_dix')}"
        text.append_text(self.cards_text(label))
        text.append(f" +{opt.value}", style="bold")
        return text

    def _playable(self) -> int:
        """The mask of the cards the human may play now."""
        if self.waiting != "human":
            return 0
        mask = 0
        for a in self.legal:
            if a < MELD_BASE:
                mask |= 1 << a
        return mask

    def _place_cursor(self, obs: Observation) -> None:
        self.hand = describe.hand_order(obs.hand.mask)
        playable = self._playable()
        if (
            self.cursor is not None
            and self.cursor < len(self.hand)
            and playable >> self.hand[self.cursor] & 1
        ):
            return
        self.cursor = next((i for i, c in enumerate(self.hand) if playable >> c & 1), None)

    def play_human(self, action: int) -> None:
        if self.waiting != "human" or not self.session.human_to_move:
            return
        try:
            lines = self.session.play(action)
        except MarjoletError as exc:
            self.flash(str(exc), problem=True)
            return
        self.message = None
        self.hint_text = None
        self.after_action(lines)

    def try_card(self, index: int) -> None:
        """The human chose the card at ``index`` of the hand (key or click)."""
        if self.waiting != "human":
            self.flash(self._not_now())
            return
        if index >= len(self.hand):
            return
        c = self.hand[index]
        obs = self.session.observation()
        if obs.in_window:
            self.flash(tr("tui.declare_first"), problem=True)
            return
        reason = describe.why_not_allowed(obs, c)
        if reason is not None:
            self.bell()
            self.flash(reason, problem=True)
            return
        self.play_human(c)

    def _not_now(self) -> str:
        if self.waiting == "bot":
            return tr("tui.bot_thinking_next", name=self.session.names[1])
        return tr("tui.not_now")

    # -- keys --------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in GAME_ACTIONS and isinstance(self.screen, ModalScreen):
            return False  # the help or a deal summary is on top: no move from here
        if action in GAME_ACTIONS and self.too_small:
            return False  # no move on a table the player cannot see
        in_window = self.waiting == "human" and DRAW in self.legal
        if action == "draw":
            return True if in_window else None
        if action in ("move", "confirm"):
            return True if self.waiting == "human" else None
        return True

    def action_pick(self, n: int) -> None:
        if self.waiting == "human" and DRAW in self.legal:
            options = describe.window_options(self.session.observation(), self.legal)
            if 1 <= n <= len(options):
                self.play_human(options[n - 1].action)
            return
        if n <= HAND_SLOTS:
            self.try_card(n - 1)

    def action_move(self, step: int) -> None:
        if self.waiting != "human" or DRAW in self.legal:
            return
        playable = self._playable()
        choices = [i for i, c in enumerate(self.hand) if playable >> c & 1]
        if not choices:
            return
        if self.cursor not in choices:
            self.cursor = choices[0]
        else:
            self.cursor = choices[(choices.index(self.cursor) + step) % len(choices)]
        self.refresh_table()

    def action_confirm(self) -> None:
        if self.waiting != "human":
            self.flash(self._not_now())
            return
        if DRAW in self.legal:
            options = self.query_one("#window-options", OptionList)
            if options.highlighted is not None:
                option = options.get_option_at_index(options.highlighted)
                assert option.id is not None
                self.choose_option(int(option.id))
            return
        if self.cursor is not None:
            self.try_card(self.cursor)

    def action_draw(self) -> None:
        if self.waiting == "human" and DRAW in self.legal:
            self.play_human(DRAW)

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

    @on(OptionList.OptionSelected, "#window-options")
    def _option_chosen(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id is not None:
            self.choose_option(int(event.option.id))

    def on_resize(self, event: events.Resize) -> None:
        self._fit(event.size.width, event.size.height)

    def _fit(self, width: int, height: int) -> None:
        """Below MIN_SIZE the panels would cover the hand: say so instead."""
        small = width < MIN_SIZE[0] or height < MIN_SIZE[1]
        self.too_small = small
        self.screen_stack[0].set_class(small, "too-small")
        if small:
            notice = tr("tui.too_small", w=width, h=height, min_w=MIN_SIZE[0], min_h=MIN_SIZE[1])
            self.query_one("#too-small", Static).update(notice)
        self.refresh_bindings()

    @on(CardView.Clicked)
    def _card_clicked(self, event: CardView.Clicked) -> None:
        view = event.view
        if view.parent is not None and view.parent.id == "hand" and view.index >= 0:
            self.try_card(view.index)

    def action_help(self) -> None:
        if not isinstance(self.screen, ModalScreen):
            self.push_screen(HelpScreen(self.session.match.rules))

    def action_quit_game(self) -> None:
        self.exit()

    # -- the bot -----------------------------------------------------------------

    def start_bot(self) -> None:
        s = self.session
        request = s.bot_request()
        self.waiting = "bot"
        self.legal = []
        self.refresh_table()
        started = time.monotonic()

        def think() -> None:
            try:
                action: int | None = s.bot_choose(request)
                error: Exception | None = None
            except Exception as exc:  # a bot bug must not kill the game unsaved
                action, error = None, exc
            elapsed = time.monotonic() - started
            try:
                self.call_from_thread(self._bot_answered, request, action, error, elapsed)
            except RuntimeError:  # the app closed meanwhile
                pass

        self.run_worker(think, thread=True, group="bot", exit_on_error=False, name="bot")

    def _bot_answered(
        self, request: Turn, action: int | None, error: Exception | None, elapsed: float
    ) -> None:
        if isinstance(error, BotFault):
            self.session.forfeit(str(error))
            self.waiting = "error"
            self.flash(tr("tui.bot_forfeit", name=self.session.names[1], fault=error), problem=True)
            return
        if error is not None or action is None:
            self.bot_failed(error)
            return
        pace = self._bot_pace(action)
        delay = pace - elapsed
        if delay > 0:
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
        self.waiting = "error"
        self.flash(tr("tui.bot_failed", error=error), problem=True)

    # -- hints -------------------------------------------------------------------

    def action_hint(self) -> None:
        s = self.session
        if self.waiting != "human" or not s.human_to_move:
            self.flash(tr("tui.hint_not_now"))
            return
        obs, legal, version = s.observation(), list(self.legal), s.version
        self._hint_version = version
        self.hint_text = tr("tui.hint_thinking")
        self.refresh_status()
        seed = self.hint_seed

        def think() -> None:
            try:
                hint: Hint | str = compute_hint(obs, legal, seed)
            except Exception as exc:  # a hint must never stop the game
                hint = tr("tui.no_hint", reason=exc)
            try:
                self.call_from_thread(self._hint_ready, version, hint)
            except RuntimeError:
                pass

        self.run_worker(think, thread=True, group="hint", exit_on_error=False, name="hint")

    def _hint_ready(self, version: int, hint: Hint | str) -> None:
        if version != self.session.version or version != self._hint_version:
            return
        text = hint if isinstance(hint, str) else hint.text()
        self.hint_text = text
        self.say(text)
        if isinstance(hint, Hint) and hint.action < MELD_BASE and hint.action in self.hand:
            self.cursor = self.hand.index(hint.action)
        elif isinstance(hint, Hint) and DRAW in self.legal:
            options = describe.window_options(self.session.observation(), self.legal)
            for i, opt in enumerate(options):
                if opt.action == hint.action:
                    self.query_one("#window-options", OptionList).highlighted = i
        self.refresh_table()

    # -- drawing -----------------------------------------------------------------

    def cards_text(self, line: str) -> Text:
        """``line`` with its card symbols styled (red suits in red unless
        ``NO_COLOR`` is set)."""
        return colour_cards(line, not self.no_color)

    def say(self, line: str) -> None:
        self.query_one("#log", RichLog).write(self.cards_text(line))

    def say_lines(self, lines: list[str]) -> None:
        for line in lines:
            self.say(line)

    def flash(self, text: str, *, problem: bool = False) -> None:
        """Show a message above the prompt until the next action."""
        self.message = text
        self.message_is_problem = problem
        self.refresh_status()

    def refresh_table(self) -> None:
        s = self.session
        if s.deal is None:
            return
        obs = s.observation()
        if obs.in_window or self.waiting != "human":
            self.hand = describe.hand_order(obs.hand.mask)
        else:
            self._place_cursor(obs)
        self._draw_topbar(obs)
        self._draw_opponent(obs)
        self._draw_middle(obs)
        self._draw_me(obs)
        self._draw_scores(obs)
        self.refresh_status()
        self.refresh_bindings()

    def _draw_topbar(self, obs: Observation) -> None:
        trick = obs.tricks_played if obs.in_window or obs.to_move < 0 else obs.tricks_played + 1
        bar = Text()
        bar.append("Marjolet", style="bold")
        bar.append(tr("tui.topbar", n=obs.deal_index + 1, trick=min(max(trick, 1), 16)))
        bar.append(
            SUIT_SYMBOLS[obs.trump] + " " + suit_name(obs.trump),
            style=suit_style(obs.trump, not self.no_color),
        )
        bar.append("  │  ")
        bar.append(tr("tui.phase2") if obs.stock_empty else tr("tui.phase1"))
        self.query_one("#topbar", Static).update(bar)

    def _draw_opponent(self, obs: Observation) -> None:
        opp = obs.opponent
        s = self.session
        line = Text()
        line.append(s.names[1], style="bold")
        line.append(tr("tui.dealer") if obs.dealer == opp else tr("tui.elder"))
        line.append(tr("tui.n_cards", n=obs.hand_sizes[opp]))
        if obs.melds[opp]:
            line.append_text(
                self.cards_text(
                    tr("tui.melds") + describe.melds_text(obs.melds[opp], obs.trump, obs.rules)
                )
            )
        self.query_one("#opp-line", Static).update(line)
        known = describe.hand_order(obs.opponent_known.mask)
        exposed = obs.exposed[opp].mask
        views = list(self.query("#opp-hand CardView").results(CardView))
        hidden = obs.hand_sizes[opp] - len(known)
        for i, view in enumerate(views):
            if i < len(known):
                c = known[i]
                view.show_face(c, subtitle="•" if exposed >> c & 1 else "")
            elif i < len(known) + hidden:
                view.show_back()
            else:
                view.hide()

    def _draw_middle(self, obs: Observation) -> None:
        stock = self.query_one("#stock", CardView)
        indicator = self.query_one("#indicator", CardView)
        hidden_stock = max(0, obs.stock_size - 1)
        if hidden_stock:
            stock.show_back()
            stock.update(str(hidden_stock))
        else:
            stock.show_empty()
        self.query_one("#stock-label", Static).update(
            tr("tui.stock") if obs.stock_size else tr("tui.empty")
        )
        if obs.indicator is not None:
            indicator.show_face(obs.indicator)
            label = Text(tr("tui.trumps"))
        else:
            indicator.show_empty(SUIT_SYMBOLS[obs.trump])
            label = Text(tr("tui.taken"))
        self.query_one("#indicator-label", Static).update(label)
        me, opp = obs.seat, obs.opponent
        names = self.session.names
        mine = self.query_one("#trick-me", CardView)
        theirs = self.query_one("#trick-opp", CardView)
        note = Text()
        slot: dict[int, CardView] = {me: mine, opp: theirs}
        if obs.lead is not None:
            leader = obs.to_move ^ 1
            slot[leader].show_face(obs.lead)
            slot[leader ^ 1].show_empty("?" if obs.to_move == leader ^ 1 else "")
            note.append(tr("tui.you_led") if leader == me else tr("tui.led", name=names[1]))
        else:
            tricks = describe.tricks_of(obs)
            if tricks:
                last = tricks[-1]
                for seat, c in ((last.leader, last.lead), (last.leader ^ 1, last.follow)):
                    slot[seat].show_face(c)
                won = "tui.trick_you_win" if last.winner == me else "tui.trick_wins"
                note.append(tr(won, n=last.number, name=names[1]), style="bold")
                pts = CARD_POINTS[last.lead] + CARD_POINTS[last.follow]
                if pts:
                    note.append(f" +{pts}")
            else:
                mine.show_empty()
                theirs.show_empty()
                note.append(tr("tui.new_deal"))
        self.query_one("#trick-note", Static).update(note)
        self.query_one("#trick-opp-label", Static).update(names[1][:8])
        self.query_one("#trick-me-label", Static).update(tr("tui.you"))

    def _draw_me(self, obs: Observation) -> None:
        me = obs.seat
        s = self.session
        line = Text()
        line.append(s.names[0], style="bold")
        line.append(tr("tui.dealer") if obs.dealer == me else tr("tui.elder"))
        if obs.melds[me]:
            line.append_text(
                self.cards_text(
                    tr("tui.melds") + describe.melds_text(obs.melds[me], obs.trump, obs.rules)
                )
            )
        if obs.exposed[me]:
            line.append(tr("tui.shown"))
        self.query_one("#me-line", Static).update(line)
        playable = self._playable()
        choosing = self.waiting == "human" and not obs.in_window
        exposed = obs.exposed[me].mask
        views = list(self.query("#hand CardView").results(CardView))
        for i, view in enumerate(views):
            if i >= len(self.hand):
                view.hide()
                continue
            c = self.hand[i]
            classes = []
            allowed = not choosing or bool(playable >> c & 1)
            if not allowed:
                classes.append("illegal")
            if choosing and i == self.cursor:
                classes.append("selected")
            view.show_face(
                c,
                title=str(i + 1) if choosing and allowed else "",
                subtitle="•" if exposed >> c & 1 else "",
                classes=classes,
            )

    def _draw_scores(self, obs: Observation) -> None:
        m = self.session.match
        tricks = (len(obs.won[0]) // 2, len(obs.won[1]) // 2)
        board = self.query_one("#scores", Static)
        board.update(score_table(self.session.names, tricks, obs.points, m.totals))
        board.border_subtitle = tr("tui.match_to", n=m.rules.target)

    def refresh_status(self) -> None:
        status = self.query_one("#status", Static)
        if self.message:
            lines = self.cards_text(self.message)
        else:
            lines = self.cards_text(self._prompt())
            if self.hint_text:
                lines.append("\n")
                lines.append_text(self.cards_text(self.hint_text))
        status.set_class(bool(self.message) and self.message_is_problem, "problem")
        status.update(lines)

    def _prompt(self) -> str:
        s = self.session
        if self.waiting == "bot":
            return tr("tui.thinking", name=s.names[1])
        if self.waiting in ("summary", "over"):
            return tr("prompt.deal_over")
        if self.waiting != "human":
            return ""
        obs = s.observation()
        if obs.in_window:
            return tr("tui.prompt_window")
        keys = f"1-{len(self.hand)}" if len(self.hand) > 1 else "1"
        if obs.lead is None:
            return tr("tui.prompt_lead", keys=keys)
        led = card_symbol(obs.lead)
        rule = describe.follow_rule(obs)
        if rule is not None:
            return tr("tui.prompt_rule", name=s.names[1], card=led, rule=rule.explain())
        if obs.stock_empty:
            return tr("tui.prompt_any2", name=s.names[1], card=led, keys=keys)
        return tr("tui.prompt_any", name=s.names[1], card=led, keys=keys)
