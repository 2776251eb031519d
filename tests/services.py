"""Throwaway PostgreSQL and Redis servers for the tests (issue 24).

Each is started once per test session on a free loopback port, in a
temporary folder, and stopped at the end; no test uses a service started
by hand. PostgreSQL refuses to run as root, and CI runs as root, so as
root the server runs as the ``postgres`` user (``runuser``). Without the
binaries (``scripts/install-services.sh`` installs them) the tests that
need a server skip with the reason.
"""

from __future__ import annotations

import glob
import itertools
import os
import re
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

_databases = itertools.count()


def free_port() -> int:
    """A loopback port free right now. Another process (the other pytest
    worker) may take it before it is used: a server started on it checks
    that it is the one that answers there."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def refused_port() -> Iterator[int]:
    """A loopback port where nothing listens, for the length of the block: a
    connection to it is refused. It is held (bound, not listening), so no
    other process can start a server on it meanwhile, as one could on a
    port of :func:`free_port`."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        yield int(s.getsockname()[1])


@contextmanager
def held_port() -> Iterator[int]:
    """A loopback port for servers started one after another on the same
    port (a restart), kept from every other process for the block: it is
    bound with ``SO_REUSEADDR`` and never listened on, so on Linux a server
    that binds it with ``SO_REUSEADDR`` too (uvicorn, ``marjolet serve``,
    nginx) may listen there, while nobody else's ``bind(0)`` or connection
    picks it in between, as they could a port of :func:`free_port`."""
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(("127.0.0.1", 0))
        yield int(s.getsockname()[1])


def _pg_bin() -> Path | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    return Path(found[-1]).parent if found else None


def _as_postgres(argv: list[str]) -> list[str]:
    return ["runuser", "-u", "postgres", "--", *argv] if os.geteuid() == 0 else argv


class Postgres:
    """One server; :meth:`new_database` gives each test its own database."""

    def __init__(self, bindir: Path) -> None:
        self.bindir = bindir
        self.dir = Path(tempfile.mkdtemp(prefix="marjolet-pg-", dir="/tmp"))
        self.data = self.dir / "data"
        self.port = free_port()
        #: The port held while the server is paused (see :meth:`pause`).
        self._held: socket.socket | None = None
        if os.geteuid() == 0:
            os.chmod(self.dir, 0o755)
            shutil.chown(self.dir, "postgres", "postgres")

    def start(self) -> None:
        self._run("initdb", "-D", str(self.data), "-A", "trust", "-U", "postgres")
        for _ in range(4):
            try:
                self.resume()
                return
            except subprocess.CalledProcessError:
                log = self.dir / "log"
                if "already in use" not in log.read_text(errors="replace"):
                    raise
                # the other pytest worker took the port before the server bound it
                log.unlink()
                self.port = free_port()
        self.resume()

    def pause(self) -> None:
        """Stop the server, keeping its databases (the first half of a
        restart). Its port is held meanwhile (bound, not listening: a
        connection is refused as by a stopped server), so that no other
        process takes it before :meth:`resume`."""
        self._run("pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "stop")
        held = socket.socket()
        held.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # past its TIME_WAITs
        held.bind(("127.0.0.1", self.port))
        self._held = held

    def resume(self) -> None:
        """Start the server on its data and port (again, after :meth:`pause`)."""
        if self._held is not None:
            self._held.close()
            self._held = None
        options = f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1 -c fsync=off"
        self._run("pg_ctl", "-D", str(self.data), "-w", "-l", str(self.dir / "log"),
                  "-o", options, "start")

    def stop(self) -> None:
        if self._held is not None:
            self._held.close()
            self._held = None
        self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "stop", check=False)
        shutil.rmtree(self.dir, ignore_errors=True)

    def new_database(self) -> str:
        name = f"marjolet_{os.getpid()}_{next(_databases)}"
        self._run("createdb", "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres", name)
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/{name}"

    def _run(self, tool: str, *args: str, check: bool = True) -> None:
        subprocess.run(
            _as_postgres([str(self.bindir / tool), *args]),
            check=check, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=120,
        )


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[Postgres]:
    bindir = _pg_bin()
    if bindir is None:
        pytest.skip("PostgreSQL is not installed (scripts/install-services.sh installs it)")
    try:
        import psycopg  # noqa: F401
    except ImportError:
        pytest.skip("psycopg is not installed (the web extra installs it)")
    server = Postgres(bindir)
    try:
        server.start()
    except subprocess.CalledProcessError as exc:
        server.stop()
        pytest.fail(f"PostgreSQL did not start: {exc.stderr.decode(errors='replace')[-400:]}")
    yield server
    server.stop()


@pytest.fixture
def postgres_url(postgres_server: Postgres) -> str:
    """A fresh, empty PostgreSQL database for one test."""
    return postgres_server.new_database()


def _redis_pid(port: int, password: str | None) -> int | None:
    """The process id the Redis on ``port`` gives, None while none answers."""
    ask = (f"AUTH {password}\r\n" if password else "") + "INFO server\r\n"
    data = b""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
            s.sendall(ask.encode())
            while not re.search(rb"process_id:\d+\r\n", data):
                chunk = s.recv(65536)
                if not chunk:
                    break
                data += chunk
    except OSError:
        return None
    found = re.search(rb"process_id:(\d+)\r\n", data)
    return int(found.group(1)) if found else None


@contextmanager
def redis_server(password: str | None = None) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """A throwaway Redis on a free loopback port (no persistence), asking
    for ``password`` if given: its URL (without the password) and its
    process, which a test may stop to see the servers without it.

    Started once more on another port if the port was taken before Redis
    bound it (by the other pytest worker): it counts as started only when
    the Redis answering on the port is this process."""
    binary = shutil.which("redis-server")
    if binary is None:
        pytest.skip("redis-server is not installed (scripts/install-services.sh installs it)")
    deadline = time.monotonic() + 20
    while True:
        port = free_port()
        process = subprocess.Popen(
            [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly",
             "no", *(["--requirepass", password] if password else [])],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        while process.poll() is None and _redis_pid(port, password) != process.pid:
            if time.monotonic() > deadline:
                process.kill()
                process.wait(timeout=10)
                pytest.fail("redis-server did not start within 20 s")
            time.sleep(0.05)
        if process.poll() is None:
            break
        if time.monotonic() > deadline:  # it ended: its port was taken; another one
            pytest.fail(f"redis-server did not start (exit status {process.returncode})")
    try:
        yield f"redis://127.0.0.1:{port}/0", process
    finally:
        process.terminate()
        process.wait(timeout=10)


@pytest.fixture(scope="session")
def redis_url() -> Iterator[str]:
    """The tests' shared Redis."""
    with redis_server() as (url, _):
        yield url
