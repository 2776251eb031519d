"""``/api/games/ID/review``: where a game's review stands (``GET``) and
starting it (``POST``): a finished game, or the finished deals of one still
being played; the work is :mod:`marjolet.web.reviews`'."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from marjolet.web.deps import ClientDep, LimitsDep, ReviewsDep, within_limit
from marjolet.web.schemas import NoOptions

router = APIRouter(prefix="/api", tags=["reviews"])


@router.get("/games/{game_id}/review")
async def review_status(game_id: str, reviews: ReviewsDep) -> dict[str, Any]:
    return await reviews.status(game_id)


@router.post("/games/{game_id}/review")
async def review_start(
    game_id: str,
    reviews: ReviewsDep,
    limits: LimitsDep,
    client: ClientDep,
    body: NoOptions | None = None,
) -> dict[str, Any]:
    """Start a review (``review`` limit per address); its decisions are
    judged in this client's share of the bot pool. A review stored or
    running is only reported: opening it again costs nothing, and is not
    counted against the limit."""
    return await reviews.start(
        game_id, client, allowed=lambda: within_limit(limits, "review", client)
    )
