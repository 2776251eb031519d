"""The panel opponents written apart from ``best`` (``expert``, ``sampler``)
and the beginner (``novice``): legal, honest, reproducible, and playing the
way their rules say."""

from __future__ import annotations

import random

import pytest

from helpers import new_deal, play, random_deal
from marjolet.actions import DIX, DRAW, MELD_BASE
from marjolet.bots import BotSpecError, make_bot
from marjolet.bots.heuristic import POLICY
from marjolet.bots.sampler import PythonEndingSolver, every_world
from marjolet.bots.solver import solve
from marjolet.cards import parse_card
from marjolet.engine import Deal
from marjolet.match import Match
from marjolet.melds import MELD_INDEX
from marjolet.observation import observe
from marjolet.rules import CLASSIC, ENCYCLOPEDIA, SAME_SUIT, Rules
from marjolet.turns import play_match

FAST = {
    "expert": "expert",
    "sampler": "sampler:worlds=3,time=0",
    "novice": "novice",
}
RULE_SETS = [
    CLASSIC,
    ENCYCLOPEDIA,
    CLASSIC.replace(one_meld_per_window=True, jack_queen=SAME_SUIT),
]


@pytest.mark.parametrize("name", list(FAST))
@pytest.mark.parametrize("rules", RULE_SETS, ids=["classic", "encyclopedia", "variants"])
def test_panel_bots_play_whole_matches_with_legal_actions_only(name: str, rules: Rules) -> None:
    match = Match(rules.replace(target=150), seed=3)
    play_match(match, [make_bot(FAST[name], seed=1), make_bot("random", seed=2)])
    assert match.is_over


def _twin_deals(seed: int) -> tuple[Deal, Deal]:
    """Two deals seat 0 (the elder, dealer 1) cannot tell apart."""
    rng = random.Random(seed)
    deck = list(range(32))
    rng.shuffle(deck)
    hidden = [3, 4, 5, 9, 10, 11, *range(13, 32)]
    cards = [deck[i] for i in hidden]
    rng.shuffle(cards)
    other = deck.copy()
    for i, c in zip(hidden, cards, strict=True):
        other[i] = c
    return Deal(deck, 1), Deal(other, 1)


@pytest.mark.parametrize("name", list(FAST))
def test_panel_bots_see_only_their_observation(name: str) -> None:
    for seed in range(4):
        a, b = _twin_deals(seed)
        rng = random.Random(seed)
        for _ in range(rng.randrange(0, 12)):  # the same public moves on both
            if a.to_move != 0 and a.legal_actions() == b.legal_actions():
                move = a.legal_actions()[0]
                a.play(move)
                b.play(move)
        if a.to_move != 0:
            continue
        obs_a, obs_b = observe(a, 0), observe(b, 0)
        assert obs_a == obs_b
        legal = a.legal_actions()
        assert make_bot(FAST[name], seed=1).choose(obs_a, legal) == make_bot(
            FAST[name], seed=1
        ).choose(obs_b, legal)


@pytest.mark.parametrize("name", list(FAST))
def test_panel_bots_are_reproducible_under_a_seed(name: str) -> None:
    for seed in range(6):
        deal = random_deal(seed, stop=random.Random(seed).randrange(0, 40))
        if deal.is_over:
            continue
        obs = observe(deal, deal.to_move)
        legal = deal.legal_actions()
        assert make_bot(FAST[name], seed=9).choose(obs, legal) == make_bot(
            FAST[name], seed=9
        ).choose(obs, legal)


def _window_deal() -> Deal:
    """Seat 1 (elder) wins trick 1 holding K-Q of spades (trumps), K-Q of
    hearts and the seven of trumps; the indicator is the ace of spades."""
    deal = new_deal("7S KS QS KH QH 9C", "8C 8D 9D 7D TD JD", "AS")
    play(deal, "9C 8C")
    assert deal.in_window and deal.to_move == 1
    return deal


@pytest.mark.parametrize("name", ["expert", "sampler"])
def test_exchanges_the_seven_then_declares_every_meld_most_valuable_first(name: str) -> None:
    deal = _window_deal()
    bot = make_bot(FAST[name], seed=1)
    seen = []
    while deal.in_window:
        action = bot.choose(observe(deal, 1), deal.legal_actions())
        seen.append(action)
        deal.play(action)
    assert seen[0] == DIX
    assert seen[1] == MELD_BASE + MELD_INDEX["KQS"]  # the trump marriage, 40
    assert MELD_BASE + MELD_INDEX["KQH"] in seen
    assert seen[-1] == DRAW


# -- expert's rules -------------------------------------------------------------------


def _expert_card(deal: Deal) -> int:
    return make_bot("expert").choose(observe(deal, deal.to_move), deal.legal_actions())


def test_expert_takes_a_led_ten_with_the_ace_of_its_suit() -> None:
    deal = new_deal("TC 8H 9H 7D 8D 9D", "AC 7C JH QD KD TH", "7S")
    play(deal, "TC")
    assert _expert_card(deal) == parse_card("AC")


