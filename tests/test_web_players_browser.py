"""What a French player sees on a phone (issue 22's check): at 390x844
with the fr-FR locale, the lobby, a table in the ending (the stock empty)
and a finished game's review show no algorithm name, no record code, no
rule id and no "±", and no page scrolls sideways. Playwright drives
Debian's Chromium (never ``playwright install``). Screenshots go to
``$MARJOLET_SCREENSHOTS`` when it is set."""

from __future__ import annotations

import itertools
import json
import random
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from marjolet.cards import CARD_NAMES, display_order
from marjolet.cli import main
from marjolet.match import Match
from marjolet.record import Record
from web_support import (
    PHONE,
    STILL,
    LiveServer,
    fast_config,
    live_server,
    needs_chromium,
    play_until,
    watched_page,
)
from web_support import Browser as Client

pytestmark = needs_chromium

FRENCH_PHONE: dict[str, Any] = {"viewport": PHONE, "locale": "fr-FR"}
#: Names of the programs behind the levels and of the research bots.
ALGORITHMS = re.compile(
    r"\b(random|heuristic|heuristique|solver|pimc|ismcts|mcts|openspiel\S*|best|sampler|"
    r"novice|greedy|expectimax)\b",
    re.IGNORECASE,
)
#: ``expert`` as a bot's name is lower case; the level is ``Expert``.
EXPERT_BOT = re.compile(r"\bexpert\b")
#: A card as the record writes it (7C, TH, QS), never as the table shows it.
RECORD_CODE = re.compile(r"\b[2-9TJQKA][CDHS]\b")
RULE_ID = re.compile(r"\bR(?:[1-9]|1\d|2[0-3])\b")
#: A meld as the record writes it (KQS, JQD, 4A), never as the table names it.
MELD_ID = re.compile(r"\b(?:KQ|JQ)[CDHS]\b|\b4[ATKQ]\b")


def jargon(text: str) -> list[str]:
    """Every word of ``text`` a player should not see."""
    found: list[str] = []
    for pattern in (ALGORITHMS, EXPERT_BOT, RECORD_CODE, RULE_ID, MELD_ID):
        found += [m.group(0) for m in pattern.finditer(text)]
    if "±" in text:
        found.append("±")
    return found


def test_jargon_finds_what_a_player_should_not_see() -> None:
    assert jargon("Conseil (pimc) : jouer TH ±1.2 selon R16") == ["pimc", "TH", "R16", "±"]
    assert jargon("Joueur annonce KQS, puis 4A") == ["KQS", "4A"]
    assert jargon("Expert · Confirmé · 10♣ R♥ · Donne 1") == []


@pytest.fixture
def page_options() -> dict[str, Any]:
    """The ``page`` fixture on a French phone."""
    return FRENCH_PHONE


@pytest.fixture
def server(tmp_path: Path) -> Iterator[LiveServer]:
    with live_server(fast_config(tmp_path / "games.sqlite3", bot_delay=0.01), seed=4) as srv:
        srv.app.state.reviews.budget = 0.0
        yield srv


def seen(page: Page, where: str) -> str:
    """The page's visible words, checked: no jargon, no sideways scroll."""
    width, inner = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert width <= inner, f"{where}: the page is {width} px wide in a {inner} px window"
    text: str = page.evaluate("document.body.innerText")
    assert not jargon(text), f"{where}: {jargon(text)} in {text!r}"
    return text


def cut_or_tall(page: Page) -> list[str]:
    """Names and table headers cut short or wrapped into four lines or more."""
    found: list[str] = page.evaluate(
        """() => [...document.querySelectorAll('.player-name, th')]
           .filter(n => n.offsetParent !== null)
           .filter(n => {
             const s = getComputedStyle(n);
             const line = parseFloat(s.lineHeight) || 1.2 * parseFloat(s.fontSize);
             const text = n.clientHeight - parseFloat(s.paddingTop) - parseFloat(s.paddingBottom);
             return n.scrollWidth > n.clientWidth + 1 || text > 3.5 * line;
           })
           .map(n => n.textContent)"""
    )
    return found


def test_the_lobby_offers_levels_in_french_words(
    page: Page, server: LiveServer, shots: Path
) -> None:
    page.goto(server.base + "/")
    page.wait_for_selector("#bot-level option", state="attached")
    page.screenshot(path=str(shots / "lobby-fr-390.png"))
    text = seen(page, "lobby")
    for name in ("Débutant", "Amateur", "Confirmé", "Expert"):
        assert name in text
    button = page.locator("#vs-bot button[type=submit]").bounding_box()
    assert button is not None and button["y"] + button["height"] <= PHONE["height"]


