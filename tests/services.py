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
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


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
        if os.geteuid() == 0:
            os.chmod(self.dir, 0o755)
            shutil.chown(self.dir, "postgres", "postgres")

    def start(self) -> None:
        self._run("initdb", "-D", str(self.data), "-A", "trust", "-U", "postgres")
        self.resume()

    def pause(self) -> None:
        """Stop the server, keeping its databases (the first half of a restart)."""
        self._run("pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "stop")

    def resume(self) -> None:
        """Start the server on its data and port (again, after :meth:`pause`)."""
        options = f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1 -c fsync=off"
        self._run("pg_ctl", "-D", str(self.data), "-w", "-l", str(self.dir / "log"),
                  "-o", options, "start")

    def stop(self) -> None:
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


@contextmanager
def redis_server() -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """A throwaway Redis on a free loopback port (no persistence): its URL
    and its process, which a test may stop to see the servers without it."""
    binary = shutil.which("redis-server")
    if binary is None:
        pytest.skip("redis-server is not installed (scripts/install-services.sh installs it)")
    port = free_port()
    process = subprocess.Popen(
        [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.05)
        else:
            pytest.fail("redis-server did not start within 20 s")
        yield f"redis://127.0.0.1:{port}/0", process
    finally:
        process.terminate()
        process.wait(timeout=10)


@pytest.fixture(scope="session")
def redis_url() -> Iterator[str]:
    """The tests' shared Redis."""
    with redis_server() as (url, _):
        yield url
