"""FastAPI dependencies: what a route needs, declared in its signature.

The application keeps its shared objects in ``app.state`` (set once by
:func:`marjolet.web.app.create_app`); a route names what it needs by type,
as the FastAPI full-stack template does (``SessionDep``, ``CurrentUser``):

- :data:`HubDep`: the :class:`~marjolet.web.hub.Hub` (games, tables, bots);
- :data:`ConfigDep`: the server's :class:`~marjolet.web.config.WebConfig`;
- :data:`ReviewsDep`: the :class:`~marjolet.web.reviews.ReviewService`;
- :data:`GuardsDep`: the per-address allowances (:class:`~marjolet.web.security.Guards`);
- :data:`ClientDep`: the client's address;
- :data:`LimitsDep`: the named rate limits (:class:`~marjolet.web.ratelimits.RateLimits`),
  applied with :func:`within_limit`;
- :data:`TableDep`: the live table of the path's ``game_id`` (loaded if
  needed; ``not_found``, ``corrupt`` or ``bot_unavailable`` otherwise);
- :data:`SeatDep`: the table and the seat whose secret token the body
  quotes (a :class:`~marjolet.web.schemas.SeatToken`; ``bad_token`` otherwise);
- :data:`OnlineDep`: the :class:`~marjolet.web.online.Online` service, and
  its :data:`AccountsDep` and :data:`LobbyDep`;
- :data:`OptionalAccount`: the account of the session cookie, or ``None``;
  :data:`CurrentAccount`: the same, required (``login_required``, 401).

They work for HTTP routes and WebSockets alike (an ``HTTPConnection``);
every refusal is a :class:`~marjolet.web.errors.WebError`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, cast

from fastapi import Depends
from starlette.requests import HTTPConnection

from marjolet.web.accounts import Account, Accounts
from marjolet.web.config import WebConfig
from marjolet.web.errors import WebError
from marjolet.web.hub import Hub
from marjolet.web.lobby import Lobby
from marjolet.web.online import SESSION_COOKIE, Online
from marjolet.web.ratelimits import RateLimits
from marjolet.web.reviews import ReviewService
from marjolet.web.schemas import SeatToken
from marjolet.web.security import Guards
from marjolet.web.tables import Table


def get_hub(conn: HTTPConnection) -> Hub:
    return cast(Hub, conn.app.state.hub)


HubDep = Annotated[Hub, Depends(get_hub)]


def get_config(hub: HubDep) -> WebConfig:
    return hub.config


ConfigDep = Annotated[WebConfig, Depends(get_config)]


def get_reviews(conn: HTTPConnection) -> ReviewService:
    return cast(ReviewService, conn.app.state.reviews)


ReviewsDep = Annotated[ReviewService, Depends(get_reviews)]


def get_guards(conn: HTTPConnection) -> Guards:
    return cast(Guards, conn.app.state.guards)


GuardsDep = Annotated[Guards, Depends(get_guards)]


def get_limits(conn: HTTPConnection) -> RateLimits:
    return cast(RateLimits, conn.app.state.limits)


LimitsDep = Annotated[RateLimits, Depends(get_limits)]


def within_limit(limits: RateLimits, name: str, *keys: str) -> None:
    """Count one use of the limit ``name`` for each key (an address, a
    seat); ``rate_limited`` (429) when any of them is over it."""
    if not limits.allows(name, *keys):
        wait = max(limits.retry_after(name, key) for key in keys)
        raise WebError(
            "rate_limited",
            f"too many {name} requests; try again in {wait:.0f} s",
            key="error.rate_limited_request",
            params={"what": name, "seconds": round(wait)},
        )


def client_address(conn: HTTPConnection) -> str:
    return conn.client.host if conn.client else "?"


ClientDep = Annotated[str, Depends(client_address)]


async def get_table(game_id: str, hub: HubDep) -> Table:
    return await hub.table(game_id)


TableDep = Annotated[Table, Depends(get_table)]


@dataclass(frozen=True, slots=True)
class Seated:
    """A client that proved it holds ``seat`` at ``table``; ``owner``, the
    owner token of its rematch offer that it quoted (a game found online);
    ``take``: it only takes the other seat's rematch offer."""

    table: Table
    seat: int
    owner: str | None = None
    take: bool = False


async def new_game_allowance(address: ClientDep, guards: GuardsDep) -> None:
    """Refuse a client address that asks for too many new games a minute."""
    if not guards.new_games.take(address):
        raise WebError("too_many_games", "too many new games from this address; wait a minute")


def get_online(conn: HTTPConnection) -> Online:
    return cast(Online, conn.app.state.online)


OnlineDep = Annotated[Online, Depends(get_online)]


def get_accounts(online: OnlineDep) -> Accounts:
    return online.accounts


AccountsDep = Annotated[Accounts, Depends(get_accounts)]


def get_lobby(online: OnlineDep) -> Lobby:
    return online.lobby


LobbyDep = Annotated[Lobby, Depends(get_lobby)]


async def optional_account(conn: HTTPConnection, online: OnlineDep) -> Account | None:
    """The account whose session the request's cookie holds, if any."""
    return await online.account_of(conn.cookies.get(SESSION_COOKIE))


OptionalAccount = Annotated[Account | None, Depends(optional_account)]


async def seat_holder(
    table: TableDep, body: SeatToken, account: OptionalAccount, online: OnlineDep
) -> Seated:
    """The seat whose token the body quotes or, with no token, the seat the
    logged-in account holds at the table (a game found online)."""
    if body.token is not None:
        seat = table.seat_of(body.token)
        if seat is None:
            raise WebError("bad_token", "this token does not hold a seat at this table")
        return Seated(table, seat, body.owner, body.take)
    held = None if account is None else await online.run(online.lobby.seat_of, table.id, account.id)
    if held is None:
        raise WebError("bad_token", "give your seat's token, or log in to the account holding it")
    return Seated(table, held, body.owner, body.take)


SeatDep = Annotated[Seated, Depends(seat_holder)]


async def current_account(account: OptionalAccount) -> Account:
    if account is None:
        raise WebError("login_required", "log in first")
    return account


CurrentAccount = Annotated[Account, Depends(current_account)]
