"""History, downloads, the replay viewer's data and uploaded records; the
lobby's options and the checks on new games."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from cli_support import run_main
from marjolet import record
from marjolet.cards import CARD_NAMES
from marjolet.web import views
from web_support import Browser, LiveServer, fast_config, live_server, play_until

EXAMPLES = Path(__file__).parent / "examples"
NBSP, NNBSP = "\u00a0", "\u202f"


@pytest.fixture
def server(tmp_path: Path) -> Any:
    with live_server(fast_config(tmp_path / "games.sqlite3")) as srv:
        yield srv


def test_options_name_bots_without_their_specs(server: LiveServer) -> None:
    with server.http() as client:
        options = client.get("/api/options").json()
    names = {b["name"] for b in options["bots"]}
    assert "random" in names and options["default_bot"] in names
    assert all(
        set(b) == {"name", "family", "level", "label", "description"} for b in options["bots"]
    )
    assert set(options["profiles"]) == {"classic", "encyclopedia"}


@pytest.mark.parametrize(
    ("payload", "message"),
    [
        ({"mode": "bot", "bot": "exec:/bin/sh"}, "unknown bot"),
        ({"mode": "bot", "bot": "random:seed=1"}, "unknown bot"),
        ({"mode": "watch", "bots": ["random"]}, "two bot choices"),
        ({"mode": "watch", "bots": ["beginner", "random"]}, "a level: level:beginner, "),
        ({"mode": "chess"}, "'mode' must be"),
        ({"mode": "bot", "rules": {"profile": "classic", "target": -5}}, "target"),
        ({"mode": "bot", "rules": "poker"}, "unknown profile"),
    ],
)
def test_a_new_game_only_takes_known_choices(
    server: LiveServer, payload: dict[str, Any], message: str
) -> None:
    with server.http() as client:
        response = client.post("/api/games", json=payload)
    assert response.status_code == 400
    assert message in response.json()["error"]["message"]


def test_bad_request_bodies_are_refused_with_a_reason(server: LiveServer) -> None:
    json_type = {"content-type": "application/json"}  # any other type is refused first
    with server.http() as client:
        assert (
            client.post("/api/games", content=b"{oops", headers=json_type)
            .json()["error"]["message"]
            .startswith("the request body is not valid JSON")
        )
        big = client.post("/api/games", content=b"{" + b" " * 20000 + b"}", headers=json_type)
        assert big.status_code == 413
        assert client.get("/api/games/nosuchgame/record").status_code == 404
        assert client.get("/api/games/x/record?form=pdf").status_code == 400


def test_pages_are_served_with_a_strict_content_security_policy(server: LiveServer) -> None:
    game = server.new_game(mode="bot", bot="random")
    with server.http() as client:
        for path in (
            "/",
            f"/game/{game['id']}",
            "/history",
            "/replay",
            "/static/table.js",
            "/static/style.css",
        ):
            response = client.get(path)
            assert response.status_code == 200, path
            assert "script-src 'self'" in response.headers["content-security-policy"]
        not_found = client.get("/game/abc", headers={"Accept": "text/html"})
        assert not_found.status_code == 404
        assert "script-src 'self'" in not_found.headers["content-security-policy"]
        assert client.get("/docs").status_code == 404  # no debug pages


def test_a_live_game_shares_only_its_finished_deals(server: LiveServer) -> None:
    game = server.new_game(mode="bot", bot="random", name="Ann")
    rng = random.Random(4)
    with Browser.open(server, game["id"], {"type": "hello", "token": game["token"]}) as me:
        play_until(me, lambda s: bool(s["deal_over"]), rng)
        me.send({"type": "next", "version": me.state["version"]})  # type: ignore[index]
        me.state = None
        state = me.next_state()
        assert state["deal"] == 1
        with server.http() as client:
            games = client.get("/api/games").json()["games"]
            listed = next(g for g in games if g["id"] == game["id"])
            assert listed["status"] == "playing" and listed["replay"] == "finished deals"
            response = client.get(f"/api/games/{game['id']}/record?form=text")
            assert response.headers["X-Marjolet-Complete"] == "false"
            assert "finished-deals" in response.headers["content-disposition"]
            partial = record.loads(response.text)
            assert len(partial.deals) == 1  # the deal in progress is not shown
            current_deck = " ".join(state["hands"][0]["cards"])
            assert current_deck not in response.text
            viewer = client.get(f"/api/games/{game['id']}/replay").json()
            assert viewer["complete"] is False and len(viewer["deals"]) == 1


def test_a_finished_game_downloads_in_full_and_replays_frame_by_frame(server: LiveServer) -> None:
    game = server.new_game(mode="bot", bot="random", rules={"profile": "classic", "target": 150})
    rng = random.Random(8)
    with Browser.open(server, game["id"], {"type": "hello", "token": game["token"]}) as me:
        final = play_until(me, lambda s: bool(s["match_over"]), rng)
    with server.http() as client:
        as_json = client.get(f"/api/games/{game['id']}/record?form=json")
        as_text = client.get(f"/api/games/{game['id']}/record?form=text")
        viewer = client.get(f"/api/games/{game['id']}/replay").json()
    assert as_json.headers["X-Marjolet-Complete"] == "true"
    assert record.loads(as_json.text) == record.loads(as_text.text)
    rec = record.loads(as_json.text)
    assert viewer["complete"] is True and viewer["result"]["totals"] == final["totals"]
    for deal_record, deal in zip(rec.deals, viewer["deals"], strict=True):
        frames = views.expand_frames(deal)
        assert len(frames) == len(deal_record.actions) + 1
        assert len(deal["log"]) == len(deal_record.actions)
        assert frames[-1]["deal_over"]


def test_an_uploaded_record_is_checked_and_replayed(server: LiveServer) -> None:
    good = (EXAMPLES / "L006-hand-seed05-partial.json").read_text()
    with server.http() as client:
        response = client.post("/api/replay", content=good.encode())
        assert response.status_code == 200
        data = response.json()
        expected = json.loads((EXAMPLES / "L006-hand-seed05-partial.expected.json").read_text())
        assert data["result"] == expected
        as_text = client.post("/api/replay", content=record.loads(good).to_text().encode())
        assert as_text.json()["result"] == expected


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "the file is empty"),
        (b"\xff\xfe\x00garbage", "not UTF-8"),
        (b'{"first_dealer": 0, "deals": [{"deck": ["AS"]}]}', "R4"),
        (b"<html>hello</html>", "not a valid record"),
    ],
)
def test_a_bad_upload_gets_a_clear_error(server: LiveServer, content: bytes, message: str) -> None:
    with server.http() as client:
        response = client.post("/api/replay", content=content)
    assert response.status_code == 400
    assert message in response.json()["error"]["message"]


def test_an_illegal_uploaded_record_names_the_deal_and_action(server: LiveServer) -> None:
    bad = (EXAMPLES / "I000-hand-seed05-repeat-JQS.json").read_text()
    expected = json.loads((EXAMPLES / "I000-hand-seed05-repeat-JQS.expected.json").read_text())[
        "error"
    ]
    with server.http() as client:
        error = client.post("/api/replay", content=bad.encode()).json()["error"]
    assert (error["deal"], error["action"]) == (expected["deal"], expected["action"])
    assert "R12" in error["message"]


def test_an_uploaded_text_records_error_names_its_line(server: LiveServer) -> None:
    """The replay page shows the line of a hand-typed record's fault; a JSON
    record's fault has none."""
    as_json = (EXAMPLES / "I000-hand-seed05-repeat-JQS.json").read_text()
    lines = record.loads(as_json, check=False).to_text().splitlines()
    first_trick = next(i for i, line in enumerate(lines) if line.strip().startswith("1."))
    lines[first_trick] = lines[first_trick].replace("1.", "1", 1)  # no dot after the number
    with server.http() as client:
        typed = client.post("/api/replay", content="\n".join(lines).encode()).json()["error"]
        from_json = client.post("/api/replay", content=as_json.encode()).json()["error"]
    assert (typed["line"], typed["deal"], typed["action"]) == (first_trick + 1, 0, 0)
    assert "written with a dot" in typed["reason"] and "line" not in typed["reason"]
    assert typed["mistake"] == {"mistake": "trick_number", "text": "1", "number": "1"}
    assert from_json["line"] is None and from_json["deal"] is not None
    assert from_json["mistake"] is None


