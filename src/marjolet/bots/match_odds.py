"""The chance of winning a match from its totals (R22), for match-aware search.

A match is won at ``target`` points, not by deal margin: at 450-480 a deal
won by 20 can still lose the match. :func:`win_table` computes, by dynamic
programming over the totals, the probability that a player wins the match
from totals (mine, theirs) when it deals the next deal or not, assuming each
deal's points (dealer's, non-dealer's) follow the distribution measured in
self-play (``match_odds_data.OUTCOMES``, written by
``benchmarks/match_odds.py``), independently from deal to deal, the dealer
alternating. Totals count in steps of 10 points (every score of the game is
a multiple of 10, but for an all-six bonus set to another value, which the
grid rounds). :func:`outcome_utility` turns the table into the grid the
kernel's search reads: the value of each possible final deal score of the
current deal, given the totals before it. :func:`final_points` is the
Python twin of the kernel's ``mj_final_points`` (each side's final deal
points from a position and its margin), and :func:`utility_of` reads a grid
as the kernel does, so that the pure-Python search can score worlds by the
same match utility. :func:`misfit` says how far the chance of winning the
match departs from a straight line in the deal margin at given totals (the
game review's test of "near the end of the match", docs/review.md).
"""

from __future__ import annotations

import math
from array import array
from functools import lru_cache

from marjolet.bots.match_odds_data import OUTCOMES
from marjolet.cards import CARD_POINTS
from marjolet.engine import Deal
from marjolet.rules import LAST_CARD_POINTS, LAST_TRICK_POINTS, SEVEN_POINTS, match_decided

#: Points per step of the tables (every score is a multiple of 10).
STEP = 10
#: Final deal points per side the kernel's grid covers: 0..(SIZE-1)*STEP
#: (search.h's MJ_UTIL_SIZE; higher scores are clamped to the last row).
SIZE = 64


