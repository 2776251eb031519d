"""The Deep Monte-Carlo baseline (``marjolet.rl.train_dmc``), only where
PyTorch is installed: returns, exploration, a tiny seeded run."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from marjolet.bots import make_bot
from marjolet.bots.base import BotSpecError
from marjolet.match import Match
from marjolet.rl.encoder import NUM_ACTIONS, OBSERVATION_SIZE
from marjolet.rl.mlp_bot import load_policy
from marjolet.turns import play_deal

needs_torch = pytest.mark.skipif(
    importlib.util.find_spec("torch") is None,
    reason="PyTorch is not installed (pip install 'marjolet[train]')",
)


def test_the_shipped_dmc_network_plays_legal_moves_and_is_listed() -> None:
    from marjolet.rl.mlp_bot import DmcBot

    bot = make_bot("dmc", seed=1)
    assert isinstance(bot, DmcBot)
    match = Match(seed=6)
    match.start_deal()
    play_deal(match, [make_bot("heuristic", seed=2), bot])  # an illegal move would raise
    assert match.deal is not None and match.deal.is_over
    out = subprocess.run(
        [sys.executable, "-m", "marjolet", "bots", "--json"],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    assert "dmc" in [row["name"] for row in json.loads(out)["bots"]]
    with pytest.raises(BotSpecError, match="dmc: cannot read weights file"):
        make_bot("dmc:weights=/nonexistent.npz", seed=1)


@needs_torch
def test_each_decision_gets_its_seats_return_to_the_end_of_the_deal() -> None:
    from marjolet.rl.train_dmc import Episodes

    ep = Episodes(1)
    obs = np.zeros((1, OBSERVATION_SIZE), np.float32)
    steps = [  # (seat acting, rewards of player 0 and player 1 for the step)
        (0, (0.1, -0.1)),
        (0, (0.0, 0.0)),
        (1, (-0.3, 0.3)),
        (0, (0.2, -0.2)),
    ]
    out = []
    for k, (seat, r) in enumerate(steps):
        ended = np.array([k == len(steps) - 1])
        out += ep.record(obs, np.array([k]), np.array([seat], np.int8),
                         np.array([r], np.float32), ended)  # fmt: skip
    assert len(out) == 1
    _, actions, returns = out[0]
    assert actions.tolist() == [0, 1, 2, 3]
    # seat 0 from step 0: 0.1 + 0 - 0.3 + 0.2; from step 1: -0.1; seat 1 from step 2: 0.3 - 0.2
    assert np.allclose(returns, [0.0, -0.1, 0.1, 0.2])
    # the next deal starts afresh
    nxt = ep.record(obs, np.array([5]), np.array([0], np.int8), np.zeros((1, 2), np.float32),
                    np.array([True]))  # fmt: skip
    assert nxt[0][1].tolist() == [5]


@needs_torch
def test_exploration_picks_only_legal_actions() -> None:
    from marjolet.rl.train_dmc import epsilon_greedy

    rng = np.random.default_rng(0)
    q = rng.normal(size=(200, NUM_ACTIONS)).astype(np.float32)
    mask = (rng.random((200, NUM_ACTIONS)) < 0.2).astype(np.int8)
    mask[:, 45] = 1
    q[:, 0] = 100.0  # the best value, often illegal
    greedy = epsilon_greedy(q, mask, 0.0, rng)
    expected = np.where(mask.astype(bool), q, -np.inf).argmax(axis=1)
    assert np.array_equal(greedy, expected)
    explored = epsilon_greedy(q, mask, 1.0, rng)
    assert mask[np.arange(200), explored].all()
    assert len(set(explored.tolist())) > 5


@needs_torch
def test_a_tiny_seeded_run_writes_a_playable_network_and_repeats(tmp_path: Path) -> None:
    from marjolet.rl import train_dmc

    out, log = tmp_path / "d.npz", tmp_path / "d.jsonl"
    args = ["--steps", "600", "--num-envs", "8", "--rollout", "20", "--seed", "3",
            "--eval-every", "600", "--eval", "random", "--eval-deals", "1", "--hidden", "8",
            "--out", str(out), "--log", str(log)]  # fmt: skip
    assert train_dmc.main(args) == 0
    records = [json.loads(line) for line in log.read_text().splitlines()]
    assert records[0]["settings"]["epsilon"] == 0.05
    assert [r["steps"] for r in records[1:]] == [0, 640]
    bot = make_bot(f"ppo:weights={out}", seed=1)
    match = Match(seed=4)
    match.start_deal()
    play_deal(match, [bot, make_bot("random", seed=2)])  # legal moves only, or it raises
    again = tmp_path / "e.npz"
    assert train_dmc.main([*args[:-4], "--out", str(again)]) == 0
    for a, b in zip(load_policy(out).layers, load_policy(again).layers, strict=True):
        assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])


@needs_torch
@pytest.mark.parametrize(
    ("trainer", "args", "message"),
    [
        ("train_dmc", ["--epsilon", "1.5"], "--epsilon must be within 0..1"),
        ("train_dmc", ["--steps", "0"], "--steps must be >= 1, got 0"),
        ("train_dmc", ["--minibatch", "-2"], "--minibatch must be >= 1, got -2"),
        ("train_dmc", ["--eval", "random", "--eval-deals"], "one entry each"),
        ("train_dmc", ["--seed", "99999999999999999999"], "--seed must be within 0.."),
        ("train_dmc", ["--lr", "inf"], "--lr must be a number within 1e-10..1, got inf"),
        ("train_dmc", ["--num-envs", "100000000"],
         "--num-envs must be within 1..1048576, got 100000000"),
        ("train_dmc", ["--hidden", "100000", "100000"],
         "--hidden 100000 100000: a network of 10,038,300,046 weights"),
        ("train_dmc", ["--force-it"], "unrecognized arguments: --force-it"),
        ("train_ppo", ["--seed", "-1"], "--seed must be within 0.."),
        ("train_ppo", ["--lr", "nan"], "--lr must be a number within 1e-10..1, got nan"),
        ("train_ppo", ["--lr", "1e308"], "--lr must be a number within 1e-10..1, got 1e+308"),
        ("train_ppo", ["--lr", "0"], "--lr must be a number within 1e-10..1, got 0.0"),
        ("train_ppo", ["--hidden", "100000", "100000"], "above the limit of 10,000,000"),
        ("train_ppo", ["--num-envs", "2000000"], "--num-envs must be within 1..1048576"),
        ("train_ppo", ["--entropy", "nan"], "--entropy must be a number 0 or above, got nan"),
        ("train_ppo", ["--hidden", "128", "-1"], "--hidden must be >= 1, got -1"),
        ("train_ppo", ["--eval", "random", "--eval-deals", "0"],
         "--eval-deals must be >= 1, got 0"),
        ("train_ppo", ["--steps", "-5"], "--steps must be >= 1, got -5"),
        ("train_ppo", ["--rollout", "0"], "--rollout must be >= 1, got 0"),
    ],
)
def test_bad_arguments_of_both_trainers_are_one_line_errors(
    trainer: str, args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    module = importlib.import_module(f"marjolet.rl.{trainer}")
    with pytest.raises(SystemExit) as exit_:
        module.main(args)
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert message in err
    assert err.count("\n") == 1  # one line, no usage block


@needs_torch
@pytest.mark.parametrize("trainer", ["train_ppo", "train_dmc"])
def test_out_and_log_naming_one_file_are_refused_before_training(
    trainer: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # --out run.npz --log run.npz kept the weights and silently lost the log
    module = importlib.import_module(f"marjolet.rl.{trainer}")
    run = tmp_path / "run.npz"
    args = ["--steps", "40", "--num-envs", "2", "--rollout", "20", "--eval", "--hidden", "8"]
    for log in (run, tmp_path / "." / "run.npz"):
        assert module.main([*args, "--out", str(run), "--log", str(log), "--force"]) == 2
        err = capsys.readouterr().err
        assert "name the same file" in err and "--out" in err and "--log" in err
        assert err.count("\n") == 1
        assert not run.exists()
    link = tmp_path / "link.jsonl"
    link.symlink_to(run)
    assert module.main([*args, "--out", str(run), "--log", str(link)]) == 2
    assert "name the same file" in capsys.readouterr().err
    assert not run.exists()
