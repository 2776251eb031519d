"""Issue 15, the research adapters: rewards that add up, defaults that
standard tools accept, environments that copy, render and take any opponent."""

from __future__ import annotations

import copy
import pickle
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import render_test  # type: ignore[import-untyped]

import marjolet.rl.gym as mg
from marjolet.bots import make_bot
from marjolet.errors import MarjoletError
from marjolet.observation import Observation
from marjolet.rl import marjolet_v0
from marjolet.rl.episode import max_deal_score
from marjolet.rules import CLASSIC

SEVEN = 0  # rank index of the seven (ranks 7 8 9 J Q K T A)


def gym_episode(env: Any, seed: int | None) -> tuple[float, Any]:
    """Play the first legal action each time; the summed reward and the env."""
    _, info = env.reset(seed=seed)
    total, done = 0.0, False
    while not done:
        _, reward, terminated, truncated, info = env.step(info["legal_actions"][0])
        total += reward
        done = terminated or truncated
    return total, info


def seeds_with_a_seven_turned_up(make: Any, count: int) -> list[int]:
    found = []
    for seed in range(400):
        env = make()
        env.reset(seed=seed)
        deal = env.unwrapped.episode.match.deals[0]
        if deal.turned_up % 8 == SEVEN:
            found.append(seed)
            if len(found) == count:
                return found
    raise AssertionError("no deal with a seven turned up")


def test_dense_rewards_include_the_dealers_ten_for_a_seven_turned_up_in_gymnasium() -> None:
    for seat in (0, 1):
        def make(seat: int = seat) -> Any:
            return mg.SingleAgentEnv(reward="dense", seat=seat)

        for seed in seeds_with_a_seven_turned_up(make, 3):
            total, info = gym_episode(make(), seed)
            mine, theirs = info["deal_points"]
            assert total == mine - theirs, (seat, seed)


def test_dense_rewards_include_the_dealers_ten_for_a_seven_turned_up_in_pettingzoo() -> None:
    for seed in seeds_with_a_seven_turned_up(lambda: marjolet_v0.raw_env(reward="dense"), 4):
        env = marjolet_v0.env(reward="dense")
        env.reset(seed=seed)
        totals = dict.fromkeys(env.possible_agents, 0.0)
        for agent in env.agent_iter():
            obs, reward, terminated, truncated, _ = env.last()
            totals[agent] += reward
            legal = [a for a in range(46) if obs["action_mask"][a]]
            env.step(None if terminated or truncated else legal[0])
        p0, p1 = env.unwrapped.episode.deal.points
        assert totals == {"player_0": p0 - p1, "player_1": p1 - p0}, seed


def test_gymnasium_check_env_passes_with_the_default_settings() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(mg.SingleAgentEnv())
        check_env(mg.SingleAgentEnv(render_mode="ansi"), skip_render_check=False)


def test_an_illegal_action_ends_the_episode_with_the_documented_penalty_by_default() -> None:
    env = mg.SingleAgentEnv(seat=0)
    _, info = env.reset(seed=2)
    illegal = next(a for a in range(46) if not info["action_mask"][a])
    _, reward, terminated, truncated, info = env.step(illegal)
    assert terminated and not truncated and reward == -max_deal_score(CLASSIC)
    # the reason names the broken rule (R7: the card is not in the hand)
    assert "R7: player 0 does not hold" in info["illegal_action"]


def _clones(env: Any) -> list[Any]:
    return [pickle.loads(pickle.dumps(env)), copy.deepcopy(env)]


def test_unseeded_environments_pickle_and_deep_copy_in_both_adapters() -> None:
    envs: list[Any] = [mg.SingleAgentEnv(), marjolet_v0.env(), marjolet_v0.raw_env()]
    for env in envs:
        for clone in _clones(env):  # before any reset
            clone.reset()
        env.reset()
        for clone in _clones(env):  # in the middle of an unseeded episode
            assert clone.unwrapped.episode.deal.moves == env.unwrapped.episode.deal.moves
            clone.reset()
    seeded = mg.SingleAgentEnv()
    seeded.reset(seed=4)
    twin = copy.deepcopy(seeded)
    assert gym_episode(twin, None)[0] == gym_episode(seeded, None)[0]  # same stream onwards


def test_render_mode_human_prints_the_table(capsys: pytest.CaptureFixture[str]) -> None:
    render_test(marjolet_v0.raw_env)
    env = mg.SingleAgentEnv(render_mode="human")
    env.reset(seed=1)
    capsys.readouterr()
    assert env.render() is None
    assert "you are player" in capsys.readouterr().out


