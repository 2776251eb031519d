"""Request bodies: every endpoint's body has a size limit, a body nested too
deeply is a clean 400, and a body of the wrong shape is refused with one
line naming the field (issue 21, "Bodies"; web/schemas.py)."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from web_support import Browser, LiveServer, fast_config, live_server, play_until

JSON = {"content-type": "application/json"}
LIMIT = 8192  # WebConfig.max_request
UPLOAD_LIMIT = 1_000_000  # WebConfig.max_upload


@pytest.fixture
def server(tmp_path: Path) -> Any:
    with live_server(fast_config(tmp_path / "games.sqlite3")) as srv:
        yield srv


def finished_game(server: LiveServer) -> dict[str, Any]:
    game = server.new_game(mode="bot", bot="random")
    with Browser.open(server, game["id"], {"type": "hello", "token": game["token"]}) as me:
        play_until(me, lambda s: s["match_over"], random.Random(5))
    return game


def json_endpoints(game_id: str) -> list[str]:
    return [
        "/api/games",
        f"/api/games/{game_id}/join",
        f"/api/games/{game_id}/rematch",
        f"/api/games/{game_id}/review",
    ]


def chunks(total: int, size: int = 65536) -> Iterator[bytes]:
    """A body sent without Content-Length (chunked), ``total`` bytes of it."""
    sent = 0
    yield b'{"token": "'
    while sent < total:
        yield b"x" * size
        sent += size
    yield b'"}'


def test_every_json_body_over_the_request_limit_is_refused_413(server: LiveServer) -> None:
    game = finished_game(server)
    body = b'{"token": "' + b"x" * (LIMIT + 1) + b'"}'
    with server.http() as client:
        for path in json_endpoints(game["id"]):
            answer = client.post(path, content=body, headers=JSON)
            assert answer.status_code == 413, (path, answer.text)
            error = answer.json()["error"]
            assert error["key"] == "error.too_large" and error["params"] == {"n": LIMIT}


def test_a_rematch_body_streamed_without_length_stops_at_the_limit(server: LiveServer) -> None:
    game = finished_game(server)
    with server.http() as client:
        answer = client.post(
            f"/api/games/{game['id']}/rematch", content=chunks(4_000_000), headers=JSON
        )
    assert answer.status_code == 413
    assert f"the limit is {LIMIT} bytes" in answer.json()["error"]["message"]


def test_an_upload_may_be_larger_but_has_its_own_limit(server: LiveServer) -> None:
    with server.http() as client:
        big = client.post("/api/replay", content=b" " * (UPLOAD_LIMIT + 1))
    assert big.status_code == 413
    assert big.json()["error"]["params"] == {"n": UPLOAD_LIMIT}


@pytest.mark.parametrize("depth", [3_000, 100_000])
def test_deeply_nested_json_is_a_clean_refusal_never_a_500(server: LiveServer, depth: int) -> None:
    game = finished_game(server)
    nested = b"[" * depth + b"]" * depth
    with server.http() as client:
        for path in [*json_endpoints(game["id"]), "/api/replay"]:
            answer = client.post(path, content=nested, headers=JSON)
            too_big = len(nested) > (UPLOAD_LIMIT if path == "/api/replay" else LIMIT)
            assert answer.status_code == (413 if too_big else 400), (path, depth, answer.text)
            assert answer.json()["error"]["message"]
        # and the server goes on
        assert client.get("/api/health").status_code == 200


@pytest.mark.parametrize(
    ("path", "payload", "message"),
    [
        ("/api/games", ["bot"], "the request body must be a JSON object"),
        ("/api/games", {"mode": "bot", "bot": "x" * 300}, "unknown bot"),
        ("/api/games", {"mode": "watch"}, "'bots' must name two bot choices"),
        ("/api/games/ID/join", {"invite": "x" * 129}, "'invite' must be the code"),
        ("/api/games/ID/join", {"invite": 7}, "'invite' must be the code"),
        ("/api/games/ID/rematch", {"owner": 7}, "'owner' must be the owner token of your offer"),
        ("/api/games/ID/rematch", {"token": ["x"]}, "'token' must be the token of your seat"),
        # a required field absent is named as missing, not read as empty
        ("/api/games/ID/join", {"name": "Ann"}, "'invite' is missing: the code of the invite link"),
        ("/api/games/ID/invite", {}, "'invite' is missing: the code of the invite link"),
        ("/api/accounts", {"name": "ann_b"}, "'password' is missing: your password"),
        ("/api/session", {"pass": "correct horse"}, "'name' is missing: your account's name"),
    ],
)
def test_a_body_of_the_wrong_shape_is_refused_naming_the_field(
    server: LiveServer, path: str, payload: Any, message: str
) -> None:
    game = server.new_game(mode="friend", name="Host")
    with server.http() as client:
        answer = client.post(path.replace("ID", game["id"]), json=payload)
    assert answer.status_code == 400, answer.text
    error = answer.json()["error"]
    assert error["code"] == "bad_request" and message in error["message"]
    assert "\n" not in error["message"]


def test_a_long_name_is_cut_and_unprintable_characters_dropped(server: LiveServer) -> None:
    game = server.new_game(mode="bot", bot="random", name="\x00Ann" + "n" * 40)
    with Browser.open(server, game["id"], {"type": "hello", "token": game["token"]}) as me:
        state = me.next_state()
    assert state["players"][0] == "Ann" + "n" * 21


def test_rules_nested_too_deeply_in_the_address_show_the_classic_rules(
    server: LiveServer,
) -> None:
    with server.http() as client:
        page = client.get("/rules", params={"rules": "[" * 3000})
    assert page.status_code == 200 and "<html" in page.text


#: A JSON escape that Python decodes into a lone surrogate: no UTF-8 text.
SURROGATE = "\\ud800"


@pytest.mark.parametrize(
    ("path", "body", "field"),
    [
        ("/api/games/ID/join", '{"invite": "S"}', "'invite'"),
        ("/api/games/ID/rematch", '{"token": "S"}', "'token'"),
        ("/api/games/ID/rematch/status", '{"owner": "xS"}', "'owner'"),
        ("/api/accounts", '{"name": "amelie", "password": "passwordS"}', "'password'"),
        ("/api/session", '{"name": "amelie", "password": "passwordS"}', "'password'"),
        ("/api/seeks", '{"rules": {"profile": "S"}}', "'rules.profile'"),
        ("/api/play-now", '{"browser": null, "unknown": ["ok", "S"]}', "'unknown.1'"),
    ],
)
def test_a_lone_surrogate_anywhere_in_a_body_is_refused_naming_the_field(
    server: LiveServer, path: str, body: str, field: str
) -> None:
    game = server.new_game(mode="friend", name="Host")
    with server.http() as client:
        answer = client.post(
            path.replace("ID", game["id"]), content=body.replace("S", SURROGATE), headers=JSON
        )
        assert answer.status_code == 400, answer.text
        error = answer.json()["error"]
        assert error["code"] == "bad_request"
        assert error["message"].startswith(f"{field} is not valid text")
        # the connection was answered, not dropped: the next request goes through
        assert client.get("/api/health").status_code == 200


def test_an_uploaded_record_with_a_surrogate_or_a_huge_number_is_a_bad_record(
    server: LiveServer,
) -> None:
    with server.http() as client:
        quoted = client.post("/api/replay", content='{"first_dealer": "' + SURROGATE + '"}')
        huge = client.post("/api/replay", content='{"first_dealer": ' + "1" * 5000 + "}")
    assert quoted.status_code == 400, quoted.text
    assert "'first_dealer' must be 0 or 1" in quoted.json()["error"]["message"]
    assert huge.status_code == 400, huge.text
    assert "a number of more than 4300 digits" in huge.json()["error"]["message"]


def test_a_refusal_quoting_a_client_is_one_bounded_line_that_can_be_written() -> None:
    from marjolet.web.errors import WebError
    from marjolet.web.text import MAX_LINE

    error = WebError("bad_request", "got 'a\nb\ud800" + "x" * 5000, params={"name": "\udfff"})
    assert "\n" not in error.message and len(error.message) == MAX_LINE
    assert error.message.startswith("got 'a b\\ud800x")
    assert json.dumps(error.to_json(), ensure_ascii=False).encode("utf-8")
