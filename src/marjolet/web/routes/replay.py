"""``/api/games/ID/replay`` and ``/api/replay``: every position of a record,
for the replay viewer (a stored game's, or an uploaded file's).

The upload takes the file as it is (JSON or text, not a JSON body), so this
router is included with the upload limit (``max_upload``) as its
``max_body_size``; every other route has the request limit.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request

from marjolet.errors import RecordError
from marjolet.record import FORMAT, Record, loads, replay
from marjolet.web import views
from marjolet.web.deps import HubDep
from marjolet.web.errors import WebError

#: Longest record the replay viewer shows, in deals.
MAX_REPLAY_DEALS = 100

router = APIRouter(prefix="/api", tags=["replay"])


@router.get("/games/{game_id}/replay")
async def stored_replay(game_id: str, hub: HubDep) -> dict[str, Any]:
    """A stored game's record anyone may see, position by position."""
    game, record, complete = await hub.shareable_record(game_id)
    out = replay_payload(record)
    out["game"] = game.summary()
    out["complete"] = complete
    return out


@router.post("/replay")
async def upload_replay(request: Request) -> dict[str, Any]:
    """An uploaded record: checked, then shown position by position."""
    record = _read_record(await request.body())
    out = replay_payload(record)
    out["complete"] = True
    return out


def _read_record(raw: bytes) -> Record:
    """The record in an uploaded file, or a refusal saying what is wrong
    and where."""
    if raw.startswith(b"\xef\xbb\xbf"):
        raise WebError(
            "bom", "the file starts with a byte-order mark (BOM); save it as UTF-8 without BOM"
        )
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise WebError(
            "not_utf8",
            f"the file is not UTF-8 text (byte {exc.start + 1}); "
            "expected a marjolet record, JSON or text",
        ) from None
    if not text.strip():
        raise WebError("empty_file", "the file is empty (expected a marjolet record, JSON or text)")
    try:
        return loads(text)
    except RecordError as exc:
        raise WebError(
            "bad_record",
            f"not a valid record: {exc}",
            extra={"deal": exc.deal, "action": exc.action, "reason": exc.message},
        ) from None


def replay_payload(record: Record) -> dict[str, Any]:
    """The record, its text, its result and every position (both hands open)."""
    if len(record.deals) > MAX_REPLAY_DEALS:
        raise WebError(
            "too_many_deals",
            f"the record has {len(record.deals)} deals; the viewer shows up to {MAX_REPLAY_DEALS}",
            params={"n": len(record.deals), "most": MAX_REPLAY_DEALS},
        )
    return {
        "format": FORMAT,
        "record": record.to_json(),
        "text": record.to_text(),
        "result": replay(record).to_json(),
        **views.replay_frames(record),
    }
