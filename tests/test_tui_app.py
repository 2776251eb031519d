"""The full-screen game, driven by Textual's pilot: cards by key and arrows,
the meld window, R16 refusals, whole deals, saving, resuming, hints, the
help screen, and what the screen may show (R23)."""

from __future__ import annotations

import argparse
import asyncio
import random
import re
import threading
import time
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path

from textual.pilot import Pilot
from textual.screen import ModalScreen
from textual.widgets import RichLog

from helpers import deck_for
from marjolet import record
from marjolet.actions import DIX, DRAW, MELD_BASE, parse_action
from marjolet.bots import Bot
from marjolet.cards import card_symbol
from marjolet.cli import build_parser
from marjolet.commands.play import open_session
from marjolet.match import Match
from marjolet.melds import MELD_INDEX
from marjolet.observation import Observation
from marjolet.rules import CLASSIC, Rules
from marjolet.tui import describe, saves
from marjolet.tui.app import MarjoletApp
from marjolet.tui.help import HelpScreen
from marjolet.tui.session import GameSession
from marjolet.tui.summary import DealSummaryScreen
from marjolet.tui.widgets import CardView

SIZE = (80, 24)


class FirstLegalBot(Bot):
    """Plays the lowest legal action id: a predictable opponent."""

    name = "first-legal"

    def choose(self, obs: Observation, legal: Sequence[int]) -> int:
        return min(legal)


class GatedBot(Bot):
    """Thinks until the test opens the gate, and remembers on which thread."""

    name = "gated"

    def __init__(self) -> None:
        super().__init__(seed=0)
        self.gate = threading.Event()
        self.threads: list[int] = []

    def choose(self, obs: Observation, legal: Sequence[int]) -> int:
        self.threads.append(threading.get_ident())
        self.gate.wait(timeout=30)
        return min(legal)


def screen_text(app: MarjoletApp) -> str:
    """The characters on screen, row by row."""
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())


async def settle(app: MarjoletApp, pilot: Pilot[None], limit: float = 20.0) -> None:
    """Let the bot play until the human must act or a screen is pushed."""
    end = time.monotonic() + limit
    while time.monotonic() < end:
        await pilot.pause()
        waiting = isinstance(app.screen, ModalScreen) or app.waiting in ("human", "over", "error")
        if waiting and not any(w.is_running for w in app.workers if w.group == "bot"):
            return
    raise AssertionError(f"the game did not settle (waiting for {app.waiting})")


def key_of_card(app: MarjoletApp, card: int) -> str:
    return str(app.hand.index(card) + 1)


async def human_turn(app: MarjoletApp, pilot: Pilot[None], rng: random.Random) -> None:
    """One human action by key: a random meld-window line, or a random legal
    card by its number or by arrows and Enter."""
    obs = app.session.observation()
    if obs.in_window:
        options = describe.window_options(obs, app.legal)
        await pilot.press(str(rng.randrange(len(options)) + 1))
    elif rng.random() < 0.5:
        playable = [c for c in app.hand if app.turn.playable >> c & 1]
        await pilot.press(key_of_card(app, rng.choice(playable)))
    else:
        await pilot.press("right", "enter")
    await settle(app, pilot)


def session_with_deck(
    tmp_path: Path, deck: list[int], *, first_dealer: int, bot: Bot | None = None
) -> GameSession:
    match = Match(CLASSIC, first_dealer=first_dealer, players=("You", "random"))
    match.start_deal(deck)
    session = GameSession(match, opponent="random", save_path=tmp_path / "game.json")
    if bot is not None:
        session.bot = bot
    session.save()
    return session


