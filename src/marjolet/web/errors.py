"""Every refusal of the web server, and its one mapping to HTTP and WebSocket.

A refusal is a :class:`WebError`: a stable ``code`` (for programs), an
English ``message`` (the log and the fallback text), and the catalogue
``key`` with its ``params`` that the page shows in its language (default
``error.<code>``; a key the catalogue lacks makes the page show ``message``).
Whatever raises it (a route, a dependency, a table, a Pydantic model), it
becomes:

- over HTTP, ``{"error": {"message", "code", "key", "params", ...}}`` with
  the status :data:`HTTP_STATUS` gives its code (400 when absent), by the
  handlers :func:`install_handlers` adds to the application;
- over a WebSocket, ``{"type": "error", "code", "message", "key", "params"}``
  (:func:`error_message`) to the one connection that caused it.

The turn driver's refusals (:class:`~marjolet.errors.TurnError`) are turned
into web ones in one place, :func:`from_turn`. Nothing a client sends
becomes a 500: FastAPI's own refusals (a body that is not JSON, too large,
nested too deeply, or not the shape a :mod:`~marjolet.web.schemas` model
wants) are answered in the same form.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from sqlalchemy.exc import SQLAlchemyError
from starlette.exceptions import HTTPException
from starlette.middleware.body_limit import MAX_BODY_SIZE_SCOPE_KEY

from marjolet.errors import MarjoletError, TurnError
from marjolet.web.db import database_unreachable
from marjolet.web.text import printable_line

log = logging.getLogger("marjolet.web")

#: The HTTP status of each code that is not a plain 400.
HTTP_STATUS: dict[str, int] = {
    "bad_credentials": 401,
    "bad_password": 403,
    "games_in_progress": 409,
    "login_required": 401,
    "session_ended": 401,
    "name_taken": 409,
    "no_seek": 404,
    "no_player": 404,
    "not_in_queue": 404,
    "not_owner": 403,
    "own_seek": 409,
    "seek_gone": 409,
    "too_many_requests": 429,
    "too_many_seeks": 429,
    "cannot_claim": 409,
    "cannot_resign": 409,
    "bad_invite": 403,
    "bad_token": 403,
    "bot_unavailable": 409,
    "busy": 503,
    "storage": 503,
    "disk_full": 507,
    "corrupt": 409,
    "damaged_db": 503,
    "database_down": 503,
    "cross_site": 403,
    "invite_used": 403,
    "not_finished": 409,
    "not_found": 404,
    "not_over": 409,
    "no_rematch": 409,
    "not_json": 415,
    "too_large": 413,
    "rate_limited": 429,
    "too_many_games": 429,
    "watch_address_full": 429,
    "watch_server_full": 429,
    "internal": 500,
}

#: Codes whose English ``message`` is the only text (no catalogue line): a
#: program's mistake (a malformed body, a cross-site or non-JSON request) or
#: details no catalogue line can hold (where an uploaded record is wrong).
ENGLISH_ONLY = frozenset({"bad_request", "bad_record", "bom", "cross_site", "not_json", "not_utf8"})


class WebError(MarjoletError):
    """A request the server refuses, told to the one client that made it
    (see the module docstring). ``extra`` adds fields to the HTTP answer
    (the place in a refused record, for example)."""

    def __init__(
        self,
        code: str,
        message: str,
        *,
        key: str = "",
        params: dict[str, Any] | None = None,
        extra: dict[str, Any] | None = None,
    ) -> None:
        # what it quotes of a client's input must not break the answer or
        # the log: one line, no lone surrogate, a bounded length
        message = printable_line(message)
        super().__init__(message)
        self.code = code
        self.message = message
        self.key = key or f"error.{code}"
        self.params = _encodable(params or {})
        self.extra = _encodable(extra or {})

    @property
    def status(self) -> int:
        return HTTP_STATUS.get(self.code, 400)

    def to_json(self) -> dict[str, Any]:
        """The ``error`` object of an HTTP answer."""
        return {
            "message": self.message,
            "code": self.code,
            "key": self.key,
            "params": self.params,
            **self.extra,
        }


def _encodable(value: Any) -> Any:
    """``value`` (a refusal's ``params`` or ``extra``: JSON of our own
    making, which may quote a client) with every string UTF-8 can encode."""
    if isinstance(value, str):
        return value.encode("utf-8", "backslashreplace").decode("utf-8")
    if isinstance(value, dict):
        return {_encodable(k): _encodable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_encodable(v) for v in value]
    return value


def disk_is_full(exc: BaseException) -> bool:
    """Whether a failed write failed for want of space: ``OSError``
    (``ENOSPC``, ``EDQUOT``) or SQLite's "database or disk is full"."""
    import errno

    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, OSError) and seen.errno in (errno.ENOSPC, errno.EDQUOT):
            return True
        if "database or disk is full" in str(seen):
            return True
        seen = getattr(seen, "orig", None) or seen.__cause__
    return False


