"""Which seats have a connection on some server process: a heartbeat in Redis.

Each process keeps its own connections (:mod:`marjolet.web.presence`). With
several processes a seat may be connected to another one, and must not then
count as *away* here: its opponent would be shown a countdown and offered
a claim while it plays on. So every process, at each sweep of the hub,
says in Redis which seats it holds (a sorted set per game and seat:
member = the process, score = when its word runs out), takes its word back
when a seat's last connection leaves, and asks, for a seat it does not
hold, whether a live process does. A process that dies stops beating and
its word runs out after ``ttl`` seconds: the seat is then away.

A process's own words reach Redis in the order it says them (one lock):
a sweep's beat that was on its way when a seat's last connection closed
never lands after the "gone", which would have shown the seat held here
for ``ttl`` more seconds, and so ended its opponent's countdown of it.

Only game ids, seat numbers and process names go to Redis.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterable
from typing import Any, Protocol

#: The key of one seat's holders.
KEY = "marjolet:here:{game}:{seat}"
#: Seconds one word may take to reach Redis: a server that stopped answering
#: (no refusal, only silence) never holds the words queued behind it longer.
SAYING_TIMEOUT = 5.0


class Beacons(Protocol):
    """What the hub needs to know of the seats held elsewhere."""

    async def beat(self, seats: Iterable[tuple[str, int]]) -> None: ...

    async def gone(self, game_id: str, seat: int) -> None: ...

    async def elsewhere(self, game_id: str, seat: int) -> bool: ...


class NoBeacons:
    """One process: no seat is ever held elsewhere."""

    async def beat(self, seats: Iterable[tuple[str, int]]) -> None:
        return None

    async def gone(self, game_id: str, seat: int) -> None:
        return None

    async def elsewhere(self, game_id: str, seat: int) -> bool:
        return False


class RedisBeacons:
    """The seats' holders in Redis sorted sets (``redis.asyncio`` client)."""

    def __init__(
        self,
        redis: Any,
        process: str,
        ttl: float,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.redis = redis
        self.process = process
        self.ttl = ttl
        self.clock = clock
        self._saying = asyncio.Lock()  # this process's words, in order

    @staticmethod
    def key(game_id: str, seat: int) -> str:
        return KEY.format(game=game_id, seat=seat)

    async def beat(self, seats: Iterable[tuple[str, int]]) -> None:
        """This process holds ``seats`` (game, seat) for ``ttl`` more seconds."""
        seats = list(seats)  # (read now: a seat that leaves meanwhile says "gone" after)
        if not seats:
            return
        async with self._saying:
            until = self.clock() + self.ttl
            pipe = self.redis.pipeline(transaction=False)
            for game_id, seat in seats:
                key = self.key(game_id, seat)
                pipe.zadd(key, {self.process: until})
                pipe.expire(key, max(60, int(self.ttl * 10)))  # a forgotten game's key goes
            async with asyncio.timeout(SAYING_TIMEOUT):
                await pipe.execute()

    async def gone(self, game_id: str, seat: int) -> None:
        """This process no longer holds the seat."""
        async with self._saying, asyncio.timeout(SAYING_TIMEOUT):
            await self.redis.zrem(self.key(game_id, seat), self.process)

    async def elsewhere(self, game_id: str, seat: int) -> bool:
        """Another live process holds the seat."""
        holders = await self.redis.zrangebyscore(self.key(game_id, seat), self.clock(), "+inf")
        mine = self.process.encode()
        return any(h not in (mine, self.process) for h in holders)
