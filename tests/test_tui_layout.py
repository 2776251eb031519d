"""The terminal as a player sees it (issue 22): the key bar follows the
situation, nothing is cut at 80 columns, a wide terminal uses its width,
and the review speaks in player words."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

import pytest
from rich.cells import cell_len
from textual.pilot import Pilot

from helpers import deck_for
from marjolet.actions import parse_action
from marjolet.analysis.review import Decision
from marjolet.match import Match
from marjolet.rules import CLASSIC
from marjolet.tui import board, words
from marjolet.tui.app import MarjoletApp
from marjolet.tui.review import decision_line
from marjolet.tui.session import GameSession
from marjolet.tui.summary import DealSummaryScreen
from marjolet.tui.widgets import CardView
from test_tui_app import (
    SIZE,
    GatedBot,
    human_turn,
    meld_session,
    phase2_follow_match,
    run_app,
    screen_text,
    session_at_last_trick,
    session_with_deck,
    settle,
)


def footer(app: MarjoletApp) -> str:
    """The key bar's last line."""
    return screen_text(app).splitlines()[-1]


def test_the_key_bar_shows_the_card_keys_then_the_meld_window_keys(tmp_path: Path) -> None:
    app = MarjoletApp(meld_session(tmp_path), pace=0)

    async def body(pilot: Pilot[None]) -> None:
        keys = footer(app)
        assert "1-6 Play card" in keys and "←→ Choose" in keys and "Draw" not in keys
        assert "⏎ Play" in keys
        await pilot.press("1")  # A♠ wins trick 1: K♥-Q♥, the dix, draw
        await settle(app, pilot)
        keys = footer(app)
        assert "1-3 Declare" in keys and "d Draw" in keys
        assert "⏎ Take the line" in keys  # Enter takes the window's chosen line
        assert "Play" not in keys and "←→" not in keys

    run_app(app, body)


def late_match() -> Match:
    """A seeded random deal stopped where the human has five cards or fewer."""
    match = Match(CLASSIC, seed=7, first_dealer=1, players=("You", "random"))
    match.start_deal()
    rng = random.Random(7)
    deal = match.deal
    assert deal is not None
    while not (deal.to_move == 0 and deal.stock_empty and len(match.observation(0).hand) < 6):
        match.play(rng.choice(deal.legal_actions()))
    return match


def test_the_key_bar_counts_the_cards_left_in_the_last_tricks(tmp_path: Path) -> None:
    match = late_match()
    session = GameSession(match, opponent="random", save_path=tmp_path / "g.json")
    app = MarjoletApp(session, pace=0)

    async def body(pilot: Pilot[None]) -> None:
        n = len(app.hand)
        allowed = [i + 1 for i, c in enumerate(app.hand) if app.turn.playable >> c & 1]
        assert n < 6
        if len(allowed) == n:
            assert f"1-{n} Play card" in footer(app) and "1-6" not in footer(app)
        else:
            assert f"{','.join(map(str, allowed))} Play card" in footer(app)

    run_app(app, body)


def test_in_the_last_tricks_the_key_bar_lists_only_the_allowed_cards(tmp_path: Path) -> None:
    match = phase2_follow_match()  # the duty refuses some of the human's cards
    session = GameSession(match, opponent="random", save_path=tmp_path / "g.json")
    app = MarjoletApp(session, pace=0)

    async def body(pilot: Pilot[None]) -> None:
        allowed = [i + 1 for i, c in enumerate(app.hand) if app.turn.playable >> c & 1]
        assert 0 < len(allowed) < len(app.hand)
        assert f"{','.join(map(str, allowed))} Play card" in footer(app)

    run_app(app, body)


def test_the_key_bar_hides_the_game_keys_while_the_computer_thinks(tmp_path: Path) -> None:
    bot = GatedBot()
    deck = deck_for("7D 8D 9D JD QD KD", "AS 7S KH QH 8C 9C", "TS", "8S 9S")
    app = MarjoletApp(session_with_deck(tmp_path, deck, first_dealer=0, bot=bot), pace=0)

    async def main() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            keys = footer(app)
            assert "Play card" not in keys and "Hint" not in keys
            assert "h Help" in keys and "q Quit" in keys
            bot.gate.set()
            await settle(app, pilot)
            assert "Play card" in footer(app)

    asyncio.run(main())


