"""The ``ppo`` bot (a numpy network, the shipped weights) and the PPO
training script (only where PyTorch is installed)."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from marjolet.actions import DRAW, MELD_BASE
from marjolet.bots import make_bot
from marjolet.bots.base import BotSpecError
from marjolet.match import Match
from marjolet.observation import Observation
from marjolet.rl.encoder import NUM_ACTIONS, OBSERVATION_SIZE
from marjolet.rl.mlp_bot import PpoBot, load_policy, save_policy
from marjolet.turns import play_deal, play_match

HAS_TORCH = importlib.util.find_spec("torch") is not None
NO_TORCH = "PyTorch is not installed (pip install 'marjolet[train]')"


def meld_loving_layers() -> list[tuple[np.ndarray, np.ndarray]]:
    """Two layers whose output prefers declaring melds, then 'draw'."""
    rng = np.random.default_rng(0)
    w0 = rng.normal(0, 0.01, (OBSERVATION_SIZE, 8))
    w1 = np.zeros((8, NUM_ACTIONS))
    b1 = np.zeros(NUM_ACTIONS)
    b1[MELD_BASE : MELD_BASE + 12] = 5.0
    b1[DRAW] = 2.0
    return [(w0, np.zeros(8)), (w1, b1)]


class Spy:
    """A seat that records the legal actions and the bot's answers."""

    def __init__(self, bot: PpoBot) -> None:
        self.bot = bot
        self.decisions: list[tuple[list[int], int]] = []

    def choose(self, obs: Observation, legal: Sequence[int]) -> int:
        action = self.bot.choose(obs, legal)
        self.decisions.append((list(legal), action))
        return action


def test_shipped_weights_load_and_play_only_legal_moves() -> None:
    bot = make_bot("ppo", seed=1)
    assert isinstance(bot, PpoBot)
    spy = Spy(bot)
    match = play_match(Match(seed=5), [spy, make_bot("heuristic", seed=2)])
    assert match.is_over and spy.decisions
    assert all(a in legal for legal, a in spy.decisions)


def test_ppo_is_deterministic_under_its_seed() -> None:
    def decisions(seed: int) -> list[int]:
        spy = Spy(make_bot("ppo:greedy=false", seed=seed))  # type: ignore[arg-type]
        play_match(Match(seed=9), [spy, make_bot("random", seed=4)])
        return [a for _, a in spy.decisions]

    assert decisions(3) == decisions(3)
    greedy = [Spy(make_bot("ppo", seed=s)) for s in (1, 2)]  # type: ignore[arg-type]
    for spy in greedy:
        play_match(Match(seed=9), [spy, make_bot("random", seed=4)])
    assert greedy[0].decisions == greedy[1].decisions  # greedy: the seed does not matter


def test_a_saved_policy_plays_its_best_logit(tmp_path: Path) -> None:
    path = tmp_path / "p.npz"
    save_policy(path, meld_loving_layers(), note="test")
    spy = Spy(make_bot(f"ppo:weights={path}", seed=1))  # type: ignore[arg-type]
    play_match(Match(seed=3), [spy, make_bot("random", seed=2)])
    melds = range(MELD_BASE, MELD_BASE + 12)
    with_meld = [(legal, a) for legal, a in spy.decisions if any(m in legal for m in melds)]
    assert with_meld, "no meld chance in the whole match"
    assert all(a in melds for _, a in with_meld)


def test_bad_weights_files_are_one_line_errors(tmp_path: Path) -> None:
    missing = tmp_path / "none.npz"
    with pytest.raises(BotSpecError, match="cannot read weights file"):
        make_bot(f"ppo:weights={missing}")
    junk = tmp_path / "junk.npz"
    junk.write_bytes(b"not a zip")
    with pytest.raises(BotSpecError, match="is not a weights file"):
        load_policy(junk)
    junk.write_bytes(b"PK\x03\x04 a zip cut short")
    with pytest.raises(BotSpecError, match="cannot read weights file"):
        load_policy(junk)
    wrong = tmp_path / "wrong.npz"
    np.savez(wrong, format=np.array("marjolet-mlp/1"), w0=np.zeros((10, 46)), b0=np.zeros(46))
    with pytest.raises(BotSpecError, match="expected 335 inputs"):
        load_policy(wrong)
    other = tmp_path / "other.npz"
    np.savez(other, w0=np.zeros((335, 46)))
    with pytest.raises(BotSpecError, match="is not a marjolet-mlp/1 weights file"):
        load_policy(other)
    nan = tmp_path / "nan.npz"
    layers = meld_loving_layers()
    layers[0][0][0, 0] = np.nan
    np.savez(nan, format=np.array("marjolet-mlp/1"), w0=layers[0][0], b0=layers[0][1],
             w1=layers[1][0], b1=layers[1][1])
    with pytest.raises(BotSpecError, match="non-finite"):
        load_policy(nan)
    with pytest.raises(BotSpecError, match="temperature must be > 0"):
        make_bot("ppo:temperature=0")


