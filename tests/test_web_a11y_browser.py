"""The table with a keyboard and a screen reader (an accessibility review, fr-FR):
what the live prompt says after each move, where the focus goes after a move,
the focused card seen, cards spoken in words, the end-of-deal dialog as a modal,
cards that may not be played reachable and saying why, the live regions and the
log reached by the keyboard. Playwright driving Debian's Chromium.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, ViewportSize, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from web_support import (
    DESKTOP,
    PHONE,
    STILL,
    LiveServer,
    close_watched_page,
    fast_config,
    last_card_to_play,
    live_server,
    marriage_table_server,
    needs_chromium,
    open_watched_page,
    play_ahead,
    start_against_random,
)
from web_support import Browser as SeatSocket

#: a card named in words, as a screen reader says it
CARD_WORDS = re.compile(r"^(sept|huit|neuf|dix|valet|dame|roi|as) de (trèfle|carreau|cœur|pique)$")

#: the keyboard is on the board (a card, a button of the felt, or the board itself)
ON_THE_BOARD = "() => document.querySelector('#board').contains(document.activeElement)"

pytestmark = needs_chromium


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    # Camille leads (seat 1 deals) with the ace of trumps: she takes trick 1 and
    # may declare the trump marriage
    with marriage_table_server(tmp_path_factory.mktemp("web"), seed=7) as srv:
        yield srv


def open_page(chromium: Browser, viewport: ViewportSize = DESKTOP, locale: str = "fr-FR",
              **extra: Any) -> Page:  # fmt: skip
    return open_watched_page(chromium, viewport=viewport, locale=locale, **extra)


def start(page: Page, base: str) -> None:
    page.goto(base + "/?lang=fr")
    page.wait_for_selector("html[lang=fr]")
    start_against_random(page, base, "Camille", ready=".hand.mine .card.playable")


def spoken_cards(page: Page, selector: str) -> list[str]:
    """The names a screen reader hears for the cards and suits inside ``selector``."""
    found: list[str] = page.eval_on_selector_all(
        f"{selector} [role=img]", "ns => ns.map(n => n.getAttribute('aria-label'))"
    )
    return found


def focused(page: Page) -> str:
    """The focused element: its data-card or data-action, else its tag."""
    found: str = page.evaluate(
        """() => { const a = document.activeElement;
             return a.dataset.card || a.dataset.action || a.id || a.tagName; }"""
    )
    return found


def wait_version_change(page: Page, before: str | None, timeout: float = 10000) -> None:
    page.wait_for_function(
        "v => document.querySelector('#board').dataset.version !== v", arg=before, timeout=timeout
    )


def press_on(page: Page, selector: str) -> None:
    """Focus ``selector`` with the keyboard's path (focus(), as Tab would) and press Enter."""
    page.focus(selector)
    before = page.get_attribute("#board", "data-version")
    page.keyboard.press("Enter")
    wait_version_change(page, before)


def test_the_live_prompt_says_the_cards_played_who_took_the_trick_and_the_card_drawn(
    chromium: Browser, server: LiveServer
) -> None:
    page = open_page(chromium)
    start(page, server.base)
    prompt = page.locator(".prompt[role=status][aria-live=polite]")
    expect(prompt).to_have_count(1)
    press_on(page, '.hand.mine .card.playable[data-card="AS"]')  # the ace of trumps wins
    page.wait_for_selector(".action.draw")
    news = page.locator(".prompt-newsbox")
    expect(news).to_contain_text("vous prenez le pli.")
    said = spoken_cards(page, ".prompt-newsbox")
    assert said and all(CARD_WORDS.match(name) for name in said), said
    # the symbols stay on screen; a screen reader hears words (no "♣" read as a symbol)
    assert re.search(r"[♣♦♥♠]", news.inner_text())
    before_draw = page.get_attribute("#board", "data-version")
    page.focus(".action.draw")
    page.keyboard.press("Enter")
    wait_version_change(page, before_draw)
    expect(news).to_contain_text("Vous piochez ")
    drawn = page.eval_on_selector(
        ".prompt-newsbox",
        "n => [...n.children].filter(c => c.textContent.startsWith('Vous piochez'))"
        ".map(c => c.querySelector('[role=img]').getAttribute('aria-label'))",
    )
    assert len(drawn) == 1 and CARD_WORDS.match(drawn[0]), drawn
    # each news is a sentence of its own: never "(+20)Débutant réfléchit…"
    for line in page.locator(".prompt-newsbox > div").all_inner_texts():
        assert line.rstrip().endswith("."), line
    close_watched_page(page)


