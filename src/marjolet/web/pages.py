"""The pages of the web server: plain files in ``static/`` (no build step):
``/`` lobby, ``/game/ID`` table, ``/history`` games list, ``/replay`` viewer."""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter
from fastapi.responses import FileResponse

STATIC = Path(__file__).resolve().parent / "static"


def page_router() -> APIRouter:
    """The page routes (the ``/static`` files are mounted by the app)."""
    router = APIRouter()

    def page(name: str) -> FileResponse:
        return FileResponse(STATIC / name, media_type="text/html")

    @router.get("/", include_in_schema=False)
    async def lobby_page() -> FileResponse:
        return page("index.html")

    @router.get("/game/{game_id}", include_in_schema=False)
    async def table_page(game_id: str) -> FileResponse:
        return page("table.html")

    @router.get("/history", include_in_schema=False)
    async def history_page() -> FileResponse:
        return page("history.html")

    @router.get("/replay", include_in_schema=False)
    async def replay_page() -> FileResponse:
        return page("replay.html")

    @router.get("/favicon.ico", include_in_schema=False)
    async def favicon() -> FileResponse:
        return FileResponse(STATIC / "favicon.svg", media_type="image/svg+xml")


    return router
