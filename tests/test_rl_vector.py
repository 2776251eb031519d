"""The batched environments of :mod:`marjolet.rl.vector`: the same episodes
as the single environments, in C or in Python."""

from __future__ import annotations

import os
import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from gymnasium import spaces
from gymnasium.vector import AutoresetMode

from kernel_support import every_rules, random_deck
from marjolet import kernel
from marjolet.engine import Deal
from marjolet.errors import IllegalActionError, MarjoletError
from marjolet.observation import Observation, observe
from marjolet.rl import marjolet_v0
from marjolet.rl.encoder import NUM_ACTIONS, OBSERVATION_SIZE, encode
from marjolet.rl.episode import max_deal_score
from marjolet.rl.gym import SingleAgentEnv
from marjolet.rl.vector import MarjoletSelfPlayVectorEnv, MarjoletVectorEnv
from marjolet.rules import CLASSIC, SAME_SUIT

needs_kernel = pytest.mark.skipif(not kernel.available(), reason=kernel.description())
EXAMPLES = Path(__file__).resolve().parent.parent / "examples"

VARIANT = CLASSIC.replace(
    deal_pattern=(2, 2, 2), all_tricks_bonus=40, dix_on_play=False, jack_queen=SAME_SUIT,
    one_meld_per_window=True, target=150,
)  # fmt: skip


