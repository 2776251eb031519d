"""The FastAPI application: pages, the JSON API and one WebSocket per seat,
assembled from :mod:`~marjolet.web.pages`, :mod:`~marjolet.web.api` and
:mod:`~marjolet.web.sockets` around one :class:`~marjolet.web.hub.Hub`.

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
``GET|POST /api/games/ID/review``         a finished game's review (web/reviews.py)
``WS   /ws/ID``                           a seat (or a spectator) at a table
========================================  =========================================

Every refusal is a JSON ``{"error": {"message": ...}}`` (HTTP) or
``{"type": "error", "code": ..., "message": ...}`` (WebSocket) sent to the
one client that caused it, and logged; nothing a client sends can stop a
table or the server.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, PlainTextResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.datastructures import Headers
from starlette.middleware.gzip import GZipMiddleware
from starlette.types import ASGIApp, Receive, Scope, Send

from marjolet.bots.catalogue import BotCatalogue
from marjolet.errors import MarjoletError
from marjolet.web import security
from marjolet.web.api import MAX_REPLAY_DEALS, ApiError, TokenBucket, api_router, read_body
from marjolet.web.config import WebConfig
from marjolet.web.hub import Hub
from marjolet.web.pages import STATIC, install_extras, page_router
from marjolet.web.reviews import install_reviews
from marjolet.web.sockets import Connection, socket_router
from marjolet.web.store import Store

__all__ = [
    "MAX_REPLAY_DEALS",
    "STATIC",
    "ApiError",
    "Connection",
    "HostCheck",
    "TokenBucket",
    "create_app",
    "read_body",
]

log = logging.getLogger("marjolet.web")

#: Responses at least this large are gzipped.
GZIP_MINIMUM_BYTES = 4096

SECURITY_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
        "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
}


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
            await reviews.close()
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
    reviews = install_reviews(app, hub)  # /api/games/ID/review (web/reviews.py)
    app.add_middleware(GZipMiddleware, minimum_size=GZIP_MINIMUM_BYTES)
    app.add_middleware(security.CrossSiteGuard)
    if config.allowed_hosts is not None:
        app.add_middleware(HostCheck, allowed=config.allowed_hosts)

    _add_handlers(app)
    app.include_router(page_router())
    install_extras(app, hub, ApiError)  # /rules, /i18n/*.json, the rematch
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    app.include_router(api_router(hub, config))
    app.include_router(socket_router(hub, config))
    return app


def _add_handlers(app: FastAPI) -> None:
    """The security headers of every response and the JSON form of every
    refusal (:class:`ApiError`) and internal error."""

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
