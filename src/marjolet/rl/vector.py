"""Batched environments: a whole batch of episodes steps in C.

>>> import numpy as np
>>> from marjolet.rl.vector import MarjoletVectorEnv
>>> envs = MarjoletVectorEnv(256, opponent="heuristic", reward="dense", seed=1)
>>> obs, infos = envs.reset()
>>> actions = np.argmax(infos["action_mask"], axis=1)  # the first legal action of each
>>> obs, rewards, terminated, truncated, infos = envs.step(actions)

- :class:`MarjoletVectorEnv` is a ``gymnasium.vector.VectorEnv`` of
  ``num_envs`` copies of :class:`marjolet.rl.gym.SingleAgentEnv` (one agent
  seat against ``random`` or ``heuristic``): the same observation tensor
  (:mod:`marjolet.rl.encoder`), action ids, reward modes, seat draw and
  seeding, to the bit. The opponent's moves, the draws, the tensor (written
  into one preallocated ``float32`` array) and the legal-action mask
  (``infos["action_mask"]``) are computed by the C kernel for the whole
  batch in one call.
- :class:`MarjoletSelfPlayVectorEnv`: both seats are agents (self-play for
  AlphaZero-, NFSP- or DMC-style training): each row is the player to act,
  ``infos["seat"]`` says which, and rewards come for both seats
  (``(num_envs, 2)``), as :mod:`marjolet.rl.marjolet_v0` pays them.
- Autoreset: ``autoreset_mode`` is one of Gymnasium's three
  (:class:`gymnasium.vector.AutoresetMode`), stated in
  ``metadata["autoreset_mode"]``; see ``docs/rl.md``.
- Without the kernel (not built, ``MARJOLET_KERNEL=0``, rules it does not
  cover, or another opponent: any bot spec, :class:`~marjolet.bots.base.Bot`
  or callable) the same batch runs in Python, with the same results, slowly.

Seeding follows Gymnasium: ``reset(seed=s)`` seeds environment ``i`` with
``s + i`` (a list gives one seed each), so environment ``i`` plays exactly
what ``SingleAgentEnv.reset(seed=s + i)`` and the resets after it play;
``seed=`` at construction does the same for the first reset. Unseeded
streams start from 128 bits of the operating system's strong source.
"""

from __future__ import annotations

import copy
import operator
import secrets
from collections.abc import Mapping, Sequence
from typing import Any, Protocol, Self

import gymnasium
import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from marjolet import kernel
from marjolet.actions import ACTION_NAMES
from marjolet.bots.base import Bot
from marjolet.errors import IllegalActionError, MarjoletError
from marjolet.rl.encoder import NUM_ACTIONS, OBSERVATION_SIZE, encode, observation_high
from marjolet.rl.episode import (
    REWARD_MODES,
    Episode,
    SeedStream,
    max_deal_score,
    reward_arg,
    rules_arg,
    seed_value,
)
from marjolet.rl.gym import Opponent, SingleAgentEnv, check_agent_args
from marjolet.rules import Rules

#: Opponents the kernel plays (exact spec strings); others run in Python.
KERNEL_OPPONENTS = ("random", "heuristic")
_AUTORESET = (AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP, AutoresetMode.DISABLED)
_OPP_NONE = 2
_MAX_TARGET = 1_000_000_000
#: The most environments a batch takes.
MAX_ENVS = 1 << 20

Seeds = int | Sequence[int | None] | npt.NDArray[np.integer[Any]] | None


def autoreset_arg(mode: AutoresetMode | str) -> AutoresetMode:
    """An :class:`AutoresetMode` from itself or its value/name
    (``"NextStep"``, ``"next_step"``...)."""
    if isinstance(mode, AutoresetMode):
        return mode
    if isinstance(mode, str):
        for m in _AUTORESET:
            if mode in (m.value, m.name, m.name.lower()):
                return m
    names = ", ".join(m.name.lower() for m in _AUTORESET)
    raise MarjoletError(f"autoreset_mode must be one of {names}, got {mode!r}")


