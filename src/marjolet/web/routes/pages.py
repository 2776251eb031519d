"""The pages of the web server, in the reader's language: plain files in
``static/`` (no build step): ``/`` lobby, ``/game/ID`` table, ``/history``
games list, ``/replay`` viewer, and ``/rules`` the rule book. (The
``/static`` files and the ``/i18n`` catalogues are mounted by the app.)

- :func:`page` serves a static HTML page with ``<html lang>`` set to the
  reader's language: ``?lang=fr|en``, else the ``marjolet_lang`` cookie (the
  switch of the top bar, remembered), else ``Accept-Language``. The page's
  script then fills its words from the same catalogue.
- ``GET /rules`` is the rule book (:mod:`marjolet.i18n.rulebook`) of a rule
  set (``?rules=`` a record's ``rules`` value, JSON; default ``classic``),
  written by the server in the reader's language, its ``<title>`` too.
- ``/i18n/fr.json`` and ``/i18n/en.json`` are the catalogues the terminal
  reads too (:mod:`marjolet.i18n`).
"""

from __future__ import annotations

import json
from html import escape
from pathlib import Path
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import FileResponse, HTMLResponse

from marjolet.errors import MarjoletError
from marjolet.i18n import catalogue, negotiate, pick, translate
from marjolet.i18n.rulebook import rulebook, to_html
from marjolet.rules import Rules
from marjolet.web.deps import HubDep, OnlineDep
from marjolet.web.errors import WebError

STATIC = Path(__file__).resolve().parent.parent / "static"
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
    except (ValueError, RecursionError):  # not JSON, or nested too deeply: a name
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
    html = html.replace("<!--TITLE-->", escape(translate("rules.page_title", lang)), 1)
    return HTMLResponse(_with_lang(html, lang), headers={"Vary": "Cookie, Accept-Language"})


def not_found_page(request: Request, reason: tuple[str, dict[str, Any]] | None) -> HTMLResponse:
    """The page a browser gets for an address that leads nowhere (404):
    in the reader's language, with the refusal's own words where the
    catalogue has them (``reason``: its key and parameters), and a way back."""
    lang = reader_language(request)
    text = translate("notfound.text", lang)
    if reason is not None and reason[0] in catalogue(lang):
        text = sentence(translate(reason[0], lang, **reason[1]))
    body = (
        f"<h1>{escape(translate('notfound.title', lang))}</h1>\n"
        f"<p>{escape(text)}</p>\n"
        f'<p><a class="action primary" href="/">{escape(translate("notfound.home", lang))}</a></p>'
    )
    html = (STATIC / "notfound.html").read_text(encoding="utf-8")
    html = html.replace("<!--TITLE-->", escape(translate("notfound.page_title", lang)), 1)
    html = html.replace("<!--BODY-->", body, 1)
    return HTMLResponse(
        _with_lang(html, lang), status_code=404, headers={"Vary": "Accept, Cookie, Accept-Language"}
    )


def sentence(text: str) -> str:
    """A catalogue phrase as a sentence: a capital first, a full stop last."""
    text = text[:1].upper() + text[1:]
    return text if text.endswith((".", "!", "?", "…")) else text + "."


router = APIRouter(include_in_schema=False)


@router.get("/")
async def lobby_page(request: Request) -> HTMLResponse:
    return page("index.html", request)


@router.get("/game/{game_id}")
async def table_page(game_id: str, request: Request, hub: HubDep) -> HTMLResponse:
    if not await hub.exists(game_id):  # the page not found, never an empty table
        raise WebError("not_found", "no such game")
    return page("table.html", request)


@router.get("/online")
async def online_page(request: Request) -> HTMLResponse:
    return page("online.html", request)


@router.get("/players/{name}")
async def profile_page(name: str, request: Request, online: OnlineDep) -> HTMLResponse:
    """A player's page. For no such player it says so ("Joueur
    introuvable", from the API's answer) with the status 404, as an unknown
    game's address has."""
    answer = page("profile.html", request)
    if await online.run(online.accounts.for_page, name) is None:
        answer.status_code = 404
    return answer


@router.get("/history")
async def history_page(request: Request) -> HTMLResponse:
    return page("history.html", request)


@router.get("/replay")
async def replay_page(request: Request) -> HTMLResponse:
    return page("replay.html", request)


@router.get("/rules")
async def rules(request: Request) -> HTMLResponse:
    return rules_page(request)


@router.get("/favicon.ico")
async def favicon() -> FileResponse:
    return FileResponse(STATIC / "favicon.svg", media_type="image/svg+xml")