def test_a_table_in_the_ending_speaks_french(page: Page, server: LiveServer, shots: Path) -> None:
    game = server.new_game(mode="bot", level="amateur", name="Marie-Christine Dubois")
    with Client.open(server, game["id"], {"type": "hello", "token": game["token"]}) as me:
        state = play_until(me, lambda s: s["stock"] == 0 and bool(s["legal"]), random.Random(5))
    page.goto(f"{server.base}/game/{game['id']}#seat=0&token={game['token']}")
    page.wait_for_selector(".hand.mine .card")
    assert state["stock"] == 0
    page.screenshot(path=str(shots / "table-ending-fr-390.png"))
    text = seen(page, "table")
    assert "Amateur" in text
    assert re.search(r"as et dix \+\d+", page.inner_text(".log-list"))  # why points were scored
    assert not cut_or_tall(page), cut_or_tall(page)
    dimmed = page.locator(".hand.mine .card:not(.playable)")
    if dimmed.count():  # a dimmed card says why, in words
        dimmed.first.click(force=True)  # aria-disabled: Playwright would wait for "enabled"
        why = page.wait_for_selector(".table-note .why-text")
        assert why is not None and "Impossible de jouer" in why.inner_text()
        seen(page, "table, a dimmed card")
    page.click("button.hint")
    hint = page.wait_for_selector(".table-note .hint-text", timeout=60_000)
    assert hint is not None and "Conseil" in hint.inner_text()
    page.screenshot(path=str(shots / "table-hint-fr-390.png"))
    seen(page, "table, the hint")
    page.click(".hand.mine .card.playable")  # the hint goes with the move
    page.wait_for_selector(".table-note .hint-text", state="detached")


def test_a_finished_games_review_speaks_french(page: Page, server: LiveServer, shots: Path) -> None:
    game = server.new_game(
        mode="bot", level="beginner", name="Camille", rules={"profile": "classic", "target": 150}
    )
    with Client.open(server, game["id"], {"type": "hello", "token": game["token"]}) as me:
        play_until(me, lambda s: bool(s["match_over"]), random.Random(3))
    page.goto(f"{server.base}/game/{game['id']}#seat=0&token={game['token']}")
    page.wait_for_selector("#overlay:not([hidden])")
    page.screenshot(path=str(shots / "end-fr-390.png"))
    seen(page, "end dialog")
    page.goto(f"{server.base}/replay?game={game['id']}&review=1")
    page.wait_for_selector(".review-panel", timeout=120_000)
    page.keyboard.press("Home")
    for step in range(8):
        page.keyboard.press("ArrowRight")
        seen(page, f"review, step {step}")
    page.wait_for_function(STILL)  # the cards settle
    page.locator(".review-panel").scroll_into_view_if_needed()
    page.screenshot(path=str(shots / "review-fr-390.png"))
    controls = page.locator(".controls").bounding_box()  # stepping at hand by the analysis
    assert controls is not None and 0 <= controls["y"] <= PHONE["height"] - controls["height"]
    page.keyboard.press("End")
    page.screenshot(path=str(shots / "review-end-fr-390.png"), full_page=True)
    seen(page, "review, the end")
    page.goto(f"{server.base}/history")
    page.wait_for_selector("table")
    assert "Analyser" in seen(page, "history") or "Revoir" in seen(page, "history")


def test_the_default_name_reads_joueur_in_the_history_and_the_review(
    page: Page, server: LiveServer
) -> None:
    rules = {"profile": "classic", "target": 150}
    game = server.new_game(mode="bot", level="beginner", rules=rules)  # no name given
    with Client.open(server, game["id"], {"type": "hello", "token": game["token"]}) as me:
        play_until(me, lambda s: bool(s["match_over"]), random.Random(3))
    page.goto(f"{server.base}/history")
    page.wait_for_selector("table")
    history = seen(page, "history")  # these pages speak of both players in the third person
    assert "Joueur contre" in history
    page.goto(f"{server.base}/replay?game={game['id']}&review=1")
    page.wait_for_selector(".review-panel", timeout=120_000)
    page.keyboard.press("End")
    review = seen(page, "review")
    assert "Joueur contre" in review and "Vous" not in review
    for words in (history, review):
        assert not re.search(r"\byou\b", words, re.IGNORECASE), words


