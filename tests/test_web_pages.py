"""The pages in French and English, the rules page, the default opponent,
the rematch and the clearer refusals (issue 13), over real HTTP."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Any

import pytest

import marjolet.bots
from marjolet.i18n import catalogue
from web_support import Browser, LiveServer, fast_config, live_server, mistyped, play_until

EXAMPLES = Path(__file__).parent / "examples"


HTML = {"Accept": "text/html"}


@pytest.fixture
def server(tmp_path: Path) -> Any:
    with live_server(fast_config(tmp_path / "games.sqlite3")) as srv:
        yield srv


@pytest.mark.parametrize(
    ("path", "headers", "lang"),
    [
        ("/", {"Accept-Language": "fr-FR,fr;q=0.9"}, "fr"),
        ("/", {"Accept-Language": "en-GB,en"}, "en"),
        ("/?lang=fr", {"Accept-Language": "en-GB"}, "fr"),
        ("/history?lang=en", {"Accept-Language": "fr-FR"}, "en"),
        # no such game: the page not found, in the reader's language too
        ("/game/abc", {"Accept-Language": "fr", "Cookie": "marjolet_lang=en", **HTML}, "en"),
        ("/replay", {"Cookie": "marjolet_lang=fr"}, "fr"),
        ("/rules?lang=fr", {}, "fr"),
        ("/", {}, "en"),
    ],
)
def test_every_page_has_the_html_lang_of_its_reader(
    server: LiveServer, path: str, headers: dict[str, str], lang: str
) -> None:
    with server.http() as client:
        page = client.get(path, headers=headers)
    assert page.status_code == (404 if path == "/game/abc" else 200)
    assert f'<html lang="{lang}">' in page.text


def test_the_catalogues_are_served_to_the_pages(server: LiveServer) -> None:
    with server.http() as client:
        for lang in ("fr", "en"):
            response = client.get(f"/i18n/{lang}.json")
            assert response.status_code == 200
            assert response.json() == dict(catalogue(lang))
        assert client.get("/i18n/__init__.py").status_code == 404


def test_the_rules_page_follows_the_table_profile_and_language(server: LiveServer) -> None:
    encyclopedia = json.dumps({"profile": "encyclopedia", "target": 1000})
    with server.http() as client:
        fr = client.get("/rules", params={"lang": "fr", "rules": encyclopedia}).text
        en = client.get("/rules", params={"lang": "en"}).text
        bad = client.get("/rules", params={"rules": "{not json"})
    assert "Les règles du marjolet" in fr and "encyclopédie" in fr
    assert "<td>1\u202f000</td>" in fr and "les six derniers plis\u00a0: 40 de plus" in fr
    assert "mariage d’atout" in fr and "la même dame, deux occasions" in fr
    assert "the same queen, two opportunities" in en and "<td>100</td>" in en
    assert "a further 50" in en and "<td>500</td>" in en  # classic by default
    assert bad.status_code == 200  # a bad ?rules= shows the classic rules


def test_the_rules_page_ends_with_the_questions_players_ask_for_its_table(
    server: LiveServer,
) -> None:
    same_suit = json.dumps({"profile": "classic", "jack_queen": "same-suit", "dix_on_play": False})
    with server.http() as client:
        fr = client.get("/rules", params={"lang": "fr"}).text
        en = client.get("/rules", params={"lang": "en", "rules": same_suit}).text
    for page, heading in ((fr, "Questions fréquentes"), (en, "Questions players ask")):
        assert f"<h2>{heading}</h2>" in page and '<dl class="faq">' in page
        faq = page[page.index(f"<h2>{heading}</h2>") :]
        assert faq.count("<dt>") >= 15
        assert not re.search(r"\bR\d+\b|\bmeld [0-9A-Z]|\bJQ[CDHS]\b", faq)  # no rule ids, codes
    assert "Faut-il fournir pendant les dix premiers plis\u202f?" in fr
    assert "le marjolet (le valet d’atout) s’annonce une fois avec chaque dame" in fr
    # this table's variations: a jack pairs with its own queen; a played seven scores nothing
    assert "a jack pairs only with the queen of its own suit" in en
    assert "it scores nothing when you play it either" in en


def test_the_rules_page_title_is_in_the_readers_language_before_any_script(
    server: LiveServer,
) -> None:
    with server.http() as client:
        fr = client.get("/rules", params={"lang": "fr"}).text
        en = client.get("/rules", params={"lang": "en"}).text
    assert '<title data-i18n="rules.page_title">Marjolet · règles</title>' in fr
    assert '<title data-i18n="rules.page_title">Marjolet · rules</title>' in en


def test_the_default_opponent_is_the_strongest_bot(server: LiveServer) -> None:
    with server.http() as client:
        options = client.get("/api/options").json()
    default = next(b for b in options["bots"] if b["name"] == options["default_bot"])
    spec = marjolet.bots.STRONGEST
    assert server.app.state.hub.catalogue.resolve(default["name"]).spec == spec
    assert default["family"] == spec.split(":")[0]
    levels = {b["level"] for b in options["bots"] if b["family"] == default["family"]}
    assert {"quick", "normal", "strong"} <= levels  # the strength levels stay


def test_a_rematch_keeps_opponent_and_rules_and_the_other_player_deals_first(
    server: LiveServer,
) -> None:
    rules = {"profile": "encyclopedia", "target": 100}  # the least a new match may take
    game = server.new_game(mode="bot", bot="random", name="Ann", rules=rules)
    with Browser.open(server, game["id"], {"type": "hello", "token": game["token"]}) as ann:
        first = ann.next_state()
        play_until(ann, lambda s: s["match_over"], random.Random(3))
    with server.http() as client:
        refused = client.post(f"/api/games/{game['id']}/rematch", json={"token": "x" * 20})
        again = client.post(f"/api/games/{game['id']}/rematch", json={"token": game["token"]})
    assert refused.status_code == 403
    assert again.status_code == 200, again.text
    new = again.json()
    with Browser.open(server, new["id"], {"type": "hello", "token": new["token"]}) as ann:
        state = ann.next_state()
    assert state["dealer"] == 1 - first["dealer"]
    assert state["players"] == ["Ann", first["players"][1]]
    assert state["rules"] == first["rules"]


def test_a_rematch_waits_for_the_end_of_the_match(server: LiveServer) -> None:
    game = server.new_game(mode="bot", bot="random")
    with server.http() as client:
        early = client.post(f"/api/games/{game['id']}/rematch", json={"token": game["token"]})
    assert early.status_code == 409


def test_a_used_invite_link_says_so(server: LiveServer) -> None:
    game = server.new_game(mode="friend", name="Host")
    invite = game["invite_url"].split("#invite=")[1]
    check = f"/api/games/{game['id']}/invite"
    with server.http() as client:
        # what the link leads to is asked before its holder is asked a name
        assert client.post(check, json={"invite": invite}).json() == {
            "status": "open", "host": "Host"
        }
        assert client.post(check, json={"invite": mistyped(invite)}).json()["status"] == "bad"
        bot_game = server.new_game(mode="bot", bot="random")  # never had an invite link
        bot_check = f"/api/games/{bot_game['id']}/invite"
        assert client.post(bot_check, json={"invite": invite}).json()["status"] == "bad"
        ok = client.post(f"/api/games/{game['id']}/join", json={"invite": invite, "name": "Bo"})
        used = client.post(f"/api/games/{game['id']}/join", json={"invite": invite, "name": "Cy"})
        assert client.post(check, json={"invite": invite}).json()["status"] == "used"
        assert client.post(check, json={}).status_code == 400
    assert ok.status_code == 200
    assert used.status_code == 403
    assert used.json()["error"]["code"] == "invite_used"


def test_an_invite_code_that_never_existed_is_a_clear_refusal(server: LiveServer) -> None:
    """A mistyped link: the check says ``bad``, and a join anyway (on a
    friend game, on a game that never had an invite link, on no game at
    all) is a named refusal, never a 500."""
    game = server.new_game(mode="friend", name="Host")
    bot_game = server.new_game(mode="bot", bot="random")
    with server.http() as client:
        for game_id in (game["id"], bot_game["id"]):
            check = client.post(f"/api/games/{game_id}/invite", json={"invite": "never-a-code"})
            assert (check.status_code, check.json()["status"]) == (200, "bad")
            join = client.post(
                f"/api/games/{game_id}/join", json={"invite": "never-a-code", "name": "Bo"}
            )
            assert (join.status_code, join.json()["error"]["code"]) == (403, "bad_invite")
        for path in ("invite", "join"):
            lost = client.post(f"/api/games/no-such-game/{path}", json={"invite": "never-a-code"})
            assert (lost.status_code, lost.json()["error"]["code"]) == (404, "not_found")


@pytest.mark.parametrize(
    ("content", "code", "message"),
    [
        (b"\xef\xbb\xbf{}", "bom", "byte-order mark"),
        (b'{"a": "\xe9"}', "not_utf8", "not UTF-8 text (byte 8)"),
    ],
)
def test_an_upload_that_is_not_plain_utf8_says_so(
    server: LiveServer, content: bytes, code: str, message: str
) -> None:
    with server.http() as client:
        error = client.post("/api/replay", content=content).json()["error"]
    assert error["code"] == code and message in error["message"]


def test_an_upload_error_gives_its_place_and_its_reason_apart(server: LiveServer) -> None:
    bad = (EXAMPLES / "I000-hand-seed05-repeat-JQS.json").read_text()
    expected = json.loads((EXAMPLES / "I000-hand-seed05-repeat-JQS.expected.json").read_text())
    with server.http() as client:
        error = client.post("/api/replay", content=bad.encode()).json()["error"]
    assert (error["deal"], error["action"]) == (
        expected["error"]["deal"],
        expected["error"]["action"],
    )
    assert error["reason"].startswith("R12") and "deal" not in error["reason"].split(":")[0]
    assert error["why"] == {
        "code": "meld_again",
        "player": 1,
        "meld": "JQS",
        "trump": error["why"]["trump"],
        "jack_queen": "trump-jack",
    }


BROWSER = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"


@pytest.mark.parametrize(
    ("path", "lang", "title", "text"),
    [
        ("/nope", "fr", "Page introuvable", "Cette adresse ne mène à aucune page de ce site"),
        ("/about", "en", "Page not found", "This address leads to no page of this site"),
        ("/api/games/zzz/record?form=json", "fr", "Page introuvable",
         "Cette partie n’existe pas sur ce serveur."),
        ("/game/zzzzzzzzzzzz", "fr", "Page introuvable",
         "Cette partie n’existe pas sur ce serveur."),
    ],
)  # fmt: skip
def test_an_address_that_leads_nowhere_is_a_page_in_the_readers_words_for_a_browser(
    server: LiveServer, path: str, lang: str, title: str, text: str
) -> None:
    with server.http() as client:
        page = client.get(path, headers={"Accept": BROWSER, "Cookie": f"marjolet_lang={lang}"})
        assert page.status_code == 404
        assert page.headers["content-type"].startswith("text/html")
        html = page.text
        assert f'<html lang="{lang}">' in html and f"<h1>{title}</h1>" in html
        assert text in html and 'href="/"' in html
        assert "{" not in html.split("<main", 1)[1]  # no JSON, no placeholder
        # a program (fetch, an HTTP library) keeps the JSON form
        answer = client.get(path, headers={"Accept": "*/*"})
        assert answer.status_code == 404 and "error" in answer.json()


def test_pages_scripts_and_catalogues_are_asked_again_each_time_and_answered_304_unchanged(
    server: LiveServer,
) -> None:
    """After an upgrade a browser must not run a new script beside an old
    module it kept by guesswork: every page, script and catalogue says
    ``no-cache`` (asked again each time), and one unchanged is a 304."""
    with server.http() as client:
        for path in ("/", "/online", "/static/table.js", "/static/rematch.js", "/i18n/fr.json"):
            answer = client.get(path)
            assert answer.status_code == 200, path
            assert answer.headers["cache-control"] == "no-cache", path
        script = client.get("/static/common.js")
        again = client.get("/static/common.js", headers={"If-None-Match": script.headers["etag"]})
        assert again.status_code == 304
        assert client.get("/api/options").headers["cache-control"] == "no-store"
