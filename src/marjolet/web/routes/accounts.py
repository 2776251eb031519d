"""``/api/accounts``, ``/api/session``, ``/api/me``, ``/api/players/NAME``,
``/api/rating-system``: accounts, logging in and out, profiles; and the
account holder's own settings: ``/api/me/password`` (change it),
``/api/me/sessions`` (log out on every other device), ``DELETE /api/me``
(delete the account).

The session is a cookie (:data:`~marjolet.web.online.SESSION_COOKIE`):
HttpOnly (no script reads it), SameSite=Lax (another site's page cannot
post with it), Secure when the request came over HTTPS; the server keeps
only its hash, and logging out deletes it. Logins are limited per address
and per name, sign-ups per address (web/ratelimits.py); a password asked
again (to change it, to delete the account) counts against the login limit,
so that a borrowed session cannot guess the password faster than a login.
"""

from __future__ import annotations

import json
from typing import Any

from fastapi import APIRouter, Request, Response

from marjolet.web.accounts import Account, AccountError, account_name, check_name, check_password
from marjolet.web.deps import ClientDep, CurrentAccount, OnlineDep, OptionalAccount
from marjolet.web.errors import WebError
from marjolet.web.online import (
    SESSION_COOKIE,
    SESSION_MAX_AGE,
    Online,
    account_game_rows,
    ended_by_resignation,
    ended_without_result,
    refused,
)
from marjolet.web.schemas import Credentials, NoOptions, PasswordChange, PasswordCheck

router = APIRouter(prefix="/api", tags=["accounts"])

#: Recent games listed on a profile.
RECENT = 20


def set_session(response: Response, request: Request, token: str) -> None:
    """Give the browser its session cookie."""
    response.set_cookie(
        SESSION_COOKIE,
        token,
        max_age=SESSION_MAX_AGE,
        httponly=True,
        samesite="lax",
        secure=request.url.scheme == "https",
        path="/",
    )


@router.post("/accounts", status_code=201)
async def sign_up(
    body: Credentials, request: Request, response: Response, online: OnlineDep, client: ClientDep
) -> dict[str, Any]:
    """A new account, logged in at once. Only a sign-up that could succeed
    counts against the address's limit: a name or a password mistyped is
    refused first, so that a few typos never lock out a household."""
    try:
        check_name(body.name)
        check_password(body.password)
    except AccountError as exc:
        raise refused(exc) from None
    online.allow("signup", f"address:{client}")
    account, token = await online.run(online.accounts.create, body.name, body.password)
    set_session(response, request, token)
    return {"account": account.to_json()}


@router.post("/session")
async def log_in(
    body: Credentials, request: Request, response: Response, online: OnlineDep, client: ClientDep
) -> dict[str, Any]:
    """Log in: the same 401 for an unknown name and a wrong password."""
    typed = account_name(body.name) or body.name  # (one counter however the accents came)
    online.allow("login", f"address:{client}", f"name:{typed.lower()[:40]}")
    account, token = await online.run(online.accounts.login, body.name, body.password)
    set_session(response, request, token)
    return {"account": account.to_json()}


@router.delete("/session")
async def log_out(
    _body: NoOptions,
    request: Request,
    response: Response,
    online: OnlineDep,
    account: OptionalAccount,
) -> dict[str, Any]:
    """Log out: the session is deleted on the server, the cookie in the
    browser, and the table sockets it proved are closed; ``forget`` lists
    the account's games, whose seat keys the page then deletes from the
    browser (on a shared phone, the next person must not find them
    playable)."""
    token = request.cookies.get(SESSION_COOKIE)
    held = [] if account is None else await online.run(online.game_ids, account)
    if token:
        await online.run(online.accounts.logout, token)
        await online.session_logged_out(token)  # this device's open tables too
    response.delete_cookie(SESSION_COOKIE, path="/", httponly=True, samesite="lax")
    return {"account": None, "forget": held}


@router.get("/me")
async def me(account: OptionalAccount, online: OnlineDep) -> dict[str, Any]:
    """Who is logged in (``null``: nobody), and how many games wait for them."""
    if account is None:
        return {"account": None, "waiting": 0}
    return {"account": account.to_json(), "waiting": await online.waiting_count(account)}


def count_password_try(online: Online, client: str, account: Account) -> None:
    """A password asked again counts as a login, by address and by name."""
    online.allow("login", f"address:{client}", f"name:{account.name.lower()}")