def session_at_last_trick(
    tmp_path: Path, *, seed: int, rules: Rules = CLASSIC, name: str = "g.json"
) -> GameSession:
    """A match whose first deal was played with the library (the human's
    cards and the random bot's drawn from ``seed``) up to the human's last
    card, saved, then opened again as ``play --resume`` opens it: for the
    tests about the end of a deal, which drive only its last trick by keys."""
    path = tmp_path / name
    session = GameSession.new(rules, opponent="random", seed=seed, save_path=path)
    session.start_deal()
    deal = session.deal
    assert deal is not None
    rng = random.Random(seed)
    while deal.to_move != session.human or deal.in_window or deal.hand_mask(0).bit_count() > 1:
        session.play(rng.choice(deal.legal_actions()), seat=deal.to_move)
    session.release_locks()
    resumed = GameSession.resume(path, seed=seed)
    assert resumed.deal is not None and resumed.deal.moves == deal.moves
    return resumed


def run_app(app: MarjoletApp, body: Callable[[Pilot[None]], Awaitable[None]]) -> None:
    async def main() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await settle(app, pilot)
            await body(pilot)

    asyncio.run(main())


def saved_actions(path: Path) -> list[tuple[int, ...]]:
    return [d.actions for d in record.load(path).deals]


def meld_session(tmp_path: Path) -> GameSession:
    """The human is the elder with A♠ 7♠ K♥ Q♥ 9♣ 8♣, trumps spades
    (indicator 10♠): A♠ wins trick 1, then K♥-Q♥ and the dix can be taken."""
    deck = deck_for("AS 7S KH QH 8C 9C", "7D 8D 9D JD QD KD", "TS", "8S 9S")
    return session_with_deck(tmp_path, deck, first_dealer=1, bot=FirstLegalBot())


def test_cards_are_played_by_number_and_by_arrows_then_enter(tmp_path: Path) -> None:
    app = MarjoletApp(meld_session(tmp_path), pace=0)

    async def body(pilot: Pilot[None]) -> None:
        assert [card_symbol(c) for c in app.hand] == ["A♠", "7♠", "K♥", "Q♥", "9♣", "8♣"]
        assert app.cursor == 0
        await pilot.press("right", "left", "right")  # the cursor moves over legal cards
        assert app.cursor == 1
        await pilot.press("left", "enter")  # A♠
        await settle(app, pilot)
        assert app.session.deal is not None
        assert app.session.deal.moves[:2] == [parse_action("AS"), parse_action("7D")]

    run_app(app, body)


def test_a_click_plays_a_card_and_takes_a_meld_window_line(tmp_path: Path) -> None:
    app = MarjoletApp(meld_session(tmp_path), pace=0)

    async def body(pilot: Pilot[None]) -> None:
        views = list(app.query("#hand CardView").results(CardView))
        assert views[0].card == parse_action("AS")
        await pilot.click(views[0])
        await settle(app, pilot)
        assert app.session.observation().in_window
        await pilot.click("#window-options", offset=(3, 0))  # the first line: K♥-Q♥
        await settle(app, pilot)
        assert saved_actions(tmp_path / "game.json")[0][-1] == MELD_BASE + MELD_INDEX["KQH"]

    run_app(app, body)


def test_meld_window_lists_values_then_declare_dix_and_draw(tmp_path: Path) -> None:
    app = MarjoletApp(meld_session(tmp_path), pace=0)
    save = tmp_path / "game.json"

    async def body(pilot: Pilot[None]) -> None:
        await pilot.press("1")  # A♠ wins trick 1
        await settle(app, pilot)
        text = screen_text(app)
        assert "Your meld window" in text
        assert "1 K♥-Q♥ marriage +20" in text
        assert "2 7♠⇄10♠ exchange +10" in text
        assert "3 draw and play on" in text
        await pilot.press("1")  # declare K♥-Q♥
        assert saved_actions(save)[0][-1] == MELD_BASE + MELD_INDEX["KQH"]
        text = screen_text(app)
        assert "K♥-Q♥ marriage" not in text.split("Your meld window")[1].split("Log")[0]
        assert "1 7♠⇄10♠ exchange +10" in text
        await pilot.press("enter")  # the highlighted line: the dix
        await settle(app, pilot)
        # nothing is left to declare, so the window closes with the draw
        assert saved_actions(save)[0][-2:] == (DIX, DRAW)
        obs = app.session.observation()
        assert obs.points[0] == 10 + 20 + 10
        text = screen_text(app)
        assert "melds K♥-Q♥" in text and "• shown" in text
        told = " ".join(strip.text.strip() for strip in app.query_one("#log", RichLog).lines)
        assert "You declared K♥-Q♥ (marriage) for 20." in told  # the journal wraps it
        assert "Your meld window" not in text

    run_app(app, body)


