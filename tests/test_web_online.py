"""Online play over HTTP and WebSockets: accounts and sessions, the lobby,
"Play now", account seats, leaving and claiming, rated results.

The whole-match test plays a rated match between two accounts found
through the lobby, both over WebSockets, and checks both new ratings
against a Glicko-2 computed here from Glickman's formulas (not by
marjolet.web.ratings).
"""

from __future__ import annotations

import asyncio
import json
import math
import random
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.sync.client import connect

from marjolet.web.online import SESSION_COOKIE, Online
from marjolet.web.presence import move_deadline
from test_web_hidden import cards_named, hidden_by_version, stored_record
from web_support import (
    TIMEOUT,
    Browser,
    LiveServer,
    at_once,
    fast_config,
    first_moves,
    live_server,
    play_until,
    read_stored,
)

SHORT = {"profile": "classic", "target": 100}


# -- an independent Glicko-2 (Glickman, "Example of the Glicko-2 system", steps 1-8) -------


def glicko2(
    r: float, rd: float, sigma: float, games: list[tuple[float, float, float]], tau: float
) -> tuple[float, float, float]:
    """One rating period; ``games`` are (opponent rating, opponent RD, score)."""
    mu, phi = (r - 1500) / 173.7178, rd / 173.7178

    def g(p: float) -> float:
        return 1 / math.sqrt(1 + 3 * p * p / math.pi**2)

    def e(m: float, mj: float, pj: float) -> float:
        return 1 / (1 + math.exp(-g(pj) * (m - mj)))

    opp = [((rj - 1500) / 173.7178, rdj / 173.7178, s) for rj, rdj, s in games]
    v = 1 / sum(g(pj) ** 2 * e(mu, mj, pj) * (1 - e(mu, mj, pj)) for mj, pj, _ in opp)
    delta = v * sum(g(pj) * (s - e(mu, mj, pj)) for mj, pj, s in opp)
    a = math.log(sigma**2)

    def f(x: float) -> float:
        ex = math.exp(x)
        return ex * (delta**2 - phi**2 - v - ex) / (2 * (phi**2 + v + ex) ** 2) - (x - a) / tau**2

    big_a = a
    if delta**2 > phi**2 + v:
        big_b = math.log(delta**2 - phi**2 - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        big_b = a - k * tau
    fa, fb = f(big_a), f(big_b)
    while abs(big_b - big_a) > 1e-6:
        c = big_a + (big_a - big_b) * fa / (fb - fa)
        fc = f(c)
        if fc * fb <= 0:
            big_a, fa = big_b, fb
        else:
            fa /= 2
        big_b, fb = c, fc
    sigma2 = math.exp(big_a / 2)
    phi_star = math.sqrt(phi**2 + sigma2**2)
    phi2 = 1 / math.sqrt(1 / phi_star**2 + 1 / v)
    mu2 = mu + phi2**2 * sum(g(pj) * (s - e(mu, mj, pj)) for mj, pj, s in opp)
    return 173.7178 * mu2 + 1500, 173.7178 * phi2, sigma2


def test_the_independent_glicko2_reproduces_glickmans_worked_example() -> None:
    r, rd, sigma = glicko2(1500, 200, 0.06, [(1400, 30, 1), (1550, 100, 0), (1700, 300, 0)], 0.5)
    assert (round(r, 1), round(rd, 2), round(sigma, 5)) == (1464.1, 151.52, 0.06)


# -- helpers ---------------------------------------------------------------------------------


@pytest.fixture
def server(tmp_path: Path) -> Iterator[LiveServer]:
    with live_server(fast_config(tmp_path / "web.sqlite3", away_grace=0.5)) as live:
        yield live


def sign_up(server: LiveServer, name: str, password: str = "correct horse") -> httpx.Client:
    client = server.http()
    answer = client.post("/api/accounts", json={"name": name, "password": password})
    assert answer.status_code == 201, answer.text
    return client


@contextmanager
def seat_socket(
    server: LiveServer, game_id: str, client: httpx.Client | None, hello: dict[str, Any]
) -> Iterator[Browser]:
    """A table socket sending the client's session cookie, as a browser does."""
    headers = {}
    if client is not None:
        headers["Cookie"] = f"{SESSION_COOKIE}={client.cookies[SESSION_COOKIE]}"
    with connect(
        f"{server.ws_base}/ws/{game_id}",
        open_timeout=TIMEOUT,
        max_size=2**22,
        additional_headers=headers,
    ) as ws:
        browser = Browser(ws)
        browser.send(hello)
        yield browser


@contextmanager
def account_seat(server: LiveServer, game_id: str, client: httpx.Client) -> Iterator[Browser]:
    """The seat of the client's account at a game, welcomed."""
    with seat_socket(server, game_id, client, {"type": "hello", "account": True}) as seat:
        seat.recv_until(lambda m: m["type"] == "welcome")
        yield seat


def resign(server: LiveServer, game_id: str, client: httpx.Client) -> None:
    """The client's account resigns the game (its match is over once this returns)."""
    with account_seat(server, game_id, client) as quitter:
        quitter.send({"type": "resign"})
        quitter.recv_until(lambda m: m["type"] == "state" and m["match_over"])


def rated_game(
    server: LiveServer, seeker: httpx.Client, acceptor: httpx.Client, **extra: Any
) -> tuple[dict[str, Any], dict[str, Any]]:
    """A rated seek posted by ``seeker``, accepted by ``acceptor``; the two
    seats (the seeker's learnt over the lobby socket)."""
    seek = seeker.post("/api/seeks", json={"rules": SHORT, "rated": True, **extra}).json()
    cookie = {"Cookie": f"{SESSION_COOKIE}={seeker.cookies[SESSION_COOKIE]}"}
    with connect(
        f"{server.ws_base}/ws/lobby", open_timeout=TIMEOUT, additional_headers=cookie
    ) as lobby:
        lobby.send(json.dumps({"type": "follow", "seek": seek["id"]}))
        theirs = acceptor.post(f"/api/seeks/{seek['id']}/accept", json={}).json()
        while True:
            msg = json.loads(lobby.recv(timeout=TIMEOUT))
            if msg["type"] == "matched":
                break
    mine = msg["game"]
    assert mine["id"] == theirs["id"] and {mine["seat"], theirs["seat"]} == {0, 1}
    return mine, theirs


def check_spectator(messages: list[str], rec: Any) -> None:
    """No message to a spectator names a card hidden from either player."""
    hidden = [hidden_by_version(rec, seat) for seat in (0, 1)]
    version, states = 0, 0
    for text in messages:
        msg = json.loads(text)
        if msg["type"] == "state":
            version, states = msg["version"], states + 1
            assert msg["hands"][0]["cards"] is None and msg["hands"][1]["cards"] is None
        secret = hidden[0].get(version, set()) | hidden[1].get(version, set())
        assert not cards_named(text) & secret, (version, text[:300])
    assert states > 10


def rating(server: LiveServer, name: str) -> dict[str, Any]:
    with server.http() as client:
        profile: dict[str, Any] = client.get(f"/api/players/{name}").json()
        return profile


# -- the check ----------------------------------------------------------------------


def test_a_rated_match_through_the_lobby_rates_both_accounts_by_glicko2(
    server: LiveServer,
) -> None:
    alice, bobby = sign_up(server, "alice"), sign_up(server, "Bobby")
    mine, theirs = rated_game(server, alice, bobby)
    game_id = mine["id"]
    finals: dict[int, dict[str, Any]] = {}
    errors: list[BaseException] = []

    def play(client: httpx.Client, seat: int) -> None:
        try:
            with seat_socket(server, game_id, client, {"type": "hello", "account": True}) as me:
                welcome = me.recv_until(lambda m: m["type"] == "welcome")
                assert welcome["seat"] == seat and welcome["rated"] is True
                assert [a["rating"] for a in welcome["accounts"]] == [1500, 1500]
                finals[seat] = play_until(me, lambda s: bool(s["match_over"]), random.Random(seat))
        except BaseException as exc:  # reported by the main thread
            errors.append(exc)

    threads = [
        threading.Thread(target=play, args=(alice, mine["seat"])),
        threading.Thread(target=play, args=(bobby, theirs["seat"])),
    ]
    with seat_socket(server, game_id, None, {"type": "hello", "watch": True}) as spectator:
        welcome = spectator.recv_until(lambda m: m["type"] == "welcome")
        assert welcome["seat"] is None
        assert [a["name"] for a in welcome["accounts"]] in (["alice", "Bobby"], ["Bobby", "alice"])
        for t in threads:
            t.start()
        spectator.recv_until(lambda m: m["type"] == "state" and m["match_over"], timeout=300)
    for t in threads:
        t.join(300)
    assert not errors, errors
    check_spectator(spectator.received, stored_record(server, game_id))
    winner = finals[0]["winner"]
    alice_won = 1.0 if winner == mine["seat"] else 0.0
    system = server.http().get("/api/rating-system").json()
    start = system["initial"]
    tau = system["tau"]
    expected_alice = glicko2(
        start["rating"],
        start["rd"],
        start["volatility"],
        [(start["rating"], start["rd"], alice_won)],
        tau,
    )
    expected_bobby = glicko2(
        start["rating"],
        start["rd"],
        start["volatility"],
        [(start["rating"], start["rd"], 1 - alice_won)],
        tau,
    )
    deadline = time.monotonic() + TIMEOUT
    while rating(server, "alice")["games"] == 0 and time.monotonic() < deadline:
        time.sleep(0.05)
    for name, expected in (("alice", expected_alice), ("bobby", expected_bobby)):
        profile = rating(server, name)
        assert profile["games"] == 1
        assert profile["rating"]["value"] == pytest.approx(expected[0], abs=0.01)
        assert profile["rating"]["rd"] == pytest.approx(expected[1], abs=0.01)
        assert profile["rating"]["volatility"] == pytest.approx(expected[2], abs=1e-6)
        assert profile["recent"] == [game_id]
        assert profile["history"][0]["rating"] == pytest.approx(expected[0], abs=0.01)
    assert rating(server, "alice")["wins"] == int(alice_won)


# -- accounts and sessions ------------------------------------------------------------------


def test_the_history_says_which_games_between_two_players_are_rated(server: LiveServer) -> None:
    alice, bobby = sign_up(server, "alice"), sign_up(server, "bobby")
    rated, _ = rated_game(server, alice, bobby)
    casual = server.new_game(mode="friend", name="Carole")
    with server.http() as client:
        games = {g["id"]: g for g in client.get("/api/games").json()["games"]}
    assert games[rated["id"]]["mode"] == games[casual["id"]]["mode"] == "friend"
    assert games[rated["id"]]["rated"] is True and games[casual["id"]]["rated"] is False


def test_an_account_is_created_logged_in_with_a_safe_cookie_and_logged_out(
    server: LiveServer,
) -> None:
    with server.http() as client:
        answer = client.post("/api/accounts", json={"name": "carol", "password": "12345678"})
        assert answer.status_code == 201
        cookie = answer.headers["set-cookie"].lower()
        assert "httponly" in cookie and "samesite=lax" in cookie and "secure" not in cookie
        assert client.get("/api/me").json()["account"]["name"] == "carol"
        assert client.request("DELETE", "/api/session", json={}).status_code == 200
        assert client.get("/api/me").json()["account"] is None
        again = client.post("/api/session", json={"name": "CAROL", "password": "12345678"})
        assert again.status_code == 200 and again.json()["account"]["name"] == "carol"


def test_a_name_is_unique_regardless_of_case_and_bad_names_and_passwords_are_refused(
    server: LiveServer,
) -> None:
    with server.http() as client:
        assert (
            client.post("/api/accounts", json={"name": "dave", "password": "x" * 8}).status_code
            == 201
        )
        for body, status, code in (
            ({"name": "DAVE", "password": "y" * 8}, 409, "name_taken"),
            ({"name": "a b", "password": "y" * 8}, 400, "bad_name"),
            ({"name": "erin", "password": "short"}, 400, "weak_password"),
            ({"name": 5, "password": "y" * 8}, 400, "bad_request"),
            ({"password": "y" * 8}, 400, "bad_request"),  # "'name' is missing: ..."
        ):
            answer = client.post("/api/accounts", json=body)
            assert answer.status_code == status, answer.text
            error = answer.json()["error"]
            assert error["code"] == code and "\n" not in error["message"]


def test_a_wrong_password_and_an_unknown_name_get_the_same_401(server: LiveServer) -> None:
    sign_up(server, "frank").close()
    with server.http() as client:
        wrong = client.post("/api/session", json={"name": "frank", "password": "wrong pass"})
        unknown = client.post("/api/session", json={"name": "nobody", "password": "wrong pass"})
    assert wrong.status_code == unknown.status_code == 401
    assert wrong.json() == unknown.json()


def test_logins_are_rate_limited_per_name(tmp_path: Path) -> None:
    config = fast_config(tmp_path / "w.sqlite3", rate_limits={"login": "3/minute"})
    with live_server(config) as server, server.http() as client:
        codes = [
            client.post("/api/session", json={"name": "gina", "password": "nope nope"}).status_code
            for _ in range(4)
        ]
        assert codes == [401, 401, 401, 429]


def test_mistyped_sign_ups_never_count_against_the_address_s_limit(tmp_path: Path) -> None:
    """Two people on one home connection: typos are refused for what they
    are, and only sign-ups that could succeed use the hourly allowance,
    whose wait is then told in minutes."""
    config = fast_config(tmp_path / "w.sqlite3", rate_limits={"signup": "2/hour"})
    with live_server(config) as server, server.http() as client:
        typos = [
            {"name": "Élodie.", "password": "long enough"},
            {"name": "jean pierre", "password": "long enough"},
            {"name": "ab", "password": "long enough"},
            {"name": "elodie", "password": "short"},
        ] * 3
        codes = [client.post("/api/accounts", json=body).status_code for body in typos]
        assert set(codes) == {400}, codes
        made = [
            client.post("/api/accounts", json={"name": name, "password": "long enough"})
            for name in ("elodie", "marc_92", "third")
        ]
        assert [a.status_code for a in made] == [201, 201, 429]
        error = made[2].json()["error"]
        assert error["key"] == "error.too_many_requests_minutes"
        assert 50 <= error["params"]["n"] <= 60 and "minutes" in error["message"]


def test_the_rating_system_is_served(server: LiveServer) -> None:
    system = server.http().get("/api/rating-system").json()
    assert system["initial"] == {"rating": 1500.0, "rd": 350.0, "volatility": 0.06}
    assert system["tau"] == 0.5


def test_an_unknown_player_is_a_404_in_one_line(server: LiveServer) -> None:
    for name in ("nobody", "a b", "x" * 300):
        answer = server.http().get(f"/api/players/{name}")
        assert answer.status_code == 404 and answer.json()["error"]["code"] == "no_player"
        assert "\n" not in answer.json()["error"]["message"]


def test_a_player_s_page_typed_without_accents_or_in_capitals_finds_the_player(
    server: LiveServer,
) -> None:
    """/players/amelie was "no such player" for Amélie: names that look
    alike belong to one account at most, so the look finds it."""
    sign_up(server, "Amélie")
    for typed in ("Amélie", "amélie", "amelie", "AMELIE"):
        answer = server.http().get(f"/api/players/{typed}")
        assert answer.status_code == 200 and answer.json()["name"] == "Amélie", typed
        assert server.http().get(f"/players/{typed}").status_code == 200, typed
    assert server.http().get("/api/players/amelia").status_code == 404


# -- the lobby -------------------------------------------------------------------------------


def test_a_rated_seek_needs_a_login(server: LiveServer) -> None:
    answer = server.http().post("/api/seeks", json={"rules": "classic", "rated": True})
    assert answer.status_code == 401 and answer.json()["error"]["code"] == "login_required"


def test_bad_seeks_get_one_line_400s(server: LiveServer) -> None:
    with server.http() as client:
        for body in (
            {"rated": "yes"},
            {"days_per_move": 0},
            {"days_per_move": 15},
            {"rules": {"target": -1}},
            {"rules": "nope"},
        ):
            answer = client.post("/api/seeks", json=body)
            assert answer.status_code == 400, (body, answer.text)
            assert "\n" not in answer.json()["error"]["message"]


def test_a_guest_may_not_post_accept_or_wait_under_an_accounts_name(server: LiveServer) -> None:
    """The lobby would show a stranger as that player: the name is refused,
    whatever its case and accents, and the account itself still posts under it."""
    owner = sign_up(server, "Amélie")
    with server.http() as guest:
        for path, body in (
            ("/api/seeks", {"name": "amélie"}),
            ("/api/play-now", {"name": "AMÉLIE"}),
            ("/api/seeks", {"name": "Amelie"}),  # looks the same, accents aside
        ):
            answer = guest.post(path, json=body)
            assert answer.status_code == 400, (path, answer.text)
            error = answer.json()["error"]
            assert error["code"] == "name_of_account" and error["params"] == {"name": body["name"]}
        seek = owner.post("/api/seeks", json={}).json()
        answer = guest.post(f"/api/seeks/{seek['id']}/accept", json={"name": "Amélie"})
        assert answer.json()["error"]["code"] == "name_of_account"
        assert guest.post(f"/api/seeks/{seek['id']}/accept", json={"name": "Amélie 2"}).is_success


def test_a_guest_may_not_take_a_name_the_pages_show_as_a_computer_or_a_deleted_player(
    server: LiveServer,
) -> None:
    """The pages translate these names ("deleted player" reads « joueur
    supprimé », "Expert" the level): a guest under one would pass for it."""
    with server.http() as guest:
        for name in ("deleted player", "Expert", "Skilled #2", "best (strong)", "friend"):
            answer = guest.post("/api/seeks", json={"name": name})
            assert answer.status_code == 400, (name, answer.text)
            assert answer.json()["error"]["code"] == "name_read_as_other"
        assert guest.post("/api/seeks", json={"name": "Expert Jo"}).is_success


def test_a_guest_may_not_take_the_french_reading_of_a_computer_or_a_deleted_player(
    server: LiveServer,
) -> None:
    """A French page shows the level "Skilled #2" as « Confirmé #2 » and a
    deleted account as « joueur supprimé »: a guest under one of those
    names passed for it on every French screen. A name that only starts
    like one is welcome."""
    with server.http() as guest:
        for name in ("Débutant", "Confirmé #2", "best (fort)", "pimc (le plus fort)",
                     "joueur supprimé", "ami", "vous", "Joueur",
                     "Vous", "You", "JOUEUR"):
            answer = guest.post("/api/seeks", json={"name": name})
            assert answer.status_code == 400, (name, answer.text)
            assert answer.json()["error"]["code"] == "name_read_as_other"
        assert guest.post("/api/seeks", json={"name": "Débutant Jo"}).is_success


def test_a_guest_may_not_pass_for_an_account_with_another_alphabet_s_letters(
    server: LiveServer,
) -> None:
    """"аlice" with a Cyrillic а is refused beside the account "alice", as
    any name mixing Latin and Cyrillic letters is (a refusal with its
    catalogue key, said in the player's language); a name in one alphabet
    that looks like no account is welcome."""
    sign_up(server, "alice"), sign_up(server, "Marc")
    with server.http() as guest:
        taken = guest.post("/api/seeks", json={"name": "Магс"})  # all Cyrillic
        assert taken.json()["error"]["code"] == "name_of_account"
        mixed = guest.post("/api/play-now", json={"name": "аlice"})
        error = mixed.json()["error"]
        assert (mixed.status_code, error["code"]) == (400, "mixed_scripts")
        assert error["params"] == {"name": "аlice"} and "alphabet" in error["message"]
        assert guest.post("/api/seeks", json={"name": "Иван"}).is_success


def test_a_guest_seek_is_listed_accepted_once_and_its_owner_learns_its_seat(
    server: LiveServer,
) -> None:
    with server.http() as owner, server.http() as other, server.http() as third:
        seek = owner.post("/api/seeks", json={"name": "Hal", "days_per_move": 2}).json()
        listed = owner.get("/api/lobby").json()["seeks"]
        assert [(s["id"], s["player"], s["rated"], s["days_per_move"]) for s in listed] == [
            (seek["id"], "Hal", False, 2)
        ]
        status = owner.get(f"/api/seeks/{seek['id']}", params={"token": seek["token"]}).json()
        assert status == {"id": seek["id"], "status": "open", "game": None}
        assert other.get(f"/api/seeks/{seek['id']}").status_code == 403
        seat = other.post(f"/api/seeks/{seek['id']}/accept", json={"name": "Ivy"}).json()
        assert set(seat) == {"id", "seat", "token", "url"}
        late = third.post(f"/api/seeks/{seek['id']}/accept", json={})
        assert late.status_code == 409 and late.json()["error"]["code"] == "seek_gone"
        status = owner.get(f"/api/seeks/{seek['id']}", params={"token": seek["token"]}).json()
        assert status["status"] == "matched"
        assert status["game"]["id"] == seat["id"] and status["game"]["seat"] == 1 - seat["seat"]
        assert owner.get("/api/lobby").json()["seeks"] == []
        # both tokens hold their seats
        with seat_socket(
            server, seat["id"], None, {"type": "hello", "token": status["game"]["token"]}
        ) as me:
            assert me.recv_until(lambda m: m["type"] == "welcome")["seat"] == status["game"]["seat"]


def test_a_game_found_online_is_rematched_by_an_offer_the_other_seat_takes(
    server: LiveServer,
) -> None:
    """Never by a friend's table: its invite link would reach nobody from the lobby."""
    with server.http() as owner, server.http() as other:
        seek = owner.post("/api/seeks", json={"name": "Hal", "rules": SHORT}).json()
        seat = other.post(f"/api/seeks/{seek['id']}/accept", json={"name": "Ivy"}).json()
        mine = owner.get(f"/api/seeks/{seek['id']}", params={"token": seek["token"]}).json()["game"]
        finals: dict[int, dict[str, Any]] = {}
        errors: list[BaseException] = []

        def play(held: dict[str, Any]) -> None:
            try:
                hello = {"type": "hello", "token": held["token"]}
                with seat_socket(server, held["id"], None, hello) as me:
                    welcome = me.recv_until(lambda m: m["type"] == "welcome")
                    assert welcome["paired"] is True
                    rng = random.Random(held["seat"])
                    finals[held["seat"]] = play_until(me, lambda s: bool(s["match_over"]), rng)
            except BaseException as exc:  # reported by the main thread
                errors.append(exc)

        threads = [threading.Thread(target=play, args=(held,)) for held in (mine, seat)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(300)
        assert not errors, errors and finals[0]["match_over"]
        url = f"/api/games/{seat['id']}/rematch"
        asked = other.post(url, json={"token": seat["token"]})
        assert asked.status_code == 200, asked.text
        offered = asked.json()
        assert offered["status"] == "offered" and offered["token"]
        assert (offered["offer"]["name"], offered["offer"]["mine"]) == ("Ivy", True)
        assert owner.get("/api/lobby").json()["seeks"] == []  # a rematch is never listed
        news = owner.post(f"{url}/status", json={"token": mine["token"]}).json()
        assert (news["offer"]["name"], news["offer"]["mine"], news["game"]) == ("Ivy", False, None)
        took = owner.post(url, json={"token": mine["token"]}).json()
        assert took["status"] == "matched"
        theirs = other.post(
            f"{url}/status", json={"token": seat["token"], "owner": offered["token"]}
        ).json()["game"]
        assert theirs["id"] == took["game"]["id"] and theirs["seat"] == 1 - took["game"]["seat"]
        for held in (took["game"], theirs):  # both tokens hold their seats at the new table
            hello = {"type": "hello", "token": held["token"]}
            with seat_socket(server, held["id"], None, hello) as me:
                welcome = me.recv_until(lambda m: m["type"] == "welcome")
                assert welcome["seat"] == held["seat"] and welcome["paired"] is True
        listed = other.get("/api/games").json()["games"]
        # no table left waiting for "a friend"
        assert {g["id"] for g in listed} == {seat["id"], theirs["id"]}


def test_a_rated_rematch_between_accounts_may_be_declined_then_offered_back_and_taken(
    server: LiveServer,
) -> None:
    kim, lou = sign_up(server, "kim"), sign_up(server, "lou")
    mine, _ = rated_game(server, kim, lou)
    url = f"/api/games/{mine['id']}/rematch"
    early = kim.post(url, json={})  # the account's session proves the seat: no token
    assert early.status_code == 409 and early.json()["error"]["code"] == "not_over"
    resign(server, mine["id"], kim)
    offered = kim.post(url, json={}).json()
    assert offered["status"] == "offered" and offered["offer"]["rated"] is True
    assert kim.post(url, json={}).json()["offer"]["id"] == offered["offer"]["id"]  # one offer
    with server.http() as stranger:
        assert stranger.post(url, json={}).json()["error"]["code"] == "bad_token"
        taken = stranger.post(f"/api/seeks/{offered['offer']['id']}/accept", json={"name": "Zed"})
        assert taken.status_code == 404  # only the other seat takes a rematch offer
    news = lou.post(f"{url}/status", json={}).json()
    assert (news["offer"]["name"], news["offer"]["mine"]) == ("kim", False)
    lous, kims = lou.get("/api/me/games").json(), kim.get("/api/me/games").json()
    assert [(g["rematch_offered"], g["my_turn"]) for g in lous["games"]] == [(True, True)]
    assert lous["waiting"] == lou.get("/api/me").json()["waiting"] == 1  # counted as waiting
    assert [(g["rematch_offered"], kims["waiting"]) for g in kims["games"]] == [(False, 0)]
    declined = lou.request("DELETE", url, json={}).json()
    assert declined["offer"]["status"] == "declined"
    assert lou.get("/api/me").json()["waiting"] == 0  # answered
    assert kim.post(f"{url}/status", json={}).json()["offer"]["status"] == "declined"
    withdrawn = kim.post(url, json={}).json()["offer"]  # offered again, then withdrawn
    assert kim.request("DELETE", url, json={}).json()["offer"]["status"] == "cancelled"
    assert lou.post(f"{url}/status", json={}).json()["offer"]["id"] == withdrawn["id"]
    back = lou.post(url, json={}).json()  # lou offers one in turn, and kim takes it
    assert (back["status"], back["offer"]["name"]) == ("offered", "lou")
    took = kim.post(url, json={}).json()
    assert took["status"] == "matched"
    new_id = took["game"]["id"]
    assert lou.post(f"{url}/status", json={}).json()["game"]["id"] == new_id
    for client in (kim, lou):  # both accounts hold a seat of the new game, rated again
        with seat_socket(server, new_id, client, {"type": "hello", "account": True}) as seat:
            welcome = seat.recv_until(lambda m: m["type"] == "welcome")
            assert welcome["rated"] is True and welcome["paired"] is True


def test_a_rated_game_opened_later_tells_the_rating_it_left_beside_its_change(
    server: LiveServer,
) -> None:
    """The end of the first match read "rating 1567 (-162)" once a second
    game had moved the rating on: now the rating after that match, 1338."""
    kim, lou = sign_up(server, "kim"), sign_up(server, "lou")
    first = rated_game(server, kim, lou)[0]
    resign(server, first["id"], kim)
    second = rated_game(server, kim, lou)[0]
    resign(server, second["id"], lou)  # kim wins this one: her rating goes back up
    with seat_socket(server, first["id"], kim, {"type": "hello", "account": True}) as seat:
        told = seat.recv_until(lambda m: m["type"] == "welcome")["accounts"]
    hers = told[first["seat"]]
    assert hers["change"] < 0 and hers["after"] == 1500 + hers["change"], hers
    assert hers["provisional_after"] is True
    assert hers["rating"] > hers["after"]  # the rating now, after the second game


def test_no_rematch_is_offered_to_a_player_who_deleted_their_account(
    server: LiveServer,
) -> None:
    """The offer would wait for nobody until it expired: refused, in words."""
    kim, lou = sign_up(server, "kim"), sign_up(server, "lou")
    mine, _ = rated_game(server, kim, lou)
    resign(server, mine["id"], kim)
    assert lou.request("DELETE", "/api/me", json={"password": "correct horse"}).is_success
    refused = kim.post(f"/api/games/{mine['id']}/rematch", json={})
    assert refused.status_code == 409, refused.text
    error = refused.json()["error"]
    assert (error["code"], error["key"]) == ("no_rematch", "error.rematch_deleted")
    assert "deleted their account" in error["message"]


def test_in_a_rematch_of_a_game_found_online_the_other_player_deals_first(
    server: LiveServer,
) -> None:
    """As a friend's rematch: seats are drawn again, the first dealer is not
    (drawn at random, the same player dealt first again one rematch in two)."""
    kim, lou = sign_up(server, "kim"), sign_up(server, "lou")
    game_id = rated_game(server, kim, lou)[0]["id"]
    dealers = []
    for offerer, taker in ((kim, lou), (lou, kim), (kim, lou), (lou, kim), (kim, lou)):
        resign(server, game_id, offerer)
        url = f"/api/games/{game_id}/rematch"
        assert offerer.post(url, json={}).json()["status"] == "offered"
        took = taker.post(url, json={"take": True}).json()
        assert took["status"] == "matched", took
        for held in (game_id, took["game"]["id"]):
            row = read_stored(server, held)
            assert row is not None
            dealers.append(row.players[row.first_dealer])
        game_id = took["game"]["id"]
    pairs = list(zip(dealers[::2], dealers[1::2], strict=True))
    assert all(before != after for before, after in pairs), pairs


def test_an_accept_pressed_after_the_offer_was_withdrawn_never_offers_the_other_way(
    server: LiveServer,
) -> None:
    """An Accept button asks only to take the other seat's offer (``take``):
    pressed on a page that had not yet heard of a withdrawal, it is refused,
    where a plain rematch request would have made an offer the other way."""
    pia, rex = sign_up(server, "pia"), sign_up(server, "rex")
    mine, _ = rated_game(server, pia, rex)
    resign(server, mine["id"], rex)
    url = f"/api/games/{mine['id']}/rematch"
    assert rex.post(url, json={"take": True}).json()["error"]["code"] == "seek_gone"  # none yet
    pia.post(url, json={})
    pias = pia.get("/api/me/games").json()["games"]
    assert [(g["rematch_mine"], g["rematch_offered"]) for g in pias] == [(True, False)]
    offers = [c.get("/api/me/offers").json()["offers"] for c in (pia, rex)]  # (the light asking)
    assert offers == [{mine["id"]: "mine"}, {mine["id"]: "theirs"}]
    assert pia.request("DELETE", url, json={}).json()["offer"]["status"] == "cancelled"
    assert rex.get("/api/me/offers").json() == {"offers": {}}
    late = rex.post(url, json={"take": True})
    assert late.status_code == 409 and late.json()["error"]["code"] == "seek_gone", late.text
    news = pia.post(f"{url}/status", json={}).json()
    assert news["offer"]["status"] == "cancelled" and news["game"] is None  # nothing offered
    assert [g["rematch_offered"] for g in pia.get("/api/me/games").json()["games"]] == [False]
    for junk in ("yes", 1, None):
        refused = rex.post(url, json={"take": junk})
        assert refused.status_code == 400 and "'take'" in refused.json()["error"]["message"]
    pia.post(url, json={})  # offered again: now the Accept takes it
    took = rex.post(url, json={"take": True}).json()
    assert took["status"] == "matched" and took["game"]["id"] != mine["id"]


def test_two_seats_offering_a_rematch_at_once_make_one_game(server: LiveServer) -> None:
    one, two = sign_up(server, "uno"), sign_up(server, "dos")
    for _ in range(3):  # each time the two requests race; one game whoever wins
        mine, _ = rated_game(server, one, two)
        resign(server, mine["id"], two)
        url = f"/api/games/{mine['id']}/rematch"
        answers = race_rematch(url, one, two)
        assert sorted(a["status"] for a in answers) == ["matched", "offered"], answers
        games = {c.post(f"{url}/status", json={}).json()["game"]["id"] for c in (one, two)}
        assert len(games) == 1  # both seated at the one new game


def race_rematch(url: str, *clients: httpx.Client) -> list[dict[str, Any]]:
    """The clients' rematch requests sent at the same moment; their answers."""
    asks = [lambda c=client: c.post(url, json={}).json() for client in clients]
    return at_once(*asks)


def test_a_match_ended_by_a_forfeit_against_a_bot_or_a_friend_is_rematched_at_once(
    server: LiveServer,
) -> None:
    """A resignation ends the match as surely as its last deal: the rematch
    opens the new table (it said "the match is not over yet")."""
    for mode in ("bot", "friend"):
        game = server.new_game(mode=mode, name="Ann", rules=SHORT)
        with seat_socket(server, game["id"], None, {"type": "hello", "token": game["token"]}) as me:
            me.recv_until(lambda m: m["type"] == "welcome")
            if mode == "bot":  # (a friend game waiting for its friend is resigned as well)
                me.next_state()
            me.send({"type": "resign"})
            me.recv_until(lambda m: m["type"] == "state" and m["match_over"])
        url = f"/api/games/{game['id']}/rematch"
        again = server.http().post(url, json={"token": game["token"]})
        assert again.status_code == 200, (mode, again.text)
        assert again.json()["id"] != game["id"] and again.json()["token"]
    unfinished = server.new_game(mode="bot", name="Ann", rules=SHORT)
    early = server.http().post(
        f"/api/games/{unfinished['id']}/rematch", json={"token": unfinished["token"]}
    )
    assert early.status_code == 409 and early.json()["error"]["code"] == "not_over"


def test_a_friend_game_has_no_rematch_offer_to_follow(server: LiveServer) -> None:
    """Its rematch is made at once, with an invite link (hub.rematch)."""
    game = server.new_game(mode="friend", name="Ann", rules=SHORT)
    with server.http() as client:
        news = client.post(f"/api/games/{game['id']}/rematch/status", json={"token": game["token"]})
        take = client.post(
            f"/api/games/{game['id']}/rematch", json={"token": game["token"], "take": True}
        )  # an Accept never opens a table: a friend's rematch has no offer to take
    assert news.status_code == 409 and news.json()["error"]["code"] == "no_rematch"
    assert take.status_code == 409 and take.json()["error"]["code"] == "no_rematch"


def test_a_rematch_offer_left_unanswered_expires_and_cannot_be_taken_after(
    tmp_path: Path,
) -> None:
    """Else a player who offered and left could be seated at a game lost by absence."""
    with live_server(fast_config(tmp_path / "w.sqlite3", rematch_wait=0.5)) as server:
        moe, ned = sign_up(server, "moe"), sign_up(server, "ned")
        mine, _ = rated_game(server, moe, ned)
        resign(server, mine["id"], ned)
        url = f"/api/games/{mine['id']}/rematch"
        first = moe.post(url, json={}).json()["offer"]
        time.sleep(0.8)
        assert ned.post(f"{url}/status", json={}).json()["offer"]["status"] == "expired"
        answer = ned.post(url, json={}).json()  # a new offer of ned's, not a game
        assert answer["status"] == "offered" and answer["offer"]["name"] == "ned"
        assert answer["offer"]["id"] != first["id"]


def test_only_the_owner_withdraws_a_seek_and_nobody_accepts_their_own(server: LiveServer) -> None:
    jack = sign_up(server, "jack")
    seek = jack.post("/api/seeks", json={"rules": "classic", "rated": True}).json()
    assert jack.post(f"/api/seeks/{seek['id']}/accept", json={}).status_code == 409
    with server.http() as stranger:
        gone = stranger.request("DELETE", f"/api/seeks/{seek['id']}", json={"token": "forged"})
        assert gone.status_code == 403
    assert jack.request("DELETE", f"/api/seeks/{seek['id']}", json={}).status_code == 200
    assert jack.get("/api/lobby").json()["seeks"] == []
    assert server.http().post("/api/seeks/nope/accept", json={}).status_code == 404


# -- my games, leaving, claiming, restarts ---------------------------------------------------


def test_my_games_say_whose_turn_it_is_and_the_account_opens_its_seat_anywhere(
    server: LiveServer,
) -> None:
    kim, lee = sign_up(server, "kim"), sign_up(server, "lee")
    mine, _ = rated_game(server, kim, lee, days_per_move=3)
    kims = kim.get("/api/me/games").json()
    lees = lee.get("/api/me/games").json()
    assert [g["id"] for g in kims["games"]] == [mine["id"]]
    assert kims["games"][0]["my_turn"] != lees["games"][0]["my_turn"]
    assert not kims["games"][0]["forfeit"]
    assert kims["games"][0]["deadline"] is not None
    assert kims["waiting"] + lees["waiting"] == 1
    assert kim.get("/api/me").json()["waiting"] == kims["waiting"]
    # another browser of kim's: logging in again is enough
    with server.http() as elsewhere:
        elsewhere.post("/api/session", json={"name": "kim", "password": "correct horse"})
        with seat_socket(server, mine["id"], elsewhere, {"type": "hello", "account": True}) as me:
            assert me.recv_until(lambda m: m["type"] == "welcome")["seat"] == mine["seat"]
            state = me.next_state()
            assert 2.9 * 86_400 < state["deadline"] - time.time() <= 3 * 86_400
            # one stamp, whether the table or the list of my games says it
            assert state["deadline"] == kims["games"][0]["deadline"]
            me.send({"type": "claim"})  # nobody is late: no claim, even with lee away
            assert me.error()["code"] == "cannot_claim"
    with server.http() as guest:
        assert guest.get("/api/me/games").status_code == 401
        with seat_socket(server, mine["id"], None, {"type": "hello", "account": True}) as me:
            assert me.error()["code"] == "login_required"


def test_an_ended_session_s_cookie_is_told_so_at_the_account_s_table_not_just_to_log_in(
    server: LiveServer,
) -> None:
    """A device whose session ended (logged out from another one) is told
    ``session_ended``, so that its page says it is no longer logged in; a
    browser that never was is told ``login_required``."""
    kim, lee = sign_up(server, "kim"), sign_up(server, "lee")
    mine, _ = rated_game(server, kim, lee, days_per_move=3)
    with server.http() as elsewhere:
        elsewhere.post("/api/session", json={"name": "kim", "password": "correct horse"})
        assert kim.request("DELETE", "/api/me/sessions", json={}).json() == {"ended": 1}
        with seat_socket(server, mine["id"], elsewhere, {"type": "hello", "account": True}) as me:
            assert me.error()["code"] == "session_ended"
    with seat_socket(server, mine["id"], None, {"type": "hello", "account": True}) as me:
        assert me.error()["code"] == "login_required"


def pass_the_turn(server: LiveServer, game_id: str, mover: httpx.Client) -> None:
    """The mover's account plays until it is no longer its turn."""
    with account_seat(server, game_id, mover) as me:
        me.next_state()
        assert me.my_turn() and me.state is not None
        while me.my_turn() and me.state is not None:
            me.act(me.state["legal"][0]["action"])
            me.next_state()


def test_the_count_of_games_waiting_follows_the_turn_and_the_player_s_lobby_socket_hears_it(
    server: LiveServer,
) -> None:
    kim, lee = sign_up(server, "kim"), sign_up(server, "lee")
    game, _ = rated_game(server, kim, lee, days_per_move=3)
    waiting = {name: c.get("/api/me").json()["waiting"] for name, c in (("kim", kim), ("lee", lee))}
    assert sorted(waiting.values()) == [0, 1]
    mover, other = (kim, lee) if waiting["kim"] else (lee, kim)
    cookie = {"Cookie": f"{SESSION_COOKIE}={other.cookies[SESSION_COOKIE]}"}
    with connect(f"{server.ws_base}/ws/lobby", additional_headers=cookie) as theirs, connect(
        f"{server.ws_base}/ws/lobby"
    ) as visitor:
        pass_the_turn(server, game["id"], mover)
        assert json.loads(theirs.recv(timeout=TIMEOUT)) == {"type": "turn"}
        visitor.send("not json")  # a visitor's socket hears no game's turn: the answer comes first
        assert json.loads(visitor.recv(timeout=TIMEOUT))["type"] == "error"
    assert mover.get("/api/me").json()["waiting"] == 0
    assert other.get("/api/me").json()["waiting"] == 1
    assert other.get("/api/me/games").json()["waiting"] == 1  # the list says the same


def test_after_a_correspondence_move_the_table_shows_the_stored_deadline(
    server: LiveServer,
) -> None:
    oda, pia = sign_up(server, "oda"), sign_up(server, "pia")
    first, second = rated_game(server, oda, pia, days_per_move=2)
    for client, seat in ((oda, first), (pia, second)):
        with seat_socket(server, seat["id"], client, {"type": "hello", "account": True}) as me:
            me.recv_until(lambda m: m["type"] == "welcome")
            state = me.next_state()
            if not me.my_turn():
                continue
            me.act(state["legal"][0]["action"])  # the move restarts the clock
            me.state = None
            moved = me.next_state()
            stored = read_stored(server, seat["id"])  # what every other process reads
            assert stored is not None
            assert moved["deadline"] == move_deadline(stored.updated, 2), (moved, stored.updated)
            return
    raise AssertionError("neither seat was to move")


def test_a_player_who_leaves_can_be_claimed_after_the_grace_and_the_claim_is_rated(
    server: LiveServer,
) -> None:
    mia, ned = sign_up(server, "mia"), sign_up(server, "ned")
    mine, theirs = rated_game(server, mia, ned)
    with account_seat(server, mine["id"], mia) as me:
        with account_seat(server, mine["id"], ned) as other:
            first_moves(me, other)  # ned took part: leaving now loses the game
            me.send({"type": "claim"})
            assert me.error()["code"] == "cannot_claim"  # the opponent is here
        away = me.recv_until(
            lambda m: m["type"] == "presence" and m["away"][theirs["seat"]] is not None
        )
        assert 0 < away["away"][theirs["seat"]] <= 0.5
        time.sleep(0.6)
        me.send({"type": "claim"})
        final = me.recv_until(lambda m: m["type"] == "state" and m["match_over"])
        assert final["winner"] == mine["seat"]
        told = me.recv_until(lambda m: m["type"] == "accounts")["accounts"]  # the new ratings
        assert told[mine["seat"]]["name"] == "mia" and told[mine["seat"]]["change"] > 0
        assert told[theirs["seat"]]["change"] == -told[mine["seat"]]["change"]
        assert told[mine["seat"]]["rating"] == 1500 + told[mine["seat"]]["change"]
    deadline = time.monotonic() + TIMEOUT
    while rating(server, "mia")["games"] == 0 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert rating(server, "mia")["wins"] == 1 and rating(server, "ned")["losses"] == 1
    assert (
        rating(server, "mia")["rating"]["value"] > 1500 > rating(server, "ned")["rating"]["value"]
    )
    # the game lists say the result came by forfeit
    listed = mia.get("/api/me/games").json()["games"]
    assert [(g["winner"], g["forfeit"], g["resigned"]) for g in listed] == [
        (mine["seat"], True, False)]  # left, not resigned
    recent = rating(server, "ned")["recent_games"]
    assert [(g["result"], g["forfeit"], g["resigned"]) for g in recent] == [("loss", True, False)]


def test_the_game_lists_tell_a_resignation_from_another_forfeit(server: LiveServer) -> None:
    # « gagnée par forfait » was said of a game the other player resigned
    kim, lou = sign_up(server, "kim"), sign_up(server, "lou")
    mine, _ = rated_game(server, kim, lou)
    resign(server, mine["id"], lou)
    listed = kim.get("/api/me/games").json()["games"]
    assert [(g["winner"], g["forfeit"], g["resigned"]) for g in listed] == [
        (mine["seat"], True, True)]
    deadline = time.monotonic() + TIMEOUT
    while rating(server, "lou")["games"] == 0 and time.monotonic() < deadline:
        time.sleep(0.05)
    recent = rating(server, "lou")["recent_games"]
    assert [(g["result"], g["forfeit"], g["resigned"]) for g in recent] == [("loss", True, True)]


def test_a_live_player_who_stays_but_never_moves_can_be_claimed_after_the_move_limit(
    tmp_path: Path,
) -> None:
    """Being at the table is not enough: a live game's move has
    ``move_limit`` seconds, and the deadline restarts with each move."""
    config = fast_config(tmp_path / "w.sqlite3", away_grace=60, move_limit=1.5)
    with live_server(config) as server:
        ada, bea = sign_up(server, "ada"), sign_up(server, "bea")
        mine, theirs = rated_game(server, ada, bea)
        with (
            account_seat(server, mine["id"], ada) as me,
            account_seat(server, mine["id"], bea) as other,
        ):
            state = me.next_state()
            other.next_state()
            assert 0 < state["deadline"] - time.time() <= 1.5
            state = first_moves(me, other)  # late after a first move: a loss, not an abort
            mover, waiter = (me, other) if me.my_turn() else (other, me)
            waiter.send({"type": "claim"})  # the mover is here and in time
            assert waiter.error()["code"] == "cannot_claim"
            assert mover.state is not None
            mover.act(mover.state["legal"][0]["action"])  # the clock restarts
            mover.state = waiter.state = None
            after = waiter.next_state()
            mover.next_state()  # (after a trick, its winner may be to move again)
            assert after["deadline"] > state["deadline"]
            mover, waiter = (me, other) if me.my_turn() else (other, me)
            time.sleep(max(0.0, after["deadline"] - time.time()) + 0.2)
            waiter.send({"type": "claim"})
            final = waiter.recv_until(lambda m: m["type"] == "state" and m["match_over"])
            seats = {id(me): mine["seat"], id(other): theirs["seat"]}
            assert final["winner"] == seats[id(waiter)] and final["deadline"] is None
            assert final["forfeit"]["reason"] == "did not move in time"  # not "left the game"


def test_a_game_both_players_left_is_ended_on_time_by_the_server_and_rated(
    tmp_path: Path,
) -> None:
    """Nobody claimed it: once the mover's deadline is ``abandon_after``
    seconds past, the server ends the game itself, lost on time by the
    player to move, and rates it; a game still within its time stays."""
    config = fast_config(
        tmp_path / "a.sqlite3", move_limit=0.5, abandon_after=0.5, abandon_check=0.2
    )
    with live_server(config) as server:
        ada, bea = sign_up(server, "ada"), sign_up(server, "bea")
        mine, _ = rated_game(server, ada, bea)
        with (
            account_seat(server, mine["id"], ada) as me,
            account_seat(server, mine["id"], bea) as it,
        ):
            moved = first_moves(me, it)  # both took part, then both leave
        deadline = time.monotonic() + 30
        while rating(server, "ada")["games"] == 0 and time.monotonic() < deadline:
            time.sleep(0.1)  # rated once the sweep ended it
        with account_seat(server, mine["id"], ada) as me:
            final = me.recv_until(lambda m: m["type"] == "state")
        assert final["match_over"] and final["forfeit"]["reason"] == "did not move in time"
        assert final["forfeit"]["seat"] == moved["to_move"]
        assert rating(server, "ada")["games"] == rating(server, "bea")["games"] == 1
    later = fast_config(tmp_path / "b.sqlite3", move_limit=0.5, abandon_check=0.1)
    with live_server(later) as server:  # the same, but a day past the deadline
        ada, bea = sign_up(server, "ada"), sign_up(server, "bea")
        mine, _ = rated_game(server, ada, bea)
        time.sleep(1.5)  # the sweep looked many times: the deadline is past, not by a day
        with account_seat(server, mine["id"], ada) as me:
            assert not me.recv_until(lambda m: m["type"] == "state")["match_over"]


def test_a_rated_game_nobody_ever_came_to_is_aborted_by_the_server_and_never_rated(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Accepted, then neither player came: the server ends it once the
    first mover's deadline is past, as a game with no result (no winner,
    no rating change, counted in neither player's games)."""
    seen = spy_on_ratings(monkeypatch)
    config = fast_config(
        tmp_path / "a.sqlite3", move_limit=0.5, abandon_after=0.5, abandon_check=0.2
    )
    with live_server(config) as server:
        ada, bea = sign_up(server, "ada"), sign_up(server, "bea")
        mine, _ = rated_game(server, ada, bea)  # nobody ever sits down
        deadline = time.monotonic() + 30
        while not ended(server, mine["id"]) and time.monotonic() < deadline:
            time.sleep(0.1)
        with account_seat(server, mine["id"], ada) as me:
            final = me.recv_until(lambda m: m["type"] == "state")
        assert final["match_over"] and final["winner"] is None
        assert final["forfeit"]["winner"] is None
        assert final["forfeit"]["seat"] == 1 - final["dealer"]  # the first lead was never played
        time.sleep(0.5)  # (a rating would have come by now)
        for name in ("ada", "bea"):
            profile = rating(server, name)
            assert (profile["games"], profile["wins"], profile["losses"]) == (0, 0, 0)
            assert profile["rating"]["value"] == 1500 and profile["history"] == []
            assert [g["aborted"] for g in profile["recent_games"]] == [True]
        assert [g["aborted"] for g in ada.get("/api/me/games").json()["games"]] == [True]
    assert seen == []


def spy_on_ratings(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The games :meth:`Accounts.record_result` is asked to rate, from now on."""
    from marjolet.web.accounts import Accounts

    seen: list[str] = []
    record = Accounts.record_result

    def spied(self: Accounts, game_id: str, *args: Any) -> bool:
        seen.append(game_id)
        return record(self, game_id, *args)

    monkeypatch.setattr(Accounts, "record_result", spied)
    return seen


def ended(server: LiveServer, game_id: str) -> bool:
    stored = read_stored(server, game_id)
    return stored is not None and stored.status == "finished"


def test_a_claim_against_a_player_who_never_moved_cancels_the_game_unrated(
    database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Bea accepted and never came: Ada's claim aborts the game. Both
    pages hear it has no result, it is stored finished with no winner,
    and no rating, count or history of either account changes."""
    seen = spy_on_ratings(monkeypatch)
    with live_server(fast_config(database_url, away_grace=0.3)) as server:
        ada, bea = sign_up(server, "ada"), sign_up(server, "bea")
        mine, theirs = rated_game(server, ada, bea)
        with account_seat(server, mine["id"], ada) as me:
            with account_seat(server, mine["id"], bea) as other:
                state = other.next_state()  # Bea sat down a moment, then closed the tab
                assert state["moved"] == [False, False]
            me.recv_until(
                lambda m: m["type"] == "presence" and m["away"][theirs["seat"]] is not None
            )
            time.sleep(0.4)
            me.send({"type": "claim"})
            final = me.recv_until(lambda m: m["type"] == "state" and m["match_over"])
            notice = next(json.loads(t) for t in me.received if '"notice"' in t)
        assert final["winner"] is None and final["forfeit"]["seat"] == theirs["seat"]
        assert final["forfeit"]["winner"] is None
        assert (notice["key"], notice["params"]) == (
            "notice.aborted", {"name": "bea", "seat": theirs["seat"]}
        )
        stored = read_stored(server, mine["id"])
        assert stored is not None and stored.status == "finished" and stored.winner is None
        assert stored.forfeit is not None and stored.forfeit.aborted
        with account_seat(server, mine["id"], bea) as back:  # too late: nothing to play
            assert back.next_state()["forfeit"]["winner"] is None
            back.send({"type": "resign"})
            assert back.error()["key"] == "error.match_aborted"
        time.sleep(0.5)  # (a rating would have come by now)
        for name in ("ada", "bea"):
            profile = rating(server, name)
            assert (profile["games"], profile["wins"], profile["losses"]) == (0, 0, 0)
            assert profile["recent_games"][0]["result"] is None
            assert profile["recent_games"][0]["aborted"] is True
    assert seen == []
    with live_server(fast_config(database_url)) as server:  # nor at the next start
        assert rating(server, "ada")["games"] == 0
    assert seen == []


def test_a_player_who_leaves_before_their_first_move_and_comes_back_in_time_plays_on(
    server: LiveServer,
) -> None:
    kit, lou = sign_up(server, "kit"), sign_up(server, "lou")
    mine, theirs = rated_game(server, kit, lou)
    with account_seat(server, mine["id"], kit) as me:
        with account_seat(server, mine["id"], lou):
            pass  # lou opens the table and closes it at once
        me.recv_until(lambda m: m["type"] == "presence" and m["away"][theirs["seat"]] is not None)
        with account_seat(server, mine["id"], lou) as back:  # back within the grace
            me.recv_until(lambda m: m["type"] == "presence" and m["away"][theirs["seat"]] is None)
            time.sleep(0.6)  # the grace would be over by now
            me.send({"type": "claim"})
            assert me.error()["code"] == "cannot_claim"
            moved = first_moves(me, back)  # and the game goes on as if nothing happened
            assert moved["moved"] == [True, True] and not moved["match_over"]


def test_a_player_who_resigns_loses_the_match_and_it_is_rated(server: LiveServer) -> None:
    una, vic = sign_up(server, "una"), sign_up(server, "vic")
    mine, theirs = rated_game(server, una, vic)
    with (
        account_seat(server, mine["id"], una) as me,
        account_seat(server, mine["id"], vic) as other,
    ):
        me.send({"type": "resign"})
        final = other.recv_until(lambda m: m["type"] == "state" and m["match_over"])
        assert final["winner"] == theirs["seat"]
        assert final["forfeit"]["seat"] == mine["seat"]
        assert (final["forfeit"]["bot"], final["forfeit"]["reason"]) == ("", "resigned")
        notices = [json.loads(t) for t in other.received if '"notice"' in t]
        assert [(n["key"], n["params"]) for n in notices] == [
            ("notice.resigned", {"name": "una", "winner": "vic", "seat": mine["seat"]})
        ]
        me.send({"type": "resign"})  # twice: the match is over already
        assert me.error()["code"] == "match_over"
    deadline = time.monotonic() + TIMEOUT
    while rating(server, "vic")["games"] == 0 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert rating(server, "vic")["wins"] == 1 and rating(server, "una")["losses"] == 1


def test_a_rated_game_gives_no_hint_and_no_review_before_its_end(server: LiveServer) -> None:
    """A rating measures the player alone: no advice from the bots while it is played."""
    wes, xia = sign_up(server, "wes"), sign_up(server, "xia")
    mine, _ = rated_game(server, wes, xia)
    with account_seat(server, mine["id"], wes) as me:
        me.send({"type": "hint"})
        assert me.error()["code"] == "hint_rated"
    refused = wes.post(f"/api/games/{mine['id']}/review", json={})
    assert refused.status_code == 409
    assert refused.json()["error"]["key"] == "error.review_rated"


def test_a_casual_game_against_a_stranger_found_online_gives_no_hint(
    server: LiveServer,
) -> None:
    """The other player expects to play a person alone, rated or not; a game
    against a bot, or between friends, keeps its hints."""
    with server.http() as owner, server.http() as other:
        seek = owner.post("/api/seeks", json={"name": "Yan", "rules": SHORT}).json()
        seat = other.post(f"/api/seeks/{seek['id']}/accept", json={"name": "Zoe"}).json()
        with seat_socket(server, seat["id"], None, {"type": "hello", "token": seat["token"]}) as me:
            welcome = me.recv_until(lambda m: m["type"] == "welcome")
            assert (welcome["paired"], welcome["rated"], welcome["hints"]) == (True, False, False)
            me.send({"type": "hint"})
            assert me.error()["code"] == "hint_online"
    for mode in ("bot", "friend"):
        game = server.new_game(mode=mode, name="Ann", rules=SHORT)
        with seat_socket(server, game["id"], None, {"type": "hello", "token": game["token"]}) as me:
            assert me.recv_until(lambda m: m["type"] == "welcome")["hints"] is True, mode


def test_a_result_not_rated_before_a_restart_is_rated_once_at_start(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = tmp_path / "w.sqlite3"

    async def lost(self: Online, table: object) -> None:
        return None  # the server stops before rating

    with monkeypatch.context() as patch:
        patch.setattr(Online, "finished", lost)
        with live_server(fast_config(db, away_grace=0.0)) as server:
            oz, pat = sign_up(server, "ozzy"), sign_up(server, "pat")
            mine, _ = rated_game(server, oz, pat)
            with seat_socket(server, mine["id"], oz, {"type": "hello", "account": True}) as me:
                with account_seat(server, mine["id"], pat) as other:
                    me.recv_until(lambda m: m["type"] == "welcome")
                    first_moves(me, other)  # pat took part, then leaves
                me.recv_until(
                    lambda m: m["type"] == "presence" and any(v is not None for v in m["away"])
                )
                me.send({"type": "claim"})
                me.recv_until(lambda m: m["type"] == "state" and m["match_over"])
            assert rating(server, "ozzy")["games"] == 0
    for _ in range(2):  # rated at the first start, not again at the second
        with live_server(fast_config(db)) as server:
            assert rating(server, "ozzy")["games"] == 1 and rating(server, "pat")["games"] == 1


# -- "Play now" ------------------------------------------------------------------------------


def test_play_now_pairs_two_waiting_players_and_gives_a_bot_after_the_chosen_wait(
    tmp_path: Path,
) -> None:
    with live_server(fast_config(tmp_path / "w.sqlite3", pairing_interval=0.05)) as server:
        client = server.http()
        a = client.post("/api/play-now", json={"name": "A"}).json()
        b = client.post("/api/play-now", json={"name": "B"}).json()
        c = client.post(
            "/api/play-now", json={"name": "C", "rules": SHORT, "bot_after": 0.2}
        ).json()
        found: dict[str, dict[str, Any]] = {}
        deadline = time.monotonic() + TIMEOUT
        while len(found) < 3 and time.monotonic() < deadline:
            for key in (a["key"], b["key"], c["key"]):
                status = client.get(f"/api/play-now/{key}").json()
                if status["status"] == "matched":
                    found[key] = status["game"]
            time.sleep(0.05)
        assert found[a["key"]]["id"] == found[b["key"]]["id"] != found[c["key"]]["id"]
        assert {found[a["key"]]["seat"], found[b["key"]]["seat"]} == {0, 1}
        with seat_socket(
            server,
            found[c["key"]]["id"],
            None,
            {"type": "hello", "token": found[c["key"]]["token"]},
        ) as me:
            welcome = me.recv_until(lambda m: m["type"] == "welcome")
            # the computer is the expert level, named as the level (never "best")
            assert welcome["seats"][1] == {"kind": "bot", "bot": "level:expert"}
            assert welcome["players"][1] == "Expert"
        assert client.get("/api/play-now/nope").status_code == 404


def told(lobby: Any, kind: str) -> dict[str, Any]:
    """The next message of type ``kind`` on a lobby socket (others skipped)."""
    while True:
        msg: dict[str, Any] = json.loads(lobby.recv(timeout=TIMEOUT))
        if msg["type"] == kind:
            return msg


def test_a_new_wait_on_a_lobby_socket_replaces_its_place_which_leaves_the_queue(
    tmp_path: Path,
) -> None:
    config = fast_config(tmp_path / "w.sqlite3", pairing_interval=0.05)
    with live_server(config) as server, connect(f"{server.ws_base}/ws/lobby") as lobby:
        client = server.http()
        page = {"name": "Gil", "browser": "gils-browser"}  # (so never paired together)
        first = client.post("/api/play-now", json=page).json()["key"]
        again = client.post("/api/play-now", json=page).json()["key"]
        lobby.send(json.dumps({"type": "wait", "key": first}))
        lobby.send(json.dumps({"type": "wait", "key": again}))  # the page queued again
        deadline = time.monotonic() + TIMEOUT
        while client.get(f"/api/play-now/{first}").status_code != 404:
            assert time.monotonic() < deadline, "the replaced place is still queued"
            time.sleep(0.05)
        assert client.get(f"/api/play-now/{again}").json()["status"] == "waiting"
        time.sleep(0.3)  # rounds go by: Gil is never paired with himself
        assert client.get(f"/api/play-now/{again}").json()["status"] == "waiting"
        assert client.get("/api/lobby").json()["waiting"] == 1


def test_a_lobby_socket_refuses_a_malformed_place_key_in_one_line_and_stays_open(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with live_server(fast_config(tmp_path / "w.sqlite3")) as server:
        client = server.http()
        for bad in ("%ED%A0%80", "a" * 65, "a.b"):
            answer = client.get(f"/api/play-now/{bad}")
            assert answer.status_code in (400, 404) and "error" in answer.json()
            left = client.request("DELETE", f"/api/play-now/{bad}", json={})
            assert left.status_code in (400, 404) and "error" in left.json()
        key = client.post("/api/play-now", json={"name": "Hal"}).json()["key"]
        with connect(f"{server.ws_base}/ws/lobby") as lobby:
            for bad_text in ('{"type": "wait", "key": "\\ud800"}', '{"type": "wait", "key": 7}'):
                lobby.send(bad_text)
                assert told(lobby, "error")["code"] == "malformed"
            lobby.send(json.dumps({"type": "wait", "key": "nope"}))  # still open
            assert told(lobby, "error")["code"] == "not_in_queue"
            lobby.send(json.dumps({"type": "wait", "key": key}))
            lobby.send(json.dumps({"type": "wait", "key": "x" * 64}))
            assert told(lobby, "error")["code"] == "not_in_queue"
    assert "Traceback" not in caplog.text and "UnicodeEncodeError" not in caplog.text


def test_a_lobby_socket_that_falls_silent_no_longer_keeps_its_place_alive(
    tmp_path: Path,
) -> None:
    config = fast_config(tmp_path / "w.sqlite3", pairing_interval=0.05, play_now_timeout=3.0)
    with live_server(config) as server, connect(f"{server.ws_base}/ws/lobby") as lobby:
        key = server.http().post("/api/play-now", json={"name": "Ida"}).json()["key"]
        started = time.monotonic()
        lobby.send(json.dumps({"type": "wait", "key": key}))  # then never again
        gone = told(lobby, "play_now")
        assert gone["key"] == key and gone["status"] == "gone"
        assert 2.5 <= time.monotonic() - started < TIMEOUT


def test_a_play_now_pair_whose_game_fails_is_freed_at_once_and_paired_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from marjolet.rules import Rules
    from marjolet.web import playnow

    failures = [RuntimeError("rules could not be read")]

    class FailingOnce:
        @staticmethod
        def from_json(data: Any) -> Rules:
            if failures:
                raise failures.pop()
            return Rules.from_json(data)

    monkeypatch.setattr(playnow, "Rules", FailingOnce)
    config = fast_config(tmp_path / "w.sqlite3", pairing_interval=0.05, lease_seconds=10.0)
    with live_server(config) as server:
        client = server.http()
        keys = [client.post("/api/play-now", json={"name": n}).json()["key"] for n in "AB"]
        found: dict[str, str] = {}
        deadline = time.monotonic() + 10.0  # well before a lost claim is freed (30 s)
        while len(found) < 2:
            assert time.monotonic() < deadline, "the failed pair's places stayed claimed"
            for key in keys:
                status = client.get(f"/api/play-now/{key}").json()
                if status["status"] == "matched":
                    found[key] = status["game"]["id"]
            time.sleep(0.05)
        assert not failures and len(set(found.values())) == 1


def test_play_now_never_pairs_two_places_of_one_browser(tmp_path: Path) -> None:
    config = fast_config(tmp_path / "w.sqlite3", pairing_interval=0.05)
    with live_server(config) as server:
        client = server.http()
        mine = [
            client.post("/api/play-now", json={"name": "Gil", "browser": "tab-of-gil"}).json()
            for _ in range(2)  # two tabs of one guest's browser
        ]
        time.sleep(0.5)  # rounds go by
        for place in mine:
            assert client.get(f"/api/play-now/{place['key']}").json()["status"] == "waiting"
        other = client.post("/api/play-now", json={"name": "Ivy", "browser": "ivys"}).json()
        game: dict[str, Any] = {}
        deadline = time.monotonic() + TIMEOUT
        while not game and time.monotonic() < deadline:
            game = client.get(f"/api/play-now/{other['key']}").json()["game"] or {}
            time.sleep(0.05)
        assert game, "Ivy was not paired with one of Gil's places"
        bad = client.post(
            "/api/play-now",
            content='{"name": "Hal", "browser": "\\ud800"}',
            headers={"Content-Type": "application/json"},
        )
        assert bad.status_code == 400 and "browser" in bad.json()["error"]["message"]


def test_a_live_seek_stays_listed_while_its_page_follows_it_and_leaves_once_the_page_is_gone(
    tmp_path: Path,
) -> None:
    config = fast_config(tmp_path / "w.sqlite3", seek_timeout=2.0)
    with live_server(config) as server, connect(f"{server.ws_base}/ws/lobby") as lobby:
        http = server.http()
        kept = http.post("/api/seeks", json={"name": "Ida", "rules": SHORT}).json()
        left = http.post("/api/seeks", json={"name": "Ida", "rules": SHORT}).json()
        slow = http.post("/api/seeks", json={"name": "Ida", "rules": SHORT, "days_per_move": 2})
        for _ in range(6):  # the page of the first follows it again and again
            lobby.send(json.dumps({"type": "follow", "seek": kept["id"], "token": kept["token"]}))
            time.sleep(0.5)
        listed = {s["id"] for s in http.get("/api/lobby").json()["seeks"]}
        assert listed == {kept["id"], slow.json()["id"]}
        taken = http.post(f"/api/seeks/{left['id']}/accept", json={"name": "Joe"})
        assert taken.status_code == 409 and taken.json()["error"]["code"] == "seek_gone"
        assert http.post(f"/api/seeks/{kept['id']}/accept", json={"name": "Joe"}).status_code == 200


def test_a_lobby_change_while_the_socket_opens_is_in_the_list_the_page_fetches_or_told(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the socket was accepted, then its account read, then it listened: an
    # offer posted in between was told to no socket, and was missing from
    # the list the page fetched once the socket opened, until the next change
    reading, release = threading.Event(), threading.Event()
    account_of = Online.account_of

    async def held(self: Online, token: str | None) -> Any:
        if not reading.is_set():  # the socket's reading (not the post's)
            reading.set()
            await asyncio.to_thread(release.wait, TIMEOUT)
        return await account_of(self, token)

    monkeypatch.setattr(Online, "account_of", held)
    with live_server(fast_config(tmp_path / "w.sqlite3")) as server:
        page: dict[str, Any] = {}
        fetched = threading.Event()

        def open_the_page() -> None:  # as online.js: the socket opens, then the list is fetched
            page["socket"] = connect(f"{server.ws_base}/ws/lobby", open_timeout=TIMEOUT)
            with server.http() as client:
                page["listed"] = {s["id"] for s in client.get("/api/lobby").json()["seeks"]}
            fetched.set()

        opening = threading.Thread(target=open_the_page)
        opening.start()
        assert reading.wait(TIMEOUT)
        fetched.wait(2.0)  # (opened and fetched while the account is read, before)
        with server.http() as http:
            posted = http.post("/api/seeks", json={"name": "Ida", "rules": SHORT}).json()
        release.set()
        opening.join(TIMEOUT)
        with page["socket"] as lobby:
            if posted["id"] not in page["listed"]:
                assert json.loads(lobby.recv(timeout=3)) == {"type": "lobby"}


def test_the_lobby_pages_are_told_when_a_live_seek_leaves_because_its_page_closed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("marjolet.web.online.LAPSE_CHECK_EVERY", 0.1)
    config = fast_config(tmp_path / "w.sqlite3", seek_timeout=1.0, pairing_interval=0.1)
    with live_server(config) as server, connect(f"{server.ws_base}/ws/lobby") as other:
        http = server.http()
        http.post("/api/seeks", json={"name": "Ida", "rules": SHORT}).raise_for_status()
        assert json.loads(other.recv(timeout=TIMEOUT)) == {"type": "lobby"}  # posted
        # nobody follows it: once it lapses, the other page is told to fetch
        # again. (A lapse check reading the new seek just before the post's
        # own tell tells it too: a page may fetch once more, never too few.)
        for _ in range(2):
            assert json.loads(other.recv(timeout=TIMEOUT)) == {"type": "lobby"}
            if http.get("/api/lobby").json()["seeks"] == []:
                break
        assert http.get("/api/lobby").json()["seeks"] == []


def test_a_lobby_reading_overtaken_by_a_new_seek_tells_the_pages_once_it_lapses_not_before(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The round's reading of the listed seeks starts before a seek is
    posted and ends after the pages were told of it: that older reading
    is no baseline (compared with the next, the new seek would be told
    again as a change while it is still listed)."""
    from marjolet.web.lobby import Lobby

    monkeypatch.setattr("marjolet.web.online.LAPSE_CHECK_EVERY", 0.1)
    reading, told = threading.Event(), threading.Event()
    real_open, real_tell = Lobby.open_seeks, Online._tell_lobby

    def open_seeks(self: Lobby, at: float | None = None) -> list[Any]:
        found = real_open(self, at)
        if not reading.is_set():  # the first reading (a round's) ends after the tell
            reading.set()
            told.wait(TIMEOUT)
        return found

    def tell_lobby(self: Online) -> None:
        real_tell(self)
        told.set()

    monkeypatch.setattr(Lobby, "open_seeks", open_seeks)
    monkeypatch.setattr(Online, "_tell_lobby", tell_lobby)
    config = fast_config(tmp_path / "w.sqlite3", seek_timeout=1.0, pairing_interval=0.1)
    with live_server(config) as server, connect(f"{server.ws_base}/ws/lobby") as other:
        assert reading.wait(TIMEOUT)
        http = server.http()
        http.post("/api/seeks", json={"name": "Ida", "rules": SHORT}).raise_for_status()
        assert json.loads(other.recv(timeout=TIMEOUT)) == {"type": "lobby"}  # posted
        assert json.loads(other.recv(timeout=TIMEOUT)) == {"type": "lobby"}  # lapsed
        assert http.get("/api/lobby").json()["seeks"] == []


def test_a_guest_address_has_three_open_seeks_whatever_names_it_gives(
    server: LiveServer,
) -> None:
    with server.http() as guest:
        made = [guest.post("/api/seeks", json={"name": f"Spam {i}"}) for i in range(4)]
        assert [a.status_code for a in made] == [200, 200, 200, 429]
        assert made[3].json()["error"]["code"] == "too_many_seeks"
        assert len(guest.get("/api/lobby").json()["seeks"]) == 3
        first = made[0].json()
        withdrawn = guest.request(
            "DELETE", f"/api/seeks/{first['id']}", json={"token": first["token"]}
        )
        assert withdrawn.is_success  # one withdrawn: room for one more
        assert guest.post("/api/seeks", json={"name": "Spam 4"}).status_code == 200
