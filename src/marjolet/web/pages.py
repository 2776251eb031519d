"""The pages of the web server, in the reader's language: plain files in
``static/`` (no build step): ``/`` lobby, ``/game/ID`` table, ``/history``
games list, ``/replay`` viewer, and ``/rules`` the rule book.

- :func:`page` serves a static HTML page with ``<html lang>`` set to the
  reader's language: ``?lang=fr|en``, else the ``marjolet_lang`` cookie (the
  switch of the top bar, remembered), else ``Accept-Language``. The page's
  script then fills its words from the same catalogue.
- ``GET /rules`` is the rule book (:mod:`marjolet.i18n.rulebook`) of a rule
  set (``?rules=`` a record's ``rules`` value, JSON; default ``classic``),
  written by the server in the reader's language.
- ``/i18n/fr.json`` and ``/i18n/en.json`` are the catalogues the terminal
  reads too (:mod:`marjolet.i18n`).
- ``POST /api/games/ID/rematch`` ``{"token": ...}``: a seat of a finished
  match opens a new one with the same opponent and rules, the other player
  dealing first.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fastapi import APIRouter, FastAPI, Request
from fastapi.responses import FileResponse, HTMLResponse
from fastapi.staticfiles import StaticFiles

from marjolet.errors import MarjoletError
from marjolet.i18n import CATALOGUES, LANGS, negotiate, pick, translate
from marjolet.i18n.rulebook import rulebook, to_html
from marjolet.rules import Rules

if TYPE_CHECKING:
    from marjolet.web.api import ApiError
    from marjolet.web.hub import Hub

STATIC = Path(__file__).resolve().parent / "static"
COOKIE = "marjolet_lang"
_HTML_TAG = '<html lang="en">'


def reader_language(request: Request) -> str:
    """``?lang=``, else the remembered switch (cookie), else ``Accept-Language``."""
    for asked in (request.query_params.get("lang"), request.cookies.get(COOKIE)):
        lang = pick(asked)
        if lang is not None:
            return lang
    return negotiate(request.headers.get("accept-language"))


def _with_lang(html: str, lang: str) -> str:
    return html.replace(_HTML_TAG, f'<html lang="{lang}">', 1)


def page(name: str, request: Request) -> HTMLResponse:
    """A static page with ``<html lang>`` in the reader's language."""
    html = (STATIC / name).read_text(encoding="utf-8")
    return HTMLResponse(
        _with_lang(html, reader_language(request)), headers={"Vary": "Cookie, Accept-Language"}
    )


def rules_of(raw: str | None) -> Rules:
    """The rule set named by ``?rules=`` (JSON or a profile name); classic if absent or bad."""
    if not raw:
        return Rules()
    try:
        value: Any = json.loads(raw)
    except ValueError:
        value = raw
    try:
        return Rules.from_json(value)
    except (MarjoletError, TypeError, ValueError):
        return Rules()


def rules_page(request: Request) -> HTMLResponse:
    lang = reader_language(request)
    rules = rules_of(request.query_params.get("rules"))
    body = to_html(rulebook(rules, lang), translate("rules.title", lang))
    html = (STATIC / "rules.html").read_text(encoding="utf-8").replace("<!--RULES-->", body, 1)
    return HTMLResponse(_with_lang(html, lang), headers={"Vary": "Cookie, Accept-Language"})


def page_router() -> APIRouter:
    """The page routes (the ``/static`` files are mounted by the app)."""
    router = APIRouter()

    @router.get("/", include_in_schema=False)
    async def lobby_page(request: Request) -> HTMLResponse:
        return page("index.html", request)

    @router.get("/game/{game_id}", include_in_schema=False)
    async def table_page(game_id: str, request: Request) -> HTMLResponse:
        return page("table.html", request)

    @router.get("/history", include_in_schema=False)
    async def history_page(request: Request) -> HTMLResponse:
        return page("history.html", request)

    @router.get("/replay", include_in_schema=False)
    async def replay_page(request: Request) -> HTMLResponse:
        return page("replay.html", request)

    @router.get("/rules", include_in_schema=False)
    async def rules(request: Request) -> HTMLResponse:
        return rules_page(request)

    @router.get("/favicon.ico", include_in_schema=False)
    async def favicon() -> FileResponse:
        return FileResponse(STATIC / "favicon.svg", media_type="image/svg+xml")

    return router


def install_extras(app: FastAPI, hub: Hub, api_error: type[ApiError]) -> None:
    """Add the catalogues and the rematch to ``app``."""
    app.mount("/i18n", StaticFiles(directory=CATALOGUES), name="i18n")

    @app.post("/api/games/{game_id}/rematch")
    async def rematch(game_id: str, request: Request) -> dict[str, Any]:
        from marjolet.web.tables import TableError

        try:
            body = json.loads(await request.body() or b"{}")
        except ValueError:
            body = None
        token = body.get("token") if isinstance(body, dict) else None
        if not isinstance(token, str) or not 0 < len(token) <= 128:
            raise api_error(400, "'token' must be the token of your seat")
        try:
            table = await hub.table(game_id)
        except TableError as exc:
            raise api_error(404, str(exc), key=exc.key, params=exc.params) from None
        seat = table.seat_of(token)
        if seat is None:
            raise api_error(
                403, "this token does not hold a seat at this table", key="error.bad_token"
            )
        game = table.game
        if not table.match.is_over:
            raise api_error(409, "the match is not over yet", key="error.not_over")
        if game.mode == "bot":
            try:
                bots = [hub.catalogue.resolve(game.seats[1 - seat].bot)]
            except MarjoletError as exc:
                raise api_error(400, str(exc)) from None
        else:
            bots = []
        new = await hub.create_game(
            game.mode,
            game.rules,
            name=game.players[seat],
            bots=bots,
            first_dealer=1 - game.first_dealer if seat == 0 else game.first_dealer,
        )
        return new.reply()


__all__ = [
    "COOKIE",
    "LANGS",
    "STATIC",
    "install_extras",
    "page",
    "page_router",
    "reader_language",
    "rules_of",
    "rules_page",
]
