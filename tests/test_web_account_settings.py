"""An account holder's own settings over HTTP, on SQLite and PostgreSQL:
changing the password, logging out on every other device, deleting the
account (docs/web.md, "Your account")."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import pytest
from sqlalchemy import select
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from marjolet import record
from marjolet.record import Record
from marjolet.web.accounts import DELETED_NAME
from marjolet.web.db import reviews
from marjolet.web.online import CLOSE_SESSION_ENDED, SESSION_COOKIE, SESSION_ENDED_REASON
from marjolet.web.reviews import record_digest
from test_web_online import SHORT, account_seat, pass_the_turn, rated_game, resign, sign_up
from test_web_review import count_judgements, wait_done
from web_support import TIMEOUT, LiveServer, fast_config, first_moves, live_server

PASSWORD = "correct horse"


@pytest.fixture
def server(database_url: str) -> Iterator[LiveServer]:
    config = fast_config(database_url, rate_limits={"login": "4/minute"})
    with live_server(config) as live:
        yield live


def second_device(server: LiveServer, name: str, password: str = PASSWORD) -> httpx.Client:
    client = server.http()
    answer = client.post("/api/session", json={"name": name, "password": password})
    assert answer.status_code == 200, answer.text
    return client


def logged_in(client: httpx.Client) -> bool:
    return client.get("/api/me").json()["account"] is not None


def error_of(answer: httpx.Response) -> dict[str, Any]:
    error: dict[str, Any] = answer.json()["error"]
    assert "\n" not in error["message"]
    return error


def test_a_new_password_ends_every_other_session_and_renews_this_one(server: LiveServer) -> None:
    phone = sign_up(server, "alice")
    laptop = second_device(server, "alice")
    before = phone.cookies[SESSION_COOKIE]
    answer = phone.post("/api/me/password", json={"current": PASSWORD, "new": "battery staple"})
    assert answer.status_code == 200, answer.text
    assert phone.cookies[SESSION_COOKIE] != before and logged_in(phone)
    assert not logged_in(laptop)
    with server.http() as old:  # the token of before the change opens nothing
        old.cookies.set(SESSION_COOKIE, before)
        assert not logged_in(old)
    with server.http() as other:
        old_password = {"name": "alice", "password": PASSWORD}
        assert other.post("/api/session", json=old_password).status_code == 401
        new_password = {"name": "alice", "password": "battery staple"}
        assert other.post("/api/session", json=new_password).status_code == 200


def test_a_wrong_current_password_is_refused_and_limited_like_a_login(server: LiveServer) -> None:
    phone = sign_up(server, "bruno")
    codes = []
    for _ in range(5):
        answer = phone.post("/api/me/password", json={"current": "not it!!", "new": "new enough"})
        codes.append((answer.status_code, error_of(answer)["code"]))
    assert codes == [(403, "bad_password")] * 4 + [(429, "too_many_requests")]
    assert logged_in(phone)  # still logged in, password unchanged
    login = phone.post("/api/session", json={"name": "bruno", "password": PASSWORD})
    assert login.status_code == 429


def test_a_new_password_too_short_is_refused_before_anything_is_counted(
    server: LiveServer,
) -> None:
    phone = sign_up(server, "chloe")
    for _ in range(6):
        answer = phone.post("/api/me/password", json={"current": PASSWORD, "new": "short"})
        assert answer.status_code == 400 and error_of(answer)["code"] == "weak_password"
    good = phone.post("/api/me/password", json={"current": PASSWORD, "new": "long enough"})
    assert good.status_code == 200


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"current": PASSWORD}, "'new' is missing: the new password"),
        # the wrong keys: not read as an empty password ("at least 8 characters")
        ({"password": PASSWORD, "new_password": "long enough"},
         "'current' is missing: your current password"),
    ],
)  # fmt: skip
def test_a_missing_password_field_is_named_not_read_as_empty(
    server: LiveServer, body: dict[str, str], message: str
) -> None:
    phone = sign_up(server, "chloe")
    answer = phone.post("/api/me/password", json=body)
    assert answer.status_code == 400
    assert error_of(answer)["code"] == "bad_request" and error_of(answer)["message"] == message
    assert phone.post("/api/me/password", json={"current": PASSWORD, "new": "long"}).json()[
        "error"
    ]["message"] == "a password has at least 8 characters"  # a present one: its own check


def test_the_account_settings_need_a_login(server: LiveServer) -> None:
    with server.http() as guest:
        for method, path, body in (
            ("POST", "/api/me/password", {"current": PASSWORD, "new": "long enough"}),
            ("DELETE", "/api/me/sessions", {}),
            ("DELETE", "/api/me", {"password": PASSWORD}),
        ):
            answer = guest.request(method, path, json=body)
            assert answer.status_code == 401 and error_of(answer)["code"] == "login_required"


def test_logging_out_everywhere_else_keeps_only_this_device(server: LiveServer) -> None:
    phone = sign_up(server, "denis")
    laptop, tablet = second_device(server, "denis"), second_device(server, "denis")
    answer = phone.request("DELETE", "/api/me/sessions", json={})
    assert answer.status_code == 200 and answer.json() == {"ended": 2}
    assert logged_in(phone) and not logged_in(laptop) and not logged_in(tablet)


def test_an_account_with_a_game_in_progress_is_not_deleted(server: LiveServer) -> None:
    emma, fanny = sign_up(server, "emma"), sign_up(server, "fanny")
    rated_game(server, emma, fanny)
    answer = emma.request("DELETE", "/api/me", json={"password": PASSWORD})
    assert answer.status_code == 409 and error_of(answer)["code"] == "games_in_progress"
    assert logged_in(emma) and server.http().get("/api/players/emma").status_code == 200


def test_a_wrong_password_deletes_nothing(server: LiveServer) -> None:
    gilles = sign_up(server, "gilles")
    answer = gilles.request("DELETE", "/api/me", json={"password": "not it!!"})
    assert answer.status_code == 403 and error_of(answer)["code"] == "bad_password"
    assert logged_in(gilles)


def test_a_deleted_account_leaves_its_games_to_a_deleted_player_and_others_ratings_alone(
    server: LiveServer,
) -> None:
    hugo, ines = sign_up(server, "hugo"), sign_up(server, "ines")
    laptop = second_device(server, "hugo")
    mine, _ = rated_game(server, hugo, ines)
    resign(server, mine["id"], hugo)
    offer = hugo.post("/api/seeks", json={"rules": SHORT, "rated": True}).json()
    with server.http() as reader:  # once the resigned game is rated (it may come a moment later)
        before = reader.get("/api/players/ines").json()
        for _ in range(100):
            if before["history"]:
                break
            time.sleep(0.05)
            before = reader.get("/api/players/ines").json()
        assert len(before["history"]) == 1, before
    answer = hugo.request("DELETE", "/api/me", json={"password": PASSWORD})
    assert answer.status_code == 200, answer.text
    assert not logged_in(hugo) and not logged_in(laptop)
    with server.http() as reader:
        assert reader.get("/api/players/hugo").status_code == 404
        after = reader.get("/api/players/ines").json()
        assert after["rating"] == before["rating"] and after["history"] == before["history"]
        assert [g["opponent"] for g in after["recent_games"]] == [DELETED_NAME]
        assert offer["id"] not in {s["id"] for s in reader.get("/api/lobby").json()["seeks"]}
        record = reader.get(f"/api/games/{mine['id']}/record").json()
        assert DELETED_NAME in record["players"] and "hugo" not in record["players"]
    assert [g["opponent"] for g in ines.get("/api/me/games").json()["games"]] == [DELETED_NAME]
    again = server.http().post("/api/accounts", json={"name": "Hugo", "password": PASSWORD})
    assert again.status_code == 201  # the name is free again, with none of the old games
    assert again.json()["account"]["games"] == 0


def test_a_table_open_on_a_device_logged_out_elsewhere_is_closed(server: LiveServer) -> None:
    """The other device loses the game it had open, not only its next request."""
    julie, karim = sign_up(server, "julie"), sign_up(server, "karim")
    laptop = second_device(server, "julie")
    mine, _ = rated_game(server, julie, karim)
    with account_seat(server, mine["id"], laptop) as away, account_seat(
        server, mine["id"], julie
    ) as here:
        assert julie.request("DELETE", "/api/me/sessions", json={}).json() == {"ended": 1}
        with pytest.raises(ConnectionClosed) as closed:
            while True:
                away.recv()
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1008
        here.send({"type": "ping"})  # this device's table stays open
        assert here.recv_until(lambda m: m["type"] == "pong")


def test_a_table_open_on_a_device_that_logs_out_is_closed_at_once(server: LiveServer) -> None:
    """Logging out ends this device's session: the table it has open in
    another tab is closed then, as one logged out elsewhere is, not left
    showing cards it can no longer play; the other device's stays open."""
    rosa, sven = sign_up(server, "rosa"), sign_up(server, "sven")
    laptop = second_device(server, "rosa")
    mine, _ = rated_game(server, rosa, sven)
    with account_seat(server, mine["id"], rosa) as here, account_seat(
        server, mine["id"], laptop
    ) as other:
        assert rosa.request("DELETE", "/api/session", json={}).status_code == 200
        with pytest.raises(ConnectionClosed) as closed:
            while True:
                here.recv(timeout=5)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == CLOSE_SESSION_ENDED
        other.send({"type": "ping"})  # the laptop's session goes on
        assert other.recv_until(lambda m: m["type"] == "pong")


