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


def test_the_figure_title_counts_the_seeds_it_pools(tmp_path: Path) -> None:
    algo = curves.ALGOS["dmc"]
    write_log(tmp_path / "dmc-self-1.jsonl", [(0, "random", [1.0])])
    assert curves.seeds_pooled(curves.pooled(algo, tmp_path)) == "one seed"
    write_log(tmp_path / "dmc-self-2.jsonl", [(0, "random", [3.0]), (4096, "random", [2.0])])
    assert curves.seeds_pooled(curves.pooled(algo, tmp_path)) == "1-2 seeds pooled"
    write_log(tmp_path / "dmc-self-1.jsonl", [(0, "random", [1.0]), (4096, "random", [2.0])])
    write_log(tmp_path / "dmc-self-3.jsonl", [(0, "random", [1.0]), (4096, "random", [2.0])])
    assert curves.seeds_pooled(curves.pooled(algo, tmp_path)) == "3 seeds pooled"


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


def test_run_tells_each_finished_run_and_ctrl_c_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    commands = fake_runs(monkeypatch)
    curves.run(curves.ALGOS["dmc"], tmp_path, 1, 1000, 500, 19)
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"3 runs, 1 at a time; their output goes to {tmp_path}/*.txt"
    assert out[1:] == [f"{k}/3 done: dmc-self-{k}.txt" for k in (1, 2, 3)]

    def interrupted(cmd: list[str], **kwargs: Any) -> int:
        commands.append(cmd)
        if len(commands) > 4:
            raise KeyboardInterrupt
        return 0

    monkeypatch.setattr(subprocess, "call", interrupted)
    monkeypatch.setattr(curves, "check_run", lambda algo, args: None)
    code = curves.main(["run", "--algo", "dmc", "--out", str(tmp_path / "b"), "--jobs", "1"])
    captured = capsys.readouterr()
    assert code == 130
    assert captured.out.splitlines()[1] == "1/3 done: dmc-self-1.txt"
    assert captured.err.strip() == (
        f"interrupted: the runs finished so far are in {tmp_path / 'b'}; run again into another "
        "--out, or remove that directory's runs first")


def usage_error(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    with pytest.raises(SystemExit) as exit_:
        curves.main(argv)
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("python -m marjolet.rl.curves: error: ") and err.count("\n") == 1, err
    return err


def test_bad_run_arguments_are_one_line_errors_before_any_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    commands = fake_runs(monkeypatch)
    afile = tmp_path / "afile"
    afile.write_text("mine")
    assert "--out " + str(afile) + ": not a directory" in usage_error(
        ["run", "--out", str(afile)], capsys
    )
    out = str(tmp_path / "runs")
    assert "--jobs must be >= 1, got 0" in usage_error(["run", "--out", out, "--jobs", "0"], capsys)
    assert "--steps must be >= 1" in usage_error(["run", "--out", out, "--steps", "-1"], capsys)
    assert "--eval-every must be >= 1" in usage_error(
        ["run", "--out", out, "--eval-every", "0"], capsys
    )
    assert "--nice must be within" in usage_error(["run", "--out", out, "--nice", "40"], capsys)
    (tmp_path / "runs").mkdir()
    (tmp_path / "runs" / "random-1.jsonl").write_text("")
    assert "holds runs already (random-1.jsonl)" in usage_error(["run", "--out", out], capsys)
    assert commands == [] and afile.read_text() == "mine"


def test_plot_refuses_a_missing_or_empty_run_directory(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    img = tmp_path / "x.png"
    missing = str(tmp_path / "nonexistent" / "dir")
    assert "no such directory" in usage_error(["plot", "--out", missing, "--img", str(img)], capsys)
    assert "no runs of --algo ppo" in usage_error(
        ["plot", "--out", str(tmp_path), "--img", str(img)], capsys
    )
    write_log(tmp_path / "random-1.jsonl", [])  # settings only: no evaluation yet
    assert "no evaluation yet" in usage_error(
        ["plot", "--out", str(tmp_path), "--img", str(img)], capsys
    )
    (tmp_path / "random-2.jsonl").write_text("{not json\n")
    assert "cannot be read" in usage_error(["plot", "--out", str(tmp_path)], capsys)
    assert not img.exists()


@pytest.mark.skipif(
    __import__("importlib").util.find_spec("matplotlib") is None, reason="needs matplotlib"
)
def test_plot_writes_each_algos_own_figure_by_default(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for seed in curves.SEEDS:
        write_log(
            tmp_path / f"dmc-self-{seed}.jsonl",
            [(0, "random", [1.0, -2.0]), (0, "heuristic", [-3.0, 0.0]),
             (4096, "random", [5.0, 2.0]), (4096, "heuristic", [-1.0, 1.0])],
        )  # fmt: skip
    assert curves.main(["plot", "--algo", "dmc", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert f"wrote {tmp_path / 'rl-dmc-curves.png'}" in out  # not docs/img/rl-ppo-curves.png
    assert (tmp_path / "rl-dmc-curves.png").stat().st_size > 0
    assert "| self | 4,096 | random | 6 |" in out
    (tmp_path / "afile").write_text("mine")
    bad = usage_error(["plot", "--algo", "dmc", "--out", str(tmp_path), "--img",
                       str(tmp_path / "afile" / "x.png")], capsys)  # fmt: skip
    assert "--img " in bad


@pytest.mark.skipif(
    __import__("importlib").util.find_spec("matplotlib") is None, reason="needs matplotlib"
)
def test_plot_replaces_an_existing_figure_only_with_force_and_makes_no_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # plot --img keep.png wrote over the user's file, and a missing folder was created
    for seed in curves.SEEDS:
        write_log(tmp_path / f"dmc-self-{seed}.jsonl",
                  [(0, "random", [1.0, -2.0]), (0, "heuristic", [-3.0, 0.0])])  # fmt: skip
    kept = tmp_path / "keep.png"
    kept.write_text("mine")
    base = ["plot", "--algo", "dmc", "--out", str(tmp_path)]
    bad = usage_error([*base, "--img", str(kept)], capsys)
    assert f"--img {kept}: the file exists; add --force to replace it" in bad
    assert kept.read_text() == "mine"
    (tmp_path / "rl-dmc-curves.png").write_text("an earlier figure")
    assert "add --force" in usage_error(base, capsys)
    assert (tmp_path / "rl-dmc-curves.png").read_text() == "an earlier figure"
    missing = tmp_path / "no" / "such" / "x.png"
    assert "no such folder" in usage_error([*base, "--img", str(missing)], capsys)
    assert not (tmp_path / "no").exists()
    assert curves.main([*base, "--img", str(kept), "--force"]) == 0
    assert kept.read_bytes().startswith(b"\x89PNG")
    svg = tmp_path / "c.svg"
    assert curves.main([*base, "--img", str(svg)]) == 0
    assert b"<svg" in svg.read_bytes()[:500]
