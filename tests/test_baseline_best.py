"""benchmarks/baseline_best: the frozen ``best`` of commit a406591 as an
``exec:`` bot. It builds its copy from the checkout's git history, answers
a marjolet-bot/1 session, and refuses with one clear line when it cannot."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from marjolet.bots import make_bot
from marjolet.bots.external import ExternalBot
from marjolet.match import Match

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "benchmarks" / "baseline_best"
COMMIT = "a406591"


def _has_commit() -> str | None:
    """Why the frozen copy cannot be built here, or None if it can."""
    if shutil.which("git") is None:
        return "git is not installed"
    probe = subprocess.run(
        ["git", "-C", str(ROOT), "cat-file", "-e", f"{COMMIT}^{{commit}}"],
        capture_output=True,
    )
    if probe.returncode != 0:
        return f"commit {COMMIT} is not in this checkout's git history"
    return None


@pytest.fixture
def frozen_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The script runs with this interpreter and builds into a fresh folder."""
    monkeypatch.setenv("MARJOLET_PYTHON", sys.executable)
    monkeypatch.setenv("MARJOLET_BASELINE_CACHE", str(tmp_path / "frozen"))
    yield tmp_path / "frozen"


@pytest.mark.skipif(_has_commit() is not None, reason=f"{_has_commit()}: no frozen copy")
def test_frozen_best_answers_a_protocol_session(frozen_env: Path) -> None:
    # the first start builds the copy: done apart, since on a busy machine the
    # build may outlast the protocol's 10 s for hello
    built = subprocess.run(
        [str(SCRIPT)], stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=600
    )
    assert built.returncode == 0, built.stderr
    bot = make_bot(f"exec:path={ROOT / 'benchmarks' / 'baseline_best_0025'},budget_s=0.025", 5)
    assert isinstance(bot, ExternalBot)
    match = Match(seed=3)
    match.start_deal()
    deal = match.deal
    assert deal is not None
    answered = 0
    with bot:
        while answered < 4:
            legal = deal.legal_actions()
            if deal.to_move == 0:
                action = bot.choose(match.observation(0), legal)
                assert action in legal
                answered += 1
            else:
                action = legal[0]
            deal.play(action)
        assert bot.identity is not None
        assert bot.identity.name == f"baseline best {COMMIT} 0.025s cpu"
    kernels = list((frozen_env / "src" / "marjolet").glob("_kernel*.so"))
    assert kernels, "the frozen copy must run on its own C kernel"


def _run(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, capture_output=True, text=True, input="", env=env, timeout=60)


def test_a_time_that_is_not_a_number_is_one_line(frozen_env: Path) -> None:
    done = _run([str(SCRIPT), "fast"], dict(os.environ))
    assert done.returncode == 2
    assert done.stderr.strip() == (
        "baseline_best: time a move must be a number of seconds, got 'fast'"
    )


def test_a_checkout_without_the_commit_is_one_line(tmp_path: Path) -> None:
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    repo = tmp_path / "repo"
    (repo / "benchmarks").mkdir(parents=True)
    shutil.copy(SCRIPT, repo / "benchmarks" / "baseline_best")
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    env = dict(os.environ, MARJOLET_PYTHON=sys.executable)
    env.pop("MARJOLET_BASELINE_CACHE", None)
    done = _run([str(repo / "benchmarks" / "baseline_best")], env)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith(f"baseline_best: commit {COMMIT} is not in the git history")
    assert not (repo / "build").exists() or not any((repo / "build").iterdir())
