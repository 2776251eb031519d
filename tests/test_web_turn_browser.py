"""The count of games waiting for a player, on every page: a badge on the
"Online" link, said in words to a screen reader, and the page title
"(1) …" a background tab shows; it follows the turn over the lobby socket,
the rise said politely; and nothing asks for notifications before the
player clicks "Tell me when it is my turn". On a phone (French) and a
desktop (English). Playwright drives Debian's Chromium."""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, expect

from marjolet.web.online import SESSION_COOKIE
from test_web_online import account_seat, pass_the_turn, rated_game, sign_up
from web_support import (
    DESKTOP,
    PHONE,
    LiveServer,
    fast_config,
    live_server,
    needs_chromium,
    watched_page,
)

pytestmark = needs_chromium

SCREENS: dict[str, dict[str, Any]] = {
    "phone-fr": {"viewport": PHONE, "locale": "fr-FR", "is_mobile": True, "has_touch": True},
    "desktop-en": {"viewport": DESKTOP, "locale": "en-GB"},
}
WORDS = {"phone-fr": "1 partie vous attend", "desktop-en": "1 game waits for you"}


@pytest.fixture
def server(tmp_path: Path) -> Iterator[LiveServer]:
    with live_server(fast_config(tmp_path / "web.sqlite3")) as live:
        yield live


@pytest.mark.parametrize("screen", sorted(SCREENS))
def test_the_badge_and_the_title_show_the_games_waiting_and_follow_the_turn(
    chromium: Browser, server: LiveServer, screen: str
) -> None:
    kim, lee = sign_up(server, "kim"), sign_up(server, "lee")
    game, _ = rated_game(server, kim, lee, days_per_move=3)
    mover, other = (kim, lee) if kim.get("/api/me").json()["waiting"] else (lee, kim)
    with watched_page(chromium, **SCREENS[screen]) as page:
        page.context.add_cookies(
            [{"name": SESSION_COOKIE, "value": mover.cookies[SESSION_COOKIE], "url": server.base}]
        )
        page.goto(f"{server.base}/rules")  # any page: this one has no socket
        badge = page.locator(".topbar nav a[href='/online'] .badge")
        expect(badge).to_have_text("1")
        expect(page).to_have_title(re.compile(r"^\(1\) "))
        link = page.locator(".topbar nav a[href='/online']")
        expect(link).to_contain_text(WORDS[screen])
        assert page.evaluate("Notification.permission") == "default"  # never asked on load
        width, inner = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
        assert width <= inner
    with watched_page(chromium, **SCREENS[screen]) as page:
        page.context.add_cookies(
            [{"name": SESSION_COOKIE, "value": other.cookies[SESSION_COOKIE], "url": server.base}]
        )
        page.goto(f"{server.base}/online")  # its lobby socket hears the turn at once
        badge = page.locator(".topbar nav a[href='/online'] .badge")
        expect(page.locator("#my-games")).not_to_be_empty()
        expect(badge).to_be_hidden()
        pass_the_turn(server, game["id"], mover)
        expect(badge).to_have_text("1", timeout=10_000)  # long before the minute's asking
        expect(page).to_have_title(re.compile(r"^\(1\) "))
        expect(page.locator(".topbar [role=status]")).to_have_text(WORDS[screen])


def newer_state(seat: Any, version: int) -> dict[str, Any]:
    """The seat's first state after ``version``."""
    state: dict[str, Any] = seat.recv_until(
        lambda m: m["type"] == "state" and m["version"] > version)
    return state


def play_first_deal(server: LiveServer, game_id: str, *players: Any) -> int:
    """Both accounts play the first deal to its end, a random legal action
    each time, over their table sockets; which of the two led it (the other
    leads the next deal)."""
    rng = random.Random(3)
    with account_seat(server, game_id, players[0]) as one, account_seat(
        server, game_id, players[1]
    ) as two:
        seats = (one, two)
        states = [seat.next_state() for seat in seats]
        leader = next(i for i, state in enumerate(states) if state["legal"])
        while not states[0]["deal_over"]:
            mover = next(i for i, state in enumerate(states) if state["legal"])
            seats[mover].act(rng.choice(states[mover]["legal"])["action"])
            states = [newer_state(seat, states[mover]["version"]) for seat in seats]
    return leader


def test_the_badge_drops_on_the_table_when_the_other_player_starts_the_next_deal(
    chromium: Browser, server: LiveServer
) -> None:
    # between deals the game waits for either player; once the other had
    # started the next deal, this player's table kept "(1)" until a move
    kim, lee = sign_up(server, "kim"), sign_up(server, "lee")
    game, _ = rated_game(server, kim, lee, rules={"profile": "classic", "target": 1000})
    led = play_first_deal(server, game["id"], kim, lee)
    # the player who led the first deal watches; the other, who leads the next, starts it
    watcher, starter = (kim, lee) if led == 0 else (lee, kim)
    assert watcher.get("/api/me").json()["waiting"] == 1  # the next deal: either may start it
    with watched_page(chromium, **SCREENS["phone-fr"]) as page:
        page.context.add_cookies(
            [{"name": SESSION_COOKIE, "value": watcher.cookies[SESSION_COOKIE],
              "url": server.base}]
        )
        page.goto(f"{server.base}/game/{game['id']}")
        badge = page.locator(".topbar nav a[href='/online'] .badge")
        expect(page.locator("#next-deal")).to_be_visible()
        expect(badge).to_have_text("1")
        with account_seat(server, game["id"], starter) as other:
            state = other.next_state()
            other.send({"type": "next", "version": state["version"]})
            assert other.recv_until(lambda m: m["type"] == "state" and not m["deal_over"])["legal"]
        expect(badge).to_be_hidden(timeout=10_000)  # long before the minute's asking
        expect(page).not_to_have_title(re.compile(r"^\(1\) "))
