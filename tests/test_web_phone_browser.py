"""What a French player's trial on a phone (390x844) found, checked in
Debian's Chromium (Playwright): the move clock running out is told to both
players, an opponent's seven exchange and melds are shown on the table, the
prompt of the last six tricks states the duty the server sends, the review's
headings, a guest's offer form, the digit badges on a touch screen, the
lobby's badge and the download buttons' words."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, Route, expect

from web_support import (
    PHONE,
    LiveServer,
    close_watched_page,
    fast_config,
    live_server,
    needs_chromium,
    open_watched_page,
    play_until,
    start_against_random,
)
from web_support import Browser as Client

pytestmark = needs_chromium

FRENCH_PHONE: dict[str, Any] = {"viewport": PHONE, "locale": "fr-FR"}


@pytest.fixture
def page_options() -> dict[str, Any]:
    """The ``page`` fixture on a French phone."""
    return FRENCH_PHONE


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    with live_server(fast_config(tmp_path_factory.mktemp("web") / "g.sqlite3")) as srv:
        yield srv


def friend_game(server: LiveServer) -> tuple[dict[str, Any], dict[str, Any]]:
    """A friend game and the seat a second player took by its invite."""
    game = server.new_game(mode="friend", name="Bastien")
    invite = game["invite_url"].split("#invite=")[1]
    with server.http() as client:
        joined: dict[str, Any] = client.post(
            f"/api/games/{game['id']}/join", json={"invite": invite, "name": "Amélie"}
        ).json()
    return game, joined


def texts_loaded(page: Page) -> None:
    """The page's catalogue is in (a module called straight from a test
    would otherwise race the page's own loading)."""
    page.evaluate("async () => (await import('/static/common.js')).loadLanguage()")


def seat_url(server: LiveServer, game_id: str, seat: int, token: str) -> str:
    return f"{server.base}/game/{game_id}?lang=fr#seat={seat}&token={token}"


def test_a_move_clock_run_out_is_told_to_both_players_and_the_claim_comes_first(
    chromium: Browser, tmp_path: Path
) -> None:
    config = fast_config(tmp_path / "w.sqlite3", first_dealer=0, move_limit=1.5, away_grace=60)
    with live_server(config) as server:
        game, joined = friend_game(server)  # Amélie (seat 1) leads first
        host = open_watched_page(chromium, **FRENCH_PHONE)
        guest = open_watched_page(chromium, **FRENCH_PHONE)
        host.goto(seat_url(server, game["id"], 0, game["token"]))
        guest.goto(seat_url(server, game["id"], 1, joined["token"]))
        late = guest.locator("#time-up")
        expect(late).to_contain_text("Votre temps pour jouer est écoulé", timeout=10_000)
        # before a player's first move, the claim cancels the game: no result
        expect(late).to_contain_text("votre adversaire peut maintenant annuler la partie")
        assert guest.locator(".hand.mine .card.playable").count() > 0  # a move still goes on
        box = host.locator("#time-up")
        expect(box).to_contain_text(
            "Amélie n’a pas joué son premier coup à temps\u00a0: vous pouvez annuler la partie"
        )
        expect(box.locator("#claim-late")).to_have_class("action primary")
        expect(box.locator("#claim-late")).to_have_text("Annuler la partie")
        expect(box.locator("#wait-late")).to_have_text("Attendre encore")
        expect(host.locator(".prompt")).to_have_text("Amélie n’a pas joué à temps.")
        assert host.locator("#deadline").is_hidden()  # no « 0 s » line under the box
        host.click("#wait-late")  # keep waiting: the claim stays, no longer the main button
        expect(box).to_contain_text("Vous attendez encore le premier coup d’Amélie")
        expect(box.locator("p")).to_be_focused()  # not lost with the pressed button
        expect(box.locator("#claim-late")).to_have_class("action")
        guest.reload()  # a game reopened after its clock ran out says it at once
        expect(late).to_contain_text("Votre temps pour jouer est écoulé", timeout=10_000)
        guest.locator(".hand.mine .card.playable").first.click()
        expect(box).to_be_hidden()  # Amélie moved: Bastien's clock runs now
        expect(late).to_be_hidden()
        expect(late).to_contain_text("Bastien n’a pas joué son premier coup", timeout=10_000)
        guest.click("#claim-late")  # Bastien never moved: the game is cancelled
        expect(guest.locator("#overlay")).to_contain_text("Partie annulée")
        expect(guest.locator("#overlay")).to_contain_text("Bastien n’a jamais joué")
        expect(host.locator("#overlay")).to_contain_text("Vous n’avez jamais joué")
        expect(late).to_be_hidden()
        close_watched_page(host)
        close_watched_page(guest)