def test_the_rules_page_speaks_to_players_without_record_codes(
    page: Page, server: LiveServer
) -> None:
    page.goto(f"{server.base}/rules")
    page.wait_for_selector("h2")
    text = seen(page, "rules")  # no record notation (AS, TD, meld KQS) on the page
    assert "gagner les six derniers plis" in text


@contextmanager
def table_on_a_fixed_deck(
    page: Page, tmp_path: Path, deck: tuple[str, str, str], *, first_dealer: int, bot: str
) -> Iterator[LiveServer]:
    """A server dealing every deal from ``deck`` (the elder's and the
    dealer's six cards and the indicator), with ``page`` at seat 0 of a
    classic game against ``bot``."""
    from helpers import deck_for

    cards = deck_for(*deck)
    config = fast_config(
        tmp_path / "g.sqlite3", bot_delay=0.01, first_dealer=first_dealer, deck_for=lambda i: cards
    )
    with live_server(config) as server:
        game = server.new_game(mode="bot", bot=bot, rules={"profile": "classic"})
        page.goto(f"{server.base}/game/{game['id']}#seat=0&token={game['token']}")
        yield server


def test_the_badges_of_the_opponent_s_shown_cards_are_whole_and_apart(
    page: Page, tmp_path: Path, shots: Path
) -> None:
    # the bot leads, wins trick 1 and declares its two marriages at once
    deck = ("AH KH QH KD QD AD", "7C 8C 9C 7D 8D 9D", "TS")
    with table_on_a_fixed_deck(page, tmp_path, deck, first_dealer=0, bot="heuristic"):
        page.click(".hand.mine .card.playable >> nth=0", timeout=20_000)
        page.wait_for_selector(".hand.theirs .card-badge", timeout=20_000)
        page.wait_for_selector(".hand.mine .card.playable", timeout=20_000)  # the bot led
        page.wait_for_function(STILL)  # the cards settle
        page.screenshot(path=str(shots / "shown-badges-fr-390.png"))
        badges = page.eval_on_selector_all(
            ".hand.theirs .card-badge",
            """bs => bs.map(b => { const r = b.getBoundingClientRect();
                return [b.textContent, b.scrollWidth <= b.clientWidth, r.left, r.right]; })""",
        )
    assert len(badges) >= 2, badges
    for text, whole, _, _ in badges:
        assert text == "montrée" and whole, badges  # never cut to "montré"
    edges = sorted((left, right) for _, _, left, right in badges)
    for (_, right), (left, _) in itertools.pairwise(edges):
        assert right <= left + 0.5, badges  # side by side, not over one another


def test_a_spectator_sees_they_watch_with_pause_and_speed(
    page: Page, tmp_path: Path, shots: Path
) -> None:
    # the bots play at a pace (a match lasts about a minute), or a loaded
    # machine may open the page on a match already over
    config = fast_config(tmp_path / "watch.sqlite3", watch_delay=0.15)
    with live_server(config) as server:
        game = server.new_game(mode="watch", bots=["level:beginner", "level:amateur"])
        page.goto(f"{server.base}/game/{game['id']}")
        watch_with_pause_and_speed(page, shots)


def watch_with_pause_and_speed(page: Page, shots: Path) -> None:
    """The spectator's panel: French words, pause holds the board, resume
    at the fast speed moves it on."""
    page.wait_for_selector("#spectator:not([hidden])")
    page.wait_for_selector(".trick .card, .hand .card")
    text = seen(page, "spectator")
    assert "Vous regardez la partie" in text and "Débutant" in text
    page.click("#watch-pause")  # the board stops; the moves wait
    assert page.inner_text("#watch-pause") == "Reprendre"
    version = page.get_attribute("#board", "data-version")
    page.wait_for_selector("#watch-waiting:not(:empty)", timeout=30_000)
    assert page.get_attribute("#board", "data-version") == version
    page.select_option("#watch-speed", "fast")
    page.click("#watch-pause")
    page.wait_for_function(
        "v => document.querySelector('#board').dataset.version !== v", arg=version
    )
    page.screenshot(path=str(shots / "spectator-fr-390.png"))