def database_down() -> WebError:
    """The answer while the games' database server cannot be reached."""
    return WebError(
        "database_down",
        "the games' database does not answer just now; try again in a moment",
        key="error.database_down",
    )


def storage_failure(exc: BaseException, what: str = "the move", key: str = "") -> WebError:
    """The refusal of a change the store could not save: ``disk_full``
    (507, the same text whatever the change) when the disk is full,
    ``database_down`` (503, "try again") when the database server cannot be
    reached, else ``storage`` (503) with the catalogue ``key`` (default
    ``error.storage``)."""
    if disk_is_full(exc):  # first: SQLite says so with an OperationalError
        return WebError(
            "disk_full",
            f"the server's disk is full: it could not save {what}; try again later",
            key="error.disk_full",
        )
    if database_unreachable(exc):
        return database_down()
    done = ", so it was not played" if what == "the move" else ""
    return WebError("storage", f"the server could not save {what}{done}", key=key)


def too_large(limit: int) -> WebError:
    return WebError(
        "too_large", f"request too large (the limit is {limit} bytes)", params={"n": limit}
    )


#: The player's words for a move the rules refuse, by the engine's refusal
#: code (``engine.REFUSAL_CODES``, docs/engine.md "Refusals"): a page shows
#: these, never the rule's id (which stays in ``params["rule"]`` and in the
#: English ``message`` for programs and logs). Every code has its words.
ILLEGAL_KEYS = {
    "unknown_action": "error.illegal",
    "deal_over": "error.illegal",
    "window_open": "error.illegal_window",
    "not_held": "error.illegal_not_held",
    "must_overtake": "error.illegal_follow",
    "must_follow": "error.illegal_follow",
    "must_trump": "error.illegal_follow",
    "no_window": "error.illegal_no_window",
    "phase2_meld": "error.illegal_not_now",
    "outside_window": "error.illegal_not_now",
    "seven_turned_up": "error.illegal_seven_turned_up",
    "seven_exchanged": "error.illegal_seven_exchanged",
    "seven_played": "error.illegal_seven_played",
    "no_seven": "error.illegal_no_seven",
    "meld_again": "error.illegal_meld",
    "meld_missing": "error.illegal_meld",
    "one_meld": "error.illegal_one_meld",
}


def from_turn(refused: TurnError, sent: int, now: int) -> WebError:
    """The turn driver's refusal as the error a browser is told (the one
    place that knows the driver's codes)."""
    if refused.code == "stale":
        return WebError(
            "stale",
            f"the position changed (you sent version {sent}, it is {now}); look again and replay",
            params={"sent": sent, "now": now},
        )
    if refused.code == "illegal":
        why = getattr(refused, "why", None) or {}
        refusal = str(why.get("code", ""))
        return WebError(
            "illegal",
            str(refused).replace("illegal action", "illegal move", 1),
            key=ILLEGAL_KEYS.get(refusal, "error.illegal"),
            params={"rule": refused.rule, "refusal": refusal},
        )
    if refused.code == "no_turn":
        return WebError("deal_over", "the deal is over: start the next deal first")
    if refused.code == "not_your_turn":
        return WebError("not_your_turn", "it is not your turn")
    return WebError(refused.code, str(refused))


def error_message(exc: WebError) -> str:
    """``exc`` as a WebSocket ``error`` message."""
    return json.dumps(
        {
            "type": "error",
            "code": exc.code,
            "message": exc.message,
            "key": exc.key,
            "params": exc.params,
        }
    )