def test_bots_command_lists_ppo() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "marjolet", "bots", "--json"],
        capture_output=True, text=True, check=True,
    ).stdout
    names = [row["name"] for row in json.loads(out)["bots"]]
    assert "ppo" in names


def test_arena_plays_ppo() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "marjolet", "arena", "ppo", "random", "--matches", "2",
         "--seed", "1", "--workers", "1", "--no-db", "--quiet"],
        capture_output=True, text=True, timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert "ppo vs random" in done.stdout


@pytest.mark.skipif(not HAS_TORCH, reason=NO_TORCH)
def test_training_a_few_hundred_steps_writes_a_playable_policy(tmp_path: Path) -> None:
    from marjolet.rl import train_ppo

    out, log = tmp_path / "p.npz", tmp_path / "log.jsonl"
    args = ["--env", "python", "--steps", "300", "--num-envs", "4", "--rollout", "40",
            "--seed", "2", "--eval-every", "300", "--eval", "random", "--eval-deals", "2",
            "--hidden", "16", "--out", str(out), "--log", str(log)]
    assert train_ppo.main(args) == 0
    records = [json.loads(line) for line in log.read_text().splitlines()]
    assert "settings" in records[0]
    evals = [r for r in records if "steps" in r]
    assert [r["steps"] for r in evals] == [0, 320]
    assert all(len(r["margins"]) == 4 for r in evals)  # 2 duplicate deals, both seats
    spy = Spy(make_bot(f"ppo:weights={out}", seed=1))  # type: ignore[arg-type]
    match = Match(seed=1)
    match.start_deal()
    play_deal(match, [spy, make_bot("random", seed=2)])
    assert all(a in legal for legal, a in spy.decisions)
    # the same seed trains the same weights
    again = tmp_path / "q.npz"
    assert train_ppo.main([*args[:-4], "--out", str(again)]) == 0
    for a, b in zip(load_policy(out).layers, load_policy(again).layers, strict=True):
        assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])


