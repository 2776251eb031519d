"""Phones and desktops, French and English, accessibility and card movement:
Playwright driving Debian's Chromium (issue 13).

At 390x844 (a phone in portrait) and 1280x800 every page fits its width
(``scrollWidth``), the table shows the six cards of the hand, the trick, the
stock and the indicator, trumps and both scores without scrolling, and the
touch targets are at least 44 px. axe-core (npm, ``scripts/install-axe.sh``)
finds no serious or critical violation on the lobby, table, history, replay
and rules pages. Screenshots go to ``$MARJOLET_SCREENSHOTS`` when it is set,
else to the test's temporary folder.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, ViewportSize, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from helpers import deck_for
from marjolet.cards import CARD_NAMES
from web_support import (
    DESKTOP,
    PHONE,
    LiveServer,
    close_watched_page,
    fast_config,
    last_card_to_play,
    live_server,
    marriage_table_server,
    mistyped,
    needs_chromium,
    open_watched_page,
    play_ahead,
    start_against_random,
)

AXE = Path(__file__).parent / ".axe" / "node_modules" / "axe-core" / "axe.min.js"

pytestmark = needs_chromium


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    # the file's upload tests are many players on one address, a dozen
    # uploads in well under a minute once they got faster: the limit of
    # "replay" (10 a minute) is test_web_history's to check
    rates = {"replay": "100/minute"}
    with marriage_table_server(tmp_path_factory.mktemp("web"), rate_limits=rates) as srv:
        yield srv


def open_page(chromium: Browser, viewport: ViewportSize, locale: str, **extra: Any) -> Page:
    return open_watched_page(chromium, viewport=viewport, locale=locale, **extra)


def close(page: Page) -> None:
    close_watched_page(page)


def start_game(page: Page, base: str) -> None:
    """Camille against the random bot, until she may play a card."""
    start_against_random(page, base, "Camille", ready=".hand.mine .card.playable")


def no_sideways_scroll(page: Page) -> None:
    width, inner = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert width <= inner, f"{page.url}: the page is {width} px wide in a {inner} px window"


def in_view(page: Page, selector: str, viewport: ViewportSize) -> None:
    boxes = page.eval_on_selector_all(
        selector,
        "ns => ns.map(n => { const r = n.getBoundingClientRect();"
        " return [r.left, r.top, r.right, r.bottom]; })",
    )
    assert boxes, f"nothing matches {selector}"
    for left, top, right, bottom in boxes:
        assert left >= 0 and top >= 0, (selector, left, top)
        assert right <= viewport["width"] and bottom <= viewport["height"], (
            selector,
            right,
            bottom,
        )


def small_targets(page: Page, minimum: float = 44) -> list[str]:
    """Visible buttons, selects, inputs and menu links under ``minimum`` px: 44 on
    phones (the phone layout's own rule), 24 elsewhere (WCAG 2.2 AA, 2.5.8)."""
    found: list[str] = page.evaluate(
        """(minimum) => [...document.querySelectorAll(
             'button, select, input:not([type=checkbox]):not([type=radio]), .topbar a, '
             + 'a.action, summary')]
           .filter(n => n.offsetParent !== null && !n.closest('[hidden]'))
           .filter(n => { const r = n.getBoundingClientRect();
                          return r.height < minimum || r.width < minimum; })
           .map(n => `${n.outerHTML.slice(0, 90)} ${n.getBoundingClientRect().height} px`)""",
        minimum,
    )
    return found


def axe_problems(page: Page) -> list[str]:
    page.add_script_tag(path=str(AXE))
    # label-content-name-mismatch is one of axe's experimental rules: asked for by name
    result = page.evaluate(
        """async () => (await axe.run(document,
             { rules: { "label-content-name-mismatch": { enabled: true } } })).violations"""
    )
    return [
        f"{v['id']} ({v['impact']}): {v['nodes'][0]['html'][:300]} "
        f"{v['nodes'][0].get('failureSummary', '')[:300]}"
        for v in result
        if v["impact"] in ("serious", "critical") or v["id"] in ALSO_CHECKED
    ]


#: rules of lesser impact checked all the same (an accessibility review found them)
ALSO_CHECKED = {"empty-table-header", "label-content-name-mismatch"}


PAGES = [
    ("lobby", "/"),
    ("history", "/history"),
    ("rules", "/rules"),
    ("replay", "/replay"),
    ("not-found", "/nope"),
]


@pytest.mark.parametrize(("viewport", "locale"), [(PHONE, "fr-FR"), (DESKTOP, "en-US")])
def test_no_page_scrolls_sideways_and_the_table_fits_the_first_screen(
    chromium: Browser, server: LiveServer, shots: Path, viewport: ViewportSize, locale: str
) -> None:
    size = f"{viewport['width']}x{viewport['height']}"
    page = open_page(chromium, viewport, locale)
    start_game(page, server.base)
    table = page.url
    lang = locale[:2]
    assert page.get_attribute("html", "lang") == lang
    no_sideways_scroll(page)
    page.screenshot(path=str(shots / f"table-{size}-{lang}.png"))
    for selector in (
        ".hand.mine .card",
        ".seat-area.top .nameplate .chip.points",
        ".seat-area.bottom .nameplate .chip.points",
        ".trick",
        ".stock .stack",
        ".stock .indicator",
        ".trump-badge",
    ):
        in_view(page, selector, viewport)
    assert page.locator(".hand.mine .card").count() == 6
    if viewport is PHONE:
        assert small_targets(page) == []
    page.click(".hand.mine .card.playable >> nth=0")  # A♠ wins: the meld window opens
    page.wait_for_selector(".action.meld")
    no_sideways_scroll(page)
    page.screenshot(path=str(shots / f"table-window-{size}-{lang}.png"))
    for name, path in [*PAGES, ("replay-game", "/replay?game=" + table.rsplit("/", 1)[1])]:
        page.goto(server.base + path)
        page.wait_for_load_state("networkidle")
        assert page.get_attribute("html", "lang") == lang
        no_sideways_scroll(page)
        if viewport is PHONE:
            assert small_targets(page) == [], name
        page.screenshot(path=str(shots / f"{name}-{size}-{lang}.png"), full_page=True)
    close(page)


def test_the_french_table_says_atout_and_names_cards_in_french(
    chromium: Browser, server: LiveServer
) -> None:
    page = open_page(chromium, PHONE, "fr-FR")
    page.goto(server.base + "/?lang=fr")
    assert page.get_attribute("html", "lang") == "fr"
    start_game(page, server.base)
    page.goto(page.url + "?lang=fr")
    page.wait_for_selector(".hand.mine .card.playable")
    assert page.get_attribute("html", "lang") == "fr"
    assert "atout" in page.inner_text(".trump-badge").lower()
    assert page.get_by_role("button", name="jouer dame de pique", exact=True).count() == 1
    assert page.get_attribute('.hand.mine .card[data-card="QS"] svg', "aria-label") == (
        "dame de pique"
    )
    assert "Camille (vous)" in page.inner_text(".seat-area.bottom .player-name")
    why = page.evaluate(
        """() => import("/static/board.js").then((board) => board.blockedReason({
             lead: "TS", phase: 2, trump: "H", blocked: { "9S": "overtake", "KD": "overtake" },
             must_play: ["AS"], hands: [{ cards: ["AS", "KS", "9S", "KD"] }] }, "9S"))"""
    )  # R16 in French: follow spades and beat the ten, so only the ace
    assert why == (  # in words, no rule id (issue 22)
        "Impossible de jouer 9♠\u00a0: vous devez fournir ♠ et monter sur 10♠\u202f; jouez A♠."
    )
    page.click("#rules-link")  # the rules of this table, from the table
    page.wait_for_url("**/rules?rules=*")
    assert page.inner_text("h1") == "Les règles du marjolet"
    assert "classique" in page.inner_text("main")
    page.goto(server.base + "/")
    # the lobby's script gives the link its rules (before it, plain /rules)
    page.wait_for_selector('#rules-link[href*="?rules="]', state="attached")
    page.click("#rules-link")  # and from the lobby
    page.wait_for_url("**/rules?rules=*")
    close(page)


def test_the_language_switch_is_remembered(chromium: Browser, server: LiveServer) -> None:
    page = open_page(chromium, DESKTOP, "en-US")
    page.goto(server.base + "/")
    assert page.inner_text("#vs-bot h2") == "Play the computer"
    page.click(".lang-switch a[hreflang=fr]")
    page.wait_for_selector("html[lang=fr]")
    # the lobby is built by the page's script: wait for it (a loaded machine is slow)
    expect(page.locator("#vs-bot h2")).to_have_text("Jouer contre l’ordinateur")
    page.goto(server.base + "/history")  # no ?lang: the remembered choice
    page.wait_for_load_state("networkidle")
    assert page.get_attribute("html", "lang") == "fr"
    assert page.inner_text("h1") == "Parties"
    close(page)


@pytest.mark.skipif(
    not AXE.exists(), reason=f"axe-core is missing ({AXE}): run scripts/install-axe.sh"
)
@pytest.mark.parametrize(("viewport", "locale"), [(PHONE, "fr-FR"), (DESKTOP, "en-US")])
def test_axe_finds_no_serious_or_critical_violation(
    chromium: Browser, server: LiveServer, viewport: ViewportSize, locale: str
) -> None:
    server.app.state.reviews.budget = 0.0  # the review of a deal at once
    page = open_page(chromium, viewport, locale, bypass_csp=True)  # axe is injected inline
    start_game(page, server.base)
    game_id = page.url.rsplit("/", 1)[1]
    problems = {"table": axe_problems(page)}
    page.click(".hand.mine .card.playable >> nth=0")
    page.wait_for_selector(".action.meld")
    problems["meld window"] = axe_problems(page)
    play_moves(page, 6)  # mid-game: a trick on the felt, the log scrolled, news said
    problems["table mid-game"] = axe_problems(page)
    play_moves(page, 200)  # to the end of the deal: the dialog
    page.wait_for_selector("#overlay:not([hidden])")
    problems["end-of-deal dialog"] = axe_problems(page)
    for name, path in [*PAGES, ("replay of a game", f"/replay?game={game_id}"),
                       ("review", f"/replay?game={game_id}&review=1")]:  # fmt: skip
        page.goto(server.base + path)
        page.wait_for_load_state("networkidle")
        if name == "review":
            page.wait_for_selector(".review-panel", timeout=120_000)
            page.wait_for_selector(".review-legend")
        problems[name] = axe_problems(page)
    close(page)
    assert {k: v for k, v in problems.items() if v} == {}


def play_moves(page: Page, moves: int) -> None:
    """Play the first playable card (or draw) ``moves`` times, or until the deal ends."""
    for _ in range(moves):
        page.wait_for_selector(
            ".hand.mine .card.playable, .action.draw, #overlay:not([hidden])", timeout=20000
        )
        if page.is_visible("#overlay"):
            return
        target = ".action.draw" if page.locator(".action.draw").count() else (
            ".hand.mine .card.playable >> nth=0")
        before = page.get_attribute("#board", "data-version")
        try:
            page.click(target, timeout=3000)
            page.wait_for_function(
                "v => document.querySelector('#board').dataset.version !== v", arg=before,
                timeout=10000,
            )
        except PlaywrightTimeout:  # a card in flight: choose again
            continue


def moves_after_a_play(page: Page) -> int:
    before = page.get_attribute("#board", "data-version")
    page.keyboard.press("1")  # digits play cards, as in the terminal
    page.wait_for_function(
        "v => document.querySelector('#board').dataset.version !== v", arg=before
    )
    return int(page.get_attribute(".felt", "data-moves") or 0)


def test_cards_move_unless_the_player_asks_for_less_motion(
    chromium: Browser, server: LiveServer
) -> None:
    page = open_page(chromium, DESKTOP, "en-US")
    start_game(page, server.base)
    assert moves_after_a_play(page) > 0
    close(page)
    still = open_page(chromium, DESKTOP, "en-US", reduced_motion="reduce")
    start_game(still, server.base)
    assert moves_after_a_play(still) == 0
    close(still)


def test_the_match_end_shows_every_deal_and_offers_a_rematch(
    chromium: Browser, server: LiveServer, shots: Path
) -> None:
    game = server.new_game(
        mode="bot", bot="random", name="Ann", rules={"profile": "classic", "target": 100}
    )  # the least target a new match may take: a few deals
    # the match played over the socket up to Ann's last card of a deal that may
    # end it (the score with this deal's points at the target); clicked from there
    play_ahead(
        server,
        game,
        lambda s: s["match_over"] or (last_card_to_play(s) and max(s["running"]) >= 100),
    )
    page = open_page(chromium, PHONE, "en-US")
    page.goto(f"{server.base}/game/{game['id']}#token={game['token']}&seat=0")
    page.wait_for_selector(".hand.mine .card")
    rng = random.Random(5)
    for _ in range(1500):
        page.wait_for_selector(
            ".hand.mine .card.playable, .action.draw, #overlay:not([hidden])", timeout=20000
        )
        if page.is_visible("#overlay"):
            # a deal over: no greyed advice button left, the badge says the deal is over
            assert page.locator(".action.hint").count() == 0
            assert "deal over" in page.inner_text(".trump-badge")
            assert page.locator(".empty-hand").count() == 0  # not "no cards left" twice
            if page.query_selector("#next-deal"):
                page.click("#next-deal")
                page.wait_for_selector("#overlay", state="hidden")
                continue
            break
        targets = page.query_selector_all(".action.meld, .action.draw, .hand.mine .card.playable")
        before = page.get_attribute("#board", "data-version")
        rng.choice(targets).click()
        try:
            page.wait_for_function(
                "v => document.querySelector('#board').dataset.version !== v",
                arg=before,
                timeout=10000,
            )
        except PlaywrightTimeout:  # the click fell in a card's flight: choose again
            continue
    assert "win" in page.inner_text("#overlay-title").lower()
    deals = page.locator("#overlay .every-deal tbody tr").count()
    assert deals >= 1
    aligned = page.evaluate(  # each heading over its column, as its figures
        "() => [...document.querySelectorAll('#overlay .every-deal tr')].slice(0, 2)"
        ".map((row) => [...row.children].map((cell) => getComputedStyle(cell).textAlign))"
    )
    assert aligned[0] == aligned[1], aligned
    no_sideways_scroll(page)
    page.screenshot(path=str(shots / "match-end-390x844-en.png"))
    page.click("#rematch")
    page.wait_for_function(f"() => !location.pathname.endsWith('{game['id']}')")
    page.wait_for_selector(".hand.mine .card")
    assert page.inner_text(".seat-area.bottom .player-name") == "Ann (you)"
    close(page)


def test_a_friend_s_name_that_passes_for_the_computer_is_refused_and_asked_again(
    chromium: Browser, server: LiveServer
) -> None:
    game = server.new_game(mode="friend", name="Margot")
    page = open_page(chromium, PHONE, "fr-FR")
    page.goto(server.base + game["invite_url"])
    page.fill("#join-name", "Confirmé")  # the level's name: the host would see the computer
    page.click("#join-button")
    said = page.locator("#join-name-error")
    expect(said).to_contain_text("« Confirmé » est le nom que les pages donnent")
    assert page.get_attribute("#join-name", "aria-describedby") == "join-name-error"
    page.fill("#join-name", "Lucien")
    page.click("#join-button")
    page.wait_for_selector(".hand.mine .card")
    assert "Lucien" in page.inner_text(".seat-area.bottom .player-name")
    close(page)


def test_a_used_invite_link_says_it_was_used(chromium: Browser, server: LiveServer) -> None:
    game = server.new_game(mode="friend", name="Host")
    link = server.base + game["invite_url"]
    first = open_page(chromium, DESKTOP, "en-US")
    first.goto(link)
    expect(first.locator(".join-form")).to_contain_text("Host invites you to play Marjolet.")
    first.click("#join-button")
    first.wait_for_selector(".hand.mine .card")
    second = open_page(chromium, DESKTOP, "en-US")
    second.goto(link)
    said = second.get_by_role("alert")  # said at once: no name is asked
    expect(said).to_contain_text("already used")
    assert second.locator("#join-button").count() == 0
    close(first)
    close(second)


def test_a_used_invite_link_on_a_phone_leads_home_instead_of_an_empty_table(
    chromium: Browser, server: LiveServer
) -> None:
    game = server.new_game(mode="friend", name="Hôte")
    link = server.base + game["invite_url"]
    first = open_page(chromium, PHONE, "fr-FR")
    first.goto(link)
    first.click("#join-button")
    first.wait_for_selector(".hand.mine .card")
    third = open_page(chromium, {"width": 360, "height": 740}, "fr-FR")
    third.goto(link)
    expect(third.get_by_role("alert")).to_have_text(
        "Ce lien d’invitation a déjà servi : quelqu’un a pris la place. Demandez un nouveau lien."
    )
    home = third.locator("main a.action[href='/']")
    expect(home).to_have_text("Retour à l’accueil")
    expect(third.locator("#board")).to_have_count(0)  # no empty green table
    assert third.locator(".seat-area, .score-panel").count() == 0
    home.click()
    third.wait_for_url(server.base + "/")
    close(first)
    close(third)


@pytest.mark.parametrize(
    ("lang", "wanted", "home_text"),
    [
        (
            "fr-FR",
            "Ce lien d’invitation n’est pas valable : il a peut-être été mal recopié ou coupé. "
            "Demandez à votre ami de vous le renvoyer.",
            "Retour à l’accueil",
        ),
        (
            "en-US",
            "This invite link is not valid: it may have been mistyped or cut short. "
            "Ask your friend to send it again.",
            "Back to the home page",
        ),
    ],
)
def test_a_bad_invite_link_on_a_phone_says_so_and_leads_home_instead_of_an_empty_table(
    chromium: Browser, server: LiveServer, lang: str, wanted: str, home_text: str
) -> None:
    """A code that never existed (mistyped, cut short): no « table privée »
    over an empty table. (A link to a game that is not on this server is
    the server's own "no such game" page.)"""
    game = server.new_game(mode="friend", name="Hôte")
    path, _, code = game["invite_url"].partition("#invite=")
    page = open_page(chromium, {"width": 360, "height": 740}, lang)
    page.goto(f"{server.base}{path}#invite={mistyped(code)}")
    expect(page.get_by_role("alert")).to_have_text(wanted)
    home = page.locator("main a.action[href='/']")
    expect(home).to_have_text(home_text)
    expect(page.locator("#board")).to_have_count(0)  # no empty green table
    assert page.locator(".seat-area, .score-panel, #join-button").count() == 0
    home.click()
    page.wait_for_url(server.base + "/")
    close(page)
    with server.http() as client:  # the seat is still free for the right code
        check = client.post(f"/api/games/{game['id']}/invite", json={"invite": code})
    assert check.json()["status"] == "open"


@pytest.mark.parametrize(
    ("lang", "wanted"),
    [
        ("fr", "Un conseil ne se demande que lorsque c’est à vous de jouer."),
        ("en", "A hint is only for your own turn."),
    ],
)
def test_a_refused_hint_is_told_in_the_language_of_the_page(
    chromium: Browser, server: LiveServer, lang: str, wanted: str
) -> None:
    game = server.new_game(mode="friend", name="Hôte")  # seat 1 deals: the host leads
    path, _, fragment = game["invite_url"].partition("#")
    page = open_page(chromium, DESKTOP, "fr-FR" if lang == "fr" else "en-US")
    page.goto(f"{server.base}{path}?lang={lang}#{fragment}")  # the friend: not their turn
    page.click("#join-button")
    page.wait_for_selector(".hand.mine .card")
    page.keyboard.press("h")
    page.wait_for_selector("#toast:not([hidden])")
    assert page.inner_text("#toast") == wanted
    close(page)


def test_a_card_held_back_by_the_meld_window_says_why_in_french(
    chromium: Browser, server: LiveServer
) -> None:
    page = open_page(chromium, DESKTOP, "fr-FR")
    page.goto(server.base + "/?lang=fr")
    page.wait_for_selector("html[lang=fr]")
    page.wait_for_selector("#bot-level option", state="attached")
    why = page.evaluate(
        """() => import("/static/board.js").then((board) => board.blockedReason({
             lead: null, phase: 1, trump: "H", in_window: true,
             blocked: { "9S": "window" }, must_play: [],
             hands: [{ cards: ["AS", "9S"] }] }, "9S"))"""
    )
    assert why == (
        "Vous avez remporté le pli\u00a0: faites vos annonces ou touchez "
        "«\u00a0Piocher\u00a0» d’abord, puis jouez."
    )
    prompts = page.evaluate(
        """() => import("/static/board.js").then((board) => [3, 10].flatMap((trick) => [
             [{ kind: "draw" }], [{ kind: "dix" }, { kind: "draw" }],
             [{ kind: "meld" }, { kind: "draw" }],
             [{ kind: "meld" }, { kind: "dix" }, { kind: "draw" }]].map((legal) =>
             board.promptText({ to_move: 0, players: ["Ann", "Bob"], in_window: true,
                                tricks_played: trick, legal }, { seat: 0 }))))"""
    )  # the won trick is in the log already: the prompt says what is left to do,
    # naming the exchange only with the seven in hand, the melds only with one;
    # at trick 10, as the button does, the last cards (even once all is declared)
    assert prompts == [
        "Pli pour vous\u00a0: rien à annoncer, piochez.",
        "Pli pour vous\u00a0: échangez le sept, puis piochez.",
        "Pli pour vous\u00a0: annoncez vos combinaisons, puis piochez.",
        "Pli pour vous\u00a0: annoncez vos combinaisons ou échangez le sept, puis piochez.",
        "Pli 10 pour vous\u00a0: rien à annoncer, piochez les dernières cartes.",
        "Pli 10 pour vous\u00a0: échangez le sept, puis piochez les dernières cartes.",
        "Pli 10 pour vous\u00a0: annoncez, puis piochez les dernières cartes.",
        "Pli 10 pour vous\u00a0: annoncez ou échangez, puis piochez les dernières cartes.",
    ]
    close(page)


def test_the_rules_link_and_the_settings_boxes_are_big_enough_to_tap(
    chromium: Browser, server: LiveServer
) -> None:
    page = open_page(chromium, {"width": 360, "height": 640}, "fr-FR")
    start_game(page, server.base)
    page.click(".prefs-menu summary")  # the settings: four colours, sounds
    sizes = page.evaluate(
        """() => ['#rules-link', '#four-colour', '#sound'].map((s) => {
             const r = document.querySelector(s).getBoundingClientRect();
             return [s, Math.round(r.width), Math.round(r.height)]; })"""
    )
    assert all(w >= 24 and h >= 24 for _, w, h in sizes), sizes  # WCAG 2.5.8's minimum
    close(page)


def test_a_review_asked_for_a_game_still_played_says_when_it_comes(
    chromium: Browser, server: LiveServer
) -> None:
    page = open_page(chromium, PHONE, "fr-FR")
    start_game(page, server.base)
    game_id = page.url.rsplit("/", 1)[1]
    page.goto(f"{server.base}/replay?game={game_id}&review=1&lang=fr")
    notice = page.locator("#partial")
    expect(notice).to_be_visible()
    expect(notice).to_contain_text("L’analyse vient dès qu’une donne est finie.")
    assert page.locator("#review-button").count() == 0  # no deal over yet: nothing to review
    close(page)


def upload_errors(chromium: Browser, server: LiveServer, files: list[Path], lang: str) -> list[str]:
    """What the replay page in ``lang`` says of each record file it refuses,
    uploaded one after the other."""
    page = open_page(chromium, DESKTOP, "fr-FR" if lang == "fr" else "en-US")
    page.goto(f"{server.base}/replay?lang={lang}")
    said = []
    for typed in files:
        page.set_input_files("#record-file", str(typed))
        page.click("#upload-form button[type=submit]")
        page.wait_for_function(
            "(name) => document.querySelector('#upload-error').textContent.startsWith(name)",
            arg=typed.name,
        )
        said.append(page.inner_text("#upload-error"))
    close(page)
    return said


def french_upload_error(chromium: Browser, server: LiveServer, typed: Path) -> str:
    """What the French replay page says of the record file ``typed`` it refuses."""
    return upload_errors(chromium, server, [typed], "fr")[0]


def test_an_upload_error_counts_deals_from_one_and_places_a_refused_move_by_its_trick(
    chromium: Browser, server: LiveServer, tmp_path: Path
) -> None:
    """As ``marjolet replay`` places it: « deal 1, trick 4 », not « action 15 »."""
    bad = Path(__file__).parent / "examples" / "I000-hand-seed05-repeat-JQS.json"
    bom = tmp_path / "bom.json"
    bom.write_bytes(b"\xef\xbb\xbf" + bad.read_bytes())
    page = open_page(chromium, DESKTOP, "en-US")
    page.goto(server.base + "/replay")
    page.set_input_files("#record-file", str(bad))
    page.click("#upload-form button[type=submit]")
    page.wait_for_selector("#upload-error:not([hidden])")
    text = page.inner_text("#upload-error")
    assert "(deal 1, trick 4)" in text  # the record's deal 0, action 14
    assert "Player 2 declares the marjolet and the queen of spades a second time" in text
    assert "R12" not in text
    page.set_input_files("#record-file", str(bom))
    page.click("#upload-form button[type=submit]")
    page.wait_for_function(
        "() => document.querySelector('#upload-error').textContent.includes('BOM')"
    )
    close(page)


def test_an_upload_error_of_a_text_record_names_its_line(
    chromium: Browser, server: LiveServer, tmp_path: Path
) -> None:
    """A record typed by hand: the page names the line to edit, first, and
    says how to write what is mistyped, as ``marjolet replay`` does."""
    deck = " ".join(CARD_NAMES)
    typed = tmp_path / "table.txt"
    typed.write_text(f"first_dealer 0\ndeal 0\ndeck {deck}\n  1. 7C JC draw\n2 QC 8C\n")
    assert french_upload_error(chromium, server, typed) == (
        "table.txt\u00a0: ce fichier n’est pas une partie valable (ligne 5, donne 1, coup 4)"
        "\u00a0: «\u00a02\u00a0» n’est pas un coup\u00a0: le numéro d’un pli s’écrit suivi "
        "d’un point («\u00a02.\u00a0»)."
    )


def test_an_upload_error_tells_a_refused_exchange_of_the_seven_as_an_exchange(
    chromium: Browser, server: LiveServer, tmp_path: Path
) -> None:
    """R14: the page words a ``dix`` before any trick won as ``marjolet
    replay`` does, an exchange, not « annonce ou échange le sept »."""
    deck = " ".join(CARD_NAMES)
    typed = tmp_path / "dix.txt"
    typed.write_text(f"first_dealer 0\ndeal 0\ndeck {deck}\n  1. dix\n")
    assert french_upload_error(chromium, server, typed) == (
        "dix.txt\u00a0: ce fichier n’est pas une partie valable (ligne 4, donne 1, pli 1)"
        "\u00a0: Joueur 2 échange le sept d’atout hors du moment prévu (juste après avoir "
        "gagné un pli, avant de piocher)."
    )


def test_an_upload_error_says_a_meld_written_after_a_trick_its_holder_lost_is_the_winners(
    chromium: Browser, server: LiveServer, tmp_path: Path
) -> None:
    """As ``marjolet replay`` says it: the winner declares a meld the
    loser holds (Alice: K♣ Q♣); the page names the holder and says that
    only the trick's winner declares, and keeps the plain sentence for a
    meld nobody holds whole."""
    deck = " ".join(CARD_NAMES)
    head = f'players "Alice" "Bob"\nfirst_dealer 0\ndeal 0\ndeck {deck}\n'
    lost, nobody = tmp_path / "perdu.txt", tmp_path / "personne.txt"
    lost.write_text(head + "  1. AC JC meld KQC\n")
    nobody.write_text(head + "  1. AC JC meld KQH\n")
    assert french_upload_error(chromium, server, lost) == (
        "perdu.txt\u00a0: ce fichier n’est pas une partie valable (ligne 5, donne 1, pli 1)"
        "\u00a0: Bob annonce mariage à trèfle sans avoir R♣ ou D♣\u00a0: c’est Alice qui les "
        "a, mais seul le gagnant du pli annonce."
    )
    assert french_upload_error(chromium, server, nobody) == (
        "personne.txt\u00a0: ce fichier n’est pas une partie valable (ligne 5, donne 1, pli 1)"
        "\u00a0: Bob annonce mariage à cœur sans avoir R♥ ou D♥."
    )


@pytest.mark.parametrize(
    ("lang", "wanted"),
    [
        ("fr", [
            "regles.txt\u00a0: ce fichier n’est pas une partie valable (ligne 1)\u00a0: profil "
            "de règles inconnu «\u00a0classique\u00a0» (profils connus\u00a0: classic, "
            "encyclopedia).",
            "donneur.txt\u00a0: ce fichier n’est pas une partie valable (ligne 1)\u00a0: "
            "«\u00a0first_dealer\u00a0» ne peut pas valoir «\u00a02\u00a0»\u00a0: c’est 0 "
            "ou 1, le joueur qui donne le premier.",
            "paquet.txt\u00a0: ce fichier n’est pas une partie valable (ligne 3, donne 1)"
            "\u00a0: son paquet contient deux fois 7♣.",
        ]),
        ("en", [
            "regles.txt: this file is not a valid game (line 1): unknown rules profile "
            "“classique” (known profiles: classic, encyclopedia).",
            "donneur.txt: this file is not a valid game (line 1): “first_dealer” cannot be "
            "“2”: it is 0 or 1, the player who deals first.",
            "paquet.txt: this file is not a valid game (line 3, deal 1): its deck holds 7♣ "
            "twice.",
        ]),
    ],
)  # fmt: skip
def test_an_upload_error_of_a_header_or_a_deck_says_what_is_wrong_as_the_command_line_does(
    chromium: Browser, server: LiveServer, tmp_path: Path, lang: str, wanted: list[str]
) -> None:
    """A bad rules profile or first dealer was « un coup n’est pas permis
    par les règles, ou le fichier est abîmé », a repeated card of a deck no
    better: the page says the sentence of ``marjolet replay``."""
    deck = " ".join(CARD_NAMES)
    rules, dealer, repeated = (tmp_path / f"{name}.txt" for name in ("regles", "donneur", "paquet"))
    rules.write_text(f"rules classique\nfirst_dealer 0\ndeal 0\ndeck {deck}\n")
    dealer.write_text(f"first_dealer 2\ndeal 0\ndeck {deck}\n")
    repeated.write_text(f"first_dealer 0\ndeal 0\ndeck {deck.replace('8C', '7C', 1)}\n")
    assert upload_errors(chromium, server, [rules, dealer, repeated], lang) == wanted


def test_the_viewer_says_equal_totals_past_the_target_play_on_not_just_undecided(
    chromium: Browser, server: LiveServer
) -> None:
    """R22: at 510-510 after a finished deal another deal is played; the
    viewer said only « partie non décidée », as for a match below 500."""
    examples = Path(__file__).parent / "examples"
    page = open_page(chromium, PHONE, "fr-FR")
    page.goto(server.base + "/replay?lang=fr")
    page.set_input_files("#record-file", str(examples / "L005-hand-tie-510-open.json"))
    page.click("#upload-form button[type=submit]")
    expect(page.locator(".final")).to_have_text(
        "Totaux 510 – 510\u00a0: égalité, le but atteint\u00a0: une autre donne départage."
    )
    page.set_input_files("#record-file", str(examples / "L006-hand-seed05-partial.json"))
    page.click("#upload-form button[type=submit]")
    expect(page.locator(".final")).to_contain_text("partie non décidée")
    close(page)


def test_a_file_that_is_no_record_is_said_so_in_french_not_as_a_move_against_the_rules(
    chromium: Browser, server: LiveServer, tmp_path: Path
) -> None:
    letter = tmp_path / "lettre.txt"
    letter.write_text("bonjour\n", encoding="utf-8")
    page = open_page(chromium, PHONE, "fr-FR")
    page.goto(server.base + "/replay")
    page.set_input_files("#record-file", str(letter))
    page.click("#upload-form button[type=submit]")
    expect(page.locator("#upload-error")).to_have_text(
        "lettre.txt\u00a0: ce fichier n’est pas une partie valable\u00a0: on n’y lit aucune "
        "partie de marjolet (ni en JSON, ni en notation texte)."
    )
    newer = tmp_path / "plus-recent.json"  # a record, of a format this version cannot read
    newer.write_text('{"format": "marjolet-record/2", "first_dealer": 0, "deals": []}\n')
    page.set_input_files("#record-file", str(newer))
    page.click("#upload-form button[type=submit]")
    expect(page.locator("#upload-error")).to_have_text(
        "plus-recent.json\u00a0: ce fichier n’est pas une partie valable\u00a0: format inconnu "
        "«\u00a0marjolet-record/2\u00a0»\u00a0: ce programme lit «\u00a0marjolet-record/1\u00a0»."
    )
    close(page)

@pytest.mark.parametrize(
    "viewport",
    [{"width": 360, "height": 740}, {"width": 430, "height": 932}],
    ids=["360x740", "430x932"],
)
def test_the_narrowest_and_widest_phones_fit_too(
    chromium: Browser, server: LiveServer, viewport: ViewportSize
) -> None:
    page = open_page(chromium, viewport, "fr-FR")
    start_game(page, server.base)
    no_sideways_scroll(page)
    for selector in (".hand.mine .card", ".trick", ".stock .indicator", ".trump-badge",
                     ".seat-area.top .chip.points", ".seat-area.bottom .chip.points"):  # fmt: skip
        in_view(page, selector, viewport)
    assert small_targets(page) == []
    page.goto(server.base + "/")
    page.wait_for_load_state("networkidle")
    no_sideways_scroll(page)
    close(page)


#: a phone turned sideways: wider than the phone layout (700 px), so laid out as a
#: small desktop, whose targets must still be 24 px at least
LANDSCAPE_PHONE: ViewportSize = {"width": 844, "height": 390}


def test_a_phone_turned_sideways_has_no_target_under_24_px(
    chromium: Browser, server: LiveServer
) -> None:
    page = open_page(chromium, LANDSCAPE_PHONE, "fr-FR")
    start_game(page, server.base)
    small = {"table": small_targets(page, minimum=24)}
    for name, path in [*PAGES, ("online", "/online")]:
        page.goto(server.base + path)
        page.wait_for_load_state("networkidle")
        small[name] = small_targets(page, minimum=24)
    assert {name: found for name, found in small.items() if found} == {}, small
    close(page)


def test_a_player_resigns_with_two_presses_and_the_pages_say_so_in_french(
    chromium: Browser, server: LiveServer
) -> None:
    page = open_page(chromium, PHONE, "fr-FR")
    page.goto(server.base + "/?lang=fr")
    start_game(page, server.base)
    resign = page.locator("#resign")
    expect(resign).to_have_text("Abandonner")
    resign.click()  # the first press only asks to confirm
    expect(resign).to_have_text("Abandonner la partie\u202f? Appuyez encore")
    page.wait_for_timeout(300)
    assert page.locator("#overlay").is_hidden()
    resign.click()
    overlay = page.locator("#overlay")
    expect(overlay).to_contain_text("Vous avez abandonné la partie.")
    expect(overlay).to_contain_text("gagne la partie par abandon")  # not "par forfait"
    over = "La partie est finie\u00a0: vous avez abandonné."
    expect(page.locator("#board")).to_contain_text(over)
    expect(page.locator("#resign-row")).to_be_hidden()  # nothing left to give up
    game = page.url.rsplit("/", 1)[-1].split("?")[0]
    page.goto(f"{server.base}/replay?game={game}&lang=fr")
    expect(page.locator("#partial")).to_contain_text("Camille a abandonné\u00a0: ")
    expect(page.locator("#result")).to_contain_text("gagne par abandon")
    close(page)


def test_the_home_page_names_no_program_until_the_research_programs_are_asked_for(
    chromium: Browser, server: LiveServer
) -> None:
    page = open_page(chromium, PHONE, "fr-FR")
    page.goto(server.base + "/")
    page.wait_for_selector("#bot-program option", state="attached")
    expect(page.locator("details.programs")).to_have_count(2)
    for fold in page.locator("details.programs").all():
        expect(fold).to_be_hidden()
    shown = page.inner_text("body")
    for word in ("Autres programmes", "pimc", "ismcts", "heuristic", "best", "sampler"):
        assert word not in shown, word
    page.click(".prefs-menu summary")
    page.check("#research")  # the settings menu: « programmes pour chercheurs »
    expect(page.locator("#vs-bot details.programs")).to_be_visible()
    page.reload()  # remembered by this browser
    expect(page.locator("#vs-bot details.programs")).to_be_visible()
    close(page)


def test_the_log_says_why_the_dealer_has_10_before_any_card_when_the_seven_is_turned_up(
    chromium: Browser, tmp_path: Path
) -> None:
    deck = deck_for("AS KS QS 7H 8H 9H", "7C 8C 9C 7D 8D 9D", "7S")  # R18: the dealer's 10
    config = fast_config(tmp_path / "g.sqlite3", first_dealer=1, deck_for=lambda i: deck)
    with live_server(config) as seven_server:
        page = open_page(chromium, PHONE, "fr-FR")
        start_game(page, seven_server.base)
        expect(page.locator(".log-list li").first).to_have_text(
            "random marque 10\u00a0: la retourne est le sept d’atout."
        )
        close(page)
