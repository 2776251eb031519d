""""Play now"'s queue in the database (marjolet.web.playnow), on SQLite and
PostgreSQL: places, their heartbeats, claims, and a claim whose game was
never made (its maker died)."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import event, select

from marjolet.web.accounts import Accounts
from marjolet.web.db import game_players, make_engine, migrate
from marjolet.web.lobby import Seeker
from marjolet.web.playnow import Place, PlayNowQueue, well_formed_key
from web_support import Clock


@pytest.fixture
def queue(database_url: str) -> tuple[PlayNowQueue, Clock, Accounts]:
    engine = make_engine(database_url)
    migrate(engine)
    clock = Clock()
    return PlayNowQueue(engine, timeout=10, reclaim_after=30, clock=clock), clock, Accounts(engine)


def test_a_place_lives_while_asked_about_and_is_given_up_after_the_time_out(
    queue: tuple[PlayNowQueue, Clock, Accounts],
) -> None:
    places, clock, _ = queue
    asked = places.join(Seeker("Ann"), 1500.0, "classic", False, None)
    silent = places.join(Seeker("Bo"), 1500.0, "classic", False, None)
    for _ in range(5):  # Ann's page asks every 3 s; Bo's was closed
        clock.now += 3
        assert places.status(asked) is not None
    assert places.status(silent) is None  # 15 s unasked: given up
    assert [w.meta["name"] for w in places.live()] == ["Ann"]
    assert places.waiting_count() == 1
    places.tidy()
    assert not places.leave(silent) and places.leave(asked)
    assert places.status(asked) is None and places.live() == []


def test_a_claim_takes_both_places_or_neither(
    queue: tuple[PlayNowQueue, Clock, Accounts],
) -> None:
    places, _, accounts = queue
    account, _ = accounts.create("carla", "a long password")
    ann = places.join(Seeker("Ann"), 1500.0, "classic", False, None)
    carla = places.join(Seeker("carla", account), 1500.0, "classic", False, None)
    waiting = {w.meta["name"]: w for w in places.live()}
    assert places.leave(ann)  # Ann leaves between the round's read and its claim
    # Carla is taken first, then Ann is found gone: Carla's seat is given back
    assert not places.claim([waiting["carla"], waiting["Ann"]], "g1", False)
    assert [w.meta["name"] for w in places.live()] == ["carla"]  # Carla was not taken
    with places.engine.connect() as db:
        assert db.execute(select(game_players)).all() == []  # nor her account's seat
    again = places.join(Seeker("Ann"), 1500.0, "classic", False, None)
    waiting = {w.meta["name"]: w for w in places.live()}
    assert places.claim([waiting["Ann"], waiting["carla"]], "g2", False)
    assert not places.claim([waiting["carla"]], "g3", False)  # never twice
    assert not places.leave(carla)  # a game is being made for her
    mine = places.status(again)
    assert mine == Place(None, None)  # taken, but waiting until its game is made


def test_a_claim_whose_game_was_never_made_is_freed_and_its_players_wait_again(
    queue: tuple[PlayNowQueue, Clock, Accounts],
) -> None:
    places, clock, accounts = queue
    account, _ = accounts.create("dora", "a long password")
    keys = [
        places.join(Seeker("dora", account), 1500.0, "classic", True, None),
        places.join(Seeker("Eve"), 1500.0, "classic", True, None),
    ]
    assert places.claim(places.live(), "lost", True)  # then its maker died
    for _ in range(11):  # both players keep asking: 33 s
        clock.now += 3
        for key in keys:
            place = places.status(key)
            assert place is not None and place.game_id is None  # no game yet: waiting
        places.tidy()
    assert sorted(w.meta["name"] for w in places.live()) == ["Eve", "dora"]
    with places.engine.connect() as db:
        assert db.execute(select(game_players)).all() == []  # the seat's account row too


def writes_made(places: PlayNowQueue) -> list[str]:
    """The writing statements (and write transactions) run from now on."""
    seen: list[str] = []

    def spy(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        head = statement.lstrip().upper()
        if head.startswith(("UPDATE", "INSERT", "DELETE", "BEGIN IMMEDIATE")):
            seen.append(head.split()[0])

    event.listen(places.engine, "before_cursor_execute", spy)
    return seen


def test_a_poll_writes_only_when_a_live_places_heartbeat_is_due(
    queue: tuple[PlayNowQueue, Clock, Accounts],
) -> None:
    places, clock, _ = queue
    key = places.join(Seeker("Ann"), 1500.0, "classic", False, None)
    writes = writes_made(places)
    for _ in range(3):  # an unknown key, and polls within the heartbeat: read only
        assert places.status("no-such-place") is None
        assert places.status(key) == Place(None, None)
        clock.now += 0.25
    assert writes == []
    clock.now += 1.0  # a heartbeat is due: one write
    assert places.status(key) == Place(None, None)
    assert writes and "UPDATE" in writes
    writes.clear()
    clock.now += 11  # given up: never renewed again
    assert places.status(key) is None and writes == []


def test_a_lobby_sockets_check_of_its_places_does_not_keep_them_alive(
    queue: tuple[PlayNowQueue, Clock, Accounts],
) -> None:
    places, clock, _ = queue
    key = places.join(Seeker("Ann"), 1500.0, "classic", False, None)
    for _ in range(4):  # an open socket, silent: 12 s
        clock.now += 3
        places.statuses([key], renew=False)
    assert places.status(key) is None  # only a message (a wait, a poll) is a sign of life


@pytest.mark.parametrize("key", ["\ud800", "", "a" * 65, "a/b", "é", "a b", 7, None])
def test_a_malformed_place_key_is_refused_before_it_is_hashed(key: object) -> None:
    assert not well_formed_key(key)


def test_a_real_place_key_is_well_formed(queue: tuple[PlayNowQueue, Clock, Accounts]) -> None:
    places, _, _ = queue
    assert well_formed_key(places.join(Seeker("Ann"), 1500.0, "classic", False, None))
