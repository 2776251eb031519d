"""The chance of winning a match from its totals (R22), for match-aware search.

A match is won at ``target`` points, not by deal margin: at 450-480 a deal
won by 20 can still lose the match. :func:`win_table` computes, by dynamic
programming over the totals, the probability that a player wins the match
from totals (mine, theirs) when it deals the next deal or not, assuming each
deal's points (dealer's, non-dealer's) follow the distribution measured in
self-play (``match_odds_data.OUTCOMES``, written by
``benchmarks/match_odds.py``), independently from deal to deal, the dealer
alternating. Totals count in steps of 10 points (every score of the game is
a multiple of 10). :func:`outcome_utility` turns the table into the grid the
kernel's search reads: the value of each possible final deal score of the
current deal, given the totals before it.
"""

from __future__ import annotations

from array import array
from functools import lru_cache

from marjolet.bots.match_odds_data import OUTCOMES

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
                tie = ties[1 - m]
                v = 0.0
                for a, b, w in mine[m]:
                    xa, yb = x + a, y + b
                    if xa >= n or yb >= n:
                        v += w * (1.0 if xa > yb else 0.0 if xa < yb else tie)
                    else:
                        v += w * nxt[xa][yb]
                table[m][x][y] = v
    return table


def match_odds(totals: tuple[int, int], deals_next: bool, target: int) -> float:
    """P(win the match) for a player with totals (mine, theirs) between
    deals, dealing the next deal or not."""
    x, y = totals
    if x >= target or y >= target:
        if x != y:
            return 1.0 if x > y else 0.0
        return tie_odds()[0 if deals_next else 1]
    return float(win_table(target)[1 if deals_next else 0][x // STEP][y // STEP])


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


__all__ = ["SIZE", "STEP", "match_odds", "outcome_utility", "tie_odds", "win_table"]
