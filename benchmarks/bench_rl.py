"""Environment steps per second of each research adapter against the raw engine.

    .venv/bin/python benchmarks/bench_rl.py [--rounds 5] [--deals 200] [--json]

Every line plays complete random deals (uniform over the legal actions, meld
windows included) on one core and counts *player actions* (card plays,
melds, ``dix``, ``draw``, as record.md does); each figure is the median over
the rounds of actions per second:

- ``engine``: ``Deal.legal_actions`` + ``Deal.push`` (what ``marjolet bench`` measures);
- ``engine+obs``: the same plus ``observe`` + ``encode`` of the acting seat, the
  floor of any adapter that hands out observation tensors;
- ``pettingzoo``: ``env.last()`` (the observation dict) + ``env.step`` on
  ``marjolet_v0.env()`` with PettingZoo's wrappers; ``pettingzoo-raw`` the same
  on ``marjolet_v0.raw_env()``, without them;
- ``gymnasium``: ``env.step`` on ``marjolet/SingleAgent-v0`` (via ``gym.make``,
  with its checker wrappers) against ``random``; both seats' actions count, so
  agent steps/s is about half the figure (also printed);
- ``openspiel``: ``state.legal_actions`` + ``state.apply_action`` on
  ``python_marjolet``, the 32 chance nodes of each deal included in the time;
- ``openspiel+obs``: the same plus ``observation_tensor`` of the player to act.

A second table counts *agent steps* (one action chosen by the learner, with
its observation tensor and legal-action mask handed back), the unit of the
batched environments:

- ``gymnasium``: ``env.step`` on ``marjolet/SingleAgent-v0`` against ``random``;
- ``vector-random``, ``vector-heuristic``: ``MarjoletVectorEnv(256, opponent=...,
  copy=False)`` (:mod:`marjolet.rl.vector`), each step one uniform legal
  action per environment sampled with numpy from ``infos["action_mask"]``
  (the sampling is in the time);
- ``selfplay``: ``MarjoletSelfPlayVectorEnv(256, copy=False)``, the same, both
  seats' actions counting;
- ``leduc``: OpenSpiel's C++ ``leduc_poker`` through pyspiel:
  ``information_state_tensor`` of the player to act, ``legal_actions`` and
  ``apply_action`` of a uniform legal action at every decision node, chance
  nodes sampled (in the time, not counted), the reference of issue 23.

Each round runs ``deals * 25`` agent steps of ``gymnasium`` and 20 times as
many of the others.

``--clock cpu`` times with the process's CPU clock (steadier on a shared
machine), ``--clock wall`` (default) with ``perf_counter``; ``--only agent``
runs the second table only.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from collections.abc import Callable
from typing import Any

import gymnasium as gym
import numpy as np
import pyspiel  # type: ignore[import-not-found,unused-ignore]

import marjolet.rl.gym
from marjolet.cards import shuffled_deck
from marjolet.engine import Deal
from marjolet.observation import observe
from marjolet.rl import marjolet_v0
from marjolet.rl import openspiel as mo
from marjolet.rl.encoder import encode
from marjolet.rl.vector import MarjoletSelfPlayVectorEnv, MarjoletVectorEnv

Bench = Callable[[int, random.Random], tuple[float, int]]
#: The clock of every timing (``--clock``).
CLOCK: list[Callable[[], float]] = [time.perf_counter]
#: Agent steps per deal of the ``deals`` argument in the agent-step benches;
#: the batched and the leduc lines take FAST times as many (they are fast).
STEPS_PER_DEAL = 25
FAST = 20
BATCH = 256


def _now() -> float:
    return CLOCK[0]()


def _decks(rng: random.Random, n: int) -> list[list[int]]:
    return [shuffled_deck(rng) for _ in range(n)]


def bench_engine(deals: int, rng: random.Random, with_obs: bool = False) -> tuple[float, int]:
    decks = _decks(rng, deals)
    actions = 0
    start = _now()
    for i, deck in enumerate(decks):
        deal = Deal(deck, i & 1)
        legal = deal.legal_actions()
        while legal:
            if with_obs:
                encode(observe(deal, deal.to_move))
            deal.push(legal[rng.randrange(len(legal))])
            actions += 1
            legal = deal.legal_actions()
    return _now() - start, actions


def bench_engine_obs(deals: int, rng: random.Random) -> tuple[float, int]:
    return bench_engine(deals, rng, with_obs=True)


def bench_pettingzoo(deals: int, rng: random.Random, raw: bool = False) -> tuple[float, int]:
    env = marjolet_v0.raw_env() if raw else marjolet_v0.env()
    actions = 0
    start = _now()
    for _ in range(deals):
        env.reset(seed=rng.getrandbits(32))
        for _agent in env.agent_iter():
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            legal = obs["action_mask"].nonzero()[0]
            env.step(int(legal[rng.randrange(len(legal))]))
            actions += 1
    return _now() - start, actions


def bench_pettingzoo_raw(deals: int, rng: random.Random) -> tuple[float, int]:
    return bench_pettingzoo(deals, rng, raw=True)


def bench_gymnasium(deals: int, rng: random.Random) -> tuple[float, int]:
    env = gym.make(marjolet.rl.gym.ENV_ID, opponent="random")
    actions = 0
    start = _now()
    for _ in range(deals):
        _, info = env.reset(seed=rng.getrandbits(32))
        done = False
        while not done:
            legal = info["legal_actions"]
            _, _, terminated, truncated, info = env.step(legal[rng.randrange(len(legal))])
            done = terminated or truncated
        actions += len(env.unwrapped.episode.deal.moves)  # type: ignore[attr-defined]
    return _now() - start, actions


def bench_openspiel(deals: int, rng: random.Random, with_obs: bool = False) -> tuple[float, int]:
    game = pyspiel.load_game(mo.GAME_NAME)
    actions = 0
    start = _now()
    for _ in range(deals):
        state = game.new_initial_state()
        for c in _decks(rng, 1)[0]:
            state.apply_action(c)
        while not state.is_terminal():
            if with_obs:
                state.observation_tensor(state.current_player())
            legal = state.legal_actions()
            state.apply_action(legal[rng.randrange(len(legal))])
            actions += 1
    return _now() - start, actions


def bench_openspiel_obs(deals: int, rng: random.Random) -> tuple[float, int]:
    return bench_openspiel(deals, rng, with_obs=True)


def bench_gymnasium_steps(deals: int, rng: random.Random) -> tuple[float, int]:
    env = gym.make(marjolet.rl.gym.ENV_ID, opponent="random")
    steps = 0
    start = _now()
    while steps < deals * STEPS_PER_DEAL:
        _, info = env.reset(seed=rng.getrandbits(32))
        done = False
        while not done:
            legal = info["legal_actions"]
            _, _, terminated, truncated, info = env.step(legal[rng.randrange(len(legal))])
            done = terminated or truncated
            steps += 1
    return _now() - start, steps


def _vector_loop(envs: Any, deals: int, rng: random.Random) -> tuple[float, int]:
    """Uniform legal actions for the whole batch until the step budget.

    Only the rows with a decision count as agent steps: in the default
    autoreset mode a row whose episode ended in the step before has an
    all-zero mask, and its action only starts the next episode (about one
    row in twenty)."""
    gen = np.random.default_rng(rng.getrandbits(32))
    _, infos = envs.reset(seed=rng.getrandbits(32))  # set-up, like load_game: not timed
    start = _now()
    steps = 0
    n = envs.num_envs
    while steps < deals * STEPS_PER_DEAL * FAST:
        mask = infos["action_mask"]  # with copy=False, the buffer the step rewrites
        decided = int(np.count_nonzero(mask.any(axis=1)))
        noise = gen.random((n, 46), dtype=np.float32)
        actions = np.argmax(noise * mask, axis=1)
        _, _, _, _, infos = envs.step(actions)
        steps += decided
    return _now() - start, steps


def bench_vector_random(deals: int, rng: random.Random) -> tuple[float, int]:
    return _vector_loop(MarjoletVectorEnv(BATCH, opponent="random", copy=False), deals, rng)


def bench_vector_heuristic(deals: int, rng: random.Random) -> tuple[float, int]:
    return _vector_loop(MarjoletVectorEnv(BATCH, opponent="heuristic", copy=False), deals, rng)


def bench_selfplay(deals: int, rng: random.Random) -> tuple[float, int]:
    return _vector_loop(MarjoletSelfPlayVectorEnv(BATCH, copy=False), deals, rng)


def bench_leduc(deals: int, rng: random.Random) -> tuple[float, int]:
    game = pyspiel.load_game("leduc_poker")
    steps = 0
    start = _now()
    while steps < deals * STEPS_PER_DEAL * FAST:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(outcomes[rng.randrange(len(outcomes))][0])
                continue
            state.information_state_tensor(state.current_player())
            legal = state.legal_actions()
            state.apply_action(legal[rng.randrange(len(legal))])
            steps += 1
    return _now() - start, steps


AGENT_BENCHES: dict[str, Bench] = {
    "gymnasium": bench_gymnasium_steps,
    "vector-random": bench_vector_random,
    "vector-heuristic": bench_vector_heuristic,
    "selfplay": bench_selfplay,
    "leduc": bench_leduc,
}

BENCHES: dict[str, Bench] = {
    "engine": bench_engine,
    "engine+obs": bench_engine_obs,
    "pettingzoo": bench_pettingzoo,
    "pettingzoo-raw": bench_pettingzoo_raw,
    "gymnasium": bench_gymnasium,
    "openspiel": bench_openspiel,
    "openspiel+obs": bench_openspiel_obs,
}


def _medians(benches: dict[str, Bench], rounds: int, deals: int,
             rng: random.Random) -> dict[str, float]:  # fmt: skip
    rates: dict[str, list[float]] = {name: [] for name in benches}
    for _ in range(rounds):
        for name, bench in benches.items():  # interleaved: load changes hit all alike
            seconds, count = bench(deals, rng)
            rates[name].append(count / seconds)
    return {name: statistics.median(r) for name, r in rates.items()}


def run(rounds: int, deals: int, seed: int, only: str = "all") -> dict[str, Any]:
    """Median actions/s per adapter (and the ratio to the raw engine), and
    median agent steps/s (and the ratio to OpenSpiel's leduc_poker)."""
    rng = random.Random(seed)
    out: dict[str, Any] = {"rounds": rounds, "deals_per_round": deals}
    if only in ("all", "actions"):
        medians = _medians(BENCHES, rounds, deals, rng)
        base = medians["engine"]
        out["actions_per_s"] = {name: round(v) for name, v in medians.items()}
        out["relative_to_engine"] = {name: round(v / base, 3) for name, v in medians.items()}
        out["gymnasium_agent_steps_per_s"] = round(medians["gymnasium"] / 2)
    if only in ("all", "agent"):
        steps = _medians(AGENT_BENCHES, rounds, deals, rng)
        leduc = steps["leduc"]
        out["agent_steps_per_s"] = {name: round(v) for name, v in steps.items()}
        out["relative_to_leduc"] = {name: round(v / leduc, 2) for name, v in steps.items()}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--deals", type=int, default=200, help="deals per adapter per round")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--clock", choices=("wall", "cpu"), default="wall")
    parser.add_argument("--only", choices=("all", "actions", "agent"), default="all")
    parser.add_argument("--json", action="store_true", help="print JSON only")
    args = parser.parse_args()
    for flag, value in (("--rounds", args.rounds), ("--deals", args.deals)):
        if value < 1:
            parser.error(f"{flag} must be >= 1, got {value}")
    CLOCK[0] = time.process_time if args.clock == "cpu" else time.perf_counter
    result = run(args.rounds, args.deals, args.seed, args.only)
    if args.json:
        print(json.dumps(result))
        return
    if "actions_per_s" in result:
        print(f"actions/s, median of {args.rounds} rounds of {args.deals} random deals each")
        for name, rate in result["actions_per_s"].items():
            rel = result["relative_to_engine"][name]
            print(f"  {name:14s} {rate:>9,d}  ({rel:.3f} x engine)")
        print(f"  gymnasium agent steps/s: about {result['gymnasium_agent_steps_per_s']:,d}")
    if "agent_steps_per_s" in result:
        print(f"agent steps/s ({args.clock} clock), median of {args.rounds} rounds")
        for name, rate in result["agent_steps_per_s"].items():
            rel = result["relative_to_leduc"][name]
            print(f"  {name:16s} {rate:>11,d}  ({rel:.2f} x leduc)")


if __name__ == "__main__":
    main()
