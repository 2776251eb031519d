"""The terminal's fixes of issue 13: the too-small notice, the forced hint,
the prompt after the bot's move, the deal summary's keys, the meld menu and
its draw confirmation, and the time a trick the bot won stays on the table."""

from __future__ import annotations

import asyncio
import random
import re
import threading
from collections.abc import Sequence
from pathlib import Path

from textual.pilot import Pilot
from textual.widgets import OptionList

from helpers import deck_for
from marjolet.actions import DRAW, MELD_BASE, parse_action
from marjolet.bots import Bot
from marjolet.bots.hint import hint
from marjolet.match import Match
from marjolet.observation import Observation
from marjolet.rules import CLASSIC
from marjolet.tui.app import MarjoletApp
from marjolet.tui.help import HelpScreen
from marjolet.tui.hint import Hint
from marjolet.tui.summary import DealSummaryScreen
from marjolet.tui.widgets import GameLog
from test_tui_app import (
    SIZE,
    GatedBot,
    human_turn,
    meld_session,
    run_app,
    saved_actions,
    screen_text,
    session_at_last_trick,
    session_with_deck,
    settle,
)


def test_below_80x24_a_notice_replaces_the_table_and_keys_play_nothing(tmp_path: Path) -> None:
    app = MarjoletApp(meld_session(tmp_path), pace=0)

    async def main() -> None:
        async with app.run_test(size=(60, 20)) as pilot:
            await settle(app, pilot)
            text = screen_text(app)
            assert "Make the terminal at least 80x24: it is 60x20." in text
            # and how to go on without a larger screen: this match, line by line
            flat = " ".join(text.split())
            assert "quit (q) and go on line by line:" in flat
            command = app.session.resume_hint_for(plain=True)
            assert "--plain" in command and "--resume" in command
            # the command to type starts a line of its own
            said = [line.strip() for line in text.splitlines() if "line by line" in line]
            assert said == ["On a small screen, quit (q) and go on line by line:"]
            # from the left edge, in lines a shell reads as one: a trial pasted
            # one the terminal wrapped ("--plain: command not found"), another
            # one cut at the edge, which started a new match
            rows = text.splitlines()
            start = command.split()[0]
            first = next((i for i, r in enumerate(rows) if r.startswith(start)), None)
            assert first is not None, "\n".join([command, *rows])
            shown = []
            for row in rows[first:]:
                shown.append(row.rstrip())
                if not row.rstrip().endswith("\\"):
                    break
            assert len(shown) > 1 and all(len(row) <= 60 for row in shown)
            assert "\n".join(shown).replace("\\\n", "") == command
            assert "A♠" not in text  # no half-covered hand
            await pilot.press("1")
            assert app.session.deal is not None and app.session.deal.moves == []
            await pilot.resize_terminal(*SIZE)
            await pilot.pause()
            text = screen_text(app)
            assert "at least 80x24" not in text and "A♠" in text
            assert text.splitlines()[0].startswith(" Marjolet  deal 1")  # the bar's full width
            await pilot.press("1")
            await settle(app, pilot)
            assert app.session.deal.moves[:1] == [parse_action("AS")]

    asyncio.run(main())


def test_a_forced_move_hint_claims_no_margin() -> None:
    match = Match(CLASSIC, first_dealer=1, seed=3)
    match.start_deal()
    deal = match.deal
    assert deal is not None
    while len(deal.legal_actions()) > 1 or not deal.stock_empty:
        deal.push(deal.legal_actions()[0])
    obs = match.observation(deal.to_move)
    advice = hint(obs, deal.legal_actions())
    assert advice.forced and not advice.exact
    text = Hint(advice.action, "pimc", advice.value, advice.exact, None, advice.forced).text()
    assert "only legal move" in text and "exactly" not in text and "margin" not in text


def test_the_thinking_notice_goes_when_the_bot_has_played(tmp_path: Path) -> None:
    bot = GatedBot()
    deck = deck_for("7D 8D 9D JD QD KD", "AS 7S KH QH 8C 9C", "TS", "8S 9S")
    app = MarjoletApp(session_with_deck(tmp_path, deck, first_dealer=0, bot=bot), pace=0)

    async def main() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            await pilot.press("1")  # too early: the bot is thinking
            assert "your turn comes next" in screen_text(app)
            bot.gate.set()
            await settle(app, pilot)
            assert app.waiting == "human"
            assert "your turn comes next" not in screen_text(app)

    asyncio.run(main())