def test_a_key_that_does_nothing_says_which_keys_there_are(tmp_path: Path) -> None:
    app = MarjoletApp(meld_session(tmp_path), pace=0)
    save = tmp_path / "game.json"

    async def body(pilot: Pilot[None]) -> None:
        await pilot.press("7")  # six cards: no seventh
        await pilot.pause()
        assert "You have 6 cards left: keys 1 to 6." in screen_text(app)
        await pilot.press("x")
        await pilot.pause()
        assert "The key 'x' does nothing here" in screen_text(app)
        await pilot.press("d")  # the draw's key, before any trick was won
        await pilot.pause()
        assert app.note is not None and app.note.problem
        assert app.note.text.startswith("You draw after winning a trick, once your melds")
        await pilot.press("1")  # A♠ wins trick 1
        await settle(app, pilot)
        before = saved_actions(save)[0]
        await pilot.press("9")  # a window of three lines
        await pilot.pause()
        assert "The lines go from 1 to 3: keys 1 to 3" in screen_text(app)
        await pilot.press("x")
        await pilot.pause()
        assert "The key 'x' does nothing here" in screen_text(app)
        assert saved_actions(save)[0] == before  # nothing was played
        assert "Your meld window" in screen_text(app)

    run_app(app, body)


def test_d_draws_at_once_leaving_melds_undeclared(tmp_path: Path) -> None:
    app = MarjoletApp(meld_session(tmp_path), pace=0)

    async def body(pilot: Pilot[None]) -> None:
        await pilot.press("1")
        await settle(app, pilot)
        await pilot.press("d")
        await settle(app, pilot)
        assert saved_actions(tmp_path / "game.json")[0][2:] == (DRAW,)
        assert app.session.observation().points[0] == 10

    run_app(app, body)


def test_window_with_only_draw_draws_by_itself(tmp_path: Path) -> None:
    # No meld and no seven: winning trick 1 leads straight to the draw.
    deck = deck_for("AS 8S KH JH 8C 9C", "7D 8D 9D JD QD KD", "TS", "7S 9S")
    app = MarjoletApp(
        session_with_deck(tmp_path, deck, first_dealer=1, bot=FirstLegalBot()), pace=0
    )

    async def body(pilot: Pilot[None]) -> None:
        await pilot.press("1")
        await settle(app, pilot)
        assert app.session.deal is not None
        assert app.session.deal.moves[2] == DRAW
        assert app.session.human_to_move and not app.session.observation().in_window

    run_app(app, body)


def phase2_follow_match() -> Match:
    """A seeded random deal stopped where the human follows in tricks 11-16
    and R16 refuses some of their cards."""
    for seed in range(200):
        match = Match(CLASSIC, seed=seed, first_dealer=seed % 2, players=("You", "random"))
        match.start_deal()
        rng = random.Random(seed)
        deal = match.deal
        assert deal is not None
        while not deal.is_over:
            obs = match.observation(0)
            if deal.to_move == 0 and obs.stock_empty and obs.lead is not None:
                rule = describe.follow_rule(obs)
                if rule is not None and rule.allowed != obs.hand.mask:
                    return match
            match.play(rng.choice(deal.legal_actions()))
    raise AssertionError("no position found")


