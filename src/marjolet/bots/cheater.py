"""``cheater``: ``best``'s search on the true deal, a ceiling for measuring.

The host shows the cheater the true deal (:meth:`Bot.see_deal`, called by
the turn driver before each decision), so it searches one world, the real
one, with everything ``best`` has: the exact perfect-information search of
the deal (its stock order included) as early in phase 1 as its budget
allows, noisy playouts of the tuned policy averaged over the rest of the budget
before that, the exact ending solver, the match-aware values. What it wins
against ``best`` at the same budget is what hidden information still costs;
that gap means something only if the cheater is strong, hence the exact
search from as far as the budget reaches (:data:`EXACT_SECONDS`).

Without the C kernel it is the pure-Python search of ``best`` on the true
deal (exact over the last phase-1 trick only).
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

from marjolet.bots.base import BotSpecError, Param
from marjolet.bots.best import BestBot, WorldSpec, world_spec
from marjolet.cards import CardSet
from marjolet.engine import STOCK_CARDS, Deal
from marjolet.history import phase1_tricks_left
from marjolet.kernel import kernel_deal
from marjolet.observation import Observation, world_deal

#: CPU seconds the kernel's exact search of one deal takes for every legal
#: action, by phase-1 tricks left (the 90th percentile of positions reached
#: by heuristic play, 6 deals, /work/probe-style measurement recorded in
#: docs/bots.md): the cheater searches exactly from the most tricks whose
#: cost fits its budget a move.
EXACT_SECONDS = {2: 0.0005, 3: 0.0025, 4: 0.010, 5: 0.047, 6: 0.165, 7: 1.2}

#: What the cheater is shown (``sees=``).
SEES = ("all", "hand")

_SHARED = (
    "time",
    "clock",
    "exact",
    "eval",
    "noise",
    "infer",
    "recent",
    "paired",
    "match",
    "declare",
)


def _cheater_params() -> tuple[Param, ...]:
    """``best``'s parameters that make sense with one known world; ``exact``
    defaults to the budget's reach."""
    out = []
    for p in BestBot.params:
        if p.name == "exact":
            p = dataclasses.replace(
                p,
                help="search the true deal exactly when this many phase-1 tricks remain "
                "(-1 = as many as the budget a move allows, see docs/bots.md)",
            )
        if p.name in _SHARED:
            out.append(p)
    out.append(Param("worlds", int, 0, "at most this many playouts of the true deal (0 = no cap)"))
    out.append(
        Param(
            "sees",
            str,
            "all",
            "what it is shown: all (the opponent's hand and the stock order) or hand (the "
            "opponent's hand only; the stock is sampled): what each kind of knowledge is worth",
        )
    )
    out.append(
        Param(
            "from",
            int,
            1,
            "shown nothing before this trick (1-10): it plays as best until then, so "
            "what the knowledge is worth can be split by trick",
        )
    )
    return tuple(out)


def exact_reach(seconds: float) -> int:
    """The most phase-1 tricks whose exact search fits ``seconds`` a move."""
    fits = [tricks for tricks, cost in EXACT_SECONDS.items() if cost <= seconds]
    return max(fits, default=2)


class CheaterBot(BestBot):
    name = "cheater"
    description = (
        "best's search on the TRUE deal (sees the hidden cards; exact as early as the "
        "budget allows): not for play, a ceiling showing what hidden information costs"
    )
    sees_hidden_cards = True
    #: The most ``worlds=`` (playouts of the true deal) a decision: about an
    #: hour at the slowest measured rate, some 29,000 a second (docs/bots.md).
    max_worlds = 10**8
    params = _cheater_params()

    def __init__(self, *, seed: int | None = None, **options: object) -> None:
        super().__init__(seed=seed, **options)
        if self.options["sees"] not in SEES:
            raise BotSpecError(f"bot {self.name!r}: sees must be one of {', '.join(SEES)}")
        if not 1 <= self.options["from"] <= 11:
            raise BotSpecError(f"bot {self.name!r}: from must be 1-11")
        self._deal: Deal | None = None

    def see_deal(self, deal: Deal) -> None:
        self._deal = deal

    def exact_tricks(self) -> int:
        exact = int(self.options["exact"])
        return exact if exact >= 0 else exact_reach(float(self.options["time"]))

    def _true_deal(self, obs: Observation) -> Deal:
        deal = self._deal
        if deal is None or deal.moves != list(obs.actions) or deal.dealer != obs.dealer:
            raise RuntimeError(
                "cheater: the host did not show the true deal before choose() "
                "(hosts must call see_deal(deal) for bots with sees_hidden_cards)"
            )
        return deal

    def _opponent_hidden(self, obs: Observation) -> int:
        """The opponent's cards the seat cannot see, read from the true deal."""
        return self._true_deal(obs).hand_mask(obs.seat ^ 1) & obs.unseen.mask

    def _blind(self, obs: Observation) -> bool:
        """Whether the decision at ``obs`` comes before trick ``from``."""
        trick = obs.tricks_played + (0 if obs.in_window else 1)
        return trick < int(self.options["from"])

    def _world_source(self, obs: Observation) -> tuple[Any, WorldSpec]:
        if self._blind(obs):
            return super()._world_source(obs)
        deal = self._true_deal(obs)
        if self.options["sees"] == "all":
            nothing_unseen = WorldSpec(0, 0, STOCK_CARDS, tuple(deal.stock))
            return kernel_deal(deal), nothing_unseen
        spec = world_spec(obs)
        hidden = self._opponent_hidden(obs)
        only_stock = WorldSpec(spec.unseen & ~hidden, 0, spec.first_slot, spec.stock)
        return kernel_deal(world_deal(obs, hidden, spec.stock)), only_stock

    def _world_cap(self, obs: Observation) -> float:
        tricks_left = phase1_tricks_left(obs)
        if self._blind(obs):
            return super()._world_cap(obs)
        if self.options["sees"] == "all" and tricks_left <= self.exact_tricks():
            return 1.0  # the exact search of one known deal: one answer
        return float(self.options["worlds"] or math.inf)

    def _python_world(self, obs: Observation) -> Deal:
        if self._blind(obs):
            return super()._python_world(obs)
        if self.options["sees"] == "all":
            return self._true_deal(obs).copy(stack=False)
        spec = world_spec(obs)
        hidden = self._opponent_hidden(obs)
        rest = list(CardSet(spec.unseen & ~hidden))
        self.rng.shuffle(rest)  # the stock still to draw, in a random order
        stock = list(spec.stock)
        stock[spec.first_slot : spec.first_slot + len(rest)] = rest
        return world_deal(obs, hidden, stock)