def test_a_touch_screen_hides_the_digit_keys_and_the_online_badge_stands_apart(
    chromium: Browser, server: LiveServer
) -> None:
    keys = (
        "[...document.querySelectorAll('.hand.mine .card-key')]"
        ".map(k => getComputedStyle(k).display)"
    )
    for touch in (True, False):
        options = {**FRENCH_PHONE, "has_touch": touch, "is_mobile": touch}
        page = open_watched_page(chromium, **options)
        start_against_random(page, server.base, "Camille", ready=".hand.mine .card.playable")
        shown = page.evaluate(keys)
        assert shown, "no digit badge drawn"
        # a phone has no keys 1-6 to press: the badges would only hide the cards' corners
        assert set(shown) == ({"none"} if touch else {"block"}), shown
        close_watched_page(page)
    page = open_watched_page(chromium, **FRENCH_PHONE)
    page.goto(server.base + "/?lang=fr")
    link = page.locator('nav a[href="/online"]')
    # shown and measured in one go: the page may still redraw its bar (or hide the
    # badge of no game waiting) between two calls, and a hidden badge measures 0
    gap = link.evaluate(
        """(a) => { const badge = a.querySelector('.badge');
                    badge.hidden = false; badge.textContent = '1';
                    const range = document.createRange(); range.selectNodeContents(a.firstChild);
                    return badge.getBoundingClientRect().left
                           - range.getBoundingClientRect().right; }"""
    )
    assert gap >= 4, f"« En ligne » and its count are {gap} px apart"
    close_watched_page(page)


def test_the_prompt_of_the_last_tricks_states_the_duty_the_server_sends(
    page: Page, server: LiveServer
) -> None:
    page.goto(server.base + "/?lang=fr")
    texts_loaded(page)
    said = page.evaluate(
        """() => import("/static/board.js").then((board) => {
             const view = (lead, duty, extra = {}) => ({
               lead, duty, trump: "S", phase: 2, to_move: 0, players: ["Amélie", "Bastien"],
               in_window: false, deal_over: false, legal: [], ...extra });
             const ctx = { seat: 0 };
             return [
               board.promptText(view("7H", "trump"), ctx),
               board.promptText(view("JS", "overtake"), ctx),
               board.promptText(view("JS", "follow"), ctx),
               board.promptText(view("7H", "any"), ctx),
               board.promptText(view("7H", null, { phase: 1 }), ctx),
               board.blockedReason(
                 view("JS", "follow", { blocked: { TC: "follow" }, must_play: ["7S"] }), "TC"),
             ];
           })"""
    )
    assert said == [  # no hearts, spades trumps: the duty is to trump, not to follow
        "À vous\u00a0: répondez à 7♥\u202f; vous n’avez pas de ♥, vous devez donc couper.",
        "À vous\u00a0: répondez à V♠\u202f; vous devez fournir ♠ et monter sur V♠.",
        "À vous\u00a0: répondez à V♠\u202f; vous devez fournir ♠"
        " (vous ne pouvez pas monter sur V♠).",
        "À vous\u00a0: répondez à 7♥\u202f; sans ♥ ni atout, jouez la carte de votre choix.",
        "À vous\u00a0: répondez à 7♥ avec la carte de votre choix.",
        "Impossible de jouer 10♣\u00a0: vous devez fournir ♠ (vous ne pouvez pas monter sur V♠)"
        "\u202f; jouez 7♠.",
    ]


def test_a_guest_is_not_offered_a_rated_game_and_is_told_why_in_a_sentence(
    page: Page, server: LiveServer
) -> None:
    page.goto(server.base + "/online?lang=fr")
    expect(page.locator("#login-name")).to_be_visible()
    expect(page.locator("#seek-form")).to_be_visible()
    expect(page.locator("#seek-rated")).to_be_hidden()  # rated games are between accounts
    expect(page.locator("#now-rated")).to_be_hidden()
    texts_loaded(page)
    said = page.evaluate(
        """async () => {
             const { api, sentence } = await import("/static/common.js");
             try {
               await api("/api/seeks", { json: { rated: true, rules: { profile: "classic" } } });
             } catch (err) {
               return sentence(err.message);
             }
             return "accepted";
           }"""
    )  # as the offer form shows a refusal
    assert said == (
        "Il faut un compte pour cela\u00a0: connectez-vous, ou créez-en un,"
        " sur la page «\u00a0En ligne\u00a0»."
    )


