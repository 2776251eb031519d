"""``/api/seeks``, ``/api/lobby``, ``/api/play-now`` and ``WS /ws/lobby``:
finding an opponent.

A seek's owner is the account that posted it (its session cookie) or
whoever quotes its owner token (a guest); only the owner may read its
status (with the seeker's seat once it is accepted) or withdraw it. The
lobby socket tells its listeners at once when the open seeks change
(``{"type": "lobby"}``: fetch ``/api/lobby`` again) and tells a seek's
owner its seat the moment someone accepts it (``{"type": "matched",
"seek", "game": {"id", "seat", "token", "url"}}``), and follows the one
"Play now" place it waits on (``{"type": "wait", "key"}``, sent again every
few seconds: each is the place's sign of life; a new key replaces the
place), telling its game once matched (``{"type": "play_now", "key",
"status", "game"}``); a logged-in player's socket is told ``{"type":
"turn"}`` when one of their games changes. A message the server cannot handle is answered with
an ``error`` message; the socket stays open. A logged-in player's socket
is closed when the session that proved its account ends (code 1008,
reason ``logged out``, as a table socket is: :meth:`Online.sessions_ended`).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from typing import Any

from fastapi import APIRouter, WebSocket
from pydantic import ValidationError
from starlette.websockets import WebSocketDisconnect

from marjolet.web import security
from marjolet.web.accounts import Account, refuse_a_name_passing_for_another, token_digest
from marjolet.web.deps import ClientDep, OnlineDep, OptionalAccount
from marjolet.web.errors import WebError, error_message
from marjolet.web.lobby import Seek, Seeker
from marjolet.web.online import SESSION_COOKIE, Listener, Online, play_now_message
from marjolet.web.playnow import well_formed_key
from marjolet.web.schemas import AcceptSeek, NewSeek, OwnerToken, PlayNow
from marjolet.web.text import surrogate_refusal

log = logging.getLogger("marjolet.web")

router = APIRouter(prefix="/api", tags=["lobby"])
sockets = APIRouter()

#: Largest message a lobby socket accepts, and seeks one socket may follow.
MAX_LOBBY_MESSAGE = 512
MAX_FOLLOWED = 8
#: Messages a lobby socket may send per second (bursts of twice that).
FOLLOWS_PER_SECOND = 5
#: What a socket is told when its message made the server fail.
PROTOCOL_ERROR = WebError("malformed", "this message could not be handled", key="error.protocol")


async def seeker_of(online: Online, account: Account | None, name: str) -> Seeker:
    """Who posts or accepts: the account under its own name, or a guest.
    A guest may not take an account's name, nor one that looks like it
    (accents, case and look-alike letters aside: the lobby would show a
    stranger as that player), nor mix Latin, Greek and Cyrillic letters."""
    if account is not None:
        return Seeker(account.name, account)
    refuse_a_name_passing_for_another(name)
    if await online.run(online.accounts.looking_like, name) is not None:
        raise WebError(
            "name_of_account",
            f"{name!r} is the name of an account: log in, or play under another name",
            params={"name": name},
        )
    return Seeker(name)


def _owner_key(account: Account | None) -> str:
    return f"account:{account.id}" if account is not None else ""


@router.post("/seeks")
async def post_seek(
    body: NewSeek, account: OptionalAccount, online: OnlineDep, client: ClientDep
) -> dict[str, Any]:
    """Offer a game; rated offers need a login (401)."""
    online.allow("seek", f"address:{client}", _owner_key(account) or f"address:{client}")
    seeker = await seeker_of(online, account, body.name)
    seek, token = await online.run(
        lambda: online.lobby.post(
            seeker,
            body.rules.to_json(),
            rated=body.rated,
            days_per_move=body.days_per_move,
            guest_key=f"address:{client}",
        )
    )
    online.lobby_changed()
    return {"id": seek.id, "token": token, **seek.to_json()}


@router.get("/lobby")
async def lobby(online: OnlineDep) -> dict[str, Any]:
    """The open seeks, oldest first (an account's rating marked
    ``provisional`` while still uncertain, as the tables mark it), and how
    many wait in "Play now"."""
    seeks = await online.run(online.lobby.open_seeks)
    listed = [{**s.to_json(), "provisional": await online.provisional(s.account_id)} for s in seeks]
    return {"seeks": listed, "waiting": await online.play_now.waiting()}


async def _owned(online: Online, seek_id: str, token: str | None, account: Account | None) -> Seek:
    seek = await online.run(online.lobby.get, seek_id) if len(seek_id) <= 32 else None
    if seek is None:
        raise WebError("no_seek", "no such offer")
    if account is not None and seek.account_id == account.id:
        return seek
    if not token or not await online.run(online.lobby.token_owns, seek, token):
        raise WebError("not_owner", "this offer is not yours")
    return seek


@router.get("/seeks/{seek_id}")
async def seek_status(
    seek_id: str, online: OnlineDep, account: OptionalAccount, token: str | None = None
) -> dict[str, Any]:
    """Its owner learns whether it was taken, and their seat (each asking
    is the owner's sign of life: a live seek stays in the lobby)."""
    seek = await _owned(online, seek_id, token, account)
    if seek.status == "open":
        await online.run(online.lobby.touch, [seek.id])
    return online.seek_status(seek, token)


@router.delete("/seeks/{seek_id}")
async def cancel_seek(
    seek_id: str, body: OwnerToken, online: OnlineDep, account: OptionalAccount
) -> dict[str, Any]:
    """Withdraw an open offer."""
    seek = await _owned(online, seek_id, body.token, account)
    if not await online.run(online.lobby.cancel, seek.id):
        raise WebError("seek_gone", "this offer was taken or withdrawn already")
    online.lobby_changed()
    return {"id": seek.id, "status": "cancelled"}


@router.post("/seeks/{seek_id}/accept")
async def accept_seek(
    seek_id: str, body: AcceptSeek, online: OnlineDep, account: OptionalAccount, client: ClientDep
) -> dict[str, Any]:
    """Take an offer: exactly one acceptor wins; the answer is their seat."""
    online.allow("seek", f"address:{client}", _owner_key(account) or f"address:{client}")
    if len(seek_id) > 32:
        raise WebError("no_seek", "no such offer")
    return await online.accept(seek_id, await seeker_of(online, account, body.name))


@router.post("/play-now")
async def play_now(
    body: PlayNow, account: OptionalAccount, online: OnlineDep, client: ClientDep
) -> dict[str, Any]:
    """Wait for an opponent of close rating (a computer one after ``bot_after`` s)."""
    online.allow("seek", f"address:{client}", _owner_key(account) or f"address:{client}")
    if body.rated and account is None:
        raise WebError("login_required", "log in to play a rated game")
    seeker = await seeker_of(online, account, body.name)
    key = await online.play_now.join(
        seeker, body.rules, body.rated, body.bot_after, body.browser
    )
    return {"key": key, "status": "waiting"}


@router.get("/play-now/{key}")
async def play_now_status(key: str, online: OnlineDep) -> dict[str, Any]:
    """Still waiting, or the seat of the game found."""
    return await online.queue_status(key)


@router.delete("/play-now/{key}")
async def leave_queue(key: str, _body: OwnerToken, online: OnlineDep) -> dict[str, Any]:
    if not well_formed_key(key):
        raise WebError("malformed", "not the key of a place in the queue")
    if not await online.play_now.leave(key):
        raise WebError("not_in_queue", "no such place in the queue")
    return {"status": "left"}


# -- the lobby socket -------------------------------------------------------------------


@sockets.websocket("/ws/lobby")
async def lobby_socket(ws: WebSocket) -> None:
    """Lobby changes for everyone; a seek's seat for its owner, at once."""
    origin = ws.headers.get("origin")
    if origin is not None and not security.same_origin(origin, ws.headers.get("host")):
        await ws.close(code=4403, reason="cross-site connection refused")
        return
    online: Online = ws.app.state.online
    listener, account = await _listening(online, ws)
    pump: asyncio.Task[None] | None = None
    bucket = security.TokenBucket(FOLLOWS_PER_SECOND, FOLLOWS_PER_SECOND * 2)
    try:
        await ws.accept()
        pump = asyncio.create_task(_pump(ws, listener))
        while True:
            frame = await ws.receive()
            if frame["type"] == "websocket.disconnect":
                return
            if not bucket.take():
                await ws.close(code=1008, reason="too many messages")
                return
            try:
                text = frame.get("text")
                if text is None:
                    raise WebError(
                        "malformed", "messages must be JSON text, not binary frames",
                        key="error.protocol",
                    )
                await _follow(online, listener, account, text)
            except WebError as exc:
                listener.send(error_message(exc))
            except Exception as exc:  # one bad message: never the socket
                log.warning("lobby socket: a message failed (%s: %s)", type(exc).__name__, exc)
                listener.send(error_message(PROTOCOL_ERROR))
    except (WebSocketDisconnect, RuntimeError):
        pass
    finally:
        online.listeners.discard(listener)
        if pump is not None:
            pump.cancel()
            with contextlib.suppress(BaseException):
                await pump


async def _listening(online: Online, ws: WebSocket) -> tuple[Listener, Account | None]:
    """The socket's listener, told every lobby change from now on, with the
    account its session cookie proves. Registered before the socket is
    accepted: the page fetches the offers once it is open, so a change is
    either in that list or told on the socket (one told while the account
    was still being read was lost to the page until the next change)."""
    token = ws.cookies.get(SESSION_COOKIE)
    account = await online.account_of(token)
    listener = Listener(ws=ws)
    if account is not None and token:  # its session's end closes this socket
        listener.account_id, listener.session = account.id, token_digest(token)
    online.listeners.add(listener)
    return listener, account


async def _pump(ws: WebSocket, listener: Listener) -> None:
    while True:
        await ws.send_text(await listener.queue.get())


async def _follow(online: Online, listener: Listener, account: Account | None, text: str) -> None:
    """``{"type": "follow", "seek": ID, "token": ...}``: tell me when it is
    taken; ``{"type": "wait", "key": KEY}``: keep my "Play now" place alive
    and tell me when it is matched."""
    if len(text) > MAX_LOBBY_MESSAGE:
        raise WebError("too_large", "message too large", params={"n": MAX_LOBBY_MESSAGE})
    try:
        msg = json.loads(text)
    except ValueError:
        msg = None
    refusal = surrogate_refusal(msg)
    if refusal is not None:
        raise WebError("malformed", refusal, key="error.protocol")
    if isinstance(msg, dict) and msg.get("type") == "wait":
        await _wait(online, listener, msg.get("key"))
        return
    try:
        token = OwnerToken.model_validate({"token": msg.get("token")}).token
    except (ValueError, AttributeError, ValidationError):
        raise WebError(
            "malformed", 'send {"type": "follow", "seek": ID, "token": ...}', key="error.protocol"
        ) from None
    seek_id = msg.get("seek")
    if msg.get("type") != "follow" or not isinstance(seek_id, str):
        raise WebError(
            "malformed", 'send {"type": "follow", "seek": ID, "token": ...}', key="error.protocol"
        )
    if seek_id not in listener.seeks and listener.followed >= MAX_FOLLOWED:
        raise WebError("too_many_seeks", "this page follows too many offers")
    seek = await _owned(online, seek_id, token, account)
    listener.seeks[seek.id] = token
    if seek.status == "open":  # its owner is here (again): kept in the lobby
        await online.run(online.lobby.touch, [seek.id])
    # matched but its game still being made: tell_seeker sends it in a moment
    if seek.status == "cancelled" or seek.game_id is not None:
        online.tell_seeker(seek)


async def _wait(online: Online, listener: Listener, key: object) -> None:
    """Follow a "Play now" place on this socket (told at once if matched).
    Each ``wait`` is the place's sign of life; a socket waits on one place:
    a new key replaces the one before, which leaves the queue (one page,
    one place: never paired with itself)."""
    if not well_formed_key(key):
        raise WebError("malformed", 'send {"type": "wait", "key": KEY}', key="error.protocol")
    if listener.place is None and listener.followed >= MAX_FOLLOWED:
        raise WebError("too_many_seeks", "this page follows too many offers")
    answer = await online.play_now.status(key)
    if answer is None:
        raise WebError("not_in_queue", "no such place in the queue")
    old, listener.place = listener.place, None
    if old is not None and old != key:
        await online.play_now.leave(old)
    if answer["status"] == "matched":
        listener.send(play_now_message(key, answer))
    else:
        listener.place = key
