"""The browser interface end to end: Playwright driving Debian's Chromium.

Chromium comes from Debian (``scripts/install-chromium.sh``, run by
``make test``); ``playwright install`` is never used. These tests are
skipped, with that reason, only when ``/usr/bin/chromium`` is missing.
"""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from helpers import deck_for
from services import held_port
from web_support import (
    fast_config,
    live_server,
    needs_chromium,
    serve_process,
    start_against_random,
)

pytestmark = needs_chromium


def version(page: Page) -> int:
    return int(page.get_attribute("#board", "data-version") or -1)


def act_and_wait(page: Page, selector: str, timeout_ms: float = 30_000) -> None:
    """Click an action and wait until the server's next position is drawn."""
    before = version(page)
    page.click(selector)
    page.wait_for_function(
        "v => Number(document.querySelector('#board').dataset.version) > v",
        arg=before,
        timeout=timeout_ms,
    )


def act_or_choose_again(page: Page, selector: str) -> bool:
    """Like :func:`act_and_wait`, but a click that changes nothing within
    10 s (it fell in a card's flight on a loaded machine) is let go: False,
    and the caller looks for its move again."""
    try:
        act_and_wait(page, selector, timeout_ms=10_000)
    except PlaywrightTimeout:
        return False
    return True


def my_move(page: Page) -> str | None:
    """The selector of something to click when it is this seat's turn."""
    page.wait_for_selector(
        ".hand.mine .card.playable, .action.draw, #overlay:not([hidden])", timeout=20000
    )
    if page.is_visible("#overlay"):
        return None
    if page.query_selector(".action.meld"):
        return ".action.meld >> nth=0"
    if page.query_selector(".action.draw"):
        return ".action.draw"
    return ".hand.mine .card.playable >> nth=0"


def test_a_whole_deal_against_a_bot_by_clicking(page: Page, tmp_path: Path) -> None:
    with live_server(fast_config(tmp_path / "g.sqlite3", bot_delay=0.02), seed=4) as server:
        start_against_random(page, server.base)
        assert page.inner_text(".seat-area.bottom .player-name") == "Ann (you)"  # your own name
        missed = 0  # clicks in a row that changed nothing
        for _ in range(200):
            selector = my_move(page)
            if selector is None:
                break
            missed = 0 if act_or_choose_again(page, selector) else missed + 1
            assert missed < 3, f"three clicks in a row on {selector} changed nothing"
        else:
            pytest.fail("the deal did not end")
        assert "End of deal 1" in page.inner_text("#overlay-title")
        summary = page.inner_text("#overlay-body")
        for source in ("Aces and tens", "Melds", "Last trick", "Deal score"):
            assert source in summary
        # the next deal started elsewhere (at a friend's table, by the other
        # player): this page keeps the summary until its player closes it
        other = page.context.new_page()
        other.goto(page.url)
        other.click("#next-deal", timeout=20_000)
        page.wait_for_selector("#continue", timeout=20_000)
        assert "End of deal 1" in page.inner_text("#overlay-title")
        assert "The next deal has started." in page.inner_text("#overlay-body")
        other.close()
        page.click("#continue")
        assert page.is_hidden("#overlay")
        assert "Deal 2" in page.inner_text(".score-panel")


def test_a_watching_tab_sits_when_another_tab_of_the_browser_takes_the_seat(
    page: Page, tmp_path: Path
) -> None:
    """Two tabs of one guest follow a rematch to its new table; the one that
    took it stores the seat's key, maybe after the other began watching.
    The watching tab sits as soon as the key arrives."""
    with live_server(fast_config(tmp_path / "g.sqlite3", bot_delay=0.02), seed=4) as server:
        start_against_random(page, server.base)
        page.wait_for_selector(".hand.mine .card")
        seats = page.evaluate("() => localStorage.getItem('marjolet.seats')")
        page.evaluate("() => localStorage.removeItem('marjolet.seats')")
        other = page.context.new_page()
        other.goto(page.url.split("#")[0])
        expect(other.get_by_role("alert")).to_contain_text("private game")  # no seat here
        page.evaluate("(held) => localStorage.setItem('marjolet.seats', held)", seats)
        expect(other.locator(".seat-area.bottom .player-name")).to_have_text("Ann (you)")
        expect(other.get_by_role("alert")).to_have_count(0)
        other.close()