def test_a_friend_is_asked_a_name_and_the_host_can_share(
    chromium: Browser, server: LiveServer, shots: Path
) -> None:
    with watched_page(chromium, **FRENCH_PHONE) as host:
        host.add_init_script("navigator.share = () => Promise.resolve();")  # a phone's share sheet
        host.goto(server.base + "/")
        host.fill("#vs-friend input[name=name]", "Hôte")
        host.click("#vs-friend button[type=submit]")
        host.wait_for_selector(".invite-url")
        assert "En attente de votre ami" in seen(host, "host")
        assert host.locator("#share-invite").inner_text() == "Partager"
        host.screenshot(path=str(shots / "invite-fr-390.png"))
        link = host.input_value(".invite-url")
        with watched_page(chromium, **FRENCH_PHONE) as guest:
            guest.goto(link)
            guest.wait_for_selector("#join-name")
            assert "Sous quel nom" in seen(guest, "guest")
            guest.fill("#join-name", "Léa")
            guest.click("#join-button")
            guest.wait_for_selector(".hand.mine .card")
            host.wait_for_selector(".player-name:has-text('Léa')")


def test_an_uploaded_record_is_refused_in_french(
    page: Page, server: LiveServer, tmp_path: Path
) -> None:
    bad = tmp_path / "repeat.json"  # the example's name holds a meld id: not the page's words
    bad.write_text(REPEATED_JQ.read_text())
    page.goto(server.base + "/replay")
    page.set_input_files("#record-file", str(bad))
    page.click("#upload-form button[type=submit]")
    page.wait_for_selector("#upload-error:not([hidden])")
    text = page.inner_text("#upload-error")
    assert "n’est pas une partie valable (donne 1, pli 4)" in text
    assert "Joueur 2 annonce le marjolet et la dame de pique une deuxième fois" in text
    seen(page, "a refused upload")


def named_repeat(tmp_path: Path) -> Path:
    """The record of a meld declared twice, its players named."""
    bad = json.loads(REPEATED_JQ.read_text())
    path = tmp_path / "named.json"
    path.write_text(json.dumps({**bad, "players": ["Camille", "Hugo"]}))
    return path


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_a_refused_meld_is_told_on_the_web_as_marjolet_replay_tells_it(
    page: Page, server: LiveServer, tmp_path: Path, capsys: pytest.CaptureFixture[str], lang: str
) -> None:
    # the web said « le joueur 2 annonce le marjolet... », the command line
    # « Player 2 declares J♦-Q♠ (jack-queen)... »: one wording, the record's names
    path = named_repeat(tmp_path)
    assert main(["replay", str(path), "--lang", lang]) == 2
    said = capsys.readouterr().err.strip().split(f"{path}", 1)[1]
    page.goto(f"{server.base}/replay?lang={lang}")
    page.set_input_files("#record-file", str(path))
    page.click("#upload-form button[type=submit]")
    page.wait_for_selector("#upload-error:not([hidden])")
    text = page.inner_text("#upload-error")
    assert text == f"{path.name}{said}", text
    assert "Hugo" in text
    seen(page, "a refused upload with names")


def test_the_replay_s_step_line_names_a_meld_in_words(
    page: Page, server: LiveServer, tmp_path: Path
) -> None:
    # « Joueur annonce KQS »: the record's id of the meld on the board
    record = json.loads(REPEATED_JQ.read_text())
    record["deals"][0]["actions"] = record["deals"][0]["actions"][:4]  # ..., "meld KQS", "draw"
    path = tmp_path / "meld.json"
    path.write_text(json.dumps(record))
    page.goto(server.base + "/replay")
    page.set_input_files("#record-file", str(path))
    page.click("#upload-form button[type=submit]")
    page.wait_for_selector("#viewer:not([hidden])")
    page.keyboard.press("Home")
    for _ in range(3):
        page.keyboard.press("ArrowRight")
    board = page.locator("#board").inner_text()
    assert re.search(r"Joueur [12] annonce (le )?mariage (à pique|d’atout)", board), board
    seen(page, "the step of a meld")


REPEATED_JQ = Path(__file__).parent / "examples" / "I000-hand-seed05-repeat-JQS.json"


