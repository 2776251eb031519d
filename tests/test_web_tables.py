"""The web server's tables: whole matches over WebSockets, every refusal
(out of turn, illegal, stale, malformed, oversized, flooding, bad token),
invite links, spectators, and bots thinking off the event loop."""

from __future__ import annotations

import random
import sqlite3
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from websockets.exceptions import ConnectionClosed

from marjolet import record
from marjolet.bots import register
from marjolet.bots.base import Bot
from marjolet.observation import Observation
from web_support import Browser, LiveServer, fast_config, first_moves, live_server, play_until


@pytest.fixture
def server(tmp_path: Path) -> Any:
    with live_server(fast_config(tmp_path / "games.sqlite3")) as srv:
        yield srv


def friend_game(server: LiveServer, wait: float = 0.0) -> tuple[dict[str, Any], dict[str, Any]]:
    """A friend game whose invite link a guest takes ``wait`` seconds after
    it was made: the game and the guest's seat."""
    game = server.new_game(mode="friend", name="Host")
    invite = game["invite_url"].split("#invite=")[1]
    time.sleep(wait)
    with server.http() as client:
        joined = client.post(f"/api/games/{game['id']}/join", json={"invite": invite}).json()
    return game, joined


def seat_hello(game: dict[str, Any]) -> dict[str, Any]:
    return {"type": "hello", "token": game["token"]}


def test_whole_match_against_a_random_bot_is_stored_move_by_move(server: LiveServer) -> None:
    game = server.new_game(mode="bot", name="Ann", bot="random", rules={"profile": "classic"})
    rng = random.Random(1)
    with Browser.open(server, game["id"], seat_hello(game)) as me:
        welcome = me.recv_until(lambda m: m["type"] == "welcome")
        assert welcome["seat"] == 0 and welcome["players"][0] == "Ann"
        final = play_until(me, lambda s: bool(s["match_over"]), rng)
    assert final["winner"] in (0, 1)
    assert max(final["totals"]) >= 500
    with server.http() as client:
        text = client.get(f"/api/games/{game['id']}/record?form=json").text
    rec = record.loads(text)
    result = record.replay(rec)
    assert list(result.totals) == final["totals"] and result.winner == final["winner"]
    assert len(rec.deals) == final["deal"] + 1


def test_out_of_turn_illegal_stale_and_malformed_moves_are_refused_to_that_client_only(
    tmp_path: Path,
) -> None:
    config = fast_config(tmp_path / "g.sqlite3", first_dealer=1)
    with live_server(config) as server:
        game, joined = friend_game(server)
        with (
            Browser.open(server, game["id"], seat_hello(game)) as host,
            Browser.open(server, game["id"], {"type": "hello", "token": joined["token"]}) as guest,
        ):
            state = host.next_state()
            guest.next_state()
            assert state["to_move"] == 0  # seat 1 deals first, so seat 0 leads (R3)
            # out of turn: the guest tries one of its own cards
            guest_card = guest.state["hands"][1]["cards"][0]  # type: ignore[index]
            guest.act(guest_card)
            assert guest.error()["code"] == "not_your_turn"
            # a card the host does not hold
            mine = set(state["hands"][0]["cards"])
            other = next(
                c for c in ("AS", "TS", "KS", "QS", "JS", "9S", "8S", "7S") if c not in mine
            )
            host.act(other)
            err = host.error()
            assert err["code"] == "illegal" and "R7" in err["message"]
            # a meld outside a window (R14), an unknown action, a stale version
            host.act("meld 4A")
            assert "R14" in host.error()["message"]
            host.act("meld 4J")
            assert host.error()["code"] == "unknown_action"
            host.send({"type": "act", "action": state["hands"][0]["cards"][0], "version": 0})
            assert host.error()["code"] == "stale"
            for bad in ("{not json", "[1, 2]", '{"type": "dance"}', '{"type": "act", "action": 5}'):
                host.send(bad)
                assert host.error()["code"] == "malformed"
            host.send('{"type": "act", "action": "AS", "version": "x"}')
            assert host.error()["code"] == "malformed"
            host.send('{"type": "hello", "token": "again"}')
            assert host.error()["code"] == "hello_twice"
            # the table still plays, and the guest saw none of the host's errors
            card = state["legal"][0]["action"]
            host.act(card)
            after = host.next_state()
            assert after["lead"] == card and after["to_move"] == 1
            assert guest.next_state()["lead"] == card
            assert not [m for m in guest.received if '"error"' in m and "R7" in m]