def test_the_key_bar_at_the_end_of_a_deal_shows_the_summary_keys(tmp_path: Path) -> None:
    app = MarjoletApp(session_at_last_trick(tmp_path, seed=21), pace=0)
    rng = random.Random(5)

    async def body(pilot: Pilot[None]) -> None:
        while not isinstance(app.screen, DealSummaryScreen):
            await human_turn(app, pilot, rng)
        keys = footer(app)
        assert "Next" in keys and "Review" in keys and "Play card" not in keys
        assert not app.key_bar.numbers  # the table's keys are off under the summary

    run_app(app, body)


def test_the_top_bar_never_runs_past_80_columns_in_either_language() -> None:
    match = phase2_follow_match()
    obs = match.observation(0)
    for lang in ("en", "fr"):
        words.use(lang)
        try:
            for trump in range(4):
                seen = obs.__class__(**{**{f: getattr(obs, f) for f in obs.__slots__},
                                        "trump": trump})  # fmt: skip
                bar = board.topbar(seen, True, 78).plain
                assert cell_len(bar) <= 78, bar
                assert bar.rstrip().endswith(words.tr("tui.phase2_short")), bar  # whole words
        finally:
            words.use("en")


def test_a_long_opponent_name_is_not_cut_under_its_trick_card(tmp_path: Path) -> None:
    match = Match(CLASSIC, first_dealer=1, players=("You", "heuristic"))
    match.start_deal(deck_for("AS 7S KH QH 8C 9C", "7D 8D 9D JD QD KD", "TS", "8S 9S"))
    session = GameSession(match, opponent="heuristic", save_path=tmp_path / "g.json")
    app = MarjoletApp(session, pace=0)

    async def body(pilot: Pilot[None]) -> None:
        await pilot.press("1")
        await settle(app, pilot)
        label = app.query_one("#trick-opp-label")
        assert label.region.width >= len("heuristic")
        assert any("heuristic" in line and "you" in line for line in screen_text(app).splitlines())
        assert all(cell_len(line) <= 80 for line in screen_text(app).splitlines())

    run_app(app, body)


@pytest.mark.parametrize("size", [(160, 50), (140, 45)])
def test_a_wide_terminal_gets_larger_centred_cards_and_a_wider_log(
    tmp_path: Path, size: tuple[int, int]
) -> None:
    app = MarjoletApp(meld_session(tmp_path), pace=0)

    async def main() -> None:
        async with app.run_test(size=size) as pilot:
            await settle(app, pilot)
            assert app.screen.has_class("-wide")
            views = [v for v in app.query("#hand CardView").results(CardView) if v.display]
            assert views and all(v.region.width > 7 and v.region.height > 3 for v in views)
            table = app.query_one("#table").region
            left = min(v.region.x for v in views) - table.x
            right = table.right - max(v.region.right for v in views)
            assert left > 10 and abs(left - right) <= 8, (left, right)  # centred
            assert app.query_one("#log").region.width > 40
            assert all(cell_len(line) <= size[0] for line in screen_text(app).splitlines())

    asyncio.run(main())


def _decision(**changes: object) -> Decision:
    fields: dict[str, object] = dict(
        deal=0, action=4, seat=0, trick=3, played=parse_action("KC"), best=(parse_action("JC"),),
        value_played=-5.5, value_best=4.5, loss=10.0, exact=False, view="seat",
        method="sampling", stderr_loss=1.0,
    )  # fmt: skip
    fields.update(changes)
    return Decision(**fields)  # type: ignore[arg-type]


def test_the_review_line_names_cards_as_the_table_does_without_best_or_codes() -> None:
    line = decision_line(_decision(), "You")
    assert line.startswith("Trick 3, you played K♣")  # "you" mid-sentence
    assert "J♣ was worth about 10 more points" in line
    for code in ("KC", "JC", "best", "±", "sampling"):
        assert code not in line, code


def test_a_followed_hint_that_the_review_counts_as_a_loss_is_explained(tmp_path: Path) -> None:
    session = meld_session(tmp_path)
    app = MarjoletApp(session, pace=0)

    async def body(pilot: Pilot[None]) -> None:
        session.hint_given(parse_action("AS"))  # the hint said A♠; the player follows it
        await pilot.press("1")
        await settle(app, pilot)
        assert session.followed == {(0, 0): parse_action("AS")}

    run_app(app, body)
    line = decision_line(_decision(action=0, played=parse_action("AS")), "You", hinted=True)
    assert "You followed the hint here" in line and "sample" in line
    unfollowed = meld_session(tmp_path / "other")
    unfollowed.hint_given(parse_action("7S"))
    unfollowed.play(parse_action("AS"))
    assert unfollowed.followed == {}