def uniform_actions(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One uniform legal action a row (0 where nothing is legal)."""
    return np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in masks])


def first_legal(info: dict[str, Any]) -> int:
    """The first legal action (0 when nothing is legal: the step ignores it)."""
    legal = np.flatnonzero(info["action_mask"])
    return int(legal[0]) if len(legal) else 0


# -- agreement with the single environment -------------------------------------------


@pytest.mark.parametrize(
    ("opponent", "reward", "seat", "rules", "steps"),
    [
        ("random", "deal", None, CLASSIC, 150),
        ("random", "dense", 1, CLASSIC, 150),
        ("heuristic", "deal", None, CLASSIC, 150),
        ("heuristic", "dense", 0, VARIANT, 150),
        ("random", "match", None, VARIANT, 400),
        ("heuristic", "match", None, CLASSIC, 300),
    ],
)
def test_seeded_batch_plays_what_seeded_single_environments_play(
    opponent: str, reward: str, seat: int | None, rules: Any, steps: int
) -> None:
    """Environment i of reset(seed=s) is SingleAgentEnv.reset(seed=s+i) and
    the resets after it: observations, masks, rewards, ends (NEXT_STEP)."""
    n = 6
    envs = MarjoletVectorEnv(n, opponent=opponent, rules=rules, seat=seat, reward=reward)
    singles = [SingleAgentEnv(opponent, rules, seat, reward) for _ in range(n)]
    obs, infos = envs.reset(seed=40)
    first = [s.reset(seed=40 + i) for i, s in enumerate(singles)]
    assert np.array_equal(obs, np.stack([o for o, _ in first]))
    assert np.array_equal(infos["action_mask"], np.stack([i["action_mask"] for _, i in first]))
    assert list(infos["seat"]) == [i["seat"] for _, i in first]
    rng = np.random.default_rng(3)
    done = [False] * n
    ends = 0
    for _ in range(steps):
        actions = uniform_actions(infos["action_mask"], rng)
        obs, rewards, terminated, truncated, infos = envs.step(actions)
        assert not truncated.any()
        for i, single in enumerate(singles):
            if done[i]:  # NEXT_STEP: this step resets
                o, info = single.reset()
                r, t = 0.0, False
            else:
                o, r, t, _, info = single.step(int(actions[i]))
            done[i] = t
            where = f"env {i}"
            assert np.array_equal(obs[i], o), where
            assert np.array_equal(infos["action_mask"][i], info["action_mask"]), where
            assert rewards[i] == r and terminated[i] == t, where
            assert infos["seat"][i] == info["seat"], where
            if t:
                ends += 1
                assert tuple(infos["deal_points"][i]) == info["deal_points"]
                assert tuple(infos["totals"][i]) == info["totals"]
                won = info["match_winner"]
                assert infos["match_winner"][i] == (-1 if won is None else int(won))
    assert ends >= n  # every environment went through at least one autoreset


@needs_kernel
@pytest.mark.parametrize("rules", [*every_rules()[::5], VARIANT])
def test_c_encoder_is_the_python_encoder_on_random_positions(rules: Any) -> None:
    rng = random.Random(7)
    out = np.zeros(OBSERVATION_SIZE, np.float32)
    checked = 0
    for _ in range(40):
        deal = Deal(random_deck(rng), rng.randrange(2), rules)
        totals = (rng.randrange(0, 2 * rules.target), rng.randrange(0, 3 * rules.target))
        while True:
            for seat in (0, 1):
                expected = encode(observe(deal, seat, totals=totals))
                kernel.KERNEL.encode(kernel.kernel_deal(deal), seat, totals, rules.target, out)
                assert np.array_equal(out, expected), (deal.moves, seat)
                checked += 1
            legal = deal.legal_actions()
            if not legal:
                break
            deal.push(rng.choice(legal))
    assert checked > 3000


@needs_kernel
def test_generators_seeded_together_draw_what_cpython_draws() -> None:
    """The batch seeds many generators side by side (pyrand.c): str seeds of
    every length (one SHA-512 block or more), int seeds of one and two
    words, more generators than one lockstep pass holds, and draws past the
    kept head (the generator seeded again alone) all give CPython's words."""
    rng = random.Random(11)
    seeds: list[str | int] = [f"marjolet/{rng.getrandbits(63)}/deal/{k % 3}" for k in range(90)]
    seeds += ["".join(rng.choice("ab/é7") for _ in range(rng.randrange(1, 120))) for _ in range(40)]
    seeds += [rng.getrandbits(rng.choice((5, 32, 63, 64))) for _ in range(60)] + [0]
    rng.shuffle(seeds)
    words = kernel.KERNEL.pyrand_words(tuple(seeds), 200)
    for seed, got in zip(seeds, words, strict=True):
        r = random.Random(seed)
        assert got == [r.getrandbits(32) for _ in range(200)], seed


@pytest.mark.parametrize(("n", "steps"), [(4, 120), (40, 70)])
def test_same_step_autoreset_returns_the_next_episode_and_the_final_observation(
    n: int, steps: int
) -> None:
    """Also with dozens of environments ending and restarting in the same
    steps (in C their generators are seeded together, pyrand.c)."""
    envs = MarjoletVectorEnv(n, reward="dense", autoreset_mode="same_step", seed=9)
    assert envs.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    singles = [SingleAgentEnv(reward="dense") for _ in range(n)]
    _, infos = envs.reset()
    for i, s in enumerate(singles):
        s.reset(seed=9 + i)
    rng = np.random.default_rng(1)
    finals = 0
    for _ in range(steps):
        actions = uniform_actions(infos["action_mask"], rng)
        obs, rewards, terminated, _, infos = envs.step(actions)
        assert infos["action_mask"].any(axis=1).all()  # never an all-zero mask
        for i, single in enumerate(singles):
            o, r, t, _, info = single.step(int(actions[i]))
            assert rewards[i] == r and terminated[i] == t
            if t:
                finals += 1
                assert infos["_final_obs"][i] and infos["_final_info"][i]
                assert np.array_equal(infos["final_obs"][i], o)
                assert not infos["final_info"]["action_mask"][i].any()
                assert infos["final_info"]["deal_points"][i].tolist() == list(info["deal_points"])
                o, info = single.reset()
            assert np.array_equal(obs[i], o)
            assert np.array_equal(infos["action_mask"][i], info["action_mask"])
    assert finals >= n


def test_next_step_autoreset_ends_with_an_all_zero_mask_then_ignores_the_action() -> None:
    envs = MarjoletVectorEnv(1, seed=2)
    assert envs.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
    _, infos = envs.reset()
    while True:
        _, reward, terminated, _, infos = envs.step(np.array([first_legal(infos)]))
        if terminated[0]:
            break
    assert not infos["action_mask"].any() and infos["_deal_points"][0]
    assert reward[0] == infos["deal_points"][0][0] - infos["deal_points"][0][1]
    obs, reward, terminated, _, infos = envs.step(np.array([NUM_ACTIONS + 7]))  # ignored
    assert reward[0] == 0.0 and not terminated[0] and infos["action_mask"].any()
    single = SingleAgentEnv()
    single.reset(seed=2)
    expected, _ = single.reset()  # the second episode of the stream
    assert np.array_equal(obs[0], expected)


def test_disabled_autoreset_refuses_a_finished_environment_until_it_is_reset() -> None:
    envs = MarjoletVectorEnv(2, autoreset_mode=AutoresetMode.DISABLED, seed=4)
    _, infos = envs.reset()
    finished = np.zeros(2, np.bool_)
    while not finished.any():
        _, _, terminated, _, infos = envs.step(
            np.array([first_legal({"action_mask": m}) for m in infos["action_mask"]])
        )
        finished |= terminated
    with pytest.raises(MarjoletError, match="reset_mask"):
        envs.step(np.zeros(2, np.int64))
    _obs, infos = envs.reset(options={"reset_mask": finished})
    assert infos["action_mask"].any(axis=1).all()


# -- self-play ---------------------------------------------------------------------


@pytest.mark.parametrize(("reward", "rules"), [("deal", CLASSIC), ("dense", VARIANT),
                                               ("match", VARIANT)])  # fmt: skip
def test_self_play_batch_plays_what_pettingzoo_plays(reward: str, rules: Any) -> None:
    """Both seats are agents: row i is the player to act in
    marjolet_v0.raw_env(reset(seed=s+i)), rewards are both players'."""
    n = 4
    envs = MarjoletSelfPlayVectorEnv(n, rules=rules, reward=reward)
    aecs = [marjolet_v0.raw_env(rules=rules, reward=reward) for _ in range(n)]
    obs, infos = envs.reset(seed=11)
    for i, aec in enumerate(aecs):
        aec.reset(seed=11 + i)
    rng = np.random.default_rng(5)
    done = [False] * n
    ends = 0
    for _ in range(300 if reward == "match" else 120):
        for i, aec in enumerate(aecs):
            if done[i]:
                continue
            agent = aec.agent_selection
            view = aec.observe(agent)
            assert infos["seat"][i] == marjolet_v0.AGENTS.index(agent)
            assert np.array_equal(obs[i], view["observation"])
            assert np.array_equal(infos["action_mask"][i], view["action_mask"])
        actions = uniform_actions(infos["action_mask"], rng)
        obs, rewards, terminated, _, infos = envs.step(actions)
        for i, aec in enumerate(aecs):
            if done[i]:
                aec.reset()
                done[i] = False
                assert not terminated[i] and not rewards[i].any()
                continue
            aec.step(int(actions[i]))
            assert list(rewards[i]) == [aec.rewards[a] for a in marjolet_v0.AGENTS]
            done[i] = all(aec.terminations.values())
            assert terminated[i] == done[i]
            ends += done[i]
    assert ends >= n


def test_self_play_raises_on_an_illegal_action_before_any_environment_moves() -> None:
    envs = MarjoletSelfPlayVectorEnv(3, seed=1)
    _obs, infos = envs.reset()
    actions = np.array([first_legal({"action_mask": m}) for m in infos["action_mask"]])
    bad = actions.copy()
    bad[2] = int(np.flatnonzero(infos["action_mask"][2] == 0)[0])
    with pytest.raises(IllegalActionError, match="environment 2"):
        envs.step(bad)
    again, _, _, _, _ = envs.step(actions)  # nothing had moved: the step still plays
    reference = MarjoletSelfPlayVectorEnv(3, seed=1)
    reference.reset()
    expected, _, _, _, _ = reference.step(actions)
    assert np.array_equal(again, expected)


# -- illegal actions, arguments -------------------------------------------------------


def test_an_illegal_action_loses_by_default_and_raises_on_request() -> None:
    envs = MarjoletVectorEnv(2, seed=6)
    _, infos = envs.reset()
    illegal = int(np.flatnonzero(infos["action_mask"][0] == 0)[0])
    ok = first_legal({"action_mask": infos["action_mask"][1]})
    _, rewards, terminated, _, infos = envs.step(np.array([illegal, ok]))
    assert terminated[0] and rewards[0] == -max_deal_score(CLASSIC)
    assert infos["illegal_action"][0] and infos["_illegal_action"][0]
    strict = MarjoletVectorEnv(2, seed=6, illegal_action="raise")
    _before, _ = strict.reset()
    with pytest.raises(IllegalActionError, match="environment 0"):
        strict.step(np.array([illegal, ok]))
    with pytest.raises(IllegalActionError):
        strict.step(np.array([-5, ok]))


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"num_envs": 0}, "num_envs"),
        ({"num_envs": 2, "seat": 2}, "seat"),
        ({"num_envs": 2, "reward": "points"}, "reward"),
        ({"num_envs": 2, "autoreset_mode": "sometimes"}, "autoreset_mode"),
        ({"num_envs": 2, "illegal_action": "ignore"}, "illegal_action"),
    ],
)
def test_bad_arguments_are_one_clear_error(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(MarjoletError, match=message):
        MarjoletVectorEnv(**kwargs)


def test_bad_seeds_and_actions_are_one_clear_error() -> None:
    envs = MarjoletVectorEnv(2)
    with pytest.raises(MarjoletError, match="reset"):
        envs.step(np.zeros(2, np.int64))
    with pytest.raises(MarjoletError, match="seed"):
        envs.reset(seed="one")  # type: ignore[arg-type]
    with pytest.raises(MarjoletError, match="2 seeds"):
        envs.reset(seed=[1, 2, 3])
    envs.reset(seed=[1, None])
    with pytest.raises(MarjoletError, match="actions"):
        envs.step(np.zeros(3, np.int64))
    with pytest.raises(MarjoletError, match="actions"):
        envs.step(np.zeros(2, np.float32))


def test_a_negative_seed_is_refused_rather_than_replaying_its_positive_twin() -> None:
    """``random.Random(-s)`` is ``random.Random(s)``: a batch seeded -2 would
    play seeds -2, -1, 0, 1, its environments 1 and 3 the same episodes."""
    for make in (MarjoletVectorEnv, MarjoletSelfPlayVectorEnv):
        with pytest.raises(MarjoletError, match=r"seed must be 0 or more, got -2 .*seed 2"):
            make(4, seed=-2).reset()
        with pytest.raises(MarjoletError, match="got -5"):
            make(2).reset(seed=[5, -5])
    with pytest.raises(MarjoletError, match="got -1"):
        marjolet_v0.env().reset(seed=-1)
    with pytest.raises(MarjoletError, match="got -3"):
        SingleAgentEnv().reset(seed=-3)
    numpy_seeded, _ = SingleAgentEnv().reset(seed=np.int64(5))  # type: ignore[arg-type]
    assert np.array_equal(numpy_seeded, SingleAgentEnv().reset(seed=5)[0])


def test_gymnasium_make_vec_builds_the_batch() -> None:
    import gymnasium

    envs = gymnasium.make_vec("marjolet/SingleAgent-v0", num_envs=3, opponent="heuristic", seed=4)
    assert isinstance(envs, MarjoletVectorEnv) and envs.num_envs == 3
    obs, _ = envs.reset()
    assert np.array_equal(obs, MarjoletVectorEnv(3, opponent="heuristic", seed=4).reset()[0])
    synced = gymnasium.make_vec("marjolet/SingleAgent-v0", num_envs=2, vectorization_mode="sync",
                                render_mode="ansi")  # fmt: skip
    assert not isinstance(synced, MarjoletVectorEnv)
    with pytest.raises(MarjoletError, match="vectorization_mode='sync'"):
        gymnasium.make_vec("marjolet/SingleAgent-v0", num_envs=2, render_mode="ansi")


def test_a_misspelt_reset_option_is_named_not_ignored() -> None:
    envs = MarjoletVectorEnv(2, autoreset_mode="disabled", seed=1)
    with pytest.raises(MarjoletError, match=r"unknown 'reset_msk'.*'reset_mask'"):
        envs.reset(options={"reset_msk": np.array([True, False])})


def bot_programs() -> int:
    """How many ``protocol_bot.py`` programs this process has started and
    not yet ended (Linux's /proc)."""
    count = 0
    for entry in Path("/proc").iterdir():
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        parent = int(stat.rsplit(")", 1)[1].split()[1])
        count += parent == os.getpid() and b"protocol_bot.py" in cmdline
    return count


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_closing_an_environment_ends_its_exec_opponent_program() -> None:
    spec = f"exec:{EXAMPLES / 'protocol_bot.py'}"
    single = SingleAgentEnv(opponent=spec)
    _, info = single.reset(seed=1)
    envs = MarjoletVectorEnv(2, opponent=spec, seed=1)
    _, infos = envs.reset()
    for _ in range(6):  # long enough for each opponent to be asked a move
        _, _, _, _, info = single.step(first_legal(info))
        _, _, _, _, infos = envs.step(
            np.array([first_legal({"action_mask": m}) for m in infos["action_mask"]])
        )
    assert bot_programs() == 3
    single.close()
    envs.close()
    assert bot_programs() == 0


def test_unseeded_batches_differ_and_seed_lists_pick_each_environment() -> None:
    a, _ = MarjoletVectorEnv(4).reset()
    b, _ = MarjoletVectorEnv(4).reset()
    assert not np.array_equal(a, b)
    listed, _ = MarjoletVectorEnv(2).reset(seed=[7, 3])
    single = SingleAgentEnv()
    assert np.array_equal(listed[1], single.reset(seed=3)[0])


def test_spaces_are_batched_singles() -> None:
    envs = MarjoletVectorEnv(3, opponent="heuristic")
    assert envs.single_observation_space.shape == (OBSERVATION_SIZE,)
    assert envs.observation_space.shape == (3, OBSERVATION_SIZE)
    assert envs.single_action_space == spaces.Discrete(NUM_ACTIONS)
    assert envs.action_space.shape == (3,)
    obs, _ = envs.reset(seed=0)
    assert obs in envs.observation_space


# -- the Python batch -------------------------------------------------------------


def _trace(envs: Any, steps: int) -> list[tuple[np.ndarray, ...]]:
    obs, infos = envs.reset(seed=21)
    rng = np.random.default_rng(2)
    out: list[tuple[np.ndarray, ...]] = [(obs.copy(), infos["action_mask"].copy())]
    for _ in range(steps):
        actions = uniform_actions(infos["action_mask"], rng)
        obs, rewards, terminated, _, infos = envs.step(actions)
        row = [obs.copy(), rewards.copy(), terminated.copy(), infos["action_mask"].copy()]
        if "final_obs" in infos:
            row.extend(infos["final_obs"][i] for i in np.flatnonzero(terminated))
        out.append(tuple(row))
    return out


def _same(a: Sequence[tuple[np.ndarray, ...]], b: Sequence[tuple[np.ndarray, ...]]) -> None:
    assert len(a) == len(b)
    for x, y in zip(a, b, strict=True):
        assert len(x) == len(y)
        for u, v in zip(x, y, strict=True):
            assert np.array_equal(u, v)


@needs_kernel
@pytest.mark.parametrize("mode", ["next_step", "same_step"])
def test_python_batch_gives_the_kernel_batch_results(mode: str) -> None:
    for make in (
        lambda k: MarjoletVectorEnv(3, opponent="heuristic", reward="dense",
                                    autoreset_mode=mode, use_kernel=k),
        lambda k: MarjoletSelfPlayVectorEnv(3, rules=VARIANT, reward="match",
                                            autoreset_mode=mode, use_kernel=k),
    ):  # fmt: skip
        c_batch, py_batch = make(None), make(False)
        assert c_batch.in_kernel and not py_batch.in_kernel
        _same(_trace(c_batch, 150), _trace(py_batch, 150))


@needs_kernel
@pytest.mark.parametrize("mode", ["next_step", "same_step"])
def test_more_episodes_than_one_seeding_chunk_start_in_one_step(mode: str) -> None:
    """Every environment loses at once (an illegal action each), so all the
    next episodes start in one step: more than the kernel seeds together in
    one chunk (64), and still the Python batch's episodes."""

    def trace(use_kernel: bool | None) -> list[tuple[np.ndarray, ...]]:
        envs = MarjoletVectorEnv(150, reward="dense", autoreset_mode=mode, seed=8,
                                 use_kernel=use_kernel)  # fmt: skip
        _, infos = envs.reset()
        rng = np.random.default_rng(4)
        out: list[tuple[np.ndarray, ...]] = []
        for step in range(5):
            actions = np.full(150, 99) if step == 1 else uniform_actions(infos["action_mask"], rng)
            obs, rewards, terminated, _, infos = envs.step(actions)
            out.append((obs.copy(), rewards.copy(), terminated.copy(), infos["action_mask"].copy()))
        return out

    in_c = trace(None)
    assert in_c[1][2].all()  # the illegal step ended every episode
    _same(in_c, trace(False))


def test_other_opponents_run_in_python_with_their_own_bot() -> None:
    def last_legal(obs: Observation, legal: Sequence[int]) -> int:
        return legal[-1]

    envs = MarjoletVectorEnv(2, opponent=last_legal, reward="dense", seed=8)
    assert not envs.in_kernel
    single = SingleAgentEnv(opponent=last_legal, reward="dense")
    obs, infos = envs.reset()
    o, _ = single.reset(seed=9)
    assert np.array_equal(obs[1], o)
    for _ in range(30):
        action = first_legal({"action_mask": infos["action_mask"][1]})
        obs, rewards, _terminated, _, infos = envs.step(
            np.array([first_legal({"action_mask": infos["action_mask"][0]}), action])
        )
        o, r, t, _, _info = single.step(action)
        assert np.array_equal(obs[1], o) and rewards[1] == r
        if t:
            break


def test_seeds_are_checked_at_construction_and_a_numpy_array_of_seeds_is_a_list() -> None:
    with pytest.raises(MarjoletError, match="seed must be an integer or a list, got 'x'"):
        MarjoletVectorEnv(4, seed="x")  # type: ignore[arg-type]
    with pytest.raises(MarjoletError, match="seed must be 0 or more, got -5"):
        MarjoletVectorEnv(4, seed=-5)
    listed, _ = MarjoletVectorEnv(3).reset(seed=[4, 5, 6])
    arrayed, _ = MarjoletVectorEnv(3).reset(seed=np.arange(4, 7))
    assert np.array_equal(listed, arrayed)


@pytest.mark.parametrize("use_kernel", [False, None])
@pytest.mark.parametrize("make", [MarjoletVectorEnv, MarjoletSelfPlayVectorEnv])
def test_a_batch_gives_its_masks_only_between_reset_and_close(
    make: Any, use_kernel: bool | None
) -> None:
    envs = make(2, use_kernel=use_kernel)
    with pytest.raises(MarjoletError, match=r"call reset\(\) before action_masks\(\)"):
        envs.action_masks()  # not a mask of zeros
    _, infos = envs.reset(seed=1)
    assert np.array_equal(envs.action_masks(), infos["action_mask"])
    envs.close()
    with pytest.raises(MarjoletError, match="the environments are closed"):
        envs.step(np.zeros(2, np.int64))
    with pytest.raises(MarjoletError, match="the environments are closed"):
        envs.reset(seed=1)
    with pytest.raises(MarjoletError, match="the environments are closed"):
        envs.action_masks()


@pytest.mark.parametrize(
    ("description", "words"),
    [
        ("pure Python (C kernel not built)", "the C kernel is not built"),
        ("pure Python (C kernel disabled by MARJOLET_KERNEL=0)",
         "the C kernel is disabled by MARJOLET_KERNEL=0"),
    ],
)  # fmt: skip
@pytest.mark.parametrize("make", [MarjoletVectorEnv, MarjoletSelfPlayVectorEnv])
def test_use_kernel_without_the_kernel_says_it_is_not_built_not_that_the_rules_are_wrong(
    make: Any, description: str, words: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(kernel, "KERNEL", None)
    monkeypatch.setattr(kernel, "DESCRIPTION", description)
    with pytest.raises(MarjoletError) as refused:
        make(4, use_kernel=True)
    message = str(refused.value)
    assert message.startswith(f"use_kernel=True, but {words} (") and "rules" not in message
    make(4).close()  # use_kernel=None: the Python batch


@needs_kernel
def test_use_kernel_with_rules_outside_the_kernel_names_the_rules() -> None:
    rules = CLASSIC.replace(all_tricks_bonus=kernel.MAX_BONUS + 1)
    with pytest.raises(MarjoletError, match=r"does not cover these rules \(an all-six bonus"):
        MarjoletSelfPlayVectorEnv(2, rules=rules, use_kernel=True)


@needs_kernel
@pytest.mark.parametrize("make", [MarjoletVectorEnv, MarjoletSelfPlayVectorEnv])
def test_a_kernel_batch_refuses_pickling_and_copying_in_one_line(make: Any) -> None:
    import copy
    import pickle

    envs = make(4)
    for how in (pickle.dumps, copy.deepcopy, copy.copy):  # copy.copy shared the C state
        with pytest.raises(TypeError) as refused:
            how(envs)
        message = str(refused.value)
        assert message.startswith("a batch stepped by the C kernel cannot be pickled or copied: ")
        assert "\n" not in message and "use_kernel=False" in message


def test_a_shallow_copy_of_a_python_batch_steps_apart_from_it() -> None:
    import copy

    envs, alone = (MarjoletVectorEnv(2, use_kernel=False, seed=3) for _ in range(2))
    envs.reset()
    alone.reset()
    twin = copy.copy(envs)
    first = np.argmax(envs.action_masks(), axis=1)
    twin.step(first)  # moves the twin's episodes only
    (obs, reward, ended, _, _), (obs_alone, reward_alone, ended_alone, _, _) = (
        envs.step(first), alone.step(first))  # fmt: skip
    assert np.array_equal(obs, obs_alone) and np.array_equal(reward, reward_alone)
    assert np.array_equal(ended, ended_alone)


def test_a_python_batch_still_pickles() -> None:
    import pickle

    envs = MarjoletVectorEnv(2, use_kernel=False, seed=3)
    envs.reset()
    again = pickle.loads(pickle.dumps(envs))
    assert np.array_equal(again.step(np.argmax(again.action_masks(), axis=1))[0],
                          envs.step(np.argmax(envs.action_masks(), axis=1))[0])  # fmt: skip