def test_oversized_and_binary_messages_are_refused_without_closing(server: LiveServer) -> None:
    game = server.new_game(mode="bot", bot="random")
    with Browser.open(server, game["id"], seat_hello(game)) as me:
        me.next_state()
        me.send('{"type": "ping", "pad": "' + "x" * 5000 + '"}')
        err = me.error()
        assert err["code"] == "too_large" and "2048" in err["message"]
        me.ws.send(b"\x00\x01")
        assert me.error()["code"] == "malformed"
        me.send({"type": "ping"})
        assert me.recv_until(lambda m: m["type"] in ("pong", "error"))["type"] == "pong"


def test_flooding_is_rate_limited_then_the_connection_is_closed(tmp_path: Path) -> None:
    config = fast_config(
        tmp_path / "g.sqlite3", rate_per_second=5.0, rate_burst=5, flood_close_after=30
    )
    with live_server(config) as server:
        game = server.new_game(mode="bot", bot="random")
        with Browser.open(server, game["id"], seat_hello(game)) as me:
            me.next_state()
            for _ in range(60):
                me.send({"type": "ping"})
            assert me.error()["code"] == "rate_limited"
            assert me.closed()
        # the table itself is unharmed: a new connection plays on
        with Browser.open(server, game["id"], seat_hello(game)) as again:
            state = again.next_state()
            assert state["status"] == "playing"


def test_a_wrong_token_or_an_unknown_game_gets_a_clear_error(server: LiveServer) -> None:
    game = server.new_game(mode="bot", bot="random")
    with Browser.open(server, game["id"], {"type": "hello", "token": "not-the-token"}) as who:
        assert who.error()["code"] == "bad_token"
    with Browser.open(server, "nosuchgame", seat_hello(game)) as who:
        assert who.error()["code"] == "not_found"
    with Browser.open(server, game["id"], {"type": "hello", "watch": True}) as who:
        assert who.error()["code"] == "no_spectators"
    with Browser.open(server, game["id"], {"type": "act", "action": "AS", "version": 1}) as who:
        assert who.error()["code"] == "hello_first"


def test_invite_link_seats_a_friend_once_and_the_friend_plays_a_card(tmp_path: Path) -> None:
    config = fast_config(tmp_path / "g.sqlite3", first_dealer=0)
    with live_server(config) as server:
        game = server.new_game(mode="friend", name="Host")
        invite = game["invite_url"].split("#invite=")[1]
        with Browser.open(server, game["id"], seat_hello(game)) as host:
            state = host.next_state()
            assert state["status"] == "waiting"
            with server.http() as client:
                bad = client.post(f"/api/games/{game['id']}/join", json={"invite": "guess"})
                assert bad.status_code == 403
                ok = client.post(
                    f"/api/games/{game['id']}/join", json={"invite": invite, "name": "Guest"}
                )
                assert ok.status_code == 200 and ok.json()["seat"] == 1
                again = client.post(f"/api/games/{game['id']}/join", json={"invite": invite})
                assert (
                    again.status_code == 403 and "already used" in again.json()["error"]["message"]
                )
            assert host.next_state()["players"] == ["Host", "Guest"]
            with Browser.open(
                server, game["id"], {"type": "hello", "token": ok.json()["token"]}
            ) as guest:
                gstate = guest.next_state()
                assert gstate["seat"] == 1 and gstate["to_move"] == 1  # seat 0 dealt: seat 1 leads
                card = gstate["legal"][0]["action"]
                guest.act(card)
                assert guest.next_state()["lead"] == card
                assert host.recv_until(lambda m: m["type"] == "state" and m["lead"] == card)


