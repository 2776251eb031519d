"""Reading the opponent's lead with a model of its search (``best:read=``)."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

from marjolet.bots import BotSpecError, make_bot
from marjolet.bots import best as best_module
from marjolet.bots.best import KERNEL, BestBot
from marjolet.bots.heuristic import POLICY
from marjolet.bots.lead_reading import (
    Candidate,
    before_lead,
    card_odds,
    lead_to_read,
    lead_weight,
    read_lead,
    shown_by_meld,
)
from marjolet.cards import SEVEN, card
from marjolet.engine import Deal
from marjolet.observation import Observation, observe
from marjolet.rules import CLASSIC, ENCYCLOPEDIA, SAME_SUIT, Rules

needs_kernel = pytest.mark.skipif(KERNEL is None, reason="the C kernel is not built")

RULE_SETS = {
    "classic": CLASSIC,
    "encyclopedia": ENCYCLOPEDIA,
    "all": ENCYCLOPEDIA.replace(
        deal_pattern=(2, 2, 2), jack_queen=SAME_SUIT, one_meld_per_window=True
    ),
}


def answers(rules: Rules, seed: int, deals: int) -> Iterator[tuple[Deal, Deal, Observation]]:
    """(the deal just before a phase-1 lead, the deal just after it, the
    answering seat's observation) in deals of mostly heuristic play."""
    rng = random.Random(seed)
    for _ in range(deals):
        deck = list(range(32))
        rng.shuffle(deck)
        deal = Deal(deck, rng.randrange(2), rules)
        while not deal.is_over:
            before = deal.copy()
            legal = deal.legal_actions()
            deal.push(POLICY.act(deal) if rng.random() < 0.8 else rng.choice(legal))
            if deal.stock_empty or deal.is_over:
                continue
            obs = observe(deal, deal.to_move)
            if obs.lead is not None and obs.actions[-1] == obs.lead:
                yield before, deal.copy(), obs


@pytest.mark.parametrize("rules", list(RULE_SETS.values()), ids=list(RULE_SETS))
def test_the_world_rebuilt_before_the_lead_is_the_true_deal_before_it(rules: Rules) -> None:
    checked = shown = 0
    for before, after, obs in answers(rules, 5, 40):
        lead = lead_to_read(obs)
        if lead is None:
            continue
        hidden = after.hand_mask(obs.seat ^ 1) & obs.unseen.mask
        rebuilt = before_lead(obs, hidden, after.stock, lead)
        assert rebuilt.state == before.state
        assert rebuilt.moves == before.moves
        checked += 1
        shown += shown_by_meld(obs, lead)
    assert checked > 100
    assert shown > 0  # a card shown by a meld, then led, was rebuilt exposed


def test_only_a_lead_just_made_and_not_the_seven_of_trumps_is_read() -> None:
    seen_seven = False
    for _, _, obs in answers(CLASSIC, 9, 60):
        lead = obs.lead
        assert lead is not None
        if lead == card(SEVEN, obs.trump):
            seen_seven = True
            assert lead_to_read(obs) is None
        else:
            assert lead_to_read(obs) == lead
    assert seen_seven


def test_the_lead_weight_is_one_for_the_best_card_and_falls_with_the_gap() -> None:
    values = {3: 10.0, 5: 4.0, 7: -6.0}
    assert lead_weight(values, 3, 0.1) == 1.0
    assert lead_weight(values, 5, 0.1) == pytest.approx(0.5488, abs=1e-4)
    assert lead_weight(values, 7, 0.1) < lead_weight(values, 5, 0.1)
    assert lead_weight(values, 7, 0.0) == 1.0


def test_each_candidate_hand_is_weighed_by_its_own_search_of_the_lead() -> None:
    before, after, obs = next(
        (b, a, o) for b, a, o in answers(CLASSIC, 3, 20) if lead_to_read(o) is not None
    )
    lead = lead_to_read(obs)
    assert lead is not None
    opp = obs.seat ^ 1
    true_hidden = after.hand_mask(opp) & obs.unseen.mask
    other = obs.unseen.mask & ~true_hidden
    swapped = (true_hidden & (true_hidden - 1)) | (other & -other)  # one card changed
    views: list[Observation] = []

    def inner(view: Observation) -> dict[int, float]:
        views.append(view)
        # the opponent rates its lead worst unless it holds the true hand
        held = view.hand.mask
        return {lead: 0.0 if held == before.hand_mask(opp) else -10.0, 99: 0.0}

    found = read_lead(obs, lead, [(true_hidden, after.stock), (swapped, after.stock)], inner, 0.2)
    assert [c.hidden for c in found] == [true_hidden, swapped]
    assert found[0].weight == 1.0
    assert found[1].weight == pytest.approx(0.1353, abs=1e-4)
    assert all(v.seat == opp and v.lead is None and v.hand.mask >> lead & 1 for v in views)


def test_bad_reading_parameters_are_refused() -> None:
    for spec in ("best:read=-0.1", "best:hands=0"):
        with pytest.raises(BotSpecError):
            make_bot(spec)


@needs_kernel
def test_best_with_read_draws_its_worlds_from_the_weighed_hands_only(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: list[int] = []
    real = read_lead

    def spy(obs: Observation, lead: int, samples: object, inner: object, beta: float) -> object:
        found = real(obs, lead, samples, inner, beta)  # type: ignore[arg-type]
        calls.append(len(found))
        return [Candidate(found[0].hidden, 1.0)]  # one hand: every world must hold it

    monkeypatch.setattr(best_module, "read_lead", spy)
    bot = make_bot("best:time=0,worlds=40,read=0.1,hands=8", seed=2)
    assert isinstance(bot, BestBot)
    _, after, obs = next(
        (b, a, o) for b, a, o in answers(CLASSIC, 4, 20) if lead_to_read(o) is not None
    )
    kdeal, spec = bot._world_source(obs)
    table = bot._table_for(obs, bot.exact_tricks())
    sources, cumulative = bot._sources(obs, kdeal, spec, table)
    assert calls == [8]
    assert len(sources) == 1 and cumulative == [1.0]
    assert sources[0][1].opp_missing == 0  # the hand is fixed: only the stock is dealt
    assert bot.choose(obs, after.legal_actions()) in after.legal_actions()
    assert len(calls) == 2
    plain = make_bot("best:time=0,worlds=40", seed=2)
    plain.choose(obs, after.legal_actions())
    assert len(calls) == 2  # read=0 (the default) never reads


def test_card_odds_favour_the_cards_of_the_heavier_hands() -> None:
    unseen = 0b1111
    even = [Candidate(0b0011, 1.0), Candidate(0b1100, 1.0)]
    assert card_odds(unseen, even)[:4] == pytest.approx([1.0] * 4)
    leaning = [Candidate(0b0011, 1.0), Candidate(0b1100, 0.25)]
    odds = card_odds(unseen, leaning)
    assert odds[0] == odds[1] > 1.0 > odds[2] == odds[3]
    assert odds[4:] == [1.0] * 28  # cards not unseen keep the sampler's weight


def test_card_odds_are_even_when_the_opponent_hides_no_card() -> None:
    assert card_odds(0b1111, [Candidate(0, 1.0), Candidate(0, 0.5)]) == [1.0] * 32
    assert card_odds(0, [Candidate(0, 1.0)]) == [1.0] * 32