def in_tricks_11_to_16(state: dict[str, Any]) -> bool:
    """The stock is out: the first turn of the deal's last six tricks."""
    return bool(state["stock"] == 0 and state["legal"] and not state["deal_over"])


def test_the_news_covers_tricks_11_to_16_and_is_never_said_twice(
    chromium: Browser, server: LiveServer
) -> None:
    """Every state of a deal: the opponent's card and the trick's taker are in the
    live prompt until the player moves, and the lines said already are kept (the
    reader says only the new ones)."""
    page = open_page(chromium, PHONE)
    # tricks 1 to 10 played over the socket: the page opens on trick 11
    game = server.new_game(mode="bot", bot="random", name="Camille")
    play_ahead(server, game, in_tricks_11_to_16)
    page.goto(f"{server.base}/game/{game['id']}?lang=fr#token={game['token']}&seat=0")
    page.wait_for_selector(".hand.mine .card")
    page.evaluate(
        """() => { window.added = [];
             new MutationObserver((ms) => { for (const m of ms) for (const n of m.addedNodes)
               if (n.nodeType === 1) window.added.push(n.textContent); })
             .observe(document.querySelector('.prompt-newsbox'), { childList: true }); }"""
    )
    phase2_turns = 0
    for _ in range(60):
        page.wait_for_selector(".hand.mine .card.playable, .action.draw, #overlay:not([hidden])")
        if page.is_visible("#overlay"):
            break
        if page.locator(".action.draw").count():
            press_on(page, ".action.draw")
            continue
        if page.locator(".stock .stack .card").count() == 0:  # tricks 11-16: still news
            news = page.inner_text(".prompt-newsbox")
            if "répondez" in page.inner_text(".prompt-line"):
                assert " entame " in news, news  # the card to answer, in the live prompt
            if phase2_turns:
                assert "le pli." in news, news  # who took the trick before
            phase2_turns += 1
        try:
            press_on(page, ".hand.mine .card.playable >> nth=0")
        except PlaywrightTimeout:
            continue
    assert phase2_turns >= 3
    added: list[str] = page.evaluate("window.added")
    # a line is added once per move: never the whole list again after each redraw
    assert len(added) == len(set(added)) or len(added) < 4 * len(set(added)), added
    close_watched_page(page)


def test_the_focus_stays_on_the_board_after_a_move_and_the_skip_link_goes_to_the_hand(
    chromium: Browser, server: LiveServer
) -> None:
    page = open_page(chromium)
    start(page, server.base)
    page.keyboard.press("Tab")  # the first stop: the skip link
    expect(page.locator(".skip-link")).to_be_focused()
    expect(page.locator(".skip-link")).to_have_text("Aller à votre jeu")
    page.keyboard.press("Enter")
    assert page.evaluate("document.activeElement.matches('.hand.mine .card.playable')")
    before = page.get_attribute("#board", "data-version")
    page.focus('.hand.mine .card.playable[data-card="AS"]')
    page.keyboard.press("Enter")
    wait_version_change(page, before)
    page.wait_for_selector(".action.draw")
    # won: the keyboard is on « Piocher » (or a meld), not back at the top of the page
    page.wait_for_function(
        "() => document.activeElement.matches("
        "'#board .action.draw, #board .action.meld, #board .action.dix')"
    )
    page.focus(".action.draw")
    before = page.get_attribute("#board", "data-version")
    page.keyboard.press("Enter")
    wait_version_change(page, before)
    page.wait_for_selector(".hand.mine .card.playable")
    page.wait_for_function(
        "() => document.activeElement.matches('#board .hand.mine .card.playable')"
    )
    # focus elsewhere on the page is not taken away by a new position
    page.focus("#rules-link")
    mine = int(page.get_attribute("#board", "data-version") or "")
    page.click(".hand.mine .card.playable >> nth=0")
    drawn = "v => Number(document.querySelector('#board').dataset.version) >= v"
    page.wait_for_function(drawn, arg=mine + 1)  # the card played is on the felt
    page.focus("#rules-link")
    page.wait_for_function(drawn, arg=mine + 2)  # the bot answers, the board is drawn again
    page.wait_for_function(STILL)
    assert focused(page) == "rules-link"
    close_watched_page(page)


