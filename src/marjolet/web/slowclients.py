"""Guards against slow and greedy connections (issue 21).

uvicorn (0.54) closes an *idle* keep-alive connection after
``timeout_keep_alive`` seconds, but has no time limit for a request that
arrives slowly: a client that sends half a header line and then nothing
holds its connection (a socket, a file descriptor) forever, and 300 such
clients exhaust the server's files. Hence:

- :func:`guarded_http_protocol`: uvicorn's HTTP protocol (``--http``) with a
  **header timeout** (a connection whose request headers are not complete
  within ``header_timeout`` seconds of its opening, or of its previous
  answer, is answered 408 and closed) and a **cap of open connections per
  client address** (the one over the cap is answered 503 and closed),
  except a reverse proxy's addresses (``--behind-proxy``);
- :class:`BodyTimeout` (ASGI middleware): a request body that stops coming
  for ``timeout`` seconds is answered 408 (``http_408``).

A connection upgraded to a WebSocket is the WebSocket protocol's from then
on (its pings time out a dead peer); it still counts towards its address's
cap while it is open.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from uvicorn.protocols.http.auto import AutoHTTPProtocol

__all__ = ["BodyTimeout", "ConnectionBook", "guarded_http_protocol"]

log = logging.getLogger("marjolet.web")

TOO_SLOW = (
    b"HTTP/1.1 408 Request Timeout\r\ncontent-type: text/plain\r\n"
    b"content-length: 31\r\nconnection: close\r\n\r\nthe request came too slowly.\r\n\r\n"
)
TOO_MANY = (
    b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: text/plain\r\n"
    b"content-length: 41\r\nconnection: close\r\n\r\ntoo many connections from this address\r\n\r\n"
)


class ConnectionBook:
    """The open connections (transports) of each client address.

    ``uncapped``: the addresses of a reverse proxy in front of the server,
    through which every client's connection comes (the proxy limits each
    client); any other address keeps the cap, so a client that reaches the
    server directly, around the proxy, is limited as without one."""

    def __init__(self, most: int, uncapped: frozenset[str] = frozenset()) -> None:
        self.most = most
        self.uncapped = uncapped
        self._open: dict[str, set[Any]] = {}

    def admit(self, address: str, transport: Any) -> bool:
        """Count ``transport`` for ``address``; False if it already has
        ``most`` open (closed ones are forgotten here, lazily) and is not a
        proxy's."""
        live = {t for t in self._open.get(address, ()) if not t.is_closing()}
        if len(live) >= self.most and address not in self.uncapped:
            self._open[address] = live
            return False
        live.add(transport)
        self._open[address] = live
        if len(self._open) > 10_000:  # forget addresses with nothing open
            self._open = {
                a: s for a, s in self._open.items() if any(not t.is_closing() for t in s)
            }
        return True

    def open_count(self, address: str) -> int:
        return sum(1 for t in self._open.get(address, ()) if not t.is_closing())


def guarded_http_protocol(
    header_timeout: float, max_per_address: int, proxies: frozenset[str] = frozenset()
) -> type[asyncio.Protocol]:
    """uvicorn's HTTP protocol with the header timeout and the per-address
    cap, which the ``proxies``' addresses do not have (see the module
    docstring); pass it as ``uvicorn.Config(http=...)``."""
    book = ConnectionBook(max_per_address, proxies)

    class GuardedHTTP(AutoHTTPProtocol):  # type: ignore[valid-type,misc]
        _header_timer: asyncio.TimerHandle | None = None
        _waited_after: Any = None

        def connection_made(self, transport: asyncio.BaseTransport) -> None:
            super().connection_made(transport)
            peer = transport.get_extra_info("peername")
            address = str(peer[0]) if peer else "?"
            if not book.admit(address, transport):
                log.warning("refused a connection from %s: too many open", address)
                assert isinstance(transport, asyncio.WriteTransport)
                transport.write(TOO_MANY)
                transport.close()
                return
            self._watch_headers()

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            self._watch_headers()

        def _watch_headers(self) -> None:
            """Between requests, a timer runs until the next request's headers
            are complete (a new cycle); it stops once they are."""
            cycle = self.cycle
            between = cycle is None or cycle.response_complete
            if between and self._header_timer is None:
                self._waited_after = cycle
                self._header_timer = self.loop.call_later(header_timeout, self._too_slow)
            elif not between and self._header_timer is not None:
                self._header_timer.cancel()
                self._header_timer = None

        def _too_slow(self) -> None:
            self._header_timer = None
            transport = self.transport
            if transport is None or transport.is_closing():
                return
            if transport.get_protocol() is not self:  # a WebSocket now
                return
            cycle = self.cycle
            if cycle is not self._waited_after and cycle is not None:
                return  # a request came in time
            transport.write(TOO_SLOW)
            transport.close()

        def connection_lost(self, exc: Exception | None) -> None:
            if self._header_timer is not None:
                self._header_timer.cancel()
                self._header_timer = None
            super().connection_lost(exc)

    return GuardedHTTP


class BodyTimeout:
    """Answer 408 to a request whose body stops coming for ``timeout`` seconds."""

    def __init__(self, app: ASGIApp, timeout: float) -> None:
        self.app = app
        self.timeout = timeout

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        complete = False

        async def timed_receive() -> Message:
            nonlocal complete
            if complete:  # the body is in: waiting for a disconnect is fine
                return await receive()
            try:
                message = await asyncio.wait_for(receive(), self.timeout)
            except TimeoutError:
                raise HTTPException(
                    408, f"the request body came too slowly (the limit is {self.timeout:g} s)"
                ) from None
            if message["type"] != "http.request" or not message.get("more_body", False):
                complete = True
            return message

        await self.app(scope, timed_receive, send)
