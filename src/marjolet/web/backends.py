"""Where a server keeps its games and how it talks to the other processes:
the ``--db`` and ``--broker`` options of ``marjolet serve``, read and
checked before anything is served.

``--db`` is a SQLite file (the embedded default: one process) or a
PostgreSQL URL (``postgresql://USER@HOST:PORT/DB``: any number of
processes share it). ``--broker`` is a Redis URL (``redis://HOST:PORT/N``)
or nothing (one process). A bad value, a server that cannot be reached or
a scheme of another kind is one line naming the option and what is wrong
(:class:`BackendError`), never a traceback.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from marjolet.errors import MarjoletError

#: Seconds a check waits for a database or broker server to answer.
CONNECT_TIMEOUT = 5.0
#: The schemes ``--db`` takes as PostgreSQL; all become psycopg 3's.
POSTGRES_SCHEMES = ("postgresql", "postgres", "postgresql+psycopg")
REDIS_SCHEMES = ("redis", "rediss", "unix")


class BackendError(MarjoletError):
    """A ``--db`` or ``--broker`` value that cannot be used (one line)."""


def hidden(url: str) -> str:
    """``url`` with its password (if any) hidden, for messages and logs."""
    scheme, sep, rest = url.partition("://")
    if not sep or "@" not in rest:
        return url
    credentials, at, host = rest.rpartition("@")
    user, colon, _ = credentials.partition(":")
    return f"{scheme}://{user}{':***' if colon else ''}{at}{host}"


def refuse_at_in_credentials(value: str, option: str) -> None:
    """Refuse a URL whose user name or password holds a bare '@'.

    The PostgreSQL URL parser ends the credentials at the first '@', the
    Redis one (and :func:`hidden`) at the last: with two, one of them would
    take part of the password for the host, and could show it in a message.
    An '@' in a password is written ``%40`` (RFC 3986); the refusal never
    shows the password."""
    _, sep, rest = value.partition("://")
    first = rest.find("@")
    if not sep or first < 0:
        return
    stops = [i for i in (rest.find(c, first) for c in "/?#") if i >= 0]
    host = rest[first + 1 : min(stops, default=len(rest))]
    if "@" not in host:
        return
    credentials = rest[: first + 1 + host.rindex("@")]
    user, colon, _ = credentials.partition(":")
    which = "user name" if "@" in user or not colon else "password"
    raise BackendError(f"the {which} in {option} contains '@': write it as %40")


def database_target(value: str, option: str = "--db") -> Path | str:
    """A ``--db`` value as a SQLite path or a SQLAlchemy PostgreSQL URL;
    ``option`` names it in a refusal (``db-copy`` says SOURCE or TARGET)."""
    if not value.strip():
        raise BackendError(
            f"{option} is empty: give a SQLite file path or postgresql://USER@HOST:PORT/DB"
        )
    if "://" not in value:
        return Path(value)
    from sqlalchemy.engine import make_url

    refuse_at_in_credentials(value, option)

    scheme = value.split("://", 1)[0].lower()
    shown = hidden(value)
    if scheme not in POSTGRES_SCHEMES:
        raise BackendError(
            f"{option} {shown}: the scheme {scheme!r} is not served; give a SQLite file "
            "path or postgresql://USER@HOST:PORT/DB"
        )
    try:
        url = make_url(value).set(drivername="postgresql+psycopg")
        port = url.port
    except (ValueError, TypeError) as exc:
        raise BackendError(f"{option} {shown}: not a valid URL ({_url_problem(exc)})") from None
    if not url.host and "host" not in url.query:
        raise BackendError(
            f"{option} {shown}: the URL names no host (postgresql://USER@HOST:PORT/DB)"
        )
    if not url.database:
        raise BackendError(f"{option} {shown}: the URL names no database (.../DB at its end)")
    if port is not None and not 0 < port < 65536:
        raise BackendError(f"{option} {shown}: port {port} is not 1-65535")
    return url.render_as_string(hide_password=False)


def check_database(url: str, given: str | None = None, option: str = "--db") -> None:
    """Connect once to the PostgreSQL server of ``url`` (a short wait);
    a refusal names the URL as ``given`` on the command line, after ``option``."""
    from sqlalchemy import create_engine, text
    from sqlalchemy.exc import SQLAlchemyError

    from marjolet.web.db import one_line_reason

    engine = create_engine(url, connect_args={"connect_timeout": int(CONNECT_TIMEOUT)})
    try:
        with engine.connect() as db:
            db.execute(text("SELECT 1"))
    except SQLAlchemyError as exc:
        reason = one_line_reason(exc)
        raise BackendError(
            f"{option} {hidden(given or url)}: cannot connect: {reason}"
        ) from None
    finally:
        engine.dispose()


def _url_problem(exc: BaseException) -> str:
    """What is wrong with a URL, in words rather than Python's."""
    text = str(exc)
    if "invalid literal for int()" in text:
        return f"the port {text.rsplit(': ', 1)[-1]} is not a number"
    if "Port could not be cast to integer value as " in text:
        return f"the port {text.rsplit(' as ', 1)[-1]} is not a number"
    return text


