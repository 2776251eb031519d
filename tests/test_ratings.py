"""Glicko-2 (marjolet.web.ratings) against Glickman's worked example and its laws."""

from __future__ import annotations

import pytest

from marjolet.web.ratings import Rating, RatingSystem

GLICKMAN_GAMES = [(Rating(1400, 30), 1.0), (Rating(1550, 100), 0.0), (Rating(1700, 300), 0.0)]


def test_glickman_worked_example_1464_06_151_52_0_05999() -> None:
    new = RatingSystem(tau=0.5).rate(Rating(1500, 200, 0.06), GLICKMAN_GAMES)
    # The paper rounds mu' to 4 decimals (1464.06) and prints sigma' as 0.05999.
    assert new.value == pytest.approx(1464.06, abs=0.02)
    assert new.rd == pytest.approx(151.52, abs=0.01)
    assert new.volatility == pytest.approx(0.05999, abs=1e-5)


def test_a_period_without_games_only_widens_the_deviation() -> None:
    system = RatingSystem()
    player = Rating(1600, 100, 0.06)
    idle = system.rate(player, [])
    assert idle.value == player.value
    assert idle.rd == pytest.approx((100**2 + (0.06 * 173.7178) ** 2) ** 0.5)
    assert idle.volatility == player.volatility


def test_a_year_without_games_grows_a_settled_deviation_back_towards_provisional() -> None:
    system = RatingSystem()
    settled = Rating(1720, 50, 0.06)
    assert system.idle(settled, 0) == settled
    a_year = system.idle(settled, 365)
    assert a_year.value == 1720 and a_year.volatility == 0.06
    # 365 days are 78.2 rating periods of lichess's 0.21436 a day
    assert a_year.rd == pytest.approx((50**2 + 365 * 0.21436 * (0.06 * 173.7178) ** 2) ** 0.5)
    assert 100 < a_year.rd < 110 and system.idle(settled, 2 * 365).provisional
    assert system.idle(settled, 1e6).rd == system.max_rd


def test_the_deviation_never_grows_past_its_cap() -> None:
    system = RatingSystem()
    assert system.rate(system.initial, []).rd == system.max_rd


def test_a_game_between_equals_moves_both_by_the_same_amount() -> None:
    system = RatingSystem()
    winner, loser = system.rate_game(system.initial, system.initial, 1.0)
    assert winner.value - 1500 == pytest.approx(1500 - loser.value)
    assert winner.value > 1500 > loser.value
    assert winner.rd < 350 and loser.rd < 350


def test_a_draw_between_equals_changes_no_rating() -> None:
    system = RatingSystem()
    a, b = system.rate_game(Rating(1700, 80), Rating(1700, 80), 0.5)
    assert a.value == pytest.approx(1700) and b.value == pytest.approx(1700)


def test_beating_a_stronger_player_gains_more_than_beating_a_weaker_one() -> None:
    system = RatingSystem()
    me = Rating(1500, 80)
    up = system.rate(me, [(Rating(1800, 80), 1.0)]).value
    down = system.rate(me, [(Rating(1200, 80), 1.0)]).value
    assert up > down > 1500


def test_two_new_players_who_win_one_game_each_end_apart_as_ratings_md_says() -> None:
    """docs/ratings.md's example of an upset: the second winner ends ahead."""
    system = RatingSystem()
    first, second = system.rate_game(system.initial, system.initial, 1.0)
    assert (round(first.value), round(second.value)) == (1662, 1338)
    second, first = system.rate_game(second, first, 1.0)  # the upset
    assert (round(first.value), round(second.value)) == (1433, 1567)


def test_a_rating_is_provisional_while_its_deviation_is_high() -> None:
    system = RatingSystem()
    assert system.initial.provisional
    assert not Rating(1500, 60).provisional


def test_a_score_other_than_win_draw_or_loss_is_refused() -> None:
    with pytest.raises(ValueError, match=r"0, 0\.5 or 1"):
        RatingSystem().rate(Rating(), [(Rating(), 2.0)])


def test_the_served_parameters_name_the_initial_rating_and_tau() -> None:
    served = RatingSystem().to_json()
    assert served["initial"] == {"rating": 1500.0, "rd": 350.0, "volatility": 0.06}
    assert served["tau"] == 0.5