def test_neither_friend_at_a_table_may_take_a_name_that_passes_for_the_computer(
    server: LiveServer,
) -> None:
    """As in the lobby: « Confirmé » at the host's table would read as the
    computer's level; the default names ("friend", « ami ») are the friend's."""
    game = server.new_game(mode="friend", name="Host")
    invite = game["invite_url"].split("#invite=")[1]
    with server.http() as client:
        join = f"/api/games/{game['id']}/join"
        as_other, mixed = "name_read_as_other", "mixed_scripts"
        for name, code in [("Confirmé", as_other), ("best (fort)", as_other),
                           ("Jоe", mixed)]:  # fmt: skip  (a Cyrillic о in Jоe)
            refused = client.post(join, json={"invite": invite, "name": name})
            error = refused.json()["error"]
            assert refused.status_code == 400 and error["code"] == code, (name, error)
            assert error["params"] == {"name": name}
        joined = client.post(join, json={"invite": invite, "name": "ami"})
        assert joined.status_code == 200 and joined.json()["seat"] == 1  # the invite still open
        # nor may the host pose as the computer to the friend (none typed: "you", their own)
        host = client.post("/api/games", json={"mode": "friend", "name": "Expert"})
        assert host.status_code == 400 and host.json()["error"]["code"] == "name_read_as_other"
        assert client.post("/api/games", json={"mode": "friend"}).status_code == 200


def test_bot_matches_can_be_watched_and_play_on_by_themselves(server: LiveServer) -> None:
    game = server.new_game(
        mode="watch", bots=["random", "random"], rules={"profile": "classic", "target": 100}
    )
    assert game["token"] is None
    with Browser.open(server, game["id"], {"type": "hello", "watch": True}) as viewer:
        welcome = viewer.recv_until(lambda m: m["type"] == "welcome")
        assert welcome["seat"] is None
        final = viewer.recv_until(lambda m: m["type"] == "state" and m["match_over"], timeout=60)
        assert final["hands"][0]["cards"] is not None  # open hands for bot-vs-bot
        viewer.send({"type": "act", "action": "AS", "version": 1})
        assert viewer.error()["code"] == "spectator"


class BlockingBot(Bot):
    """Thinks until the test lets it go: proves bots run off the event loop."""

    name = "test-blocking"
    description = "blocks until released (tests only)"
    started = threading.Event()
    release = threading.Event()

    def choose(self, obs: Observation, legal: Sequence[int]) -> int:
        BlockingBot.started.set()
        BlockingBot.release.wait(30)
        return legal[0]


def test_a_thinking_bot_at_one_table_does_not_delay_another_table(tmp_path: Path) -> None:
    register("test-blocking", BlockingBot)
    BlockingBot.started.clear()
    BlockingBot.release.clear()
    config = fast_config(
        tmp_path / "g.sqlite3", allowed_bots={"blocker": "test-blocking"}, first_dealer=0
    )
    try:
        with live_server(config) as server:
            slow = server.new_game(mode="bot", bot="blocker")
            fast = server.new_game(mode="bot", bot="random")
            # first dealer 0: the bot (seat 1) leads at once and blocks
            assert BlockingBot.started.wait(10)
            with Browser.open(server, fast["id"], seat_hello(fast)) as me:
                me.next_state()
                rng = random.Random(3)
                for _ in range(6):  # the other table answers while the bot still thinks
                    assert me.state is not None
                    if me.state["legal"]:
                        me.act(rng.choice(me.state["legal"])["action"])
                    me.next_state()
                assert not BlockingBot.release.is_set()
            BlockingBot.release.set()
            with Browser.open(server, slow["id"], seat_hello(slow)) as other:
                other.recv_until(lambda m: m["type"] == "state" and m["to_move"] == 0)
    finally:
        BlockingBot.release.set()


