"""The optional C kernel (``marjolet._kernel``) seen from Python.

At import this module decides whether the kernel is used: it is when the
extension was built (``pip install`` with a C compiler) and the environment
variable ``MARJOLET_KERNEL`` is not ``0`` (``1``, empty or unset; any other
value is refused). :data:`KERNEL` is then the
extension module, else ``None``, and everything falls back to pure Python.
``MARJOLET_KERNEL_LIB=path`` loads the extension from a file instead (the
sanitizer build of ``make kernel-asan``).

This module is the one documented fast path into the engine: it reads
:class:`~marjolet.engine.Deal` private state (``_s``) to convert a deal
into a kernel deal without copying it through the public API.

:func:`solve` is the kernel-backed ending solver: it returns exactly what
:func:`marjolet.bots.solver.solve` returns (the value and the optimal cards
in the same preference order), as the same :class:`~marjolet.solution.Solution`
type, which lives below both. See docs/kernel.md.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
from types import ModuleType
from typing import Any

from marjolet.errors import MarjoletError
from marjolet.rules import SAME_SUIT, Rules
from marjolet.solution import Solution, cheapness, check_ending


def _load() -> tuple[ModuleType | None, str]:
    wanted = os.environ.get("MARJOLET_KERNEL", "1")
    if wanted.strip() == "0":
        return None, "pure Python (C kernel disabled by MARJOLET_KERNEL=0)"
    if wanted.strip() not in ("1", ""):  # "false" or "off" must not leave it on, silently
        raise KernelLoadError(
            f"MARJOLET_KERNEL={wanted!r}: give 0 (pure Python) or 1 "
            "(the C kernel where it is built, the default), or unset it"
        )
    lib = os.environ.get("MARJOLET_KERNEL_LIB")
    if lib:  # a debug build (make kernel-asan) instead of the installed one
        return _load_file(lib), f"C kernel (debug build {lib})"
    try:
        _kernel = importlib.import_module("marjolet._kernel")
    except ImportError:
        return None, "pure Python (C kernel not built)"
    if not hasattr(_kernel, "API_VERSION"):
        # Not built: the import found the folder of C sources, which Python
        # takes for a namespace package.
        return None, "pure Python (C kernel not built)"
    return _kernel, f"C kernel (marjolet._kernel, API {_kernel.API_VERSION})"


class KernelLoadError(MarjoletError, ImportError):
    """``MARJOLET_KERNEL_LIB`` names no loadable extension, or
    ``MARJOLET_KERNEL`` is neither 0 nor 1: an input error (one line naming
    the variable), and still an :class:`ImportError`."""


def _load_file(path: str) -> ModuleType:
    """Load the extension from a file (``MARJOLET_KERNEL_LIB``)."""
    where = f"MARJOLET_KERNEL_LIB={path!r}"
    if not os.path.isfile(path):
        raise KernelLoadError(f"{where}: no such file (give a built kernel's path, or unset it)")
    spec = importlib.util.spec_from_file_location("marjolet._kernel", path)
    if spec is None or spec.loader is None:
        raise KernelLoadError(f"{where}: not a loadable extension (a .so file is expected)")
    try:
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    except ImportError as exc:
        raise KernelLoadError(f"{where}: cannot be loaded: {exc}") from None
    return module


KERNEL: Any
KERNEL, DESCRIPTION = _load()


def available() -> bool:
    """Whether the C kernel is in use."""
    return KERNEL is not None


def description() -> str:
    """One line for ``marjolet bench`` and ``marjolet bots``: which engine runs."""
    return DESCRIPTION


#: Largest all-six bonus the kernel accepts; other rules fall back to Python.
MAX_BONUS = 1000


def supports(rules: Rules) -> bool:
    """Whether the kernel covers ``rules`` (every rules.md setting; only an
    all-six bonus above :data:`MAX_BONUS` is outside it)."""
    return KERNEL is not None and rules.all_tricks_bonus <= MAX_BONUS


def rules_tuple(rules: Rules) -> tuple[int, int, int, int, int]:
    """The kernel's rules argument: (pattern_222, all_tricks_bonus,
    dix_on_play, same_suit, one_meld)."""
    return (
        1 if tuple(rules.deal_pattern) == (2, 2, 2) else 0,
        rules.all_tricks_bonus,
        1 if rules.dix_on_play else 0,
        1 if rules.jack_queen == SAME_SUIT else 0,
        1 if rules.one_meld_per_window else 0,
    )


def kernel_deal(deal: Any) -> Any:
    """A kernel ``Deal`` holding the current state of a Python
    :class:`~marjolet.engine.Deal` (its history is not carried over)."""
    if KERNEL is None:
        raise RuntimeError("the C kernel is not available")
    return KERNEL.deal_from_state(
        rules_tuple(deal.rules), deal.dealer, deal.turned_up, deal.stock, deal._s
    )


def usable(deal: Any) -> bool:
    """Whether ``deal`` can be handed to the kernel (kernel present, rules
    covered)."""
    return KERNEL is not None and deal.rules.all_tricks_bonus <= MAX_BONUS


def new_table(log2_entries: int = 16) -> Any:
    """A kernel transposition table (``2**log2_entries`` entries of 32 bytes)."""
    if KERNEL is None:
        raise RuntimeError("the C kernel is not available")
    return KERNEL.Table(log2_entries)


def preferred(deal: Any, kdeal: Any, optimal: list[int], table: Any) -> list[int]:
    """Order equally optimal cards exactly as :meth:`EndingSolver.preferred`
    does: the highest mean value over the opponent's next answers first,
    then the lowest card.

    One quirk is reproduced on purpose so that the order (and the card the
    solver bot plays) stays the same: when the mover leads the seven of
    trumps while it still scores (R19), the Python solver judges the
    opponent's answers with its table's context from before the lead and
    counts the seven's 10 a second time, so that lead's margin is 10 higher.
    """
    if len(optimal) <= 1:
        return list(optimal)
    p = kdeal.to_move
    seven_lead = (
        deal.lead is None and deal.rules.dix_on_play and deal.seven_scored_by is None
    )
    scored = []
    for a in optimal:
        after = kdeal.copy()
        after.play(a)
        if after.is_over:
            pts = after.points
            margin = float(pts[p] - pts[p ^ 1])
        elif after.to_move == p:
            margin = float(after.ending_value(table))
        else:
            values = after.ending_action_values(table)
            quirk = 10 * len(values) if seven_lead and a == deal.seven else 0
            margin = (quirk - sum(values.values())) / len(values)
        scored.append((-margin, cheapness(a, kdeal.trump), a))
    scored.sort()
    return [a for _, _, a in scored]


def solve(deal: Any, table: Any = None) -> Solution:
    """The kernel-backed ending solver: the same :class:`~marjolet.solution.Solution`
    as :func:`marjolet.bots.solver.solve` (value, and every optimal card in
    the same preference order). Raises
    :class:`~marjolet.solution.NotAnEndingError` before trick 11."""
    check_ending(deal)
    if table is None:
        table = new_table()
    kd = kernel_deal(deal)
    value, mask = kd.solve(table)
    optimal = [c for c in range(32) if mask >> c & 1]
    return Solution(deal.to_move, value, tuple(preferred(deal, kd, optimal, table)))
