"""``/ws/ID``: one WebSocket per seat (or spectator) at a table.

The first message is ``hello`` (a seat's token, or ``watch``); then the
browser's messages (:mod:`~marjolet.web.protocol`) go to its
:class:`~marjolet.web.tables.Table`, which checks a move once and applies
it. Each connection (:class:`~marjolet.web.connection.Connection`) has its
own outgoing queue and rate limit; every refusal goes to that connection
only, as an ``error`` message (:mod:`~marjolet.web.errors`).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time

from fastapi import APIRouter, WebSocket
from starlette.websockets import WebSocketDisconnect, WebSocketState

from marjolet.web import protocol, security
from marjolet.web.accounts import token_digest
from marjolet.web.config import WebConfig
from marjolet.web.connection import Connection
from marjolet.web.deps import ConfigDep, HubDep, within_limit
from marjolet.web.errors import WebError
from marjolet.web.hub import Hub
from marjolet.web.online import SESSION_COOKIE, Online, close_for_session
from marjolet.web.tables import Table

log = logging.getLogger("marjolet.web")

#: Times a connection is seated again at a table that left memory under it.
ATTACH_TRIES = 3
#: Pause that lets a last error message reach the browser before closing.
FLUSH_PAUSE_S = 0.05
#: At most one "rate limited" log line per this many seconds for a flooding browser.
RATE_WARNING_INTERVAL_S = 1.0

router = APIRouter()


@router.websocket("/ws/{game_id}")
async def table_socket(ws: WebSocket, game_id: str, hub: HubDep, config: ConfigDep) -> None:
    """Seat the connection, then serve its messages until it goes."""
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
        table = await _hello(conn, hub, config, game_id)
        if table is None:
            await asyncio.sleep(FLUSH_PAUSE_S)  # let the error go out first
            return
        await _serve(conn, table, config)
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


async def _receive(ws: WebSocket) -> str | bytes | None:
    """The next frame's text (or bytes); a disconnect raises."""
    message = await ws.receive()
    if message["type"] == "websocket.disconnect":
        raise WebSocketDisconnect(message.get("code", 1000))
    text: str | None = message.get("text")
    if text is not None:
        return text
    data: bytes | None = message.get("bytes")
    return data


#: Why an account's hello holds no seat: the visitor is no player here.
NOT_THIS_ACCOUNT_S = ("login_required", "session_ended", "bad_token")


async def _hello(conn: Connection, hub: Hub, config: WebConfig, game_id: str) -> Table | None:
    """The table the first message seats this connection at (``None``:
    refused, and told why)."""
    try:
        raw = await asyncio.wait_for(_receive(conn.ws), config.hello_timeout)
    except TimeoutError:
        conn.refuse(WebError("timeout", "no 'hello' message: say which seat you take"))
        return None
    msg = await _parse(conn, raw, config)
    if msg is None:
        return None
    try:
        if not isinstance(msg, protocol.Hello):
            raise WebError(
                "hello_first", "the first message must be 'hello' with your seat's token"
            )
        table = await hub.table(game_id)
        if msg.account:
            conn.seat = await _account_seat(conn, table)
        else:
            conn.seat = _seat(table, msg)
    except WebError as exc:
        # a page asks first whether the visitor's account holds a seat here;
        # "no" is the usual answer of a spectator, not worth a warning
        asked = isinstance(msg, protocol.Hello) and msg.account
        conn.refuse(exc, quiet=asked and exc.code in NOT_THIS_ACCOUNT_S)
        return None
    if conn.seat is not None and table.owner.startswith("game:") and conn.ws.client:
        table.owner = conn.ws.client.host  # a resumed table: its player's share
    where = f"seat {conn.seat}" if conn.seat is not None else "spectator"
    conn.where = f"game {table.id} {where}"
    for _ in range(ATTACH_TRIES):  # a table that left memory meanwhile: load it again
        if await table.attach(conn):
            return table
        try:
            table = await hub.table(game_id)
        except WebError as exc:
            conn.refuse(exc)
            return None
    conn.refuse(WebError("closed", "this table is closing; reconnect in a moment"))
    return None


async def _account_seat(conn: Connection, table: Table) -> int:
    """The seat the logged-in account (the session cookie) holds here; the
    connection remembers the session, whose end closes it."""
    online: Online = conn.ws.app.state.online
    token = conn.ws.cookies.get(SESSION_COOKIE)
    if not token:
        raise WebError("login_required", "log in to take your account's seat")
    account = await online.account_of(token)
    if account is None:  # the cookie of a session that ended: this device was logged out
        raise WebError("session_ended", "this device is no longer logged in: log in again")
    seat = await asyncio.to_thread(online.lobby.seat_of, table.id, account.id)
    if seat is None:
        raise WebError("bad_token", "your account does not hold a seat at this table")
    conn.account_id, conn.session = account.id, token_digest(token)
    return seat