def test_the_hint_is_a_legal_action_of_the_seat(server: LiveServer) -> None:
    game = server.new_game(mode="bot", bot="random")
    rng = random.Random(5)
    with Browser.open(server, game["id"], seat_hello(game)) as me:
        play_until(me, lambda s: bool(s["legal"]), rng)
        me.send({"type": "hint"})
        hint = me.recv_until(lambda m: m["type"] == "hint")
        assert me.state is not None
        assert hint["action"] in {a["action"] for a in me.state["legal"]}
        assert hint["version"] == me.state["version"]
        me.send({"type": "hint"})  # asked again at the same position: the same advice
        again = me.recv_until(lambda m: m["type"] == "hint")
        assert again == hint


def test_every_acknowledged_move_is_already_in_the_database(tmp_path: Path) -> None:
    db = tmp_path / "g.sqlite3"
    with live_server(fast_config(db)) as server:
        game = server.new_game(mode="bot", bot="random")
        rng = random.Random(9)
        with Browser.open(server, game["id"], seat_hello(game)) as me:
            for _ in range(20):
                state = play_until(me, lambda s: bool(s["legal"]), rng)
                me.act(rng.choice(state["legal"])["action"])
                me.state = None
                acknowledged = me.next_state()
                # read the file with a second connection while the server runs
                with sqlite3.connect(db) as conn:
                    stored = conn.execute(
                        "SELECT COUNT(*) FROM actions WHERE game_id = ?", (game["id"],)
                    ).fetchone()[0]
                    deals = conn.execute(
                        "SELECT COUNT(*) FROM deals WHERE game_id = ?", (game["id"],)
                    ).fetchone()[0]
                assert stored + deals >= acknowledged["version"]


class FailingBot(Bot):
    """Raises on every move: the table must play on without it."""

    name = "test-failing"
    description = "always fails (tests only)"

    def choose(self, obs: Observation, legal: Sequence[int]) -> int:
        raise RuntimeError("this bot is broken")


def test_a_failing_bot_is_replaced_by_a_random_legal_move_and_the_table_is_told(
    tmp_path: Path,
) -> None:
    register("test-failing", FailingBot)
    config = fast_config(
        tmp_path / "g.sqlite3", allowed_bots={"broken": "test-failing"}, first_dealer=0
    )
    with live_server(config) as server:
        game = server.new_game(mode="bot", bot="broken")  # the bot (seat 1) leads at once
        with Browser.open(server, game["id"], seat_hello(game)) as me:
            state = me.recv_until(lambda m: m["type"] == "state" and m["to_move"] == 0)
            assert state["lead"] is not None and state["log"][0]["player"] == 1
            notices = []
            for _ in range(40):  # play on: each bot move fails and is replaced
                msg = me.recv() if not (me.state and me.state["legal"]) else None
                if msg is not None and msg["type"] == "notice":
                    notices.append(msg["message"])
                    if len(notices) == 2:
                        break
                if me.state and me.state["legal"]:
                    me.act(me.state["legal"][0]["action"])
                    me.state = None
            assert len(notices) == 2 and "random legal move" in notices[0]


def test_a_websocket_from_another_origin_is_refused(server: LiveServer) -> None:
    from websockets.exceptions import InvalidStatus
    from websockets.sync.client import connect
    from websockets.typing import Origin

    game = server.new_game(mode="bot", bot="random")
    url = f"{server.ws_base}/ws/{game['id']}"
    with (
        pytest.raises((InvalidStatus, ConnectionClosed)),
        connect(url, origin=Origin("http://evil.example"), open_timeout=10) as ws,
    ):
        ws.send('{"type": "hello", "watch": true}')
        ws.recv(timeout=10)


def test_production_defaults_are_loopback_strong_shuffles_and_no_debug(server: LiveServer) -> None:
    import secrets

    from marjolet.cli import build_parser
    from marjolet.web.config import WebConfig

    args = build_parser("serve").parse_args(["serve"])
    assert args.host == "127.0.0.1" and args.port == 8000
    assert WebConfig().deck_for is None and WebConfig().first_dealer is None
    hub = server.app.state.hub
    assert isinstance(hub.rng, secrets.SystemRandom)  # R6
    assert server.app.debug is False