def test_an_uploaded_records_refused_move_is_placed_by_its_trick_as_the_command_line_does(
    server: LiveServer, capsys: pytest.CaptureFixture[str]
) -> None:
    """The replay page said « donne 1, coup 15 » where ``marjolet replay``
    says « donne 1, pli 4 »: the upload's ``place`` is the command's."""
    bad = EXAMPLES / "I000-hand-seed05-repeat-JQS.json"
    with server.http() as client:
        error = client.post("/api/replay", content=bad.read_bytes()).json()["error"]
    status, _, err = run_main(["replay", str(bad), "--lang", "en"], capsys)
    assert status == 2
    assert [what for what, _ in error["place"]] == ["deal", "trick"]
    where = ", ".join(f"{what} {n}" for what, n in error["place"])
    assert f" is not a valid game ({where}): " in err, (where, err)


DECK = " ".join(CARD_NAMES)
REPEATED = DECK.replace("8C", "7C", 1)  # the seven of clubs twice, no eight


@pytest.mark.parametrize(
    ("lang", "written", "kind", "detail"),
    [
        ("fr", f"rules classique\nfirst_dealer 0\ndeal 0\ndeck {DECK}\n",
         "rules_unknown_profile", "classique"),
        ("en", f"first_dealer 2\ndeal 0\ndeck {DECK}\n", "bad_first_dealer", "2"),
        ("fr", f"first_dealer 0\nrules\ndeal 0\ndeck {DECK}\n", "rules_empty", None),
        ("fr", f"first_dealer 0\ndeal 0\ndeck {REPEATED}\n", "deck_repeats", "7C"),
        ("fr", f"first_dealer 0\ndeal 0\ndeck {DECK[3:]}\n", "deck_missing", "7C"),
        ("en", f"first_dealer 0\ndeal 0\ndeck {DECK}\n  1. 7C JC draw\n2 QC 8C\n",
         "trick_number", "2"),
        ("fr", '{"format": "marjolet-record/2", "first_dealer": 0, "deals": []}',
         "unknown_format", "marjolet-record/2"),
    ],
    ids=["rules", "first-dealer", "rules-empty", "deck-repeats", "deck-missing",
         "trick-number", "format"],
)  # fmt: skip
def test_an_uploaded_records_fault_is_worded_in_the_readers_language_as_the_command_line_words_it(
    server: LiveServer,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    lang: str,
    written: str,
    kind: str,
    detail: str | None,
) -> None:
    """The replay page showed a header's fault as « un coup n’est pas
    permis par les règles, ou le fichier est abîmé »: the upload's error
    has the fault's ``kind`` and ``detail`` and its reason ``worded`` in
    the page's language (``?lang=``), the sentence of ``marjolet replay``."""
    path = tmp_path / "bad.txt"
    path.write_text(written, encoding="utf-8")
    with server.http() as client:
        response = client.post(f"/api/replay?lang={lang}", content=written.encode())
    error = response.json()["error"]
    assert (response.status_code, error["code"]) == (400, "bad_record")
    assert (error["kind"], error["detail"], error["lang"]) == (kind, detail, lang)
    status, _, err = run_main(["replay", str(path), "--lang", lang], capsys)
    assert status == 2
    # the terminal writes the narrow no-break space as a plain one (tui.words)
    assert err.endswith(f": {error['worded'].replace(NNBSP, NBSP)}.\n"), (error, err)


