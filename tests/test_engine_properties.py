"""Properties over random seeded deals and matches (hypothesis)."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import walk
from marjolet.actions import DIX, DRAW, MELD_BASE
from marjolet.cards import ALL_CARDS, CARD_POINTS, mask_cards
from marjolet.engine import STOCK_CARDS, Deal
from marjolet.history import phase1_tricks_left
from marjolet.observation import observe, sample_world
from marjolet.rules import CLASSIC, ENCYCLOPEDIA, Rules

seeds = st.integers(min_value=0, max_value=2**32 - 1)
rule_sets = st.sampled_from(
    [
        CLASSIC,
        ENCYCLOPEDIA,
        CLASSIC.replace(deal_pattern=(2, 2, 2), jack_queen="same-suit"),
        CLASSIC.replace(one_meld_per_window=True, dix_on_play=False),
    ]
)


def stock_left(deal: Deal) -> int:
    """Mask of the cards still to be drawn (hidden stock and indicator)."""
    n = deal.stock_size
    if n == 0:
        return 0
    hidden = deal.stock[STOCK_CARDS - (n - 1) :]
    mask = 1 << deal.indicator
    for c in hidden:
        mask |= 1 << c
    return mask


@settings(max_examples=60, deadline=None)
@given(seeds, rule_sets)
def test_every_card_is_in_exactly_one_place(seed: int, rules: Rules) -> None:
    for deal in walk(seed, rules):
        lead = -1 if deal.lead is None else deal.lead
        places = [
            deal.hand_mask(0),
            deal.hand_mask(1),
            deal.won(0).mask,
            deal.won(1).mask,
            stock_left(deal),
            (1 << lead) if lead >= 0 else 0,
        ]
        union = 0
        for m in places:
            assert union & m == 0
            union |= m
        assert union == ALL_CARDS


@settings(max_examples=60, deadline=None)
@given(seeds, rule_sets)
def test_every_deal_shares_out_80_card_points(seed: int, rules: Rules) -> None:
    deal = list(walk(seed, rules))[-1]
    assert deal.is_over and deal.tricks_played == 16
    assert deal.breakdown(0).cards + deal.breakdown(1).cards == 80
    assert sum(CARD_POINTS[c] for c in mask_cards(deal.won(0).mask | deal.won(1).mask)) == 80


def reference_follow(hand: list[int], lead: int, trump: int) -> set[int]:
    """R16 written out plainly, independently of the engine's mask code."""
    same = [c for c in hand if c // 8 == lead // 8]
    if same:
        higher = [c for c in same if c % 8 > lead % 8]
        return set(higher or same)
    trumps = [c for c in hand if c // 8 == trump]
    return set(trumps or hand)


@settings(max_examples=80, deadline=None)
@given(seeds, rule_sets)
def test_phase2_follower_duty_matches_the_rule_text(seed: int, rules: Rules) -> None:
    for deal in walk(seed, rules):
        if deal.is_over:
            break
        hand = mask_cards(deal.hand_mask(deal.to_move))
        legal = set(deal.legal_actions())
        if deal.in_window:
            assert DRAW in legal and all(a >= MELD_BASE for a in legal)
        elif deal.stock_empty and deal.lead is not None:
            assert legal == reference_follow(hand, deal.lead, deal.trump)
        else:
            assert legal == set(hand)


@settings(max_examples=60, deadline=None)
@given(seeds, rule_sets)
def test_pop_restores_the_exact_previous_state(seed: int, rules: Rules) -> None:
    rng = random.Random(seed)
    deal = next(iter(walk(seed, rules)))
    history = []
    while not deal.is_over:
        before = (deal.state, deal.legal_actions(), deal.moves)
        action = rng.choice(deal.legal_actions())
        deal.push(action)
        history.append(before)
    while history:
        deal.pop()
        assert (deal.state, deal.legal_actions(), deal.moves) == history.pop()


@settings(max_examples=40, deadline=None)
@given(seeds)
def test_copies_are_independent(seed: int) -> None:
    rng = random.Random(seed)
    for deal in walk(seed):
        if deal.is_over or rng.random() < 0.7:
            continue
        snapshot = (deal.state, deal.moves)
        twin = deal.copy()
        while not twin.is_over:
            twin.push(rng.choice(twin.legal_actions()))
        assert (deal.state, deal.moves) == snapshot
        while twin.moves != deal.moves:
            twin.pop()
        assert twin.state == deal.state


def _public_cards(deal: Deal, seat: int) -> int:
    """Every card ``seat`` may know the place of (R23)."""
    opp = seat ^ 1
    known = deal.hand_mask(seat) | deal.won(0).mask | deal.won(1).mask | deal.exposed(opp).mask
    if deal.lead is not None:
        known |= 1 << deal.lead
    if deal.stock_size:
        known |= 1 << deal.indicator
    if deal.exchanged and deal.seven_scored_by == opp:
        known |= deal.hand_mask(opp) & (1 << deal.turned_up)
    if deal.stock_empty:
        known |= deal.hand_mask(opp)
    return known


@settings(max_examples=30, deadline=None)
@given(seeds, rule_sets)
def test_each_phase1_trick_left_ends_in_a_draw_of_two_cards(seed: int, rules: Rules) -> None:
    for deal in walk(seed, rules):
        left = phase1_tricks_left(deal)
        assert deal.stock_size == max(0, 2 * left)
        assert (left > 0) == (not deal.stock_empty)
        assert phase1_tricks_left(observe(deal, 0)) == left


@settings(max_examples=60, deadline=None)
@given(seeds, rule_sets)
def test_can_exchange_seven_is_the_dix_in_the_window_and_ends_once_the_seven_scored(
    seed: int, rules: Rules
) -> None:
    for deal in walk(seed, rules):
        if deal.in_window:
            assert (DIX in deal.legal_actions()) == deal.can_exchange_seven(deal.to_move)
        for player in (0, 1):
            holds = deal.hand_mask(player) >> deal.seven & 1
            scored = deal.seven_scored_by is not None
            assert deal.can_exchange_seven(player) == (holds and not scored)
            if deal.exchanged or deal.seven_turned_up:
                assert not deal.can_exchange_seven(player)


@settings(max_examples=60, deadline=None)
@given(seeds, rule_sets)
def test_an_observation_never_contains_a_hidden_card(seed: int, rules: Rules) -> None:
    for deal in walk(seed, rules):
        for seat in (0, 1):
            obs = observe(deal, seat)
            opp = seat ^ 1
            public = _public_cards(deal, seat)
            hidden = ALL_CARDS & ~public
            assert obs.hand.mask == deal.hand_mask(seat)
            assert obs.opponent_known.mask & hidden == 0
            assert obs.opponent_known.mask & ~deal.hand_mask(opp) == 0
            assert obs.public_state[0 + opp] & hidden == 0  # HAND + opp
            assert obs.unseen.mask == hidden
            assert obs.dealt.mask in (deal.dealt[seat], 0)
            played = (
                deal.won(0).mask
                | deal.won(1).mask
                | (1 << deal.lead if deal.lead is not None else 0)
            )
            for c in obs.draws:  # own draws: in hand, played, or exchanged by the dix
                assert (deal.hand_mask(seat) | played | 1 << deal.indicator) >> c & 1


@settings(max_examples=60, deadline=None)
@given(seeds, rule_sets, seeds)
def test_sampled_worlds_agree_with_the_observation(
    seed: int, rules: Rules, world_seed: int
) -> None:
    rng = random.Random(world_seed)
    for deal in walk(seed, rules):
        if deal.is_over:
            break
        seat = deal.to_move
        obs = observe(deal, seat)
        world = sample_world(obs, rng)
        assert observe(world, seat) == obs
        assert world.legal_actions() == deal.legal_actions()
        # the world is a complete, playable deal
        while not world.is_over:
            world.push(rng.choice(world.legal_actions()))
        assert world.breakdown(0).cards + world.breakdown(1).cards == 80


def test_sampler_spreads_unseen_cards_over_hand_and_stock() -> None:
    deal = next(iter(walk(3)))
    obs = observe(deal, deal.to_move)
    rng = random.Random(0)
    seen_in_hand = 0
    for _ in range(200):
        world = sample_world(obs, rng)
        seen_in_hand |= world.hand_mask(obs.opponent)
    assert seen_in_hand == obs.unseen.mask


def test_legal_actions_are_sorted_ids() -> None:
    for deal in walk(9):
        legal = deal.legal_actions()
        assert legal == sorted(set(legal))
        if not deal.is_over:
            hand = deal.hand_mask(deal.to_move)
            assert all(hand >> a & 1 for a in legal if a < MELD_BASE)
