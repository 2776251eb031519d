"""The Gymnasium environment ``marjolet/SingleAgent-v0``."""

from __future__ import annotations

import warnings
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import marjolet.rl.gym as mg
from marjolet.bots.base import BotSpecError
from marjolet.errors import IllegalActionError, MarjoletError
from marjolet.rl.episode import max_deal_score
from marjolet.rules import CLASSIC


def run_episode(env: Any, seed: int | None = None) -> tuple[float, dict[str, Any], int]:
    """Play the first legal action each time; return the summed reward, the
    last info and the number of steps."""
    _, info = env.reset(seed=seed)
    total, steps, done = 0.0, 0, False
    while not done:
        assert info["action_mask"][info["legal_actions"]].all()
        _obs, reward, terminated, truncated, info = env.step(info["legal_actions"][0])
        total += reward
        steps += 1
        done = terminated or truncated
    return total, info, steps


def test_registered_id_makes_the_environment() -> None:
    env = gym.make(mg.ENV_ID, opponent="random")
    assert isinstance(env.unwrapped, mg.SingleAgentEnv)
    env2 = gym.make("marjolet.rl.gym:marjolet/SingleAgent-v0")
    assert isinstance(env2.unwrapped, mg.SingleAgentEnv)


def test_gymnasium_env_checker_passes() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(mg.SingleAgentEnv(reward="dense", illegal_action="lose"), skip_render_check=False)


def test_deal_reward_is_the_agents_deal_score_difference() -> None:
    env = mg.SingleAgentEnv(opponent="random", seat=1)
    total, info, _ = run_episode(env, seed=3)
    mine, theirs = info["deal_points"]
    assert total == mine - theirs
    assert info["seat"] == 1 and not info["action_mask"].any()


def test_dense_rewards_add_up_to_the_deal_reward() -> None:
    for seed in range(6):
        deal_total, _, _ = run_episode(mg.SingleAgentEnv(reward="deal"), seed=seed)
        dense_total, info, _ = run_episode(mg.SingleAgentEnv(reward="dense"), seed=seed)
        assert dense_total == deal_total == info["deal_points"][0] - info["deal_points"][1]


def test_match_episode_ends_at_r22_with_plus_or_minus_one() -> None:
    env = mg.SingleAgentEnv(reward="match", rules={"profile": "classic", "target": 200})
    total, info, _ = run_episode(env, seed=2)
    assert total in (1.0, -1.0)
    assert info["match_winner"] == (total == 1.0)
    assert max(info["totals"]) >= 200


def test_seeded_reset_reproduces_and_seat_is_drawn_per_episode() -> None:
    a = run_episode(mg.SingleAgentEnv(opponent="heuristic"), seed=9)
    b = run_episode(mg.SingleAgentEnv(opponent="heuristic"), seed=9)
    assert a[0] == b[0] and a[2] == b[2]
    env = mg.SingleAgentEnv()
    env.reset(seed=0)
    seats = set()
    for _ in range(12):
        _, info = env.reset()
        seats.add(info["seat"])
    assert seats == {0, 1}


def test_illegal_action_raises_or_loses_as_asked() -> None:
    env = mg.SingleAgentEnv(seat=0, illegal_action="raise")
    _obs, info = env.reset(seed=1)
    illegal = next(a for a in range(46) if not info["action_mask"][a])
    with pytest.raises(IllegalActionError, match=r"R\d+"):
        env.step(illegal)
    lose = mg.SingleAgentEnv(seat=0, illegal_action="lose")
    _, info = lose.reset(seed=1)
    _, reward, terminated, _, info = lose.step(illegal)
    assert terminated and reward == -max_deal_score(CLASSIC)
    assert "illegal_action" in info


def test_action_masks_method_serves_maskable_learners() -> None:
    env = mg.SingleAgentEnv()
    _, info = env.reset(seed=5)
    assert np.array_equal(env.action_masks(), info["action_mask"])


def test_a_teacher_bot_plays_a_whole_episode_from_the_agents_observation() -> None:
    """observation() is the object the tensor encodes, and a bot can play
    from it every step (imitation learning)."""
    from marjolet.bots import make_bot
    from marjolet.rl.encoder import encode

    env = mg.SingleAgentEnv(opponent="heuristic")
    teacher = make_bot("heuristic", seed=1)
    obs, info = env.reset(seed=3)
    done = False
    while not done:
        view = env.observation()
        assert view.seat == info["seat"] and np.array_equal(encode(view), obs)
        legal = [int(a) for a in np.flatnonzero(info["action_mask"])]
        action = teacher.choose(view, legal)
        assert action in legal
        obs, _, done, _, info = env.step(action)
    env.close()
    with pytest.raises(MarjoletError, match="the environment is closed"):
        env.observation()


def test_any_bot_spec_can_be_the_opponent() -> None:
    total, info, _ = run_episode(mg.SingleAgentEnv(opponent="openspiel-ismcts:sims=5"), seed=1)
    assert total == info["deal_points"][0] - info["deal_points"][1]
    with pytest.raises(BotSpecError, match="unknown bot"):
        mg.SingleAgentEnv(opponent="nobody")


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(MarjoletError, match="seat"):
        mg.SingleAgentEnv(seat=2)
    with pytest.raises(MarjoletError, match="illegal_action"):
        mg.SingleAgentEnv(illegal_action="ignore")
    env = mg.SingleAgentEnv()
    with pytest.raises(MarjoletError, match="reset"):
        env.step(0)


def test_render_ansi() -> None:
    env = mg.SingleAgentEnv(render_mode="ansi", seat=0)
    env.reset(seed=2)
    text = env.render()
    assert text is not None and "you are player 0" in text
