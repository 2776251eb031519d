"""When the review speaks of the chance of winning the match.

A deal's points count towards the match (R22): early in a match each point
of deal margin is worth about the same chance of winning it, so the review
judges decisions in deal points. Near the end it is not so: at 450-480 of
500 a deal won by 20 can still lose the match, and the ``best`` bot, which
plays for the match, maximises its chance of winning it. The review then
also gives each action's chance of winning the match (the match table of
:mod:`marjolet.bots.match_odds` read at the final deal points of each
sampled world) and, where the bot plays for the match, judges the decision
by the chance lost (:data:`marjolet.analysis.marks.CHANCE`).

*Near the end* is read from the match table itself: from the totals at the
start of the deal and who deals, the chance of winning the match after each
measured deal outcome is fitted by a straight line in the deal margin
(:func:`~marjolet.bots.match_odds.misfit`); the match is near its end when
that line misses by :data:`NEAR_END_MISFIT` or more (root mean square, in
chance units). At the target of 500 that is from about 350-350 for level
totals (12 percentage points; 300-300 gives 5), 400-300 or 450-300 for
uneven ones (400-250 sits on the line); never while a total is below 250, nor when the match is all
but decided (450-100: under 1 point). docs/review.md has the table.
"""

from __future__ import annotations

from marjolet.bots.match_odds import misfit
from marjolet.observation import Observation

#: The match is near its end when the chance of winning it departs from a
#: straight line in the deal margin by this much (0-1, root mean square).
NEAR_END_MISFIT = 0.10


def near_end(obs: Observation) -> bool:
    """Whether the deal of ``obs`` is played near the end of its match (the
    same for both players of the deal)."""
    seat = obs.seat
    totals = (obs.totals[seat], obs.totals[seat ^ 1])
    return misfit(totals, obs.dealer == seat, obs.rules.target) >= NEAR_END_MISFIT


def percent(chance: float, *, certain: bool = True) -> str:
    """A chance in whole percent for a player's eyes: ``62``; ``<1`` and
    ``>99`` rather than a 0 or a 100 that is not certain. A chance that is
    an estimate (``certain=False``: the hidden cards were sampled) is never
    shown as 0 or 100: every sampled hand losing does not make a loss sure.

    >>> percent(0.0), percent(0.0, certain=False), percent(0.996), percent(1.0, certain=False)
    ('0', '<1', '>99', '>99')
    """
    n = round(100 * chance)
    if n <= 0 and (chance > 0 or not certain):
        return "<1"
    if n >= 100 and (chance < 1 or not certain):
        return ">99"
    return str(n)


__all__ = ["NEAR_END_MISFIT", "near_end", "percent"]
