"""``linear``: a linear policy on the shared observation tensor.

The score of action ``a`` is ``W[a] . x + b[a]``, with ``x`` the observation
tensor of :mod:`marjolet.rl.encoder`; the bot plays the best-scoring legal
action (or samples from the softmax over legal actions with ``greedy=false``).
The weights come from a ``.npz`` file written by :func:`save_weights`, such as
the one ``examples/train_linear.py`` trains: ``linear:weights=policy.npz``.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from marjolet import outputs
from marjolet.actions import ACTION_COUNT as NUM_ACTIONS
from marjolet.bots.base import BotSpecError, Param
from marjolet.errors import MarjoletError
from marjolet.observation import Observation
from marjolet.rl.policy_bot import (
    CHOICE_PARAMS,
    PolicyBot,
    read_weights_file,
    weights_array,
    weights_file_key,
)

if TYPE_CHECKING:
    import numpy.typing as npt

    from marjolet.rl.encoder import FloatArray

WEIGHTS_FORMAT = "marjolet-linear/1"

_CACHE: dict[tuple[str, int, int], tuple[FloatArray, FloatArray]] = {}


def save_weights(
    path: str | Path, weights: npt.ArrayLike, bias: npt.ArrayLike, **meta: Any
) -> None:
    """Write a linear policy atomically as ``.npz`` (``weights`` is
    ``NUM_ACTIONS x OBSERVATION_SIZE``, ``bias`` has ``NUM_ACTIONS`` entries);
    ``meta`` values are stored as strings (training settings, for the record).
    Arrays of another shape, or not of numbers, are a :class:`MarjoletError`
    naming what was given; nothing is written."""
    import numpy as np

    from marjolet.rl.encoder import OBSERVATION_SIZE

    try:
        w = np.asarray(weights, dtype=np.float32)
        b = np.asarray(bias, dtype=np.float32)
    except (TypeError, ValueError) as exc:
        raise MarjoletError(f"save_weights: weights and bias must be numbers: {exc}") from None
    if w.shape != (NUM_ACTIONS, OBSERVATION_SIZE) or b.shape != (NUM_ACTIONS,):
        raise MarjoletError(
            f"save_weights: weights must be {NUM_ACTIONS}x{OBSERVATION_SIZE} and bias "
            f"{NUM_ACTIONS}, got {w.shape} and {b.shape}"
        )
    data = io.BytesIO()
    np.savez(
        data,
        format=np.array(WEIGHTS_FORMAT),
        weights=w,
        bias=b,
        meta=np.array([f"{k}={v}" for k, v in meta.items()]),
    )
    outputs.write_atomic(path, data.getvalue())


def load_weights(path: str | Path) -> tuple[FloatArray, FloatArray]:
    """Read a policy written by :func:`save_weights`; raise
    :class:`~marjolet.bots.base.BotSpecError` naming the file and the problem."""
    try:
        import numpy  # noqa: F401 (the rl extra: checked before any file is read)

        from marjolet.rl.encoder import OBSERVATION_SIZE
    except ImportError as exc:
        hint = "pip install 'marjolet[rl]'"
        raise BotSpecError(f"linear needs the rl extra ({hint}): {exc}") from None
    p = Path(path)
    key = weights_file_key(p, "linear")
    cached = _CACHE.get(key)
    if cached is not None:
        return cached
    data = read_weights_file(p, WEIGHTS_FORMAT, "linear")
    w = weights_array(data, "weights", p, "linear")
    b = weights_array(data, "bias", p, "linear")
    if w.shape != (NUM_ACTIONS, OBSERVATION_SIZE) or b.shape != (NUM_ACTIONS,):
        raise BotSpecError(
            f"linear: {str(p)!r} holds {w.shape[0]}x{w.shape[-1]} weights; this version's "
            f"observation needs {NUM_ACTIONS}x{OBSERVATION_SIZE} (retrain it)"
        )
    _CACHE[key] = (w, b)
    return w, b


class LinearBot(PolicyBot):
    name = "linear"
    description = "a linear policy on the observation tensor, weights from a .npz file (rl extra)"
    params = (Param("weights", str, "", "path of the .npz weights file (required)"), *CHOICE_PARAMS)

    def __init__(self, *, seed: int | None = None, **options: Any) -> None:
        super().__init__(seed=seed, **options)
        path = self.options["weights"]
        if not path:
            raise BotSpecError("linear: give the weights file, e.g. 'linear:weights=policy.npz'")
        self.weights, self.bias = load_weights(path)

    def scores(self, obs: Observation, legal: Sequence[int]) -> FloatArray:
        """The score of each legal action, in the order of ``legal``."""
        x = self.tensor(obs)
        idx = list(legal)
        result: FloatArray = self.weights[idx] @ x + self.bias[idx]
        return result
