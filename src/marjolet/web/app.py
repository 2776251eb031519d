"""The FastAPI application: pages, the JSON API and one WebSocket per seat.

Pages (static files, no build step): ``/`` lobby, ``/game/ID`` table,
``/history`` games list, ``/replay`` replay viewer. API:

========================================  =========================================
``GET  /api/options``                     bot choices, rule profiles and settings
``POST /api/games``                       new game: ``{"mode": "bot"|"friend"|"watch", ...}``
``POST /api/games/ID/join``               claim seat 1 with an invite code
``GET  /api/games``                       the history (every stored game)
``GET  /api/games/ID/record?form=json``   download the record (``json`` or ``text``)
``GET  /api/games/ID/replay``             every position, for the replay viewer
``POST /api/replay``                      upload a record: validated, then replayed
``WS   /ws/ID``                           a seat (or a spectator) at a table
========================================  =========================================

Every refusal is a JSON ``{"error": {"message": ...}}`` (HTTP) or
``{"type": "error", "code": ..., "message": ...}`` (WebSocket) sent to the
one client that caused it, and logged; nothing a client sends can stop a
table or the server.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from fastapi import FastAPI, Request, WebSocket
from fastapi.responses import FileResponse, JSONResponse, PlainTextResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.datastructures import Headers
from starlette.middleware.gzip import GZipMiddleware
from starlette.types import ASGIApp, Receive, Scope, Send
from starlette.websockets import WebSocketDisconnect, WebSocketState

from marjolet.errors import MarjoletError, RecordError
from marjolet.record import FORMAT, Record, loads, replay
from marjolet.rules import PROFILES, Rules
from marjolet.web import pages, protocol, views
from marjolet.web.botchoice import BotCatalogue
from marjolet.web.config import WebConfig
from marjolet.web.hub import Hub, clean_name
from marjolet.web.store import Store
from marjolet.web.tables import Table, TableError, error_message

log = logging.getLogger("marjolet.web")

STATIC = Path(__file__).resolve().parent / "static"
#: Longest record the replay viewer shows, in deals.
MAX_REPLAY_DEALS = 100

SECURITY_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
        "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
}


class ApiError(Exception):
    """An HTTP refusal with a one-line reason."""

    def __init__(self, status: int, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.extra = extra


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

    def error(self, code: str, message: str) -> None:
        log.warning("%s: rejected (%s): %s", self.where, code, message)
        self.send(error_message(code, message))

    async def pump(self) -> None:
        while True:
            text = await self.queue.get()
            if self.overflowed:
                log.warning("%s: closed: the browser does not read its messages", self.where)
                await self.ws.close(code=1008, reason="not reading")
                return
            await self.ws.send_text(text)


def create_app(config: WebConfig | None = None) -> FastAPI:
    """The application. The database is opened and the bot list checked
    here, so that a bad ``--db`` or ``--allow-bot`` fails before serving."""
    config = config or WebConfig()
    store = Store(config.database())
    try:
        catalogue = BotCatalogue.build(config.allowed_bots, defaults=config.default_bots)
    except MarjoletError:
        store.close()
        raise
    hub = Hub(config, store, catalogue)

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        await hub.startup()
        try:
            yield
        finally:
            await hub.shutdown()

    app = FastAPI(
        title="Marjolet",
        debug=False,
        docs_url=None,
        redoc_url=None,
        openapi_url=None,
        lifespan=lifespan,
    )
    app.state.hub = hub
    app.add_middleware(GZipMiddleware, minimum_size=4096)
    if config.allowed_hosts is not None:
        app.add_middleware(HostCheck, allowed=config.allowed_hosts)
    creations: dict[str, TokenBucket] = {}

    @app.middleware("http")
    async def security_headers(
        request: Request, call_next: Callable[[Request], Awaitable[Response]]
    ) -> Response:
        response = await call_next(request)
        for key, value in SECURITY_HEADERS.items():
            response.headers.setdefault(key, value)
        if request.url.path.startswith("/api/"):
            response.headers.setdefault("Cache-Control", "no-store")
        return response

    @app.exception_handler(ApiError)
    async def api_error(request: Request, exc: ApiError) -> JSONResponse:
        log.warning("%s %s: %s", request.method, request.url.path, exc.message)
        return JSONResponse(
            {"error": {"message": exc.message, **exc.extra}}, status_code=exc.status
        )

    @app.exception_handler(Exception)
    async def internal_error(request: Request, exc: Exception) -> JSONResponse:
        log.exception("%s %s failed", request.method, request.url.path)
        return JSONResponse(
            {"error": {"message": "internal error (logged on the server)"}}, status_code=500
        )

    # -- pages ----------------------------------------------------------------------------

    page = pages.page  # in the reader's language (<html lang>)

    @app.get("/", include_in_schema=False)
    async def lobby_page(request: Request) -> Response:
        return page("index.html", request)

    @app.get("/game/{game_id}", include_in_schema=False)
    async def table_page(game_id: str, request: Request) -> Response:
        return page("table.html", request)

    @app.get("/history", include_in_schema=False)
    async def history_page(request: Request) -> Response:
        return page("history.html", request)

    @app.get("/replay", include_in_schema=False)
    async def replay_page(request: Request) -> Response:
        return page("replay.html", request)

    pages.install(app, hub, ApiError)  # /rules, /i18n/*.json, rematch

    @app.get("/favicon.ico", include_in_schema=False)
    async def favicon() -> FileResponse:
        return FileResponse(STATIC / "favicon.svg", media_type="image/svg+xml")

    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    # -- API ------------------------------------------------------------------------------

    async def read_json(request: Request) -> dict[str, Any]:
        body = await read_body(request, config.max_request)
        try:
            obj = json.loads(body or b"{}")
        except (json.JSONDecodeError, UnicodeDecodeError, RecursionError):
            raise ApiError(400, "the request body is not valid JSON") from None
        if not isinstance(obj, dict):
            raise ApiError(400, "the request body must be a JSON object")
        return obj

    @app.get("/api/options")
    async def options() -> dict[str, Any]:
        return {
            "bots": hub.catalogue.public(),
            "default_bot": hub.catalogue.default,
            "hint_bot": hub.catalogue.hint_spec.split(":")[0],
            "profiles": {name: rules.to_json() for name, rules in PROFILES.items()},
            "settings": {
                "deal_pattern": [[3, 3], [2, 2, 2]],
                "jack_queen": ["trump-jack", "same-suit"],
                "target": [500, 1000],
            },
        }

    @app.post("/api/games")
    async def new_game(request: Request) -> dict[str, Any]:
        client = request.client.host if request.client else "?"
        bucket = creations.setdefault(
            client, TokenBucket(config.games_per_minute / 60.0, config.games_per_minute)
        )
        if not bucket.take():
            raise ApiError(429, "too many new games from this address; wait a minute")
        if len(creations) > 10_000:
            creations.clear()
        body = await read_json(request)
        mode = body.get("mode")
        if mode not in ("bot", "friend", "watch"):
            raise ApiError(
                400, f"'mode' must be 'bot', 'friend' or 'watch', got {str(mode)[:20]!r}"
            )
        try:
            rules = Rules.from_json(body.get("rules", "classic"))
        except MarjoletError as exc:
            raise ApiError(400, f"rules: {exc}") from None
        try:
            if mode == "bot":
                bots = [hub.catalogue.resolve(body.get("bot", hub.catalogue.default))]
            elif mode == "watch":
                pair = body.get("bots")
                if not isinstance(pair, list) or len(pair) != 2:
                    raise ApiError(400, "'bots' must name two bot choices")
                bots = [hub.catalogue.resolve(pair[0]), hub.catalogue.resolve(pair[1])]
            else:
                bots = []
        except MarjoletError as exc:
            raise ApiError(400, str(exc)) from None
        name = clean_name(body.get("name"), "you")
        new = await hub.create_game(mode, rules, name=name, bots=bots)
        out: dict[str, Any] = {
            "id": new.id,
            "seat": new.seat,
            "token": new.token,
            "url": f"/game/{new.id}",
        }
        if new.invite is not None:
            out["invite_url"] = f"/game/{new.id}#invite={new.invite}"
        return out

    @app.post("/api/games/{game_id}/join")
    async def join(game_id: str, request: Request) -> dict[str, Any]:
        body = await read_json(request)
        invite = body.get("invite")
        if not isinstance(invite, str) or not 0 < len(invite) <= 128:
            raise ApiError(400, "'invite' must be the code of the invite link")
        try:
            seat, token = await hub.join(game_id, invite, clean_name(body.get("name"), "friend"))
        except TableError as exc:
            raise ApiError(
                404 if exc.code == "not_found" else 403, str(exc), code=exc.code
            ) from None
        return {"id": game_id, "seat": seat, "token": token}

    @app.get("/api/games")
    async def history() -> dict[str, Any]:
        return {"games": await hub.summaries()}

    async def shareable(game_id: str) -> tuple[dict[str, Any], Record, bool]:
        try:
            game, record, complete = await hub.shareable_record(game_id)
        except TableError as exc:
            raise ApiError(404, str(exc)) from None
        return game.summary(), record, complete

    @app.get("/api/games/{game_id}/record")
    async def download(game_id: str, form: str = "json") -> Response:
        if form not in ("json", "text"):
            raise ApiError(400, "'form' must be 'json' or 'text'")
        summary, record, complete = await shareable(game_id)
        suffix = "" if complete else "-finished-deals"
        if form == "json":
            body, ext, media = record.dumps(), "json", "application/json"
        else:
            body, ext, media = record.to_text(), "txt", "text/plain; charset=utf-8"
        return Response(
            body,
            media_type=media,
            headers={
                "Content-Disposition": (
                    f'attachment; filename="marjolet-{summary["id"]}{suffix}.{ext}"'
                ),
                "X-Marjolet-Complete": "true" if complete else "false",
            },
        )

    @app.get("/api/games/{game_id}/replay")
    async def stored_replay(game_id: str) -> dict[str, Any]:
        summary, record, complete = await shareable(game_id)
        out = replay_payload(record)
        out["game"] = summary
        out["complete"] = complete
        return out

    @app.post("/api/replay")
    async def upload_replay(request: Request) -> dict[str, Any]:
        raw = await read_body(request, config.max_upload)
        if raw.startswith(b"\xef\xbb\xbf"):
            raise ApiError(
                400,
                "the file starts with a byte-order mark (BOM); save it as UTF-8 without BOM",
                code="bom",
            )
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ApiError(
                400,
                f"the file is not UTF-8 text (byte {exc.start + 1}); "
                "expected a marjolet record, JSON or text",
                code="not_utf8",
            ) from None
        if not text.strip():
            raise ApiError(400, "the file is empty (expected a marjolet record, JSON or text)")
        try:
            record = loads(text)
        except RecordError as exc:
            raise ApiError(
                400,
                f"not a valid record: {exc}",
                deal=exc.deal,
                action=exc.action,
                reason=exc.message,
            ) from None
        out = replay_payload(record)
        out["complete"] = True
        return out

    def replay_payload(record: Record) -> dict[str, Any]:
        if len(record.deals) > MAX_REPLAY_DEALS:
            raise ApiError(
                400,
                f"the record has {len(record.deals)} deals; "
                f"the viewer shows up to {MAX_REPLAY_DEALS}",
            )
        return {
            "format": FORMAT,
            "record": record.to_json(),
            "text": record.to_text(),
            "result": replay(record).to_json(),
            **views.replay_frames(record),
        }

    @app.get("/api/health")
    async def health() -> PlainTextResponse:
        return PlainTextResponse("ok")

    # -- the table WebSocket -----------------------------------------------------------------

    @app.websocket("/ws/{game_id}")
    async def table_socket(ws: WebSocket, game_id: str) -> None:
        origin = ws.headers.get("origin")
        if origin is not None and urlsplit(origin).netloc != ws.headers.get("host"):
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
                await asyncio.sleep(0.05)  # let the error go out first
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
            conn.error(exc.code, str(exc))
            return None
        if not isinstance(msg, protocol.Hello):
            conn.error("hello_first", "the first message must be 'hello' with your seat's token")
            return None
        try:
            table = await hub.table(game_id)
        except TableError as exc:
            conn.error(exc.code, str(exc))
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
                now = time.monotonic()
                if now - conn.last_warning >= 1.0:
                    conn.last_warning = now
                    conn.error(
                        "rate_limited",
                        "too many messages: slow down "
                        f"(at most {config.rate_per_second:g} a second)",
                    )
                if conn.dropped >= config.flood_close_after:
                    log.warning("%s: closed for flooding", conn.where)
                    await asyncio.sleep(0.05)
                    await ws.close(code=1008, reason="flooding")
                    return
                continue
            try:
                msg = protocol.parse_message(raw, config.max_message)
            except protocol.ProtocolError as exc:
                conn.error(exc.code, str(exc))
                continue
            try:
                await _handle(conn, table, msg)
            except TableError as exc:
                conn.error(exc.code, str(exc))
            except Exception:
                log.exception("%s: failed to handle %s", conn.where, type(msg).__name__)
                conn.error("internal", "the server could not handle this message (it is logged)")

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

    return app


class HostCheck:
    """Refuse requests whose ``Host`` is not an allowed name (HTTP and
    WebSocket alike): a web page that rebinds its own name to 127.0.0.1
    cannot reach a server that only answers to loopback names."""

    def __init__(self, app: ASGIApp, allowed: Sequence[str]) -> None:
        self.app = app
        self.allowed = {h.lower() for h in allowed}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket"):
            host = Headers(scope=scope).get("host", "")
            name = host[1 : host.find("]")] if host.startswith("[") else host.split(":")[0]
            if name.lower() not in self.allowed:
                if scope["type"] == "http":
                    response = PlainTextResponse("unknown host", status_code=400)
                    await response(scope, receive, send)
                else:
                    await send({"type": "websocket.close", "code": 4400, "reason": "unknown host"})
                return
        await self.app(scope, receive, send)


async def read_body(request: Request, limit: int) -> bytes:
    """The request body, refused past ``limit`` bytes (even when chunked)."""
    length = request.headers.get("content-length")
    if length is not None and (not length.isdigit() or int(length) > limit):
        raise ApiError(413, f"request too large (the limit is {limit} bytes)")
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:
            raise ApiError(413, f"request too large (the limit is {limit} bytes)")
    return bytes(body)
