"""The routes of the web server, one module per resource, each a
module-level :class:`fastapi.APIRouter`:

======================  ====================================================
:mod:`.games`           ``/api/options``, ``/api/games`` (new, join,
                        rematch, history, record), ``/api/health``
:mod:`.replay`          ``/api/games/ID/replay``, ``/api/replay`` (upload)
:mod:`.reviews`         ``/api/games/ID/review``
:mod:`.pages`           ``/``, ``/game/ID``, ``/history``, ``/replay``, ``/rules``
:mod:`.sockets`         ``WS /ws/ID``
:mod:`.accounts`        ``/api/accounts``, ``/api/session``, ``/api/me``,
                        ``/api/me/games``, ``/api/me/password``,
                        ``/api/me/sessions``, ``/api/players/NAME``,
                        ``/api/rating-system``
:mod:`.lobby`           ``/api/seeks``, ``/api/lobby``, ``/api/play-now``,
                        ``WS /ws/lobby``
======================  ====================================================

Routes take what they need through :mod:`marjolet.web.deps`, read bodies
as :mod:`marjolet.web.schemas` models and refuse with
:class:`marjolet.web.errors.WebError`. :func:`include_routes` adds them to
an application with their body limits.
"""

from __future__ import annotations

from fastapi import FastAPI

from marjolet.web.config import WebConfig
from marjolet.web.routes import accounts, games, lobby, pages, replay, reviews, sockets


def include_routes(app: FastAPI, config: WebConfig) -> None:
    """Every router, each with its body limit (``max_body_size``): the
    upload takes files up to ``max_upload`` bytes, every other body is held
    to ``max_request``. (The limits are the routers', not the application's:
    FastAPI answers a body over an application-wide limit in plain text,
    a router's refusal goes through :mod:`marjolet.web.errors` like any
    other.)"""
    small = config.max_request
    app.include_router(pages.router, max_body_size=small)
    app.include_router(games.router, max_body_size=small)
    app.include_router(replay.router, max_body_size=config.max_upload)
    app.include_router(reviews.router, max_body_size=small)
    app.include_router(accounts.router, max_body_size=small)
    app.include_router(lobby.router, max_body_size=small)
    app.include_router(lobby.sockets)  # before /ws/{game_id}
    app.include_router(sockets.router)


__all__ = ["include_routes"]
