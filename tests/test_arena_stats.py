"""The arena's statistics against known values and simulated data."""

from __future__ import annotations

import math
import random

import pytest

from marjolet.arena import stats


def test_wilson_matches_published_values() -> None:
    # Newcombe (1998), table I: 0/10 and 5/10 (z = 1.96).
    lo, hi = stats.wilson(0, 10)
    assert lo == 0.0
    assert hi == pytest.approx(0.2775, abs=1e-4)
    lo, hi = stats.wilson(5, 10)
    assert lo == pytest.approx(0.2366, abs=1e-4) and hi == pytest.approx(0.7634, abs=1e-4)
    lo, hi = stats.wilson(81, 263)
    assert lo == pytest.approx(0.2553, abs=1e-4) and hi == pytest.approx(0.3662, abs=1e-4)


def test_wilson_rejects_impossible_counts() -> None:
    with pytest.raises(ValueError):
        stats.wilson(3, 2)
    with pytest.raises(ValueError):
        stats.wilson(0, 0)


def test_t_quantile_table_and_large_df() -> None:
    assert stats.t_quantile(1) == 12.706
    assert stats.t_quantile(30) == 2.042
    assert stats.t_quantile(40) == pytest.approx(2.021, abs=1e-3)
    assert stats.t_quantile(120) == pytest.approx(1.980, abs=1e-3)
    assert stats.t_quantile(10**6) == pytest.approx(stats.Z95, abs=1e-4)


def test_mean_interval_is_the_t_interval() -> None:
    values = [1.0, 2.0, 3.0, 4.0, 5.0]
    mean, ci = stats.mean_interval(values)
    assert mean == 3.0
    half = 2.776 * math.sqrt(2.5 / 5)
    assert ci is not None
    assert ci[0] == pytest.approx(3.0 - half) and ci[1] == pytest.approx(3.0 + half)
    assert stats.mean_interval([7.0]) == (7.0, None)


def test_ratio_interval_with_equal_clusters_is_the_mean_of_cluster_means() -> None:
    sums = [10.0, -4.0, 6.0, 2.0]
    counts = [2.0, 2.0, 2.0, 2.0]
    ratio, ci = stats.ratio_interval(sums, counts)
    mean, mean_ci = stats.mean_interval([s / 2 for s in sums])
    assert ratio == pytest.approx(mean)
    assert ci is not None and mean_ci is not None
    assert ci[0] == pytest.approx(mean_ci[0]) and ci[1] == pytest.approx(mean_ci[1])


def test_ratio_interval_weights_clusters_by_size() -> None:
    ratio, _ = stats.ratio_interval([30.0, 0.0], [3.0, 1.0])
    assert ratio == 7.5  # 30 points over 4 deals, not the mean of 10 and 0


def test_elo_scale_round_trips() -> None:
    assert stats.elo_from_score(0.5) == 0.0
    assert math.copysign(1.0, stats.elo_from_score(0.5)) == 1.0  # not -0.0
    assert stats.elo_from_score(0.75) == pytest.approx(190.85, abs=0.01)
    for elo in (-400.0, -35.0, 0.0, 120.0, 800.0):
        assert stats.elo_from_score(stats.score_from_elo(elo)) == pytest.approx(elo)
    with pytest.raises(ValueError):
        stats.elo_from_score(1.0)


def test_clean_sweep_elo_is_finite_half_a_match_from_the_edge() -> None:
    elo, ci = stats.pair_elo([1.0] * 200, 400)
    assert elo == pytest.approx(400 * math.log10(799))
    assert ci is not None and all(math.isfinite(x) for x in ci)
    assert ci[0] < elo