def from_validation(exc: RequestValidationError) -> WebError:
    """The first problem of a request FastAPI could not validate, in one
    line. The models' own checks (:mod:`~marjolet.web.schemas`) raise
    ``ValueError`` with a whole sentence naming the field; Pydantic's type
    checks are prefixed with the field's name."""
    errors = exc.errors()
    if not errors:
        return WebError("bad_request", "the request is not valid")
    first = errors[0]
    kind = first.get("type", "")
    loc = [str(part) for part in first.get("loc", ()) if part != "body"]
    if kind == "json_invalid":
        return WebError("bad_request", "the request body is not valid JSON")
    if kind == "value_error":
        cause = first.get("ctx", {}).get("error")
        return WebError("bad_request", str(cause) if cause is not None else first["msg"])
    if not loc or kind in ("model_attributes_type", "model_type", "dict_type"):
        return WebError("bad_request", "the request body must be a JSON object")
    return WebError("bad_request", f"'{'.'.join(loc)}': {first['msg']}")


def from_http(request: Request, exc: HTTPException) -> WebError:
    """Starlette's and FastAPI's own refusals (no route, a body too large or
    not readable as JSON) in the server's form."""
    if exc.status_code == 413:
        limit = request.scope.get(MAX_BODY_SIZE_SCOPE_KEY)
        return too_large(limit) if isinstance(limit, int) else WebError("too_large", "too large")
    if exc.status_code == 400:
        return WebError("bad_request", "the request body is not valid JSON")
    return WebError(f"http_{exc.status_code}", str(exc.detail))


def _answer(
    request: Request, error: WebError, status: int, level: int = logging.WARNING
) -> JSONResponse:
    log.log(level, "%s %s: %s", request.method, request.url.path, error.message)
    return JSONResponse({"error": error.to_json()}, status_code=status)


def wants_page(request: Request) -> bool:
    """A browser's address bar or a link followed, not a program: a GET
    that asks for HTML first (``fetch`` and HTTP libraries ask for any
    type, and keep the JSON form)."""
    accept = request.headers.get("accept", "")
    return request.method == "GET" and accept.lstrip().startswith("text/html")


def _not_found_page(request: Request, exc: WebError | None) -> Response:
    # the pages' module sits above this one (the routes import it)
    from marjolet.web.routes.pages import not_found_page

    return not_found_page(request, None if exc is None else (exc.key, exc.params))


def install_handlers(app: FastAPI) -> None:
    """Answer every refusal and internal error in the server's JSON form."""

    @app.exception_handler(WebError)
    async def web_error(request: Request, exc: WebError) -> Response:
        if exc.status == 404 and wants_page(request):
            return _not_found_page(request, exc)
        return _answer(request, exc, exc.status)

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        return _answer(request, from_validation(exc), 400)

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, exc: HTTPException) -> Response:
        if exc.status_code == 404 and wants_page(request):
            return _not_found_page(request, None)
        # no route, wrong method: not worth a warning (a scanner would flood the log)
        level = logging.WARNING if exc.status_code in (400, 413) else logging.DEBUG
        response = _answer(request, from_http(request, exc), exc.status_code, level)
        if exc.headers:
            response.headers.update(exc.headers)
        return response

    @app.exception_handler(SQLAlchemyError)
    async def database_error(request: Request, exc: SQLAlchemyError) -> JSONResponse:
        # a handler of its own (not the catch-all below, which Starlette
        # re-raises after answering: a traceback, and the connection closed)
        if not database_unreachable(exc):  # a bug or bad input: logged whole
            return _internal(request)
        # the database server is restarting or gone: the client may try
        # again; one line in the log
        error = database_down()
        log.warning("%s %s: %s (%s)", request.method, request.url.path, error.message,
                    type(exc).__name__)  # fmt: skip
        return JSONResponse({"error": error.to_json()}, status_code=503)

    @app.exception_handler(Exception)
    async def internal_error(request: Request, exc: Exception) -> JSONResponse:
        return _internal(request)


def _internal(request: Request) -> JSONResponse:
    """A failure of the server's own: logged with its traceback (called
    while the exception is handled), answered without it."""
    log.exception("%s %s failed", request.method, request.url.path)
    return JSONResponse(
        {"error": {"message": "internal error (logged on the server)"}}, status_code=500
    )