def test_expert_trumps_a_led_ace_with_a_spare_low_trump() -> None:
    deal = new_deal("AC 8H 9H 7D 8D 9D", "8S JH QD KD TH 7H", "AS")
    play(deal, "AC")
    assert _expert_card(deal) == parse_card("8S")


def test_expert_wins_a_worthless_trick_that_opens_a_meld_window() -> None:
    # spades trumps; the dealer holds the hearts marriage (20) complete and
    # only its 9 of trumps wins the 8 of clubs: the window is worth the trump
    deal = new_deal("8C 8H 9H 7D JC JD", "9S KH QH AD 8D TD", "AS")
    play(deal, "8C")
    assert _expert_card(deal) == parse_card("9S")


def test_expert_never_throws_a_ten_or_an_ace_when_a_low_card_will_do() -> None:
    deal = new_deal("8C 8H 9H 7D JC JD", "TH AD 9D QD KS 7H", "AS")
    play(deal, "8C")
    card = _expert_card(deal)
    assert card not in (parse_card("TH"), parse_card("AD"))


def test_expert_never_leads_a_ten_in_phase_one() -> None:
    for seed in range(30):
        deal = random_deal(seed, stop=random.Random(seed).randrange(0, 50))
        if deal.is_over or deal.stock_empty or deal.in_window or deal.lead is not None:
            continue
        card = _expert_card(deal)
        hand = deal.hand_mask(deal.to_move)
        others = [c for c in range(32) if hand >> c & 1 and c & 7 != 6]
        if others:
            assert card & 7 != 6, (seed, card)


def _ending(seed: int) -> Deal:
    rng = random.Random(seed)
    deck = list(range(32))
    rng.shuffle(deck)
    deal = Deal(deck, 0)
    while not deal.stock_empty:
        deal.push(POLICY.act(deal))
    return deal


@pytest.mark.parametrize("name", ["expert", "sampler"])
def test_plays_an_optimal_card_once_the_stock_is_empty(name: str) -> None:
    bot = make_bot(FAST[name], seed=1)
    for seed in range(4):
        deal = _ending(seed)
        while not deal.is_over:
            action = bot.choose(observe(deal, deal.to_move), deal.legal_actions())
            assert action in solve(deal).best
            deal.push(action)


# -- sampler's machinery ----------------------------------------------------------------


def test_sampler_enumerates_every_world_at_trick_ten_each_consistent() -> None:
    for seed in range(20):
        deal = random_deal(seed, stop=0)
        while not deal.is_over and not (deal.tricks_played == 9 and not deal.in_window):
            deal.push(POLICY.act(deal))
        if deal.is_over:
            continue
        obs = observe(deal, deal.to_move)
        worlds = every_world(obs)
        assert worlds is not None
        seen = []
        for world in worlds:
            assert observe(world, obs.seat) == obs
            seen.append(world.hand_mask(obs.seat ^ 1))
        assert len(seen) == len(set(seen)) == len(obs.unseen)
        return
    pytest.fail("no trick-10 position reached")


def test_sampler_samples_before_trick_ten() -> None:
    deal = random_deal(4, stop=0)
    assert every_world(observe(deal, deal.to_move)) is None


def test_python_ending_solver_agrees_with_the_solver_without_the_kernel() -> None:
    for seed in range(6):
        deal = _ending(seed)
        solver = PythonEndingSolver.for_deal(deal)
        assert solver.solve_value(deal) == solve(deal).value
        assert solver._ktable is None  # never handed to the C kernel


def test_sampler_spends_its_time_budget_on_many_worlds() -> None:
    deal = random_deal(2, stop=0)
    bot = make_bot("sampler:time=0.05,clock=cpu", seed=1)
    bot.choose(observe(deal, deal.to_move), deal.legal_actions())
    assert bot.last_worlds > 1  # type: ignore[attr-defined]


# -- novice ---------------------------------------------------------------------------


def test_novice_without_mistakes_plays_like_the_heuristic() -> None:
    heuristic = make_bot("heuristic")
    for seed in range(8):
        deal = random_deal(seed, stop=random.Random(seed).randrange(0, 60))
        if deal.is_over:
            continue
        obs = observe(deal, deal.to_move)
        legal = deal.legal_actions()
        assert make_bot("novice:mistakes=0", seed=1).choose(obs, legal) == heuristic.choose(
            obs, legal
        )


@pytest.mark.parametrize(
    "spec",
    ["novice:mistakes=1.5", "novice:mistakes=-0.1", "sampler:worlds=0", "sampler:endings=12",
     "sampler:time=-1", "sampler:clock=moon", "expert:time=1"],
)
def test_bad_parameters_are_refused_in_one_line(spec: str) -> None:
    with pytest.raises(BotSpecError) as caught:
        make_bot(spec)
    assert "\n" not in str(caught.value)
