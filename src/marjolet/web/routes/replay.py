"""``/api/games/ID/replay`` and ``/api/replay``: every position of a record,
for the replay viewer (a stored game's, or an uploaded file's).

Replaying a long record is CPU work (a 100-deal record is thousands of
positions): it runs in the bot pool under the client's address (never on
the event loop; see :mod:`marjolet.web.fairpool`), answered as JSON encoded
there too, with positions as diffs (:func:`marjolet.web.views.replay_frames`),
and each client may ask for ``replay`` (:data:`~marjolet.web.ratelimits.DEFAULT_LIMITS`)
replays a minute.

The upload takes the file as it is (JSON or text, not a JSON body), so this
router is included with the upload limit (``max_upload``) as its
``max_body_size``; every other route has the request limit.
"""

from __future__ import annotations

import json
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response

from marjolet.errors import MarjoletError, RecordError
from marjolet.i18n.record_faults import fault_reason
from marjolet.record import FORMAT, Record, error_place, loads, notation_mistake, replay
from marjolet.web import views
from marjolet.web.deps import ClientDep, HubDep, LimitsDep, within_limit
from marjolet.web.errors import WebError
from marjolet.web.hub import shareable_part
from marjolet.web.routes.pages import reader_language

#: Longest record the replay viewer shows, in deals.
MAX_REPLAY_DEALS = 100

router = APIRouter(prefix="/api", tags=["replay"])


@router.get("/games/{game_id}/replay")
async def stored_replay(
    game_id: str, hub: HubDep, limits: LimitsDep, client: ClientDep
) -> Response:
    """A stored game's record anyone may see, position by position."""
    within_limit(limits, "replay", client)
    game = await hub.load(game_id)
    try:
        body = await hub.extra_work(client, _stored_answer, game)
    except WebError as exc:
        if exc.code == "corrupt":  # listed as damaged from now on
            hub.ledger.quarantine(game.id, f"game {game.id}: {exc.message}")
        raise
    return Response(body, media_type="application/json")


@router.post("/replay")
async def upload_replay(
    request: Request, hub: HubDep, limits: LimitsDep, client: ClientDep
) -> Response:
    """An uploaded record: checked, then shown position by position; a
    refused one's fault worded in the reader's language (``?lang=``, as
    the replay page asks, else the pages' cookie or ``Accept-Language``)."""
    within_limit(limits, "replay", client)
    raw = await request.body()
    body = await hub.extra_work(client, _uploaded_answer, raw, reader_language(request))
    return Response(body, media_type="application/json")


def _stored_answer(game: Any) -> bytes:
    """The JSON answer for a stored game (in a bot thread); ``corrupt``
    for a stored record that breaks the rules."""
    try:
        record, complete = shareable_part(game)
        out = replay_payload(record)
    except WebError:
        raise
    except MarjoletError as exc:
        raise WebError("corrupt", f"this game cannot be replayed: {exc}") from None
    out["game"] = game.summary()
    out["complete"] = complete
    return _encode(out)


def _uploaded_answer(raw: bytes, lang: str) -> bytes:
    """The JSON answer for an uploaded file (in a bot thread)."""
    out = replay_payload(_read_record(raw, lang))
    out["complete"] = True
    return _encode(out)


def _encode(out: dict[str, Any]) -> bytes:
    return json.dumps(out, separators=(",", ":")).encode("utf-8")


def _read_record(raw: bytes, lang: str) -> Record:
    """The record in an uploaded file, or a refusal saying what is wrong
    and where (its reason worded in ``lang`` when it has words)."""
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
            extra={
                "deal": exc.deal,
                "action": exc.action,
                "line": exc.line,  # of a text record, from 1; else null
                # where a player reads it, as `marjolet replay` says it: [["deal", 1], ["trick", 2]]
                "place": error_place(exc),
                "mistake": notation_mistake(exc),  # of a record typed by hand, or null
                "reason": exc.message,
                # the fault as RecordError tells it to programs (errors.py), and as
                # `marjolet replay` words it, in the reader's language; null for a
                # move the rules refuse (the page words its `why`) or a fault
                # without words
                "kind": exc.kind,
                "detail": exc.detail,
                "worded": fault_reason(exc, lang),
                "lang": lang,
                "readable": exc.readable,
                "why": exc.why,
                # the record's players, as written, that a refused move names as
                # `marjolet replay` does ("Camille declares..."); null if unread
                "players": _players(text) if exc.why else None,
            },
        ) from None


def _players(text: str) -> list[str] | None:
    """The players' names of a record the rules refuse, read without its check."""
    try:
        players = loads(text, check=False).players
    except RecordError:
        return None
    return None if players is None else [str(name) for name in players]


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
