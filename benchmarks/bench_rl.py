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
import pyspiel  # type: ignore[import-not-found,unused-ignore]

import marjolet.rl.gym
from marjolet.cards import shuffled_deck
from marjolet.engine import Deal
from marjolet.observation import observe
from marjolet.rl import marjolet_v0
from marjolet.rl import openspiel as mo
from marjolet.rl.encoder import encode

Bench = Callable[[int, random.Random], tuple[float, int]]


def _decks(rng: random.Random, n: int) -> list[list[int]]:
    return [shuffled_deck(rng) for _ in range(n)]


def bench_engine(deals: int, rng: random.Random, with_obs: bool = False) -> tuple[float, int]:
    decks = _decks(rng, deals)
    actions = 0
    start = time.perf_counter()
    for i, deck in enumerate(decks):
        deal = Deal(deck, i & 1)
        legal = deal.legal_actions()
        while legal:
            if with_obs:
                encode(observe(deal, deal.to_move))
            deal.push(legal[rng.randrange(len(legal))])
            actions += 1
            legal = deal.legal_actions()
    return time.perf_counter() - start, actions


def bench_engine_obs(deals: int, rng: random.Random) -> tuple[float, int]:
    return bench_engine(deals, rng, with_obs=True)


def bench_pettingzoo(deals: int, rng: random.Random, raw: bool = False) -> tuple[float, int]:
    env = marjolet_v0.raw_env() if raw else marjolet_v0.env()
    actions = 0
    start = time.perf_counter()
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
    return time.perf_counter() - start, actions


def bench_pettingzoo_raw(deals: int, rng: random.Random) -> tuple[float, int]:
    return bench_pettingzoo(deals, rng, raw=True)


def bench_gymnasium(deals: int, rng: random.Random) -> tuple[float, int]:
    env = gym.make(marjolet.rl.gym.ENV_ID, opponent="random")
    actions = 0
    start = time.perf_counter()
    for _ in range(deals):
        _, info = env.reset(seed=rng.getrandbits(32))
        done = False
        while not done:
            legal = info["legal_actions"]
            _, _, terminated, truncated, info = env.step(legal[rng.randrange(len(legal))])
            done = terminated or truncated
        actions += len(env.unwrapped.episode.deal.moves)  # type: ignore[attr-defined]
    return time.perf_counter() - start, actions


def bench_openspiel(deals: int, rng: random.Random, with_obs: bool = False) -> tuple[float, int]:
    game = pyspiel.load_game(mo.GAME_NAME)
    actions = 0
    start = time.perf_counter()
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
    return time.perf_counter() - start, actions


def bench_openspiel_obs(deals: int, rng: random.Random) -> tuple[float, int]:
    return bench_openspiel(deals, rng, with_obs=True)


BENCHES: dict[str, Bench] = {
    "engine": bench_engine,
    "engine+obs": bench_engine_obs,
    "pettingzoo": bench_pettingzoo,
    "pettingzoo-raw": bench_pettingzoo_raw,
    "gymnasium": bench_gymnasium,
    "openspiel": bench_openspiel,
    "openspiel+obs": bench_openspiel_obs,
}


def run(rounds: int, deals: int, seed: int) -> dict[str, Any]:
    """Median actions/s per adapter (and the ratio to the raw engine)."""
    rng = random.Random(seed)
    rates: dict[str, list[float]] = {name: [] for name in BENCHES}
    for _ in range(rounds):
        for name, bench in BENCHES.items():  # interleaved: load changes hit all alike
            seconds, actions = bench(deals, rng)
            rates[name].append(actions / seconds)
    medians = {name: statistics.median(r) for name, r in rates.items()}
    base = medians["engine"]
    return {
        "rounds": rounds,
        "deals_per_round": deals,
        "actions_per_s": {name: round(v) for name, v in medians.items()},
        "relative_to_engine": {name: round(v / base, 3) for name, v in medians.items()},
        "gymnasium_agent_steps_per_s": round(medians["gymnasium"] / 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--deals", type=int, default=200, help="deals per adapter per round")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="print JSON only")
    args = parser.parse_args()
    result = run(args.rounds, args.deals, args.seed)
    if args.json:
        print(json.dumps(result))
        return
    print(f"actions/s, median of {args.rounds} rounds of {args.deals} random deals each")
    for name, rate in result["actions_per_s"].items():
        rel = result["relative_to_engine"][name]
        print(f"  {name:14s} {rate:>9,d}  ({rel:.3f} x engine)")
    print(f"  gymnasium agent steps/s: about {result['gymnasium_agent_steps_per_s']:,d}")


if __name__ == "__main__":
    main()