def record_breaking_r16(tmp_path: Path) -> Path:
    """A record whose last move is a card R16 refuses: in tricks 11-16 the
    follower plays a card it holds but may not play."""
    rng = random.Random(3)
    for attempt in itertools.count():
        match = Match(seed=attempt)
        deal = match.start_deal()
        while not deal.is_over:
            held = display_order(deal.hand_mask(deal.to_move))
            refused = [c for c in held if c not in deal.legal]
            if deal.stock_empty and deal.lead is not None and refused:
                record = Record.from_match(match).to_json()
                record["deals"][-1]["actions"].append(CARD_NAMES[refused[0]])
                path = tmp_path / "r16.json"
                path.write_text(json.dumps(record))
                return path
            match.play(rng.choice(deal.legal_actions()))
    raise AssertionError("unreachable")


def test_an_upload_breaking_the_last_tricks_duty_names_the_allowed_cards_in_french(
    page: Page, server: LiveServer, tmp_path: Path
) -> None:
    page.goto(server.base + "/replay")
    page.set_input_files("#record-file", str(record_breaking_r16(tmp_path)))
    page.click("#upload-form button[type=submit]")
    page.wait_for_selector("#upload-error:not([hidden])")
    text = page.inner_text("#upload-error")
    assert re.search(r"Joueur [12] joue \S+ sur \S+ alors qu", text), text  # as marjolet replay
    assert "il fallait jouer" in text and not RECORD_CODE.search(text) and not RULE_ID.search(text)
    seen(page, "a refused upload in the last six tricks")


def test_the_lobby_main_button_is_in_a_desktops_first_screen(
    chromium: Browser, server: LiveServer, shots: Path
) -> None:
    with watched_page(chromium, viewport={"width": 1280, "height": 800}, locale="fr-FR") as page:
        page.goto(server.base + "/")
        page.wait_for_selector("#bot-level option", state="attached")
        page.screenshot(path=str(shots / "lobby-fr-1280.png"))
        button = page.locator("#vs-bot button[type=submit]").bounding_box()
        assert button is not None and button["y"] + button["height"] <= 800
        seen(page, "lobby, desktop")


def test_a_meld_window_of_four_choices_stays_inside_a_phone_s_table(
    page: Page, tmp_path: Path, shots: Path
) -> None:
    # the player leads A♥, wins trick 1 and may declare K♣-Q♣, the trump jack
    # with Q♣, exchange the seven of spades or draw: four buttons and a hint
    deck = ("AH KC QC JS 7S TH", "7D 8D 9D 7H 8H 9H", "9S")
    with table_on_a_fixed_deck(page, tmp_path, deck, first_dealer=1, bot="level:beginner"):
        page.click('.hand.mine .card[data-card="AH"].playable', timeout=20_000)
        page.wait_for_selector(".window-actions button.meld >> nth=1", timeout=20_000)
        page.wait_for_function(STILL)  # the cards settle
        page.screenshot(path=str(shots / "meld-window-fr-390.png"))
        seen(page, "the meld window")
        felt, buttons, table = page.evaluate(
            """() => { const felt = document.querySelector('.felt');
                       return [felt.getBoundingClientRect().right,
                               [...document.querySelectorAll('.window-actions button')]
                                 .map(b => [b.textContent, b.getBoundingClientRect().right]),
                               felt.scrollWidth - felt.clientWidth]; }"""
        )
    assert len(buttons) >= 4, buttons
    for text, right in buttons:
        assert right <= felt + 0.5, f"{text!r} ends at {right} px, the table at {felt} px"
    assert table <= 1, f"the table's contents are {table} px wider than the table"


def test_signing_up_on_a_phone_fields_are_easy_to_touch_and_a_mistake_reads_as_one(
    page: Page, server: LiveServer, shots: Path
) -> None:
    page.goto(f"{server.base}/online?lang=fr")
    page.wait_for_selector("#login-name")
    heights = page.eval_on_selector_all(
        "#account input, #seek-form input, #seek-form select, #now-form input",
        """ns => ns.filter(n => n.getClientRects().length)  // shown (a guest: no rated box, a name)
                   .map(n => [n.id, (n.type === 'checkbox' ? n.closest('label') : n)
                                    .getBoundingClientRect().height])""",
    )  # (a checkbox is touched through its label)
    assert len(heights) == 6 and all(height >= 43.5 for _, height in heights), heights
    page.fill("#login-name", "jean pierre")
    page.fill("#login-password", "assez long")
    page.click("#signup")
    error = page.locator("#account .form-error")
    expect(error).to_have_text(
        "Le nom doit faire de 3 à 20 caractères : lettres (accentuées ou non), chiffres,"
        " « _ » ou « - », sans espace."
    )
    colour = error.evaluate("n => getComputedStyle(n).color")
    assert colour == "rgb(138, 16, 16)", colour  # an error, not a grey note
    page.screenshot(path=str(shots / "signup-mistake-fr-390.png"))
    seen(page, "the sign-up mistake")


