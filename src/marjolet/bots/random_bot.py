"""``random``: uniform over the legal actions. The floor of the ladder."""

from __future__ import annotations

from collections.abc import Sequence

from marjolet.bots.base import Bot
from marjolet.observation import Observation


class RandomBot(Bot):
    name = "random"
    description = "uniform over the legal actions (meld-window actions included)"

    def choose(self, obs: Observation, legal: Sequence[int]) -> int:
        return legal[self.rng.randrange(len(legal))]