def test_r16_refused_card_says_why_and_is_not_played(tmp_path: Path) -> None:
    match = phase2_follow_match()
    session = GameSession(match, opponent="random", save_path=tmp_path / "game.json")
    session.save()
    app = MarjoletApp(session, pace=0)

    async def body(pilot: Pilot[None]) -> None:
        obs = session.observation()
        rule = describe.follow_rule(obs)
        assert rule is not None
        refused = next(c for c in app.hand if not rule.allowed >> c & 1)
        before = list(match.deal.moves) if match.deal else []
        views = list(app.query("#hand CardView").results(CardView))
        view = views[app.hand.index(refused)]
        assert view.has_class("illegal") and view.border_title == ""
        assert "In the last tricks" in screen_text(app)  # the prompt states the duty up front
        assert "R16" not in screen_text(app)  # in words, without the rule id
        await pilot.press(key_of_card(app, refused))
        text = " ".join(screen_text(app).split())
        assert f"{card_symbol(refused)} is not allowed. In the last tricks:" in text
        assert match.deal is not None and match.deal.moves == before
        # the arrows only visit allowed cards
        for _ in range(4):
            await pilot.press("right")
            assert app.cursor is not None and rule.allowed >> app.hand[app.cursor] & 1

    run_app(app, body)


def test_a_whole_deal_by_keys_ends_with_the_points_by_source(tmp_path: Path) -> None:
    session = GameSession.new(CLASSIC, opponent="random", seed=21, save_path=tmp_path / "g.json")
    app = MarjoletApp(session, pace=0)
    rng = random.Random(5)

    async def body(pilot: Pilot[None]) -> None:
        while not isinstance(app.screen, DealSummaryScreen):
            await human_turn(app, pilot, rng)
        deal = session.match.deals[0]
        assert deal.is_over
        text = screen_text(app)
        for label in (
            "cards (A, 10)",
            "melds",
            "seven of trumps",
            "last card of the stock",
            "last trick",
            "all six last tricks",
        ):
            assert label in text
        total = re.search(r"deal total\s+(\d+)\s+(\d+)", text)
        assert total is not None
        assert (int(total[1]), int(total[2])) == deal.points
        assert saved_actions(tmp_path / "g.json")[0] == tuple(deal.moves)
        await pilot.press("enter")
        await settle(app, pilot)
        assert len(session.match.deals) == 2
        assert len(record.load(tmp_path / "g.json").deals) == 2

    run_app(app, body)


def test_the_match_ends_with_the_winner_and_q_leaves(tmp_path: Path) -> None:
    session = GameSession.new(
        Rules.profile_named("classic").replace(target=1), opponent="random", seed=4,
        save_path=tmp_path / "g.json",
    )  # fmt: skip
    app = MarjoletApp(session, pace=0)
    rng = random.Random(2)

    async def body(pilot: Pilot[None]) -> None:
        while not isinstance(app.screen, DealSummaryScreen):
            await human_turn(app, pilot, rng)
        m = session.match
        assert m.is_over and m.winner is not None  # R22 with a target of 1
        text = screen_text(app)
        winner = "You won the match!" if m.winner == 0 else "random won the match."
        assert winner in text and "match over" in text and "new match" in text
        await pilot.press("q")

    run_app(app, body)
    assert app.return_code in (0, None)
    assert record.replay(record.load(tmp_path / "g.json")).winner == session.match.winner


def test_after_the_match_n_starts_a_new_one_in_a_new_file(tmp_path: Path) -> None:
    rules = Rules.profile_named("classic").replace(target=1)
    session = session_at_last_trick(tmp_path, seed=4, rules=rules)
    fresh = GameSession.new(rules, opponent="random", seed=5, save_path=tmp_path / "h.json")
    app = MarjoletApp(session, pace=0, new_session=lambda: fresh)
    rng = random.Random(2)

    async def body(pilot: Pilot[None]) -> None:
        while not isinstance(app.screen, DealSummaryScreen):
            await human_turn(app, pilot, rng)
        await pilot.press("n")
        await settle(app, pilot)
        assert app.session is fresh and len(fresh.match.deals) == 1
        assert "A new match begins." in " ".join(screen_text(app).split())

    run_app(app, body)
    assert record.replay(record.load(tmp_path / "g.json")).winner is not None
    assert len(record.load(tmp_path / "h.json").deals) == 1


