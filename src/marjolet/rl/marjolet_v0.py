"""PettingZoo AEC environment ``marjolet_v0``.

>>> from marjolet.rl import marjolet_v0
>>> env = marjolet_v0.env(rules="classic", render_mode="ansi", reward="deal")
>>> env.reset(seed=42)
>>> for agent in env.agent_iter():
...     obs, reward, terminated, truncated, info = env.last()
...     done = terminated or truncated
...     env.step(None if done else env.action_space(agent).sample(obs["action_mask"]))

- Agents ``player_0`` and ``player_1`` are the engine's players 0 and 1; the
  agent to act is ``player_{deal.to_move}``, so the winner of a trick acts
  several times in a row in its meld window.
- Observation: a dict with ``observation`` (the shared tensor of
  :mod:`marjolet.rl.encoder`, seen from the agent's seat; table in
  ``docs/rl.md``) and ``action_mask`` (``int8``, 46 entries, all zero when
  the agent is not to act).
- Actions: ``Discrete(46)``, the engine's stable ids. An illegal action
  raises :class:`~marjolet.errors.IllegalActionError` citing the rule.
- Rewards: ``reward="deal"`` (default), ``"dense"`` or ``"match"``, see
  :mod:`marjolet.rl.episode`. Each episode's dealer is drawn from the seeded
  generator (R3); in ``match`` episodes the dealer then alternates.
- ``render_mode="ansi"``: :meth:`render` returns the whole table as text
  (both hands: it is the referee's view, not a player's); ``"human"``
  prints it.
- ``max_cycles``: with an integer, the episode is truncated (every agent's
  ``truncation`` set, no reward) once that many actions were played in it;
  ``None`` (default): no limit (a deal ends within 67 actions, a match
  within a few hundred, though R22 has no bound while totals tie).
- No ``parallel_env``: one player acts at a time, often several times in a
  row (the meld window), so PettingZoo's parallel API would give the other
  agent a dummy action at every step and ``aec_to_parallel`` does not apply
  (``is_parallelizable`` is false). Batched play of both seats is
  :class:`marjolet.rl.vector.MarjoletSelfPlayVectorEnv`.
- Environments pickle and deep-copy, seeded or not.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from gymnasium.logger import warn
from pettingzoo import AECEnv  # type: ignore[import-untyped]
from pettingzoo.utils import wrappers  # type: ignore[import-untyped]

from marjolet.actions import ACTION_NAMES
from marjolet.errors import MarjoletError
from marjolet.rl.encoder import NUM_ACTIONS, OBSERVATION_SIZE, action_mask, encode, observation_high
from marjolet.rl.episode import Episode, SeedStream, action_id, reward_arg, rules_arg
from marjolet.rules import Rules

AGENTS = ("player_0", "player_1")


def seat_of(agent: str) -> int:
    """The seat of an agent's name; a clear error for any other name.

    >>> seat_of("player_1")
    1
    >>> try:
    ...     seat_of("player_2")
    ... except ValueError as error:
    ...     print(error)
    unknown agent 'player_2': the agents are 'player_0' and 'player_1'
    """
    if agent in AGENTS:
        return AGENTS.index(agent)
    raise MarjoletError(f"unknown agent {agent!r}: the agents are {AGENTS[0]!r} and {AGENTS[1]!r}")


def env(**kwargs: Any) -> Any:
    """The environment with PettingZoo's standard checks (order enforcing,
    action bounds). Keyword arguments as for :class:`raw_env`."""
    e = raw_env(**kwargs)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    e = wrappers.OrderEnforcingWrapper(e)
    return e


class raw_env(AECEnv):  # type: ignore[misc]
    """Marjolet as a PettingZoo AEC environment (see the module docstring)."""

    metadata: ClassVar[dict[str, Any]] = {
        "name": "marjolet_v0",
        "render_modes": ["ansi", "human"],
        "is_parallelizable": False,
        "render_fps": 1,
    }

    def __init__(
        self,
        rules: Rules | str | Mapping[str, Any] | None = None,
        render_mode: str | None = None,
        reward: str = "deal",
        max_cycles: int | None = None,
    ) -> None:
        super().__init__()
        if max_cycles is not None and (
            isinstance(max_cycles, bool) or not isinstance(max_cycles, int) or max_cycles < 1
        ):
            raise MarjoletError(
                f"max_cycles must be a positive integer or None, got {max_cycles!r}"
            )
        self.max_cycles = max_cycles
        self._cycles = 0
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise MarjoletError(
                f"render_mode must be None, 'ansi' or 'human', got {render_mode!r}"
            )
        self.rules = rules_arg(rules)
        self.reward_mode = reward_arg(reward)
        self.render_mode = render_mode
        self.possible_agents = list(AGENTS)
        high = observation_high(self.rules)
        self._observation_spaces = {
            a: spaces.Dict(
                {
                    "observation": spaces.Box(0.0, high, (OBSERVATION_SIZE,), np.float32),
                    "action_mask": spaces.Box(0, 1, (NUM_ACTIONS,), np.int8),
                }
            )
            for a in AGENTS
        }
        self._action_spaces = {a: spaces.Discrete(NUM_ACTIONS) for a in AGENTS}
        self._seeds = SeedStream()
        self._episode: Episode | None = None
        self._last_action: tuple[int, int] | None = None

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self._observation_spaces[AGENTS[seat_of(agent)]]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self._action_spaces[AGENTS[seat_of(agent)]]

    @property
    def episode(self) -> Episode:
        """The episode in progress (its ``match`` and ``deal``); for tools and tests."""
        if self._episode is None:
            raise MarjoletError("call reset() before using the environment")
        return self._episode

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        self._seeds.reseed(seed)
        self._episode = Episode(self.rules, self.reward_mode, self._seeds.next())
        self._last_action = None
        self._cycles = 0
        self.agents = list(AGENTS)
        self.rewards = {a: 0.0 for a in AGENTS}
        self._cumulative_rewards = {a: 0.0 for a in AGENTS}
        self.terminations = {a: False for a in AGENTS}
        self.truncations = {a: False for a in AGENTS}
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in AGENTS}
        self.agent_selection = AGENTS[self._episode.deal.to_move]

    def observe(self, agent: str) -> dict[str, Any]:
        episode = self.episode
        seat = seat_of(agent)
        obs = encode(episode.match.observation(seat))
        return {"observation": obs, "action_mask": action_mask(episode.legal(seat))}

    def step(self, action: Any) -> None:
        episode = self.episode  # refuses a step before reset()
        if not self.agents:
            raise MarjoletError("the episode is over: call reset()")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        seat = AGENTS.index(agent)
        self._cumulative_rewards[agent] = 0.0
        a = action_id(action)
        r0, r1 = episode.play(a)  # raises IllegalActionError citing the rule
        self._last_action = (seat, a)
        self.rewards = {AGENTS[0]: r0, AGENTS[1]: r1}
        if episode.done:
            self.terminations = {a_: True for a_ in AGENTS}
            match = episode.match
            for i, name in enumerate(AGENTS):
                self.infos[name] = {
                    "deal_points": episode.deal.points[i],
                    "totals": match.totals[i],
                    "winner": match.winner,
                }
        else:
            self.agent_selection = AGENTS[episode.deal.to_move]
            self._cycles += 1
            if self.max_cycles is not None and self._cycles >= self.max_cycles:
                self.truncations = {a_: True for a_ in AGENTS}
                for name in AGENTS:
                    self.infos[name] = {"truncated_after": self._cycles}
        self._accumulate_rewards()

    def render(self) -> str | None:
        if self.render_mode == "human":
            print(self._table_text())
            return None
        if self.render_mode is None:
            warn("You are calling render() without a render_mode (use render_mode='ansi').")
            return None
        return self._table_text()

    def _table_text(self) -> str:
        if self._episode is None:
            return "(no deal: call reset())"
        episode = self._episode
        match = episode.match
        deal = episode.deal
        t0, t1 = match.running_totals
        lines = [f"deal {match.deal_index}, dealer player_{deal.dealer}, running totals {t0}-{t1}"]
        lines.append(str(deal))
        if self._last_action is not None:
            seat, a = self._last_action
            lines.append(f"last: player_{seat} {ACTION_NAMES[a]}")
        if deal.is_over:
            p0, p1 = deal.points
            lines.append(f"deal over: {p0}-{p1}")
        if match.is_over:
            lines.append(f"match over: player_{match.winner} wins")
        return "\n".join(lines)

    def close(self) -> None:
        self._episode = None


__all__ = ["AGENTS", "env", "raw_env"]
