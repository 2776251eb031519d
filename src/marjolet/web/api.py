"""The JSON API of the web server (``/api/...``): options, new games,
joining, the history, records and replays. Built per application by
:func:`api_router` around its :class:`~marjolet.web.hub.Hub`.

Every refusal is an :class:`ApiError`, answered as
``{"error": {"message": ...}}`` with its HTTP status; a refusal a player may
meet also gives ``key`` and ``params``, its catalogue text, which the page
shows in its language (``message``, English, when it has no such key).
"""

from __future__ import annotations

import json
import time
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import PlainTextResponse, Response

from marjolet.errors import MarjoletError, RecordError
from marjolet.record import FORMAT, Record, loads, replay
from marjolet.rules import PROFILES, Rules, check_new_match, setting_choices
from marjolet.web import security, views
from marjolet.web.config import WebConfig
from marjolet.web.hub import Hub, clean_name
from marjolet.web.tables import TableError

SECONDS_PER_MINUTE = 60.0
#: Longest record the replay viewer shows, in deals.
MAX_REPLAY_DEALS = 100
#: Addresses whose new-game allowance is remembered before the memory is cleared.
MAX_TRACKED_CLIENTS = 10_000


class ApiError(Exception):
    """An HTTP refusal with a one-line reason (English) and, for the page,
    the catalogue ``key`` of that reason with its ``params``."""

    def __init__(
        self,
        status: int,
        message: str,
        *,
        key: str = "",
        params: dict[str, Any] | None = None,
        **extra: Any,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.extra = extra
        if key:
            self.extra.update(key=key, params=params or {})

    @classmethod
    def of(cls, status: int, exc: TableError) -> ApiError:
        """A table's refusal as an HTTP one, with its code and catalogue text."""
        return cls(status, str(exc), key=exc.key, params=exc.params, code=exc.code)


class TokenBucket:
    """``rate`` events a second with bursts of ``burst``."""

    def __init__(self, rate: float, burst: float) -> None:
        self.rate = rate
        self.burst = burst
        self.tokens = burst
        self.stamp = time.monotonic()

    def take(self) -> bool:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        return False


async def read_body(request: Request, limit: int) -> bytes:
    """The request body, refused past ``limit`` bytes (even when chunked)."""
    length = request.headers.get("content-length")
    if length is not None and (not length.isdigit() or int(length) > limit):
        raise _too_large(limit)
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:
            raise _too_large(limit)
    return bytes(body)


def _too_large(limit: int) -> ApiError:
    return ApiError(
        413,
        f"request too large (the limit is {limit} bytes)",
        key="error.too_large",
        params={"n": limit},
    )


def api_router(hub: Hub, config: WebConfig) -> APIRouter:
    """The ``/api`` routes of one application."""
    router = APIRouter()
    creations: dict[str, TokenBucket] = {}
    watch_caps = security.WatchCaps(config.max_watched_per_address, config.max_watched)

    async def read_json(request: Request) -> dict[str, Any]:
        body = await read_body(request, config.max_request)
        try:
            obj = json.loads(body or b"{}")
        except (json.JSONDecodeError, UnicodeDecodeError, RecursionError):
            raise ApiError(400, "the request body is not valid JSON") from None
        if not isinstance(obj, dict):
            raise ApiError(400, "the request body must be a JSON object")
        return obj

    @router.get("/api/options")
    async def options() -> dict[str, Any]:
        return {
            "bots": hub.catalogue.public(),
            "default_bot": hub.catalogue.default,
            "hint_bot": hub.catalogue.hint_spec.split(":")[0],
            "profiles": {name: rules.to_json() for name, rules in PROFILES.items()},
            "settings": setting_choices(),
        }

    @router.post("/api/games")
    async def new_game(request: Request) -> dict[str, Any]:
        client = request.client.host if request.client else "?"
        per_minute = config.games_per_minute
        bucket = creations.setdefault(
            client, TokenBucket(per_minute / SECONDS_PER_MINUTE, per_minute)
        )
        if not bucket.take():
            raise ApiError(
                429,
                "too many new games from this address; wait a minute",
                key="error.too_many_games",
            )
        if len(creations) > MAX_TRACKED_CLIENTS:
            creations.clear()
        body = await read_json(request)
        mode = body.get("mode")
        if mode not in ("bot", "friend", "watch"):
            raise ApiError(
                400, f"'mode' must be 'bot', 'friend' or 'watch', got {str(mode)[:20]!r}"
            )
        try:
            rules = check_new_match(Rules.from_json(body.get("rules", "classic")))
        except MarjoletError as exc:
            raise ApiError(400, f"rules: {exc}") from None
        try:
            if mode == "bot":
                bots = [hub.catalogue.resolve(body.get("bot", hub.catalogue.default))]
            elif mode == "watch":
                pair = body.get("bots")
                if not isinstance(pair, list) or len(pair) != 2:
                    raise ApiError(400, "'bots' must name two bot choices")
                bots = [hub.catalogue.resolve(pair[0]), hub.catalogue.resolve(pair[1])]
            else:
                bots = []
        except MarjoletError as exc:
            raise ApiError(400, str(exc)) from None
        name = clean_name(body.get("name"), "you")
        if mode == "watch":
            running = [t.id for t in hub.tables.values() if not t.has_humans and not t.over]
            refusal = watch_caps.refusal(client, running)
            if refusal is not None:
                message, key, params = refusal
                raise ApiError(429, message, key=key, params=params)
        new = await hub.create_game(mode, rules, name=name, bots=bots)
        if mode == "watch":
            watch_caps.started(new.id, client)
        return new.reply()

    @router.post("/api/games/{game_id}/join")
    async def join(game_id: str, request: Request) -> dict[str, Any]:
        body = await read_json(request)
        invite = body.get("invite")
        if not isinstance(invite, str) or not 0 < len(invite) <= 128:
            raise ApiError(400, "'invite' must be the code of the invite link")
        try:
            seat, token = await hub.join(game_id, invite, clean_name(body.get("name"), "friend"))
        except TableError as exc:
            raise ApiError.of(404 if exc.code == "not_found" else 403, exc) from None
        return {"id": game_id, "seat": seat, "token": token}

    @router.get("/api/games")
    async def history() -> dict[str, Any]:
        return {"games": await hub.summaries()}

    async def shareable(game_id: str) -> tuple[dict[str, Any], Record, bool]:
        try:
            game, record, complete = await hub.shareable_record(game_id)
        except TableError as exc:
            raise ApiError.of(404, exc) from None
        return game.summary(), record, complete

    @router.get("/api/games/{game_id}/record")
    async def download(game_id: str, form: str = "json") -> Response:
        if form not in ("json", "text"):
            raise ApiError(400, "'form' must be 'json' or 'text'")
        summary, record, complete = await shareable(game_id)
        suffix = "" if complete else "-finished-deals"
        if form == "json":
            body, ext, media = record.dumps(), "json", "application/json"
        else:
            body, ext, media = record.to_text(), "txt", "text/plain; charset=utf-8"
        return Response(
            body,
            media_type=media,
            headers={
                "Content-Disposition": (
                    f'attachment; filename="marjolet-{summary["id"]}{suffix}.{ext}"'
                ),
                "X-Marjolet-Complete": "true" if complete else "false",
            },
        )

    @router.get("/api/games/{game_id}/replay")
    async def stored_replay(game_id: str) -> dict[str, Any]:
        summary, record, complete = await shareable(game_id)
        out = replay_payload(record)
        out["game"] = summary
        out["complete"] = complete
        return out

    @router.post("/api/replay")
    async def upload_replay(request: Request) -> dict[str, Any]:
        raw = await read_body(request, config.max_upload)
        if raw.startswith(b"\xef\xbb\xbf"):
            raise ApiError(
                400,
                "the file starts with a byte-order mark (BOM); save it as UTF-8 without BOM",
                code="bom",
            )
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ApiError(
                400,
                f"the file is not UTF-8 text (byte {exc.start + 1}); "
                "expected a marjolet record, JSON or text",
                code="not_utf8",
            ) from None
        if not text.strip():
            raise ApiError(
                400,
                "the file is empty (expected a marjolet record, JSON or text)",
                key="error.empty_file",
            )
        try:
            record = loads(text)
        except RecordError as exc:
            raise ApiError(
                400,
                f"not a valid record: {exc}",
                deal=exc.deal,
                action=exc.action,
                reason=exc.message,
            ) from None
        out = replay_payload(record)
        out["complete"] = True
        return out

    def replay_payload(record: Record) -> dict[str, Any]:
        if len(record.deals) > MAX_REPLAY_DEALS:
            raise ApiError(
                400,
                f"the record has {len(record.deals)} deals; "
                f"the viewer shows up to {MAX_REPLAY_DEALS}",
                key="error.too_many_deals",
                params={"n": len(record.deals), "most": MAX_REPLAY_DEALS},
            )
        return {
            "format": FORMAT,
            "record": record.to_json(),
            "text": record.to_text(),
            "result": replay(record).to_json(),
            **views.replay_frames(record),
        }

    @router.get("/api/health")
    async def health() -> PlainTextResponse:
        return PlainTextResponse("ok")

    return router