def test_the_focused_card_has_a_visible_ring_and_is_lifted_higher(
    chromium: Browser, server: LiveServer
) -> None:
    page = open_page(chromium)
    start(page, server.base)
    page.focus(".hand.mine .card.playable >> nth=0")
    page.keyboard.press("Shift+Tab")
    page.keyboard.press("Tab")  # focus-visible: the keyboard's focus
    page.wait_for_function(STILL)  # the lift's transition
    style = page.evaluate(
        """() => { const a = document.activeElement, s = getComputedStyle(a);
             const other = document.querySelectorAll('.hand.mine .card.playable')[1];
             return { width: s.outlineWidth, style: s.outlineStyle, color: s.outlineColor,
                      lift: new DOMMatrix(s.transform).m42,
                      rest: new DOMMatrix(getComputedStyle(other).transform).m42 }; }"""
    )
    assert style["style"] == "solid" and style["width"] == "3px", style
    assert style["color"] == "rgb(240, 195, 90)", style
    assert style["lift"] < style["rest"] - 6, style  # higher than its neighbours
    close_watched_page(page)


def test_cards_in_buttons_prompt_and_badge_are_spoken_in_words(
    chromium: Browser, server: LiveServer
) -> None:
    page = open_page(chromium)
    start(page, server.base)
    # the trump badge says "atout pique" once, not "Atout, pique, pique"
    # (read once it is filled: a loaded machine once read it empty)
    page.wait_for_function("() => document.querySelector('.trump-badge')?.textContent.trim()")
    badge = page.locator(".trump-badge").aria_snapshot()
    assert badge.count("pique") == 1, badge
    press_on(page, '.hand.mine .card.playable[data-card="AS"]')
    meld = page.locator('.action.meld[data-action="meld KQS"]')
    expect(meld).to_have_accessible_name(
        re.compile(r"^Annoncer roi de pique dame de pique \(mariage d’atout\) ?\+40$")
    )
    assert re.fullmatch(r"Annoncer R♠\s*D♠\s*\+40", meld.evaluate(  # shown as before
        "n => [...n.childNodes]"
        ".filter(c => !c.classList || !c.classList.contains('visually-hidden'))"
        ".map(c => c.textContent).join('')").strip())
    # the log's cards too: "♠" is read "pique"
    said = spoken_cards(page, ".log-list")
    assert said and all(CARD_WORDS.match(name) for name in said), said
    # the hint and a blocked card's reason in words (the note under the hand)
    page.focus('.hand.mine .card[data-card="7H"]')
    page.keyboard.press("Enter")
    note = page.locator(".table-note .why-text")
    expect(note).to_contain_text("Piocher")
    close_watched_page(page)


def test_a_card_that_may_not_be_played_is_a_disabled_button_that_says_why(
    chromium: Browser, server: LiveServer
) -> None:
    page = open_page(chromium)
    start(page, server.base)
    press_on(page, '.hand.mine .card.playable[data-card="AS"]')  # the meld window opens
    page.wait_for_selector(".action.draw")
    held = page.locator('.hand.mine button.card[data-card="7H"]')
    expect(held).to_have_attribute("aria-disabled", "true")
    expect(page.get_by_role("button", name="sept de cœur (non jouable)")).to_have_count(1)
    held.focus()  # reached by the keyboard
    page.keyboard.press("Enter")
    expect(page.locator(".table-note .why-text")).to_have_text(
        "Vous avez remporté le pli\u00a0: faites vos annonces ou touchez "
        "«\u00a0Piocher\u00a0» d’abord, puis jouez."
    )
    close_watched_page(page)


def play_to_the_end_of_the_deal(page: Page) -> None:
    for _ in range(80):
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
            wait_version_change(page, before)
        except PlaywrightTimeout:  # a card in flight: choose again
            continue
    raise AssertionError("the deal did not end")


