"""The web server's guards against other sites and greedy clients (issue 15).

- :class:`CrossSiteGuard` (ASGI middleware): a request that changes state
  (``POST``, ``PUT``, ``PATCH``, ``DELETE`` under ``/api/``) must say
  ``Content-Type: application/json`` and, when it sends ``Origin``, come
  from the server's own origin (the ``Host`` it was sent to). A page on
  another site can only send "simple" requests (``text/plain``, forms)
  without the browser asking first, so it cannot start games here. The
  record upload (``POST /api/replay``) changes nothing and takes the file as
  it is, so only the origin rule applies to it.
- :class:`DeclaredLength` (ASGI middleware): a request whose
  ``Content-Length`` is over its endpoint's limit is refused with the JSON
  ``too_large`` error before any of its body is read. (A body sent without
  a length is stopped by FastAPI's ``max_body_size`` as it arrives.)
- :class:`WatchCaps`: how many watched bot-vs-bot matches may run at once,
  per client address and in all, so that no one can fill the bot threads
  that people's games need.
- :class:`TokenBucket` (a WebSocket's messages) and :class:`AddressBuckets`
  (new games per client address): rates with bursts.
- :func:`too_large_to_keep`: a WebSocket message so large that, after its
  one-line ``too_large`` error, the connection is closed (code 1009).
- :func:`flood_close_reason`: the close reason of a flooding connection.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable
from urllib.parse import urlsplit

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

from marjolet.web.errors import WebError, too_large

#: Methods that change state.
UNSAFE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
#: Endpoints that take a body other than JSON (and change nothing).
NOT_JSON = frozenset({"/api/replay"})
#: A WebSocket message above this is answered ``too_large`` and the
#: connection closed with 1009 (smaller oversized ones are only refused).
CLOSE_ABOVE = 64 * 1024
#: The largest frame the WebSocket transport (uvicorn) reads at all; above
#: it the transport closes with 1009 without the application seeing it.
TRANSPORT_MAX = 1024 * 1024
#: WebSocket close code of a message too big (RFC 6455).
CLOSE_TOO_BIG = 1009


def same_origin(origin: str, host: str | None) -> bool:
    """Whether an ``Origin`` header names the server the request was sent
    to (same host and port as the ``Host`` header)."""
    try:
        parts = urlsplit(origin)
    except ValueError:
        return False
    return parts.scheme in ("http", "https") and host is not None and (
        parts.netloc.lower() == host.lower()
    )


class CrossSiteGuard:
    """Refuse cross-site and non-JSON state-changing API requests (see the
    module docstring) with a JSON error, before any work is done."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] in UNSAFE_METHODS:
            path: str = scope["path"]
            if path.startswith("/api/"):
                refusal = self.refusal(path, Headers(scope=scope))
                if refusal is not None:
                    await _json_error(send, refusal)
                    return
        await self.app(scope, receive, send)

    @staticmethod
    def refusal(path: str, headers: Headers) -> WebError | None:
        origin = headers.get("origin")
        if origin is not None and not same_origin(origin, headers.get("host")):
            return WebError("cross_site", f"cross-site request refused (origin {origin[:80]!r})")
        if path not in NOT_JSON:
            kind = headers.get("content-type", "").split(";")[0].strip().lower()
            if kind != "application/json":
                return WebError(
                    "not_json", "the request body must be JSON (Content-Type: application/json)"
                )
        return None


async def _json_error(send: Send, error: WebError) -> None:
    body = json.dumps({"error": error.to_json()}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": error.status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                (b"cache-control", b"no-store"),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


class DeclaredLength:
    """Refuse a declared body over its endpoint's limit (see the module
    docstring): ``limits`` maps a path to its limit, others have ``default``."""

    def __init__(self, app: ASGIApp, default: int, limits: dict[str, int]) -> None:
        self.app = app
        self.default = default
        self.limits = limits

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            declared = Headers(scope=scope).get("content-length")
            limit = self.limits.get(scope["path"], self.default)
            if declared is not None and (not declared.isdigit() or int(declared) > limit):
                await _json_error(send, too_large(limit))
                return
        await self.app(scope, receive, send)


class WatchCaps:
    """Running watched matches, by the address that started them."""

    def __init__(self, per_address: int, total: int) -> None:
        self.per_address = per_address
        self.total = total
        self._owner: dict[str, str] = {}

    def refusal(
        self, address: str, running: Iterable[str]
    ) -> tuple[str, str, dict[str, int]] | None:
        """Why ``address`` may not start one more watched match now (``None``:
        it may): the English line, its catalogue key and the key's values.
        ``running``: the ids of the watched matches under way."""
        live = set(running)
        self._owner = {g: a for g, a in self._owner.items() if g in live}
        if len(live) >= self.total:
            return (
                f"the server already runs {len(live)} bot matches (its limit); "
                "watch one of them or try again later",
                "error.watch_server_full",
                {"n": len(live)},
            )
        mine = sum(1 for a in self._owner.values() if a == address)
        if mine >= self.per_address:
            return (
                f"you already run {mine} bot matches (the limit is {self.per_address}); "
                "let one finish first",
                "error.watch_address_full",
                {"n": mine, "most": self.per_address},
            )
        return None

    def started(self, game_id: str, address: str) -> None:
        self._owner[game_id] = address


class TokenBucket:
    """``rate`` events a second with bursts of ``burst``."""

    def __init__(self, rate: float, burst: float) -> None:
        self.rate = rate
        self.burst = burst
        self.tokens = burst
        self.stamp = time.monotonic()

    def take(self) -> bool:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        return False


class AddressBuckets:
    """A :class:`TokenBucket` per client address: ``per_minute`` events a
    minute, with bursts of as many. The memory of addresses is cleared when
    it passes ``most`` (a flood of addresses cannot grow it without end)."""

    def __init__(self, per_minute: float, most: int = 10_000) -> None:
        self.per_minute = per_minute
        self.most = most
        self._buckets: dict[str, TokenBucket] = {}

    def take(self, address: str) -> bool:
        bucket = self._buckets.setdefault(
            address, TokenBucket(self.per_minute / 60.0, self.per_minute)
        )
        allowed = bucket.take()
        if len(self._buckets) > self.most:
            self._buckets.clear()
        return allowed


def too_large_to_keep(raw: str | bytes | None) -> bool:
    """A message whose sender is disconnected after its ``too_large`` error."""
    if raw is None:
        return False
    size = len(raw.encode("utf-8")) if isinstance(raw, str) else len(raw)
    return size > CLOSE_ABOVE


def flood_close_reason(limit: float) -> str:
    """The close reason of a connection closed for flooding (at most 123 bytes)."""
    return f"closed: too many messages (the limit is {limit:g} a second)"


class Guards:
    """One application's allowances: new games per address, watched matches."""

    def __init__(self, games_per_minute: float, watch_per_address: int, watch_total: int) -> None:
        self.new_games = AddressBuckets(games_per_minute)
        self.watches = WatchCaps(watch_per_address, watch_total)
