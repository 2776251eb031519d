"""The "opponent gone" clock (marjolet.web.presence)."""

from __future__ import annotations

from marjolet.web.presence import DAY, GRACE_LIVE, Presence, grace_seconds, move_deadline


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_connected_seat_has_no_countdown() -> None:
    presence = Presence(Clock())
    presence.connected("g", 0)
    assert presence.away_left("g", 0) is None
    assert not presence.may_claim("g", 1)


def test_the_last_connection_dropping_starts_the_grace_period() -> None:
    clock = Clock()
    presence = Presence(clock)
    presence.connected("g", 0)
    presence.connected("g", 0)  # a second tab
    presence.disconnected("g", 0)
    assert presence.away_left("g", 0) is None
    presence.disconnected("g", 0)
    clock.now += 30
    assert presence.away_left("g", 0) == GRACE_LIVE - 30
    assert not presence.may_claim("g", 1)


def test_the_other_player_may_claim_once_the_grace_has_run_out() -> None:
    clock = Clock()
    presence = Presence(clock)
    presence.connected("g", 1)
    presence.disconnected("g", 1)
    clock.now += GRACE_LIVE
    assert presence.away_left("g", 1) == 0.0
    assert presence.may_claim("g", 0)
    assert not presence.may_claim("g", 1)  # nobody claims against a present seat


def test_coming_back_within_the_grace_resumes() -> None:
    clock = Clock()
    presence = Presence(clock)
    presence.connected("g", 1)
    presence.disconnected("g", 1)
    clock.now += GRACE_LIVE - 1
    presence.connected("g", 1)
    clock.now += 1000
    assert not presence.may_claim("g", 0)


def test_a_correspondence_game_gives_an_away_seat_its_days_per_move() -> None:
    clock = Clock()
    presence = Presence(clock)
    presence.track("g", days_per_move=3)
    presence.connected("g", 0)
    presence.disconnected("g", 0)
    clock.now += 2 * DAY
    assert not presence.may_claim("g", 1)
    clock.now += DAY
    assert presence.may_claim("g", 1)
    assert grace_seconds(3) == 3 * DAY and grace_seconds(None) == GRACE_LIVE


def test_a_move_deadline_is_the_turn_start_plus_the_days() -> None:
    assert move_deadline(100.0, 2) == 100.0 + 2 * DAY


def test_an_unknown_game_has_no_countdown_and_no_claim() -> None:
    presence = Presence(Clock())
    assert presence.away_left("nope", 0) is None
    assert not presence.may_claim("nope", 0)
    presence.track("g")
    presence.forget("g")
    assert "g" not in presence.games