def test_an_idle_table_leaves_memory_and_comes_back_from_the_database(server: LiveServer) -> None:
    game = server.new_game(mode="bot", bot="random")
    rng = random.Random(2)
    with Browser.open(server, game["id"], seat_hello(game)) as me:
        for _ in range(5):
            play_until(me, lambda s: bool(s["legal"]), rng)
            me.act(rng.choice(me.state["legal"])["action"])  # type: ignore[index]
            me.state = None
        before = play_until(me, lambda s: bool(s["legal"]), rng)
    hub = server.app.state.hub
    deadline = time.monotonic() + 10
    while game["id"] in hub.tables:
        assert time.monotonic() < deadline, "the idle table stayed in memory"
        time.sleep(0.02)
    with Browser.open(server, game["id"], seat_hello(game)) as again:
        after = again.next_state()
        assert after["version"] == before["version"] and after["hands"] == before["hands"]


def newer_than(version: int) -> Any:
    """A test for a state message past ``version``."""
    return lambda m: m["type"] == "state" and m["version"] > version


def play_deal_between(host: Browser, guest: Browser, rng: random.Random) -> dict[str, Any]:
    """Two people play random legal actions to the end of the deal; the
    host's state then."""
    players = (host, guest)
    first = [who.state or who.next_state() for who in players]
    states = same_version(first, players)
    while not states[0]["deal_over"]:
        movers = [seat for seat in (0, 1) if states[seat]["legal"]]
        if movers:
            players[movers[0]].act(rng.choice(states[movers[0]]["legal"])["action"])
        newer = newer_than(states[0]["version"])  # (with no mover: the state that has one)
        states = same_version([who.recv_until(newer) for who in players], players)
    return states[0]


def same_version(
    states: list[dict[str, Any]], who: tuple[Browser, Browser]
) -> list[dict[str, Any]]:
    """The two players' states brought to one version: a loaded server may
    send one of them a later state first (the other's turn in both)."""
    while states[0]["version"] != states[1]["version"]:
        top = max(state["version"] for state in states)
        states = [
            state if state["version"] >= top else player.recv_until(newer_than(top - 1))
            for state, player in zip(states, who, strict=True)
        ]
    return states


def wait_finished(server: LiveServer, game_id: str, limit: float = 30.0) -> dict[str, Any]:
    """The game's row in the history once it is finished (polled)."""
    end = time.monotonic() + limit
    with server.http() as client:
        while time.monotonic() < end:
            rows = client.get("/api/games").json()["games"]
            row: dict[str, Any] = next(g for g in rows if g["id"] == game_id)
            if row["status"] == "finished":
                return row
            time.sleep(0.1)
    raise AssertionError("the game was not ended")


def test_a_game_both_players_left_between_deals_gets_its_next_deal_then_ends_on_time(
    tmp_path: Path,
) -> None:
    """Left on the summary, nobody is to move: the server deals the next
    deal itself once ``abandon_after`` has passed, then ends the game on
    time when its mover does not come back either."""
    config = fast_config(
        tmp_path / "g.sqlite3",
        first_dealer=0,
        move_limit=0.3,
        away_grace=60,
        abandon_after=0.3,
        abandon_check=0.1,
    )
    with live_server(config) as server:
        game, joined = friend_game(server)
        with (
            Browser.open(server, game["id"], seat_hello(game)) as host,
            Browser.open(server, game["id"], {"type": "hello", "token": joined["token"]}) as guest,
        ):
            over = play_deal_between(host, guest, random.Random(2))
            assert over["deal_over"] and not over["match_over"]
        row = wait_finished(server, game["id"])
        assert row["deals"] == 2  # the second deal was dealt by the server
        with Browser.open(server, game["id"], seat_hello(game)) as host:
            final = host.recv_until(lambda m: m["type"] == "state")
        assert final["forfeit"]["reason"] == "did not move in time"
        assert final["forfeit"]["seat"] == 1 - final["dealer"]  # its first lead