def test_every_action_is_saved_at_once_and_the_screen_never_shows_hidden_cards(
    tmp_path: Path,
) -> None:
    session = GameSession.new(CLASSIC, opponent="random", seed=8, save_path=tmp_path / "g.json")
    app = MarjoletApp(session, pace=0)
    rng = random.Random(8)

    async def body(pilot: Pilot[None]) -> None:
        while not isinstance(app.screen, DealSummaryScreen):
            deal = session.match.deal
            assert deal is not None
            assert saved_actions(tmp_path / "g.json")[-1] == tuple(deal.moves)
            obs = session.observation()
            hidden = deal.hand_mask(1) & ~obs.opponent_known.mask
            text = screen_text(app)
            for c in range(32):
                if hidden >> c & 1:
                    assert not re.search(rf"(?<![0-9]){re.escape(card_symbol(c))}", text), (
                        card_symbol(c)
                    )
            await human_turn(app, pilot, rng)

    run_app(app, body)


def test_quit_then_resume_continues_the_last_unfinished_match(tmp_path: Path) -> None:
    session = GameSession.new(CLASSIC, opponent="random", seed=30)  # saved in the data folder
    app = MarjoletApp(session, pace=0)
    rng = random.Random(1)

    async def body(pilot: Pilot[None]) -> None:
        for _ in range(5):
            await human_turn(app, pilot, rng)
        await pilot.press("q")

    run_app(app, body)
    path = session.save_path
    assert path is not None and path.parent == saves.games_dir()
    moves = saved_actions(path)
    args = build_parser("play").parse_args(["play", "--resume"])
    assert isinstance(args, argparse.Namespace)
    resumed = open_session(args)
    assert resumed.save_path == path
    assert resumed.match.deal is not None and tuple(resumed.match.deal.moves) == moves[-1]
    app2 = MarjoletApp(resumed, pace=0)

    async def more(pilot: Pilot[None]) -> None:
        log = app2.query_one("#log", RichLog)
        lines = [strip.text.rstrip() for strip in log.lines]
        told = [i for i, line in enumerate(lines) if line.startswith("Deal 1.")]
        resumed = [i for i, line in enumerate(lines) if line.startswith("Resumed deal 1 at")]
        assert told and resumed and told[0] < resumed[0]  # the deal so far is told again
        assert "won trick 1 with" in " ".join(lines[: resumed[0]])
        for _ in range(3):
            await human_turn(app2, pilot, rng)
        await pilot.press("q")

    run_app(app2, more)
    after = saved_actions(path)
    assert after[0][: len(moves[0])] == moves[0] and len(after[0]) > len(moves[0])


def bot_leads_first(tmp_path: Path) -> tuple[GatedBot, MarjoletApp]:
    """A table where the bot (seat 1, the non-dealer) thinks first, held at
    its gate until the test lets it answer."""
    bot = GatedBot()
    deck = deck_for("7D 8D 9D JD QD KD", "AS 7S KH QH 8C 9C", "TS", "8S 9S")
    session = session_with_deck(tmp_path, deck, first_dealer=0, bot=bot)
    return bot, MarjoletApp(session, pace=0)


