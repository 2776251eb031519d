"""``marjolet serve``: play in the browser (FastAPI + uvicorn; a SQLite
file, or PostgreSQL and Redis for several processes: docs/deploy.md)."""

from __future__ import annotations

import argparse
import errno
import ipaddress
import re
import socket
from pathlib import Path
from typing import TYPE_CHECKING, Any

from marjolet.commands.common import (
    missing_web_extra,
    plain_float,
    plain_int,
    web_extra_imports,
)

if TYPE_CHECKING:
    import uvicorn
    from fastapi import FastAPI

    from marjolet.web.config import WebConfig

LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1")
#: The addresses a loopback proxy's connections come from (IPv4, IPv6 and
#: IPv4 mapped into IPv6), behind ``--behind-proxy``: their X-Forwarded-For
#: is believed, and they are uncapped (the proxy limits each client).
PROXY_ADDRESSES = frozenset({"127.0.0.1", "::1", "::ffff:127.0.0.1"})
TRUSTED_PROXIES = ",".join(sorted(PROXY_ADDRESSES))
_HOST_NAME = re.compile(r"[A-Za-z0-9]([A-Za-z0-9.-]{0,251}[A-Za-z0-9])?")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to listen on (default 127.0.0.1: this computer only)",
    )
    parser.add_argument(
        "--port", type=plain_int, default=8000, help="port (default 8000; 0 picks a free one)"
    )
    parser.add_argument(
        "--db",
        metavar="FILE|URL",  # an empty one is refused by backends.database_target, in its words
        help="the games' database: a SQLite file (default: web.sqlite3 in the per-user "
        "data folder) or postgresql://USER@HOST:PORT/DB, shared by several processes",
    )
    parser.add_argument(
        "--broker",
        metavar="URL",
        help="redis://HOST:PORT/N: the message bus (and shared rate limits) between "
        "several processes on one PostgreSQL --db (default: none, one process)",
    )
    parser.add_argument(
        "--behind-proxy",
        metavar="NAME",
        help="served behind a reverse proxy on this computer (nginx, docs/deploy.md) "
        "under the host name NAME: answer to NAME, read each client's address from "
        "X-Forwarded-For (from a loopback proxy only), and leave the per-address "
        "connection cap to the proxy",
    )
    parser.add_argument(
        "--allow-bot",
        action="append",
        default=[],
        metavar="NAME=SPEC",
        help="offer the bot SPEC to browsers under NAME (repeatable; browsers "
        "choose names, never specs). SPEC exec:PATH runs the program PATH "
        "(marjolet-bot/1); it must exist and be executable",
    )
    parser.add_argument(
        "--only-allowed-bots",
        action="store_true",
        help="offer only the --allow-bot entries, not every built-in bot",
    )
    parser.add_argument(
        "--bot-delay",
        type=plain_float,
        default=0.7,
        metavar="SECONDS",
        help="least time between two moves of a bot facing a person (default 0.7)",
    )
    parser.add_argument(
        "--watch-delay",
        type=plain_float,
        default=1.0,
        metavar="SECONDS",
        help="least time between two moves of a watched bot-vs-bot match (default 1.0)",
    )
    parser.add_argument(
        "--bot-threads",
        type=plain_int,
        default=2,
        metavar="N",
        help="threads where bots think, off the event loop (default 2)",
    )
    parser.add_argument(
        "--review-budget",
        type=plain_float,
        default=0.3,
        metavar="SECONDS",
        help="thinking time per decision of a game review (default 0.3; 0: the fastest, "
        "the roughest)",
    )
    parser.add_argument(
        "--away-grace",
        type=plain_float,
        default=90.0,
        metavar="SECONDS",
        help="how long a player of a live game between two people may be away before "
        "the other may claim the match (default 90)",
    )
    parser.add_argument(
        "--move-limit",
        type=plain_float,
        default=300.0,
        metavar="SECONDS",
        help="how long a player of a live game between two people has for each move "
        "before the other may claim the match (default 300; 0: no limit)",
    )
    parser.add_argument(
        "--abandon-after",
        type=plain_float,
        default=86_400.0,
        metavar="SECONDS",
        help="how long after a move's deadline, unclaimed, the server ends a game between "
        "two people by itself as lost on time by the player to move (default 86400: a "
        "day; 0: never)",
    )
    parser.add_argument(
        "--rate-limit",
        type=plain_float,
        default=20.0,
        metavar="N",
        help="messages a browser connection may send per second, bursts of 2N (default 20)",
    )
    parser.add_argument(
        "--check-db",
        action="store_true",
        help="read the SQLite database (--db FILE or the default), say what is wrong "
        "with it, and exit (0: sound, 2: damaged); changes nothing and serves nothing "
        "(a database server checks its own: pg_amcheck)",
    )
    parser.add_argument(
        "--log-level",
        default="info",
        choices=["critical", "error", "warning", "info", "debug"],
        help="server log level (default info)",
    )


