"""Running the ``marjolet`` command in tests, and reading its refusals."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from marjolet.cli import main


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
