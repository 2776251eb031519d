"""Issue 15, the web server: what another site, a greedy client or a
flooding connection can make it do."""

from __future__ import annotations

import json
import logging
import time
from pathlib import Path
from typing import Any

import pytest
from websockets.exceptions import ConnectionClosed

from marjolet.cli import main
from marjolet.rules import NEW_MATCH_LIMITS
from marjolet.web.security import CLOSE_ABOVE, WatchCaps
from web_support import Browser, LiveServer, fast_config, live_server


@pytest.fixture
def server(tmp_path: Path) -> Any:
    with live_server(fast_config(tmp_path / "games.sqlite3")) as srv:
        yield srv


def game_count(server: LiveServer) -> int:
    with server.http() as client:
        return len(client.get("/api/games").json()["games"])


def test_state_changing_endpoints_require_application_json(server: LiveServer) -> None:
    body = json.dumps({"mode": "watch", "bots": ["random", "random"]})
    with server.http() as client:
        for kind in ("text/plain", "application/x-www-form-urlencoded", None):
            headers = {"content-type": kind} if kind else {}
            answer = client.post("/api/games", content=body, headers=headers)
            assert answer.status_code == 415
            assert "application/json" in answer.json()["error"]["message"]
        join = client.post("/api/games/abc/join", content='{"invite": "x"}',
                           headers={"content-type": "text/plain"})
        assert join.status_code == 415
        ok = client.post("/api/games", content=body,
                         headers={"content-type": "application/json; charset=utf-8"})
        assert ok.status_code == 200
    assert game_count(server) == 1


def test_a_cross_site_origin_is_refused_and_the_servers_own_is_accepted(
    server: LiveServer,
) -> None:
    payload = {"mode": "bot", "bot": "random"}
    with server.http() as client:
        for origin in ("http://evil.example", "null", "http://127.0.0.1:1"):
            answer = client.post("/api/games", json=payload, headers={"origin": origin})
            assert answer.status_code == 403, origin
            assert "cross-site" in answer.json()["error"]["message"]
            upload = client.post("/api/replay", content="first_dealer 0\n",
                                 headers={"origin": origin})
            assert upload.status_code == 403
        assert game_count(server) == 0
        own = client.post("/api/games", json=payload, headers={"origin": server.base})
        assert own.status_code == 200
        # the upload changes nothing: it takes its file as plain text
        upload = client.post("/api/replay", content="first_dealer 0\n",
                             headers={"content-type": "text/plain", "origin": server.base})
        assert upload.status_code == 200
    assert game_count(server) == 1


def test_the_web_api_has_the_command_lines_rules_limits(
    server: LiveServer, capsys: pytest.CaptureFixture[str]
) -> None:
    low, high = NEW_MATCH_LIMITS["target"]
    with pytest.raises(SystemExit):
        main(["rules", "--target", "1", "--lang", "en"])
    assert capsys.readouterr().err.strip() == (  # the player's words, the same limits
        f"marjolet: error: --target must be between {low} and {high}, not 1"
    )
    with server.http() as client:
        for target, ok in ((1, False), (99, False), (100, True), (10_000, True), (10_001, False)):
            rules = {"profile": "classic", "target": target}
            answer = client.post("/api/games", json={"mode": "bot", "bot": "random",
                                                     "rules": rules})
            assert (answer.status_code == 200) is ok, (target, answer.text)
            if target == 1:
                assert answer.json()["error"]["message"] == (  # the library's words, for programs
                    f"rules: target must be {low}-{high} for a new match, got 1"
                )
            assert (main(["rules", "--target", str(target)]) == 0) if ok else True
    capsys.readouterr()


def test_watched_bot_matches_are_capped_per_address(tmp_path: Path) -> None:
    config = fast_config(tmp_path / "g.sqlite3", watch_delay=5.0, max_watched_per_address=2)
    with live_server(config) as server:
        for _ in range(2):
            server.new_game(mode="watch", bots=["random", "random"])
        with server.http() as client:
            third = client.post("/api/games", json={"mode": "watch", "bots": ["random", "random"]})
        assert third.status_code == 429
        assert "the limit is 2" in third.json()["error"]["message"]
        server.new_game(mode="bot", bot="random")  # a person's game is not held up
        assert game_count(server) == 3


def test_watched_bot_matches_are_capped_in_all() -> None:
    caps = WatchCaps(per_address=2, total=3)
    assert caps.refusal("a", []) is None
    for game, address in (("g1", "a"), ("g2", "b"), ("g3", "c")):
        caps.started(game, address)
    refusal = caps.refusal("d", ["g1", "g2", "g3"])
    assert refusal is not None and "already runs 3" in refusal[0]
    assert refusal[1:] == ("error.watch_server_full", {"n": 3})
    assert caps.refusal("d", ["g1", "g2"]) is None  # one finished or paused: room again
    caps.started("g4", "a")
    refusal = caps.refusal("a", ["g1", "g4"])
    assert refusal is not None and "the limit is 2" in refusal[0]
    assert refusal[1:] == ("error.watch_address_full", {"n": 2, "most": 2})