def test_pair_elo_interval_uses_the_pair_variance() -> None:
    # All pairs split: score 1/2 with no variance -> the Wilson fallback.
    elo, ci = stats.pair_elo([0.5] * 50, 100)
    assert elo == 0.0
    assert ci is not None and ci[0] < 0.0 < ci[1]
    # Mixed results: the t interval of the pair scores mapped to Elo.
    scores = [1.0] * 30 + [0.5] * 50 + [0.0] * 20
    elo, ci = stats.pair_elo(scores, 200)
    mean, (lo, hi) = 0.55, stats.mean_interval(scores)[1]  # type: ignore[misc]
    assert elo == pytest.approx(stats.elo_from_score(mean))
    assert ci is not None
    assert ci[0] == pytest.approx(stats.elo_from_score(lo))
    assert ci[1] == pytest.approx(stats.elo_from_score(hi))


def test_bradley_terry_two_bots_is_the_prior_smoothed_odds() -> None:
    wins = {("a", "random"): 30, ("random", "a"): 10}
    ratings = stats.bradley_terry(["a", "random"], wins, "random")
    assert ratings["random"].elo == 0.0 and ratings["random"].interval is None
    assert ratings["a"].elo == pytest.approx(400 * math.log10(31 / 11), abs=1e-6)
    lo, hi = ratings["a"].interval  # type: ignore[misc]
    assert lo < ratings["a"].elo < hi


def test_bradley_terry_recovers_simulated_ratings() -> None:
    truth = {"random": 0.0, "b": 150.0, "c": 300.0}
    rng = random.Random(5)
    wins: dict[tuple[str, str], int] = {}
    names = list(truth)
    for i, x in enumerate(names):
        for y in names[i + 1 :]:
            p = stats.score_from_elo(truth[x] - truth[y])
            w = sum(rng.random() < p for _ in range(2000))
            wins[(x, y)] = w
            wins[(y, x)] = 2000 - w
    ratings = stats.bradley_terry(names, wins, "random")
    for name, elo in truth.items():
        r = ratings[name]
        assert r.elo == pytest.approx(elo, abs=25)
        if r.interval is not None:
            assert r.interval[0] <= elo <= r.interval[1]


def test_bradley_terry_stays_finite_when_one_bot_wins_everything() -> None:
    wins = {("x", "random"): 100, ("random", "x"): 0}
    ratings = stats.bradley_terry(["x", "random"], wins, "random")
    assert math.isfinite(ratings["x"].elo) and ratings["x"].elo > 500


def test_sprt_bounds_are_wald_bounds() -> None:
    bounds = stats.SprtBounds(0.0, 10.0)
    assert bounds.lower == pytest.approx(-2.944, abs=1e-3)
    assert bounds.upper == pytest.approx(2.944, abs=1e-3)
    with pytest.raises(ValueError):
        stats.SprtBounds(10.0, 0.0)
    with pytest.raises(ValueError):
        stats.SprtBounds(0.0, 10.0, alpha=0.7)


def _simulate_sprt(true_elo: float, bounds: stats.SprtBounds, seed: int) -> str | None:
    """Pairs whose games are independent with the true score (a pessimistic
    model: real duplicate pairs split more often)."""
    rng = random.Random(seed)
    p = stats.score_from_elo(true_elo)
    counts = [0, 0, 0]
    for _ in range(20_000):
        counts[(rng.random() < p) + (rng.random() < p)] += 1
        decision = bounds.decide(stats.sprt_llr(counts, bounds))
        if decision is not None:
            return decision
    return None


def test_sprt_accepts_the_true_hypothesis_most_of_the_time() -> None:
    bounds = stats.SprtBounds(0.0, 40.0)
    strong = [_simulate_sprt(80.0, bounds, seed) for seed in range(20)]
    weak = [_simulate_sprt(-40.0, bounds, seed) for seed in range(20)]
    assert strong.count("H1") >= 19
    assert weak.count("H0") >= 19


def test_sprt_llr_is_zero_without_pairs_and_signed_by_the_data() -> None:
    bounds = stats.SprtBounds(0.0, 20.0)
    assert stats.sprt_llr([0, 0, 0], bounds) == 0.0
    assert stats.sprt_llr([0, 5, 40], bounds) > 0.0
    assert stats.sprt_llr([40, 5, 0], bounds) < 0.0
