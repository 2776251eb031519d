"""The statistics of the arena, in plain Python (no third-party package).

Every interval here is a two-sided 95% interval. The unit of independence of
duplicate play is the *pair* (one deck sequence played twice with the seats
swapped): the two matches of a pair share their cards, so their results are
correlated, and the intervals that can use that structure (deal-point margin,
match margin, Elo of a pairing, the SPRT) are computed from per-pair values.
The win-rate interval is the Wilson score interval on matches, as asked for
by the arena's users; it ignores the pairing, which makes it slightly wide
(cautious) because duplicate pairs cancel luck.

Functions:

- :func:`wilson` - Wilson score interval of a binomial proportion.
- :func:`t_quantile` - the 97.5% quantile of Student's t (table + limit).
- :func:`mean_interval` - mean and t interval of independent values.
- :func:`ratio_interval` - ratio estimator sum(y)/sum(x) over clusters with
  its delta-method (cluster-robust) interval.
- :func:`elo_from_score` / :func:`score_from_elo` - the logistic Elo scale.
- :func:`pair_elo` - Elo of a pairing from its duplicate pair scores.
- :func:`bradley_terry` - maximum-likelihood ratings of several bots with a
  BayesElo-style prior and intervals from the observed information.
- :func:`sprt_llr` / :class:`SprtBounds` - the sequential probability ratio
  test on duplicate pair scores, as in chess engine testing (GSPRT with the
  normal approximation).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

#: z for a two-sided 95% interval.
Z95 = 1.959963984540054

#: 97.5% quantiles of Student's t for 1..30 degrees of freedom.
_T975 = (
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
    2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
    2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
)

#: Elo points per natural-log unit of the odds ratio (400 / ln 10).
ELO_PER_NAT = 400.0 / math.log(10.0)

Interval = tuple[float, float]


def wilson(successes: int, trials: int, z: float = Z95) -> Interval:
    """Wilson score interval of ``successes / trials`` (Wilson, 1927).

    Unlike the normal ("Wald") interval it stays inside [0, 1] and is sound
    for small samples and for proportions near 0 or 1.
    """
    if trials <= 0:
        raise ValueError("wilson: trials must be positive")
    if not 0 <= successes <= trials:
        raise ValueError("wilson: successes must be between 0 and trials")
    p = successes / trials
    z2 = z * z
    denominator = 1.0 + z2 / trials
    centre = (p + z2 / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z2 / (4 * trials * trials)) / denominator
    return (max(0.0, centre - half), min(1.0, centre + half))


def t_quantile(df: int) -> float:
    """The 97.5% quantile of Student's t with ``df`` degrees of freedom.

    Exact table values up to 30; beyond, the Cornish-Fisher expansion
    around the normal quantile (error below 1e-4 for df > 30).
    """
    if df < 1:
        raise ValueError("t_quantile: df must be at least 1")
    if df <= len(_T975):
        return _T975[df - 1]
    z = Z95
    g1 = (z**3 + z) / 4
    g2 = (5 * z**5 + 16 * z**3 + 3 * z) / 96
    g3 = (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / 384
    return z + g1 / df + g2 / df**2 + g3 / df**3


def mean_interval(values: Sequence[float]) -> tuple[float, Interval | None]:
    """The mean of independent values and its 95% t interval.

    The interval is ``None`` with fewer than two values (no variance).
    """
    n = len(values)
    if n == 0:
        raise ValueError("mean_interval: no values")
    mean = math.fsum(values) / n
    if n < 2:
        return mean, None
    var = math.fsum((v - mean) ** 2 for v in values) / (n - 1)
    half = t_quantile(n - 1) * math.sqrt(var / n)
    return mean, (mean - half, mean + half)


def ratio_interval(
    numerators: Sequence[float], denominators: Sequence[float]
) -> tuple[float, Interval | None]:
    """The ratio estimator ``sum(y) / sum(x)`` over independent clusters and
    its 95% interval (delta method, cluster-robust).

    Used for the mean deal-point margin: each duplicate pair is a cluster
    whose ``y`` is the sum of its deal margins and ``x`` its number of deals,
    so deals of one pair (which share cards and bots) are not wrongly
    counted as independent.
    """
    n = len(numerators)
    if n == 0 or n != len(denominators):
        raise ValueError("ratio_interval: need equally many numerators and denominators")
    total_x = math.fsum(denominators)
    if total_x <= 0:
        raise ValueError("ratio_interval: the denominators must add up to a positive number")
    ratio = math.fsum(numerators) / total_x
    if n < 2:
        return ratio, None
    mean_x = total_x / n
    residuals = [y - ratio * x for y, x in zip(numerators, denominators, strict=True)]
    var = math.fsum(r * r for r in residuals) / (n - 1) / (n * mean_x * mean_x)
    half = t_quantile(n - 1) * math.sqrt(var)
    return ratio, (ratio - half, ratio + half)


def elo_from_score(score: float) -> float:
    """Elo difference of an expected score in (0, 1) (logistic scale); an
    even score is 0.0, not the ``-0.0`` of ``-400 * log10(1)``."""
    if not 0.0 < score < 1.0:
        raise ValueError(f"elo_from_score: score must be in (0, 1), got {score!r}")
    return -400.0 * math.log10(1.0 / score - 1.0) + 0.0


def score_from_elo(elo: float) -> float:
    """Expected score of an Elo difference (logistic scale)."""
    return 1.0 / (1.0 + math.pow(10.0, -elo / 400.0))


def clamp_score(score: float, matches: int) -> float:
    """Keep a score away from 0 and 1 by half a match so that its Elo is
    finite: a clean sweep of N matches is reported as N - 1/2 wins."""
    eps = 0.5 / max(matches, 1)
    return min(max(score, eps), 1.0 - eps)


def pair_elo(pair_scores: Sequence[float], matches: int) -> tuple[float, Interval | None]:
    """Elo difference of a pairing and its 95% interval.

    ``pair_scores`` holds one value per duplicate pair, the first bot's
    share of its two matches: 1, 1/2 or 0. The interval is the t interval
    of their mean mapped through the Elo curve, so it accounts for the
    correlation between the two matches of a pair. When every pair has the
    same score (no variance) or the mean is 0 or 1, it falls back on the
    Wilson interval of the match score. Scores are clamped by
    :func:`clamp_score` so that the figures stay finite.
    """
    mean, interval = mean_interval(pair_scores)
    elo = elo_from_score(clamp_score(mean, matches))
    if interval is None:
        return elo, None
    lo, hi = interval
    if hi - lo <= 0.0 or mean in (0.0, 1.0):
        wins = round(mean * matches)
        lo, hi = wilson(wins, matches)
    return elo, (
        elo_from_score(clamp_score(lo, matches)),
        elo_from_score(clamp_score(hi, matches)),
    )


# -- ratings of several bots ----------------------------------------------------


@dataclass(frozen=True, slots=True)
class RatingEstimate:
    """A bot's rating on the Elo scale relative to the anchor."""

    elo: float
    #: 95% interval of the difference to the anchor; ``None`` for the anchor.
    interval: Interval | None


