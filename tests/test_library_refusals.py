"""The library refuses a bad argument with one clear error, never with a
stray IndexError or AttributeError, nor with silently wrong data."""

from __future__ import annotations

import pytest

from marjolet import Deal, Match, observe, play_deal, play_match
from marjolet.bots import make_bot
from marjolet.errors import DealError, MarjoletError, RulesError
from marjolet.match import seeded_deck


@pytest.mark.parametrize("seat", [-1, 2, "0", None])
def test_observe_refuses_a_seat_that_is_not_0_or_1(seat: object) -> None:
    deal = Deal(seeded_deck(7, 0), dealer=0)
    with pytest.raises(DealError, match=r"seat must be 0 or 1, got "):
        observe(deal, seat)  # type: ignore[arg-type]


def test_match_observation_refuses_a_seat_that_is_not_0_or_1() -> None:
    match = Match(seed=7)
    match.start_deal()
    with pytest.raises(DealError, match=r"seat must be 0 or 1, got -1"):
        match.observation(-1)


@pytest.mark.parametrize("count", [0, 1, 3])
def test_play_match_refuses_seats_that_are_not_two(count: int) -> None:
    seats = [make_bot("random", seed=i) for i in range(count)]
    match = Match(seed=1)
    with pytest.raises(MarjoletError, match=rf"two seats .*got {count}"):
        play_match(match, seats)
    assert match.deals == []  # refused before dealing anything


def test_play_deal_refuses_seats_that_are_not_two() -> None:
    match = Match(seed=1)
    match.start_deal()
    with pytest.raises(MarjoletError, match=r"two seats .*got 1"):
        play_deal(match, [make_bot("random", seed=1)])
    assert match.deal is not None and not match.deal.moves


@pytest.mark.parametrize("rules", ["classic", {"profile": "classic"}, None])
def test_deal_and_match_refuse_rules_that_are_not_a_rules_object(rules: object) -> None:
    says = r"rules must be a Rules such as Rules\.(profile_named|from_json)"
    with pytest.raises(RulesError, match=says):
        Deal(seeded_deck(7, 0), dealer=0, rules=rules)  # type: ignore[arg-type]
    with pytest.raises(RulesError, match=says):
        Match(rules, seed=1)  # type: ignore[arg-type]