def check_db(db: str | None) -> int:
    """``--check-db``: one line per problem on standard error, a summary on
    standard output; exit status 0 for a sound database, 2 otherwise."""
    import sys

    from marjolet.web.config import WebConfig

    with web_extra_imports():
        from marjolet.web.store import check_database_file
    path = WebConfig(db_path=Path(db) if db else None).database()
    if isinstance(path, Path) and not path.is_file():  # one line, not a summary of nothing
        print(f"marjolet: error: --check-db: {str(path)!r}: no such file", file=sys.stderr)
        return 2
    count, problems = check_database_file(path)
    for problem in problems:
        print(f"marjolet: {problem}", file=sys.stderr)
    verdict = "sound" if not problems else f"{len(problems)} problem(s)"
    print(f"{path}: {count} game(s) read, {verdict}")
    return 0 if not problems else 2


def allowed_hosts(host: str, proxy_name: str | None) -> tuple[str, ...] | None:
    """The ``Host`` names answered (None: any): on a loopback address only
    loopback names, and the public name of the proxy in front, if any."""
    from marjolet.errors import MarjoletError

    if proxy_name is not None and not _HOST_NAME.fullmatch(proxy_name):
        name, colon, port = proxy_name.rpartition(":")
        if colon and port.isdigit() and _HOST_NAME.fullmatch(name):
            raise MarjoletError(
                f"--behind-proxy {proxy_name[:80]!r}: give the host name alone, {name!r}"
                " (the proxy's port is its own)"
            )
        raise MarjoletError(f"--behind-proxy {proxy_name[:80]!r}: not a host name")
    if not is_loopback(host):
        return None
    return LOOPBACK_NAMES + ((proxy_name.lower(),) if proxy_name else ())


def is_loopback(host: str) -> bool:
    if host in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


#: The modules of the web extra a server needs, checked by name before
#: anything starts: importing them costs about 2.5 s, which a refusal
#: (``--check-db``, a bad flag, a port in use) need not pay.
WEB_MODULES = ("uvicorn", "fastapi", "sqlalchemy", "alembic", "argon2", "limits")


def require_web_extra() -> None:
    """A one-line error when a module of the web extra is missing (found by
    name, not imported)."""
    import importlib.util

    for name in WEB_MODULES:
        if importlib.util.find_spec(name) is None:
            raise missing_web_extra(name)