#: A deck on which `heuristic` against `heuristic` ends the deal level at
#: 130-130, whoever deals (found by playing 63 shuffles of Random(5)).
LEVEL_DECK = [16, 17, 8, 12, 20, 6, 31, 24, 23, 22, 15, 27, 21, 26, 7, 0,
              5, 28, 18, 19, 30, 11, 9, 1, 10, 14, 2, 4, 3, 13, 29, 25]  # fmt: skip


def test_a_deal_ending_level_at_the_target_says_one_more_deal_will_decide(
    page: Page, tmp_path: Path
) -> None:
    """R22: level at or above the target, the match goes on (the terminal's words)."""
    shuffles = random.Random(1)
    config = fast_config(  # at a pace, so that no position is skipped on its way
        tmp_path / "level.sqlite3",
        watch_delay=0.05,
        first_dealer=0,
        deck_for=lambda i: LEVEL_DECK if i == 0 else shuffles.sample(range(32), 32),
    )
    with live_server(config) as server:
        rules = {"profile": "classic", "target": 100}
        game = server.new_game(mode="watch", bots=["heuristic", "heuristic"], rules=rules)
        page.goto(f"{server.base}/game/{game['id']}?lang=en")
        page.wait_for_selector("#spectator:not([hidden])")
        page.select_option("#watch-speed", "fast")
        tie = page.wait_for_selector("#overlay .tie", state="attached", timeout=60_000)
        assert tie is not None
        assert tie.inner_text() == "Level at 100 or more: one more deal will decide."


def test_a_host_who_gave_no_name_reads_joueur_to_the_friend_at_the_table(
    chromium: Browser, server: LiveServer
) -> None:
    """The host of a friend's table who left the name empty is "you" in the
    record; the guest's French table called them « you » on the nameplate,
    in the score and in every sentence ("you joue A♠"). They read as the
    history reads them, « Joueur », and the host still reads « Vous »."""
    with friends_table(chromium, server, FRENCH_PHONE, "", "Léa") as (host, guest):  # no name
        names = guest.locator(".player-name").all_inner_texts()
        assert "Joueur" in names and "Léa (vous)" in names, names
        words = seen(guest, "guest")
        assert not re.search(r"\byou\b", words, re.IGNORECASE), words
        assert "Vous" in host.locator(".player-name").all_inner_texts()


@contextmanager
def friends_table(
    chromium: Browser, server: LiveServer, phone: dict[str, Any], host_name: str, guest_name: str
) -> Iterator[tuple[Page, Page]]:
    """A friend's table on two phones, host and guest seated and dealt."""
    with watched_page(chromium, **phone) as host:
        host.goto(server.base + "/")
        if host_name:
            host.fill("#vs-friend input[name=name]", host_name)
        host.click("#vs-friend button[type=submit]")
        host.wait_for_selector(".invite-url")
        link = host.input_value(".invite-url")
        with watched_page(chromium, **phone) as guest:
            guest.goto(link)
            guest.wait_for_selector("#join-name")
            guest.fill("#join-name", guest_name)
            guest.click("#join-button")
            guest.wait_for_selector(".hand.mine .card")
            host.wait_for_selector(f".player-name:has-text('{guest_name}')")
            yield host, guest


