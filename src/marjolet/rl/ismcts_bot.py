"""``openspiel-ismcts``: OpenSpiel's own Python IS-MCTS playing Marjolet.

An outside implementation to measure our bots against: the search is
``open_spiel.python.algorithms.ismcts.ISMCTSBot`` (Cowling, Powley and
Whitehouse 2012) with random-rollout leaf evaluation, untouched, on the
``python_marjolet`` game (:mod:`marjolet.rl.openspiel`). The bot sees only
its :class:`~marjolet.observation.Observation`: it rebuilds a game state
consistent with it (:func:`~marjolet.rl.openspiel.state_from_observation`),
and the search resamples the hidden cards from there at every simulation.

The game is one deal: the search maximises the deal-score difference and
ignores the match totals. Spec: ``openspiel-ismcts:sims=200,uct_c=150``.
Reproducible under its seed (the search's generator, the rollouts' and the
resampler's all derive from it).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from marjolet.bots.base import Bot, BotSpecError, Param
from marjolet.observation import Observation

if TYPE_CHECKING:
    from marjolet.rl.openspiel import MarjoletState

_FINAL_POLICIES = ("visits", "value")


#: The largest exploration constant: beyond it OpenSpiel's UCT values lose
#: the precision to find the best child (1e22 ended in its AssertionError).
MAX_UCT_C = 1e6
#: The most simulations, and rollouts in all (sims x rollouts), a decision:
#: about an hour at the rate measured here, some 600 simulations of one
#: rollout a second (docs/bots.md); without it sims= alone never ended a move.
MAX_SIMS = 10**6


class OpenSpielISMCTSBot(Bot):
    name = "openspiel-ismcts"
    description = (
        "OpenSpiel's Python IS-MCTS with random rollouts on the python_marjolet game "
        "(an outside implementation, for comparison; needs the rl extra)"
    )
    params = (
        Param("sims", int, 200, "simulations per decision"),
        Param("uct_c", float, 150.0, "UCT exploration constant, in deal points"),
        Param("rollouts", int, 1, "random rollouts per evaluated leaf"),
        Param("worlds", int, -1, "distinct sampled worlds per search (-1: one per simulation)"),
        Param("final", str, "visits", "final choice: most 'visits' or best 'value'"),
    )

    def __init__(self, *, seed: int | None = None, **options: Any) -> None:
        super().__init__(seed=seed, **options)
        try:  # the rl extra is imported here, so that listing bots never needs it
            import numpy as np
            from open_spiel.python.algorithms import (  # type: ignore[import-untyped]
                ismcts,
                mcts,
            )

            from marjolet.rl import openspiel
        except ImportError as exc:
            raise BotSpecError(
                f"openspiel-ismcts needs the rl extra (pip install 'marjolet[rl]'): {exc}"
            ) from None
        self._modules = (np, ismcts, mcts, openspiel)
        opts = self.options
        problem = None
        hour = "(about an hour a move at most)"
        if not 1 <= opts["sims"] <= MAX_SIMS:
            problem = f"sims must be 1-{MAX_SIMS} {hour}, got {opts['sims']}"
        elif opts["rollouts"] < 1:
            problem = f"rollouts must be at least 1, got {opts['rollouts']}"
        elif opts["sims"] * opts["rollouts"] > MAX_SIMS:
            problem = (
                f"sims x rollouts must be at most {MAX_SIMS} {hour}, "
                f"got {opts['sims']} x {opts['rollouts']}"
            )
        elif opts["worlds"] == 0 or opts["worlds"] < -1:
            problem = f"worlds must be -1 or at least 1, got {opts['worlds']}"
        elif opts["final"] not in _FINAL_POLICIES:
            problem = f"final must be 'visits' or 'value', got {opts['final']!r}"
        elif not 0 <= opts["uct_c"] <= MAX_UCT_C:
            problem = f"uct_c must be 0-{MAX_UCT_C:.0f} (deal points), got {opts['uct_c']:g}"
        if problem is not None:
            raise BotSpecError(f"openspiel-ismcts: {problem}")
        self._reseed()

    def _reseed(self) -> None:
        np = self._modules[0]
        self.rng = random.Random(self.seed)
        self._np = np.random.RandomState(self.rng.getrandbits(32))

    def new_match(self, seed: int | None = None) -> None:
        super().new_match(seed)
        self._reseed()

    def choose(self, obs: Observation, legal: Sequence[int]) -> int:
        if len(legal) == 1:
            return legal[0]
        opts = self.options
        _, ismcts, mcts, openspiel = self._modules
        game = openspiel.game_for(obs.rules, obs.dealer)
        state = openspiel.state_from_observation(game, obs, self.rng)
        final = (
            ismcts.ISMCTSFinalPolicyType.MAX_VISIT_COUNT
            if opts["final"] == "visits"
            else ismcts.ISMCTSFinalPolicyType.MAX_VALUE
        )
        evaluator = mcts.RandomRolloutEvaluator(n_rollouts=opts["rollouts"], random_state=self._np)
        search = ismcts.ISMCTSBot(
            game,
            evaluator,
            uct_c=opts["uct_c"],
            max_simulations=opts["sims"],
            max_world_samples=opts["worlds"],
            random_state=self._np,
            final_policy_type=final,
        )
        rng = self.rng

        def resample(s: MarjoletState, player: int) -> MarjoletState:
            return s.resample(player, rng)

        search.set_resampler(resample)
        action = int(search.step(state))
        if action not in legal:  # cannot happen: the search expands legal actions only
            raise RuntimeError(f"openspiel-ismcts chose {action}, not one of {list(legal)}")
        return action
