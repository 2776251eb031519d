"""``best:answers=``: reading the phase-1 tricks the opponent lost to our
side-suit leads (a card of the suit higher than the lead would have won)."""

from __future__ import annotations

import pytest

from helpers import new_deal, play
from marjolet.bots import make_bot
from marjolet.bots.base import BotSpecError
from marjolet.bots.best import KERNEL, answer_odds, base_deal, world_spec
from marjolet.cards import parse_card
from marjolet.engine import Deal
from marjolet.kernel import kernel_deal
from marjolet.observation import observe

# clubs are trumps; seat 0 (the elder) leads K♥, seat 1 answers 8♥ and loses
US, THEM = "KH 8S 9S 8D 9D JD", "7H 8H JS QS KS TS"
HIGHER = {parse_card("TH"), parse_card("AH")}


def after_lost_answer(lead: str = "KH", answer: str = "8H") -> Deal:
    deal = new_deal(US, THEM, "7C", dealer_seat=1)
    play(deal, f"{lead} {answer}")
    return deal


def test_a_lost_answer_lowers_the_odds_of_the_suit_cards_that_would_have_won() -> None:
    deal = after_lost_answer()
    assert deal.to_move == 0 and deal.last_trick_winner == 0
    odds = answer_odds(observe(deal, 0), 0.4)
    assert odds is not None
    assert {c for c in range(32) if odds[c] != 1.0} == HIGHER
    assert all(odds[c] == pytest.approx(0.4) for c in HIGHER)  # no draw since


def test_the_opponents_draws_since_the_trick_soften_the_reading() -> None:
    deal = after_lost_answer()
    play(deal, "draw")  # the window closes: both draw, the opponent a hidden card
    assert deal.to_move == 0 and deal.lead is None
    odds = answer_odds(observe(deal, 0), 0.4)
    assert odds is not None
    assert all(0.4 < odds[c] < 1.0 for c in HIGHER)


def test_no_reading_from_a_won_answer_a_trump_lead_or_keep_1() -> None:
    won = new_deal(US, "7H AH JS QS KS TS", "7C", dealer_seat=1)
    play(won, "KH AH")
    assert answer_odds(observe(won, 0), 0.4) is None
    trump_lead = new_deal("KC 8S 9S 8D 9D JD", THEM, "7C", dealer_seat=1)
    play(trump_lead, "KC 8H")
    assert answer_odds(observe(trump_lead, 0), 0.4) is None
    assert answer_odds(observe(after_lost_answer(), 0), 1.0) is None


def test_only_the_opponents_answers_are_read() -> None:
    deal = after_lost_answer()
    assert answer_odds(observe(deal, 1), 0.4) is None  # seat 1 answered: nothing on seat 0


@pytest.mark.skipif(KERNEL is None, reason="the C kernel is not built")
def test_odds_of_zero_keep_the_cards_out_of_every_sampled_hand() -> None:
    obs = observe(after_lost_answer(), 0)
    spec = world_spec(obs, answers=0.0)
    assert spec.weights is not None
    kdeal = kernel_deal(base_deal(obs, spec))
    dealt = KERNEL.sample(
        kdeal, 0, spec.unseen, spec.opp_missing, spec.first_slot, 200, 7, spec.weights, spec.soft
    )
    held = 0
    for hand, _ in dealt:
        held |= hand
    assert not any(held >> c & 1 for c in HIGHER)


def test_answers_must_be_a_probability() -> None:
    with pytest.raises(BotSpecError, match="answers must be in"):
        make_bot("best:answers=1.5,worlds=10")
