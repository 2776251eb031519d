"""Advice for front ends: what the strongest bot would play, and how good it is.

``hint(obs, legal)`` runs the bot of :data:`marjolet.bots.STRONGEST` (or the
spec given) on the seat's own observation, so a hint never uses a card the
player cannot see, and returns a :class:`Hint`. It answers within about a
second with the default spec.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field

from marjolet.observation import Observation


@dataclass(frozen=True, slots=True)
class Hint:
    """The advised action and the bot's evaluation of it.

    ``value`` is the expected final deal-score difference (the seat minus
    its opponent, points already scored included) if the advised action is
    played; ``exact`` is true when it is exact (tricks 11-16 are solved)
    rather than an average over sampled worlds. ``values`` holds the same
    estimate for every legal action the bot scored (only the advised one
    when the bot chose without searching, as the strongest declares its
    melds at once: that one is then searched alone). A *forced* action (the
    only legal one) is not searched: ``forced`` is true, ``value`` is only
    the current difference and ``exact`` is false, so that no front end
    presents it as the outcome of the deal.
    """

    action: int
    value: float
    exact: bool
    values: Mapping[int, float] = field(default_factory=dict)
    forced: bool = False

    def __iter__(self) -> Iterator[float]:
        """``action, value = hint(obs, legal)``."""
        yield self.action
        yield self.value


def hint(
    obs: Observation, legal: Sequence[int], *, spec: str | None = None, seed: int | None = 0
) -> Hint:
    """Advice for the seat of ``obs``: ``(action, value)`` and more, see
    :class:`Hint`. ``seed`` makes the advice reproducible (``None``: fresh
    randomness each call)."""
    from marjolet.bots import STRONGEST, make_bot

    if not legal:
        raise ValueError("hint: there is no legal action (the deal is over or not the seat's turn)")
    bot = make_bot(spec or STRONGEST, seed=seed)
    action = bot.choose(obs, legal)
    raw: Mapping[int, float] = getattr(bot, "last_values", {}) or {}
    base = float(obs.points[obs.seat] - obs.points[obs.seat ^ 1])
    forced = len(legal) == 1
    values = {legal[0]: base} if forced else {int(a): float(v) for a, v in raw.items()}
    estimate = getattr(bot, "estimate", None)
    if action not in values and estimate is not None:
        # chosen without a search (the strongest bot declares its melds at
        # once): search the advised action alone for its margin; the others'
        # estimates would be biased (a sampled world knows which later
        # tricks a meld held back could still be declared after)
        values = {int(a): float(mean) for a, (mean, _) in estimate(obs, [action]).items()}
    exact = obs.stock_empty and not forced
    return Hint(action, values.get(action, base), exact, values, forced)