def test_an_uploaded_records_fault_is_worded_in_the_language_the_page_remembers(
    server: LiveServer,
) -> None:
    """Without ``?lang=``, the language switch's cookie, as the pages."""
    written = f"first_dealer 0\nrules\ndeal 0\ndeck {DECK}\n"
    with server.http() as client:
        client.cookies.set("marjolet_lang", "fr")
        french = client.post("/api/replay", content=written.encode()).json()["error"]
    assert french["lang"] == "fr"
    assert french["worded"] == (
        "la ligne «\u00a0rules\u00a0» est vide\u00a0: elle commence par le profil de "
        "règles, classic ou encyclopedia"
    )


def test_an_uploaded_records_fault_without_words_has_none(server: LiveServer) -> None:
    """A move the rules refuse is worded by the page from its ``why``; a
    JSON record's ``deals`` of the wrong shape has no sentence: ``worded``
    is null. JSON that does not parse is worded by its line and column."""
    refused = (EXAMPLES / "I000-hand-seed05-repeat-JQS.json").read_bytes()
    shapeless = (
        b'{"format": "marjolet-record/1", "rules": "classic", "first_dealer": 0, "deals": 5}'
    )
    with server.http() as client:
        errors = [
            client.post("/api/replay?lang=fr", content=body).json()["error"]
            for body in (refused, shapeless, b'{"first_dealer": 0, "deals": [}')
        ]
    assert [error["worded"] for error in errors[:2]] == [None, None]
    assert errors[2]["kind"] == "bad_json" and errors[2]["detail"] == "1 31"
    assert errors[2]["worded"].startswith(
        "son JSON est abîmé à la ligne 1, colonne 31 (une virgule, un guillemet"
    )


def test_an_oversized_upload_is_refused(tmp_path: Path) -> None:
    with (
        live_server(fast_config(tmp_path / "g.sqlite3", max_upload=1000)) as server,
        server.http() as client,
    ):
        response = client.post("/api/replay", content=b" " * 5000)
    assert response.status_code == 413


def test_creating_games_is_rate_limited_per_address(tmp_path: Path) -> None:
    with (
        live_server(fast_config(tmp_path / "g.sqlite3", games_per_minute=3)) as server,
        server.http() as client,
    ):
        codes = [
            client.post("/api/games", json={"mode": "bot", "bot": "random"}).status_code
            for _ in range(5)
        ]
    assert codes[:3] == [200, 200, 200] and codes[3] == 429


def test_record_uploads_are_rate_limited_per_address(tmp_path: Path) -> None:
    """The replay page's uploads, checked and replayed by the server, are
    limited per address ("replay" of the rate limits, 10 a minute)."""
    with live_server(fast_config(tmp_path / "g.sqlite3")) as server, server.http() as client:
        codes = [client.post("/api/replay", content=b"bonjour\n").status_code for _ in range(12)]
    assert 429 not in codes[:10] and codes[10:] == [429, 429], codes


def test_the_server_answers_only_to_loopback_names_when_told(tmp_path: Path) -> None:
    config = fast_config(tmp_path / "g.sqlite3", allowed_hosts=("127.0.0.1", "localhost"))
    with live_server(config) as server, server.http() as client:
        assert client.get("/api/health").status_code == 200
        assert client.get("/api/health", headers={"host": "evil.example"}).status_code == 400
