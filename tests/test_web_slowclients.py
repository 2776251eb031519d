"""Slow clients and logs (issue 21): incomplete request headers and
stalled bodies are timed out, a client address may hold only so many
connections, and the same error is logged once with a count."""

from __future__ import annotations

import logging
import re
import socket
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from marjolet.commands.serve import LOOPBACK_NAMES, allowed_hosts, exposure_warning
from marjolet.web import logguard
from marjolet.web.slowclients import ConnectionBook, guarded_http_protocol
from web_support import TIMEOUT, Browser, LiveServer, fast_config, live_server, serve_process

HEADER_TIMEOUT = 0.5
BODY_TIMEOUT = 0.5
CAP = 3


@contextmanager
def guarded_server(folder: Path, header_timeout: float) -> Iterator[LiveServer]:
    """A server with ``marjolet serve``'s HTTP protocol and short limits."""
    config = fast_config(
        folder / "g.sqlite3",
        header_timeout=header_timeout,
        body_timeout=BODY_TIMEOUT,
        max_connections_per_address=CAP,
    )
    http = guarded_http_protocol(config.header_timeout, config.max_connections_per_address)
    with live_server(config, http=http, timeout_keep_alive=config.keep_alive) as srv:
        yield srv


@pytest.fixture
def server(tmp_path: Path) -> Iterator[LiveServer]:
    with guarded_server(tmp_path, HEADER_TIMEOUT) as srv:
        yield srv


def wait_open(server: LiveServer, count: int) -> None:
    """Until the server holds ``count`` connections: it has accepted (or
    seen the end of) what the test opened (or closed)."""
    connections = server.server.server_state.connections
    deadline = time.monotonic() + TIMEOUT
    while len(connections) != count:
        assert time.monotonic() < deadline, f"{len(connections)} connections, not {count}"
        time.sleep(0.02)


def raw(server: LiveServer, source: str = "127.0.0.1") -> socket.socket:
    port = int(server.base.rsplit(":", 1)[1])
    return socket.create_connection(
        ("127.0.0.1", port), timeout=TIMEOUT, source_address=(source, 0)
    )


def read_all(sock: socket.socket) -> bytes:
    """Everything until the server closes the connection (or TIMEOUT)."""
    out = b""
    while chunk := sock.recv(65536):
        out += chunk
    return out


