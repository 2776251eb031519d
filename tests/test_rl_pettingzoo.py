"""The PettingZoo AEC environment ``marjolet_v0``."""

from __future__ import annotations

import itertools
import warnings
from typing import Any

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test  # type: ignore[import-untyped]

from marjolet.errors import IllegalActionError, MarjoletError
from marjolet.rl import marjolet_v0
from marjolet.rl.encoder import OBSERVATION_SIZE, encode
from marjolet.rules import ENCYCLOPEDIA


def play_out(env: Any, seed: int) -> tuple[dict[str, float], list[str]]:
    """Play one episode with seeded random legal actions; return the summed
    rewards per agent and the agents in acting order."""
    env.reset(seed=seed)
    for i, agent in enumerate(env.possible_agents):
        env.action_space(agent).seed(seed + i)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    order = []
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, _ = env.last()
        totals[agent] += reward
        order.append(agent)
        if terminated or truncated:
            env.step(None)
            continue
        env.step(env.action_space(agent).sample(obs["action_mask"]))
    return totals, order


@pytest.mark.parametrize("reward", ["deal", "dense", "match"])
def test_pettingzoo_api_test_passes(reward: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the two harmless Dict-observation warnings
        api_test(marjolet_v0.env(reward=reward, render_mode="ansi"), num_cycles=100)


@pytest.mark.parametrize("reward", ["deal", "dense", "match"])
def test_pettingzoo_seed_test_passes(reward: str) -> None:
    seed_test(lambda: marjolet_v0.env(reward=reward), num_cycles=100)


def test_deal_reward_is_the_deal_score_difference_and_zero_sum() -> None:
    env = marjolet_v0.env()
    totals, _ = play_out(env, 3)
    deal = env.unwrapped.episode.deal
    p0, p1 = deal.points
    assert deal.is_over
    assert totals == {"player_0": p0 - p1, "player_1": p1 - p0}


def test_dense_rewards_add_up_to_the_deal_reward() -> None:
    deal_totals, _ = play_out(marjolet_v0.env(reward="deal"), 11)
    dense_env = marjolet_v0.env(reward="dense")
    dense_totals, _ = play_out(dense_env, 11)
    assert dense_totals == deal_totals
    assert dense_totals["player_0"] == -dense_totals["player_1"]


def test_match_reward_is_one_for_the_winner_after_r22() -> None:
    env = marjolet_v0.env(reward="match", rules={"profile": "classic", "target": 300})
    totals, _ = play_out(env, 5)
    match = env.unwrapped.episode.match
    assert match.is_over and len(match.deals) >= 2
    winner = f"player_{match.winner}"
    assert totals[winner] == 1.0 and sum(totals.values()) == 0.0


def test_the_agent_to_act_is_the_engines_player_and_windows_repeat_it() -> None:
    env = marjolet_v0.env()
    _, order = play_out(env, 2)
    moves = env.unwrapped.episode.deal.moves
    repeats = sum(1 for a, b in itertools.pairwise(order) if a == b)
    assert repeats >= 10  # every meld window: the trick winner acts again ('draw' at least)
    assert len(order) == len(moves) + 2  # plus one final last() per agent


def test_observation_is_the_shared_tensor_from_the_agents_seat() -> None:
    env = marjolet_v0.env(rules="encyclopedia")
    env.reset(seed=1)
    raw = env.unwrapped
    assert raw.rules == ENCYCLOPEDIA
    for seat, agent in enumerate(raw.possible_agents):
        obs = env.observe(agent)
        assert obs["observation"].shape == (OBSERVATION_SIZE,)
        expected = encode(raw.episode.match.observation(seat))
        assert np.array_equal(obs["observation"], expected)
        to_move = raw.episode.deal.to_move == seat
        assert obs["action_mask"].any() == to_move
        assert env.observation_space(agent).contains(obs)


def test_illegal_action_raises_citing_the_rule() -> None:
    env = marjolet_v0.env()
    env.reset(seed=1)
    with pytest.raises(IllegalActionError, match="R9"):
        env.step(45)  # 'draw' before any trick


def test_render_ansi_shows_the_table() -> None:
    env = marjolet_v0.env(render_mode="ansi")
    env.reset(seed=4)
    text = env.render()
    assert "trumps" in text and "deal 0" in text


def test_an_unknown_agent_is_refused_naming_the_two_agents() -> None:
    env = marjolet_v0.env()
    env.reset(seed=1)
    names = "the agents are 'player_0' and 'player_1'"
    with pytest.raises(MarjoletError, match=f"unknown agent 'player_2': {names}"):
        env.observe("player_2")
    with pytest.raises(MarjoletError, match=f"unknown agent 'x': {names}"):
        env.action_space("x")
    with pytest.raises(MarjoletError, match=f"unknown agent 'P0': {names}"):
        env.observation_space("P0")


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(MarjoletError, match="reward"):
        marjolet_v0.env(reward="points")
    with pytest.raises(MarjoletError, match="render_mode"):
        marjolet_v0.env(render_mode="rgb_array")
    with pytest.raises(MarjoletError, match="profile"):
        marjolet_v0.env(rules="nope")


def test_max_cycles_truncates_the_episode_after_that_many_actions() -> None:
    env = marjolet_v0.env(reward="match", max_cycles=7)
    env.reset(seed=3)
    actions = 0
    for _agent in env.agent_iter():
        obs, _, terminated, truncated, info = env.last()
        if terminated or truncated:
            assert truncated and not terminated and info == {"truncated_after": 7}
            env.step(None)
            continue
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))
        actions += 1
    assert actions == 7


def test_max_cycles_environment_passes_the_api_test() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(marjolet_v0.env(max_cycles=20), num_cycles=60)


@pytest.mark.parametrize("bad", [0, -1, 2.5, True])
def test_max_cycles_must_be_a_positive_integer(bad: Any) -> None:
    with pytest.raises(MarjoletError, match="max_cycles"):
        marjolet_v0.raw_env(max_cycles=bad)
