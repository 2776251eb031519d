"""``/api/options``, ``/api/games``: new games, joining, rematches, the
history and record downloads (and ``/api/health``)."""

from __future__ import annotations

import asyncio
import logging
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any
from weakref import WeakKeyDictionary

from fastapi import APIRouter, Depends, Request
from fastapi.responses import PlainTextResponse, Response
from sqlalchemy import Engine, text
from sqlalchemy.exc import SQLAlchemyError

from marjolet.bots.catalogue import BotChoice
from marjolet.bots.levels import level
from marjolet.errors import MarjoletError
from marjolet.i18n import LANGS, translate
from marjolet.record import UNNAMED_PLAYER, UNSEATED_FRIEND
from marjolet.rules import PROFILES, setting_choices
from marjolet.web import rematches
from marjolet.web.accounts import refuse_a_name_passing_for_another
from marjolet.web.db import reader
from marjolet.web.deps import (
    ClientDep,
    GuardsDep,
    HubDep,
    LimitsDep,
    OnlineDep,
    ReviewsDep,
    SeatDep,
    TableDep,
    new_game_allowance,
    within_limit,
)
from marjolet.web.errors import WebError
from marjolet.web.hub import Hub
from marjolet.web.levels import DEFAULT_LEVEL, level_choice, public_levels, resolve_choice
from marjolet.web.routes.pages import reader_language
from marjolet.web.schemas import InviteCode, Join, NewGame

router = APIRouter(prefix="/api", tags=["games"])
log = logging.getLogger(__name__)

#: The names a friend joins under when they type none: the page's default
#: in each language, and the server's own (:data:`UNSEATED_FRIEND`).
FRIEND_DEFAULTS = frozenset(
    {UNSEATED_FRIEND, *(translate("lobby.friend_default", lang) for lang in LANGS)}
)


@router.get("/options")
async def options(hub: HubDep, request: Request) -> dict[str, Any]:
    """What a new game may be: the player levels (in the reader's language),
    the other bot choices, rule profiles and settings."""
    return {
        "levels": public_levels(reader_language(request)),
        "default_level": DEFAULT_LEVEL,
        "bots": hub.catalogue.public(),
        "default_bot": hub.catalogue.default,
        "hint_bot": hub.catalogue.hint_spec.split(":")[0],
        "profiles": {name: rules.to_json() for name, rules in PROFILES.items()},
        "settings": setting_choices(),
    }


@router.post("/games", dependencies=[Depends(new_game_allowance)])
async def new_game(
    body: NewGame, hub: HubDep, guards: GuardsDep, client: ClientDep
) -> dict[str, Any]:
    """A game against a bot, with a friend (an invite link) or between two bots.
    The host of a friend's table may not take a name that passes for the
    computer or another player: the friend would read it (none typed, it is
    "you", the host's own)."""
    if body.mode == "friend" and body.name != UNNAMED_PLAYER:
        refuse_a_name_passing_for_another(body.name)
    bots = _bots_of(body, hub)
    if body.mode == "watch":
        refusal = guards.watches.refusal(client, hub.running_watches())
        if refusal is not None:
            message, key, params = refusal  # the code is the key's last part
            raise WebError(key.removeprefix("error."), message, params=params)
    new = await hub.create_game(body.mode, body.rules, name=body.name, bots=bots, owner=client)
    if body.mode == "watch":
        guards.watches.started(new.id, client)
    return new.reply()


def _bots_of(body: NewGame, hub: Hub) -> list[BotChoice]:
    """The bot choices a new game names, from this server's catalogue."""
    try:
        if body.mode == "bot":
            if body.level is not None:
                return [level_choice(level(body.level))]
            name = body.bot if body.bot is not None else hub.catalogue.default
            return [resolve_choice(hub.catalogue, name)]
        if body.mode == "watch":
            assert body.bots is not None  # the model requires them
            return [resolve_choice(hub.catalogue, name) for name in body.bots]
    except MarjoletError as exc:
        raise WebError("bad_request", str(exc)) from None
    return []


@router.post("/games/{game_id}/join")
async def join(game_id: str, body: Join, table: TableDep) -> dict[str, Any]:
    """Take seat 1 of a friend game with the code of its invite link, under
    a name that passes for nobody else (the page's default, "friend" in the
    reader's language, is the friend's own)."""
    if body.name not in FRIEND_DEFAULTS:
        refuse_a_name_passing_for_another(body.name)
    seat, token = await table.join(body.invite, body.name)
    return {"id": game_id, "seat": seat, "token": token}


@router.post("/games/{game_id}/invite")
async def invite(body: InviteCode, table: TableDep) -> dict[str, str]:
    """What an invite link leads to (``open``, ``used`` or ``bad``) and who
    sent it, so that its holder is asked a name only for a seat they may take."""
    return await table.invite_status(body.invite)


