"""Research adapters: PettingZoo, OpenSpiel and Gymnasium (the ``rl`` extra).

Each adapter lives in its own submodule and imports its library only when
that submodule is imported, so ``import marjolet.rl`` costs nothing:

- :mod:`marjolet.rl.encoder`: the observation tensor shared by all three
  adapters, built from an :class:`~marjolet.observation.Observation` only
  (R23: never a hidden card), and the action mask over the 46 stable ids;
- :mod:`marjolet.rl.marjolet_v0`: the PettingZoo AEC environment
  (``from marjolet.rl import marjolet_v0; env = marjolet_v0.env()``);
- :mod:`marjolet.rl.openspiel`: registers the OpenSpiel game
  ``python_marjolet`` on import;
- :mod:`marjolet.rl.gym`: registers the Gymnasium environment
  ``marjolet/SingleAgent-v0`` on import;
- :mod:`marjolet.rl.vector`: batches of single-agent or self-play episodes
  stepped together by the C kernel (``MarjoletVectorEnv``, a Gymnasium
  ``VectorEnv``, and ``MarjoletSelfPlayVectorEnv``);
- :mod:`marjolet.decks` (core): deck orders consistent with what one seat knows
  (OpenSpiel's ``resample_from_infostate``), standard library only;
- :mod:`marjolet.rl.ismcts_bot` and :mod:`marjolet.rl.linear_bot`: the
  ``openspiel-ismcts`` and ``linear`` bots of the bot registry.

See ``docs/rl.md``.
"""

from __future__ import annotations

import sys
from typing import NoReturn

#: The third-party libraries of the ``rl`` and ``train`` extras (top-level names).
EXTRA_LIBRARIES = frozenset({"numpy", "torch", "gymnasium", "pettingzoo", "pyspiel", "open_spiel"})


def missing_extra(exc: ModuleNotFoundError) -> bool:
    """Whether ``exc`` is a library of the ``rl`` or ``train`` extra missing
    (not a fault of marjolet's own modules)."""
    return (exc.name or "").partition(".")[0] in EXTRA_LIBRARIES


def exit_refused(prog: str, exc: Exception) -> NoReturn:
    """The one line of a trainer whose import was refused by a setting of
    marjolet's own (``MARJOLET_KERNEL=false``, a missing
    ``MARJOLET_KERNEL_LIB``), as its ``main`` and its parser word any other
    refusal: ``PROG: error: ...``."""
    print(f"{prog}: error: {exc}", file=sys.stderr)
    raise SystemExit(2)


def exit_missing_extra(prog: str, extra: str, exc: ModuleNotFoundError) -> NoReturn:
    """The one line of a command run without its extra (exit status 2), as
    ``openspiel-ismcts`` reports a missing extra."""
    print(f"{prog} needs the {extra} extra: pip install 'marjolet[{extra}]' ({exc})",
          file=sys.stderr)  # fmt: skip
    raise SystemExit(2)