def test_in_the_deal_summary_esc_goes_on_and_h_opens_the_help(tmp_path: Path) -> None:
    session = session_at_last_trick(tmp_path, seed=4)
    app = MarjoletApp(session, pace=0)
    rng = random.Random(2)

    async def body(pilot: Pilot[None]) -> None:
        while not isinstance(app.screen, DealSummaryScreen):
            await human_turn(app, pilot, rng)
        await pilot.press("h")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, DealSummaryScreen)
        await pilot.press("escape")  # closes the summary: the next deal, not the end
        await settle(app, pilot)
        assert not isinstance(app.screen, DealSummaryScreen)
        assert len(session.match.deals) == 2 and app.is_running

    run_app(app, body)


def test_the_meld_menu_does_not_wrap_and_enter_on_draw_asks_first(tmp_path: Path) -> None:
    app = MarjoletApp(meld_session(tmp_path), pace=0)
    save = tmp_path / "game.json"

    async def body(pilot: Pilot[None]) -> None:
        await pilot.press("1")  # A♠ wins trick 1: K♥-Q♥, the dix, draw
        await settle(app, pilot)
        menu = app.query_one("#window-options", OptionList)
        await pilot.press("up")
        assert menu.highlighted == 0  # no wrap to "draw"
        await pilot.press("down", "down", "down", "down")
        assert menu.highlighted == 2  # stops on "draw"
        await pilot.press("enter")
        await pilot.pause()
        assert saved_actions(save)[0][-1] < MELD_BASE  # nothing drawn yet
        assert "Draw without declaring K♥-Q♥ marriage (+20)?" in screen_text(app)
        await pilot.press("enter")
        await settle(app, pilot)
        assert DRAW in saved_actions(save)[0]

    run_app(app, body)


class AnswerOnceBot(Bot):
    """Answers its first move at once (the lowest legal action), then waits."""

    name = "answer-once"

    def __init__(self) -> None:
        super().__init__(seed=0)
        self.calls = 0
        self.gate = threading.Event()

    def choose(self, obs: Observation, legal: Sequence[int]) -> int:
        self.calls += 1
        if self.calls > 1:
            self.gate.wait(timeout=30)
        return min(legal)


def test_a_trick_the_bot_wins_stays_twice_as_long(tmp_path: Path) -> None:
    bot = AnswerOnceBot()
    # the human leads 8♣; the bot answers 10♣ (its lowest card) and wins
    deck = deck_for("AS 7S KH QH 8C 9C", "TC 8D 9D JD QD KD", "TS", "8S 9S")
    app = MarjoletApp(session_with_deck(tmp_path, deck, first_dealer=1, bot=bot), pace=0)

    async def main() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await settle(app, pilot)
            assert app._bot_pace(parse_action("8C")) == 0  # pace 0 in tests
            app.pace = 0.7
            assert app._bot_pace(parse_action("8C")) == 0.7
            await pilot.press(str(app.hand.index(parse_action("8C")) + 1))
            for _ in range(100):
                await pilot.pause()
                if bot.calls >= 2:
                    break
            deal = app.session.deal
            assert deal is not None and deal.in_window and deal.to_move == 1
            assert app._bot_pace(DRAW) == 1.4  # the trick the bot won stays 1.4 s
            bot.gate.set()

    asyncio.run(main())


def test_the_start_screen_offers_player_levels_and_the_first_dealer(tmp_path: Path) -> None:
    from marjolet.bots import bot_names
    from marjolet.bots.levels import DEFAULT_LEVEL, level
    from marjolet.cli import build_parser
    from marjolet.commands.play import open_session
    from marjolet.tui.start import StartApp, StartChoice, menu

    choices, default = menu()
    assert choices[default] == level(DEFAULT_LEVEL)  # the project's preselected level
    app = StartApp(choices, default)
    picked: list[StartChoice | None] = []

    async def main() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            wanted = level(DEFAULT_LEVEL)
            assert app.chosen() == StartChoice(wanted.spec, None, wanted.name("en"))
            text = screen_text(app)  # type: ignore[arg-type]
            assert "Opponent" in text and "First dealer" in text
            assert text.count("random") == 1  # only in "drawn at random"
            for choice in choices:
                assert choice.name("en") in text
            assert choices[default].about("en") in " ".join(text.split())
            for program in set(bot_names()) - {"random"}:  # no program name on screen
                assert re.search(rf"\b{re.escape(program)}\b", text) is None, program
            await pilot.press("home")  # the first level of the list
            await pilot.press("tab", "down")  # "you" deal first
            await pilot.press("enter")
            await pilot.pause()
            picked.append(app.return_value)
            assert picked[0] == StartChoice(choices[0].spec, 0, choices[0].name("en"))

    asyncio.run(main())
    choice = picked[0]
    assert choice is not None
    args = build_parser("play").parse_args(["play", "--save", str(tmp_path / "g.json")])
    args.opponent, args.first_dealer = choice.opponent, choice.first_dealer
    args.opponent_name = choice.name
    session = open_session(args)
    assert session.match.first_dealer == 0 and session.opponent_spec == choice.opponent
    assert session.names[1] == choices[0].name("en")  # the table calls it by its level