def test_a_friend_games_move_clock_starts_when_the_friend_joins_and_stops_between_deals(
    tmp_path: Path,
) -> None:
    """A link opened long after it was made does not hand the host a win:
    the move clock starts at the join; between deals nobody is to move, so
    there is no deadline, and the next deal's first move has twice the
    limit; a claim after the limit is stored as a timeout."""
    # a limit of 3 s while the deal is played (a loaded machine must not
    # let the immediate claim below, or a scripted move, overrun it)
    limit = 3.0
    config = fast_config(tmp_path / "g.sqlite3", first_dealer=0, move_limit=limit, away_grace=60)
    with live_server(config) as server:
        made = time.time()
        game, joined = friend_game(server, wait=limit + 0.3)  # longer than a move may take
        with (
            Browser.open(server, game["id"], seat_hello(game)) as host,
            Browser.open(server, game["id"], {"type": "hello", "token": joined["token"]}) as guest,
        ):
            state = host.next_state()
            guest.next_state()
            # the clock started at the join, after the wait (one started with
            # the link would end at about made + limit, before the guest
            # joined), bounded by our own readings
            assert state["to_move"] == 1
            joined_at_least = made + limit + 0.3
            assert joined_at_least + limit - 0.05 <= state["deadline"] <= time.time() + limit + 0.05
            host.send({"type": "claim"})  # the friend has just sat down
            assert host.error()["code"] == "cannot_claim"
            over = play_deal_between(host, guest, random.Random(2))
            assert over["deadline"] is None  # between deals: nobody is to move
            sent = time.time()
            host.send({"type": "next", "version": over["version"]})
            second = host.recv_until(lambda m: m["type"] == "state" and m["deadline"] is not None)
            # the first move of a later deal has twice the limit: the mover
            # may still be reading the last deal's summary (the clock starts
            # between the two readings of ours)
            assert sent + 2 * limit - 0.05 <= second["deadline"] <= time.time() + 2 * limit + 0.05
    config = fast_config(tmp_path / "t.sqlite3", first_dealer=0, move_limit=1.0, away_grace=60)
    with live_server(config) as server:  # a mover who lets the time run out
        game, joined = friend_game(server)
        with (
            Browser.open(server, game["id"], seat_hello(game)) as host,
            Browser.open(server, game["id"], {"type": "hello", "token": joined["token"]}) as guest,
        ):
            state = first_moves(host, guest)  # (before the guest's first move: an abort)
            while state["to_move"] == 0:  # the guest to move
                host.act(state["legal"][0]["action"])
                host.state = guest.state = None
                state, _ = host.next_state(), guest.next_state()
            time.sleep(1.2)
            host.send({"type": "claim"})
            final = host.recv_until(lambda m: m["type"] == "state" and m["match_over"])
            assert final["forfeit"]["reason"] == "did not move in time"
            assert final["winner"] == 0


def test_a_seat_has_moved_after_its_first_action_and_the_dealer_only_after_the_lead() -> None:
    """What a claim against a seat that never moved (an abort) goes by: the
    elder's first move is the first lead; the dealer's comes only after it;
    starting a deal is nobody's move."""
    from marjolet.match import Match
    from marjolet.web.tables import seats_moved

    match = Match(first_dealer=1, seed=3)
    assert seats_moved(match) == (False, False)
    deal = match.start_deal()
    assert seats_moved(match) == (False, False)
    assert deal.to_move == 0  # the elder (seat 0) leads
    match.play(deal.legal[0])
    assert seats_moved(match) == (True, False)
    match.play(deal.legal[0])  # the dealer follows: both have moved
    assert seats_moved(match) == (True, True)
    other = Match(first_dealer=0, seed=3)  # seat 1 is the elder
    other.play(other.start_deal().legal[0])
    assert seats_moved(other) == (False, True)
