"""``pimc``: sampled-world search (perfect-information Monte Carlo).

At each decision ``pimc`` deals the cards it cannot see at random in a way
consistent with its observation (:func:`~marjolet.observation.sample_world`),
scores every legal action in each of these worlds as if all cards were
known (:class:`~marjolet.bots.search.WorldEvaluator`: the exact ending
solver once the stock is empty, exact search over the last phase-1 tricks,
heuristic playouts before) and plays the action with the best total. Every
action of a world is scored on the same world, so the comparison between
actions is fair even with few worlds. Melds, the dix and the draw are
decisions like any other.

Once the stock is empty there is nothing hidden (R23): ``pimc`` then plays
the ending solver's move.

The ceiling ``cheater`` (:mod:`marjolet.bots.cheater`) searches the true
deal with ``best``'s search.
"""

from __future__ import annotations

from collections.abc import Sequence

from marjolet.bots.base import Bot, BotSpecError, Param
from marjolet.bots.heuristic import POLICY, public_deal
from marjolet.bots.search import (
    CLOCK_PARAM,
    TIME_PARAM,
    Budget,
    WorldEvaluator,
    check_budget,
    check_count,
)
from marjolet.bots.solver import EndingSolver, ending_move
from marjolet.engine import Deal
from marjolet.observation import Observation, sample_world

#: The most ``worlds=`` a decision: about an hour at the slowest measured
#: rate, some 275 worlds a second (docs/bots.md).
MAX_WORLDS = 10**6


class PimcBot(Bot):
    name = "pimc"
    description = (
        "sampled-world search: scores each action over worlds dealt consistently with its "
        "observation (heuristic playouts, exact late phase 1 and ending)"
    )
    params = (
        Param("worlds", int, 100, "worlds sampled per decision (the iteration budget)"),
        TIME_PARAM,
        Param("exact", int, 1, "solve sampled worlds exactly when this many phase-1 tricks remain"),
        CLOCK_PARAM,
    )

    def __init__(self, *, seed: int | None = None, **options: object) -> None:
        super().__init__(seed=seed, **options)
        check_count(self.name, self.options, "worlds", 1, MAX_WORLDS)
        check_budget(self.name, self.options)
        if not 0 <= self.options["exact"] <= 10:
            raise BotSpecError(f"bot {self.name!r}: exact must be 0-10")
        self.evaluator = WorldEvaluator(self.options["exact"])
        self._ending: EndingSolver | None = None
        #: worlds evaluated at the last decision (for benchmarks and hints)
        self.last_worlds = 0
        #: mean value of each action at the last decision
        self.last_values: dict[int, float] = {}

    def new_match(self, seed: int | None = None) -> None:
        super().new_match(seed)
        self.evaluator.reset_tables()
        self._ending = None

    def world(self, obs: Observation) -> Deal:
        """One world consistent with ``obs``."""
        return sample_world(obs, self.rng)

    def world_limit(self) -> int:
        """How many worlds a decision may evaluate."""
        return int(self.options["worlds"])

    def choose(self, obs: Observation, legal: Sequence[int]) -> int:
        if len(legal) == 1:
            self.last_values = {legal[0]: 0.0}
            return legal[0]
        if obs.stock_empty:
            return self._ending_move(obs)
        me = obs.seat
        budget = Budget(self.options["time"], self.options["clock"])
        totals = dict.fromkeys(legal, 0)
        value = self.evaluator.value
        worlds = 0
        self.evaluator.reset_tables()
        limit = self.world_limit()
        while worlds < limit:
            world = self.world(obs)
            for a in legal:
                world.push(a)
                totals[a] += value(world, me)
                world.pop()
            worlds += 1
            if budget.spent():
                break
        self.last_worlds = worlds
        self.last_values = {a: totals[a] / worlds for a in legal}
        preferred = POLICY.act(public_deal(obs), legal)
        return max(legal, key=lambda a: (totals[a], a == preferred))

    def _ending_move(self, obs: Observation) -> int:
        deal = public_deal(obs)  # phase 2: both hands are public (R23)
        self._ending, action, values = ending_move(self._ending, deal)
        self.last_values = {a: float(v) for a, v in values.items()}
        return action
