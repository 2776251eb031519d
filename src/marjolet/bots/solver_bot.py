"""``solver``: exact play once the stock is empty, the heuristic before.

From trick 11 on both hands are known (R23) and the ending solver
(:mod:`marjolet.bots.solver`) plays perfectly; among equally good cards it
takes the one that leaves the opponent the most room to go wrong, then the
lowest. Before that the bot plays exactly like ``heuristic``.
"""

from __future__ import annotations

from collections.abc import Sequence

from marjolet.bots.base import Bot
from marjolet.bots.heuristic import POLICY, public_deal
from marjolet.bots.solver import EndingSolver
from marjolet.observation import Observation


class SolverBot(Bot):
    name = "solver"
    description = "exact ending solver from trick 11 (stock empty); heuristic before"

    def __init__(self, *, seed: int | None = None, **options: object) -> None:
        super().__init__(seed=seed, **options)
        self._solver: EndingSolver | None = None

    def new_match(self, seed: int | None = None) -> None:
        super().new_match(seed)
        self._solver = None

    def choose(self, obs: Observation, legal: Sequence[int]) -> int:
        if len(legal) == 1:
            return legal[0]
        deal = public_deal(obs)
        if not obs.stock_empty:
            return POLICY.act(deal, legal)
        # phase 2: the public state holds both hands (R23)
        solver = self._solver
        if solver is None or not solver.matches(deal) or len(solver.table) > 200_000:
            solver = self._solver = EndingSolver.for_deal(deal)
        return solver.solve(deal).best[0]
