"""Which seats another server process holds (marjolet.web.beacons)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from marjolet.web import beacons
from marjolet.web.beacons import RedisBeacons


class SlowRedis:
    """The few sorted-set commands the beacons use, in memory; a pipeline
    takes ``delay`` seconds to reach the server, as on a loaded machine."""

    def __init__(self, delay: float) -> None:
        self.sets: dict[str, dict[str, float]] = {}
        self.delay = delay

    def pipeline(self, transaction: bool) -> SlowPipeline:
        return SlowPipeline(self)

    async def zrem(self, key: str, member: str) -> None:
        self.sets.get(key, {}).pop(member, None)

    async def zrangebyscore(self, key: str, low: float, high: str) -> list[bytes]:
        members = self.sets.get(key, {})
        return [m.encode() for m, score in members.items() if score >= low]


class SlowPipeline:
    def __init__(self, redis: SlowRedis) -> None:
        self.redis = redis
        self.added: list[tuple[str, dict[str, float]]] = []

    def zadd(self, key: str, members: dict[str, float]) -> None:
        self.added.append((key, members))

    def expire(self, key: str, seconds: int) -> None:
        pass

    async def execute(self) -> list[Any]:
        await asyncio.sleep(self.redis.delay)
        for key, members in self.added:
            self.redis.sets.setdefault(key, {}).update(members)
        return []


def test_a_seat_said_gone_while_a_beat_was_on_its_way_is_not_held_afterwards() -> None:
    """A sweep's beat still travelling when the seat's last connection
    closes must not land after the "gone": the seat would look held here
    for ``ttl`` seconds and its opponent's countdown would be ended."""

    async def run() -> bool:
        redis = SlowRedis(delay=0.05)
        here = RedisBeacons(redis, "process-a", ttl=60.0)
        there = RedisBeacons(redis, "process-b", ttl=60.0)
        beat = asyncio.ensure_future(here.beat([("g1", 1)]))
        await asyncio.sleep(0)  # the beat is on its way
        await here.gone("g1", 1)  # (its seat's last connection closed meanwhile)
        await beat
        return await there.elsewhere("g1", 1)

    assert asyncio.run(run()) is False


def test_a_seat_is_held_elsewhere_until_its_holder_says_gone_or_stops_beating() -> None:
    clock = [1000.0]

    async def run() -> list[bool]:
        redis = SlowRedis(delay=0.0)
        here = RedisBeacons(redis, "process-a", ttl=1.0, clock=lambda: clock[0])
        there = RedisBeacons(redis, "process-b", ttl=1.0, clock=lambda: clock[0])
        seen = []
        await here.beat([("g1", 0)])
        seen.append(await there.elsewhere("g1", 0))  # held by a
        seen.append(await here.elsewhere("g1", 0))  # a's own seat is not elsewhere for a
        seen.append(await there.elsewhere("g1", 1))  # the other seat: nobody
        clock[0] += 2.0  # a died: its word ran out
        seen.append(await there.elsewhere("g1", 0))
        await here.beat([("g1", 0)])
        await here.gone("g1", 0)
        seen.append(await there.elsewhere("g1", 0))
        return seen

    assert asyncio.run(run()) == [True, False, False, False, False]


def test_a_redis_that_never_answers_holds_no_word_queued_behind_it_for_long(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Silence (no refusal) from Redis: each word gives up after its time-out,
    so the words queued behind it on the lock are not held for ever."""
    monkeypatch.setattr(beacons, "SAYING_TIMEOUT", 0.05)

    async def run() -> list[str]:
        here = RedisBeacons(SlowRedis(delay=3600.0), "process-a", ttl=60.0)
        words = [here.beat([("g1", 0)]), here.beat([("g1", 1)])]
        results = await asyncio.wait_for(asyncio.gather(*words, return_exceptions=True), 2.0)
        return [type(r).__name__ for r in results]

    assert asyncio.run(run()) == ["TimeoutError", "TimeoutError"]
