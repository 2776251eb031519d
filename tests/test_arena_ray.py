"""The Ray backend gives exactly the results of the local process pool.

Runs a private local Ray with 2 CPUs bound to 127.0.0.1, usage statistics
and token authentication off. Skipped only when the optional ``ray`` extra
is not installed (``pip install 'marjolet[ray]'``).
"""

from __future__ import annotations

import importlib
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


def test_ray_backend_matches_the_process_pool(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    pytest.importorskip("ray", reason="the optional extra marjolet[ray] is not installed")
    monkeypatch.setenv("RAY_USAGE_STATS_ENABLED", "0")
    monkeypatch.setenv("RAY_AUTH_MODE", "disabled")
    monkeypatch.setenv("RAY_DISABLE_IMPORT_WARNING", "1")
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
