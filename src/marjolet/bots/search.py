"""Evaluating positions of a fully known deal: the common ground of the
search bots (``pimc``, ``cheater``, ``ismcts``).

A *world* is a :class:`~marjolet.engine.Deal` whose hidden cards are all
filled in: a sample from :func:`~marjolet.observation.sample_world`, or the
true deal for ``cheater``. :class:`WorldEvaluator` scores a world for one
player as the final deal-score difference (that player minus the other,
points already scored included), three ways by how much of the deal is left:

* stock empty (tricks 11-16): exact, by the ending solver;
* the last ``exact_tricks`` tricks of phase 1: exact as well, by alpha-beta
  over the remaining tricks (each meld window played the way that is best
  with every card known: dix, then melds, most valuable first) and the
  ending solver at the last draw;
* earlier: one playout with the heuristic policy for both players up to the
  last draw, then the ending solver.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Any

from marjolet.bots.base import BotSpecError, Param
from marjolet.bots.heuristic import POLICY
from marjolet.bots.solver import INF, EndingSolver
from marjolet.engine import Deal
from marjolet.history import phase1_tricks_left

#: The ending solvers' tables are dropped past this many entries.
TABLE_LIMIT = 400_000

#: How a ``time=`` budget is measured: elapsed time, or the CPU time of this
#: process (steadier when other jobs share the cores, as in arena runs).
CLOCKS: dict[str, Callable[[], float]] = {"wall": time.perf_counter, "cpu": time.process_time}


#: The longest ``time=`` a search bot accepts: an hour a decision, as for
#: an ``exec:`` bot's ``budget_s``.
MAX_TIME = 3600.0

#: The two budget parameters every search bot takes (``time=``, ``clock=``).
TIME_PARAM = Param("time", float, 0.0, "seconds per decision; stop when spent (0 = no limit)")
CLOCK_PARAM = Param(
    "clock", str, "wall", "what time= measures: wall (elapsed) or cpu (process CPU time)"
)


def check_count(bot: str, options: Mapping[str, Any], name: str, low: int, high: int) -> None:
    """Reject a count of work a decision (``worlds=``, ``iterations=``)
    outside [low, high] in one line. ``high`` is the power of ten nearest
    to an hour a move at the bot's measured rate (docs/bots.md): with the
    default ``time=0`` the count alone ends a move, and a count without
    bound would hang the host as an endless ``time=`` would."""
    value = options[name]
    if not low <= value <= high:
        raise BotSpecError(
            f"bot {bot!r}: {name} must be {low}-{high} (about an hour a move at most), "
            f"got {value!r}"
        )


def check_budget(bot: str, options: Mapping[str, Any]) -> None:
    """Reject a ``time=`` outside [0, MAX_TIME] (NaN included) or an unknown
    ``clock=`` in one line: a budget that never runs out would hang the host."""
    if not 0 <= options["time"] <= MAX_TIME:
        raise BotSpecError(
            f"bot {bot!r}: time must be 0-{MAX_TIME:g} seconds, got {options['time']!r}"
        )
    if options["clock"] not in CLOCKS:
        raise BotSpecError(f"bot {bot!r}: clock must be wall or cpu")


class Budget:
    """A per-decision time budget: ``seconds`` (0 = none) on ``clock``."""

    __slots__ = ("_clock", "_deadline")

    def __init__(self, seconds: float, clock: str = "wall") -> None:
        self._clock = CLOCKS[clock]
        self._deadline = self._clock() + seconds if seconds > 0 else None

    def spent(self) -> bool:
        return self._deadline is not None and self._clock() >= self._deadline


class WorldEvaluator:
    """Scores worlds of one deal; keeps one ending solver per context so
    that its transposition table serves every world and candidate action of
    a decision. ``worlds`` and ``endings`` count the work done."""

    def __init__(self, exact_tricks: int = 1) -> None:
        self.exact_tricks = exact_tricks
        self._solvers: dict[tuple[int, bool, int], EndingSolver] = {}
        self.worlds = 0
        self.endings = 0

    def reset_tables(self) -> None:
        self._solvers.clear()

    def solver_for(self, deal: Deal) -> EndingSolver:
        pending = deal.seven_pending
        key = (deal.trump, pending, deal.rules.all_tricks_bonus)
        solver = self._solvers.get(key)
        if solver is None or len(solver.table) > TABLE_LIMIT:
            solver = EndingSolver(
                deal.trump, seven_pending=pending, all_tricks_bonus=deal.rules.all_tricks_bonus
            )
            self._solvers[key] = solver
        return solver

    def ending_value(self, deal: Deal) -> int:
        """Exact value for the player to move in a phase-2 position."""
        self.endings += 1
        return self.solver_for(deal).solve_value(deal)

    def value(self, world: Deal, player: int) -> int:
        """The score difference ``player`` minus opponent at the end of the
        deal, from ``world`` (which is left as it was)."""
        if world.is_over:
            points = world.points
            return points[player] - points[player ^ 1]
        if world.stock_empty:
            v = self.ending_value(world)
            return v if world.to_move == player else -v
        tricks_left = phase1_tricks_left(world)
        if tricks_left <= self.exact_tricks:
            v = self.exact_value(world, -INF, INF)
            return v if world.to_move == player else -v
        return self.playout_value(world, player)

    def playout_value(self, world: Deal, player: int) -> int:
        """One heuristic playout to the last draw, then the exact ending."""
        pushed = 0
        act = POLICY.act
        while not world.stock_empty:
            world.push(act(world))
            pushed += 1
        try:
            if world.is_over:  # cannot happen before trick 16, kept for safety
                points = world.points
                return points[player] - points[player ^ 1]
            v = self.ending_value(world)
            return v if world.to_move == player else -v
        finally:
            for _ in range(pushed):
                world.pop()

    def exact_value(self, world: Deal, alpha: int, beta: int) -> int:
        """Alpha-beta value for the player to move over the rest of the deal
        (phase 1 included), every card known. Windows are played greedily:
        with no hidden cards nothing is lost by declaring at once."""
        if world.stock_empty:
            return self.ending_value(world)
        me = world.to_move
        if world.in_window:
            pushed = 0
            while world.in_window:
                world.push(POLICY.window_action(world, me, world.legal_actions()))
                pushed += 1
            try:
                return self.exact_value(world, alpha, beta)
            finally:
                for _ in range(pushed):
                    world.pop()
        best = -INF
        for a in _card_order(world):
            world.push(a)
            if world.to_move == me:
                v = self.exact_value(world, max(alpha, best), beta)
            else:
                v = -self.exact_value(world, -beta, -max(alpha, best))
            world.pop()
            if v > best:
                best = v
                if best >= beta:
                    break
        return best


def _card_order(world: Deal) -> list[int]:
    """Cards to try, the heuristic's choice first (good alpha-beta order)."""
    legal = world.legal_actions()
    first = POLICY.act(world)
    if first in legal and legal[0] != first:
        legal.remove(first)
        legal.insert(0, first)
    return legal