def test_incomplete_request_headers_are_answered_408_and_closed(server: LiveServer) -> None:
    with raw(server) as sock:
        sock.sendall(b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # no blank line
        start = time.monotonic()
        answer = read_all(sock)
    assert answer.startswith(b"HTTP/1.1 408")
    assert time.monotonic() - start < HEADER_TIMEOUT + 5.0


def test_a_second_request_that_never_completes_is_closed(server: LiveServer) -> None:
    with raw(server) as sock:
        sock.sendall(b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        first = b""
        while not first.endswith(b"\r\n\r\nok"):
            first += sock.recv(65536)
        assert first.startswith(b"HTTP/1.1 200")
        sock.sendall(b"GET /api/health HTTP/1.1\r\nHo")
        assert read_all(sock).startswith(b"HTTP/1.1 408")


def test_a_stalled_request_body_is_answered_408(server: LiveServer) -> None:
    with raw(server) as sock:
        sock.sendall(
            b"POST /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            b"Content-Type: application/json\r\nContent-Length: 40\r\n\r\n{\"mode\":"
        )
        answer = read_all(sock)
    assert answer.startswith(b"HTTP/1.1 408"), answer[:200]
    assert b"too slowly" in answer


def test_a_websocket_outlives_the_header_timeout(server: LiveServer) -> None:
    game = server.new_game(mode="bot", bot="random")
    with Browser.open(server, game["id"], {"type": "hello", "token": game["token"]}) as me:
        me.next_state()
        time.sleep(HEADER_TIMEOUT * 3)
        me.send({"type": "ping"})
        assert me.recv_until(lambda m: m["type"] == "pong")["type"] == "pong"


def test_an_address_over_its_connection_cap_is_refused_and_others_are_not(
    tmp_path: Path,
) -> None:
    # the held connections send nothing: a header time-out as long as the
    # test's own keeps them open however slowly a loaded machine runs it
    with guarded_server(tmp_path, TIMEOUT) as server:
        held = [raw(server) for _ in range(CAP)]
        try:
            wait_open(server, CAP)
            with raw(server) as extra:
                assert read_all(extra).startswith(b"HTTP/1.1 503")
            with raw(server, source="127.0.0.2") as other:
                other.sendall(b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                assert other.recv(65536).startswith(b"HTTP/1.1 200")
        finally:
            for sock in held:
                sock.close()
        wait_open(server, 0)  # the closed ones are forgotten: room again
        with raw(server) as again:
            again.sendall(b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            assert again.recv(65536).startswith(b"HTTP/1.1 200")


# -- the log --------------------------------------------------------------------------


def record(message: str, *args: object, exc: bool = False) -> logging.LogRecord:
    info = None
    if exc:
        try:
            raise OSError(24, "Too many open files")
        except OSError:
            import sys

            info = sys.exc_info()
    return logging.LogRecord("asyncio", logging.ERROR, __file__, 1, message, args, info)


def test_the_same_error_is_logged_once_a_window_with_a_count() -> None:
    now = [0.0]
    guard = logguard.OncePerWindow(window=60.0, clock=lambda: now[0])
    passed = [
        guard.filter(record("socket.accept() out of system resource: fd %d", i, exc=True))
        for i in range(5000)
    ]
    assert passed.count(True) == 1
    assert guard.filter(record("another error")) is True  # another kind is not held back
    now[0] = 61.0
    later = record("socket.accept() out of system resource: fd %d", 1, exc=True)
    assert guard.filter(later) is True
    assert "(and 4999 more like it in the last 60 s)" in later.getMessage()


def test_records_that_differ_only_by_ids_and_numbers_are_one_kind() -> None:
    a = record("game %s: could not store %s: %s", "FYNbcqeCoIYV", "JS", "[Errno 28] full")
    b = record("game %s: could not store %s: %s", "g_TI7eT_pue", "JS", "[Errno 28] full")
    c = record("game %s: the bot loop stopped", "FYNbcqeCoIYV")
    assert logguard.kind_of(a) == logguard.kind_of(b) != logguard.kind_of(c)


def test_install_puts_the_guard_on_every_handler_of_the_server_s_loggers() -> None:
    handlers = [logging.StreamHandler(), logging.StreamHandler()]
    names = ["marjolet-test-guard", "marjolet-test-guard.uvicorn"]
    for name, handler in zip(names, handlers, strict=True):
        logging.getLogger(name).addHandler(handler)
    try:
        guard = logguard.install(loggers=names)
        assert all(guard in h.filters for h in handlers)
        assert logguard.install(guard, loggers=names) is guard
        assert all(h.filters.count(guard) == 1 for h in handlers)
    finally:
        for name, handler in zip(names, handlers, strict=True):
            logging.getLogger(name).removeHandler(handler)


class _Open:
    """A transport stand-in that stays open."""

    def is_closing(self) -> bool:
        return False


def test_behind_a_proxy_only_the_proxy_s_addresses_are_uncapped() -> None:
    book = ConnectionBook(2, frozenset({"127.0.0.1"}))
    assert all(book.admit("127.0.0.1", _Open()) for _ in range(50))  # every client, proxied
    direct = [book.admit("203.0.113.9", _Open()) for _ in range(3)]  # around the proxy
    assert direct == [True, True, False]


def test_serving_beyond_this_computer_behind_a_proxy_says_to_listen_on_loopback() -> None:
    assert "listen on 127.0.0.1" in exposure_warning("0.0.0.0", behind_proxy=True)
    plain = exposure_warning("0.0.0.0", behind_proxy=False)
    assert "anyone who can reach this address" in plain and "proxy" not in plain


def test_a_proxy_name_given_with_its_port_is_told_to_drop_the_port() -> None:
    from marjolet.errors import MarjoletError

    with pytest.raises(MarjoletError, match=r"give the host name alone, 'club\.example'"):
        allowed_hosts("127.0.0.1", "club.example:8088")
    with pytest.raises(MarjoletError, match="not a host name"):
        allowed_hosts("127.0.0.1", "club example")
    assert allowed_hosts("127.0.0.1", "club.example") == (*LOOPBACK_NAMES, "club.example")


ACCESS_LINE = re.compile(
    r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} INFO: +"
    r'127\.0\.0\.1:\d+ - "GET /api/health HTTP/1\.1" 200'
)


def test_access_log_lines_carry_the_time(tmp_path: Path) -> None:
    output: list[str] = []
    with serve_process(tmp_path / "g.sqlite3", "--log-level", "info", output=output) as (_, base):
        assert httpx.get(f"{base}/api/health", timeout=TIMEOUT).status_code == 200
        deadline = time.monotonic() + TIMEOUT
        while not any(ACCESS_LINE.match(line) for line in output):
            assert time.monotonic() < deadline, "".join(output)
            time.sleep(0.05)
    assert all(line[:4].isdigit() for line in output if "INFO" in line), "".join(output)