def test_the_end_of_deal_dialog_keeps_the_keyboard_and_escape_shows_the_table(
    chromium: Browser, server: LiveServer
) -> None:
    page = open_page(chromium)
    # the deal played over the socket up to Camille's last card: that one is clicked
    game = server.new_game(mode="bot", bot="random", name="Camille")
    play_ahead(server, game, last_card_to_play)
    page.goto(f"{server.base}/game/{game['id']}?lang=fr#token={game['token']}&seat=0")
    page.wait_for_selector(".hand.mine .card.playable")
    play_to_the_end_of_the_deal(page)
    dialog = page.locator("#overlay .dialog[role=dialog][aria-modal=true]")
    expect(dialog).to_be_visible()
    expect(page.locator("#next-deal")).to_be_focused()
    assert page.evaluate("document.querySelector('main').inert")  # the page behind
    for _ in range(6):  # Tab goes round the dialog's buttons, never to the top bar
        page.keyboard.press("Tab")
        assert page.evaluate("document.querySelector('#overlay').contains(document.activeElement)")
    page.keyboard.press("Shift+Tab")
    assert page.evaluate("document.querySelector('#overlay').contains(document.activeElement)")
    page.keyboard.press("Escape")  # « Voir la table »
    expect(page.locator("#overlay")).to_be_hidden()
    assert not page.evaluate("document.querySelector('main').inert")
    # back on the board: the felt's button that shows the summary again
    page.wait_for_function(ON_THE_BOARD)
    expect(page.locator("#board .prompt button")).to_be_focused()
    page.keyboard.press("Enter")  # the summary again, then the next deal
    expect(page.locator("#next-deal")).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.locator("#overlay")).to_be_hidden()
    page.wait_for_function(ON_THE_BOARD)
    close_watched_page(page)


def test_live_regions_are_there_before_their_words_and_the_log_is_reached_by_the_keyboard(
    chromium: Browser, server: LiveServer
) -> None:
    game = server.new_game(mode="friend", name="Hôte")  # seat 1 deals: the host leads
    path, _, fragment = game["invite_url"].partition("#")
    page = open_page(chromium)
    page.goto(f"{server.base}{path}?lang=fr#{fragment}")  # the friend: not their turn
    page.click("#join-button")
    page.wait_for_selector(".hand.mine .card")
    announcer = page.locator("#announcer[role=status][aria-live=polite]")
    expect(announcer).to_have_count(1)
    # the host has not sat down: the box above the table appears, said once by the
    # announcer, not as a player who "left the table"
    expect(announcer).to_have_text(re.compile(
        "^Votre adversaire n’est pas à la table\u00a0: encore .* pour la rejoindre\\.$"))
    assert page.get_attribute("#away", "aria-live") is None
    assert page.get_attribute("#toast", "aria-live") is None  # the box shown is not read
    hello = {"type": "hello", "token": game["token"]}
    with SeatSocket.open(server, game["id"], hello) as host:  # the host sits down: said too
        host.next_state()
        expect(page.locator("#away")).to_be_hidden()
        expect(announcer).to_have_text("Votre adversaire est à la table.")
    page.keyboard.press("h")  # not the friend's turn: a toast says so, and so does the announcer
    page.wait_for_selector("#toast:not([hidden])")
    expect(announcer).to_have_text("Un conseil ne se demande que lorsque c’est à vous de jouer.")
    log = page.locator(".log-scroll")
    expect(log).to_have_attribute("role", "log")
    expect(log).to_have_attribute("tabindex", "0")
    expect(log).to_have_attribute("aria-label", "Journal")
    page.goto(page.url.split("/game/")[0] + "/online")
    page.wait_for_load_state("networkidle")
    assert page.get_attribute("#account", "aria-live") is None  # the login form is not read out
    close_watched_page(page)


def test_text_at_200_percent_on_a_phone_covers_neither_the_pile_nor_the_trick(
    chromium: Browser, server: LiveServer
) -> None:
    page = open_page(chromium, PHONE)
    start(page, server.base)
    press_on(page, '.hand.mine .card.playable[data-card="7H"]')  # a trick on the felt
    page.wait_for_selector(".trick-caption")
    page.evaluate("document.documentElement.style.fontSize = '200%'")
    page.wait_for_function(STILL)  # the card played has reached the felt
    overlaps = page.evaluate(
        """() => {
             const box = (n) => n.getBoundingClientRect();
             const meet = (a, b) => a.left < b.right && b.left < a.right
                                    && a.top < b.bottom && b.top < a.bottom;
             const count = box(document.querySelector('.stock-count'));
             const caption = box(document.querySelector('.trick-caption'));
             const out = [];
             for (const c of document.querySelectorAll('.stock .stack .card, .stock .indicator'))
               if (meet(count, box(c))) out.push('stock count over ' + c.className);
             for (const c of document.querySelectorAll('.trick-card .card'))
               if (meet(caption, box(c))) out.push('trick caption over ' + c.dataset.card);
             for (const a of document.querySelectorAll('.topbar nav a'))
               if (box(a).right > window.innerWidth) out.push('menu link cut: ' + a.textContent);
             return out; }"""
    )
    assert overlaps == []
    close_watched_page(page)


