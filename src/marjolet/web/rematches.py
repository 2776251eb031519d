"""Rematches between players who found each other online.

A game made by the lobby or "Play now" has no invite link to pass on, so
its rematch cannot be a friend's table (that opened a table nobody came
to). Instead a seat of the finished game *offers* a rematch: a seek of the
lobby's (:class:`~marjolet.web.lobby.Lobby`) with the same rules, rated as
the game was, marked as the rematch of that game by that seat. The lobby
never lists it and only the game's other seat may take it, by offering a
rematch in turn: then both are seated at a new table, exactly as when a
seek is accepted. The seat that offered it may withdraw it (``cancelled``),
the other may decline it (``declined``). One left open longer than the
server's ``rematch_wait`` (ten minutes) ends ``expired`` when next looked
at, so that a player who offered and has gone is never seated at a game
they would lose by their absence. Everything is in the database, so the
two players may sit at different server processes; each page asks for the
offer's news (:func:`status`) while its end-of-match box is open.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from marjolet.web.accounts import DELETED_NAME
from marjolet.web.errors import WebError
from marjolet.web.lobby import Seek, Seeker

if TYPE_CHECKING:
    from marjolet.web.online import Online
    from marjolet.web.tables import Table


async def seeker(online: Online, table: Table, seat: int) -> Seeker:
    """Who holds ``seat`` of the table: its account, or the guest's name."""
    rows = await asyncio.to_thread(online.players_of, table.id)
    for held, account_id, _, _ in rows:
        if held == seat:
            account = await online.run(online.accounts.by_id, account_id)
            if account is not None:
                return Seeker(account.name, account)
    return Seeker(table.game.players[seat])


async def current(online: Online, table: Table) -> Seek | None:
    """The game's latest rematch offer; an open one that is too old ends
    ``expired`` first."""
    offer = await online.run(online.lobby.rematch_offer, table.id)
    wait = online.hub.config.rematch_wait
    too_old = offer is not None and online.lobby.clock() - offer.created > wait
    if offer is not None and offer.status == "open" and too_old:
        await online.run(online.lobby.cancel, offer.id, "expired")
        offer = await online.run(online.lobby.rematch_offer, table.id)
    return offer


def _check(table: Table) -> None:
    if not table.paired:
        raise WebError("no_rematch", "only a game found online has a rematch offer")
    if not (table.match.is_over or table.game.forfeit is not None):
        raise WebError("not_over", "the match is not over yet")


def _opponent_here(table: Table, seat: int) -> None:
    """A rematch is offered to a player who can answer: not to a deleted
    account's seat (the offer would wait for nobody until it expired)."""
    if table.game.players[1 - seat] == DELETED_NAME:
        raise WebError(
            "no_rematch", "the other player deleted their account: no rematch",
            key="error.rematch_deleted",
        )


async def offer(online: Online, table: Table, seat: int, *, take: bool = False) -> dict[str, Any]:
    """``seat`` asks for a rematch. If the other seat's offer is open, this
    takes it: the answer is the seat at the new game (``status``
    ``matched``). Otherwise the answer is this seat's open offer (``status``
    ``offered``, with ``token``, its owner token, when it is new); with
    ``take`` (an Accept button) a ``seek_gone`` refusal instead, so that an
    offer withdrawn before the player answered is never turned into one
    the other way."""
    _check(table)
    latest = await current(online, table)
    if latest is not None and latest.status == "matched":  # asked again from an old page
        return {"status": "matched", "game": _new_seat(online, latest, seat, None)}
    if latest is not None and latest.status == "open" and latest.rematch_seat != seat:
        return await _take(online, table, seat, latest)
    if take:
        raise WebError("seek_gone", "the other player's rematch offer is no longer open")
    if latest is not None and latest.status == "open":
        return {"status": "offered", "offer": describe(latest, seat), "token": None}
    _opponent_here(table, seat)
    mine = await seeker(online, table, seat)
    rules = table.game.rules.to_json()
    new, token = await online.run(
        lambda: online.lobby.post(
            mine, rules, rated=table.rated, days_per_move=table.days_per_move,
            rematch=(table.id, seat),
        )
    )
    both = await online.run(online.lobby.open_rematch_offers, table.id)
    if both and both[0].id != new.id and both[0].rematch_seat != seat:
        # the other seat offered at the same moment, first: this offer gives
        # way and takes that one (the other seat's request keeps its own)
        await online.run(online.lobby.cancel, new.id)
        return await _take(online, table, seat, both[0])
    return {"status": "offered", "offer": describe(new, seat), "token": token}


async def _take(online: Online, table: Table, seat: int, other: Seek) -> dict[str, Any]:
    """``seat`` takes the other seat's open offer: both are seated anew, and
    whoever did not deal first in the finished game deals first now."""
    taker = await seeker(online, table, seat)
    offerer_dealt = table.game.first_dealer == other.rematch_seat
    game = await online.accept(other.id, taker, rematch=True, seeker_deals=not offerer_dealt)
    return {"status": "matched", "game": game}


async def status(
    online: Online, table: Table, seat: int, owner_token: str | None
) -> dict[str, Any]:
    """The news of the game's rematch offer for ``seat``: the offer
    (``None`` if there never was one) and, once it was taken, ``game``: the
    seat's place at the new table (with its token when ``owner_token`` is
    the offer's owner token, or for the seat that took it on this process)."""
    _check(table)
    latest = await current(online, table)
    if latest is None:
        return {"offer": None, "game": None}
    return {"offer": describe(latest, seat), "game": _new_seat(online, latest, seat, owner_token)}


def _new_seat(
    online: Online, offer: Seek, seat: int, owner_token: str | None
) -> dict[str, Any] | None:
    """``seat``'s place at the game made from a taken offer (``None`` while
    it is not taken): the offering seat's as the lobby tells a seek's owner,
    the other seat's without its token (it got it when it took the offer)."""
    if offer.status != "matched" or offer.game_id is None:
        return None
    if offer.rematch_seat == seat:
        game: dict[str, Any] | None = online.seek_status(offer, owner_token)["game"]
        return game
    return {"id": offer.game_id, "seat": 1 - (offer.seat or 0), "token": None,
            "url": f"/game/{offer.game_id}"}


async def withdraw(online: Online, table: Table, seat: int) -> dict[str, Any]:
    """Withdraw (the seat that offered) or decline (the other) the open offer."""
    _check(table)
    latest = await current(online, table)
    if latest is None or latest.status != "open":
        raise WebError("seek_gone", "no rematch is on offer")
    ending = "cancelled" if latest.rematch_seat == seat else "declined"
    if not await online.run(online.lobby.cancel, latest.id, ending):
        raise WebError("seek_gone", "this rematch was taken or withdrawn already")
    cancelled = await online.run(online.lobby.get, latest.id)
    assert cancelled is not None
    return {"offer": describe(cancelled, seat), "game": None}


def describe(seek: Seek, seat: int) -> dict[str, Any]:
    """An offer as the seat's page reads it."""
    return {
        "id": seek.id,
        "seat": seek.rematch_seat,
        "name": seek.name,
        "mine": seek.rematch_seat == seat,
        "status": seek.status,
        "rated": seek.rated,
    }
