"""Rate limits shared by every request handler, and by every process.

Each limit is named by what it protects (``login``, ``signup``, ``seek``,
``rematch``, ``hint``, ``replay``, ...) and counted per key: a client
address, an account name, a seat. The counting is the ``limits`` library's
moving window: in memory for the embedded server, in Redis when several
processes serve the same games (``--broker redis://...``), so that a
client cannot multiply its allowance by reaching another process.

>>> limits = RateLimits({"login": "3/minute"})
>>> [limits.hit("login", "127.0.0.1") for _ in range(4)]
[True, True, True, False]
>>> limits.hit("login", "127.0.0.2")
True
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping

from limits import RateLimitItem, parse
from limits.errors import StorageError
from limits.storage import MemoryStorage, Storage, storage_from_string
from limits.strategies import MovingWindowRateLimiter

log = logging.getLogger("marjolet.web")

#: The server's limits (``limits`` notation: "N/second|minute|hour").
DEFAULT_LIMITS: Mapping[str, str] = {
    "login": "10/minute",  # per address and per name: password guessing
    "signup": "5/hour",  # per address
    "seek": "20/minute",  # per address or account
    "rematch": "10/minute",  # per address and per seat
    "hint": "30/minute",  # per address and per seat
    "review": "6/minute",  # per address
    "replay": "10/minute",  # per address
}


def _storage(uri: str | None) -> Storage:
    """Memory for one process, else the (synchronous) storage of ``uri``
    (its failures raised as :class:`~limits.errors.StorageError`)."""
    if uri is None:
        return MemoryStorage()
    options = {"socket_timeout": 2.0, "socket_connect_timeout": 2.0}  # never hang a request
    storage = storage_from_string(uri, wrap_exceptions=True, **options)
    if not isinstance(storage, Storage):
        raise ValueError(f"rate-limit storage {uri!r} is not a synchronous storage")
    return storage


class RateLimits:
    """Named moving-window limits over one storage."""

    def __init__(
        self, limits: Mapping[str, str] | None = None, storage_uri: str | None = None
    ) -> None:
        self.items: dict[str, RateLimitItem] = {
            name: parse(text) for name, text in (limits or DEFAULT_LIMITS).items()
        }
        self.storage = _storage(storage_uri)
        self.limiter = MovingWindowRateLimiter(self.storage)
        #: Counts kept in this process while the shared storage (Redis) fails:
        #: limits still hold, per process, rather than none or a refusal.
        self.fallback = MovingWindowRateLimiter(MemoryStorage())
        self._failing = False

    def hit(self, name: str, key: str) -> bool:
        """Count one use of ``name`` by ``key``; False once it is over its limit."""
        try:
            allowed = bool(self.limiter.hit(self.items[name], name, key))
        except StorageError as exc:
            if not self._failing:
                log.warning("rate limits counted in this process: the storage failed: %s", exc)
            self._failing = True
            return bool(self.fallback.hit(self.items[name], name, key))
        if self._failing:
            log.info("rate limits are shared again")
            self._failing = False
        return allowed

    def allows(self, name: str, *keys: str) -> bool:
        """Count one use for each key (an address, a name, a seat); False
        if any of them is over the limit (each is counted all the same)."""
        results = [self.hit(name, key) for key in keys]
        return all(results)

    def retry_after(self, name: str, key: str) -> float:
        """Seconds until ``key`` may use ``name`` again (0 if it may now)."""
        limiter = self.fallback if self._failing else self.limiter
        try:
            stats = limiter.get_window_stats(self.items[name], name, key)
        except StorageError:
            stats = self.fallback.get_window_stats(self.items[name], name, key)
        if stats.remaining > 0:
            return 0.0
        return max(0.0, stats.reset_time - time.time())

    def clear(self) -> None:
        """Forget every count (tests, and an operator's reset)."""
        self.storage.reset()
        self.fallback = MovingWindowRateLimiter(MemoryStorage())
