"""One WebSocket per seat (or spectator) at a table: ``/ws/ID``.

The first message is ``hello`` (a seat's token, or ``watch``); then the
browser's moves go to its :class:`~marjolet.web.tables.Table`, which checks
them through the core's turn driver. Each connection has its own outgoing
queue drained by its own task, so a slow reader never holds up a table, and
its own rate limit.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from typing import Any

from fastapi import APIRouter, WebSocket
from starlette.websockets import WebSocketDisconnect, WebSocketState

from marjolet.web import protocol, security
from marjolet.web.api import TokenBucket
from marjolet.web.config import WebConfig
from marjolet.web.hub import Hub
from marjolet.web.tables import Table, TableError, error_message

log = logging.getLogger("marjolet.web")

#: Pause that lets a last error message reach the browser before closing.
FLUSH_PAUSE_S = 0.05
#: At most one "rate limited" log line per this many seconds for a flooding browser.
RATE_WARNING_INTERVAL_S = 1.0


class Connection:
    """One browser's WebSocket: an outgoing queue drained by its own task,
    so that a slow reader never holds up a table."""

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

    def send(self, text: str) -> None:
        if self.overflowed:
            return
        try:
            self.queue.put_nowait(text)
        except asyncio.QueueFull:  # the browser stopped reading: let it go
            self.overflowed = True

    def error(
        self, code: str, message: str, key: str = "", params: dict[str, Any] | None = None
    ) -> None:
        """Refuse with ``code``; the browser shows the catalogue text ``key``
        (default ``error.<code>``) with ``params``, else ``message``."""
        log.warning("%s: rejected (%s): %s", self.where, code, message)
        self.send(error_message(code, message, key, params))

    def refuse(self, exc: TableError) -> None:
        self.error(exc.code, str(exc), exc.key, exc.params)

    async def pump(self) -> None:
        while True:
            text = await self.queue.get()
            if self.overflowed:
                log.warning("%s: closed: the browser does not read its messages", self.where)
                await self.ws.close(code=1008, reason="not reading")
                return
            await self.ws.send_text(text)


def socket_router(hub: Hub, config: WebConfig) -> APIRouter:
    """The table WebSocket of one application."""
    router = APIRouter()

    @router.websocket("/ws/{game_id}")
    async def table_socket(ws: WebSocket, game_id: str) -> None:
        origin = ws.headers.get("origin")
        if origin is not None and not security.same_origin(origin, ws.headers.get("host")):
            log.warning("ws %s: refused a connection from origin %r", game_id[:32], origin[:100])
            await ws.close(code=4403, reason="cross-site connection refused")
            return
        await ws.accept()
        conn = Connection(ws, config)
        conn.where = f"game {game_id[:32]}"
        pump = asyncio.create_task(conn.pump())
        table: Table | None = None
        try:
            table = await _hello(ws, conn, game_id)
            if table is None:
                await asyncio.sleep(FLUSH_PAUSE_S)  # let the error go out first
                return
            await _serve(ws, conn, table)
        except WebSocketDisconnect:
            pass
        except Exception:
            log.exception("%s: connection failed", conn.where)
        finally:
            if table is not None:
                table.detach(conn)
            pump.cancel()
            with contextlib.suppress(BaseException):
                await pump
            if ws.application_state == WebSocketState.CONNECTED:
                with contextlib.suppress(Exception):
                    await ws.close()

    async def _receive_text(ws: WebSocket) -> str | bytes | None:
        message = await ws.receive()
        if message["type"] == "websocket.disconnect":
            raise WebSocketDisconnect(message.get("code", 1000))
        text: str | None = message.get("text")
        if text is not None:
            return text
        data: bytes | None = message.get("bytes")
        return data

    async def _hello(ws: WebSocket, conn: Connection, game_id: str) -> Table | None:
        try:
            raw = await asyncio.wait_for(_receive_text(ws), config.hello_timeout)
        except TimeoutError:
            conn.error("timeout", "no 'hello' message: say which seat you take")
            return None
        try:
            msg = protocol.parse_message(raw, config.max_message)
        except protocol.ProtocolError as exc:
            conn.error(exc.code, str(exc), "error.protocol")
            if security.too_large_to_keep(raw):
                await _close_too_big(ws)
            return None
        if not isinstance(msg, protocol.Hello):
            conn.error("hello_first", "the first message must be 'hello' with your seat's token")
            return None
        try:
            table = await hub.table(game_id)
        except TableError as exc:
            conn.refuse(exc)
            return None
        if msg.token is not None:
            seat = table.seat_of(msg.token)
            if seat is None:
                conn.error("bad_token", "this token does not hold a seat at this table")
                return None
            conn.seat = seat
        elif table.has_humans:
            conn.error("no_spectators", "only bot-vs-bot matches can be watched")
            return None
        conn.where = (
            f"game {table.id} {'seat ' + str(conn.seat) if conn.seat is not None else 'spectator'}"
        )
        await table.attach(conn)
        return table

    async def _serve(ws: WebSocket, conn: Connection, table: Table) -> None:
        while True:
            raw = await _receive_text(ws)
            if not conn.bucket.take():
                conn.dropped += 1
                # every refused message is answered, so no client waits for a reply
                conn.error(
                    "rate_limited",
                    "too many messages: slow down "
                    f"(at most {config.rate_per_second:g} a second); this one was dropped",
                    params={"rate": f"{config.rate_per_second:g}"},
                )
                now = time.monotonic()
                if now - conn.last_warning >= RATE_WARNING_INTERVAL_S:
                    conn.last_warning = now
                    log.warning("%s: rate limited", conn.where)
                if conn.dropped >= config.flood_close_after:
                    log.warning("%s: closed for flooding", conn.where)
                    await asyncio.sleep(FLUSH_PAUSE_S)
                    await ws.close(
                        code=1008, reason=security.flood_close_reason(config.rate_per_second)
                    )
                    return
                continue
            try:
                msg = protocol.parse_message(raw, config.max_message)
            except protocol.ProtocolError as exc:
                conn.error(exc.code, str(exc), "error.protocol")
                if security.too_large_to_keep(raw):
                    await _close_too_big(ws)
                    return
                continue
            try:
                await _handle(conn, table, msg)
            except TableError as exc:
                conn.refuse(exc)
            except Exception:
                log.exception("%s: failed to handle %s", conn.where, type(msg).__name__)
                conn.error("internal", "the server could not handle this message (it is logged)")

    async def _close_too_big(ws: WebSocket) -> None:
        """After the ``too_large`` error has gone out: close with 1009."""
        await asyncio.sleep(FLUSH_PAUSE_S)
        with contextlib.suppress(Exception):
            await ws.close(code=security.CLOSE_TOO_BIG, reason="message too big")

    async def _handle(conn: Connection, table: Table, msg: protocol.ClientMessage) -> None:
        if isinstance(msg, protocol.Ping):
            conn.send('{"type": "pong"}')
            return
        if isinstance(msg, protocol.Hello):
            raise TableError("hello_twice", "already seated: 'hello' is only the first message")
        if conn.seat is None:
            raise TableError("spectator", "spectators cannot play")
        if isinstance(msg, protocol.Act):
            await table.act(conn.seat, msg.action, msg.version)
        elif isinstance(msg, protocol.Next):
            await table.next_deal(msg.version)
        elif isinstance(msg, protocol.Hint):
            conn.send(json.dumps(await table.hint(conn.seat)))

    return router
