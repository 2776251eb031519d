"""Running the ``marjolet`` command in tests, reading its refusals, and
seeing that the processes it started are gone."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from marjolet.cli import main
from marjolet.outputs import sqlite_read_only_uri


def run_cli(
    *args: str,
    stdin: str | bytes = "",
    env: dict[str, str] | None = None,
    stdout: int | None = subprocess.PIPE,
) -> subprocess.CompletedProcess[str]:
    """``python -m marjolet ARGS`` in a child process, its output as text
    (undecodable bytes replaced); ``stdin`` may be bytes (a file's raw
    content), ``stdout`` a file descriptor to write to instead of a pipe."""
    data = stdin.encode() if isinstance(stdin, str) else stdin
    proc = subprocess.run(
        [sys.executable, "-m", "marjolet", *args],
        input=data,
        stdout=stdout,
        stderr=subprocess.PIPE,
        timeout=120,
        check=False,
        env={**os.environ, **(env or {})},
    )
    out = proc.stdout.decode(errors="replace") if proc.stdout is not None else ""
    return subprocess.CompletedProcess(
        proc.args, proc.returncode, out, proc.stderr.decode(errors="replace")
    )


def run_main(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """``marjolet ARGV`` in this process (``main``): its exit status (a
    ``SystemExit`` of argparse or ``fail`` read as one), standard output
    and standard error."""
    try:
        status = main(argv)
    except SystemExit as stop:
        status = int(stop.code or 0)
    out = capsys.readouterr()
    return status, out.out, out.err


def error_line(stderr: str) -> str:
    """The one line of a refusal on standard error (never a traceback)."""
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1, stderr
    assert "Traceback" not in stderr
    return lines[0]


def refusal(proc: subprocess.CompletedProcess[str]) -> str:
    """The one error line of a command refused with exit status 2."""
    assert proc.returncode == 2, (proc.returncode, proc.stderr)
    return error_line(proc.stderr)


def selfplay_record(path: Path) -> Path:
    """A finished match written by ``marjolet selfplay --seed 3`` at ``path``."""
    assert main(["selfplay", "--seed", "3", "--out", str(path)]) == 0
    return path


def damaged_database(path: Path, table: str) -> bytes:
    """The bytes of the SQLite database at ``path`` with the root pages of
    ``table`` and of its indexes garbled: its table list still reads (so a
    look at the tables finds nothing wrong), SQLite's quick check finds the
    bad pages. ``path`` itself is only read."""
    whole = path.read_bytes()
    page = int.from_bytes(whole[16:18], "big")
    conn = sqlite3.connect(sqlite_read_only_uri(path), uri=True)
    try:
        rows = conn.execute("SELECT rootpage FROM sqlite_master WHERE tbl_name = ?", (table,))
        roots = [int(row[0]) for row in rows]
    finally:
        conn.close()
    assert roots, f"no table {table!r} in {path}"
    data = bytearray(whole)
    for root in roots:
        data[(root - 1) * page : root * page] = b"\xa5" * page
    return bytes(data)


def gone(pid: int, wait: float = 5.0) -> bool:
    """Whether process ``pid`` has ended (a zombie left to init counts)."""
    deadline = time.monotonic() + wait
    while True:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (FileNotFoundError, IndexError):
            return True
        if state == "Z":
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
