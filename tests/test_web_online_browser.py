"""The online pages in Chromium (Playwright): two people create accounts on
/online (one page in French, one in English), one offers a rated game, the
other accepts it, and both pages open the table at once (the poster's over
the lobby socket); the acceptor closes their page, the poster sees the
countdown, claims the win, and their profile plots the new rating.
"""

from __future__ import annotations

import asyncio
import re
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, Request, Route, expect

from web_support import (
    DESKTOP,
    PHONE,
    TIMEOUT,
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
    with live_server(fast_config(tmp_path / "w.sqlite3", away_grace=1.0)) as srv:
        yield srv


def sign_up(page: Page, server: LiveServer, name: str, lang: str) -> None:
    page.goto(f"{server.base}/online?lang={lang}")
    page.fill("#login-name", name)
    page.fill("#login-password", "correct horse")
    page.click("#signup")
    expect(page.locator("#logout")).to_be_visible()


def test_an_offer_accepted_in_another_browser_opens_both_tables_and_a_claim_is_rated(
    chromium: Browser, server: LiveServer
) -> None:
    alice = open_watched_page(chromium)
    bobby = open_watched_page(chromium)
    sign_up(alice, server, "alice", "fr")
    sign_up(bobby, server, "bobby", "en")
    # as the lobby and the tables show it: a new account's rating is provisional
    account_line = "Connecté : alice (classement 1\u202f500, provisoire)"  # « 1 500 »
    expect(alice.locator("#account")).to_contain_text(account_line)
    alice.check("#seek-rated")
    alice.select_option("#seek-days", "")
    alice.fill("#seek-target", "100")
    alice.click("#seek-form button[type=submit]")
    expect(alice.locator("#seek-status")).to_contain_text("Votre proposition est affichée")
    offer = bobby.locator("#seeks li", has_text="alice")
    expect(offer).to_contain_text("alice · 1500, provisional · rated · live · to 100 points")
    offer.locator("button.accept").click()
    bobby.wait_for_url("**/game/*")
    alice.wait_for_url("**/game/*", timeout=20_000)
    assert alice.url == bobby.url
    plate = alice.locator(".nameplate", has_text="bobby")
    once_on_the_plate = "classement 1\u202f500, provisoire"
    expect(plate.locator(".chip.rating")).to_have_text(once_on_the_plate)
    # the count of games waiting for each player follows the turn
    playable = ".hand.mine .card.playable"
    alice.locator(f"{playable}, .nameplate").first.wait_for()
    for _ in range(200):  # until one of the two pages shows its playable cards
        if alice.locator(playable).count() or bobby.locator(playable).count():
            break
        alice.wait_for_timeout(100)
    mover = alice if alice.locator(playable).count() else bobby
    waiting = bobby if mover is alice else alice
    badge = 'nav a[href="/online"] .badge'
    expect(mover.locator(badge)).to_have_text("1")
    assert mover.locator(".action.hint").count() == 0  # a rated game: no advice
    expect(waiting.locator(badge)).to_be_hidden()
    mover.locator(playable).first.click()
    expect(mover.locator(badge)).to_be_hidden()
    expect(waiting.locator(badge)).to_have_text("1")
    expect(waiting).to_have_title(re.compile(r"^\(1\) "))
    if mover is alice:  # bobby plays his first card (before it, leaving cancels the game)
        before = bobby.locator("#board").get_attribute("data-version") or ""
        bobby.locator(playable).first.click()
        expect(bobby.locator("#board")).not_to_have_attribute("data-version", before)
    bobby.context.close()  # bobby leaves for good
    expect(alice.locator("#away")).to_contain_text("Votre adversaire")
    expect(alice.locator(".prompt")).not_to_contain_text("réfléchit")  # away, not thinking
    alice.click("#claim", timeout=20_000)
    overlay = alice.locator("#overlay")
    expect(overlay).to_contain_text("bobby a quitté la partie sans revenir")
    rating = r"\d\u202f\d{3}"  # « 1 512 »: a French rating is written as every number
    # pushed once the claim is rated
    won = rf"alice\u00a0: classement {rating}(, provisoire)? \(\+\d+\)"
    lost = rf"bobby\u00a0: classement {rating}(, provisoire)? \(\u2212\d+\)"  # her own first,
    expect(overlay.locator(".ratings")).to_have_text(re.compile(f"^{won} · {lost}$"))  # any seat
    expect(plate.locator(".chip.rating")).not_to_have_text(once_on_the_plate)
    score = alice.locator("#overlay").inner_text()
    alice_, bobby_ = r"alice \(vous\)", r"bobby"
    whose = rf"{alice_} \d+\u00a0–\u00a0\d+ {bobby_}"  # hers first, as in the score table
    assert re.search("Marque à l’arrêt\u00a0: " + whose, score), score
    expect(alice.locator("#away")).to_be_hidden()  # no claim box left after the claim
    for hint in alice.locator(".action.hint").all():
        expect(hint).to_be_disabled()  # no advice on a finished match
    expect(alice.locator("#board")).to_contain_text("a quitté la partie et perd par forfait")
    assert "tombé en panne" not in alice.locator("body").inner_text()
    game_url = alice.url
    alice.goto(game_url.replace("/game/", "/replay?game=") + "&lang=fr")
    expect(alice.locator("#partial")).to_contain_text(
        "bobby a quitté la partie et l’a perdue par forfait\u00a0: alice a gagné."
    )
    expect(alice.locator("#result")).to_contain_text("alice gagne par forfait")
    replay = alice.locator("body").inner_text()
    assert "tombé en panne" not in replay and "left the game" not in replay
    assert "non décidée" not in replay and "donne en cours" not in replay
    elided = alice.evaluate(
        "async () => { const {t} = await import('/static/common.js');"
        " return ['amelie', 'Bob'].map((name) => t('history.forfeited', {name})); }"
    )
    assert elided == ["forfait d’amelie", "forfait de Bob"]
    alice.goto(f"{server.base}/players/alice?lang=fr")
    expect(alice.locator(".rating-plot circle")).to_have_count(2)
    expect(alice.locator("#summary")).to_contain_text("1 partie classée : 1 gagnée, 0 perdue")
    chart = alice.locator(".rating-plot")  # it says where the line starts, ends and goes
    expect(chart).to_contain_text("départ")
    expect(chart).to_contain_text("après 1 partie classée")
    now = alice.locator(".rating-plot .tick.now").text_content() or ""
    # the rating now, after a win
    assert re.fullmatch(rating, now) and int(now.replace("\u202f", "")) > 1500, now
    assert "1\u202f500" in (chart.text_content() or "")  # where every player starts
    assert "Partie 1," in (alice.locator(".rating-plot circle title").last.text_content() or "")
    panel, drawn = alice.locator("#plot").bounding_box(), chart.bounding_box()
    assert panel is not None and drawn is not None
    assert drawn["width"] >= min(1200, panel["width"]) - 2, (drawn, panel)  # the panel's width
    expect(alice.locator("#summary")).to_contain_text(  # a range a player reads, not "± 290"
        re.compile(r"très probablement entre \d[\d\u202f]* et \d[\d\u202f]*")  # « 1 082 »
    )  # and why a rating after one game moves so much (an upset moves it more)
    expect(alice.locator("#summary")).to_contain_text("un résultat inattendu plus encore")
    expect(alice.locator("#recent")).to_contain_text("contre bobby · classée · gagnée par forfait")
    expect(alice.locator("#recent .action").last).to_have_text("Analyser")  # as everywhere
    text = alice.locator("body").inner_text().lower()
    assert "glicko" not in text and "seek" not in text
    alice.set_viewport_size({"width": 390, "height": 844})  # on a phone the chart's
    alice.reload()  # labels keep a readable size: the chart is not scaled down
    expect(alice.locator(".rating-plot circle")).to_have_count(2)
    box = alice.locator(".rating-plot .tick").first.bounding_box()
    assert box is not None and box["height"] >= 10, box
    close_watched_page(alice)


def resigned_online_game(chromium: Browser, server: LiveServer) -> tuple[Page, Page, str]:
    """claire (French) and dmitri (English) found each other in the lobby
    for a rated live game, and dmitri resigned: their pages and the game's URL."""
    claire = open_watched_page(chromium)
    dmitri = open_watched_page(chromium)
    sign_up(claire, server, "claire", "fr")
    sign_up(dmitri, server, "dmitri", "en")
    claire.check("#seek-rated")
    claire.select_option("#seek-days", "")
    claire.click("#seek-form button[type=submit]")
    dmitri.locator("#seeks li", has_text="claire").locator("button.accept").click()
    dmitri.wait_for_url("**/game/*")
    claire.wait_for_url("**/game/*", timeout=20_000)
    first = claire.url
    playable, badge = ".hand.mine .card.playable", 'nav a[href="/online"] .badge'
    for _ in range(200):  # until one of the two pages shows its playable cards
        if claire.locator(playable).count() or dmitri.locator(playable).count():
            break
        claire.wait_for_timeout(100)
    if claire.locator(playable).count():  # claire leads: then dmitri is to answer
        claire.locator(playable).first.click()
    expect(dmitri.locator(playable).first).to_be_visible()
    expect(dmitri.locator(badge)).to_have_text("1")  # his turn when he resigns
    dmitri.click("#resign")
    dmitri.click("#resign")  # pressed twice: resigned
    expect(claire.locator("#overlay")).to_contain_text("dmitri a abandonné")
    expect(dmitri.locator("#toast")).to_have_text("You resigned; claire wins.")  # to him
    expect(claire.locator("#toast")).to_have_text("dmitri abandonne\u202f; vous gagnez.")
    expect(dmitri.locator(badge)).to_be_hidden()  # nobody's turn now
    expect(dmitri).not_to_have_title(re.compile("turn"))
    return claire, dmitri, first


def test_a_game_found_online_ends_with_a_rematch_offer_the_other_player_accepts(
    chromium: Browser, server: LiveServer
) -> None:
    """Offered on one page (French), seen and accepted on the other (English):
    both pages move to the same new table, rated as the first."""
    claire, dmitri, first = resigned_online_game(chromium, server)
    badge = 'nav a[href="/online"] .badge'
    claire.click("#rematch")
    expect(claire.locator("#rematch-news")).to_have_text(
        "Revanche proposée à dmitri : en attente de sa réponse."
    )
    expect(claire.locator("#rematch-withdraw")).to_be_visible()
    news = dmitri.locator("#rematch-news")  # heard within a few seconds, no reload
    expect(news).to_have_text("claire offers you a rated rematch.", timeout=15_000)
    expect(dmitri.locator(badge)).to_have_text("1")  # an answer waits for him
    dmitri.click("#rematch-accept")
    dmitri.wait_for_url(re.compile(r".*/game/.*"))
    claire.wait_for_url(lambda url: url != first, timeout=15_000)
    assert claire.url == dmitri.url != first
    expect(dmitri.locator(".nameplate", has_text="claire")).to_be_visible()
    expect(claire.locator(".nameplate", has_text="dmitri")).to_be_visible()
    assert dmitri.locator(".action.hint").count() == 0  # rated again: no advice
    for page in (claire, dmitri):
        close_watched_page(page)


def test_a_rematch_offer_is_said_once_in_the_match_end_box_and_by_a_toast_once_it_is_closed(
    chromium: Browser, server: LiveServer
) -> None:
    """The box at the end of the match says the offer (a live region: read
    and seen), and no toast repeats it under the box; with the box closed
    ("See the table") the toast is what tells it."""
    claire, dmitri, _ = resigned_online_game(chromium, server)
    dmitri.evaluate("() => window.toasts = []")
    dmitri.evaluate(
        """() => new MutationObserver(() => {
             const node = document.getElementById('toast');
             if (!node.hidden) window.toasts.push(node.textContent);
           }).observe(document.getElementById('toast'),
                      {childList: true, attributes: true, characterData: true, subtree: true})"""
    )
    claire.click("#rematch")
    news = dmitri.locator("#rematch-news")
    expect(news).to_have_text("claire offers you a rated rematch.", timeout=15_000)
    expect(news).to_have_attribute("role", "status")
    dmitri.wait_for_timeout(500)
    said = dmitri.evaluate("() => window.toasts")
    assert not [text for text in said if "rematch" in text], said
    claire.click("#rematch-withdraw")  # the end of the offer: said in the box alone too
    expect(news).to_have_text("claire withdrew the rematch offer.", timeout=15_000)
    dmitri.wait_for_timeout(500)
    said = dmitri.evaluate("() => window.toasts")
    assert not [text for text in said if "rematch" in text], said
    dmitri.click("#overlay-buttons .look")  # the box closed: the table alone on screen
    expect(dmitri.locator("#overlay")).to_be_hidden()
    claire.click("#rematch")
    expect(dmitri.locator("#toast")).to_have_text(
        "claire offers you a rated rematch.", timeout=15_000
    )
    for page in (claire, dmitri):
        close_watched_page(page)


def test_a_finished_game_opened_after_its_rematch_began_stays_on_screen_with_a_link(
    chromium: Browser, server: LiveServer
) -> None:
    """Opened again later (say from the list of one's games), the first
    match's end is shown, not the rematch's table: a link leads there."""
    claire, dmitri, first = resigned_online_game(chromium, server)
    claire.click("#rematch")
    dmitri.locator("#rematch-accept").click(timeout=15_000)
    dmitri.wait_for_url(lambda url: url != first)
    rematch = dmitri.url.split("#")[0]
    dmitri.goto(first)
    expect(dmitri.locator("#rematch-news")).to_have_text("A rematch followed this game.")
    link = dmitri.locator("#rematch-open")
    expect(link).to_have_attribute("href", "/game/" + rematch.rsplit("/", 1)[1])
    dmitri.wait_for_timeout(3500)  # a poll later, still there
    assert dmitri.url == first
    dmitri.click("#rematch-open")
    dmitri.wait_for_url(rematch)
    expect(dmitri.locator(".nameplate", has_text="claire")).to_be_visible()
    for page in (claire, dmitri):
        close_watched_page(page)


def test_a_rematch_offer_is_accepted_from_the_list_of_games(
    chromium: Browser, server: LiveServer
) -> None:
    """A player who left the finished game answers the offer from the online
    page's list of games, and both pages move to the new table. An Accept
    pressed after the offer was withdrawn says so and offers nothing back;
    the list shows a new offer by itself."""
    claire, dmitri, first = resigned_online_game(chromium, server)
    claire.click("#rematch")
    expect(claire.locator("#rematch-withdraw")).to_be_visible()
    dmitri.goto(f"{server.base}/online?lang=en")
    offer = dmitri.locator("#my-games li", has_text="claire offers you a rematch")
    expect(offer).to_be_visible()
    # the score, mine first (10 when I dealt a seven of trumps turned up: R18)
    expect(offer).to_contain_text(re.compile(r"· (0|10)\u00a0–\u00a0\d+ ·"))
    accept = offer.get_by_role("button", name=re.compile("^Accept"))
    expect(accept).to_be_visible()
    dmitri.route("**/api/me/games", lambda route: route.abort())  # the list is not told...
    claire.click("#rematch-withdraw")  # ...that claire withdrew meanwhile
    expect(claire.locator("#rematch")).to_be_visible()
    accept.click()
    status = dmitri.locator("#my-games-status")
    expect(status).to_have_text("claire withdrew the rematch offer.")
    url = f"/api/games/{first.rsplit('/', 1)[1]}/rematch/status"
    news = claire.evaluate(
        "url => fetch(url, {method: 'POST', headers: {'Content-Type': 'application/json'},"
        " body: '{}'}).then(r => r.json())",
        url,
    )
    assert news["offer"]["status"] == "cancelled", news  # no offer of dmitri's instead
    dmitri.unroute("**/api/me/games")
    claire.click("#rematch")  # offered again: the list shows it without a reload
    expect(offer).to_be_visible(timeout=15_000)
    claire.goto(f"{server.base}/online?lang=fr")  # claire waits on her own list, where
    own = claire.locator("#my-games li", has_text="revanche proposée à dmitri")
    expect(own.get_by_role("button", name=re.compile("^Retirer"))).to_be_visible()
    offer.get_by_role("button", name=re.compile("^Accept")).click()  # taken: her page
    dmitri.wait_for_url(lambda url: "/game/" in url and url != first)
    claire.wait_for_url(lambda url: "/game/" in url and url != first, timeout=20_000)  # goes
    assert claire.url == dmitri.url
    expect(dmitri.locator(".nameplate", has_text="claire")).to_be_visible()
    for page in (claire, dmitri):
        close_watched_page(page)


def test_an_offer_posted_while_the_lobby_socket_opens_is_listed_once_it_is_open(
    page: Page, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the page fetched the offers, then opened its socket, and fetched them
    # again only when told of a change: an offer posted before the socket
    # listened (while it opened, or reopened after a phone's network drop)
    # was missing from the page until the next change
    from marjolet.web.routes import lobby

    opening, release = threading.Event(), threading.Event()
    listening = lobby._listening

    async def held(online: Any, ws: Any) -> Any:
        opening.set()
        await asyncio.to_thread(release.wait, TIMEOUT)
        return await listening(online, ws)

    monkeypatch.setattr(lobby, "_listening", held)
    with live_server(fast_config(tmp_path / "w.sqlite3")) as server:
        page.goto(f"{server.base}/online?lang=en")
        assert opening.wait(TIMEOUT)
        expect(page.locator("#seeks p.muted")).to_be_visible()  # no offers yet
        with server.http() as http:
            http.post("/api/seeks", json={"name": "Ida", "rules": {"profile": "classic"}})
        release.set()
        expect(page.locator("#seeks li", has_text="Ida")).to_be_visible()


def test_an_older_list_of_offers_answered_last_never_hides_a_newer_one(
    page: Page, tmp_path: Path
) -> None:
    # the page fetches the offers when its socket opens and at each change:
    # two fetches can overlap, and whichever answer came last was shown, so
    # a slow first answer could hide the offer the second one listed
    held: list[Route] = []
    asked = [0]

    def hold(route: Route) -> None:  # the page's first list goes through, later ones wait
        asked[0] += 1
        if asked[0] == 1:
            route.continue_()
        else:
            held.append(route)

    page.route("**/api/lobby", hold)
    with live_server(fast_config(tmp_path / "w.sqlite3")) as server:
        page.goto(f"{server.base}/online?lang=en")
        expect(page.locator("#seeks p.muted")).to_be_visible()  # no offers yet
        for _ in range(100):  # the socket is open: its own fetch waits
            if held:
                break
            page.wait_for_timeout(50)
        assert len(held) == 1
        with server.http() as http:
            http.post("/api/seeks", json={"name": "Ida", "rules": {"profile": "classic"}})
        for _ in range(100):  # told of Ida's offer, the page fetches again
            if len(held) == 2:
                break
            page.wait_for_timeout(50)
        assert len(held) == 2
        held[1].continue_()
        expect(page.locator("#seeks li", has_text="Ida")).to_be_visible()
        held[0].fulfill(status=200, content_type="application/json", body='{"seeks": []}')
        page.wait_for_timeout(300)  # the older answer, without Ida's offer, comes last
        expect(page.locator("#seeks li", has_text="Ida")).to_be_visible()


def test_two_pages_pressing_play_now_open_the_same_table(
    chromium: Browser, server: LiveServer
) -> None:
    pages = [open_watched_page(chromium) for _ in range(2)]
    for waiting_alone, page in zip((True, False), pages, strict=True):
        page.goto(f"{server.base}/online?lang=en")
        page.fill("#now-wait", "")  # never a computer opponent
        page.click("#now-form button[type=submit]")
        if waiting_alone:  # the second page may be paired and leave at once
            expect(page.locator("#now-status")).to_contain_text("Looking for an opponent")
            expect(page.locator("#now-form button[type=submit]")).to_be_disabled()  # one place
    for page in pages:  # told on their lobby sockets (or by asking)
        page.wait_for_url("**/game/*", timeout=20_000)
    assert pages[0].url.split("#")[0] == pages[1].url.split("#")[0]
    for page in pages:
        expect(page.locator("#board")).to_be_visible()
        close_watched_page(page)


def test_play_now_answered_by_the_computer_says_so_at_the_table_once(
    chromium: Browser, server: LiveServer
) -> None:
    """The computer's seat shows its level's name, which could be a
    person's: the table says who it is, and that the game is not rated."""
    page = open_watched_page(chromium)
    page.goto(f"{server.base}/online?lang=en")
    page.fill("#now-wait", "0")  # the computer at once
    page.click("#now-form button[type=submit]")
    page.wait_for_url("**/game/*", timeout=20_000)
    said = page.locator("#banner")
    expect(said).to_contain_text("Nobody was free in time: you are playing the computer")
    expect(said).to_contain_text("The game is not rated.")
    page.reload()  # said once: not again on the same table
    expect(page.locator("#board")).to_be_visible()
    page.wait_for_timeout(500)
    assert "Nobody was free" not in (page.locator("#banner").text_content() or "")
    close_watched_page(page)


def test_play_now_pressed_while_the_page_loads_its_texts_waits_for_them(
    chromium: Browser, server: LiveServer
) -> None:
    # A press before the page was set up once submitted the form natively:
    # the page reloaded and never joined the queue (a slow phone, or a busy
    # test machine, where the other page then waited for nobody).
    page = open_watched_page(chromium)
    held: list[Route] = []
    page.route("**/i18n/*.json", lambda route: held.append(route))
    url = f"{server.base}/online?lang=en"
    page.goto(url)  # loaded, its texts held back
    page.fill("#now-wait", "")
    page.click("#now-form button[type=submit]")
    page.wait_for_timeout(300)
    assert held, "the page asked for its texts"
    assert page.url == url, "the form was not submitted natively"
    for route in held:
        route.continue_()
    page.unroute("**/i18n/*.json")
    expect(page.locator("#now-status")).to_contain_text("Looking for an opponent")
    close_watched_page(page)


def test_logging_out_takes_the_account_s_games_away_from_the_browser(
    chromium: Browser, server: LiveServer
) -> None:
    """A shared phone: after logging out, the game's page no longer shows
    the account's hand nor lets anyone play it (its seat key is deleted)."""
    alice = open_watched_page(chromium)
    bobby = open_watched_page(chromium)
    sign_up(alice, server, "alice", "fr")
    sign_up(bobby, server, "bobby", "fr")
    alice.select_option("#seek-days", "")
    alice.click("#seek-form button[type=submit]")
    bobby.locator("#seeks li", has_text="alice").locator("button.accept").click()
    bobby.wait_for_url("**/game/*")
    game_url = bobby.url.split("#")[0]
    game_id = game_url.rsplit("/", 1)[1]
    expect(bobby.locator(".hand.mine .card").first).to_be_visible(timeout=20_000)
    held = "() => JSON.parse(localStorage.getItem('marjolet.seats') || '{}')"
    assert game_id in bobby.evaluate(held)
    bobby.goto(f"{server.base}/online?lang=fr")
    bobby.click("#logout")
    expect(bobby.locator("#login-name")).to_be_visible()
    assert game_id not in bobby.evaluate(held)
    bobby.goto(game_url)
    expect(bobby.locator("#board")).to_be_visible()
    bobby.wait_for_timeout(1000)
    assert bobby.locator(".hand.mine .card[data-card]").count() == 0
    assert bobby.locator(".card.playable").count() == 0
    close_watched_page(alice)
    close_watched_page(bobby)


def play_now_requests(page: Page) -> list[Any]:
    """The bodies of the page's Play now requests, as they are sent."""
    sent: list[Any] = []

    def record(request: Request) -> None:
        if request.url.endswith("/api/play-now") and request.method == "POST":
            sent.append(request.post_data_json)

    page.on("request", record)
    return sent

def test_play_now_can_be_stopped_and_asks_for_a_rated_game_when_ticked(
    chromium: Browser, server: LiveServer
) -> None:
    page = open_watched_page(chromium)
    sent = play_now_requests(page)
    page.goto(f"{server.base}/online?lang=en")
    expect(page.locator("#now-rated")).to_be_hidden()  # a guest plays unrated
    sign_up(page, server, "carla", "en")
    page.check("#now-rated")
    page.fill("#now-wait", "")  # never a computer opponent
    page.click("#now-form button[type=submit]")
    expect(page.locator("#now-status")).to_contain_text("Looking for an opponent")
    assert sent and sent[0]["rated"] is True, sent
    with server.http() as client:
        assert client.get("/api/lobby").json()["waiting"] == 1
        gives_up = page.expect_response(
            lambda r: "/api/play-now/" in r.url and r.request.method == "DELETE"
        )
        with gives_up:
            page.click("#now-cancel")
        expect(page.locator("#now-status")).to_have_text("Stopped looking.")
        expect(page.locator("#now-form button[type=submit]")).to_be_enabled()
        expect(page.locator("#now-cancel")).to_be_hidden()
        assert client.get("/api/lobby").json()["waiting"] == 0  # given up at once
    close_watched_page(page)


def test_a_guest_plays_under_the_name_given_else_a_numbered_guest_in_the_readers_words(
    chromium: Browser, server: LiveServer
) -> None:
    page = open_watched_page(chromium)
    sent = play_now_requests(page)

    def look_then_stop() -> None:
        page.click("#now-form button[type=submit]")
        expect(page.locator("#now-cancel")).to_be_visible()
        page.click("#now-cancel")
        expect(page.locator("#now-status")).to_have_text("Recherche arrêtée.")

    page.goto(f"{server.base}/online?lang=fr")
    expect(page.locator("#guest-name")).to_have_value("")
    page.fill("#now-wait", "")  # never a computer opponent
    look_then_stop()
    assert re.fullmatch(r"Invité [1-9][0-9][0-9]", sent[0]["name"]), sent  # never "guest"
    look_then_stop()
    assert sent[1]["name"] == sent[0]["name"]  # the same guest each time
    page.fill("#guest-name", "Léa")
    page.locator("#guest-name").dispatch_event("change")
    look_then_stop()
    assert sent[2]["name"] == "Léa"
    close_watched_page(page)


def test_the_page_of_a_player_who_does_not_exist_says_so_without_empty_sections(
    chromium: Browser, server: LiveServer
) -> None:
    page = open_watched_page(chromium)
    answer = page.goto(f"{server.base}/players/nobody_here?lang=fr")
    assert answer is not None and answer.status == 404  # as an unknown game's address
    expect(page.locator("h1")).to_have_text("Joueur introuvable")
    expect(page.locator("#summary")).to_have_text("Aucun joueur de ce nom.")
    assert page.locator("main section:visible").count() == 0
    close_watched_page(page)


def test_the_page_of_a_player_who_does_not_exist_leads_back_home(
    chromium: Browser, server: LiveServer
) -> None:
    """As the page not found does: a way on, in the reader's words."""
    page = open_watched_page(chromium, viewport=PHONE, locale="fr-FR")
    page.goto(f"{server.base}/players/nobody_here?lang=fr")
    expect(page.locator("h1")).to_have_text("Joueur introuvable")
    home = page.locator("main a.action[href='/']")
    expect(home).to_have_text("Retour à l’accueil")
    home.click()
    page.wait_for_url(server.base + "/")
    close_watched_page(page)


@pytest.mark.parametrize(
    "size", [DESKTOP, {"width": 1920, "height": 1080}, PHONE], ids=["1280", "1920", "phone"]
)
def test_the_opponent_left_box_is_in_sight_and_leaves_the_player_s_hand_in_sight(
    chromium: Browser, server: LiveServer, size: Any
) -> None:
    """On a wide screen the box lies over the opponent's side of the board
    (at 1280x800 a box above the board pushed the hand below the fold); on
    a phone above the board. Either way the box and the whole hand show
    without scrolling."""
    from test_web_phone_browser import friend_game, seat_url
    from web_support import Browser as Socket

    game, joined = friend_game(server)
    phone = size == PHONE
    page = open_watched_page(chromium, viewport=size, is_mobile=phone, has_touch=phone)
    page.goto(seat_url(server, game["id"], 0, game["token"]))
    with Socket.open(server, game["id"], {"type": "hello", "token": joined["token"]}) as friend:
        friend.next_state()  # Amélie sits down, then closes her page
    expect(page.locator("#claim")).to_be_visible(timeout=15_000)
    box, hand = page.locator("#away").bounding_box(), page.locator(".hand.mine").bounding_box()
    board = page.locator("#board").bounding_box()
    assert box and hand and board
    assert box["y"] >= 0 and box["y"] + box["height"] <= size["height"], box
    assert hand["y"] >= 0 and hand["y"] + hand["height"] <= size["height"], (hand, size)
    assert box["y"] + box["height"] <= hand["y"]  # the box covers none of the hand
    if not phone:  # over the board, on the opponent's side
        assert board["y"] < box["y"] and box["x"] >= board["x"], (box, board)
        assert box["x"] + box["width"] <= board["x"] + board["width"]
    else:
        assert box["y"] + box["height"] <= board["y"]
    close_watched_page(page)


def test_a_double_click_on_offer_posts_one_offer(page: Page, server: LiveServer) -> None:
    # a double click on « Proposer » listed the same offer twice
    posts: list[Request] = []
    page.on("request", lambda r: posts.append(r) if r.method == "POST" else None)
    page.goto(f"{server.base}/online?lang=fr")
    page.fill("#seek-target", "100")
    page.dblclick("#seek-form button[type=submit]")
    expect(page.locator("#seek-status")).to_contain_text("Votre proposition est affichée")
    expect(page.locator("#seeks li")).to_have_count(1)
    page.wait_for_timeout(500)  # a second request would be on its way by now
    assert [r.url.rsplit("/", 1)[1] for r in posts] == ["seeks"]
    with server.http() as http:
        assert len(http.get("/api/lobby").json()["seeks"]) == 1
