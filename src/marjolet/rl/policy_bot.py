"""What the bots of trained policies share: scores of the legal actions from
the observation tensor, then the best one or a softmax sample.

The ``linear`` and ``ppo`` bots (and the ``dmc`` bot) differ only in how they
score; choosing from the scores is here, once. numpy is imported when a bot
is built, so the bot registry stays importable without the ``rl`` extra.
"""

from __future__ import annotations

import math
import zipfile
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from marjolet.bots.base import Bot, BotSpecError, Param
from marjolet.observation import Observation

if TYPE_CHECKING:
    from marjolet.rl.encoder import FloatArray

#: The parameters every policy bot takes after its own.
CHOICE_PARAMS = (
    Param("greedy", bool, True, "play the best-scoring action (false: sample the softmax)"),
    Param("temperature", float, 1.0, "softmax temperature when greedy=false"),
)


class PolicyBot(Bot):
    """A bot that scores the legal actions (:meth:`scores`) and plays the
    best (``greedy``) or samples ``softmax(scores / temperature)`` with its
    seeded generator."""

    def __init__(self, *, seed: int | None = None, **options: Any) -> None:
        super().__init__(seed=seed, **options)
        if self.options["temperature"] <= 0:
            temperature = self.options["temperature"]
            raise BotSpecError(f"{self.name}: temperature must be > 0, got {temperature}")
        #: The tensor's buffer, made at the first move (numpy is imported then:
        #: a bot without the rl extra fails on its weights, with the reason).
        self._x: FloatArray | None = None

    def tensor(self, obs: Observation) -> FloatArray:
        """The observation tensor of ``obs`` (in the bot's own buffer)."""
        from marjolet.rl.encoder import OBSERVATION_SIZE, encode

        if self._x is None:
            import numpy as np

            self._x = np.zeros(OBSERVATION_SIZE, dtype=np.float32)
        return encode(obs, self._x)

    def scores(self, obs: Observation, legal: Sequence[int]) -> FloatArray:
        """The score of each legal action, in the order of ``legal``."""
        raise NotImplementedError

    def choose(self, obs: Observation, legal: Sequence[int]) -> int:
        if len(legal) == 1:
            return legal[0]
        s = [float(v) for v in self.scores(obs, legal)]
        if self.options["greedy"]:
            return legal[max(range(len(s)), key=s.__getitem__)]
        t = self.options["temperature"]
        top = max(s)
        weights = [math.exp((v - top) / t) for v in s]
        return self.rng.choices(legal, weights=weights)[0]


# -- the weights files ---------------------------------------------------------------

#: How a ``.npz`` file begins: it is a zip archive.
NPZ_MAGIC = b"PK\x03\x04"


def weights_file_key(path: Path, who: str) -> tuple[str, int, int]:
    """The cache key of a weights file (its path, time and size); raise
    :class:`BotSpecError` naming the bot and the file when it cannot be read."""
    try:
        stat = path.stat()
        with path.open("rb") as f:
            head = f.read(len(NPZ_MAGIC))
    except OSError as exc:
        reason = exc.strerror or exc
        raise BotSpecError(f"{who}: cannot read weights file {str(path)!r}: {reason}") from None
    if head != NPZ_MAGIC:
        raise BotSpecError(
            f"{who}: {str(path)!r} is not a weights file (a .npz archive written by training)"
        )
    return str(path.resolve()), stat.st_mtime_ns, stat.st_size


def weights_array(data: dict[str, Any], name: str, path: Path, who: str) -> Any:
    """The float32 array ``name`` of a weights file read by
    :func:`read_weights_file`; raise :class:`BotSpecError` naming the array
    when it is missing or not numbers."""
    import numpy as np

    if name not in data:
        raise BotSpecError(f"{who}: weights file {str(path)!r} has no array {name!r}")
    try:
        return np.asarray(data[name], dtype=np.float32)
    except ValueError:
        raise BotSpecError(
            f"{who}: array {name!r} of weights file {str(path)!r} is not numbers"
        ) from None


def read_weights_file(path: Path, fmt: str, who: str) -> dict[str, Any]:
    """The arrays of a weights file whose ``format`` entry is ``fmt`` (never
    unpickling anything); raise :class:`BotSpecError` naming the bot, the file
    and the problem."""
    import numpy as np

    try:
        with np.load(path, allow_pickle=False) as data:
            found = str(data["format"]) if "format" in data else ""
            if found != fmt:
                raise BotSpecError(
                    f"{who}: {str(path)!r} is not a {fmt} weights file (format {found!r})"
                )
            return {name: np.asarray(data[name]) for name in data.files}
    except BotSpecError:
        raise
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile) as exc:
        raise BotSpecError(f"{who}: cannot read weights file {str(path)!r}: {exc}") from None
