"""The account section of the player's own profile, on a phone in French:
change the password (a wrong one said and its field focused), log out on the
other devices, delete the account; axe-core finds nothing serious, nothing
is too small to touch and nothing scrolls sideways. Playwright driving
Debian's Chromium."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from test_web_pages_browser import AXE, axe_problems, no_sideways_scroll, small_targets
from web_support import (
    PHONE,
    LiveServer,
    close_watched_page,
    fast_config,
    live_server,
    needs_chromium,
    open_watched_page,
)

pytestmark = needs_chromium


@pytest.fixture
def server(tmp_path: Path) -> Iterator[LiveServer]:
    with live_server(fast_config(tmp_path / "web.sqlite3")) as live:
        yield live


def sign_up_on_the_page(page: Page, base: str, name: str, password: str) -> None:
    page.goto(base + "/online?lang=fr")
    page.fill("#login-name", name)
    page.fill("#login-password", password)
    page.click("#signup")
    page.wait_for_selector("#my-profile")


@pytest.mark.skipif(not AXE.exists(), reason=f"axe-core is missing ({AXE})")
def test_the_own_profile_changes_the_password_logs_out_elsewhere_and_deletes_the_account(
    chromium: Browser, server: LiveServer
) -> None:
    page = open_watched_page(chromium, viewport=PHONE, locale="fr-FR", bypass_csp=True)
    sign_up_on_the_page(page, server.base, "Amélie", "premier secret")
    with server.http() as laptop:
        login = {"name": "AMÉLIE", "password": "premier secret"}
        assert laptop.post("/api/session", json=login).status_code == 200
        page.click("#my-profile")
        expect(page.locator("#account h2")).to_have_text("Votre compte")
        assert axe_problems(page) == [] and small_targets(page) == []
        no_sideways_scroll(page)

        page.fill("#current-password", "pas le bon")
        page.fill("#new-password", "second secret")
        page.click("#password-form button")
        expect(page.locator("#password-error")).to_have_text("Mot de passe incorrect.")
        expect(page.locator("#current-password")).to_be_focused()
        page.fill("#current-password", "premier secret")
        page.click("#password-form button")
        expect(page.locator("#password-done")).to_contain_text("Votre mot de passe est changé")
        assert laptop.get("/api/me").json()["account"] is None  # the other device is out

        assert laptop.post("/api/session", json={**login, "password": "second secret"}).is_success
        page.click("#log-out-others")
        expect(page.locator("#others-done")).to_have_text("Déconnexion faite sur 1 autre appareil.")
        assert laptop.get("/api/me").json()["account"] is None

    page.fill("#delete-password", "second secret")
    page.click("#delete-form button")
    expect(page.locator("main h1")).to_have_text("Votre compte est supprimé. Merci d’avoir joué.")
    expect(page.locator("main h1")).to_be_focused()
    with server.http() as anyone:
        assert anyone.get("/api/players/Amélie").status_code == 404
    close_watched_page(page)


def test_another_player_s_profile_has_no_account_section(
    chromium: Browser, server: LiveServer
) -> None:
    with server.http() as other:
        assert other.post("/api/accounts", json={"name": "Bruno", "password": "x" * 8}).is_success
    page = open_watched_page(chromium, viewport=PHONE, locale="fr-FR")
    sign_up_on_the_page(page, server.base, "Chloé", "premier secret")
    page.goto(server.base + "/players/Bruno")
    expect(page.locator("#name")).to_have_text("Bruno")
    page.wait_for_load_state("networkidle")
    assert page.locator("#account").is_hidden()
    close_watched_page(page)


def test_a_device_logged_out_by_a_new_password_says_so_at_its_table_and_online(
    chromium: Browser, server: LiveServer
) -> None:
    page = open_watched_page(chromium, viewport=PHONE, locale="fr-FR")
    sign_up_on_the_page(page, server.base, "Amélie", "premier secret")
    with server.http() as laptop, server.http() as bruno:
        assert laptop.post("/api/session", json={"name": "Amélie", "password": "premier secret"})
        seek = laptop.post("/api/seeks", json={"name": "Amélie", "days_per_move": 3}).json()
        assert bruno.post("/api/accounts", json={"name": "Bruno", "password": "x" * 8}).is_success
        game = bruno.post(f"/api/seeks/{seek['id']}/accept", json={"name": "Bruno"}).json()
        lobby = page.context.new_page()
        lobby.clock.install()  # its minute between two questions of /api/me, at will
        lobby.goto(server.base + "/online")
        expect(lobby.locator("#my-profile")).to_be_visible()
        page.goto(server.base + f"/game/{game['id']}")
        page.wait_for_selector(".hand.mine .card")
        changed = laptop.post(
            "/api/me/password", json={"current": "premier secret", "new": "second secret"}
        )
        assert changed.is_success
    banner = page.locator("#banner")
    expect(banner).to_contain_text("Cet appareil n’est plus connecté à votre compte")
    back = f"/online?back=%2Fgame%2F{game['id']}"  # the way back to this very game
    expect(banner.get_by_role("link")).to_have_attribute("href", back)
    assert page.locator("body.spectator").count() == 0  # not quietly watching its own game
    lobby.clock.run_for(61_000)
    expect(lobby.locator("#login-name")).to_be_visible()  # no longer « Connecté : Amélie »
    banner.get_by_role("link").click()  # logging in again leads back to the table
    page.fill("#login-name", "Amélie")
    page.fill("#login-password", "second secret")
    page.click("#login")
    page.wait_for_url(f"**/game/{game['id']}")
    expect(page.locator(".hand.mine .card").first).to_be_visible()  # the seat, not watching
    close_watched_page(page)


def test_an_online_page_logged_out_elsewhere_says_so_at_once_and_listens_as_a_visitor(
    chromium: Browser, server: LiveServer
) -> None:
    """Its lobby socket closed by the session's end, the online page asks
    who is logged in at once (not at its next minute's asking: the clock is
    stopped), says why it shows the login form, and opens its socket again
    as a visitor's, which nothing closes (no reconnecting loop). Logging
    out on the page itself says nothing of the kind."""
    page = open_watched_page(chromium, viewport=PHONE, locale="fr-FR")
    page.clock.install()
    sign_up_on_the_page(page, server.base, "Amélie", "premier secret")
    page.reload()  # its lobby socket opened logged in: the account's
    page.wait_for_selector("#my-profile")
    online = server.app.state.online
    with server.http() as laptop:
        assert laptop.post("/api/session", json={"name": "Amélie", "password": "premier secret"})
        assert laptop.request("DELETE", "/api/me/sessions", json={}).json() == {"ended": 1}
    expect(page.locator("#login-name")).to_be_visible()
    expect(page.locator("#login-error")).to_contain_text("Cet appareil n’est plus connecté")
    deadline = time.monotonic() + 10
    while not (len(online.listeners) == 1 and next(iter(online.listeners)).session is None):
        assert time.monotonic() < deadline, "the page's socket did not open again"
        time.sleep(0.05)
    page.fill("#login-name", "Amélie")
    page.fill("#login-password", "premier secret")
    page.click("#login")
    page.wait_for_selector("#logout")
    page.reload()  # its socket the account's again
    page.wait_for_selector("#logout")
    page.click("#logout")
    expect(page.locator("#login-name")).to_be_visible()
    page.wait_for_timeout(500)  # (the close's own asking, if it came after)
    expect(page.locator("#login-error")).to_have_text("")
    close_watched_page(page)


def wait_for_lobby_sockets(server: LiveServer, logged_in: bool) -> None:
    """Until the server holds one lobby socket, the account's or a visitor's."""
    online = server.app.state.online
    deadline = time.monotonic() + 10
    while True:
        sockets = list(online.listeners)
        if len(sockets) == 1 and (sockets[0].session is not None) == logged_in:
            return
        assert time.monotonic() < deadline, f"lobby sockets: {sockets}"
        time.sleep(0.05)


def test_an_online_page_logging_in_opens_its_lobby_socket_again_as_the_account_s(
    chromium: Browser, server: LiveServer
) -> None:
    """A page opened as a visitor and logged in (or signed up) on the page,
    with no reload, listens as the account: its games' turns are told to it,
    and a log-out on another device reaches it at once."""
    page = open_watched_page(chromium, viewport=PHONE, locale="fr-FR")
    page.goto(server.base + "/online?lang=fr")
    wait_for_lobby_sockets(server, logged_in=False)

    def log_in_on_the_page(button: str) -> None:
        page.fill("#login-name", "Amélie")
        page.fill("#login-password", "premier secret")
        page.click(button)
        page.wait_for_selector("#logout")
        wait_for_lobby_sockets(server, logged_in=True)

    log_in_on_the_page("#signup")
    with server.http() as laptop:
        assert laptop.post("/api/session", json={"name": "Amélie", "password": "premier secret"})
        assert laptop.request("DELETE", "/api/me/sessions", json={}).json() == {"ended": 1}
    expect(page.locator("#login-error")).to_contain_text("Cet appareil n’est plus connecté")
    wait_for_lobby_sockets(server, logged_in=False)
    log_in_on_the_page("#login")
    close_watched_page(page)


def test_a_logged_out_device_s_table_keeps_no_control_clock_or_thinking_player(
    chromium: Browser, server: LiveServer
) -> None:
    """Logged out from another device, a table is a still picture under its
    banner: no resign button that would do nothing, no move clock or
    "X réfléchit" about a position the game has left behind."""
    page = open_watched_page(chromium, viewport=PHONE, locale="fr-FR")
    sign_up_on_the_page(page, server.base, "Amélie", "premier secret")
    with server.http() as laptop, server.http() as bruno:
        assert laptop.post("/api/session", json={"name": "Amélie", "password": "premier secret"})
        seek = laptop.post("/api/seeks", json={"name": "Amélie"}).json()  # a live game
        assert bruno.post("/api/accounts", json={"name": "Bruno", "password": "x" * 8}).is_success
        game = bruno.post(f"/api/seeks/{seek['id']}/accept", json={"name": "Bruno"}).json()
        page.goto(server.base + f"/game/{game['id']}")
        page.wait_for_selector(".hand.mine .card")
        expect(page.locator("#resign")).to_be_visible()
        expect(page.locator("#deadline")).to_be_visible()  # the move clock of a live game
        assert laptop.request("DELETE", "/api/me/sessions", json={}).json() == {"ended": 1}
    expect(page.locator("#banner")).to_contain_text("Cet appareil n’est plus connecté")
    expect(page.locator("#resign")).to_be_hidden()
    expect(page.locator("#deadline")).to_be_hidden()
    expect(page.locator(".hand.mine .card.playable")).to_have_count(0)
    expect(page.locator(".prompt")).to_have_text("Cette page ne suit plus la partie.")
    close_watched_page(page)


def test_a_logged_out_device_opening_its_table_again_is_told_why_it_only_watches(
    chromium: Browser, server: LiveServer
) -> None:
    """Reloaded after a log-out from another device, the table is watched
    (the device holds no seat any more), and the page says why and how to
    play it again, instead of quietly making the player a spectator."""
    page = open_watched_page(chromium, viewport=PHONE, locale="fr-FR")
    sign_up_on_the_page(page, server.base, "Amélie", "premier secret")
    with server.http() as laptop, server.http() as bruno:
        assert laptop.post("/api/session", json={"name": "Amélie", "password": "premier secret"})
        seek = laptop.post("/api/seeks", json={"name": "Amélie"}).json()
        assert bruno.post("/api/accounts", json={"name": "Bruno", "password": "x" * 8}).is_success
        game = bruno.post(f"/api/seeks/{seek['id']}/accept", json={"name": "Bruno"}).json()
        page.goto(server.base + f"/game/{game['id']}")
        page.wait_for_selector(".hand.mine .card")
        assert laptop.request("DELETE", "/api/me/sessions", json={}).json() == {"ended": 1}
        expect(page.locator("#banner")).to_contain_text("Cet appareil n’est plus connecté")
    page.reload()
    expect(page.locator("#spectator")).to_be_visible()
    note = page.locator("#watch-logged-out")
    expect(note).to_contain_text("Cet appareil n’est plus connecté à votre compte")
    back = f"/online?back=%2Fgame%2F{game['id']}"
    expect(note.get_by_role("link")).to_have_attribute("href", back)
    close_watched_page(page)
    stranger = open_watched_page(chromium, viewport=PHONE, locale="fr-FR")  # never logged in:
    stranger.goto(server.base + f"/game/{game['id']}")  # watching, without that note
    expect(stranger.locator("#spectator")).to_be_visible()
    expect(stranger.locator("#watch-logged-out")).to_have_count(0)
    close_watched_page(stranger)


def test_a_deleted_account_s_name_leaves_the_page_title(
    chromium: Browser, server: LiveServer
) -> None:
    page = open_watched_page(chromium, viewport=PHONE, locale="fr-FR")
    sign_up_on_the_page(page, server.base, "Chloé", "premier secret")
    page.click("#my-profile")
    expect(page).to_have_title("Chloé · Marjolet")
    page.fill("#delete-password", "premier secret")
    page.click("#delete-form button")
    expect(page.locator("main h1")).to_have_text("Votre compte est supprimé. Merci d’avoir joué.")
    expect(page).to_have_title("Marjolet")  # the erased name is not left in the tab
    close_watched_page(page)


def test_a_refused_sign_up_or_log_in_marks_and_focuses_the_field_at_fault(
    chromium: Browser, server: LiveServer
) -> None:
    page = open_watched_page(chromium, viewport=PHONE, locale="fr-FR")
    page.goto(server.base + "/online?lang=fr")
    name, password = page.locator("#login-name"), page.locator("#login-password")
    error = page.locator("#account .form-error")
    page.fill("#login-name", "jean pierre")  # a space: not a name
    page.fill("#login-password", "assez long")
    page.click("#signup")
    expect(error).to_contain_text("Le nom doit faire de 3 à 20 caractères")
    expect(name).to_be_focused()
    expect(name).to_have_attribute("aria-invalid", "true")
    expect(password).not_to_have_attribute("aria-invalid", "true")
    page.fill("#login-name", "Amélie")
    page.fill("#login-password", "court")  # too short
    page.click("#signup")
    expect(password).to_be_focused()
    expect(password).to_have_attribute("aria-invalid", "true")
    expect(name).not_to_have_attribute("aria-invalid", "true")  # the name is right now
    page.fill("#login-password", "pas le bon")
    page.click("#login")  # no such account: either may be wrong, the password typed again
    expect(error).to_have_text("Nom ou mot de passe incorrect.")
    expect(password).to_be_focused()
    expect(name).to_have_attribute("aria-invalid", "true")
    expect(password).to_have_attribute("aria-invalid", "true")
    assert name.get_attribute("aria-describedby") == "login-error"  # the error read with it
    close_watched_page(page)