@pytest.mark.parametrize("width", [360, 390])
def test_the_score_tables_of_two_long_names_stay_inside_a_phone(
    chromium: Browser, server: LiveServer, width: int
) -> None:
    """A name is one word of up to 24 characters ("Marie-Françoise_Dupont",
    an account's 20): the score table put two of them side by side in its
    header and stretched the page to some 600 px, so a phone scrolled sideways
    (or zoomed out) at every table of two such players; the end of the match
    cut the winner's name in its title, and the replay's heading of the
    two names stretched its page too."""
    phone = {"viewport": {"width": width, "height": 740}, "locale": "fr-FR"}
    long_names = ("Wwwwwwwwwwwwwwwwwwwwwwww", "Marie-Françoise_Dupontel")
    with friends_table(chromium, server, phone, *long_names) as (host, guest):
        for page in (host, guest):
            page.wait_for_selector(".breakdown th")
            seen(page, f"a table of two long names at {width} px")
        game = host.url.split("/game/")[1].split("#")[0]
        guest.once("dialog", lambda dialog: dialog.accept())
        guest.click("#resign")
        guest.click("#resign")  # the second press confirms
        guest.wait_for_selector("#overlay-title:has-text('Wwwwwwwwwwwwwwwwwwwwwwww')")
        assert guest.evaluate(CUT, "#overlay-title") is False, "the dialog's title is cut"
        seen(guest, f"the end of a match of two long names at {width} px")
        guest.goto(f"{server.base}/replay?game={game}")
        guest.wait_for_selector("#replay-title:has-text('Wwww')")
        seen(guest, f"the replay of two long names at {width} px")


#: The words of the visible table headings broken across two lines (a name
#: marked ``long-name`` may break anywhere; a hyphen is a place to break).
BROKEN_WORDS = """() => [...document.querySelectorAll("th")]
  .filter((th) => th.offsetParent !== null && !th.classList.contains("long-name"))
  .flatMap((th) => {
    const broken = [];
    const walker = document.createTreeWalker(th, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (const m of node.data.matchAll(/[^\\s-]+-?/g)) {
        const range = document.createRange();
        range.setStart(node, m.index);
        range.setEnd(node, m.index + m[0].length);
        const tops = new Set([...range.getClientRects()].filter((r) => r.width > 0)
          .map((r) => Math.round(r.top)));
        if (tops.size > 1) broken.push(m[0]);
      }
    }
    return broken;
  })"""


@pytest.mark.parametrize("width", [360, 390])
def test_the_score_tables_keep_usual_names_and_headings_whole_on_a_phone(
    chromium: Browser, server: LiveServer, width: int
) -> None:
    """Every heading of the score tables could break anywhere (for names of
    24 letters in one word): at the end of a match a phone read « Débuta /
    nt » and « Atou / t ». A usual name and the tables' own words keep their
    words whole; only a name with a very long word may break inside it."""
    phone = {"viewport": {"width": width, "height": 740}, "locale": "fr-FR"}
    # (a friend may not take a level's name, « Débutant »: a word of its length)
    with friends_table(chromium, server, phone, "Jean-Édouard", "Bérénice") as (host, guest):
        for page in (host, guest):  # « Jean-Édouard (vous) » on the host's
            page.wait_for_selector(".breakdown th")
            assert page.evaluate(BROKEN_WORDS) == []
        guest.once("dialog", lambda dialog: dialog.accept())
        guest.click("#resign")
        guest.click("#resign")  # the second press confirms
        guest.wait_for_selector("#overlay-title:has-text('Jean-Édouard')")
        # the table of every deal, as after five deals, in the end-of-match box
        guest.evaluate(
            """() => import("/static/board.js").then((board) => {
                 const deals = [0, 1, 2, 3, 4].map((i) => ({ index: i, trump: "CDHS"[i % 4],
                   score: [70, 80], totals: [70 * (i + 1), 80 * (i + 1)] }));
                 const view = { players: ["Jean-Édouard", "Débutant"], target: 500, deals };
                 document.querySelector("#overlay-title").closest(".dialog")
                   .append(board.matchTable(view, 0));
               })"""
        )
        assert guest.locator("th:has-text('Atout')").count() > 0
        assert guest.evaluate(BROKEN_WORDS) == []
        heading = guest.evaluate(
            """() => import("/static/board.js").then((board) => board.dealSummary(
                 { index: 4, trump: "H", breakdown: [{ cards: 50 }, { cards: 30 }],
                   score: [70, 80], totals: [380, 520] },
                 { players: ["Jean-Édouard", "Débutant"], target: 500 }, 0)
               .querySelector("th").textContent)"""
        )
        assert heading == "Donne 5 · atout\u00a0♥"  # the sign never alone on a line
        seen(guest, f"the end of a match at {width} px")
        guest.goto(f"{server.base}/rules")
        guest.wait_for_selector(".rules-table th")
        assert guest.evaluate(BROKEN_WORDS) == []


#: Whether the element of a selector is wider than its box (its text cut).
CUT = "(s) => { const n = document.querySelector(s); return n.scrollWidth > n.clientWidth + 1; }"
