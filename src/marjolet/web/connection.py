"""One browser's WebSocket as a table sees it (a seat, or a spectator).

:class:`Connection` is the :class:`~marjolet.web.tables.Peer` of a socket:
an outgoing queue drained by its own task (:meth:`Connection.pump`), so a
slow reader never holds up a table, and its own rate limit.
"""

from __future__ import annotations

import asyncio
import logging

from fastapi import WebSocket

from marjolet.web.config import WebConfig
from marjolet.web.errors import WebError, error_message
from marjolet.web.security import TokenBucket

log = logging.getLogger("marjolet.web")


class Connection:
    """One browser's WebSocket (see the module docstring)."""

    QUEUE = 512

    def __init__(self, ws: WebSocket, config: WebConfig) -> None:
        self.ws = ws
        self.seat: int | None = None
        self.queue: asyncio.Queue[str] = asyncio.Queue(self.QUEUE)
        self.overflowed = False
        self.bucket = TokenBucket(config.rate_per_second, config.rate_burst)
        self.dropped = 0
        self.last_warning = 0.0
        self.where = "?"
        #: A seat taken as an account's (``hello`` with ``account``): the
        #: account and the digest of the session that proved it, so that the
        #: socket is closed when that session ends, on any process
        #: (Online.sessions_ended), and proves it again before each move.
        self.account_id: int | None = None
        self.session: str | None = None

    def send(self, text: str) -> None:
        """Queue a message; never blocks (a full queue lets the browser go)."""
        if self.overflowed:
            return
        try:
            self.queue.put_nowait(text)
        except asyncio.QueueFull:  # the browser stopped reading: let it go
            self.overflowed = True

    def refuse(self, exc: WebError, *, quiet: bool = False) -> None:
        """Tell this browser (only) why its message was refused, and log it
        (at INFO when ``quiet``: an answer the page expects, not a fault)."""
        level = logging.INFO if quiet else logging.WARNING
        log.log(level, "%s: rejected (%s): %s", self.where, exc.code, exc.message)
        self.send(error_message(exc))

    async def pump(self) -> None:
        while True:
            text = await self.queue.get()
            if self.overflowed:
                log.warning("%s: closed: the browser does not read its messages", self.where)
                await self.ws.close(code=1008, reason="not reading")
                return
            await self.ws.send_text(text)