def bradley_terry(
    names: Sequence[str],
    wins: Mapping[tuple[str, str], int],
    anchor: str,
    prior_draws: float = 2.0,
    tolerance: float = 1e-10,
    max_iterations: int = 10_000,
) -> dict[str, RatingEstimate]:
    """Maximum-likelihood (Bradley-Terry) ratings on the Elo scale.

    ``wins[(a, b)]`` is the number of matches ``a`` won against ``b``. As in
    BayesElo, every pairing that was played gets ``prior_draws`` virtual
    drawn matches (half a win each way per virtual draw), which keeps the
    estimates finite when one bot won every match, and shrinks them a
    little towards equality. The ratings are the maximum of the resulting
    posterior, found by the minorisation-maximisation iteration of Hunter
    (2004); the intervals come from the inverse of the observed information
    with the anchor fixed at 0. Bots connected to the anchor by no chain of
    played pairings get an infinite interval.
    """
    index = {name: i for i, name in enumerate(names)}
    if anchor not in index:
        raise ValueError(f"bradley_terry: anchor {anchor!r} is not one of the bots")
    k = len(names)
    won = [[0.0] * k for _ in range(k)]  # won[i][j]: wins of i over j, prior included
    for (a, b), count in wins.items():
        won[index[a]][index[b]] += count
    for i in range(k):
        for j in range(i + 1, k):
            if won[i][j] + won[j][i] > 0:
                won[i][j] += prior_draws / 2
                won[j][i] += prior_draws / 2
    games = [[won[i][j] + won[j][i] for j in range(k)] for i in range(k)]
    total_wins = [math.fsum(row) for row in won]
    strength = [1.0] * k
    for _ in range(max_iterations):
        change = 0.0
        for i in range(k):
            denominator = math.fsum(
                games[i][j] / (strength[i] + strength[j])
                for j in range(k)
                if j != i and games[i][j]
            )
            if denominator <= 0.0 or total_wins[i] <= 0.0:
                continue
            new = total_wins[i] / denominator
            change = max(change, abs(math.log(new / strength[i])))
            strength[i] = new
        # Normalise (the scale is free) to keep the numbers well conditioned.
        log_mean = math.fsum(math.log(s) for s in strength) / k
        strength = [s / math.exp(log_mean) for s in strength]
        if change < tolerance:
            break
    theta = [math.log(s) for s in strength]
    fixed = index[anchor]
    others = [i for i in range(k) if i != fixed]
    # Observed information of the log-strengths, anchor row and column removed.
    info = [[0.0] * len(others) for _ in others]
    for r, i in enumerate(others):
        for c, j in enumerate(others):
            if i == j:
                info[r][c] = math.fsum(
                    games[i][m] * _pq(theta[i], theta[m]) for m in range(k) if m != i
                )
            else:
                info[r][c] = -games[i][j] * _pq(theta[i], theta[j])
    covariance = _inverse(info)
    out: dict[str, RatingEstimate] = {}
    for i, name in enumerate(names):
        elo = (theta[i] - theta[fixed]) * ELO_PER_NAT
        if i == fixed:
            out[name] = RatingEstimate(0.0, None)
            continue
        r = others.index(i)
        var = covariance[r][r] if covariance is not None else math.inf
        half = Z95 * math.sqrt(var) * ELO_PER_NAT if math.isfinite(var) and var >= 0 else math.inf
        out[name] = RatingEstimate(elo, (elo - half, elo + half))
    return out


