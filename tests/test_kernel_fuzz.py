"""The kernel's entry points against inconsistent states (issue 21).

Every state handed to ``deal_from_state`` is checked in full at the C
boundary: a state no deal can reach is refused with a ValueError saying
what is wrong, so that no playout or search ever runs on one; every
playout loop is bounded; the exact search takes a node budget. The fuzz
below feeds the entry points real positions with a few fields broken
(repeated stock cards, cards in two places, fields out of range, wrong
types) and checks that each call answers, or raises ValueError, TypeError
or the exact search's RuntimeError, and never hangs (faulthandler ends the
process with status 1 if a call holds the GIL for a minute, and writes the
tracebacks to ``marjolet-kernel-fuzz-hang.txt`` in the temporary directory).
"""

from __future__ import annotations

import faulthandler
import random
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from marjolet import kernel
from marjolet.engine import Deal
from marjolet.rules import CLASSIC

pytestmark = pytest.mark.skipif(not kernel.available(), reason=kernel.description())

RULES = (0, 50, 1, 0, 0)
#: What an entry point may raise on a bad state: a clear refusal, never a
#: SystemError, a crash or a hang.
REFUSALS = (ValueError, TypeError, RuntimeError)


#: Where a hang's tracebacks go: pytest captures standard error, and the
#: process ends before it could show them.
HANG_REPORT = Path(tempfile.gettempdir()) / "marjolet-kernel-fuzz-hang.txt"


@contextmanager
def no_hang(seconds: int = 60) -> Iterator[None]:
    """End the process (status 1) with every thread's traceback written to
    :data:`HANG_REPORT` if the block hangs (a C loop holding the GIL cannot
    be interrupted otherwise)."""
    with HANG_REPORT.open("w", encoding="utf-8") as report:
        report.write("tests/test_kernel_fuzz.py: a kernel call hung; tracebacks:\n")
        report.flush()
        faulthandler.dump_traceback_later(seconds, exit=True, file=report)
        try:
            yield
        finally:
            faulthandler.cancel_dump_traceback_later()


def position(seed: int, steps: int) -> Deal:
    rng = random.Random(seed)
    deck = list(range(32))
    rng.shuffle(deck)
    deal = Deal(deck, rng.randrange(2), CLASSIC)
    for _ in range(steps):
        if deal.is_over:
            break
        legal = deal.legal_actions()
        deal.push(legal[rng.randrange(len(legal))])
    return deal


def parts(deal: Deal) -> tuple[int, list[int], list[int]]:
    return deal.turned_up, list(deal.stock), list(deal.state)


def try_call(method: Any, *args: Any, **kw: Any) -> None:
    try:
        method(*args, **kw)
    except REFUSALS:
        pass


def exercise(kd: Any) -> None:
    """Every method of an accepted kernel deal, each allowed to refuse."""
    kd.copy()
    kd.state()
    kd.stock()
    kd.check()
    legal = kd.legal_actions()
    assert legal == [a for a in range(46) if kd.legal_mask() >> a & 1]
    for name in ("random_playout", "heuristic_playout", "fast_playout"):
        try_call(getattr(kd.copy(), name), 7)
    for name in ("heuristic_action", "fast_action"):
        try_call(getattr(kd, name), 7)
    for name in ("solve", "ending_value", "ending_action_values"):
        try_call(getattr(kd, name))
    try_call(kd.exact, max_nodes=20_000)
    try_call(kd.exact_action_values, max_nodes=20_000)
    if legal:
        try_call(kd.copy().play, legal[0])


# -- the cases the issue found --------------------------------------------------------


def test_a_stock_with_a_repeated_card_is_refused_and_named() -> None:
    turned_up, stock, state = parts(position(1, 0))
    stock[5] = stock[4]
    with pytest.raises(ValueError, match="twice in the stock"):
        kernel.KERNEL.deal_from_state(RULES, 0, turned_up, stock, state)


def test_a_stock_card_still_to_draw_that_is_in_a_hand_is_refused() -> None:
    deal = position(2, 0)
    turned_up, stock, state = parts(deal)
    stock[-1] = next(c for c in range(32) if deal.hand_mask(0) >> c & 1)
    with pytest.raises(ValueError, match="stock card still to draw"):
        kernel.KERNEL.deal_from_state(RULES, deal.dealer, turned_up, stock, state)


