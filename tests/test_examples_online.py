"""``examples/online_match.py``: the online API checked from outside the
project (docs/web.md) really plays a rated match and agrees with its own
Glicko-2, and a server it cannot reach is one line."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from web_support import fast_config, live_server

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "online_match.py"


def run_example(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(EXAMPLE), *args], capture_output=True, text=True, timeout=300
    )


def test_the_online_example_plays_a_rated_match_and_agrees_with_its_own_glicko2(
    tmp_path: Path,
) -> None:
    with live_server(fast_config(tmp_path / "web.sqlite")) as server:
        proc = run_example(server.base)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.count(" ok\n") == 2 and "DIFFERENT" not in proc.stdout


def test_the_online_example_says_in_one_line_that_it_cannot_reach_the_server() -> None:
    proc = run_example("http://127.0.0.1:9")
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.count("\n") == 1 and "http://127.0.0.1:9" in proc.stderr
    assert "Traceback" not in proc.stderr