def test_a_table_open_while_the_password_changes_stays_open_when_logging_out_elsewhere(
    server: LiveServer,
) -> None:
    """The new session the password change gives this device proves its
    open table too: a later "log out everywhere else" closes only the
    other devices' tables."""
    lena, marc = sign_up(server, "lena"), sign_up(server, "marc")
    mine, _ = rated_game(server, lena, marc)
    with account_seat(server, mine["id"], lena) as here:
        answer = lena.post("/api/me/password", json={"current": PASSWORD, "new": "battery staple"})
        assert answer.status_code == 200, answer.text
        here.send({"type": "ping"})  # the change itself closes no table of this device
        assert here.recv_until(lambda m: m["type"] == "pong")
        laptop = second_device(server, "lena", "battery staple")
        with account_seat(server, mine["id"], laptop) as away:
            assert lena.request("DELETE", "/api/me/sessions", json={}).json() == {"ended": 1}
            with pytest.raises(ConnectionClosed) as closed:
                while True:
                    away.recv()
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 1008
        here.send({"type": "ping"})  # this device's table stays open
        assert here.recv_until(lambda m: m["type"] == "pong")


def test_a_table_whose_session_ended_unheard_is_closed_at_its_next_move_which_is_not_played(
    server: LiveServer,
) -> None:
    """The word that a session ended may be lost between processes: a
    table socket proves its session again before each move."""
    from test_web_online import ended

    olga, piet = sign_up(server, "olga"), sign_up(server, "piet")
    mine, _ = rated_game(server, olga, piet)
    with account_seat(server, mine["id"], olga) as here:
        server.app.state.online.accounts.logout(olga.cookies[SESSION_COOKIE])  # nobody told
        here.send({"type": "resign"})
        with pytest.raises(ConnectionClosed) as closed:
            while True:
                here.recv()
        assert closed.value.rcvd is not None and closed.value.rcvd.code == CLOSE_SESSION_ENDED
    assert not ended(server, mine["id"])