@pytest.mark.skipif(not HAS_TORCH, reason=NO_TORCH)
def test_an_existing_output_is_replaced_only_with_force_and_each_file_is_named_by_its_flag(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from marjolet.rl import train_ppo

    out, log = tmp_path / "p.npz", tmp_path / "run.jsonl"
    out.write_bytes(b"mine")
    log.write_text("mine")
    args = ["--steps", "40", "--num-envs", "2", "--rollout", "20", "--eval", "--hidden", "8"]
    assert train_ppo.main([*args, "--out", str(out)]) == 2
    assert f"--out {out}: the file exists; add --force" in capsys.readouterr().err
    assert train_ppo.main([*args, "--log", str(log)]) == 2
    assert f"--log {log}: the file exists" in capsys.readouterr().err
    assert train_ppo.main([*args, "--log", str(tmp_path / "none" / "x.jsonl")]) == 2
    assert "--log " in capsys.readouterr().err
    assert out.read_bytes() == b"mine" and log.read_text() == "mine"
    assert train_ppo.main([*args, "--out", str(out), "--log", str(log), "--force"]) == 0
    load_policy(out)
    records = [json.loads(line) for line in log.read_text().splitlines()]
    assert len(records) == 1 and "settings" in records[0]  # --eval alone: no evaluation
    assert "win" not in capsys.readouterr().out


@pytest.mark.skipif(not HAS_TORCH, reason=NO_TORCH)
@pytest.mark.parametrize("env", ["vector", "python"])
def test_a_few_hundred_steps_train_on_the_c_batch_and_on_python(tmp_path: Path, env: str) -> None:
    from marjolet.rl import train_ppo

    log = tmp_path / "log.jsonl"
    args = ["--env", env, "--opponent", "heuristic", "--steps", "300", "--num-envs", "8",
            "--rollout", "20", "--eval-every", "300", "--eval", "random", "--eval-deals", "1",
            "--hidden", "8", "--log", str(log)]  # fmt: skip
    assert train_ppo.main(args) == 0
    records = [json.loads(line) for line in log.read_text().splitlines()]
    assert records[0]["settings"]["env"] == env
    steps = [r["steps"] for r in records[1:]]
    assert steps[0] == 0 and 300 <= steps[-1] < 300 + 8 * 20  # the first update to reach it
    if env == "python":  # every row a step: whole updates of 8 x 20
        assert steps[-1] == 320
    else:  # rows of ended episodes wait for their reset, uncounted (docs/rl.md)
        assert steps[-1] % 160 != 0


@pytest.mark.skipif(not HAS_TORCH, reason=NO_TORCH)
def test_auto_env_is_the_c_batch_where_the_kernel_plays_the_opponent(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from marjolet import kernel
    from marjolet.rl.train_ppo import resolve_env

    c = "vector" if kernel.available() else "python"
    assert [resolve_env("auto", o) for o in ("random", "heuristic")] == [c, c]
    assert resolve_env("auto", "self") == resolve_env("auto", "pimc:worlds=4") == "python"
    assert resolve_env("gym", "random") == "gym"
    monkeypatch.setattr(kernel, "KERNEL", None)  # a build without the kernel
    assert resolve_env("auto", "random") == "python"


@pytest.mark.skipif(not HAS_TORCH, reason=NO_TORCH)
def test_self_play_and_the_gym_vector_batch_train(tmp_path: Path) -> None:
    from marjolet.rl import train_ppo

    for env in ("python", "gym"):
        args = ["--opponent", "self", "--env", env, "--steps", "100", "--num-envs", "2",
                "--rollout", "30", "--eval-every", "1000", "--eval", "--eval-deals",
                "--hidden", "8", "--out", str(tmp_path / f"{env}.npz")]
        assert train_ppo.main(args) == 0
        load_policy(tmp_path / f"{env}.npz")


@pytest.mark.skipif(not HAS_TORCH, reason=NO_TORCH)
def test_vector_batch_reads_next_step_autoreset_masks() -> None:
    """Gymnasium's SyncVectorEnv (next-step autoreset): the row of an ended
    deal has an all-zero mask, then the next deal; margins are reported once."""
    from marjolet.rl.train_ppo import make_batch

    batch = make_batch("gym", 2, ["random", "random"])
    obs, mask = batch.reset(seed=1)
    assert obs.shape == (2, OBSERVATION_SIZE) and mask.all(axis=1).sum() == 0
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(200):
        actions = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in mask])
        _obs, mask, _reward, done, margins = batch.step(actions)
        assert np.array_equal(~mask.any(axis=1), done)
        assert len(margins) == int(done.sum())
        ended += int(done.sum())
    assert ended > 0


@pytest.mark.skipif(not HAS_TORCH, reason=NO_TORCH)
@pytest.mark.parametrize(
    "failure",
    [
        RuntimeError(
            "[enforce fail at alloc_cpu.cpp:127] err == 0. DefaultCPUAllocator: can't allocate "
            "memory: you tried to allocate 40000000000 bytes. Error code 12"
        ),
        MemoryError(),
    ],
)
def test_a_failed_allocation_is_one_line_naming_the_flags(
    failure: BaseException, capsys: pytest.CaptureFixture[str]
) -> None:
    from marjolet.rl import train_ppo

    settings, args = train_ppo.parse_args(["--eval"])

    def make(log: object, checkpoint: object) -> train_ppo.Trainer:
        raise failure

    assert train_ppo.run_logged(settings, args, make) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err.startswith("python -m marjolet.rl.train_ppo: error: not enough memory for this run")
    assert "--hidden, --num-envs or --rollout" in err
    if isinstance(failure, RuntimeError):
        assert "(it asked for 40,000,000,000 bytes)" in err


@pytest.mark.skipif(not HAS_TORCH, reason=NO_TORCH)
def test_other_runtime_errors_are_not_taken_for_memory() -> None:
    from marjolet.rl import train_ppo

    settings, args = train_ppo.parse_args(["--eval"])

    def make(log: object, checkpoint: object) -> train_ppo.Trainer:
        raise RuntimeError("a bug")

    with pytest.raises(RuntimeError, match="a bug"):
        train_ppo.run_logged(settings, args, make)


@pytest.mark.skipif(not HAS_TORCH, reason=NO_TORCH)
def test_the_largest_learning_rate_trains_without_overflow(tmp_path: Path) -> None:
    from marjolet.rl import train_ppo

    args = ["--env", "python", "--steps", "10", "--num-envs", "2", "--rollout", "5",
            "--lr", "1", "--hidden", "8", "--eval", "random", "--eval-deals", "1",
            "--eval-every", "10"]  # fmt: skip
    assert train_ppo.main(args) == 0