def test_the_hints_given_are_saved_with_the_match_and_followed_after_resuming(
    tmp_path: Path,
) -> None:
    from dataclasses import replace

    from marjolet import record

    session = meld_session(tmp_path)
    session.hint_given(parse_action("AS"))  # the hint said A♠ and the player follows it
    session.play(parse_action("AS"))
    session.hint_given(parse_action("draw"))  # given, then the player leaves
    session.save()
    path = session.save_path
    assert path is not None
    texts = [(c.deal, c.after, c.text) for c in record.load(path).comments]
    assert texts == [(0, 0, "hint: AS"), (0, 1, "hint: draw")]
    rec = record.load(path)
    own = record.Comment(0, 1, "hint: look at the seven")  # a player's note, not a hint
    record.save(replace(rec, comments=(*rec.comments, own)), path)
    resumed = GameSession.resume(path)
    assert resumed.followed == {(0, 0): parse_action("AS")}
    assert resumed.hints == session.hints
    resumed.save()  # saved again: the hints once each, no other comment lost
    saved = sorted(c.text for c in record.load(path).comments)
    assert saved == ["hint: AS", "hint: draw", "hint: look at the seven"]


def test_a_resumed_match_calls_a_level_opponent_by_its_level_name(tmp_path: Path) -> None:
    from marjolet.tui.opponents import levels

    level = levels()[1]
    path = tmp_path / "g.json"
    GameSession.new(CLASSIC, opponent=level.spec, seed=2, save_path=path)
    resumed = GameSession.resume(path)
    assert resumed.opponent_spec == level.spec and resumed.names[1] == level.name("en")
    assert level.spec not in " ".join(resumed.opening_lines())  # the welcome names the level
    research = GameSession.resume(path, opponent="random")  # chosen on the command line
    assert research.opponent_spec == "random" and research.names[1] != level.name("en")


def test_a_match_resumed_in_a_meld_window_names_the_trick_just_won(tmp_path: Path) -> None:
    session = meld_session(tmp_path)
    session.play(parse_action("AS"))  # the human leads A♠ ...
    session.play(session.match.deal.legal_actions()[0], seat=1)  # type: ignore[union-attr]
    assert session.observation().in_window  # ... wins trick 1: its window is open
    path = session.save_path
    assert path is not None
    lines = GameSession.resume(path).opening_lines()
    assert "Resumed deal 1 at trick 1." in lines  # not "trick 2": trick 1's window is open


def test_a_long_player_line_drops_its_lesser_words_before_its_melds_at_80_columns(
    tmp_path: Path,
) -> None:
    app = MarjoletApp(meld_session(tmp_path), pace=0)

    async def body(pilot: Pilot[None]) -> None:
        await pilot.press("1")  # A♠ wins trick 1
        await settle(app, pilot)
        await pilot.press("1", "enter")  # K♥-Q♥, then the dix
        await settle(app, pilot)
        app.session.names = ("A rather long player name", app.session.names[1])
        app.refresh_table()
        await pilot.pause()
        [line] = [ln for ln in screen_text(app).splitlines() if "A rather long" in ln]
        assert "…" not in line and "K♥-Q♥" in line  # the melds are kept whole
        assert "(non-dealer)" not in line  # the role went first
        full = board.my_line(app.view())  # type: ignore[arg-type]
        assert "(non-dealer) · melds K♥-Q♥ · • shown" in full.plain  # with room, every word

    run_app(app, body)


@pytest.mark.parametrize(
    ("names", "shown"),
    [
        (("Françoise", "Expert"), ("Françoise", "Expert")),  # fits: both whole
        (("Stéphanie", "Débutant"), ("Stéphan…", "Débutant")),  # the level's name whole
        (("Jean-Baptiste-Poquelin", "Confirmé"), ("Jean-Ba…", "Confirmé")),
    ],
)
def test_the_score_board_keeps_the_opponents_name_and_marks_a_cut_name(
    tmp_path: Path, names: tuple[str, str], shown: tuple[str, str]
) -> None:
    """A trial: at 80x24 in French a player's name of nine letters cut both
    names on the score board ("Stéphan…  Débuta…"), and a longer one was cut
    without a mark ("Jean-Bapt")."""
    session = meld_session(tmp_path)
    session.names = names
    words.use("fr")
    app = MarjoletApp(session, pace=0)

    async def main() -> None:
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(app, pilot)
            rows = screen_text(app).splitlines()
            tricks = next(i for i, r in enumerate(rows) if "│  plis" in r or "│ plis" in r)
            row = rows[tricks - 1].split("│")[-2]  # the names, above "plis"
            assert row.split() == list(shown), row

    try:
        asyncio.run(main())
    finally:
        words.use("en")