def test_the_review_panel_names_what_each_part_covers(page: Page, server: LiveServer) -> None:
    page.goto(server.base + "/replay?lang=fr")
    texts_loaded(page)
    panel = page.evaluate(
        """async () => {
             const review = await import("/static/review.js");
             const d = { deal: 0, action: 12, seat: 0, trick: 5, exact: false, played: "AS",
               values: { "9C": 10, "TS": 13, "AS": 12 }, best: ["TS"], loss: 1,
               judgement: "inaccuracy",
               match: { best: ["9C"], decides_mark: true, chance_best: 0.55, chance_played: 0.54,
                        chances: { "9C": 0.55, "TS": 0.54, "AS": 0.54 } } };
             const player = (seat) => ({
               seat, accuracy: 78, inaccuracies: 1, mistakes: 0, blunders: 0 });
             const data = { decisions: [d], players: [player(0), player(1)] };
             const node = review.reviewPanel(data, review.byPlace(data), 0, 12,
               ["Amélie", "Bastien"], () => {}, { trump: "H", rules: {} });
             document.body.append(node);
             return { heading: node.querySelector("h2").textContent,
                      marked: node.querySelector("h3").textContent,
                      text: node.innerText };
           }"""
    )
    assert panel["heading"] == "Analyse"  # a noun, not the button's verb « Analyser »
    assert panel["marked"] == "Décisions marquées — donne 1"
    assert "Sur toute la partie\u00a0:" in panel["text"]
    # 9♣ scores less than 10♠ but wins the match more often: said in words
    assert "le meilleur coup (en gras) est celui qui donne le plus de chances de gagner" in (
        panel["text"]
    )


def test_the_table_names_the_opponents_seven_exchange_and_meld(
    page: Page, server: LiveServer
) -> None:
    page.goto(server.base + "/?lang=fr")
    texts_loaded(page)
    news = page.evaluate(
        """() => import("/static/board.js").then((board) => {
             const log = [
               { player: 0, action: "9C", trick: 3 },
               { player: 1, action: "AC", trick: 3, won_by: 1, gain: [0, 10] },
               { player: 1, action: "dix", trick: 3, gain: [0, 10] },
               { player: 1, action: "meld KQH", trick: 3, gain: [0, 20] },
               { player: 1, action: "draw", trick: 3 },
             ];
             const view = { log, players: ["Bastien", "Amélie"], trump: "S", rules: {} };
             const later = { ...view, log: [...log, { player: 0, action: "7H" }] };
             return [board.opponentNews(view, 0), board.opponentNews(view, 1),
                     board.opponentNews(later, 0)];
           })"""
    )
    # the points are the server's (the log's gain), the meld named as the log names it
    assert news[0] == [
        "Amélie échange le sept d’atout (+10)",
        "Amélie annonce mariage à cœur (+20)",
    ]
    assert news[1] == [] and news[2] == []  # not to its author; gone once Bastien moved


def test_history_and_replay_name_their_downloads_and_panels(
    page: Page, server: LiveServer
) -> None:
    game = server.new_game(mode="bot", bot="random", rules={"profile": "classic", "target": 100})
    with Client.open(server, game["id"], {"type": "hello", "token": game["token"]}) as me:
        play_until(me, lambda s: bool(s["match_over"]), random.Random(3))
    friend = server.new_game(mode="friend", name="Carole")
    page.goto(server.base + "/history?lang=fr")
    row = page.locator(f"tr[data-game='{game['id']}']")
    expect(row.locator("a[href$='form=json']")).to_have_text("Télécharger la partie")
    # a game between two players says whether it counts for the rating
    expect(page.locator(f"tr[data-game='{friend['id']}']")).to_contain_text(
        "deux joueurs, non classée"
    )
    page.goto(f"{server.base}/replay?game={game['id']}&lang=fr")
    expect(page.locator("#downloads a[href$='form=json']")).to_have_text("Télécharger la partie")
    titles = page.locator(".panel h2").all_inner_texts()
    assert "Marque" in titles and "Marque par donne" in titles, titles


def test_a_live_offer_left_by_its_closed_page_is_withdrawn_when_the_page_opens_again(
    chromium: Browser, server: LiveServer
) -> None:
    page = open_watched_page(chromium, **FRENCH_PHONE)
    page.goto(server.base + "/online")
    page.fill("#guest-name", "Odile")
    page.click("#seek-form button[type=submit]")
    expect(page.locator("#seeks")).to_contain_text("Odile")
    page.close()  # the phone put away; two minutes later, the online page again:
    later = page.context.new_page()
    errors: list[str] = page.errors  # type: ignore[attr-defined]
    later.on("pageerror", lambda exc: errors.append(str(exc)))  # checked with the first tab's
    later.clock.install(time=later.evaluate("Date.now()") + 120_000)
    later.goto(server.base + "/online")
    expect(later.locator("#seek-status")).to_have_text(
        "Votre proposition en direct a été retirée\u00a0: vous aviez quitté la page."
    )
    with server.http() as anyone:  # not followed back into the lobby
        assert all(s["player"] != "Odile" for s in anyone.get("/api/lobby").json()["seeks"])
    close_watched_page(page)


