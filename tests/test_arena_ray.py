"""The Ray backend gives exactly the results of the local process pool.

Runs a private local Ray with 2 CPUs bound to 127.0.0.1, usage statistics
and token authentication off. Skipped only when the optional ``ray`` extra
is not installed (``pip install 'marjolet[ray]'``).
"""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from marjolet.arena import ArenaStore, run_arena
from marjolet.arena.progress import Figures


class NodeAddressProbe:
    """A progress reporter that notes the address of the Ray node while the
    run is going on (Ray binds its servers to it)."""

    def __init__(self) -> None:
        self.addresses: set[str] = set()

    def start(self, total: int, done: int, title: str) -> None:
        pass

    def update(self, done: int, figures: Figures) -> None:
        ray: Any = importlib.import_module("ray")
        self.addresses.add(ray.util.get_node_ip_address())

    def finish(self) -> None:
        pass


def test_ray_backend_matches_the_process_pool(tmp_path: Path) -> None:
    """Run in a child interpreter: Ray leaves its threads (gRPC, its event
    engine) in a process even after ``ray.shutdown()``, and a later test
    forking a process pool beside them can hang for ever."""
    pytest.importorskip("ray", reason="the optional extra marjolet[ray] is not installed")
    env = {
        **os.environ,
        "RAY_USAGE_STATS_ENABLED": "0",
        "RAY_AUTH_MODE": "disabled",
        "RAY_DISABLE_IMPORT_WARNING": "1",
    }
    here = str(Path(__file__).resolve().parent)
    code = (
        f"import sys; sys.path.insert(0, {here!r}); "
        f"import test_arena_ray as t; t.on_ray({str(tmp_path)!r})"
    )
    child = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=600
    )
    assert child.returncode == 0, child.stderr[-4000:]


def on_ray(folder: str) -> None:
    """The check itself: the same matches on Ray as on the process pool."""
    tmp_path = Path(folder)
    specs = ["random", "random", "random"]
    local = run_arena(specs, matches=12, seed=21, workers=2)
    probe = NodeAddressProbe()
    on_ray = run_arena(
        specs, matches=12, seed=21, workers=2, backend="ray", db=tmp_path / "r.db", progress=probe
    )
    assert probe.addresses == {"127.0.0.1"}
    assert on_ray.to_json() == {**local.to_json(), "run": 1}
    with ArenaStore(tmp_path / "r.db") as store:
        info = store.run(1)
        assert info.backend == "ray" and info.status == "done" and info.played == 36
    ray: Any = importlib.import_module("ray")
    assert not ray.is_initialized()  # the private Ray was stopped