@router.post("/games/{game_id}/rematch")
async def rematch(
    seated: SeatDep, hub: HubDep, online: OnlineDep, limits: LimitsDep, client: ClientDep
) -> dict[str, Any]:
    """A seat of a finished match opens a new one: same opponent and rules,
    the other player dealing first (``rematch`` limit per address and seat).
    A game found online is rematched by an offer the other seat takes
    (:mod:`marjolet.web.rematches`): the answer is ``status`` ``offered``
    or, when it took the other seat's offer, ``matched`` with ``game``;
    with ``take``, only the other seat's open offer is taken (``seek_gone``
    if it is no longer open: nothing is offered the other way)."""
    within_limit(limits, "rematch", client, f"{seated.table.id}/{seated.seat}")
    if seated.table.paired:
        return await rematches.offer(online, seated.table, seated.seat, take=seated.take)
    if seated.take:  # (a friend's rematch is a new table at once: nothing to take)
        raise WebError("no_rematch", "only a game found online has a rematch offer to take")
    new = await hub.rematch(seated.table, seated.seat, owner=client)
    return new.reply()


@router.post("/games/{game_id}/rematch/status")
async def rematch_status(seated: SeatDep, online: OnlineDep) -> dict[str, Any]:
    """The news of a game found online's rematch offer, for one of its seats
    (a POST, so that the tokens stay out of addresses and logs)."""
    return await rematches.status(online, seated.table, seated.seat, seated.owner)


@router.delete("/games/{game_id}/rematch")
async def withdraw_rematch(seated: SeatDep, online: OnlineDep) -> dict[str, Any]:
    """Withdraw one's rematch offer, or decline the other seat's."""
    return await rematches.withdraw(online, seated.table, seated.seat)


@router.get("/games")
async def history(hub: HubDep, online: OnlineDep) -> dict[str, Any]:
    """Every stored game, newest first (up to the configured limit), each
    saying whether it is rated (left out when the database cannot tell now);
    the games whose rows cannot be read are listed apart, as ``damaged``."""
    games = await hub.summaries()
    try:
        rated = await online.run(online.lobby.rated_among, [g["id"] for g in games])
    except SQLAlchemyError as exc:  # the history lists the games anyway
        log.warning("the history cannot tell which games are rated: %s", exc)
    else:
        for game in games:
            game["rated"] = game["id"] in rated
    return {"games": games, "damaged": hub.damaged()}


@router.get("/games/{game_id}/record")
async def download(
    game_id: str, hub: HubDep, reviews: ReviewsDep, form: str = "json"
) -> Response:
    """The record anyone may see, as a file (``json`` or ``text``); once
    the game was reviewed, with the review's marks as comments, as
    ``marjolet review --out`` writes them (docs/record.md, Comments)."""
    if form not in ("json", "text"):
        raise WebError("bad_request", "'form' must be 'json' or 'text'")
    game, record, complete = await hub.shareable_record(game_id)
    review = await reviews.stored_review(game_id, game.status, record, complete)
    if review is not None:
        from marjolet.analysis import annotate

        record = annotate(record, review)
    suffix = "" if complete else "-finished-deals"
    if form == "json":
        body, ext, media = record.dumps(), "json", "application/json"
    else:
        body, ext, media = record.to_text(), "txt", "text/plain; charset=utf-8"
    return Response(
        body,
        media_type=media,
        headers={
            "Content-Disposition": f'attachment; filename="marjolet-{game.id}{suffix}.{ext}"',
            "X-Marjolet-Complete": "true" if complete else "false",
        },
    )


#: How long the health check waits for the games' database, and how long
#: its answer serves the checks that follow (a monitor polling, a flood).
HEALTH_SECONDS = 5.0
HEALTH_REUSE_SECONDS = 1.0
#: Per database engine (weakly: a server's engine goes with it, and no new
#: engine inherits an old one's id): when the last ping started, its outcome.
_pings: WeakKeyDictionary[Engine, tuple[float, asyncio.Future[bool]]] = WeakKeyDictionary()


def _ping(engine: Engine) -> None:
    with reader(engine).connect() as db:  # never waits behind SQLite's writer
        db.execute(text("SELECT 1"))


#: The health pings' own thread: never queued behind the replays and bots
#: of the default pool, and a hung ping holds one thread, not more.
_PINGER = ThreadPoolExecutor(max_workers=1, thread_name_prefix="marjolet-health")


async def _ping_within(engine: Engine) -> bool:
    loop = asyncio.get_running_loop()
    try:
        await asyncio.wait_for(loop.run_in_executor(_PINGER, _ping, engine), HEALTH_SECONDS)
    except (TimeoutError, SQLAlchemyError) as exc:
        log.warning("health: the games' database does not answer (%s)", type(exc).__name__)
        return False
    return True


async def database_answers(engine: Engine) -> bool:
    """Whether the database answers a ``SELECT 1``: one ping at a time per
    database (a hung one is not joined by others), its answer reused for
    :data:`HEALTH_REUSE_SECONDS`."""
    now = time.monotonic()
    last = _pings.get(engine)
    if last is None or (last[1].done() and now - last[0] >= HEALTH_REUSE_SECONDS):
        last = (now, asyncio.ensure_future(_ping_within(engine)))
        _pings[engine] = last
    return await asyncio.shield(last[1])


@router.get("/health")
async def health(hub: HubDep) -> PlainTextResponse:
    """``ok`` while the games' database answers (what a proxy, a load
    balancer or a monitor checks), else 503: a process whose database is
    gone cannot store a move."""
    if not await database_answers(hub.ledger.engine):
        return PlainTextResponse("the games' database does not answer", status_code=503)
    return PlainTextResponse("ok")