@contextmanager
def lobby_socket(server: LiveServer, client: httpx.Client | None) -> Iterator[ClientConnection]:
    """The lobby socket of a device (its session cookie; ``None``: a visitor's)."""
    headers = {} if client is None else {
        "Cookie": f"{SESSION_COOKIE}={client.cookies[SESSION_COOKIE]}"
    }
    with connect(f"{server.ws_base}/ws/lobby", additional_headers=headers) as lobby:
        answers(lobby)  # listening (as the account's) once it answers
        yield lobby


def answers(lobby: ClientConnection) -> None:
    """The lobby socket is open and serves: a bad message is answered."""
    lobby.send("not json")
    while json.loads(lobby.recv(timeout=TIMEOUT))["type"] != "error":
        pass


def closed_for_session(lobby: ClientConnection) -> bool:
    """The server closed the socket saying its session ended (reading until then)."""
    with pytest.raises(ConnectionClosed) as closed:
        while True:
            lobby.recv(timeout=TIMEOUT)
    told = closed.value.rcvd
    return told is not None and (told.code, told.reason) == (
        CLOSE_SESSION_ENDED,
        SESSION_ENDED_REASON,
    )


def test_a_lobby_socket_of_a_device_that_logs_out_is_closed_and_told_why(
    server: LiveServer,
) -> None:
    """A device logged out is no longer told of the account's offers, turns
    or "Play now" game: its lobby socket is closed as its tables are; the
    other device's stays."""
    rosa = sign_up(server, "rosa")
    laptop = second_device(server, "rosa")
    with lobby_socket(server, rosa) as here, lobby_socket(server, laptop) as other:
        assert rosa.request("DELETE", "/api/session", json={}).status_code == 200
        assert closed_for_session(here)
        answers(other)
    assert server.app.state.online.listeners == set()  # none left to tell


def test_logging_out_everywhere_else_closes_the_other_devices_lobby_sockets_not_this_one(
    server: LiveServer,
) -> None:
    denis = sign_up(server, "denis")
    laptop, tablet = second_device(server, "denis"), second_device(server, "denis")
    with (
        lobby_socket(server, denis) as here,
        lobby_socket(server, laptop) as away,
        lobby_socket(server, tablet) as also_away,
    ):
        assert denis.request("DELETE", "/api/me/sessions", json={}).json() == {"ended": 2}
        assert closed_for_session(away) and closed_for_session(also_away)
        answers(here)


