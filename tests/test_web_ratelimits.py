"""Rate limits (marjolet.web.ratelimits), in memory and shared through Redis."""

from __future__ import annotations

import pytest

from marjolet.web.ratelimits import DEFAULT_LIMITS, RateLimits


def test_a_key_over_its_limit_is_refused_and_another_key_is_not() -> None:
    limits = RateLimits({"hint": "2/minute"})
    assert limits.hit("hint", "a") and limits.hit("hint", "a")
    assert not limits.hit("hint", "a")
    assert limits.hit("hint", "b")
    assert limits.retry_after("hint", "a") > 0
    assert limits.retry_after("hint", "b") == 0


def test_allows_counts_every_key_and_refuses_if_any_is_over() -> None:
    limits = RateLimits({"login": "2/minute"})
    assert limits.allows("login", "addr", "name:alice")
    assert limits.allows("login", "addr2", "name:alice")
    assert not limits.allows("login", "addr3", "name:alice")  # the name is over


def test_every_default_limit_parses() -> None:
    limits = RateLimits()
    assert set(limits.items) == set(DEFAULT_LIMITS)


def test_two_processes_sharing_redis_share_the_counts(redis_url: str) -> None:
    first = RateLimits({"seek": "3/minute"}, storage_uri=redis_url)
    second = RateLimits({"seek": "3/minute"}, storage_uri=redis_url)
    first.clear()
    assert first.hit("seek", "k") and second.hit("seek", "k") and first.hit("seek", "k")
    assert not second.hit("seek", "k")
    first.clear()
    assert second.hit("seek", "k")


def test_an_unknown_limit_name_is_a_programming_error() -> None:
    with pytest.raises(KeyError):
        RateLimits().hit("nonsense", "k")


def test_limits_still_hold_in_each_process_while_redis_is_unreachable() -> None:
    from services import refused_port

    with refused_port() as port:
        limits = RateLimits({"login": "2/minute"}, storage_uri=f"redis://127.0.0.1:{port}/0")
        assert limits.hit("login", "a") and limits.hit("login", "a")  # no error, no 500
        assert not limits.hit("login", "a")
        assert limits.retry_after("login", "a") > 0
