"""``ismcts``: single-observer information-set Monte Carlo tree search.

After Cowling, Powley and Whitehouse, "Information Set Monte Carlo Tree
Search" (IEEE TCIAIG 4(2), 2012), algorithm SO-ISMCTS. One tree is grown
over the bot's information set: every iteration deals a fresh world
consistent with the observation (a *determinization*,
:func:`~marjolet.observation.sample_world`) and walks the tree using only the
actions legal in that world. Selection is UCB1 where a child's exploration
term counts the iterations in which it was *available* rather than its
parent's visits (the paper's correction for actions that exist in some
worlds only). Every action of Marjolet is public, so opponent moves are
tree edges as in the paper; the cards drawn are not, and the tree treats
them as the paper's single observer does (it does not split on them).

The tree stops at the last draw: a world that reaches tricks 11-16 is
scored exactly by the ending solver, and a new leaf is scored by a playout
of the heuristic policy up to the last draw, then the solver. Rewards are
the deal-score difference divided by ``scale``, from the point of view of
the player who made each move. Once the stock is empty the bot plays the
solver's move.

Each iteration is the four steps of MCTS, one method each as in OpenSpiel's
``ismcts.py``: :meth:`IsmctsBot._select` (UCB descent in the sampled
world), :meth:`IsmctsBot._expand` (one new child), :meth:`IsmctsBot._simulate`
(playout and exact ending) and :meth:`IsmctsBot._backpropagate`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from marjolet.bots.base import Bot, BotSpecError, Param
from marjolet.bots.heuristic import public_deal
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


class Node:
    """A tree node: the move that led here and its statistics, from the
    point of view of ``player`` (who made that move)."""

    __slots__ = ("action", "available", "children", "player", "reward", "visits")

    def __init__(self, action: int, player: int) -> None:
        self.action = action
        self.player = player
        self.children: dict[int, Node] = {}
        self.visits = 0
        self.available = 0
        self.reward = 0.0

#: The most ``iterations=`` a decision: about an hour at the slowest
#: measured rate, some 1,500-2,000 iterations a second (docs/bots.md).
MAX_ITERATIONS = 10**7


class IsmctsBot(Bot):
    name = "ismcts"
    description = (
        "single-observer information-set MCTS (Cowling et al. 2012) with heuristic "
        "playouts and the exact ending solver at the last draw"
    )
    params = (
        Param("iterations", int, 600, "iterations (determinizations) per decision"),
        TIME_PARAM,
        Param("c", float, 0.7, "UCB exploration constant (rewards are score differences / scale)"),
        Param("scale", float, 100.0, "points per unit of reward"),
        Param("rollout", str, "heuristic", "playout policy: heuristic or random"),
        CLOCK_PARAM,
    )

    def __init__(self, *, seed: int | None = None, **options: object) -> None:
        super().__init__(seed=seed, **options)
        check_count(self.name, self.options, "iterations", 1, MAX_ITERATIONS)
        check_budget(self.name, self.options)
        if self.options["c"] < 0:
            raise BotSpecError("bot 'ismcts': c must be >= 0")
        if self.options["scale"] <= 0:
            raise BotSpecError("bot 'ismcts': scale must be > 0")
        if self.options["rollout"] not in ("heuristic", "random"):
            raise BotSpecError(
                "bot 'ismcts': rollout must be heuristic or random, "
                f"got {self.options['rollout']!r}"
            )
        self.evaluator = WorldEvaluator(exact_tricks=0)
        self._ending: EndingSolver | None = None
        self.last_iterations = 0
        self.last_values: dict[int, float] = {}

    def new_match(self, seed: int | None = None) -> None:
        super().new_match(seed)
        self.evaluator.reset_tables()
        self._ending = None

    def choose(self, obs: Observation, legal: Sequence[int]) -> int:
        if len(legal) == 1:
            self.last_values = {legal[0]: 0.0}
            return legal[0]
        if obs.stock_empty:
            return self._ending_move(obs)
        budget = Budget(self.options["time"], self.options["clock"])
        root = Node(-1, obs.seat ^ 1)
        random_rollout = self.options["rollout"] == "random"
        self.evaluator.reset_tables()
        n = 0
        while n < self.options["iterations"]:
            world = sample_world(obs, self.rng)  # this iteration's determinization
            path, untried = self._select(root, world)
            self._expand(path, untried, world)
            self._backpropagate(path, self._simulate(world, random_rollout))
            n += 1
            if budget.spent():
                break
        self.last_iterations = n
        scale = self.options["scale"]
        self.last_values = {
            a: ch.reward / ch.visits * scale for a, ch in root.children.items() if ch.visits
        }
        # the most visited action; the better mean breaks ties
        return max(
            (ch for ch in root.children.values() if ch.action in legal),
            key=lambda ch: (ch.visits, ch.reward / max(1, ch.visits)),
        ).action

    # -- the four steps of an iteration ------------------------------------------------

    def _select(self, root: Node, world: Deal) -> tuple[list[Node], list[int]]:
        """Selection: from the root, follow the child of best UCB among the
        actions legal in ``world`` (pushing them) while every one of them has
        a child. Returns the path walked and the legal actions still without
        a child where it stopped (none at the last draw or the end). Each
        child legal here counts one more iteration in which it was available."""
        c = self.options["c"]
        node = root
        path = [root]
        while not world.is_over and not world.stock_empty:
            actions = world.legal_actions()
            children = node.children
            untried = [a for a in actions if a not in children]
            for a in actions:
                child = children.get(a)
                if child is not None:
                    child.available += 1
            if untried:
                return path, untried
            best = None
            best_ucb = -math.inf
            for a in actions:
                child = children[a]
                ucb = child.reward / child.visits + c * math.sqrt(
                    math.log(child.available) / child.visits
                )
                if ucb > best_ucb:
                    best, best_ucb = child, ucb
            assert best is not None
            world.push(best.action)
            node = best
            path.append(best)
        return path, []

    def _expand(self, path: list[Node], untried: list[int], world: Deal) -> None:
        """Expansion: add a child for one untried action (chosen at random),
        push it and append it to the path."""
        if not untried:
            return
        rng = self.rng
        a = untried[rng.randrange(len(untried))] if len(untried) > 1 else untried[0]
        child = Node(a, world.to_move)
        child.available = 1
        path[-1].children[a] = child
        world.push(a)
        path.append(child)

    def _simulate(self, world: Deal, random_rollout: bool) -> int:
        """Simulation: player 0's final score difference from ``world`` (a
        playout to the last draw, then the exact ending)."""
        if world.is_over:
            p0, p1 = world.points
            return p0 - p1
        if not random_rollout:
            return self.evaluator.value(world, 0)
        pushed = 0
        rng = self.rng
        while not world.stock_empty:
            actions = world.legal_actions()
            world.push(actions[rng.randrange(len(actions))])
            pushed += 1
        v = self.evaluator.value(world, 0)
        for _ in range(pushed):
            world.pop()
        return v

    def _backpropagate(self, path: list[Node], diff0: int) -> None:
        """Backpropagation: every node of the path counts the visit and the
        reward from the point of view of the player who made its move."""
        scale = self.options["scale"]
        for nd in path:
            nd.visits += 1
            nd.reward += (diff0 if nd.player == 0 else -diff0) / scale

    def _ending_move(self, obs: Observation) -> int:
        deal = public_deal(obs)
        self._ending, action, values = ending_move(self._ending, deal)
        self.last_values = {a: float(v) for a, v in values.items()}
        return action


__all__ = ["IsmctsBot", "Node"]
