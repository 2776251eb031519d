"""Play Marjolet in a browser: a FastAPI server with a WebSocket per seat.

:func:`create_app` builds the application (``marjolet serve`` runs it with
uvicorn). The server is authoritative: it shuffles, checks every move once
against the rules, stores each move in SQLite before acknowledging it, and
tells each seat only what that seat may see (R23); the bots a browser may
pick are :mod:`marjolet.bots.catalogue`'s, shared with the terminal.

Modules, from the edge inwards:

- :mod:`~marjolet.web.app`: the application: middleware, error handlers,
  the routers, ``app.state`` (hub, reviews, guards);
- :mod:`~marjolet.web.routes`: one module-level ``APIRouter`` per resource
  (``games``, ``replay``, ``reviews``, ``pages``, ``sockets``);
- :mod:`~marjolet.web.deps` (FastAPI dependencies: hub, table, seat),
  :mod:`~marjolet.web.schemas` (request bodies, with their limits),
  :mod:`~marjolet.web.errors` (every refusal, mapped once to HTTP and
  WebSocket), :mod:`~marjolet.web.protocol` (WebSocket messages),
  :mod:`~marjolet.web.security` (cross-site, sizes, rates, caps),
  :mod:`~marjolet.web.connection` (one socket's queue);
- :mod:`~marjolet.web.hub` (all games, bots' threads, shuffles),
  :mod:`~marjolet.web.tables` (one live game: it owns its game and its
  writes), :mod:`~marjolet.web.views` (what a viewer is shown),
  :mod:`~marjolet.web.reviews` (game reviews), :mod:`~marjolet.web.rematches`
  (the rematch of a game found online: an offer the other seat takes);
- :mod:`~marjolet.web.ledger` (the one door to the database),
  :mod:`~marjolet.web.writer` (its thread, group commit),
  :mod:`~marjolet.web.store` (SQLite or PostgreSQL);
- several processes (docs/deploy.md): :mod:`~marjolet.web.backends`
  (``--db`` and ``--broker`` checked), :mod:`~marjolet.web.bus` (game
  versions and lobby changes over Redis), :mod:`~marjolet.web.leases` (one
  owner per job), :mod:`~marjolet.web.beacons` (which seats other
  processes hold), :mod:`~marjolet.web.countdowns` (the "opponent gone"
  countdowns: one owner, a stored deadline), :mod:`~marjolet.web.playnow`
  ("Play now": its queue in the database).

The pages are plain files in ``static/``.
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