def test_the_bot_thinks_on_a_worker_thread_and_the_screen_stays_responsive(
    tmp_path: Path,
) -> None:
    bot, app = bot_leads_first(tmp_path)
    session = app.session

    async def main() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            assert app.waiting == "bot"
            assert "random is thinking" in screen_text(app)
            await pilot.press("h")  # the help opens while the bot thinks
            assert isinstance(app.screen, HelpScreen)
            assert session.deal is not None and session.deal.moves == []
            await pilot.press("escape")
            bot.gate.set()
            await settle(app, pilot)
            assert session.deal.moves == [parse_action("7D")]

    asyncio.run(main())
    assert bot.threads and threading.get_ident() not in bot.threads


def test_hint_shows_the_suggestion_and_moves_the_cursor(tmp_path: Path) -> None:
    app = MarjoletApp(meld_session(tmp_path), pace=0, hint_seed=3)

    async def body(pilot: Pilot[None]) -> None:
        await pilot.press("question_mark")
        for _ in range(200):
            await pilot.pause()
            if app.hint_text and "Thinking" not in app.hint_text:
                break
        assert app.hint_text is not None and app.hint_text.startswith("Hint: ")
        assert app.cursor is not None
        suggested = card_symbol(app.hand[app.cursor])
        assert f"play {suggested}" in app.hint_text
        assert "Hint: " in screen_text(app)

    run_app(app, body)


def test_help_screen_fits_80x24_with_the_keys_and_the_rules(tmp_path: Path) -> None:
    app = MarjoletApp(meld_session(tmp_path), pace=0)

    async def body(pilot: Pilot[None]) -> None:
        await pilot.press("h")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        text = screen_text(app)
        assert "Keys" in text and "hint" in text
        assert all(len(line) <= 80 for line in text.splitlines())
        for _ in range(8):  # page down to the last tricks (the resume line's length varies)
            await pilot.press("pagedown")
            await pilot.pause(0.05)
            if "follow" in screen_text(app):
                break
        assert "follow" in screen_text(app)
        await pilot.press("1", "enter", "d")  # no move from under the help
        assert app.session.deal is not None and app.session.deal.moves == []
        await pilot.press("escape")
        assert not isinstance(app.screen, HelpScreen)

    run_app(app, body)


def test_the_table_fits_80x24(tmp_path: Path) -> None:
    app = MarjoletApp(meld_session(tmp_path), pace=0)

    async def body(pilot: Pilot[None]) -> None:
        screen = app.screen.region
        table = app.query_one("#table").region
        for selector in ("#hand CardView", "#opp-hand CardView", "#middle CardView"):
            for view in app.query(selector).results(CardView):
                if view.display:
                    assert screen.contains_region(view.region), (selector, view.region)
                    assert view.region.right <= table.right
        for selector in ("#status", "#scores", "#log", "Footer", "#topbar"):
            assert screen.contains_region(app.query_one(selector).region), selector
        selected = [
            v for v in app.query("#hand CardView").results(CardView) if v.has_class("selected")
        ]
        others = [
            v for v in app.query("#hand CardView").results(CardView) if not v.has_class("selected")
        ]
        assert len(selected) == 1
        # the chosen card is raised: visible without colours
        assert all(selected[0].region.y < v.region.y for v in others if v.display)

    run_app(app, body)


def test_no_color_turns_the_screen_monochrome(tmp_path: Path, monkeypatch: object) -> None:
    import pytest

    assert isinstance(monkeypatch, pytest.MonkeyPatch)
    monkeypatch.setenv("NO_COLOR", "1")
    app = MarjoletApp(meld_session(tmp_path), pace=0)

    async def body(pilot: Pilot[None]) -> None:
        assert app.no_color
        assert "Your lead" in screen_text(app)
        red = [v for v in app.query("#hand CardView").results(CardView) if v.has_class("red")]
        assert red and all(v.styles.color.hex == "#1A1A1A" for v in red)
        assert all("#d03030" not in str(span.style) for span in app.cards_text("K♥ Q♦").spans)
        # what colour would tell is told otherwise: the chosen card is raised
        assert app.cursor is not None

    run_app(app, body)