def test_a_bot_instance_or_a_callable_can_be_the_gymnasium_opponent() -> None:
    seen: list[int] = []

    def first_legal(obs: Observation, legal: Sequence[int]) -> int:
        seen.append(obs.seat)
        return legal[0]

    total, info = gym_episode(mg.SingleAgentEnv(opponent=first_legal, seat=0), seed=3)
    assert seen and set(seen) == {1}
    assert total == info["deal_points"][0] - info["deal_points"][1]
    bot = make_bot("heuristic", seed=1)
    by_instance, _ = gym_episode(mg.SingleAgentEnv(opponent=bot, seat=1), seed=5)
    by_spec, _ = gym_episode(mg.SingleAgentEnv(opponent="heuristic", seat=1), seed=5)
    assert by_instance == by_spec  # the instance is reseeded like a spec's bot
    with pytest.raises(Exception, match="opponent"):
        mg.SingleAgentEnv(opponent=42)  # type: ignore[arg-type]


@pytest.mark.parametrize("wrong", [10.7, "10", np.float32(9.9), True, np.bool_(True), None])
def test_an_action_that_is_not_an_integer_id_is_refused_in_both_adapters(wrong: Any) -> None:
    """Never rounded nor read as a number: 10.7 is not action 10, True not 1."""
    env = mg.SingleAgentEnv(illegal_action="lose")
    env.reset(seed=1)
    with pytest.raises(MarjoletError, match=r"an action is an integer id \(0-45\), got"):
        env.step(wrong)
    legal = int(np.flatnonzero(env.action_masks())[0])
    env.step(np.int64(legal))  # the episode goes on: numpy integers are ids
    pz = marjolet_v0.raw_env()  # (env() adds PettingZoo's own bounds assertion)
    pz.reset(seed=1)
    with pytest.raises(MarjoletError, match=r"an action is an integer id \(0-45\), got"):
        pz.step(wrong)


@pytest.mark.parametrize("illegal_action", ["lose", "raise"])
def test_an_opponent_that_breaks_the_rules_is_named_and_the_agent_is_not_blamed(
    illegal_action: str,
) -> None:
    env = mg.SingleAgentEnv(opponent=lambda obs, legal: 99, seat=1, illegal_action=illegal_action)
    with pytest.raises(MarjoletError, match=r"^the opponent \(callable <lambda>\) broke the rules: "
                       r"illegal action 99: unknown action id 99$"):
        env.reset(seed=2)


@pytest.mark.parametrize("answer", ["KS", None, 3.7, True, [3]])
def test_an_opponent_answering_no_action_id_is_named_and_nothing_is_rounded(answer: Any) -> None:
    def stubborn(obs: Observation, legal: Sequence[int]) -> Any:
        return answer

    env = mg.SingleAgentEnv(opponent=stubborn, seat=1)
    with pytest.raises(MarjoletError, match=r"^the opponent \(callable stubborn\) broke the rules: "
                       r"an action is an integer id \(0-45\), got "):
        env.reset(seed=2)


def test_an_opponent_may_answer_a_numpy_integer() -> None:
    env = mg.SingleAgentEnv(opponent=lambda obs, legal: np.int64(legal[0]), seat=1)
    _, info = env.reset(seed=2)
    assert info["legal_actions"] and env.episode.deal.moves


def test_the_raw_pettingzoo_env_says_when_it_is_stepped_before_reset_or_after_the_end() -> None:
    env = marjolet_v0.raw_env()
    with pytest.raises(MarjoletError, match=r"^call reset\(\) before using the environment$"):
        env.step(0)
    env.reset(seed=1)
    rng = np.random.default_rng(0)
    while env.agents:
        obs, _, terminated, truncated, _ = env.last()
        over = terminated or truncated
        env.step(None if over else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    with pytest.raises(MarjoletError, match=r"^the episode is over: call reset\(\)$"):
        env.step(0)


def test_the_gym_env_names_the_call_made_before_reset_and_says_when_it_is_closed() -> None:
    env = mg.SingleAgentEnv()
    with pytest.raises(MarjoletError, match=r"^call reset\(\) before action_masks\(\)$"):
        env.action_masks()
    with pytest.raises(MarjoletError, match=r"^call reset\(\) before step\(\)$"):
        env.step(0)
    env.reset(seed=1)
    env.close()
    for call in (lambda: env.step(0), env.action_masks, lambda: env.reset(seed=2)):
        with pytest.raises(MarjoletError, match=r"^the environment is closed: make a new one$"):
            call()
    env.close()  # twice is fine
