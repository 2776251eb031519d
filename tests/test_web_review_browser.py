"""The review in the replay page, in Debian's Chromium (Playwright): the
Review button, the marks in the log, the evaluation graph and the values of
every legal action while stepping through the replay (near the end of a
match, with the chance of winning it)."""

from __future__ import annotations

import os
import random
import re
from pathlib import Path

from playwright.sync_api import Page

from web_support import Browser as Client
from web_support import (
    fast_config,
    live_server,
    needs_chromium,
    play_until,
)

pytestmark = needs_chromium


def test_review_from_the_history_marks_the_log_and_shows_values(
    page: Page, tmp_path: Path
) -> None:
    with live_server(fast_config(tmp_path / "games.sqlite3")) as server:
        server.app.state.reviews.budget = 0.0
        # a fixed deal, first dealer and bot seed: the match (and so its marks)
        # is the same on every run (with the server's own random source a
        # clean-clone CI run once met a match with no mark at all)
        server.app.state.hub.rng = random.Random(2)
        game = server.new_game(
            mode="bot", bot="random", rules={"profile": "classic", "target": 150}
        )
        with Client.open(server, game["id"], {"type": "hello", "token": game["token"]}) as me:
            play_until(me, lambda s: bool(s["match_over"]), random.Random(3))
        page.goto(f"{server.base}/history")
        page.click(f"tr[data-game='{game['id']}'] a:text-is('Review')")
        page.wait_for_selector(".review-panel", timeout=120_000)
        assert page.locator("svg.review-graph polyline").count() == 1
        # step to the first position and on: each choice lists its legal actions' values
        page.keyboard.press("Home")
        shown = with_chances = 0
        for _ in range(12):
            if page.locator(".review-values li").count() >= 2:
                shown += 1
                assert page.locator(".review-values li", has_text="played").count() == 1
            if page.locator(".review-match").count():
                # a match to 150 is near its end from the first deal: the chance of
                # winning it beside each choice, in words, without codes or "±"
                with_chances += 1
                line = page.locator(".review-match").inner_text()
                assert line.startswith("Chance of winning the match: ") and "%" in line
                assert "±" not in page.locator(".review-panel").inner_text()
                assert page.locator(".review-values li", has_text="%").count() >= 2
            page.keyboard.press("ArrowRight")
        assert shown > 0 and with_chances > 0
        # each deal's whole log (End): random play leaves marks in some deal (16
        # in this match; one deal alone may have none: near a match's end, once
        # it is decided, no move loses any chance of winning it)
        marks = 0
        for deal in page.locator("#deal-select option").evaluate_all(
            "options => options.map(o => o.value)"
        ):
            page.select_option("#deal-select", deal)
            page.keyboard.press("End")
            marks += page.locator(".log-list .review-mark").count()
        assert marks > 0
        # the legend gives each mark's sign with its meaning
        legend = page.locator(".review-legend").inner_text()
        assert "?! inaccuracy" in legend and "? mistake" in legend and "?? blunder" in legend
        # the summary counts in words, as the terminal does ("1 mistake", never "mistakes 1"),
        # with the points lost
        summary = page.locator(".review-summary li").all_inner_texts()
        assert len(summary) == 2
        for line in summary:
            counts = re.fullmatch(
                r".+: accuracy (?:\d+%|-), \d+ points? lost; (\d+) inaccurac(y|ies),"
                r" (\d+) mistake(s?), (\d+) blunder(s?)",
                line,
            )
            assert counts, line
            for n, ending in zip(counts.groups()[::2], counts.groups()[1::2], strict=True):
                assert (n == "1") == (ending in ("y", "")), line
        if os.environ.get("MARJOLET_SCREENSHOT"):
            page.screenshot(path=os.environ["MARJOLET_SCREENSHOT"], full_page=True)
        assert page.locator("#review-button").inner_text() == "Reviewed"


def test_the_finished_deals_of_a_match_still_played_are_reviewed_from_the_history(
    page: Page, tmp_path: Path
) -> None:
    with live_server(fast_config(tmp_path / "games.sqlite3")) as server:
        server.app.state.reviews.budget = 0.0
        game = server.new_game(
            mode="bot", bot="random", rules={"profile": "classic", "target": 1000}
        )
        with Client.open(server, game["id"], {"type": "hello", "token": game["token"]}) as me:
            state = play_until(me, lambda s: bool(s["deal_over"]), random.Random(3))
            me.send({"type": "next", "version": state["version"]})
            me.recv_until(lambda m: m["type"] == "state" and m["deal"] == 1)
            page.goto(f"{server.base}/history")
            page.click(f"tr[data-game='{game['id']}'] a:text-is('Review the finished deals')")
            page.wait_for_selector(".review-panel", timeout=120_000)
            assert page.locator("#review-button").inner_text() == "Reviewed"
