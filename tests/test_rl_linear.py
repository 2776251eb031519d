"""The ``linear`` bot, its weights file, and the training example."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from marjolet.actions import DIX, DRAW, MELD_BASE
from marjolet.bots import make_bot
from marjolet.bots.base import BotSpecError
from marjolet.errors import MarjoletError
from marjolet.match import Match
from marjolet.observation import Observation
from marjolet.rl.encoder import NUM_ACTIONS, OBSERVATION_SIZE
from marjolet.rl.linear_bot import WEIGHTS_FORMAT, LinearBot, load_weights, save_weights
from marjolet.turns import play_match

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "train_linear.py"


def meld_loving_policy(path: Path) -> None:
    """Weights that prefer declaring melds to anything else, then 'draw'."""
    w = np.zeros((NUM_ACTIONS, OBSERVATION_SIZE))
    b = np.zeros(NUM_ACTIONS)
    b[MELD_BASE : MELD_BASE + 12] = 2.0
    b[DRAW] = 1.0
    save_weights(path, w, b, note="test")


def test_weights_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "p.npz"
    meld_loving_policy(path)
    w, b = load_weights(path)
    assert w.shape == (NUM_ACTIONS, OBSERVATION_SIZE) and b[DRAW] == 1.0
    assert not list(tmp_path.glob("*.tmp"))


def test_linear_bot_plays_its_best_scoring_legal_action(tmp_path: Path) -> None:
    path = tmp_path / "p.npz"
    meld_loving_policy(path)
    bot = make_bot(f"linear:weights={path}", seed=1)
    assert isinstance(bot, LinearBot)
    decisions: list[tuple[list[int], int]] = []

    class Spy:
        def choose(self, obs: Observation, legal: Sequence[int]) -> int:
            action = bot.choose(obs, legal)
            decisions.append((list(legal), action))
            return action

    play_match(Match(seed=3), [Spy(), make_bot("random", seed=2)])
    melds = range(MELD_BASE, MELD_BASE + 12)
    with_meld = [(legal, a) for legal, a in decisions if any(m in legal for m in melds)]
    assert with_meld, "no meld chance in the whole match"
    assert all(a in melds for _, a in with_meld)
    windows = [(legal, a) for legal, a in decisions if DRAW in legal and legal != [DRAW]]
    assert all(a != DIX for legal, a in windows)  # 'dix' scores 0 here, below melds and 'draw'


def test_linear_bot_sampling_is_reproducible(tmp_path: Path) -> None:
    path = tmp_path / "p.npz"
    meld_loving_policy(path)

    def moves(seed: int) -> list[int]:
        seats = [make_bot(f"linear:weights={path},greedy=false", seed=seed), make_bot("random", 1)]
        match = Match(seed=4)
        play_match(match, seats)
        return [a for d in match.deals for a in d.moves]

    assert moves(7) == moves(7)


def test_linear_bot_errors_name_the_problem(tmp_path: Path) -> None:
    with pytest.raises(BotSpecError, match="weights file"):
        make_bot("linear")
    with pytest.raises(BotSpecError, match="cannot read"):
        make_bot(f"linear:weights={tmp_path / 'missing.npz'}")
    bad = tmp_path / "bad.npz"
    bad.write_text("not numpy")
    with pytest.raises(BotSpecError, match=r"is not a weights file \(a \.npz archive") as info:
        make_bot(f"linear:weights={bad}")
    assert "pickle" not in str(info.value)  # numpy's advice to unpickle is never passed on
    bad.write_bytes(b"PK\x03\x04 a zip cut short")
    with pytest.raises(BotSpecError, match="cannot read weights file"):
        make_bot(f"linear:weights={bad}")
    other = tmp_path / "other.npz"
    np.savez(other, weights=np.zeros((3, 3)))
    with pytest.raises(BotSpecError, match="not a marjolet-linear"):
        make_bot(f"linear:weights={other}")
    with pytest.raises(MarjoletError, match=r"^save_weights: weights must be 46x335 and bias "
                       r"46, got \(2, 2\) and \(2,\)$"):
        save_weights(tmp_path / "x.npz", np.zeros((2, 2)), np.zeros(2))
    with pytest.raises(MarjoletError, match=r"^save_weights: weights and bias must be numbers: "):
        save_weights(tmp_path / "x.npz", [["a"] * 335] * 46, np.zeros(46))
    assert not (tmp_path / "x.npz").exists()
    cut = tmp_path / "cut.npz"
    np.savez(cut, format=np.array(WEIGHTS_FORMAT), weights=np.zeros((3, 3)))  # no bias
    missing = r"linear: weights file '.*cut\.npz' has no array 'bias'$"
    with pytest.raises(BotSpecError, match=missing):
        make_bot(f"linear:weights={cut}")


def test_training_example_quick_mode_trains_saves_and_enters_the_arena(tmp_path: Path) -> None:
    out = tmp_path / "policy.npz"
    proc = subprocess.run(
        [sys.executable, str(EXAMPLE), "--quick", "--out", str(out)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    assert out.exists()
    assert "win rate" in proc.stdout and "linear:weights=" in proc.stdout
    w, _ = load_weights(out)
    assert np.abs(w).sum() > 0  # it learned something, whatever its strength


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--opponent", "bogus"], "unknown bot 'bogus'"),
        (["--seed", "-1"], "--seed must be 0 or more, got -1"),
        (["--lr", "-1"], "--lr must be a number above 0, got -1.0"),
        (["--matches", "3"], "--matches must be even"),
    ],
)
def test_training_example_names_a_bad_argument_in_one_line(
    tmp_path: Path, args: list[str], message: str
) -> None:
    proc = subprocess.run(
        [sys.executable, str(EXAMPLE), *args, "--out", str(tmp_path / "p.npz")],
        capture_output=True, text=True, cwd=tmp_path, timeout=120,
    )  # fmt: skip
    assert proc.returncode == 2
    assert proc.stderr.startswith("train_linear: ") and message in proc.stderr
    assert proc.stderr.count("\n") == 1
    assert not (tmp_path / "p.npz").exists()