def seed_key(seed: Any) -> bytes:
    """``random.Random(seed)``'s key for the kernel: the words of ``seed``
    (0 or more, :func:`~marjolet.rl.episode.seed_value`), 32 bits each,
    little-endian (CPython's ``random_seed``)."""
    value = seed_value(seed)
    words = max(1, (value.bit_length() + 31) // 32)
    if words > 1024:
        raise MarjoletError("seed must be below 2**32768")
    return value.to_bytes(4 * words, "little")


class _Buffers:
    """The arrays every backend writes (one row per environment)."""

    def __init__(self, n: int, width: int) -> None:
        self.actions = np.zeros(n, np.int64)
        self.obs = np.zeros((n, OBSERVATION_SIZE), np.float32)
        self.mask = np.zeros((n, NUM_ACTIONS), np.int8)
        self.reward = np.zeros((n, width) if width > 1 else n, np.float64)
        self.terminated = np.zeros(n, np.bool_)
        self.seat = np.zeros(n, np.int8)
        self.final_obs = np.zeros((n, OBSERVATION_SIZE), np.float32)
        self.final_seat = np.zeros(n, np.int8)
        self.deal_points = np.zeros((n, 2), np.int32)
        self.totals = np.zeros((n, 2), np.int32)
        self.winner = np.zeros(n, np.int8)
        self.illegal = np.zeros(n, np.bool_)

    def as_tuple(self) -> tuple[npt.NDArray[Any], ...]:
        return (
            self.actions, self.obs, self.mask, self.reward, self.terminated, self.seat,
            self.final_obs, self.final_seat, self.deal_points, self.totals, self.winner,
            self.illegal,
        )  # fmt: skip


class _Backend(Protocol):
    def seed(self, i: int, seed: int) -> None: ...
    def reset(self, i: int) -> None: ...
    def step(self) -> int:
        """The first refused environment (nothing moved), else -1 - the
        number of episodes that ended in the step."""
        ...
    def refusal(self, i: int, action: int) -> MarjoletError: ...
    def close(self) -> None:
        """Release the opponents' programs, if any."""


# -- the kernel backend -------------------------------------------------------------


class _KernelBackend:
    """The batch in C (``_kernel.VecEnv``), writing into the buffers."""

    def __init__(self, n: int, rules: Rules, reward: str, opponent: int, seat: int | None,
                 autoreset: AutoresetMode, raise_illegal: bool, worst: float,
                 buffers: _Buffers) -> None:  # fmt: skip
        self.rules = rules
        self.vec = kernel.KERNEL.VecEnv(
            n,
            kernel.rules_tuple(rules),
            rules.target,
            REWARD_MODES.index(reward),
            opponent,
            -1 if seat is None else seat,
            _AUTORESET.index(autoreset),
            raise_illegal,
            worst,
            buffers.as_tuple(),
        )

    def close(self) -> None:
        """The kernel's opponents are in C: nothing to end."""

    def __reduce_ex__(self, protocol: Any) -> Any:
        """Refused in one line: the episodes' state (decks, generators) lives
        in C, which has no way to write it out."""
        raise TypeError(
            "a batch stepped by the C kernel cannot be pickled or copied: build a new one "
            "from the same arguments where it is needed (use_kernel=False gives a Python "
            "batch, which pickles when its opponent does)"
        )

    def seed(self, i: int, seed: int) -> None:
        self.vec.seed(i, seed_key(seed))

    def reset(self, i: int) -> None:
        self.vec.reset(i)

    def step(self) -> int:
        return int(self.vec.step())

    def refusal(self, i: int, action: int) -> MarjoletError:
        _, _, deal, done, needs_reset, _ = self.vec.slot(i)
        if done and not needs_reset:
            return _finished(i)
        legal = deal.legal_actions()
        return _illegal(i, action, legal)


def _finished(i: int) -> MarjoletError:
    return MarjoletError(
        f"environment {i}: the episode is over; with autoreset_mode disabled, reset it "
        "with reset(options={'reset_mask': ...})"
    )


def _illegal(i: int, action: int, legal: Sequence[int]) -> IllegalActionError:
    name = ACTION_NAMES[action] if 0 <= action < NUM_ACTIONS else repr(action)
    allowed = " ".join(ACTION_NAMES[a] for a in legal)
    return IllegalActionError(
        f"environment {i}: illegal action {name} (legal: {allowed})", action=action
    )


# -- the Python backend -------------------------------------------------------------


class _Slot(Protocol):
    done: bool
    needs_reset: bool

    def seed(self, seed: int) -> None: ...
    def reset(self) -> None: ...
    def legal(self) -> list[int]: ...
    def play(self, action: int, row: npt.NDArray[np.float64] | Any, i: int) -> None: ...
    def view(self, obs: npt.NDArray[np.float32], mask: npt.NDArray[np.int8] | None) -> int: ...
    def end(self) -> tuple[tuple[int, int], tuple[int, int], int, bool]: ...
    def close(self) -> None: ...


class _AgentSlot:
    """One :class:`SingleAgentEnv` as a slot of the Python batch."""

    def __init__(self, env: SingleAgentEnv) -> None:
        self.env = env
        self.done = True
        self.needs_reset = False
        self._obs: npt.NDArray[np.float32] = np.zeros(OBSERVATION_SIZE, np.float32)
        self._info: dict[str, Any] = {}

    def seed(self, seed: int) -> None:
        self.env.reseed(seed)

    def close(self) -> None:
        self.env.close()

    def reset(self) -> None:
        self._obs, self._info = self.env.reset()
        self.done = self.needs_reset = False

    def legal(self) -> list[int]:
        return list(self._info["legal_actions"])

    def play(self, action: int, reward: Any, i: int) -> None:
        self._obs, r, terminated, _, self._info = self.env.step(action)
        reward[i] = r
        self.done = terminated

    def view(self, obs: npt.NDArray[np.float32], mask: npt.NDArray[np.int8] | None) -> int:
        obs[:] = self._obs
        if mask is not None:
            mask[:] = self._info["action_mask"]
        return int(self._info["seat"])

    def end(self) -> tuple[tuple[int, int], tuple[int, int], int, bool]:
        info = self._info
        won = info["match_winner"]
        return (
            info["deal_points"],
            info["totals"],
            -1 if won is None else int(won),
            "illegal_action" in info,
        )


class _SeatsSlot:
    """One two-seat episode (as :mod:`marjolet.rl.marjolet_v0` plays it)."""

    def __init__(self, rules: Rules, reward: str, worst: float) -> None:
        self.rules = rules
        self.reward = reward
        self.worst = worst
        self.seeds = SeedStream()
        self.episode: Episode | None = None
        self.done = True
        self.needs_reset = False
        self.last_mover = -1
        self.illegal = False

    def close(self) -> None:
        """Both seats are agents: nothing to end."""

    def seed(self, seed: int) -> None:
        self.seeds.reseed(seed)

    def reset(self) -> None:
        self.episode = Episode(self.rules, self.reward, self.seeds.next())
        self.done = self.needs_reset = self.illegal = False
        self.last_mover = -1

    def _episode(self) -> Episode:
        assert self.episode is not None
        return self.episode

    def legal(self) -> list[int]:
        turn = self._episode().turn()
        return [] if turn is None else list(turn.legal)

    def play(self, action: int, reward: Any, i: int) -> None:
        episode = self._episode()
        mover = episode.deal.to_move
        self.last_mover = mover
        if action not in self.legal():
            self.done = self.illegal = episode.done = True
            reward[i, mover] = self.worst
            reward[i, mover ^ 1] = -self.worst
            return
        reward[i] = episode.play(action)
        self.done = episode.done

    def view(self, obs: npt.NDArray[np.float32], mask: npt.NDArray[np.int8] | None) -> int:
        episode = self._episode()
        to_move = episode.deal.to_move
        seat = self.last_mover if self.done or to_move < 0 else to_move
        encode(episode.match.observation(seat), obs)
        if mask is not None:
            mask.fill(0)
            if not self.done and to_move == seat:
                mask[self.legal()] = 1
        return seat

    def end(self) -> tuple[tuple[int, int], tuple[int, int], int, bool]:
        episode = self._episode()
        match = episode.match
        winner = match.winner
        return episode.deal.points, match.totals, -1 if winner is None else winner, self.illegal


class _PythonBackend:
    """The batch in Python: the same steps as vecenv.c, slot by slot."""

    def __init__(self, slots: Sequence[_Slot], autoreset: AutoresetMode, raise_illegal: bool,
                 buffers: _Buffers) -> None:  # fmt: skip
        self.slots = list(slots)
        self.autoreset = autoreset
        self.raise_illegal = raise_illegal
        self.b = buffers

    def seed(self, i: int, seed: int) -> None:
        self.slots[i].seed(seed)

    def close(self) -> None:
        for slot in self.slots:
            slot.close()

    def reset(self, i: int) -> None:
        self.slots[i].reset()
        self._write(i)

    def _write(self, i: int) -> None:
        b = self.b
        b.seat[i] = self.slots[i].view(b.obs[i], b.mask[i])

    def refusal(self, i: int, action: int) -> MarjoletError:
        slot = self.slots[i]
        if slot.done:
            return _finished(i)
        return _illegal(i, action, slot.legal())

    def step(self) -> int:
        b = self.b
        actions = [int(a) for a in b.actions]
        for i, slot in enumerate(self.slots):
            if slot.needs_reset:
                continue
            if slot.done or (self.raise_illegal and actions[i] not in slot.legal()):
                return i
        ended = 0
        for i, slot in enumerate(self.slots):
            b.reward[i] = 0.0
            b.terminated[i] = b.illegal[i] = False
            if slot.needs_reset:
                self.reset(i)
                continue
            slot.play(actions[i], b.reward, i)
            if not slot.done:
                self._write(i)
                continue
            b.terminated[i] = True
            ended += 1
            points, totals, winner, illegal = slot.end()
            b.deal_points[i], b.totals[i] = points, totals
            b.winner[i], b.illegal[i] = winner, illegal
            if self.autoreset == AutoresetMode.SAME_STEP:
                b.final_seat[i] = slot.view(b.final_obs[i], None)
                self.reset(i)
            else:
                self._write(i)
                slot.needs_reset = self.autoreset == AutoresetMode.NEXT_STEP
        return -1 - ended


# -- the environments -----------------------------------------------------------------


class _Batch:
    """What both environments share: buffers, seeding, reset and step."""

    #: Set by ``close()`` (Gymnasium's attribute): a closed batch refuses to step.
    closed: bool = False

    num_envs: int
    autoreset_mode: AutoresetMode
    copy: bool
    single_observation_space: gymnasium.Space[Any]
    single_action_space: gymnasium.Space[Any]
    observation_space: gymnasium.Space[Any]
    action_space: gymnasium.Space[Any]

    def __copy__(self) -> Self:
        """A whole copy, as :func:`copy.deepcopy` gives: a shallow one would
        share the buffers and the episodes, so stepping either would move
        both. A batch stepped in C refuses in one line, as for deepcopy."""
        return copy.deepcopy(self)

    def _setup(self, num_envs: int, width: int, autoreset_mode: AutoresetMode | str,
               copy_: bool) -> None:  # fmt: skip
        ok = isinstance(num_envs, int) and not isinstance(num_envs, bool)
        if not ok or not 0 < num_envs <= MAX_ENVS:
            raise MarjoletError(f"num_envs must be an integer 1..{MAX_ENVS}, got {num_envs!r}")
        self.num_envs = num_envs
        self.autoreset_mode = autoreset_arg(autoreset_mode)
        self.copy = bool(copy_)
        self._b = _Buffers(num_envs, width)
        self._truncated = np.zeros(num_envs, np.bool_)
        self._started = np.zeros(num_envs, np.bool_)
        self._seeded = np.zeros(num_envs, np.bool_)
        self._ready = False  # every environment was reset at least once
        self._shape = (num_envs,)
        self._backend: _Backend
        self.rules: Rules

    def _finish_setup(self, seed: Seeds) -> None:
        """Spaces and the first reset's seed, once the backend is chosen."""
        self.in_kernel = isinstance(self._backend, _KernelBackend)
        self.single_observation_space = spaces.Box(
            0.0, observation_high(self.rules), (OBSERVATION_SIZE,), np.float32
        )
        self.single_action_space = spaces.Discrete(NUM_ACTIONS)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        for value in self._seeds(seed):  # a bad seed is refused here, not at reset()
            if value is not None:
                seed_value(value)
        self._first_seed = seed

    def reset(
        self, *, seed: Seeds = None, options: dict[str, Any] | None = None
    ) -> tuple[npt.NDArray[np.float32], dict[str, Any]]:
        """Reset every environment (or those of ``options["reset_mask"]``)."""
        if seed is None and self._first_seed is not None:
            seed = self._first_seed
        self._first_seed = None
        infos = self._reset(seed, options)
        return self._out(self._b.obs), infos

    def step(self, actions: Any) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
        """Play one action in every environment (the self-play batch's rewards
        are ``(num_envs, 2)``, a column a seat)."""
        infos = self._step(actions)
        b = self._b
        return self._out(b.obs), b.reward.copy(), b.terminated.copy(), self._truncated.copy(), infos

    def _seeds(self, seed: Seeds) -> list[int | None]:
        n = self.num_envs
        if seed is None:
            return [None] * n
        if isinstance(seed, np.ndarray) and seed.ndim == 1:  # numpy integers, one each
            seed = [int(s) if np.issubdtype(seed.dtype, np.integer) else s for s in seed]
        if isinstance(seed, Sequence) and not isinstance(seed, str | bytes):
            if len(seed) != n:
                raise MarjoletError(f"seed must be an integer or {n} seeds, got {len(seed)}")
            return list(seed)
        try:
            if isinstance(seed, bool):
                raise TypeError
            base = operator.index(seed)  # type: ignore[arg-type]
        except TypeError:
            raise MarjoletError(f"seed must be an integer or a list, got {seed!r}") from None
        return [base + i for i in range(n)]

    def _check_open(self) -> None:
        """One line for a call on a closed batch."""
        if self.closed:
            raise MarjoletError("the environments are closed: make new ones")

    def action_masks(self) -> npt.NDArray[np.int8]:
        """The legal-action masks of the batch (``infos["action_mask"]``),
        one row an environment (for the self-play batch, the row's player to
        act)."""
        self._check_open()
        if not self._started.all():  # an all-zero mask would fail a learner far from here
            raise MarjoletError("call reset() before action_masks()")
        return self._b.mask.copy()

    def _reset(self, seed: Seeds, options: Mapping[str, Any] | None) -> dict[str, Any]:
        self._check_open()
        seeds = self._seeds(seed)
        chosen = np.ones(self.num_envs, np.bool_)
        unknown = sorted(str(key) for key in options or () if key != "reset_mask")
        if unknown:
            raise MarjoletError(
                f"reset options: unknown {', '.join(map(repr, unknown))}"
                " (the one option is 'reset_mask')"
            )
        if options and options.get("reset_mask") is not None:
            chosen = np.asarray(options["reset_mask"])
            if chosen.shape != (self.num_envs,) or chosen.dtype != np.bool_:
                raise MarjoletError(
                    f"options['reset_mask'] must be a bool array of {self.num_envs} entries"
                )
        for s in seeds:
            if s is not None:
                seed_key(s)  # every seed checked before any environment changes
        b = self._b
        for i in np.flatnonzero(chosen):
            s = seeds[i]
            if s is None and not self._seeded[i]:
                s = secrets.randbits(128)
            if s is not None:
                self._backend.seed(int(i), s)
                self._seeded[i] = True
            self._backend.reset(int(i))
            b.terminated[i] = False
            b.reward[i] = 0.0
        self._started |= chosen
        return self._infos(final=False)

    def _step(self, actions: Any) -> dict[str, Any]:
        self._check_open()
        if not self._ready:
            if not self._started.all():
                raise MarjoletError("call reset() before step()")
            self._ready = True
        a = actions if isinstance(actions, np.ndarray) else np.asarray(actions)
        if a.shape != self._shape or a.dtype.kind not in "iu":
            raise MarjoletError(
                f"actions must be {self.num_envs} integers (an int array of shape "
                f"({self.num_envs},)), got {a.dtype} of shape {a.shape}"
            )
        b = self._b
        # out-of-range ids stay out of range (unsigned ones above 2**63 wrap to
        # negative ids): the backends refuse or lose them as illegal
        np.copyto(b.actions, a, casting="unsafe")
        refused = self._backend.step()
        if refused >= 0:
            raise self._backend.refusal(refused, int(a[refused]))
        return self._infos(final=refused < -1)

    def _out(self, array: npt.NDArray[Any]) -> npt.NDArray[Any]:
        return array.copy() if self.copy else array

    def _infos(self, final: bool) -> dict[str, Any]:
        b = self._b
        out = self._out
        infos: dict[str, Any] = {"action_mask": out(b.mask), "seat": out(b.seat)}
        if not final:
            return infos
        done = out(b.terminated)
        end: dict[str, Any] = {
            "deal_points": out(b.deal_points),
            "_deal_points": done,
            "totals": out(b.totals),
            "_totals": done,
            "match_winner": out(b.winner),
            "_match_winner": done,
            "illegal_action": out(b.illegal),
            "_illegal_action": done,
        }
        if self.autoreset_mode != AutoresetMode.SAME_STEP:
            infos.update(end)
            return infos
        final_obs = np.empty(self.num_envs, dtype=object)
        for i in np.flatnonzero(done):
            final_obs[i] = b.final_obs[i].copy()
        end["action_mask"] = np.zeros_like(b.mask)
        end["_action_mask"] = done
        end["seat"] = out(b.final_seat)
        end["_seat"] = done
        infos.update(final_obs=final_obs, _final_obs=done, final_info=end, _final_info=done)
        return infos


def _worst(rules: Rules, reward: str) -> float:
    return -1.0 if reward == "match" else -float(max_deal_score(rules))


def _use_kernel(rules: Rules, use_kernel: bool | None) -> bool:
    ok = kernel.supports(rules) and rules.target <= _MAX_TARGET
    if use_kernel and not kernel.available():
        # "pure Python (C kernel not built)" -> "the C kernel is not built"
        why = kernel.description().removeprefix("pure Python (").removesuffix(")")
        raise MarjoletError(
            f"use_kernel=True, but {why.replace('C kernel ', 'the C kernel is ', 1)} "
            "(use_kernel=None steps the batch in Python where it must)"
        )
    if use_kernel and not ok:
        raise MarjoletError(
            f"use_kernel=True, but the C kernel does not cover these rules (an all-six "
            f"bonus above {kernel.MAX_BONUS} or a target above {_MAX_TARGET:,}); "
            "use_kernel=None steps them in Python"
        )
    return ok if use_kernel is None else use_kernel


class MarjoletVectorEnv(_Batch, gymnasium.vector.VectorEnv):
    """``num_envs`` single-agent Marjolet episodes stepped together (module docstring).

    Arguments as :class:`marjolet.rl.gym.SingleAgentEnv` (``opponent``,
    ``rules``, ``seat``, ``reward``, ``illegal_action``), plus
    ``autoreset_mode`` (Gymnasium's; default ``NEXT_STEP``), ``seed`` (the
    first reset's, as ``reset(seed=...)``), ``copy`` (return copies of the
    batch arrays, default; ``False`` returns the arrays the next step
    overwrites) and ``use_kernel`` (``None``: when it can; ``False``: the
    Python batch; ``True``: the kernel or an error).
    """

    metadata: dict[str, Any] = {"autoreset_mode": AutoresetMode.NEXT_STEP}  # noqa: RUF012

    def __init__(
        self,
        num_envs: int,
        opponent: Opponent = "random",
        rules: Rules | str | Mapping[str, Any] | None = None,
        seat: int | None = None,
        reward: str = "deal",
        illegal_action: str = "lose",
        autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP,
        seed: Seeds = None,
        copy: bool = True,
        use_kernel: bool | None = None,
        render_mode: str | None = None,
    ) -> None:
        if render_mode is not None:  # gymnasium.make_vec passes it on
            raise MarjoletError(
                f"render_mode={render_mode!r}: the batch draws nothing; "
                "gymnasium.make_vec(..., vectorization_mode='sync') renders each environment"
            )
        self._setup(num_envs, 1, autoreset_mode, copy)
        check_agent_args(seat, illegal_action)
        self.rules = rules_arg(rules)
        self.reward_mode = reward_arg(reward)
        self.metadata = {**self.metadata, "autoreset_mode": self.autoreset_mode}
        raise_illegal = illegal_action == "raise"
        worst = _worst(self.rules, self.reward_mode)
        in_c = isinstance(opponent, str) and opponent in KERNEL_OPPONENTS
        if use_kernel and not in_c:
            names = ", ".join(KERNEL_OPPONENTS)
            raise MarjoletError(f"the kernel plays only the opponents {names}")
        if in_c and _use_kernel(self.rules, use_kernel):
            self._backend = _KernelBackend(
                num_envs, self.rules, self.reward_mode, KERNEL_OPPONENTS.index(str(opponent)),
                seat, self.autoreset_mode, raise_illegal, worst, self._b,
            )  # fmt: skip
        else:
            slots = [_AgentSlot(self._single(opponent, seat)) for _ in range(num_envs)]
            self._backend = _PythonBackend(slots, self.autoreset_mode, raise_illegal, self._b)
        self.opponent_spec = opponent if isinstance(opponent, str) else "python"
        self._finish_setup(seed)

    def _single(self, opponent: Opponent, seat: int | None) -> SingleAgentEnv:
        """One environment of the Python batch with its own opponent: a spec
        builds a bot per environment, a Bot is deep-copied (the copy is the
        environment's to close), a callable is shared."""
        mine = copy.deepcopy(opponent) if isinstance(opponent, Bot) else opponent
        env = SingleAgentEnv(mine, self.rules, seat, self.reward_mode, "lose")
        env.owns_opponent = env.owns_opponent or isinstance(opponent, Bot)
        return env

    def close_extras(self, **kwargs: Any) -> None:
        """End the opponents' programs (``exec:`` specs) now."""
        self._backend.close()


class MarjoletSelfPlayVectorEnv(_Batch):
    """``num_envs`` two-seat episodes: both seats are agents (module docstring).

    Each step takes the action of the player to act in every environment.
    Row ``i`` of the observations and masks is that player's view
    (``infos["seat"][i]``; once an episode is over, the view of the seat
    that made its last action); rewards have shape ``(num_envs, 2)``, one
    column per seat, paid as :mod:`marjolet.rl.marjolet_v0` pays them
    (``reward=`` chooses the mode). ``illegal_action="raise"`` (default, as
    PettingZoo) refuses a batch holding an illegal action before any
    environment moves; ``"lose"`` ends that episode, the player who erred
    getting the worst reward and the other its opposite. Not a
    ``gymnasium.vector.VectorEnv`` (its rewards have two columns), but the
    same ``reset``/``step`` signatures, spaces and autoreset modes.
    """

    def __init__(
        self,
        num_envs: int,
        rules: Rules | str | Mapping[str, Any] | None = None,
        reward: str = "deal",
        illegal_action: str = "raise",
        autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP,
        seed: Seeds = None,
        copy: bool = True,
        use_kernel: bool | None = None,
    ) -> None:
        self._setup(num_envs, 2, autoreset_mode, copy)
        check_agent_args(None, illegal_action)
        self.rules = rules_arg(rules)
        self.reward_mode = reward_arg(reward)
        self.metadata: dict[str, Any] = {"autoreset_mode": self.autoreset_mode}
        raise_illegal = illegal_action == "raise"
        worst = _worst(self.rules, self.reward_mode)
        if _use_kernel(self.rules, use_kernel):
            self._backend = _KernelBackend(
                num_envs, self.rules, self.reward_mode, _OPP_NONE, None, self.autoreset_mode,
                raise_illegal, worst, self._b,
            )  # fmt: skip
        else:
            slots = [_SeatsSlot(self.rules, self.reward_mode, worst) for _ in range(num_envs)]
            self._backend = _PythonBackend(slots, self.autoreset_mode, raise_illegal, self._b)
        self._finish_setup(seed)

    def close(self) -> None:
        """Nothing to release (no opponent; the kernel's memory goes with
        the object); the batch steps no more."""
        self._backend.close()
        self.closed = True


__all__ = [
    "KERNEL_OPPONENTS",
    "MarjoletSelfPlayVectorEnv",
    "MarjoletVectorEnv",
    "autoreset_arg",
    "seed_key",
]