def broker_url(value: str) -> str:
    """A ``--broker`` value checked to be a Redis URL."""
    if not value.strip():
        raise BackendError("--broker is empty: give redis://HOST:PORT/N")
    refuse_at_in_credentials(value, "--broker")
    scheme = value.split("://", 1)[0].lower() if "://" in value else ""
    if scheme not in REDIS_SCHEMES:
        raise BackendError(f"--broker {hidden(value)}: expected a Redis URL (redis://HOST:PORT/N)")
    from redis import Redis

    try:
        Redis.from_url(value)
    except ValueError as exc:
        raise BackendError(
            f"--broker {hidden(value)}: not a valid URL ({_url_problem(exc)})"
        ) from None
    number = urlsplit(value).path.strip("/")
    if scheme != "unix" and number and not number.isdigit():  # redis would take database 0
        raise BackendError(
            f"--broker {hidden(value)}: the database number {number!r} is not a number "
            "(redis://HOST:PORT/N)"
        )
    return value


def broker_identity(url: str) -> str:
    """Which Redis server and database a ``--broker`` URL reaches, as the
    client reads it (``redis://HOST:PORT/N``, the defaults filled in), never
    its user or password: processes of one deployment must share it."""
    from redis.connection import parse_url

    options: dict[str, Any] = parse_url(url)  # type: ignore[no-untyped-call]
    scheme = url.split("://", 1)[0].lower()
    number = options.get("db") or 0
    if scheme == "unix":
        return f"unix://{options.get('path', '')}?db={number}"
    host = str(options.get("host") or "localhost").lower()
    shown = f"[{host}]" if ":" in host else host
    return f"{scheme}://{shown}:{options.get('port') or 6379}/{number}"


def check_broker(url: str) -> None:
    """Ask the Redis server of ``url`` for a PING (a short wait)."""
    from redis import Redis
    from redis.exceptions import AuthenticationError, RedisError, ResponseError

    client = Redis.from_url(
        url, socket_connect_timeout=CONNECT_TIMEOUT, socket_timeout=CONNECT_TIMEOUT
    )
    shown = hidden(url)
    try:
        client.ping()
    except AuthenticationError:
        if urlsplit(url).password is None:
            raise BackendError(
                f"--broker {shown}: Redis asks for a password: redis://:PASSWORD@HOST:PORT/N"
            ) from None
        raise BackendError(
            f"--broker {shown}: Redis refused the user name or password given"
        ) from None
    except ResponseError as exc:
        if "DB index is out of range" not in str(exc):
            raise BackendError(f"--broker {shown}: Redis refused: {_one_line(exc)}") from None
        number = client.connection_pool.connection_kwargs.get("db", 0)
        raise BackendError(
            f"--broker {shown}: the database number {number} is out of range for that Redis "
            "server (it has 16 by default, 0-15: its 'databases' setting)"
        ) from None
    except (RedisError, OSError) as exc:
        raise BackendError(f"--broker {shown}: cannot reach Redis: {_one_line(exc)}") from None
    finally:
        client.close()


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split())[:300]
