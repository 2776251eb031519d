"""``novice``: a beginner's play, for the lowest level a player can choose.

A beginner knows the rules and the obvious moves but slips: at each card
play of tricks 1-10 it plays, with probability ``mistakes``, a legal card
drawn at random instead of the ``heuristic``'s card; with probability
``mistakes / 2`` it forgets to declare a meld or exchange the seven (it
draws at once). From trick 11 on it plays the ``heuristic``'s greedy
ending with the same slips. The rate tunes the level's strength without
making the play absurd (at ``mistakes=0`` it is ``heuristic``; at 1 it is
close to ``random``).
"""

from __future__ import annotations

from collections.abc import Sequence

from marjolet.actions import DRAW
from marjolet.bots.base import Bot, BotSpecError, Param
from marjolet.bots.heuristic import POLICY, public_deal
from marjolet.observation import Observation


class NoviceBot(Bot):
    name = "novice"
    description = (
        "a beginner: the heuristic's play with random slips (a random card, a forgotten meld)"
    )
    params = (
        Param("mistakes", float, 0.3, "chance of a random card at each card play (0-1)"),
    )

    def __init__(self, *, seed: int | None = None, **options: object) -> None:
        super().__init__(seed=seed, **options)
        if not 0.0 <= self.options["mistakes"] <= 1.0:
            raise BotSpecError(f"bot {self.name!r}: mistakes must be between 0 and 1")

    def choose(self, obs: Observation, legal: Sequence[int]) -> int:
        if len(legal) == 1:
            return legal[0]
        rate = float(self.options["mistakes"])
        if obs.in_window:
            if DRAW in legal and self.rng.random() < rate / 2:
                return DRAW
        elif self.rng.random() < rate:
            return self.rng.choice(list(legal))
        action = POLICY.act(public_deal(obs), legal)
        return action if action in legal else legal[0]


__all__ = ["NoviceBot"]
