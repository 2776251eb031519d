"""The optional C kernel (``marjolet._kernel``) seen from Python.

At import this module decides whether the kernel is used: it is when the
extension was built (``pip install`` with a C compiler) and the environment
variable ``MARJOLET_KERNEL`` is not ``0``. :data:`KERNEL` is then the
extension module, else ``None``, and everything falls back to pure Python.

This module is a documented fast path (like :mod:`marjolet.bots.solver`): it
reads :class:`~marjolet.engine.Deal` private state (``_s``) to convert a deal
into a kernel deal without going through the public API.

:func:`solve` is the kernel-backed ending solver: it returns exactly what
:func:`marjolet.bots.solver.solve` returns (the value and the optimal cards
in the same preference order). See docs/kernel.md.
"""

from __future__ import annotations

import importlib
import os
from types import ModuleType
from typing import Any

from marjolet.rules import SAME_SUIT, Rules


def _load() -> tuple[ModuleType | None, str]:
    if os.environ.get("MARJOLET_KERNEL", "1").strip() == "0":
        return None, "pure Python (C kernel disabled by MARJOLET_KERNEL=0)"
    try:
        _kernel = importlib.import_module("marjolet._kernel")
    except ImportError:
        return None, "pure Python (C kernel not built)"
    return _kernel, f"C kernel (marjolet._kernel, API {_kernel.API_VERSION})"


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