def _actions(server: LiveServer, game_id: str) -> int:
    with server.http() as client:
        games = client.get("/api/games").json()["games"]
    return int(next(g for g in games if g["id"] == game_id)["actions"])


def test_a_watched_match_with_no_spectator_pauses(tmp_path: Path) -> None:
    config = fast_config(tmp_path / "g.sqlite3", watch_delay=0.02, watch_pause_after=0.5)
    with live_server(config) as server:
        game = server.new_game(mode="watch", bots=["random", "random"])
        hub = server.app.state.hub
        deadline = time.monotonic() + 15
        while game["id"] in hub.tables:
            assert time.monotonic() < deadline, "the unwatched match did not pause"
            time.sleep(0.1)
        paused_at = _actions(server, game["id"])
        assert paused_at > 0
        time.sleep(0.6)
        assert _actions(server, game["id"]) == paused_at
        with Browser.open(server, game["id"], {"type": "hello", "watch": True}) as watcher:
            first = watcher.next_state()["version"]
            assert watcher.recv_until(
                lambda m: m["type"] == "state" and m["version"] > first + 3
            )
        assert _actions(server, game["id"]) > paused_at


def test_every_refused_message_gets_an_answer_until_the_close_which_says_why(
    tmp_path: Path,
) -> None:
    config = fast_config(
        tmp_path / "g.sqlite3", rate_per_second=1.0, rate_burst=2, flood_close_after=10
    )
    with live_server(config) as server:
        game = server.new_game(mode="bot", bot="random")
        with Browser.open(server, game["id"], {"type": "hello", "token": game["token"]}) as me:
            me.next_state()
            for _ in range(20):
                me.send({"type": "ping"})
            answers: list[str] = []
            with pytest.raises(ConnectionClosed) as closed:
                while True:
                    msg = me.recv()
                    if msg["type"] in ("pong", "error"):
                        answers.append(msg["type"] if msg["type"] == "pong" else msg["code"])
            assert answers.count("rate_limited") == 10  # one answer per refused message
            assert answers.count("pong") >= 2 and len(answers) <= 20
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 1008
            assert "too many messages" in closed.value.rcvd.reason


def test_over_64_kib_messages_get_the_too_large_error_before_the_1009_close(
    server: LiveServer,
) -> None:
    game = server.new_game(mode="bot", bot="random")
    with Browser.open(server, game["id"], {"type": "hello", "token": game["token"]}) as me:
        me.next_state()
        me.send("x" * 3000)  # oversized but small: refused, the connection stays
        assert me.error()["code"] == "too_large"
        me.send({"type": "ping"})
        assert me.recv_until(lambda m: m["type"] == "pong")
        me.send(json.dumps({"type": "ping", "pad": "x" * (CLOSE_ABOVE + 10)}))
        error = me.error()
        assert error["code"] == "too_large" and "bytes" in error["message"]
        with pytest.raises(ConnectionClosed) as closed:
            while True:
                me.recv()
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1009


def test_a_binary_or_surrogate_message_is_answered_on_both_sockets(
    server: LiveServer, caplog: pytest.LogCaptureFixture
) -> None:
    from websockets.sync.client import connect

    game = server.new_game(mode="bot", bot="random")
    with connect(f"{server.ws_base}/ws/lobby") as lobby:
        lobby.send(b"\x00\x01")
        error = json.loads(lobby.recv(timeout=10))
        assert error["code"] == "malformed" and "not binary frames" in error["message"]
        lobby.send('{"type": "follow", "seek": "abc", "token": "\\ud800"}')
        error = json.loads(lobby.recv(timeout=10))
        assert error["code"] == "malformed" and "'token' is not valid text" in error["message"]
        lobby.send(json.dumps({"type": "follow", "seek": "abc"}))  # the socket stays open
        assert json.loads(lobby.recv(timeout=10))["code"] == "no_seek"
    with Browser.open(server, game["id"], {"type": "hello", "token": "\ud800"}) as me:
        error = me.error()
        assert error["code"] == "malformed" and "'token' is not valid text" in error["message"]
    assert "Traceback" not in caplog.text and "KeyError" not in caplog.text


def test_a_line_break_in_a_socket_address_cannot_forge_a_line_of_the_log(
    server: LiveServer, caplog: pytest.LogCaptureFixture
) -> None:
    forged = "%0a2026-01-01%2000:00:00,000%20ERROR%20marjolet.web:%20forged%0a"
    with caplog.at_level(logging.INFO, logger="marjolet.web"), Browser.open(
        server, forged, {"type": "hello", "watch": True}
    ) as me:
        assert me.error()["code"] == "not_found"
    lines = [r.getMessage() for r in caplog.records if "2026-01-01" in r.getMessage()]
    assert lines and all("\n" not in line for line in lines)
    assert "game \\n2026-01-01" in lines[0]
