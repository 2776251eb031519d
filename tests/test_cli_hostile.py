"""Careless and hostile input to the ``marjolet`` command that a fuzzing
pass found ending in a traceback, a wrong exit status or a silent
surprise: each ends as one line naming what is wrong and where, status 2."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from marjolet.cli import main


def run_cli(
    *args: str, env: dict[str, str] | None = None, stdout: int | None = subprocess.PIPE
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "marjolet", *args],
        input="",
        stdout=stdout,
        stderr=subprocess.PIPE,
        text=True,
        timeout=120,
        check=False,
        env={**os.environ, **(env or {})},
    )


def one_error_line(stderr: str) -> str:
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1, stderr
    assert "Traceback" not in stderr
    return lines[0]


@pytest.fixture
def record_file(tmp_path: Path) -> Path:
    path = tmp_path / "game.json"
    assert main(["selfplay", "--seed", "3", "--out", str(path)]) == 0
    return path


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize("args", [["rules"], ["bots", "--json"], ["--help"], ["--version"]])
def test_standard_output_on_a_full_disk_is_one_line_with_status_2(args: list[str]) -> None:
    with open("/dev/full", "w") as full:
        result = run_cli(*args, stdout=full.fileno())
    line = one_error_line(result.stderr)
    assert result.returncode == 2
    assert line == "marjolet: error: standard output: cannot write: No space left on device"


@pytest.mark.parametrize("kind", ["missing", "not-an-extension"])
def test_a_kernel_lib_that_cannot_be_loaded_is_named_in_one_line(
    tmp_path: Path, record_file: Path, kind: str
) -> None:
    lib = tmp_path / "kernel.so"
    if kind == "not-an-extension":
        lib.write_text("not a shared object\n")
    env = {"MARJOLET_KERNEL_LIB": str(lib)}
    for args in (["bench", "--rounds", "1", "--deals", "1"], ["review", str(record_file)]):
        result = run_cli(*args, env=env)
        line = one_error_line(result.stderr)
        assert result.returncode == 2
        assert line.startswith(f"marjolet: error: MARJOLET_KERNEL_LIB={str(lib)!r}: ")
