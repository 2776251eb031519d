"""The C kernel is built wherever a C compiler exists (issue 12), and bad
arguments from Python raise exceptions instead of crashing."""

from __future__ import annotations

import os
import shutil
import sysconfig

import pytest

from marjolet import kernel
from marjolet.rules import CLASSIC

needs_kernel = pytest.mark.skipif(not kernel.available(), reason=kernel.description())


def test_kernel_is_built_where_a_c_compiler_exists() -> None:
    if os.environ.get("MARJOLET_KERNEL", "1").strip() == "0":
        assert not kernel.available()
        assert "MARJOLET_KERNEL=0" in kernel.description()
        return
    compiler = (sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(compiler) is None and shutil.which("gcc") is None:
        pytest.skip("no C compiler on this machine: pure Python is expected")
    assert kernel.available(), (
        "a C compiler exists but marjolet._kernel is not importable: "
        "reinstall with `pip install -e .` (see docs/kernel.md)"
    )


def test_description_names_the_engine_in_use() -> None:
    text = kernel.description()
    assert text.startswith("C kernel") == kernel.available()
    assert text.startswith("pure Python") == (not kernel.available())


@needs_kernel
def test_bad_arguments_raise_python_exceptions() -> None:
    k = kernel.KERNEL
    rules = kernel.rules_tuple(CLASSIC)
    deck = list(range(32))
    with pytest.raises(ValueError, match="32 items"):
        k.Deal(deck[:31], 0, rules)
    with pytest.raises(ValueError, match="once"):
        k.Deal([0] * 32, 0, rules)
    with pytest.raises(ValueError):
        k.Deal([*deck[:31], 32], 0, rules)
    with pytest.raises(TypeError):
        k.Deal(["AS"] * 32, 0, rules)
    with pytest.raises(ValueError, match="dealer"):
        k.Deal(deck, 2, rules)
    with pytest.raises(ValueError):
        k.Deal(deck, 0, (0, 50, 1, 0))
    with pytest.raises(ValueError):
        k.Deal(deck, 0, (0, 50, 2, 0, 0))
    deal = k.Deal(deck, 0, rules)
    with pytest.raises(ValueError, match="not legal"):
        deal.play(45)  # draw with no window open
    with pytest.raises(ValueError):
        deal.play(46)
    with pytest.raises(ValueError):
        deal.play(-1)
    with pytest.raises(TypeError):
        deal.play("AS")
    with pytest.raises(ValueError, match="not empty"):
        deal.solve()
    ending = deal.copy()
    while not ending.stock_empty:
        ending.play(ending.legal_actions()[-1])
    with pytest.raises(TypeError):
        ending.solve("table")
    with pytest.raises(ValueError, match="not initialised"):
        ending.solve(k.Table.__new__(k.Table))
    with pytest.raises(ValueError):
        k.Table(3)
    state = [0] * 21
    with pytest.raises(ValueError, match="19 items"):
        k.deal_from_state(rules, 0, 5, [-1] * 18, state)
    with pytest.raises(ValueError, match="21 items"):
        k.deal_from_state(rules, 0, 5, [-1] * 19, state[:20])
    bad_window = [1, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1, 0, 1, 5, -1, -1, -1, 0]
    with pytest.raises(ValueError, match="inconsistent"):
        k.deal_from_state(rules, 0, 5, [-1] * 19, bad_window)  # a window before trick 1
    with pytest.raises(ValueError):
        k.deal_from_state(rules, 0, 40, [-1] * 19, state)
    unknown = k.deal_from_state(rules, 0, 5, [-1] * 19, [*bad_window[:12], 1, *bad_window[13:]])
    with pytest.raises(ValueError, match="unknown"):
        unknown.play(45)  # the stock card to draw is not known
    window = deal.copy()
    window.play(window.legal_actions()[0])
    window.play(window.legal_actions()[0])  # trick 1 complete: the winner's window
    hidden = k.deal_from_state(rules, 0, deck[12], [-1] * 19, window.state())
    with pytest.raises(ValueError, match="stock card"):
        hidden.exact()
    with pytest.raises(ValueError, match="stock card"):
        hidden.random_playout(1)
    short = ending.state()
    short_hand = [short[0] & (short[0] - 1), *short[1:]]  # one card missing from a hand
    odd = k.deal_from_state(rules, 0, deck[12], list(deck[13:]), short_hand)
    with pytest.raises(ValueError, match="hand sizes"):
        odd.solve()
    with pytest.raises(ValueError, match="hand sizes"):
        odd.random_playout(1)
    with pytest.raises(ValueError, match="hand sizes"):
        odd.heuristic_action(1)