@contextmanager
def clocked_friend_table(
    tmp_path_factory: pytest.TempPathFactory, move_limit: float
) -> Iterator[tuple[str, str, str]]:
    """A live friend game between Bastien (seat 0, the dealer) and Amélie
    (seat 1, who leads) under a move clock of ``move_limit`` seconds: its
    French page's address and each seat's token."""
    config = fast_config(
        tmp_path_factory.mktemp("clock") / "c.sqlite3", first_dealer=0, move_limit=move_limit,
        away_grace=60,
    )
    with live_server(config) as server:
        game = server.new_game(mode="friend", name="Bastien")
        invite = game["invite_url"].split("#invite=")[1]
        with server.http() as client:
            joined = client.post(
                f"/api/games/{game['id']}/join", json={"invite": invite, "name": "Amélie"}
            ).json()
        yield f"{server.base}/game/{game['id']}?lang=fr", game["token"], joined["token"]


#: what the page's live regions say, each time it changes (aria-hidden words are not said);
#: an init script, so that it hears the page from its first words
RECORD_LIVE_REGIONS = """
window.said = [];
const last = {};
const spoken = (node) => {
  const copy = node.cloneNode(true);
  copy.querySelectorAll('[aria-hidden=true]').forEach((n) => n.remove());
  return copy.textContent.trim();
};
new MutationObserver(() => {
  for (const where of REGIONS) {
    const node = document.querySelector(where);
    const text = node ? spoken(node) : '';
    if (text && text !== last[where]) window.said.push(text);
    last[where] = text;
  }
}).observe(document, { childList: true, subtree: true, characterData: true });
""".replace("REGIONS", "['#announcer', '.prompt']")

#: the same for the announcer alone
RECORD_ANNOUNCER = RECORD_LIVE_REGIONS.replace("['#announcer', '.prompt']", "['#announcer']")


def test_the_players_clock_is_said_once_at_10_seconds_left(
    chromium: Browser, tmp_path_factory: pytest.TempPathFactory
) -> None:
    with clocked_friend_table(tmp_path_factory, move_limit=14) as (base, host_token, guest_token):
        host = open_page(chromium)
        host.goto(f"{base}#seat=0&token={host_token}")
        page = open_page(chromium)  # Amélie leads: her clock runs
        # heard from the page's start: on a loaded machine the page may open with 10 s left
        page.add_init_script(RECORD_ANNOUNCER)
        page.goto(f"{base}#seat=1&token={guest_token}")
        page.wait_for_selector("#deadline:not([hidden])")
        expect(page.locator("#time-up")).to_contain_text("Votre temps", timeout=20_000)
        # the box's words reach the announcer a moment after the box shows
        page.wait_for_function(
            "() => window.said.some(t => t.startsWith('Votre temps pour jouer est écoulé'))",
            timeout=10_000,
        )
        said: list[str] = page.evaluate("window.said")
        clock = [line for line in said if line.startswith("Il vous reste")]
        # once, at 10 s: not every second, not at 14 s (said at 30 and at 10 only)
        assert len(clock) == 1 and re.fullmatch(r"Il vous reste (10|9|8|7|6)\s?s pour jouer\.",
                                                clock[0]), said  # fmt: skip
        assert said[-1].startswith("Votre temps pour jouer est écoulé")  # then the time-up box
        close_watched_page(host)
        close_watched_page(page)


def test_the_opponents_time_up_is_said_once_with_the_claim(
    chromium: Browser, tmp_path_factory: pytest.TempPathFactory
) -> None:
    with clocked_friend_table(tmp_path_factory, move_limit=1.5) as (base, host_token, guest_token):
        guest = open_page(chromium)  # Amélie leads and does not move
        guest.goto(f"{base}#seat=1&token={guest_token}")
        host = open_page(chromium)
        host.add_init_script(RECORD_LIVE_REGIONS)
        host.goto(f"{base}#seat=0&token={host_token}")
        expect(host.locator("#time-up")).to_contain_text("Amélie n’a pas joué", timeout=10_000)
        expect(host.locator(".prompt")).to_have_text("Amélie n’a pas joué à temps.")  # shown
        host.wait_for_function(
            "() => window.said.some(t => t.includes('vous pouvez annuler la partie'))",
            timeout=10_000,
        )
        said: list[str] = host.evaluate("window.said")
        late = [line for line in said if "Amélie n’a pas joué" in line]
        # one sentence for one event: the box's, which says what may be done
        assert len(late) == 1 and "vous pouvez annuler la partie" in late[0], said
        close_watched_page(host)
        close_watched_page(guest)
