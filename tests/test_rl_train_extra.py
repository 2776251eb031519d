"""The trainers and the curves' runner without the ``train`` extra: one
line naming the extra, exit status 2 (PyTorch is hidden by an import
blocker, so these run where it is installed too)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

SRC = str(Path(__file__).resolve().parent.parent / "src")

#: Runs ``-m module args`` as ``python -m`` would, or ``-c code``, with the
#: libraries of argv[1] made unimportable: by a finder that says "No module
#: named ...", or, prefixed "none:", by None in ``sys.modules`` (then
#: ``importlib.util.find_spec`` says it is missing, as where it is not installed).
BLOCKER = """
import importlib.abc, runpy, sys
class Blocker(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name.partition(".")[0] in BLOCKED:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None
if sys.argv[1].startswith("none:"):
    for name in sys.argv[1][5:].split(","):
        sys.modules[name] = None
else:
    BLOCKED = set(sys.argv[1].split(","))
    sys.meta_path.insert(0, Blocker())
if sys.argv[2] == "-c":
    exec(sys.argv[3])
else:
    module = sys.argv[3]
    sys.argv = [module, *sys.argv[4:]]
    runpy.run_module(module, run_name="__main__", alter_sys=True)
"""


def run_without(blocked: str, how: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": SRC}
    return subprocess.run(
        [sys.executable, "-c", BLOCKER, blocked, how, *args],
        capture_output=True, text=True, env=env, timeout=120,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("module", "args"),
    [
        ("marjolet.rl.train_ppo", ["--steps", "10"]),
        ("marjolet.rl.train_ppo", ["--help"]),
        ("marjolet.rl.train_dmc", ["--steps", "10"]),
        ("marjolet.rl.train_dmc", ["--help"]),
    ],
)
def test_a_trainer_without_torch_names_the_train_extra_in_one_line(
    module: str, args: list[str]
) -> None:
    done = run_without("torch", "-m", module, *args)
    assert done.returncode == 2, done.stderr
    assert done.stdout == ""
    assert done.stderr == (
        f"python -m {module} needs the train extra: pip install 'marjolet[train]' "
        "(No module named 'torch')\n"
    )


def test_a_trainer_without_numpy_names_the_train_extra_too() -> None:
    """numpy (the rl extra, which train brings) is missing: the same line."""
    done = run_without("numpy", "-m", "marjolet.rl.train_ppo", "--steps", "10")
    assert done.returncode == 2
    assert "needs the train extra: pip install 'marjolet[train]'" in done.stderr
    assert done.stderr.count("\n") == 1


def test_importing_a_trainer_without_torch_still_raises() -> None:
    """Only the command turns the error into a line: an import is the caller's."""
    done = run_without("torch", "-c", "import marjolet.rl.train_ppo")
    assert done.returncode != 0 and "ModuleNotFoundError" in done.stderr


def test_curves_run_without_torch_names_the_train_extra(tmp_path: Path) -> None:
    runs = str(tmp_path / "runs")
    done = run_without("none:torch", "-m", "marjolet.rl.curves", "run", "--out", runs)
    assert done.returncode == 2
    assert done.stderr == (
        "python -m marjolet.rl.curves: error: run needs the train extra: "
        "pip install 'marjolet[train]'\n"
    )


@pytest.mark.parametrize("module", ["marjolet.rl.train_ppo", "marjolet.rl.train_dmc"])
def test_a_trainer_names_a_refused_kernel_setting_in_one_line(module: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", module, "--help"],
        capture_output=True, text=True, timeout=120,
        env={**os.environ, "MARJOLET_KERNEL": "false"},
    )  # fmt: skip
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        f"python -m {module}: error: MARJOLET_KERNEL='false': give 0 (pure Python) or 1 "
        "(the C kernel where it is built, the default), or unset it"
    ]