def _distribution() -> tuple[list[tuple[int, int, float]], float]:
    """(dealer steps, non-dealer steps, probability) and P(both sides equal)."""
    total = sum(n for _, _, n in OUTCOMES)
    out = [(d // STEP, o // STEP, n / total) for d, o, n in OUTCOMES if d + o > 0]
    return out, sum(n for d, o, n in OUTCOMES if d == o) / total


@lru_cache(maxsize=4)
def tie_odds() -> tuple[float, float]:
    """P(win) from equal totals at or above the target (R22: deals go on
    until the totals differ), for (the player deals next, it does not)."""
    dist, _ = _distribution()
    # p[m]: P(win the next deal outright), q: P(a tied deal), m = I deal
    p = [sum(w for d, o, w in dist if (d > o if m else o > d)) for m in (0, 1)]
    q = sum(w for d, o, w in dist if d == o)
    # T(m) = p[m] + q T(1 - m)
    t1 = (p[1] + q * p[0]) / (1 - q * q)
    t0 = (p[0] + q * p[1]) / (1 - q * q)
    return t1, t0


@lru_cache(maxsize=4)
def win_table(target: int) -> tuple[tuple[array[float], ...], tuple[array[float], ...]]:
    """``table[m][x][y]``: P(win the match) with totals x*STEP (mine) and
    y*STEP (theirs), both below ``target``, when I deal the next deal
    (m = 1) or the opponent does (m = 0)."""
    if target <= 0:
        raise ValueError(f"target must be > 0, got {target}")
    n = -(-target // STEP)
    dist, _ = _distribution()
    ties = tie_odds()
    # the outcomes as (my steps, their steps, p), for m = 0 and m = 1
    mine = ([(o, d, w) for d, o, w in dist], [(d, o, w) for d, o, w in dist])
    table = (
        tuple(array("d", bytes(8 * n)) for _ in range(n)),
        tuple(array("d", bytes(8 * n)) for _ in range(n)),
    )
    for s in range(2 * n - 2, -1, -1):  # every deal raises x + y: later sums first
        for x in range(max(0, s - n + 1), min(n - 1, s) + 1):
            y = s - x
            for m in (0, 1):
                nxt = table[1 - m]
                tie = ties[m]  # tied at the end: the next deal is the other player's
                v = 0.0
                for a, b, w in mine[m]:
                    xa, yb = x + a, y + b
                    if xa >= n or yb >= n:
                        v += w * (1.0 if xa > yb else 0.0 if xa < yb else tie)
                    else:
                        v += w * nxt[xa][yb]
                table[m][x][y] = v
    return table


#: The farthest distance from the target that the odds tell apart: a total
#: farther from it counts as this far. The chance depends only on the two
#: distances to the target, so a longer match reads this table, shifted; a
#: player some twenty deals or more from the end is barely nearer it for
#: one deal's points, while the table's cost grows with the square of the
#: target (about 3 s at 2,000 points, where 10,000 would take a minute).
HORIZON = 2000


def match_odds(totals: tuple[int, int], deals_next: bool, target: int) -> float:
    """P(win the match) for a player with totals (mine, theirs) between
    deals, dealing the next deal or not (totals farther than
    :data:`HORIZON` from the target count as that far)."""
    x, y = totals
    if match_decided(totals, target):
        return 1.0 if x > y else 0.0
    if x >= target:  # level at or above the target: one more deal (R22)
        return tie_odds()[0 if deals_next else 1]
    shift = max(0, target - HORIZON)
    x, y = max(x - shift, 0), max(y - shift, 0)
    return float(win_table(target - shift)[1 if deals_next else 0][x // STEP][y // STEP])


@lru_cache(maxsize=64)
def outcome_utility(totals: tuple[int, int], deals_now: bool, target: int) -> bytes:
    """The kernel's utility grid (``SIZE`` x ``SIZE`` float64, row = my final
    deal points / STEP): P(win the match) after the current deal ends with
    those points, from the totals before it; I deal the next deal if I do
    not deal this one."""
    x, y = totals
    out = array("d")
    for a in range(SIZE):
        for b in range(SIZE):
            out.append(match_odds((x + a * STEP, y + b * STEP), not deals_now, target))
    return out.tobytes()


def final_points(deal: Deal, seat: int, diff: int) -> tuple[int, int]:
    """(seat's, opponent's) final deal points of a deal that reaches
    ``deal`` and ends with margin ``diff`` (seat minus opponent): the points
    still to come are the loose cards, the last trick, the last stock card
    and the seven when they are still to score (R15, R17, R19); a margin
    gained beyond them came from melds (phase 1) or the all-six bonus
    (R17). The twin of the kernel's ``mj_final_points`` (search.c)."""
    points = deal.points
    total = points[0] + points[1]
    if not deal.is_over:
        loose = ~(deal.won_mask(0) | deal.won_mask(1))
        rest = LAST_TRICK_POINTS + sum(CARD_POINTS[c] for c in range(32) if loose >> c & 1)
        if deal.last_card_to is None:
            rest += LAST_CARD_POINTS
        if deal.seven_pending:
            rest += SEVEN_POINTS
        gained = abs(diff - (points[seat] - points[seat ^ 1]))
        if gained > rest:
            rest = rest + deal.rules.all_tricks_bonus if deal.stock_empty else gained
        total += rest
    mine = int((total + diff) / 2)  # C's division: towards zero
    return max(0, mine), max(0, total - mine)


def utility_of(grid: bytes, points: tuple[int, int]) -> float:
    """The value of ``grid`` (:func:`outcome_utility`) for final deal points
    (mine, theirs), rounded and clamped as the kernel reads it."""
    table = _grid(grid)
    a = min((points[0] + 5) // STEP, SIZE - 1)
    b = min((points[1] + 5) // STEP, SIZE - 1)
    return float(table[a * SIZE + b])


@lru_cache(maxsize=64)
def _grid(grid: bytes) -> array[float]:
    out = array("d")
    out.frombytes(grid)
    return out


@lru_cache(maxsize=4096)
def misfit(totals: tuple[int, int], deals_now: bool, target: int) -> float:
    """How far the chance of winning the match after this deal departs
    from a straight line in the deal margin, from totals (mine, theirs)
    before it: the root mean square residual of the least-squares line
    through the chance after each measured deal outcome (weighted by its
    frequency) against the margin. 0 where a point of margin is worth the
    same chance whatever the outcome (early in a match, or a match already
    decided either way); ~0.24 at 400-400 of 500 (in chance units, 0-1)."""
    dist, _ = _distribution()
    x, y = totals
    rows = []
    for d, o, w in dist:
        a, b = (d, o) if deals_now else (o, d)
        chance = match_odds((x + a * STEP, y + b * STEP), not deals_now, target)
        rows.append(((a - b) * STEP, chance, w))
    weight = math.fsum(w for _, _, w in rows)
    mx = math.fsum(m * w for m, _, w in rows) / weight
    mu = math.fsum(u * w for _, u, w in rows) / weight
    sxx = math.fsum(w * (m - mx) ** 2 for m, _, w in rows)
    sxy = math.fsum(w * (m - mx) * (u - mu) for m, u, w in rows)
    syy = math.fsum(w * (u - mu) ** 2 for _, u, w in rows)
    residual = syy - (sxy * sxy / sxx if sxx > 0 else 0.0)
    return math.sqrt(max(0.0, residual) / weight)


__all__ = [
    "SIZE",
    "STEP",
    "final_points",
    "match_odds",
    "misfit",
    "outcome_utility",
    "tie_odds",
    "utility_of",
    "win_table",
]