def run(args: argparse.Namespace) -> int:
    import logging
    import sys

    require_web_extra()
    if args.check_db:
        return check_db_command(args.db)
    db, broker = checked_backends(args)
    config = web_config(args, db, broker)
    logging.basicConfig(
        level=args.log_level.upper(), format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    # listen first: a port in use is one line and exit 2, before the
    # database (and its lock file) is touched, and before the server's
    # modules are loaded
    sock = listening_socket(args.host, args.port)
    try:
        app = built_app(config)
    except BaseException:
        sock.close()
        raise
    from marjolet.web import backends, logguard

    if not is_loopback(args.host):
        print(exposure_warning(args.host, bool(args.behind_proxy)), file=sys.stderr)
    server = uvicorn_server(app, config, args)
    logguard.install()  # after uvicorn set up its loggers: one line per kind a minute
    where = config.database()
    # a database URL (a str) as it was typed, not in the driver's form; its password hidden
    _announce_when_started(
        server, args.host, backends.hidden(args.db) if isinstance(where, str) else where
    )
    server.run(sockets=[sock])
    return 0


def built_app(config: WebConfig) -> FastAPI:
    """The server's application, uvicorn imported with it."""
    with web_extra_imports():
        import uvicorn  # noqa: F401  (uvicorn_server's, so that a broken one is told here)

        from marjolet.web.app import create_app
    return create_app(config)


def check_db_command(value: str | None) -> int:
    """``--check-db``: check a SQLite file (a server checks its own)."""
    from marjolet.errors import MarjoletError
    from marjolet.web import backends

    if value is not None and isinstance(backends.database_target(value), str):
        raise MarjoletError(
            "--check-db reads a SQLite file, not a database server (PostgreSQL checks "
            "its own databases: pg_amcheck)"
        )
    return check_db(value)


def checked_backends(args: argparse.Namespace) -> tuple[Path | str | None, str | None]:
    """The database and broker of the command line, each checked (reachable
    if a server) before anything is served, with the numeric settings."""
    from marjolet.errors import MarjoletError
    from marjolet.web import backends

    db = backends.database_target(args.db) if args.db is not None else None
    broker = backends.broker_url(args.broker) if args.broker is not None else None
    if broker is not None and not isinstance(db, str):
        raise MarjoletError(
            "--broker joins processes that share one database: give --db postgresql://..."
        )
    check_ranges(args)
    if isinstance(db, str) and broker is None:  # each process would see only its own players
        raise MarjoletError(
            f"--db {backends.hidden(args.db)}: processes sharing a database server need "
            "--broker redis://HOST:PORT/N, or a player still at the table could be "
            "claimed as gone by another process (one process: give --db a SQLite file)"
        )
    if isinstance(db, str):
        backends.check_database(db, args.db)
    if broker is not None:
        backends.check_broker(broker)
    return db, broker


# (flag, attribute, low, high, unit): the numeric settings and their limits
RANGES = (
    ("--port", "port", 0, 65535, ""),
    ("--bot-delay", "bot_delay", 0, 60, " seconds"),
    ("--watch-delay", "watch_delay", 0, 60, " seconds"),
    ("--review-budget", "review_budget", 0, 10, " seconds"),
    ("--away-grace", "away_grace", 0, 86_400, " seconds"),
    ("--move-limit", "move_limit", 0, 86_400, " seconds"),
    ("--abandon-after", "abandon_after", 0, 30 * 86_400, " seconds"),
    ("--rate-limit", "rate_limit", 1, 100_000, " messages a second"),
    ("--bot-threads", "bot_threads", 1, 64, ""),
)


def check_ranges(args: argparse.Namespace) -> None:
    """Refuse, in one line naming the flag, a number outside its limits."""
    from marjolet.errors import MarjoletError

    for flag, name, low, high, unit in RANGES:
        value = getattr(args, name)
        if not low <= value <= high:
            raise MarjoletError(f"{flag} must be between {low} and {high}{unit}, got {value}")


#: The environment variable that shortens the leases of ``marjolet serve``
#: (docs/deploy.md): for the test suite, whose take-over tests need not wait
#: a production lease out. Unset (production): ``WebConfig.lease_seconds``,
#: 10 s.
LEASE_VARIABLE = "MARJOLET_LEASE_SECONDS"


def lease_seconds(default: float) -> float:
    """The lease length ``MARJOLET_LEASE_SECONDS`` gives, ``default`` if
    unset; a value that is not seconds from 1 to 3600 is refused in one line."""
    import math
    import os

    from marjolet.errors import MarjoletError

    text = os.environ.get(LEASE_VARIABLE)
    if text is None:
        return default
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 1 <= value <= 3600:
        raise MarjoletError(
            f"{LEASE_VARIABLE}={text!r}: give the seconds of a lease, from 1 to 3600 "
            f"(unset: {default:g}), or unset it"
        )
    return value


def web_config(
    args: argparse.Namespace, db: Path | str | None, broker: str | None
) -> WebConfig:
    """The server's settings from the command line (db and broker checked)."""
    from marjolet.bots.catalogue import parse_allow
    from marjolet.web.config import WebConfig

    return WebConfig(
        db_path=db,
        broker=broker,
        rate_limit_storage=broker,
        bot_delay=args.bot_delay,
        watch_delay=args.watch_delay,
        bot_threads=args.bot_threads,
        review_budget=args.review_budget,
        away_grace=args.away_grace,
        move_limit=args.move_limit,
        abandon_after=args.abandon_after,
        lease_seconds=lease_seconds(WebConfig().lease_seconds),
        rate_per_second=args.rate_limit,
        rate_burst=max(1, round(2 * args.rate_limit)),
        allowed_bots=parse_allow(args.allow_bot),
        default_bots=not args.only_allowed_bots,
        allowed_hosts=allowed_hosts(args.host, args.behind_proxy),
        behind_proxy=args.behind_proxy.lower() if args.behind_proxy else None,
    )


def uvicorn_server(
    app: FastAPI, config: WebConfig, args: argparse.Namespace
) -> uvicorn.Server:
    """uvicorn serving app with the guards of config (timeouts, connections, sizes)."""
    import uvicorn

    from marjolet.web.security import TRANSPORT_MAX
    from marjolet.web.slowclients import guarded_http_protocol

    return uvicorn.Server(
        uvicorn.Config(
            app,
            host=args.host,
            port=args.port,
            log_level=args.log_level,
            ws_max_size=TRANSPORT_MAX,
            proxy_headers=bool(args.behind_proxy),
            forwarded_allow_ips=TRUSTED_PROXIES,
            server_header=False,
            lifespan="on",
            http=guarded_http_protocol(
                config.header_timeout,
                config.max_connections_per_address,
                PROXY_ADDRESSES if args.behind_proxy else frozenset(),
            ),
            timeout_keep_alive=config.keep_alive,
            log_config=timestamped_log_config(),
        )
    )


def exposure_warning(host: str, behind_proxy: bool) -> str:
    """The warning for a server listening beyond this computer."""
    warning = (
        f"marjolet: warning: listening on {host}: anyone who can reach this address "
        "can open tables on this server"
    )
    if behind_proxy:  # clients may come around the proxy, its TLS and its limits
        warning += (
            "; with --behind-proxy, listen on 127.0.0.1 so that every client comes through "
            "the proxy"
        )
    return warning


def timestamped_log_config() -> dict[str, Any]:
    """uvicorn's logging (its access lines included) with the time at the
    start of every line, as marjolet's own lines have it: an operator
    reading a log must know when a request came."""
    import copy

    from uvicorn.config import LOGGING_CONFIG

    config = copy.deepcopy(LOGGING_CONFIG)
    for formatter in config["formatters"].values():
        formatter["fmt"] = "%(asctime)s " + formatter["fmt"]
    return config


def listening_socket(host: str, port: int) -> socket.socket:
    """A TCP socket bound to ``host:port`` (what uvicorn would bind), or a
    one-line :class:`~marjolet.errors.MarjoletError` (port in use, no such
    address)."""
    from marjolet.errors import MarjoletError

    shown = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    try:
        family, kind, proto, _, address = socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )[0]
    except (OSError, UnicodeError) as exc:
        raise MarjoletError(f"--host {host}: cannot listen there: {exc}") from None
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.set_inheritable(True)
    except OSError as exc:
        sock.close()
        reason = exc.strerror or str(exc)
        if exc.errno == errno.EADDRINUSE:
            reason = "the port is in use (another server?); choose another with --port"
        raise MarjoletError(f"cannot listen on {shown}: {reason}") from None
    return sock


def _announce_when_started(server: object, host: str, db: object) -> None:
    """Print the address (with the real port when ``--port 0``) once listening."""
    import sys

    import uvicorn

    assert isinstance(server, uvicorn.Server)
    original = server.startup

    async def startup(sockets: object = None) -> None:
        await original(sockets)  # type: ignore[arg-type]
        for srv in server.servers:
            for sock in srv.sockets:
                port = sock.getsockname()[1]
                shown = f"[{host}]" if ":" in host else host
                print(f"marjolet: serving on http://{shown}:{port}/ (games in {db})", flush=True)
                sys.stdout.flush()
                return

    server.startup = startup  # type: ignore[method-assign]