def test_a_soft_constraint_that_is_not_a_tuple_is_a_type_error() -> None:
    deal = position(3, 0)
    kd = kernel.kernel_deal(deal)
    with pytest.raises(TypeError, match=r"soft\[0\]"):
        kernel.KERNEL.sample(kd, deal.to_move, 0, 0, 19, 1, 1, None, [[1, 0.5]])


def test_the_exact_search_from_trick_1_gives_up_at_its_node_budget() -> None:
    kd = kernel.kernel_deal(position(4, 0))
    table = kernel.new_table(12)
    with no_hang(), pytest.raises(RuntimeError, match="max_nodes"):
        kd.exact(table, max_nodes=50_000)
    # the table was cleared and serves the next search
    late = kernel.kernel_deal(position(4, 27))
    assert late.exact(table) == late.exact()


def test_the_exact_search_budget_is_checked() -> None:
    kd = kernel.kernel_deal(position(5, 0))
    with pytest.raises(ValueError, match="max_nodes"):
        kd.exact(max_nodes=0)
    with pytest.raises(TypeError, match="max_nodes"):
        kd.exact_action_values(max_nodes="many")


# -- the fuzz ------------------------------------------------------------------------

mutation = st.one_of(
    st.tuples(st.just("field"), st.integers(0, 20), st.integers(-3, 2**32)),
    st.tuples(st.just("small"), st.integers(0, 20), st.integers(-1, 40)),
    st.tuples(st.just("repeat"), st.integers(0, 18), st.integers(0, 18)),
    st.tuples(st.just("stock"), st.integers(0, 18), st.integers(-1, 31)),
    st.tuples(st.just("move"), st.integers(0, 31), st.integers(0, 5)),
)


def mutate(state: list[int], stock: list[int], how: tuple[str, int, int]) -> None:
    kind, a, b = how
    if kind in ("field", "small"):
        state[a] = b
    elif kind == "repeat":
        stock[a] = stock[b]
    elif kind == "stock":
        stock[a] = b
    else:  # put card a in hand/won field b (it may already be elsewhere)
        state[b] |= 1 << a


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(
    seed=st.integers(0, 10_000),
    steps=st.integers(0, 70),
    mutations=st.lists(mutation, max_size=3),
    dealer=st.sampled_from([0, 1, 2]),
)
def test_fuzz_deal_from_state_refuses_or_plays_and_never_hangs(
    seed: int, steps: int, mutations: list[tuple[str, int, int]], dealer: int
) -> None:
    deal = position(seed, steps)
    turned_up, stock, state = parts(deal)
    for how in mutations:
        mutate(state, stock, how)
    with no_hang():
        try:
            kd = kernel.KERNEL.deal_from_state(
                RULES, deal.dealer if dealer == 2 else dealer, turned_up, stock, state
            )
        except REFUSALS:
            return
        exercise(kd)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 10_000),
    steps=st.integers(0, 40),
    seat=st.integers(-1, 2),
    unseen=st.integers(0, 2**33),
    opp_missing=st.integers(-2, 20),
    first_slot=st.integers(-2, 21),
    soft=st.one_of(
        st.none(),
        st.lists(
            st.one_of(
                st.tuples(st.integers(0, 2**32), st.floats(-1, 2)),
                st.lists(st.integers(0, 3), max_size=2),
                st.integers(),
            ),
            max_size=3,
        ),
    ),
    weights=st.one_of(st.none(), st.lists(st.floats(-1, 2), min_size=30, max_size=33)),
)
def test_fuzz_the_sampler_and_search_refuse_bad_observations(
    seed: int,
    steps: int,
    seat: int,
    unseen: int,
    opp_missing: int,
    first_slot: int,
    soft: Any,
    weights: Any,
) -> None:
    kd = kernel.kernel_deal(position(seed, steps))
    table = kernel.new_table(10)
    args = (seat, unseen, opp_missing, first_slot)
    with no_hang():
        try_call(kernel.KERNEL.sample, kd, *args, 4, seed, weights, soft)
        try_call(
            kernel.KERNEL.pimc,
            kd,
            table,
            *args,
            4,
            seed,
            exact_tricks=1,
            weights=weights,
            soft=soft,
        )
