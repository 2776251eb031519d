"""``ppo``: a small neural network policy, played with numpy only.

The network is a multilayer perceptron on the shared observation tensor of
:mod:`marjolet.rl.encoder` (``tanh`` hidden layers, one logit per action id);
the bot plays the legal action with the highest logit (or samples the softmax
over the legal actions with ``greedy=false``). Training needs PyTorch
(:mod:`marjolet.rl.train_ppo`, the ``train`` extra); playing does not: the
weights are a ``.npz`` file of plain arrays (:func:`save_policy`), read here
with numpy, so the bot runs wherever the ``rl`` extra is installed.

Without ``weights=`` the bot loads the policy shipped in the package
(``marjolet/rl/weights/ppo.npz``: the best run of ``docs/rl.md``).
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from marjolet import outputs
from marjolet.actions import ACTION_COUNT as NUM_ACTIONS
from marjolet.bots.base import BotSpecError, Param
from marjolet.observation import Observation
from marjolet.rl.policy_bot import (
    CHOICE_PARAMS,
    PolicyBot,
    read_weights_file,
    weights_array,
    weights_file_key,
)

if TYPE_CHECKING:

    from marjolet.rl.encoder import FloatArray

POLICY_FORMAT = "marjolet-mlp/1"
#: The policy shipped with the package (``weights=`` left empty).
SHIPPED = "weights/ppo.npz"
SHIPPED_DMC = "weights/dmc.npz"
#: Largest layer width accepted from a file (a guard against absurd files).
MAX_WIDTH = 4096


class MlpPolicy:
    """The layers of a policy network: ``tanh`` after every layer but the last."""

    def __init__(self, layers: Sequence[tuple[FloatArray, FloatArray]]) -> None:
        self.layers = list(layers)

    def logits(self, x: FloatArray) -> FloatArray:
        """The action logits for one tensor (or a batch of them, one per row)."""
        import numpy as np

        h = x
        last = len(self.layers) - 1
        for i, (w, b) in enumerate(self.layers):
            h = h @ w + b
            if i < last:
                h = np.tanh(h)
        return h


def save_policy(path: str | Path, layers: Sequence[tuple[Any, Any]], **meta: Any) -> None:
    """Write a policy atomically as ``.npz``: ``layers`` is a list of
    ``(weight, bias)`` with weights ``in x out`` (the first ``in`` is the
    observation size, the last ``out`` the action count); ``meta`` values
    are stored as strings (training settings, for the record)."""
    import numpy as np

    arrays: dict[str, Any] = {"format": np.array(POLICY_FORMAT)}
    for i, (w, b) in enumerate(layers):
        arrays[f"w{i}"] = np.asarray(w, dtype=np.float32)
        arrays[f"b{i}"] = np.asarray(b, dtype=np.float32)
    arrays["meta"] = np.array([f"{k}={v}" for k, v in meta.items()])
    _check_shapes([(arrays[f"w{i}"], arrays[f"b{i}"]) for i in range(len(layers))], str(path))
    data = io.BytesIO()
    np.savez_compressed(data, **arrays)
    outputs.write_atomic(path, data.getvalue())


def _check_shapes(layers: Sequence[tuple[Any, Any]], where: str, who: str = "ppo") -> None:
    from marjolet.rl.encoder import OBSERVATION_SIZE

    width = OBSERVATION_SIZE
    for i, (w, b) in enumerate(layers):
        if w.ndim != 2 or w.shape[0] != width or b.shape != (w.shape[1],):
            raise BotSpecError(
                f"{who}: {where!r} layer {i} has weights {w.shape} and bias {b.shape}; "
                f"expected {width} inputs"
            )
        if w.shape[1] > MAX_WIDTH:
            raise BotSpecError(f"{who}: {where!r} layer {i} is {w.shape[1]} wide (max {MAX_WIDTH})")
        width = w.shape[1]
    if not layers or width != NUM_ACTIONS:
        raise BotSpecError(
            f"{who}: {where!r} must end with {NUM_ACTIONS} outputs (one per action id), "
            f"got {width if layers else 'no layers'} (retrain it)"
        )


_CACHE: dict[tuple[str, int, int], MlpPolicy] = {}


def load_policy(
    path: str | Path | None = None, shipped: str = SHIPPED, who: str = "ppo"
) -> MlpPolicy:
    """Read a policy written by :func:`save_policy` (``None``: the package's
    ``shipped`` file); raise :class:`~marjolet.bots.base.BotSpecError` naming
    the bot (``who``), the file and the problem."""
    try:
        import numpy as np
    except ImportError as exc:
        raise BotSpecError(
            f"{who} needs the rl extra (pip install 'marjolet[rl]'): {exc}"
        ) from None
    p = Path(str(resources.files("marjolet.rl") / shipped)) if path is None else Path(path)
    key = weights_file_key(p, who)
    if key in _CACHE:
        return _CACHE[key]
    data = read_weights_file(p, POLICY_FORMAT, who)
    count = sum(1 for name in data if name.startswith("w"))
    layers = [
        (weights_array(data, f"w{i}", p, who), weights_array(data, f"b{i}", p, who))
        for i in range(count)
    ]
    _check_shapes(layers, str(p), who)
    if not all(np.isfinite(w).all() and np.isfinite(b).all() for w, b in layers):
        raise BotSpecError(f"{who}: {str(p)!r} holds non-finite weights")
    policy = MlpPolicy(layers)
    _CACHE[key] = policy
    return policy


class PpoBot(PolicyBot):
    name = "ppo"
    #: The network played without ``weights=`` (in the package).
    shipped = SHIPPED
    description = (
        "a small neural network trained by reinforcement learning (PPO); "
        "numpy at play time (rl extra)"
    )
    params = (Param("weights", str, "", "path of a .npz policy (empty: the one shipped)"),
              *CHOICE_PARAMS)  # fmt: skip

    def __init__(
        self, *, seed: int | None = None, policy: MlpPolicy | None = None, **options: Any
    ) -> None:
        super().__init__(seed=seed, **options)
        #: The network; training swaps it for newer snapshots (self-play).
        if policy is None:
            policy = load_policy(self.options["weights"] or None, self.shipped, self.name)
        self.policy = policy

    def scores(self, obs: Observation, legal: Sequence[int]) -> FloatArray:
        """The logit of each legal action, in the order of ``legal``."""
        logits = self.policy.logits(self.tensor(obs))
        result: FloatArray = logits[list(legal)]
        return result


class DmcBot(PpoBot):
    """The network of :mod:`marjolet.rl.train_dmc`: its outputs are the
    estimated values of the actions, so the greedy choice is the legal
    action of highest value."""

    name = "dmc"
    description = (
        "a small neural network that learned the value of each move by playing itself "
        "(Deep Monte-Carlo); numpy at play time (rl extra)"
    )
    params = (Param("weights", str, "", "path of a .npz network (empty: the one shipped)"),
              *CHOICE_PARAMS)  # fmt: skip
    shipped = SHIPPED_DMC