@router.post("/me/password")
async def change_password(
    body: PasswordChange,
    request: Request,
    response: Response,
    online: OnlineDep,
    client: ClientDep,
    account: CurrentAccount,
) -> dict[str, Any]:
    """Change the password: every other session ends, and this device gets
    a fresh session (a token known before the change opens nothing), which
    its open table sockets now count as theirs, on every process (only
    other devices' close, now and at a later "log out everywhere else"). A new
    password that breaks the sign-up's rule is refused before anything is
    counted or checked."""
    try:
        check_password(body.new)
    except AccountError as exc:
        raise refused(exc) from None
    count_password_try(online, client, account)
    token = await online.run(online.accounts.change_password, account.id, body.current, body.new)
    renewed = request.cookies.get(SESSION_COOKIE)
    await online.sessions_ended(account.id, keep=token, renewed=renewed)
    set_session(response, request, token)
    return {"account": account.to_json()}


@router.delete("/me/sessions")
async def log_out_elsewhere(
    _body: NoOptions, request: Request, online: OnlineDep, account: CurrentAccount
) -> dict[str, Any]:
    """End every session of the account but this device's; ``ended``: how many."""
    token = request.cookies.get(SESSION_COOKIE) or ""
    ended = await online.run(online.accounts.end_other_sessions, account.id, token)
    await online.sessions_ended(account.id, keep=token)
    return {"ended": ended}


@router.delete("/me")
async def delete_account(
    body: PasswordCheck,
    response: Response,
    online: OnlineDep,
    client: ClientDep,
    account: CurrentAccount,
) -> dict[str, Any]:
    """Delete the account, its password asked again (docs/web.md, "Deleting
    an account"): refused while it has games in progress."""
    count_password_try(online, client, account)
    renamed = await online.run(online.accounts.delete, account.id, body.password)
    await online.sessions_ended(account.id)
    online.account_deleted(account.id, renamed)
    response.delete_cookie(SESSION_COOKIE, path="/", httponly=True, samesite="lax")
    return {"account": None, "forget": []}


@router.get("/me/offers")
async def my_offers(account: CurrentAccount, online: OnlineDep) -> dict[str, Any]:
    """The open rematch offers of the account's finished games (game id:
    ``theirs`` or ``mine``), from the database alone: what the online page
    asks every few seconds, fetching its whole list only when they changed."""
    return {"offers": await online.run(online.open_offers, account.id)}


@router.get("/me/games")
async def my_games(account: CurrentAccount, online: OnlineDep) -> dict[str, Any]:
    """The logged-in account's games, those waiting for them first."""
    mine = await online.my_games(account)
    return {"games": mine, "waiting": sum(1 for g in mine if g["my_turn"])}


@router.get("/rating-system")
async def rating_system(online: OnlineDep) -> dict[str, Any]:
    """The Glicko-2 parameters (docs/ratings.md)."""
    return online.accounts.system.to_json()


@router.get("/players/{name}")
async def player(name: str, online: OnlineDep) -> dict[str, Any]:
    """A public profile: rating, counts, rating history, recent games."""
    account = await online.run(online.accounts.for_page, name)
    if account is None:
        raise WebError("no_player", "no player of that name")
    history = await online.run(online.accounts.history, account.id)
    recent = await online.run(_recent_games, online, account)
    return {
        **account.to_json(),
        "recent": [g["id"] for g in recent],
        "recent_games": recent,
        "history": history,
    }


def _recent_games(online: Online, account: Account) -> list[dict[str, Any]]:
    """The account's latest games (nothing secret: who, when, the result)."""
    rows = account_game_rows(online.hub.ledger.engine, account.id, RECENT)
    out = []
    for r in rows:
        players = json.loads(r.players)
        seat = int(r.seat)
        result = None
        if r.status == "finished" and r.winner is not None:
            result = "win" if int(r.winner) == seat else "loss"
        out.append(
            {
                "id": r.id,
                "updated": r.updated,
                "opponent": players[1 - seat],
                "rated": bool(r.rated),
                "finished": r.status == "finished",
                "result": result,
                "forfeit": r.forfeit is not None,
                "resigned": ended_by_resignation(r),
                "aborted": ended_without_result(r),
                "replay": f"/replay?game={r.id}",
                "review": f"/replay?game={r.id}&review=1",
            }
        )
    return out