def test_narrow_screens_wrap_the_start_keys_and_mark_a_cut_name_line(tmp_path: Path) -> None:
    from marjolet.tui import words
    from marjolet.tui.start import StartApp, menu

    words.use("fr")
    try:
        start = StartApp(*menu())

        async def at_50_columns() -> None:
            async with start.run_test(size=(50, 30)) as pilot:
                await pilot.pause()
                keys = " ".join(screen_text(start).split())  # type: ignore[arg-type]
                assert "Entrée : distribuer · q : quitter" in keys  # wrapped, not cut

        asyncio.run(at_50_columns())
        app = MarjoletApp(meld_session(tmp_path), pace=0)

        async def body(pilot: Pilot[None]) -> None:
            await pilot.press("1")  # A♠ wins trick 1
            await settle(app, pilot)
            await pilot.press("1")  # K♥-Q♥ declared: on show
            await settle(app, pilot)
            line = next(r for r in screen_text(app).splitlines() if "annonces R♥-D♥" in r)
            assert "• montrées" in line or "…" in line  # whole, or visibly cut

        run_app(app, body)
    finally:
        words.use("en")


def test_the_log_wraps_its_lines_again_when_the_terminal_is_resized(tmp_path: Path) -> None:
    """A RichLog wraps a line at the width it had when written: after a
    resize every word of every line must still be there, within the width."""
    app = MarjoletApp(meld_session(tmp_path), pace=0)
    rng = random.Random(4)

    def told() -> tuple[list[str], int]:
        log = app.query_one("#log", GameLog)
        return [strip.text.rstrip() for strip in log.lines], log.scrollable_content_region.width

    async def main() -> None:
        async with app.run_test(size=(80, 30)) as pilot:
            await settle(app, pilot)
            for _ in range(3):
                await human_turn(app, pilot, rng)
            for size in ((140, 45), (80, 30), (100, 24)):
                words = " ".join(told()[0]).split()
                await pilot.resize_terminal(*size)
                await pilot.pause()
                await pilot.pause()
                lines, width = told()
                assert " ".join(lines).split() == words, size
                assert max(len(line) for line in lines) <= width, size
                assert max(len(line) for line in lines) > width - 20, size  # wrapped anew
                await human_turn(app, pilot, rng)  # lines written at this width

    asyncio.run(main())


def test_the_start_screen_offers_the_unfinished_match_help_and_marks_the_choice(
    tmp_path: Path,
) -> None:
    """A trial: after quitting a match, ``play`` showed no sign of it; h did
    nothing; with NO_COLOR the chosen line showed only by a shade."""
    from marjolet.tui import saves
    from marjolet.tui.help import HelpScreen
    from marjolet.tui.start import MARK, StartApp, StartChoice, menu, unfinished

    assert unfinished() is None  # no save yet
    session = meld_session(tmp_path)
    session.save_path = saves.new_save_path()
    session.save()
    found = unfinished()
    assert found is not None and found.path == session.save_path
    assert "An unfinished match against random, 0–0: c to continue it" in found.line
    app = StartApp(*menu(), found)

    async def main() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            text = screen_text(app)  # type: ignore[arg-type]
            assert "An unfinished match against random" in text
            assert "h: help" in " ".join(text.split())
            def marked() -> list[str]:
                rows = screen_text(app).splitlines()  # type: ignore[arg-type]
                return [r.split(MARK)[1].split()[0] for r in rows if MARK in r]

            assert sorted(marked()) == sorted([str(app.chosen().name), "drawn"])
            before = app.chosen().name
            await pilot.press("down")
            await pilot.pause()
            assert app.chosen().name != before
            assert sorted(marked()) == sorted([str(app.chosen().name), "drawn"])
            await pilot.press("h")
            await pilot.pause()
            assert isinstance(app.screen, HelpScreen)
            await pilot.press("escape")
            await pilot.pause()
            await pilot.press("c")
            await pilot.pause()
            assert isinstance(app.return_value, StartChoice)
            assert app.return_value.resume == str(session.save_path)

    asyncio.run(main())


