"""Whole deck orders consistent with one seat's knowledge (marjolet.decks)."""

from __future__ import annotations

import random
from collections.abc import Sequence

import pytest

from helpers import random_deal, walk
from marjolet.actions import DIX
from marjolet.decks import dealt_positions
from marjolet.decks import deck_for as consistent_deck
from marjolet.engine import Deal
from marjolet.match import Match
from marjolet.observation import Observation, observe
from marjolet.rules import CLASSIC, ENCYCLOPEDIA, Rules
from marjolet.turns import play_match

RULES = [
    CLASSIC,
    ENCYCLOPEDIA.replace(deal_pattern=(2, 2, 2)),
    CLASSIC.replace(jack_queen="same-suit", one_meld_per_window=True),
]


def replay(obs: Observation, deck: list[int]) -> Deal:
    deal = Deal(deck, obs.dealer, obs.rules)
    for a in obs.actions:
        deal.play(a)  # checked: raises if the history is not legal from this deck
    return deal


def test_dealt_positions_follow_r4_for_both_patterns() -> None:
    assert dealt_positions((3, 3), 0) == ([3, 4, 5, 9, 10, 11], [0, 1, 2, 6, 7, 8])
    assert dealt_positions((3, 3), 1) == ([0, 1, 2, 6, 7, 8], [3, 4, 5, 9, 10, 11])
    assert dealt_positions((2, 2, 2), 1) == ([0, 1, 4, 5, 8, 9], [2, 3, 6, 7, 10, 11])


@pytest.mark.parametrize("rules", RULES, ids=lambda r: r.describe().split()[1])
def test_consistent_deck_replays_legally_and_the_seat_sees_the_same(rules: Rules) -> None:
    rng = random.Random(1)
    checked = 0
    for seed in range(25):
        for deal in walk(seed, rules):
            if len(deal.moves) % 3:
                continue
            for seat in (0, 1):
                obs = observe(deal, seat)
                deck = consistent_deck(obs, rng)
                other = replay(obs, deck)
                again = observe(other, seat)
                assert again.hand == obs.hand
                assert again.draws == obs.draws
                assert again.dealt == obs.dealt
                assert again.public_state == obs.public_state
                assert again.unseen == obs.unseen
                checked += 1
    assert checked > 500


def test_consistent_deck_varies_the_hidden_cards() -> None:
    deal = random_deal(4, stop=25)
    obs = observe(deal, 0)
    rng = random.Random(2)
    hands = {replay(obs, consistent_deck(obs, rng)).hand_mask(1) for _ in range(30)}
    assert len(hands) > 5


def test_opponent_cards_arrive_before_their_first_use_with_dix_and_melds() -> None:
    """Histories rich in melds and dix exchanges by both seats rebuild legally."""
    rng = random.Random(5)
    found = 0
    for seed in range(400):
        deal = random_deal(seed, stop=60)
        if DIX not in deal.moves or not any(32 <= a < 44 for a in deal.moves):
            continue
        found += 1
        for seat in (0, 1):
            obs = observe(deal, seat)
            for _ in range(5):
                replay(obs, consistent_deck(obs, rng))
    assert found > 10


def test_consistent_deck_from_match_observations() -> None:
    """Observations handed to bots by a match (deal index, totals) work too."""
    rng = random.Random(9)

    class Probe:
        def __init__(self) -> None:
            self.rng = random.Random(3)

        def choose(self, obs: Observation, legal: Sequence[int]) -> int:
            replay(obs, consistent_deck(obs, rng))
            return legal[self.rng.randrange(len(legal))]

    play_match(Match(CLASSIC, seed=4), [Probe(), Probe()])


def test_consistent_deck_keeps_the_given_order_of_the_seats_own_cards() -> None:
    deal = random_deal(8, stop=10)
    assert deal.deck is not None
    mine = [deal.deck[p] for p in dealt_positions(CLASSIC.deal_pattern, deal.dealer)[1]]
    deck = consistent_deck(observe(deal, 1), random.Random(0), mine)
    assert [deck[p] for p in dealt_positions(CLASSIC.deal_pattern, deal.dealer)[1]] == mine


def test_consistent_deck_rejects_a_sampled_world_observation() -> None:
    from marjolet.observation import sample_world

    deal = random_deal(8, stop=10)
    world = sample_world(observe(deal, 0), random.Random(0))
    with pytest.raises(ValueError, match="dealt cards"):
        consistent_deck(observe(world, 1), random.Random(0))