def test_a_lobby_socket_open_while_the_password_changes_stays_open_when_logging_out_elsewhere(
    server: LiveServer,
) -> None:
    """The new session the password change gives this device proves its
    lobby socket too: it hears the account's turns afterwards, and a later
    "log out everywhere else" closes only the other devices' sockets."""
    lena, marc = sign_up(server, "lena"), sign_up(server, "marc")
    game, _ = rated_game(server, lena, marc, days_per_move=3)
    with lobby_socket(server, lena) as here:
        answer = lena.post("/api/me/password", json={"current": PASSWORD, "new": "battery staple"})
        assert answer.status_code == 200, answer.text
        answers(here)  # the change itself closes no socket of this device
        laptop = second_device(server, "lena", "battery staple")
        with lobby_socket(server, laptop) as away:
            assert lena.request("DELETE", "/api/me/sessions", json={}).json() == {"ended": 1}
            assert closed_for_session(away)
        answers(here)
        mover = lena if lena.get("/api/me").json()["waiting"] else marc
        pass_the_turn(server, game["id"], mover)
        while json.loads(here.recv(timeout=TIMEOUT))["type"] != "turn":
            pass  # still the account's socket


def test_a_visitor_s_lobby_socket_stays_open_when_an_account_s_sessions_end(
    server: LiveServer,
) -> None:
    """A visitor's socket proves no session, nor does one opened with the
    cookie of a session that ended: no logout closes them."""
    olga = sign_up(server, "olga")
    laptop = second_device(server, "olga")
    stale = laptop.cookies[SESSION_COOKIE]
    assert olga.request("DELETE", "/api/me/sessions", json={}).json() == {"ended": 1}
    with lobby_socket(server, None) as visitor, lobby_socket(server, laptop) as was_logged_in:
        assert laptop.cookies[SESSION_COOKIE] == stale
        assert olga.request("DELETE", "/api/me/sessions", json={}).json() == {"ended": 0}
        assert olga.request("DELETE", "/api/session", json={}).status_code == 200
        answers(visitor)
        answers(was_logged_in)


def test_a_lobby_socket_whose_session_ended_unheard_is_closed_by_the_session_check(
    server: LiveServer,
) -> None:
    """The word that a session ended may be lost between processes: the
    periodic check closes the lobby sockets it proved, as the tables'."""
    piet = sign_up(server, "piet")
    with lobby_socket(server, piet) as here, lobby_socket(server, None) as visitor:
        server.app.state.online.accounts.logout(piet.cookies[SESSION_COOKIE])  # nobody told
        answers(here)
        online = server.app.state.online
        loop = online._tasks[0].get_loop()  # the server's (its pairing rounds run there)
        checked = asyncio.run_coroutine_threadsafe(online.close_ended_sessions(), loop)
        assert checked.result(TIMEOUT) == 1
        assert closed_for_session(here)
        answers(visitor)


def stored_reviews(server: LiveServer, game_id: str) -> list[str]:
    """The digests of the reviews stored for a game."""
    with server.app.state.hub.ledger.engine.connect() as db:
        query = select(reviews.c.digest).where(reviews.c.game_id == game_id)
        return list(db.execute(query).scalars())


def game_record(server: LiveServer, game_id: str) -> Record:
    """The game's record as downloaded, without the review's marks a
    reviewed game's download carries as comments (a review is keyed by the
    record alone)."""
    with server.http() as reader:
        downloaded = record.loads(reader.get(f"/api/games/{game_id}/record").text)
    return dataclasses.replace(downloaded, comments=())


def test_a_deleted_account_leaves_its_opponent_s_review_of_their_game_valid(
    server: LiveServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The review is re-keyed with the seat's new name, not computed again;
    no row is left under a key nobody asks for."""
    server.app.state.reviews.budget = 0.0
    judged = count_judgements(monkeypatch)
    nina, oscar = sign_up(server, "nina"), sign_up(server, "oscar")
    mine, _ = rated_game(server, nina, oscar)
    with account_seat(server, mine["id"], nina) as a, account_seat(server, mine["id"], oscar) as b:
        first_moves(a, b)
    resign(server, mine["id"], nina)
    url = f"/api/games/{mine['id']}/review"
    assert oscar.post(url, json={}).json()["status"] in ("running", "done")
    reviewed = wait_done(server, mine["id"])
    assert reviewed["status"] == "done" and judged
    book, before = server.app.state.reviews.book, game_record(server, mine["id"])
    no_deal = Record(before.rules, before.first_dealer, before.players, ())
    book.put(mine["id"], no_deal, "seat", 0.0, {})  # one made while it was played
    assert nina.request("DELETE", "/api/me", json={"password": PASSWORD}).status_code == 200
    computed = len(judged)
    assert oscar.get(url).json() == reviewed
    assert oscar.post(url, json={}).json() == reviewed and len(judged) == computed
    after = game_record(server, mine["id"])
    assert DELETED_NAME in (after.players or ())
    assert stored_reviews(server, mine["id"]) == [record_digest(after)]
    # one being computed as the account went is stored under the new names
    book.put(mine["id"], before, "seat", 0.0, reviewed["review"])
    assert stored_reviews(server, mine["id"]) == [record_digest(after)]
