"""Gymnasium environment ``marjolet/SingleAgent-v0``: one seat against a bot.

>>> import gymnasium as gym
>>> import marjolet.rl.gym  # registers marjolet/SingleAgent-v0
>>> env = gym.make("marjolet/SingleAgent-v0", opponent="heuristic", reward="dense")
>>> obs, info = env.reset(seed=1)
>>> obs, reward, terminated, truncated, info = env.step(int(info["legal_actions"][0]))

(``gym.make("marjolet.rl.gym:marjolet/SingleAgent-v0")`` imports and
registers in one go.)

- The agent plays ``seat`` (0, 1, or ``None``: drawn at random each episode);
  the opponent is any bot spec of :func:`marjolet.bots.make_bot`
  (``"random"``, ``"heuristic"``, ``"pimc:worlds=32"``...), a
  :class:`~marjolet.bots.base.Bot` instance, or a callable
  ``opponent(observation, legal) -> action`` (self-play: a copy of the
  policy being trained); a bot is reseeded each episode, and the opponent
  plays until it is the agent's turn again.
- Observation: the shared tensor of :mod:`marjolet.rl.encoder` (a ``Box``;
  table in ``docs/rl.md``). ``info["action_mask"]`` (``int8``, 46 entries)
  and ``info["legal_actions"]`` give the legal ids; :meth:`action_masks`
  serves the same mask to maskable learners (sb3-contrib's convention).
- Actions: ``Discrete(46)``, the engine's stable ids.
- Rewards: ``reward="deal"`` (default), ``"dense"`` or ``"match"`` as in
  :mod:`marjolet.rl.episode`, from the agent's side.
- Illegal actions: ``illegal_action="lose"`` (default, what standard tools
  such as ``check_env`` expect, like PettingZoo's ``TerminateIllegalWrapper``)
  ends the episode with the worst reward (minus the largest possible deal
  score; -1 in ``match`` episodes) and ``info["illegal_action"]`` citing the
  rule; ``"raise"`` raises :class:`~marjolet.errors.IllegalActionError`
  instead.
- ``render_mode="ansi"`` returns the table as text, ``"human"`` prints it.
- Environments pickle and deep-copy, seeded or not.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, SupportsIndex

import gymnasium
import numpy as np
from gymnasium import spaces

from marjolet.actions import ACTION_NAMES
from marjolet.bots import make_bot
from marjolet.bots.base import Bot
from marjolet.errors import IllegalActionError, MarjoletError
from marjolet.observation import Observation
from marjolet.rl.encoder import (
    NUM_ACTIONS,
    OBSERVATION_SIZE,
    FloatArray,
    MaskArray,
    action_mask,
    encode,
    observation_high,
)
from marjolet.rl.episode import (
    Episode,
    SeedStream,
    action_id,
    max_deal_score,
    reward_arg,
    rules_arg,
    seed_value,
)
from marjolet.rules import Rules

ENV_ID = "marjolet/SingleAgent-v0"
ILLEGAL_MODES = ("lose", "raise")
#: What ``opponent=`` takes: a bot spec, a bot, or ``f(observation, legal) -> action``.
#: The callable may answer any integer type (an int, a numpy integer).
Opponent = str | Bot | Callable[[Observation, Sequence[int]], SupportsIndex]


class CallableBot(Bot):
    """A callable ``f(observation, legal) -> action`` as a bot."""

    name = "callable"
    description = "a function of the observation and the legal actions"

    def __init__(self, fn: Callable[[Observation, Sequence[int]], SupportsIndex]) -> None:
        super().__init__(seed=0)
        self.fn = fn

    def choose(self, obs: Observation, legal: Sequence[int]) -> int:
        # An answer that is no action id (a card's name, None, a float, which
        # int() would round) is the opponent's fault, named as such.
        try:
            return action_id(self.fn(obs, legal))
        except MarjoletError as exc:
            raise MarjoletError(f"the opponent ({self.spec}) broke the rules: {exc}") from None

    @property
    def spec(self) -> str:
        return f"callable {getattr(self.fn, '__name__', type(self.fn).__name__)}"


def opponent_bot(opponent: Opponent) -> Bot:
    """The bot behind ``opponent=`` (a spec is checked now)."""
    if isinstance(opponent, str):
        return make_bot(opponent, seed=0)
    if isinstance(opponent, Bot):
        return opponent
    if callable(opponent):
        return CallableBot(opponent)
    raise MarjoletError(
        f"opponent must be a bot spec, a Bot or a callable, got {type(opponent).__name__}"
    )


def check_agent_args(seat: int | None, illegal_action: str) -> None:
    """``seat=`` and ``illegal_action=`` of the single and batched environments."""
    if seat not in (None, 0, 1):
        raise MarjoletError(f"seat must be 0, 1 or None (random each episode), got {seat!r}")
    if illegal_action not in ILLEGAL_MODES:
        raise MarjoletError(f"illegal_action must be 'lose' or 'raise', got {illegal_action!r}")


class SingleAgentEnv(gymnasium.Env[FloatArray, np.int64]):
    """One seat of Marjolet against a bot (see the module docstring)."""

    metadata: dict[str, Any] = {"render_modes": ["ansi", "human"], "render_fps": 1}  # noqa: RUF012

    def __init__(
        self,
        opponent: Opponent = "random",
        rules: Rules | str | Mapping[str, Any] | None = None,
        seat: int | None = None,
        reward: str = "deal",
        illegal_action: str = "lose",
        render_mode: str | None = None,
    ) -> None:
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise MarjoletError(
                f"render_mode must be None, 'ansi' or 'human', got {render_mode!r}"
            )
        check_agent_args(seat, illegal_action)
        self.rules = rules_arg(rules)
        self.reward_mode = reward_arg(reward)
        self.illegal_action = illegal_action
        self.render_mode = render_mode
        self.opponent: Bot = opponent_bot(opponent)
        #: a bot built here from a spec is this environment's to close
        self.owns_opponent = isinstance(opponent, str)
        self.opponent_spec = self.opponent.spec
        self.fixed_seat = seat
        self.seat = 0 if seat is None else seat
        high = observation_high(self.rules)
        self.observation_space = spaces.Box(0.0, high, (OBSERVATION_SIZE,), np.float32)
        self.action_space = spaces.Discrete(NUM_ACTIONS)
        self._seeds = SeedStream()
        self._episode: Episode | None = None
        self._log: list[str] = []
        self._pending = 0.0
        self._closed = False

    @property
    def episode(self) -> Episode:
        """The episode in progress (its ``match`` and ``deal``)."""
        return self._need("using the environment")

    def _need(self, call: str) -> Episode:
        """The episode in progress, or the one line that says why ``call``
        cannot be made (closed, or never reset)."""
        if self._closed:
            raise MarjoletError("the environment is closed: make a new one")
        if self._episode is None:
            raise MarjoletError(f"call reset() before {call}")
        return self._episode

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[FloatArray, dict[str, Any]]:
        if self._closed:
            raise MarjoletError("the environment is closed: make a new one")
        seed = None if seed is None else seed_value(seed)  # a numpy integer as an int
        self._seeds.reseed(seed)
        super().reset(seed=seed)
        match_seed = self._seeds.next()
        bot_seed = self._seeds.next()
        seat_draw = self._seeds.next()
        self.seat = self.fixed_seat if self.fixed_seat is not None else seat_draw & 1
        self.opponent.new_match(bot_seed)
        self._episode = Episode(self.rules, self.reward_mode, match_seed)
        self._log = []
        # points the opponent scored before our first move (dense rewards: a seven led, R19)
        self._pending = self._opponent_moves()
        return self._observation(), self._info()

    def close(self) -> None:
        """Release the opponent built from a spec (an ``exec:`` program ends
        now, not when the environment is collected); a bot passed in is
        the caller's to close. The environment steps no more."""
        if self.owns_opponent and not self._closed:
            self.opponent.close()
        self._closed = True
        super().close()

    def reseed(self, seed: int) -> None:
        """Seed the stream of later episodes as ``reset(seed=seed)`` would,
        without starting one (the Python batch of :mod:`marjolet.rl.vector`)."""
        self._seeds.reseed(seed)

    def step(self, action: Any) -> tuple[FloatArray, float, bool, bool, dict[str, Any]]:
        episode = self._need("step()")
        if episode.done:
            raise MarjoletError("the episode is over: call reset()")
        a = action_id(action)
        refused = episode.driver.refusal(a, episode.driver.version, self.seat)
        if refused is not None:
            if self.illegal_action == "raise":
                raise refused
            episode.done = True
            worst = -1.0 if self.reward_mode == "match" else -float(max_deal_score(self.rules))
            info = self._info()
            info["illegal_action"] = str(refused)
            return self._observation(), worst, True, False, info
        reward = self._pending + self._play(a)
        self._pending = 0.0
        if not episode.done:
            reward += self._opponent_moves()
        return self._observation(), reward, episode.done, False, self._info()

    def action_masks(self) -> MaskArray:
        """The legal-action mask (for maskable learners)."""
        self._need("action_masks()")
        return action_mask(self._legal())

    def render(self) -> str | None:
        if self.render_mode == "human":
            print(self._table_text())
            return None
        if self.render_mode is None:
            gymnasium.logger.warn("render() without a render_mode (use render_mode='ansi')")
            return None
        return self._table_text()

    def _table_text(self) -> str:
        if self._episode is None:
            return "(no deal: call reset())"
        match = self._episode.match
        deal = self._episode.deal
        t0, t1 = match.running_totals
        lines = [
            f"you are player {self.seat} against {self.opponent_spec}; deal {match.deal_index}, "
            f"running totals {t0}-{t1}",
            str(deal),
        ]
        if self._log:
            lines.append("last: " + " ".join(self._log[-6:]))
        return "\n".join(lines)

    # -- internals ---------------------------------------------------------------

    def _play(self, action: int) -> float:
        episode = self.episode
        mover = episode.deal.to_move
        rewards = episode.play(action)
        self._log.append(f"p{mover}:{ACTION_NAMES[action]}")
        return rewards[self.seat]

    def _opponent_moves(self) -> float:
        """Let the opponent act until it is the agent's turn or the episode ends."""
        episode = self.episode
        total = 0.0
        bot = self.opponent
        while episode.to_move not in (None, self.seat):
            turn = episode.turn()
            assert turn is not None
            episode.driver.brief(bot, turn)
            action = bot.choose(turn.observation, list(turn.legal))
            try:
                total += self._play(action)  # checked once, by the turn driver
            except IllegalActionError as exc:  # the opponent's fault, not the agent's
                who = f"the opponent ({self.opponent_spec})"
                raise MarjoletError(f"{who} broke the rules: {exc}") from None
        return total

    def _legal(self) -> list[int]:
        return self.episode.legal(self.seat)

    def observation(self) -> Observation:
        """The agent's view of the position as an :class:`Observation`, the
        object the observation tensor encodes: what a teacher bot's
        ``choose``, ``hint`` or the review take (imitation learning)."""
        return self._need("observation()").match.observation(self.seat)

    def _observation(self) -> FloatArray:
        return encode(self.observation())

    def _info(self) -> dict[str, Any]:
        legal = self._legal()
        episode = self.episode
        info: dict[str, Any] = {
            "action_mask": action_mask(legal),
            "legal_actions": legal,
            "seat": self.seat,
        }
        if episode.done:
            match = episode.match
            me = self.seat
            info["deal_points"] = (episode.deal.points[me], episode.deal.points[me ^ 1])
            info["totals"] = (match.totals[me], match.totals[me ^ 1])
            info["match_winner"] = None if match.winner is None else match.winner == me
        return info


gymnasium.register(
    id=ENV_ID,
    entry_point="marjolet.rl.gym:SingleAgentEnv",
    vector_entry_point="marjolet.rl.vector:MarjoletVectorEnv",
)