@pytest.mark.parametrize("width", [360, 390])
def test_the_replay_controls_keep_one_row_of_buttons_at_a_phone_s_width(
    chromium: Browser, server: LiveServer, width: int
) -> None:
    """|◀ ◀ Lecture ▶ ▶| side by side (at 360 px ▶| went onto a row of its
    own), each a target of at least 24 px, and nothing wider than the screen."""
    game = server.new_game(mode="bot", bot="random", rules={"profile": "classic", "target": 100})
    with Client.open(server, game["id"], {"type": "hello", "token": game["token"]}) as me:
        play_until(me, lambda s: bool(s["match_over"]), random.Random(3))
    page = open_watched_page(
        chromium, viewport={"width": width, "height": 740}, locale="fr-FR"
    )
    page.goto(f"{server.base}/replay?game={game['id']}&lang=fr")
    expect(page.locator("#play")).to_have_text("Lecture")
    boxes = []
    for name in ("first", "prev", "play", "next", "last"):
        expect(page.locator(f"#{name}")).to_be_visible()  # drawn (a busy machine is slow)
        box = page.locator(f"#{name}").bounding_box()
        assert box is not None, name
        assert box["width"] >= 24 and box["height"] >= 24, (name, box)
        assert box["x"] + box["width"] <= width, (name, box)
        boxes.append(box)
    tops = {round(box["y"]) for box in boxes}
    assert len(tops) == 1, boxes  # one row
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    close_watched_page(page)


def test_the_lobby_checkboxes_are_big_enough_to_see_and_tap_on_a_small_phone(
    chromium: Browser, server: LiveServer
) -> None:
    """The variations' checkboxes were the browser's 13 px inside 44 px
    labels: now at least 20 px, in the house colour, inside the screen at
    360 px, and a tap on the box itself ticks or unticks it."""
    width = 360
    page = open_watched_page(chromium, viewport={"width": width, "height": 740}, locale="fr-FR")
    page.goto(f"{server.base}/?lang=fr")
    page.locator(".rules summary").click()
    for name in ("dix_on_play", "one_meld_per_window"):
        box = page.locator(f"input[type=checkbox][name={name}]")
        expect(box).to_be_visible()
        expect(box).to_be_enabled()  # once the profiles came (a tap before would be undone)
        size = box.bounding_box()
        label = box.locator("xpath=..").bounding_box()
        assert size is not None and label is not None, name
        assert 20 <= size["width"] <= 28 and 20 <= size["height"] <= 28, (name, size)
        assert size["x"] >= 0 and size["x"] + size["width"] <= width, (name, size)
        assert label["height"] >= 44 and label["x"] + label["width"] <= width, (name, label)
        assert box.evaluate("(node) => getComputedStyle(node).accentColor") == "rgb(156, 112, 23)"
        before = box.is_checked()
        # on the box itself: Playwright clicks its middle once it stands still, and
        # only if no other element (the label's text, say) would take the click
        box.click()
        expect(box).to_be_checked(checked=not before)  # the tap on the box ticks it
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    close_watched_page(page)


def test_the_rules_cannot_be_changed_before_the_profiles_come_and_undo_the_change(
    chromium: Browser, server: LiveServer
) -> None:
    """On a slow connection a box ticked while the page still waited for the
    rule profiles was unticked by them a moment later: the rules stay shut
    until the profiles have come, then take the player's changes."""
    page = open_watched_page(chromium, viewport={"width": 360, "height": 740}, locale="fr-FR")
    held: list[Route] = []

    def hold(route: Route) -> None:  # the profiles wait until the test lets them
        held.append(route)

    page.route("**/api/options", hold)
    page.goto(f"{server.base}/?lang=fr")
    page.locator(".rules summary").click()
    box = page.locator("input[type=checkbox][name=one_meld_per_window]")
    expect(box).to_be_visible()
    for _ in range(100):
        if held:
            break
        page.wait_for_timeout(50)
    assert len(held) == 1
    expect(box).to_be_disabled()
    held[0].continue_()
    expect(box).to_be_enabled()
    expect(box).not_to_be_checked()  # the classic profile's value
    box.check()
    page.wait_for_timeout(200)  # nothing comes later to undo it
    expect(box).to_be_checked()
    close_watched_page(page)