def test_declaring_a_meld_shows_its_value_and_scores_it(page: Page, tmp_path: Path) -> None:
    deck = deck_for("AS KS QS 7H 8H 9H", "7C 8C 9C 7D 8D 9D", "JS")
    config = fast_config(
        tmp_path / "g.sqlite3", bot_delay=0.02, first_dealer=1, deck_for=lambda i: deck
    )
    with live_server(config) as server:
        start_against_random(page, server.base)
        act_and_wait(page, '.hand.mine .card[data-card="AS"]')  # the trump ace wins the trick
        page.wait_for_selector(".action.meld")
        button = page.inner_text('.action.meld[data-action="meld KQS"]')
        assert "+40" in button  # a trump marriage
        act_and_wait(page, '.action.meld[data-action="meld KQS"]')
        assert "40" in page.inner_text(".seat-area.bottom .chip.meld")
        assert page.query_selector('.hand.mine .card.exposed[data-card="KS"]')
        points = page.inner_text(".seat-area.bottom .chip.points")
        assert points.startswith("40") or points.startswith("50")
        page.click(".action.hint")  # the strongest bot's advice is highlighted
        page.wait_for_selector(".hinted")
        assert "Suggestion" in page.inner_text(".table-note .hint-text")  # in plain words
        act_and_wait(page, ".action.draw")
        log = page.inner_text(".log-panel")
        assert "You declared: marriage in trumps (K♠ Q♠)" in log  # by its name, never "KQS"


def play_a_move(page: Page) -> None:
    """The player's next move, played and drawn back (a click that fell in a
    card's flight on a loaded machine is made again, at most three times)."""
    for _ in range(3):
        selector = my_move(page)
        assert selector is not None
        if act_or_choose_again(page, selector):
            return
    pytest.fail("three clicks in a row changed nothing")


def test_a_game_resumes_in_the_browser_after_the_server_is_killed(
    page: Page, tmp_path: Path
) -> None:
    db = tmp_path / "g.sqlite3"
    with held_port() as port:  # the same port for the restart, nobody else's meanwhile
        with serve_process(db, "--port", str(port)) as (proc, base):
            start_against_random(page, base)
            for _ in range(3):
                play_a_move(page)
            hand = page.get_attribute(".hand.mine", "class")
            cards_before = page.eval_on_selector_all(
                ".hand.mine .card", "cs => cs.map(c => c.dataset.card)"
            )
            seen = version(page)
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait(10)
            page.wait_for_selector("#banner:not([hidden])")
            assert "reconnecting" in page.inner_text("#banner")
        assert hand
        with serve_process(db, "--port", str(port)) as (_proc, _base):
            page.wait_for_selector("#banner", state="hidden", timeout=20000)
            page.wait_for_function(
                "v => Number(document.querySelector('#board').dataset.version) >= v", arg=seen
            )
            cards_after = page.eval_on_selector_all(
                ".hand.mine .card", "cs => cs.map(c => c.dataset.card)"
            )
            assert set(cards_after) & set(cards_before)
            play_a_move(page)


def test_an_invite_link_opened_in_a_second_browser_plays_a_card(
    chromium: Browser, page: Page, tmp_path: Path
) -> None:
    config = fast_config(tmp_path / "g.sqlite3", first_dealer=0)  # the friend (seat 1) leads
    with live_server(config) as server:
        page.goto(server.base + "/")
        page.fill("#vs-friend input[name=name]", "Host")
        page.click("#vs-friend button[type=submit]")
        page.wait_for_selector(".invite-url")
        assert "Waiting for your friend" in page.inner_text(".prompt")
        link = page.input_value(".invite-url")
        assert "#invite=" in link
        friend_context = chromium.new_context(viewport={"width": 1400, "height": 900})
        try:
            friend = friend_context.new_page()
            friend.goto(link)
            friend.fill("#join-name", "Bea")  # the guest is asked for a name
            friend.click("#join-button")
            friend.wait_for_selector(".hand.mine .card.playable")
            assert "Bea (you)" in friend.inner_text(".seat-area.bottom .player-name")
            assert "#invite" not in friend.url  # the code leaves the address bar
            card = friend.get_attribute(".hand.mine .card.playable >> nth=0", "data-card")
            act_and_wait(friend, f'.hand.mine .card[data-card="{card}"]')
            page.wait_for_selector(f'.trick .card[data-card="{card}"]')
            assert page.is_hidden("#invite")
            assert page.query_selector(".hand.mine .card.playable")  # now the host answers
        finally:
            friend_context.close()