def test_r_on_the_deal_summary_reviews_that_deal_then_returns(tmp_path: Path) -> None:
    from textual.containers import VerticalScroll

    from marjolet.tui.review import DealReviewScreen

    session = session_at_last_trick(tmp_path, seed=21)
    app = MarjoletApp(session, pace=0)
    rng = random.Random(5)

    async def body(pilot: Pilot[None]) -> None:
        while not isinstance(app.screen, DealSummaryScreen):
            await human_turn(app, pilot, rng)
        assert "r: review this deal" in screen_text(app)
        await pilot.press("r")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, DealReviewScreen)
        end = time.monotonic() + 60
        while screen.lines is None and time.monotonic() < end:
            await pilot.pause(0.1)
        assert screen.lines is not None
        text = "\n".join(screen.lines)
        assert "You:" in text and "decisions" in text and "accuracy" in text
        # the keys scroll a long review at once, with no Tab to focus it first
        # (made long for sure: how many decisions get a line depends on the search)
        screen._show([*screen.lines, *(f"line {i}" for i in range(40))])
        await pilot.pause()
        scroller = screen.query_one(VerticalScroll)
        assert scroller.has_focus and scroller.max_scroll_y > 0, scroller.max_scroll_y
        await pilot.press("end")
        await pilot.pause()
        assert scroller.scroll_y == scroller.max_scroll_y
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, DealSummaryScreen)
        assert len(session.match.deals) == 1  # nothing was played meanwhile

    run_app(app, body)


def test_a_stray_key_while_the_bot_thinks_gives_way_to_the_turns_prompt(tmp_path: Path) -> None:
    """A trial: 'x' pressed while the bot thought left « The key 'x' does
    nothing here » on screen for the whole turn, never saying what was led."""
    bot, app = bot_leads_first(tmp_path)

    async def main() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            assert app.waiting == "bot"
            await pilot.press("x")
            await pilot.pause()
            assert "The key 'x' does nothing here" in screen_text(app)
            bot.gate.set()
            await settle(app, pilot)
            assert app.waiting == "human" and app.note is None
            text = screen_text(app)
            assert "does nothing" not in text
            assert "led 7♦" in text

    asyncio.run(main())


def test_sixteen_colours_draw_the_red_suits_in_the_terminals_red(
    tmp_path: Path, monkeypatch: object
) -> None:
    """A trial under TERM=linux: #d03030 became yellow, like nothing red."""
    import pytest
    from textual import constants

    from marjolet.tui import widgets

    assert isinstance(monkeypatch, pytest.MonkeyPatch)
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setattr(constants, "COLOR_SYSTEM", "standard")
    app = MarjoletApp(meld_session(tmp_path), pace=0)
    assert app.console.color_system == "standard"

    async def body(pilot: Pilot[None]) -> None:
        red = [v for v in app.query("#hand CardView").results(CardView) if v.has_class("red")]
        assert red and all(v.styles.color.ansi == 1 for v in red)  # ansi_red
        [span] = [s for s in app.cards_text("K♥").spans if s.style]
        assert str(span.style) == "bold red"

    try:
        run_app(app, body)
    finally:
        widgets.use_colour_system("truecolor")


def test_a_french_keyboard_s_top_row_plays_cards_without_shift(tmp_path: Path) -> None:
    """On AZERTY the keys 1-9 give « & é " ' ( - è _ ç » without Shift: they
    play the cards and the meld window's lines as the digits do."""
    app = MarjoletApp(meld_session(tmp_path), pace=0)
    save = tmp_path / "game.json"

    async def body(pilot: Pilot[None]) -> None:
        await pilot.press("ampersand")  # « & »: card 1, A♠ wins trick 1
        await settle(app, pilot)
        assert "Your meld window" in screen_text(app)
        await pilot.press("é")  # « é »: line 2, the exchange of the seven
        await settle(app, pilot)
        assert DIX in saved_actions(save)[0]

    run_app(app, body)