def _pq(theta_i: float, theta_j: float) -> float:
    p = 1.0 / (1.0 + math.exp(theta_j - theta_i))
    return p * (1.0 - p)


def _inverse(matrix: list[list[float]]) -> list[list[float]] | None:
    """Gauss-Jordan inverse with partial pivoting; ``None`` if singular."""
    n = len(matrix)
    work = [row[:] + [1.0 if i == j else 0.0 for j in range(n)] for i, row in enumerate(matrix)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(work[r][col]))
        if abs(work[pivot][col]) < 1e-12:
            return None
        work[col], work[pivot] = work[pivot], work[col]
        scale = work[col][col]
        work[col] = [v / scale for v in work[col]]
        for r in range(n):
            if r != col and work[r][col] != 0.0:
                factor = work[r][col]
                work[r] = [v - factor * w for v, w in zip(work[r], work[col], strict=True)]
    return [row[n:] for row in work]


# -- sequential probability ratio test -------------------------------------------


@dataclass(frozen=True, slots=True)
class SprtBounds:
    """An SPRT of H0: Elo = ``elo0`` against H1: Elo = ``elo1`` with error
    rates ``alpha`` (accepting H1 when H0 holds) and ``beta``."""

    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05

    def __post_init__(self) -> None:
        if not self.elo0 < self.elo1:
            raise ValueError(f"SPRT needs ELO0 < ELO1, got {self.elo0} and {self.elo1}")
        for name, value in (("alpha", self.alpha), ("beta", self.beta)):
            if not 0.0 < value < 0.5:
                raise ValueError(f"SPRT {name} must be between 0 and 0.5, got {value}")

    @property
    def lower(self) -> float:
        """Accept H0 when the log-likelihood ratio falls to this."""
        return math.log(self.beta / (1.0 - self.alpha))

    @property
    def upper(self) -> float:
        """Accept H1 when the log-likelihood ratio rises to this."""
        return math.log((1.0 - self.beta) / self.alpha)

    def decide(self, llr: float) -> str | None:
        """``"H1"``, ``"H0"`` or ``None`` (keep playing)."""
        if llr >= self.upper:
            return "H1"
        if llr <= self.lower:
            return "H0"
        return None


#: Virtual pairs of each outcome (0, 1/2, 1) added to the observed ones so
#: that the variance is never zero on a handful of identical results.
SPRT_PSEUDO_PAIRS = 0.5


def sprt_llr(pair_counts: Sequence[int], bounds: SprtBounds) -> float:
    """Log-likelihood ratio of the SPRT on duplicate pairs.

    ``pair_counts`` = (pairs lost 0-2, pairs split 1-1, pairs won 2-0) from
    the first bot's side. Each pair is one trinomial observation with score
    0, 1/2 or 1; the generalised SPRT with the normal approximation (the
    method of fishtest and of most chess engine testing tools) gives
    ``LLR = N (s1 - s0) (2 x - s0 - s1) / (2 var)`` where ``x`` and ``var``
    are the mean and variance of the pair scores and ``s0``, ``s1`` the
    expected scores of ``elo0`` and ``elo1``. A half virtual pair of each
    outcome (:data:`SPRT_PSEUDO_PAIRS`) regularises the variance.
    """
    n = sum(pair_counts)
    if n == 0:
        return 0.0
    weights = [c + SPRT_PSEUDO_PAIRS for c in pair_counts]
    total = math.fsum(weights)
    values = (0.0, 0.5, 1.0)
    mean = math.fsum(w * v for w, v in zip(weights, values, strict=True)) / total
    var = math.fsum(w * (v - mean) ** 2 for w, v in zip(weights, values, strict=True)) / total
    s0 = score_from_elo(bounds.elo0)
    s1 = score_from_elo(bounds.elo1)
    return n * (s1 - s0) * (2.0 * mean - s0 - s1) / (2.0 * var)