def _seat(table: Table, hello: protocol.Hello) -> int | None:
    """The seat a ``hello`` takes (``None``: a spectator)."""
    if hello.token is not None:
        seat = table.seat_of(hello.token)
        if seat is None:
            raise WebError("bad_token", "this token does not hold a seat at this table")
        return seat
    if table.has_humans and not table.public:
        raise WebError("no_spectators", "only bot-vs-bot matches can be watched")
    return None


async def _parse(
    conn: Connection, raw: str | bytes | None, config: WebConfig
) -> protocol.ClientMessage | None:
    """The message, or ``None`` once the browser is told why not (a message
    too large to keep also closes the connection)."""
    try:
        return protocol.parse_message(raw, config.max_message)
    except protocol.ProtocolError as exc:
        conn.refuse(WebError(exc.code, str(exc), key="error.protocol"))
        if security.too_large_to_keep(raw):
            await asyncio.sleep(FLUSH_PAUSE_S)
            with contextlib.suppress(Exception):
                await conn.ws.close(code=security.CLOSE_TOO_BIG, reason="message too big")
        return None


async def _serve(conn: Connection, table: Table, config: WebConfig) -> None:
    """Answer the seated connection's messages, one at a time."""
    while conn.ws.application_state == WebSocketState.CONNECTED:
        raw = await _receive(conn.ws)
        if not conn.bucket.take():
            if await _flooded(conn, config):
                return
            continue
        msg = await _parse(conn, raw, config)
        if msg is None:
            continue
        try:
            await _handle(conn, table, msg)
        except WebError as exc:
            conn.refuse(exc)
        except Exception:
            log.exception("%s: failed to handle %s", conn.where, type(msg).__name__)
            conn.refuse(
                WebError("internal", "the server could not handle this message (it is logged)")
            )


async def _flooded(conn: Connection, config: WebConfig) -> bool:
    """A message over the rate limit: dropped, and answered (so no client
    waits for a reply); ``True`` once the connection is closed for flooding."""
    rate = config.rate_per_second
    conn.dropped += 1
    conn.refuse(
        WebError(
            "rate_limited",
            f"too many messages: slow down (at most {rate:g} a second); this one was dropped",
            params={"rate": f"{rate:g}"},
        )
    )
    now = time.monotonic()
    if now - conn.last_warning >= RATE_WARNING_INTERVAL_S:
        conn.last_warning = now
        log.warning("%s: rate limited", conn.where)
    if conn.dropped < config.flood_close_after:
        return False
    log.warning("%s: closed for flooding", conn.where)
    await asyncio.sleep(FLUSH_PAUSE_S)
    await conn.ws.close(code=1008, reason=security.flood_close_reason(rate))
    return True


async def _still_logged_in(conn: Connection) -> bool:
    """Whether the session that proved the connection's account seat still
    exists (one query): else the connection is closed, as every process
    closes it when it hears that the session ended; this check is what
    holds when that word was lost on the bus."""
    online: Online = conn.ws.app.state.online
    assert conn.session is not None
    if conn.session in await asyncio.to_thread(online.accounts.live_sessions, {conn.session}):
        return True
    log.info("%s: closed: its session ended", conn.where)
    await close_for_session([conn])
    return False


async def _handle(conn: Connection, table: Table, msg: protocol.ClientMessage) -> None:
    if isinstance(msg, protocol.Ping):
        conn.send('{"type": "pong"}')
        return
    if isinstance(msg, protocol.Hello):
        raise WebError("hello_twice", "already seated: 'hello' is only the first message")
    if conn.seat is None:
        raise WebError("spectator", "spectators cannot play")
    if conn.session is not None and not await _still_logged_in(conn):
        return
    if isinstance(msg, protocol.Act):
        await table.act(conn.seat, msg.action, msg.version)
    elif isinstance(msg, protocol.Claim):
        await table.claim(conn.seat)
    elif isinstance(msg, protocol.Resign):
        await table.resign(conn.seat)
    elif isinstance(msg, protocol.Next):
        await table.next_deal(msg.version)
    elif isinstance(msg, protocol.Hint):
        client = conn.ws.client.host if conn.ws.client else "?"
        within_limit(conn.ws.app.state.limits, "hint", client, f"{table.id}/{conn.seat}")
        conn.send(json.dumps(await table.hint(conn.seat, client)))
