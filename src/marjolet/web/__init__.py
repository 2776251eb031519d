"""Play Marjolet in a browser: a FastAPI server with a WebSocket per seat.

:func:`create_app` builds the application (``marjolet serve`` runs it with
uvicorn). The server is authoritative: it shuffles, checks every move against
the rules, stores each move in SQLite before acknowledging it, and tells each
seat only what that seat may see (R23); the bots a browser may pick are
:mod:`marjolet.bots.catalogue`'s, shared with the terminal. Modules: :mod:`~marjolet.web.store`
(SQLite), :mod:`~marjolet.web.views` (what a viewer is shown),
:mod:`~marjolet.web.tables` (one live game), :mod:`~marjolet.web.hub` (all
games), :mod:`~marjolet.web.protocol` (browser messages),
:mod:`~marjolet.web.app` (the application, assembled from the routers of
:mod:`~marjolet.web.pages`, :mod:`~marjolet.web.api` and
:mod:`~marjolet.web.sockets`). The pages are plain files in ``static/``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from marjolet.web.config import WebConfig

if TYPE_CHECKING:
    from fastapi import FastAPI


def create_app(config: WebConfig | None = None) -> FastAPI:
    """The FastAPI application (imported lazily: FastAPI is an optional extra)."""
    from marjolet.web.app import create_app as _create

    return _create(config)


__all__ = ["WebConfig", "create_app"]
