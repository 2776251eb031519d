"""The learning curves' runner (``python -m marjolet.rl.curves``,
``benchmarks/rl_curves.py``): the commands it runs, the pooling of seeds,
its one-line errors. Nothing here trains: the runs are faked."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from marjolet.rl import curves


def write_log(path: Path, evaluations: list[tuple[int, str, list[float]]]) -> None:
    lines = [json.dumps({"settings": {"seed": 1}})]
    lines += [json.dumps({"steps": s, "opponent": o, "margins": m}) for s, o, m in evaluations]
    path.write_text("\n".join(lines) + "\n")


def test_seeds_pool_by_evaluation_index_whatever_their_step_counts(tmp_path: Path) -> None:
    """The C batch evaluates each seed at a slightly different step count
    (5858, 5860, 5859): the k-th evaluations still pool, three seeds a point."""
    algo = curves.ALGOS["ppo"]
    for seed, (first, second) in zip(curves.SEEDS, [(0, 5858), (0, 5860), (0, 5859)], strict=True):
        write_log(
            tmp_path / f"random-{seed}.jsonl",
            [(first, "random", [10.0, -10.0]), (first, "heuristic", [-5.0, -5.0]),
             (second, "random", [float(seed), 0.0]), (second, "heuristic", [1.0, 2.0])],
        )  # fmt: skip
    result = curves.pooled(algo, tmp_path)
    assert set(result) == {("random", "random"), ("random", "heuristic")}
    points = result[("random", "random")]
    assert len(points) == 2  # not one point per distinct step count
    assert [p["n"] for p in points] == [6, 6] and [p["seeds"] for p in points] == [3, 3]
    assert points[0]["steps"] == 0 and points[0]["steps_min"] == points[0]["steps_max"] == 0
    last = points[1]
    assert (last["steps"], last["steps_min"], last["steps_max"]) == (5859, 5858, 5860)
    assert last["margin"] == pytest.approx((1 + 2 + 3) / 6)
    assert last["win"] == pytest.approx((3 + 3 * 0.5) / 6)  # a tie counts half
    assert [p["n"] for p in result[("random", "heuristic")]] == [6, 6]


def test_a_seed_with_fewer_evaluations_leaves_its_last_points_to_the_others(
    tmp_path: Path,
) -> None:
    algo = curves.ALGOS["dmc"]
    write_log(tmp_path / "dmc-self-1.jsonl", [(0, "random", [1.0]), (4096, "random", [2.0])])
    write_log(tmp_path / "dmc-self-2.jsonl", [(0, "random", [3.0])])  # interrupted
    points = curves.pooled(algo, tmp_path)[("self", "random")]
    assert [(p["steps"], p["seeds"], p["n"]) for p in points] == [(0, 2, 2), (4096, 1, 1)]


def fake_runs(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    commands: list[list[str]] = []

    def call(cmd: list[str], **kwargs: Any) -> int:
        commands.append(cmd)
        return 0

    monkeypatch.setattr(subprocess, "call", call)
    return commands


def test_ppo_runs_use_the_python_batch_of_the_published_curves(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    commands = fake_runs(monkeypatch)
    curves.run(curves.ALGOS["ppo"], tmp_path, 2, 1000, 500, 19)
    assert len(commands) == 9
    for cmd in commands:
        assert cmd[cmd.index("--env") + 1] == "python"
        assert cmd[cmd.index("-m") + 1] == "marjolet.rl.train_ppo"
    commands.clear()
    curves.run(curves.ALGOS["dmc"], tmp_path, 1, 1000, 500, 19)
    assert len(commands) == 3 and all("--env" not in cmd for cmd in commands)
