"""The FastAPI application: pages, the JSON API and one WebSocket per seat,
assembled from the routers of :mod:`marjolet.web.routes` around one
:class:`~marjolet.web.hub.Hub`, its :class:`~marjolet.web.reviews.ReviewService`
and the per-address :class:`~marjolet.web.security.Guards` (in ``app.state``,
reached by the routes through :mod:`marjolet.web.deps`).

Pages (static files, no build step): ``/`` lobby, ``/game/ID`` table,
``/history`` games list, ``/replay`` replay viewer, ``/online`` accounts
and the lobby of seeks, ``/players/NAME`` a profile. API:

========================================  =========================================
``GET  /api/options``                     bot choices, rule profiles and settings
``POST /api/games``                       new game: ``{"mode": "bot"|"friend"|"watch", ...}``
``POST /api/games/ID/join``               claim seat 1 with an invite code
``POST /api/games/ID/rematch``            a finished match's seat opens the next one
``GET  /api/games``                       the history (every stored game)
``GET  /api/games/ID/record?form=json``   download the record (``json`` or ``text``)
``GET  /api/games/ID/replay``             every position, for the replay viewer
``POST /api/replay``                      upload a record: validated, then replayed
``GET|POST /api/games/ID/review``         a finished game's review (web/reviews.py)
``WS   /ws/ID``                           a seat (or a spectator) at a table
``POST /api/accounts``, ``/api/session``  accounts and sessions (docs/web.md, "Online")
``GET  /api/me``, ``/api/me/games``       who is logged in, their games
``GET  /api/players/NAME``                a profile; ``/api/rating-system`` the ratings
``POST /api/seeks``, ``GET /api/lobby``   the lobby; ``POST /api/play-now`` quick pairing
``WS   /ws/lobby``                        lobby changes, a seek's seat when it is taken
========================================  =========================================

Every request body has a size limit (``max_request``; ``max_upload`` for
the upload) and a time limit (``body_timeout``; the headers' is uvicorn's
protocol's, :mod:`marjolet.web.slowclients`). Every refusal is a
:class:`~marjolet.web.errors.WebError`, answered as JSON
``{"error": {"message": ..., "code": ..., "key": ...}}`` (HTTP) or
``{"type": "error", "code": ..., "message": ...}`` (WebSocket) to the one
client that caused it, and logged; nothing a client sends can stop a table
or the server.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Sequence

from fastapi import FastAPI, Request
from fastapi.responses import PlainTextResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.datastructures import Headers
from starlette.middleware.gzip import GZipMiddleware
from starlette.types import ASGIApp, Receive, Scope, Send

from marjolet.bots.catalogue import BotCatalogue
from marjolet.errors import MarjoletError
from marjolet.i18n import CATALOGUES
from marjolet.web import logguard, security
from marjolet.web.config import WebConfig
from marjolet.web.deployment import Deployment, settings_of
from marjolet.web.errors import install_handlers
from marjolet.web.hub import Hub
from marjolet.web.online import Online
from marjolet.web.ratelimits import DEFAULT_LIMITS, RateLimits
from marjolet.web.reviews import ReviewService
from marjolet.web.routes import include_routes
from marjolet.web.routes.pages import STATIC
from marjolet.web.slowclients import BodyTimeout
from marjolet.web.store import Store

__all__ = ["HostCheck", "create_app"]

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


@contextlib.contextmanager
def frozen_heap() -> Iterator[None]:
    """While the server runs, what the process held when it started (its
    modules, the catalogues, the kernel's tables; the whole heap of a
    program that embeds the server) is out of the garbage collector's reach
    (:func:`gc.freeze`). A full collection holds the interpreter lock for
    its whole scan, stalling every table and health check at once; it then
    scans only what was made since the start, not objects that live as long
    as the process. Given back on shutdown, so that an embedding program
    frees them as usual."""
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


def create_app(config: WebConfig | None = None) -> FastAPI:
    """The application. The database is opened and the bot list checked
    here, so that a bad ``--db`` or ``--allow-bot`` fails before serving; on a
    database shared by several processes, so are this process's settings
    against theirs (:mod:`marjolet.web.deployment`)."""
    config = config or WebConfig()
    logguard.keep_one_line(log)  # a database error logged is one line
    # the bots first: a bad --allow-bot creates no database
    catalogue = BotCatalogue.build(config.allowed_bots, defaults=config.default_bots)
    store = Store(config.database())
    member = _join_deployment(config, store)
    hub = Hub(config, store, catalogue, process=member.owner if member else None)
    reviews = ReviewService(hub, budget=config.review_budget)
    online = Online(hub)
    app = FastAPI(
        title="Marjolet",
        debug=False,
        docs_url=None,
        redoc_url=None,
        openapi_url=None,
        lifespan=_lifespan(config, member, hub, reviews, online),
    )
    _set_state(app, config, hub, reviews, online)
    _add_middleware(app, config)
    install_handlers(app)
    _add_security_headers(app)
    include_routes(app, config)
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    app.mount("/i18n", StaticFiles(directory=CATALOGUES), name="i18n")
    return app


def _join_deployment(config: WebConfig, store: Store) -> Deployment | None:
    """On a database shared by several processes, this process's place
    among them (refused when its settings differ from theirs: the database
    is then closed); ``None`` on a database of its own."""
    member: Deployment | None = None
    try:
        if store.path is None:  # processes share the database: one set of settings
            member = Deployment(store.engine, settings_of(config), seconds=config.lease_seconds)
            member.join()
    except MarjoletError:
        store.close()
        raise
    return member


def _lifespan(
    config: WebConfig,
    member: Deployment | None,
    hub: Hub,
    reviews: ReviewService,
    online: Online,
) -> Callable[[FastAPI], contextlib.AbstractAsyncContextManager[None]]:
    """What the server does when it starts and stops: start the tables and
    the lobby, renew the deployment's lease while it runs; on shutdown,
    stop them in the reverse order."""

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        keeper = None
        if member is not None:  # renewed while the process runs
            keeper = asyncio.get_running_loop().create_task(member.keep(config.sync_interval))
        await hub.startup()
        await online.startup()
        try:
            with frozen_heap():
                yield
        finally:
            await online.shutdown()
            await reviews.close()
            if keeper is not None and member is not None:
                keeper.cancel()
                await asyncio.gather(keeper, return_exceptions=True)
                await member.close()
            await hub.shutdown()

    return lifespan


def _set_state(
    app: FastAPI, config: WebConfig, hub: Hub, reviews: ReviewService, online: Online
) -> None:
    """What the routes reach through ``app.state`` (:mod:`marjolet.web.deps`):
    the hub, the reviews, the online service, the rate limits and the
    per-address guards."""
    app.state.hub = hub
    app.state.reviews = reviews
    app.state.online = online
    app.state.limits = RateLimits(
        {**DEFAULT_LIMITS, **(config.rate_limits or {})}, config.rate_limit_storage
    )
    app.state.guards = security.Guards(
        config.games_per_minute, config.max_watched_per_address, config.max_watched
    )


def _add_middleware(app: FastAPI, config: WebConfig) -> None:
    """gzip, the body time limit, the cross-site guard, the size limits and
    (when the hosts are restricted) the host check, in this order: the last
    added is the first to see a request."""
    app.add_middleware(GZipMiddleware, minimum_size=GZIP_MINIMUM_BYTES)
    app.add_middleware(BodyTimeout, timeout=config.body_timeout)
    app.add_middleware(security.CrossSiteGuard)
    app.add_middleware(
        security.DeclaredLength,
        default=config.max_request,
        limits={path: config.max_upload for path in security.NOT_JSON},
    )
    if config.allowed_hosts is not None:
        app.add_middleware(HostCheck, allowed=config.allowed_hosts)


def _add_security_headers(app: FastAPI) -> None:
    """The security headers of every response; API answers are not cached,
    and pages, scripts and catalogues are asked again each time (a 304 when
    unchanged): without a word, a browser keeps a file it was not told
    about for a tenth of its age, days for a file unchanged for months, and
    after an upgrade would run the new ``table.js`` with an old module it
    imports (seen: an old ``rematch.js`` beside a new ``table.js``)."""

    @app.middleware("http")
    async def security_headers(
        request: Request, call_next: Callable[[Request], Awaitable[Response]]
    ) -> Response:
        response = await call_next(request)
        for key, value in SECURITY_HEADERS.items():
            response.headers.setdefault(key, value)
        if request.url.path.startswith("/api/"):
            response.headers.setdefault("Cache-Control", "no-store")
        else:
            response.headers.setdefault("Cache-Control", "no-cache")
        return response


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