def test_the_start_screen_does_not_offer_a_match_open_in_another_terminal(
    tmp_path: Path,
) -> None:
    """A trial: `c` on the start screen continued a match open in another
    terminal, and the program ended at once ("This match is already open in
    another terminal") instead of letting the player choose a new one."""
    from marjolet.tui import saves
    from marjolet.tui.start import StartApp, StartChoice, menu, unfinished

    session = meld_session(tmp_path)
    session.save_path = saves.new_save_path()
    session.save()
    lock = saves.lock_save(session.save_path)  # the other terminal's session
    try:
        found = unfinished()
        assert found is not None and found.path == session.save_path
        assert "is open in another terminal" in found.line and "c to continue" not in found.line
        app = StartApp(*menu(), found)

        async def main() -> None:
            async with app.run_test(size=SIZE) as pilot:
                await pilot.pause()
                text = " ".join(screen_text(app).split())  # type: ignore[arg-type]
                assert "An unfinished match against random, 0–0, is open in another" in text
                assert "Continue" not in text  # not in the key bar
                await pilot.press("c")
                await pilot.pause()
                assert app.is_running and app.return_value is None
                await pilot.press("enter")
                await pilot.pause()
                assert isinstance(app.return_value, StartChoice)
                assert app.return_value.resume is None

        asyncio.run(main())
    finally:
        lock.release()
    again = unfinished()  # the other terminal has left: offered again
    assert again is not None and "c to continue it" in again.line


def test_the_start_screen_says_a_damaged_save_was_left_aside(tmp_path: Path) -> None:
    """A trial: the newest save, damaged, was skipped without a word by the
    start screen (``--resume`` warns of it), which offered an older match."""
    from marjolet.tui import saves
    from marjolet.tui.start import StartApp, menu, unfinished

    session = meld_session(tmp_path)
    session.save_path = saves.new_save_path(now=1_000_000_000)
    session.save()
    damaged = saves.games_dir() / "2099-01-01_00-00-00.json"
    damaged.write_text('{"format": "marjolet-record/1"', encoding="utf-8")
    warnings: list[str] = []
    found = unfinished(warn=warnings.append)
    assert found is not None and found.path == session.save_path
    assert len(warnings) == 1 and str(damaged) in warnings[0]

    def start_screen(skipped: list[Path]) -> str:
        app = StartApp(*menu(), found, skipped=skipped)

        async def main() -> str:
            async with app.run_test(size=SIZE) as pilot:
                await pilot.pause()
                return " ".join(screen_text(app).split())  # type: ignore[arg-type]

        return asyncio.run(main())

    text = start_screen([damaged])
    assert "A damaged save was left aside: 2099-01-01_00-00-00.json" in text
    assert "An unfinished match against random" in text
    assert "Continue" in text  # the older match is still offered
    text = start_screen([damaged, damaged.with_name("b.json")])
    assert "2 damaged saves were left aside: 2099-01-01_00-00-00.json, b.json" in text
    assert "An unfinished match against random" in text
    assert damaged.read_text(encoding="utf-8") == '{"format": "marjolet-record/1"'  # untouched


def test_quitting_a_screen_too_small_prints_the_line_interfaces_command(tmp_path: Path) -> None:
    from marjolet.commands.play import _farewell

    session = meld_session(tmp_path)
    assert "--plain" not in _farewell(session)
    said = _farewell(session, plain=True)
    assert said.endswith(session.resume_hint_for(plain=True)) and "--plain" in said


def test_a_key_pressed_while_the_last_trick_is_shown_says_the_deal_is_over(
    tmp_path: Path,
) -> None:
    """A trial: a card key pressed while the deal's last trick stays in view,
    before its summary, said only "Not now." without saying why."""
    from marjolet.tui.state import Waiting

    app = MarjoletApp(meld_session(tmp_path), pace=0)

    async def main() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await settle(app, pilot)
            app.waiting = Waiting.SUMMARY  # the pause between the last trick and the summary
            await pilot.press("1")
            await pilot.pause()
            text = " ".join(screen_text(app).split())
            assert "The deal is over: its summary comes next." in text
            assert "Not now." not in text

    asyncio.run(main())
