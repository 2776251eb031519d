"""The open view: phase-1 decisions judged with every card known (the true
deal), like bridge's double-dummy analysis.

Late in phase 1 (the last ``exact_tricks`` tricks before the stock runs
out) the values are exact: :func:`open_action_values` searches every
remaining action, meld windows included, by alpha-beta over the
:class:`~marjolet.engine.Deal` API, with the exact ending solver once the
stock is empty. Earlier a full search is not affordable and each action is
scored by one search of the true deal (a heuristic playout to the last
draw, then the exact ending: what the ``cheater`` bot does with its one
world), a deterministic estimate without a standard error, too coarse to
mark (see :mod:`marjolet.analysis.summary`).
"""

from __future__ import annotations

from marjolet.bots.heuristic import POLICY
from marjolet.bots.search import WorldEvaluator
from marjolet.bots.solver import INF
from marjolet.engine import Deal

#: Phase-1 tricks left (the current one included) up to which the open
#: view searches exhaustively: about 0.005 s a decision with one trick
#: left, 0.04 s with two, 0.2 s with three, 1 s with four (CPU time).
OPEN_EXACT_TRICKS = 3


class OpenSearch:
    """Exact values of late phase-1 positions of a fully known deal."""

    def __init__(self, evaluator: WorldEvaluator | None = None) -> None:
        self.evaluator = evaluator if evaluator is not None else WorldEvaluator(0)
        self._table: dict[tuple[int, ...], tuple[int, int]] = {}
        self.nodes = 0

    def value(self, deal: Deal, alpha: int = -INF, beta: int = INF) -> int:
        """The final deal-score difference for the player to move under best
        play by both with every card known (exact inside (alpha, beta))."""
        if deal.is_over:
            p = deal.points
            return p[0] - p[1]  # never reached before trick 16; kept for safety
        if deal.stock_empty:
            return self.evaluator.ending_value(deal)
        self.nodes += 1
        key = deal.state
        entry = self._table.get(key)
        if entry is not None:
            lo, hi = entry
            if lo >= beta or lo == hi:
                return lo
            if hi <= alpha:
                return hi
            alpha, beta = max(alpha, lo), min(beta, hi)
        a0, b0 = alpha, beta
        me = deal.to_move
        best = -INF
        for a in _ordered(deal):
            deal.push(a)
            floor = max(alpha, best)
            if deal.to_move == me:
                v = self.value(deal, floor, beta)
            else:
                v = -self.value(deal, -beta, -floor)
            deal.pop()
            if v > best:
                best = v
                if best >= beta:
                    break
        lo, hi = entry if entry is not None else (-INF, INF)
        if best <= a0:
            hi = min(hi, best)
        elif best >= b0:
            lo = max(lo, best)
        else:
            lo = hi = best
        self._table[key] = (lo, hi)
        return best

    def action_values(self, deal: Deal) -> dict[int, int]:
        """The exact value of every legal action for the player to move."""
        me = deal.to_move
        out: dict[int, int] = {}
        for a in deal.legal_actions():
            deal.push(a)
            v = self.value(deal)
            out[a] = v if deal.to_move == me else -v
            deal.pop()
        return out


def _ordered(deal: Deal) -> list[int]:
    """Legal actions, the heuristic's choice first (good alpha-beta order)."""
    legal = deal.legal_actions()
    first = POLICY.act(deal, legal)
    if first in legal and legal[0] != first:
        legal.remove(first)
        legal.insert(0, first)
    return legal


def playout_values(deal: Deal, evaluator: WorldEvaluator) -> dict[int, int]:
    """Each action scored by one search of the true deal (playout + exact
    ending): the early-phase-1 figure of the open view."""
    me = deal.to_move
    out: dict[int, int] = {}
    for a in deal.legal_actions():
        deal.push(a)
        out[a] = evaluator.value(deal, me)
        deal.pop()
    return out
