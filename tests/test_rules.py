"""One or more tests per rule id of rules.md (R1-R23)."""

from __future__ import annotations

import random
import re
from collections.abc import Sequence

import pytest

from helpers import cards, legal_texts, new_deal, play, random_deal
from marjolet.actions import DIX, DRAW, MELD_BASE, parse_action
from marjolet.cards import (
    CARD_POINTS,
    CardSet,
    card_name,
    parse_card,
)
from marjolet.engine import Breakdown, Deal, deal_hands
from marjolet.errors import ActionError, CardError, IllegalActionError
from marjolet.match import Match
from marjolet.melds import MELD_INDEX, MELD_VALUES
from marjolet.observation import Observation, observe
from marjolet.rules import CLASSIC, ENCYCLOPEDIA, Rules
from marjolet.turns import play_match

# A standard position: player 0 deals, player 1 (elder) leads; hearts are trumps.
ELDER = "AS TS KS QD JD 9D"
DEALER = "AD TD KD QS JS 9S"
DEALER2 = "AD TD KD 9S 8S 7S"  # no queen or jack of spades


def finish_phase1(deal: Deal) -> None:
    """Play the lowest legal card and 'draw' in every window up to trick 10's draw."""
    while not deal.stock_empty:
        deal.play(DRAW if deal.in_window else deal.legal_actions()[0])


# -- cards -----------------------------------------------------------------------


def test_r1_card_text_round_trips_for_all_32_cards() -> None:
    for c in range(32):
        assert parse_card(card_name(c)) == c
    assert [card_name(c) for c in cards("AS TD QH 7C")] == ["AS", "TD", "QH", "7C"]


def test_r1_parsers_accept_10_and_suit_symbols_writers_emit_ascii() -> None:
    assert parse_card("10D") == parse_card("TD")
    assert parse_card("Q♠") == parse_card("QS")
    assert parse_card("A♣") == parse_card("AC")
    assert parse_card("10♥") == parse_card("TH")
    assert str(CardSet.parse("10♦ Q♠")) == "TD QS"


@pytest.mark.parametrize("bad", ["", "1S", "AX", "QQ", "6S", "ZZZ", "11D", "as"])
def test_r1_unknown_card_text_is_rejected_quoting_it(bad: str) -> None:
    with pytest.raises(CardError, match=repr(bad).replace("\\", "\\\\")):
        parse_card(bad)


def test_r1_rank_order_within_a_suit_is_a_10_k_q_j_9_8_7() -> None:
    order = cards("AS TS KS QS JS 9S 8S 7S")
    assert order == sorted(order, reverse=True)


def test_r2_only_aces_and_tens_score_and_the_pack_holds_80() -> None:
    assert sum(CARD_POINTS) == 80
    assert {card_name(c) for c in range(32) if CARD_POINTS[c]} == {
        f"{r}{s}" for r in "AT" for s in "CDHS"
    }


def test_r2_captured_ace_and_ten_score_10_each() -> None:
    deal = new_deal(ELDER, DEALER, "8H")
    play(deal, "AS TD")  # the elder (1) wins with the ace: 20 points
    assert deal.points == (0, 20)
    assert deal.breakdown(1).cards == 20


# -- players, dealer, deck ------------------------------------------------------------


def test_r3_elder_leads_trick_1() -> None:
    assert new_deal(ELDER, DEALER, "8H", dealer_seat=0).to_move == 1
    assert new_deal(ELDER, DEALER, "8H", dealer_seat=1).to_move == 0


def test_r3_first_dealer_is_random_and_the_deal_alternates() -> None:
    dealers = {Match(seed=s).first_dealer for s in range(20)}
    assert dealers == {0, 1}
    match = Match(first_dealer=1, seed=7)
    seats = [_FirstLegal(), _FirstLegal()]
    play_match(match, seats)
    assert [d.dealer for d in match.deals] == [(1 + i) % 2 for i in range(len(match.deals))]


def test_r4_deal_3_3_gives_batches_of_three_elder_first() -> None:
    deck = list(range(32))
    elder, dealer = deal_hands(deck, (3, 3))
    assert elder == CardSet([0, 1, 2, 6, 7, 8]).mask
    assert dealer == CardSet([3, 4, 5, 9, 10, 11]).mask


def test_r4_deal_2_2_2_gives_batches_of_two_elder_first() -> None:
    deck = list(range(32))
    elder, dealer = deal_hands(deck, (2, 2, 2))
    assert elder == CardSet([0, 1, 4, 5, 8, 9]).mask
    assert dealer == CardSet([2, 3, 6, 7, 10, 11]).mask
    rules = CLASSIC.replace(deal_pattern=(2, 2, 2))
    deal = Deal(deck, 1, rules)
    assert deal.hand_mask(0) == elder and deal.hand_mask(1) == dealer


def test_r5_deck_12_is_the_indicator_and_sets_trumps() -> None:
    deal = new_deal(ELDER, DEALER, "8H")
    assert card_name(deal.indicator) == "8H"
    assert deal.trump == 2
    assert deal.stock_size == 20


def test_r5_stock_is_drawn_in_order_and_the_indicator_comes_last() -> None:
    deal = new_deal(ELDER, DEALER, "8H", stock="7C 8C 9C JC")
    play(deal, "AS AD")  # elder (1) wins
    play(deal, "draw")
    assert parse_card("7C") in deal.hand(1) and parse_card("8C") in deal.hand(0)
    finish_phase1(deal)
    # the last card drawn, by the loser of trick 10, is the indicator
    assert parse_card("8H") in deal.hand(0) | deal.hand(1) | deal.won(0) | deal.won(1)
    assert deal.stock_size == 0


def test_r6_a_seed_makes_the_match_reproducible() -> None:
    def run(seed: int) -> list[list[int]]:
        m = Match(seed=seed)
        play_match(m, [_Seeded(1), _Seeded(2)])
        return [list(d.deck or ()) + d.moves for d in m.deals]

    assert run(11) == run(11)
    assert run(11) != run(12)


def test_r6_without_a_seed_shuffles_use_a_cryptographically_strong_source() -> None:
    import secrets

    assert isinstance(Match().rng, secrets.SystemRandom)


# -- phase 1 --------------------------------------------------------------------------


def test_r7_phase1_follower_may_play_any_card() -> None:
    deal = new_deal(ELDER, DEALER, "8H")
    play(deal, "AS")
    assert legal_texts(deal) == set(DEALER.split())


def test_r8_highest_trump_wins_else_higher_card_of_suit_led() -> None:
    deal = new_deal("AS TS KS QD JD 9D", "AD TD KD QS JS 7H", "8H")
    play(deal, "AS 7H")  # a trump beats the led ace
    assert deal.breakdown(0).cards == 10 and deal.to_move == 0


def test_r8_off_suit_non_trump_never_wins() -> None:
    deal = new_deal(ELDER, DEALER, "8H")
    play(deal, "KS AD")  # AD is higher in rank but not of the led suit
    assert deal.won(1).mask == CardSet.parse("KS AD").mask


def test_r8_higher_card_of_the_led_suit_wins() -> None:
    deal = new_deal(ELDER, DEALER, "8H")
    play(deal, "KS QS")
    assert deal.to_move == 1 and deal.in_window
    deal2 = new_deal(ELDER, "AD TD KD QS JS 8S", "8H")
    play(deal2, "9D TD")
    assert deal2.to_move == 0


def test_r9_winner_has_the_window_draws_first_and_leads_next() -> None:
    deal = new_deal(ELDER, DEALER, "8H", stock="7C 8C")
    play(deal, "QD KD")  # dealer (0) wins
    assert deal.in_window and deal.to_move == 0
    play(deal, "draw")
    assert parse_card("7C") in deal.hand(0)
    assert parse_card("8C") in deal.hand(1)
    assert deal.to_move == 0 and not deal.in_window and deal.lead is None


def test_r10_window_allows_dix_and_melds_in_any_order_and_ends_with_draw() -> None:
    deal = new_deal("KH QH 7H 9C 8C 7C", DEALER, "8H", stock="AC TC")
    play(deal, "9C JS")  # elder (1) wins: JS is not a club and not a trump
    assert legal_texts(deal) == {"meld KQH", "dix", "draw"}
    play(deal, "meld KQH dix")
    assert legal_texts(deal) == {"draw"}
    with pytest.raises(IllegalActionError, match="R9/R10"):
        play(deal, "KH")
    play(deal, "draw")
    assert deal.points == (0, 50)


def test_r10_a_card_while_the_window_is_open_is_illegal() -> None:
    deal = new_deal(ELDER, DEALER, "8H")
    play(deal, "AS 9S")
    with pytest.raises(IllegalActionError, match="ends with 'draw'"):
        play(deal, "TS")


def test_r11_meld_values_classic() -> None:
    trumps_h = new_deal(ELDER, DEALER, "8H")
    values = {name: trumps_h.meld_values[i] for name, i in MELD_INDEX.items()}
    assert values["4A"] == 100 and values["4T"] == 80 and values["4K"] == 60 and values["4Q"] == 40
    assert values["KQH"] == 40 and values["KQS"] == 20
    assert values["JQH"] == 40 and values["JQC"] == 20


def test_r11_four_jacks_score_nothing_and_are_not_a_meld() -> None:
    with pytest.raises(ActionError, match="R11"):
        parse_action("meld 4J")
    with pytest.raises(ActionError, match="R11"):
        parse_action("meld KQX")


def test_r11_trump_jack_pairs_with_any_queen() -> None:
    # hearts trumps: the marjolet is JH
    deal = new_deal("JH QS QD QC 7C 8C", DEALER2, "8H")
    play(deal, "7C 9S")  # elder wins
    assert legal_texts(deal) == {"meld JQS", "meld JQD", "meld JQC", "draw"}
    play(deal, "meld JQS meld JQD")
    assert deal.points == (0, 40)


def test_r11_same_suit_variation_pairs_jack_and_queen_of_one_suit() -> None:
    rules = CLASSIC.replace(jack_queen="same-suit")
    deal = new_deal("JS QS JD QD 7C 8C", DEALER2, "8H", rules=rules)
    play(deal, "7C 9S")
    assert legal_texts(deal) == {"meld JQS", "meld JQD", "draw"}


def test_r12_each_meld_id_scores_once_per_player_per_deal() -> None:
    deal = new_deal("KS QS 7C 8C 9C 7D", DEALER2, "8H", stock="JC JD 8D 9H")
    play(deal, "7C 9S meld KQS draw")
    play(deal, "8C 8S")  # elder wins again, still holding K♠ Q♠
    assert "meld KQS" not in legal_texts(deal)
    with pytest.raises(IllegalActionError, match="R12: player 1 already scored meld KQS"):
        play(deal, "meld KQS")


def test_r12_a_card_serves_in_melds_of_different_ids() -> None:
    # seed 000 section 05: K♠-Q♠, then Q♠ with the marjolet J♦, then Q♦-J♦ (diamonds trumps)
    deal = new_deal("KS QS JD QD 7C 8C", "AH TH KH 9S 8S 7S", "9D")
    play(deal, "7C 7S meld KQS meld JQS meld JQD")
    assert deal.points == (0, 20 + 20 + 40)


def test_r12_meld_cards_must_be_in_the_hand() -> None:
    deal = new_deal("KS 9C 7C 8C 9H 7D", DEALER, "8H")
    play(deal, "7C 9S")
    with pytest.raises(IllegalActionError, match="R12: meld KQS needs QS"):
        play(deal, "meld KQS")
    with pytest.raises(IllegalActionError, match=r"R12: meld JQS needs JH \(the trump jack\) QS"):
        play(deal, "meld JQS")  # (hearts are trumps: the marjolet's jack is J♥)


def test_r12_four_queens_may_be_made_of_exposed_cards() -> None:
    deal = new_deal("KS QS QD QC QH KC", DEALER2, "8D")
    play(deal, "KC 9S meld KQS draw")
    play(deal, "KS 8S")
    assert "meld 4Q" in legal_texts(deal)
    play(deal, "meld 4Q")
    assert deal.breakdown(1).melds == 20 + 40


def test_r13_declared_cards_are_exposed_to_the_opponent_and_stay_playable() -> None:
    deal = new_deal("KS QS 7C 8C 9C 7D", DEALER2, "8H")
    play(deal, "7C 9S meld KQS draw")
    obs = observe(deal, 0)
    assert obs.exposed[1] == CardSet.parse("KS QS")
    assert obs.opponent_known == CardSet.parse("KS QS")
    play(deal, "KS")  # an exposed card is played as usual and leaves the exposed set
    assert deal.exposed(1) == CardSet.parse("QS")


def test_r14_no_declaration_before_trick_1() -> None:
    deal = new_deal("KS QS 7C 8C 9C 7D", DEALER2, "8H")
    with pytest.raises(IllegalActionError, match="R14"):
        play(deal, "meld KQS")


def test_r14_the_loser_of_a_trick_cannot_declare() -> None:
    deal = new_deal("KS QS 7C 8C 9C 7D", "AD TD KD 9S 8S 7H", "8H")
    play(deal, "7C 7H")  # the dealer (0) trumps and wins; the elder holds K♠ Q♠ but may not meld
    assert deal.to_move == 0
    assert all(a == DRAW or a >= MELD_BASE for a in deal.legal_actions())
    assert parse_action("meld KQS") not in deal.legal_actions()


def test_r14_no_melds_in_phase_2() -> None:
    deal = random_deal(3, stop=0)
    finish_phase1(deal)
    assert deal.stock_empty
    assert all(a < MELD_BASE for a in deal.legal_actions())
    with pytest.raises(IllegalActionError, match="R14: no melds in phase 2"):
        deal.play(parse_action("meld KQS"))


def trick10_window(
    winner_hand: str, loser_hand: str, indicator: str, last_hidden: str, exposed: str = ""
) -> Deal:
    """The meld window after trick 10 (won by player 1), built directly."""
    from marjolet.engine import (
        EXPOSED,
        HAND,
        INDICATOR,
        LAST_CARD_TO,
        LAST_WINNER,
        LEAD,
        SEVEN_BY,
        STATE_SIZE,
        TRICKS,
        TURN,
        WINDOW,
    )

    s = [0] * STATE_SIZE
    s[HAND + 1] = CardSet.parse(winner_hand).mask
    s[HAND] = CardSet.parse(loser_hand).mask
    s[EXPOSED + 1] = CardSet.parse(exposed).mask
    s[TRICKS], s[WINDOW], s[TURN], s[LEAD] = 10, 1, 1, -1
    s[INDICATOR] = parse_card(indicator)
    s[SEVEN_BY], s[LAST_CARD_TO], s[LAST_WINNER] = -1, -1, 1
    stock = [-1] * 18 + [parse_card(last_hidden)]
    return Deal.from_state(CLASSIC, 0, parse_card(indicator), stock, s)


def test_r14_window_after_trick_10_allows_melds_and_dix() -> None:
    deal = trick10_window("KH QH 7H AC TC", "8C 9C JC QC KC", "AH", "9D")
    assert legal_texts(deal) == {"meld KQH", "dix", "draw"}
    play(deal, "dix meld KQH draw")
    assert deal.points == (10, 50)


def test_r15_after_trick_10_winner_draws_last_card_loser_takes_indicator_and_10() -> None:
    deal = trick10_window("KH QH 7H AC TC", "8C 9C JC QC KC", "AH", "9D", exposed="KH QH")
    play(deal, "meld KQH draw")
    assert parse_card("9D") in deal.hand(1)
    assert parse_card("AH") in deal.hand(0)
    assert deal.breakdown(0).last_card == 10 and deal.breakdown(1).last_card == 0
    assert deal.stock_empty and deal.stock_size == 0 and deal.to_move == 1
    assert deal.exposed(1) == CardSet()


def test_r15_loser_takes_the_exchanged_seven_as_the_last_card() -> None:
    deal = trick10_window("KH QH 7H AC TC", "8C 9C JC QC KC", "AH", "9D")
    play(deal, "dix draw")
    assert parse_card("7H") in deal.hand(0) and parse_card("AH") in deal.hand(1)


def test_r15_exposed_cards_return_to_hand_and_scored_melds_keep_points() -> None:
    deal = new_deal("KS QS 7C 8C 9C 7D", DEALER2, "8H")
    play(deal, "7C 9S meld KQS draw")
    finish_phase1(deal)
    assert deal.exposed(1) == CardSet()
    assert deal.breakdown(1).melds == 20


# -- phase 2 --------------------------------------------------------------------------


def phase2_position(hand_leader: str, hand_follower: str, lead: str, trump_indicator: str) -> Deal:
    """A phase-2 position built directly: the leader (0) has led ``lead``."""
    from marjolet.engine import (
        HAND,
        INDICATOR,
        LAST_CARD_TO,
        LEAD,
        SEVEN_BY,
        STATE_SIZE,
        TRICKS,
        TURN,
    )

    s = [0] * STATE_SIZE
    s[HAND] = CardSet.parse(hand_leader).mask
    s[HAND + 1] = CardSet.parse(hand_follower).mask
    s[TRICKS] = 10
    s[LEAD] = parse_card(lead)
    s[TURN] = 1
    s[INDICATOR] = parse_card(trump_indicator)
    s[SEVEN_BY] = 0
    s[LAST_CARD_TO] = 0
    return Deal.from_state(CLASSIC, 0, parse_card(trump_indicator), [-1] * 19, s)


def test_r16_must_follow_suit_and_overtake_if_able() -> None:
    deal = phase2_position("9S", "AS 8S KD 7H", "9S", "8H")
    assert legal_texts(deal) == {"AS"}


def test_r16_must_follow_suit_even_when_unable_to_overtake() -> None:
    deal = phase2_position("TS", "KS 8S KD 7H", "TS", "8H")
    assert legal_texts(deal) == {"KS", "8S"}


def test_r16_void_in_led_suit_must_trump_with_any_trump() -> None:
    deal = phase2_position("AS", "KD 7H 9H", "AS", "8H")
    assert legal_texts(deal) == {"7H", "9H"}


def test_r16_void_of_suit_and_trumps_plays_any_card() -> None:
    deal = phase2_position("AS", "KD 7C", "AS", "8H")
    assert legal_texts(deal) == {"KD", "7C"}


def test_r16_trump_lead_must_be_overtaken_with_a_higher_trump_if_able() -> None:
    deal = phase2_position("KH", "AH 7H 9S", "KH", "8H")
    assert legal_texts(deal) == {"AH"}
    deal = phase2_position("KH", "QH 7H 9S", "KH", "8H")
    assert legal_texts(deal) == {"QH", "7H"}


def test_r16_illegal_follow_is_refused_citing_the_rule() -> None:
    deal = phase2_position("AS", "KD 7H 9H", "AS", "8H")
    with pytest.raises(IllegalActionError, match="R16: KD may not follow AS"):
        deal.play(parse_card("KD"))


@pytest.mark.parametrize(
    ("lead", "hand", "card", "duty"),
    [
        ("TS", "AS 8S KD", "KD", "must follow suit with a higher card"),
        ("TS", "KS 8S KD", "KD", "must follow suit; legal: KS 8S"),
        ("AS", "KD 7H 9H", "KD", "has none of the suit led and must trump"),
        ("KH", "AH 7H 9S", "7H", "must play a higher trump; legal: AH"),
        ("KH", "QH 7H 9S", "9S", "must play a trump"),
    ],
)
def test_r16_refusal_names_the_followers_duty(lead: str, hand: str, card: str, duty: str) -> None:
    deal = phase2_position(lead, hand, lead, "8H")
    player = deal.to_move
    with pytest.raises(IllegalActionError, match=f"player {player} {re.escape(duty)}"):
        deal.play(parse_card(card))


def test_r16_leader_in_phase_2_may_lead_any_card() -> None:
    deal = random_deal(8, stop=0)
    finish_phase1(deal)
    assert set(deal.legal_actions()) == set(deal.hand(deal.to_move))


def test_r17_last_trick_scores_10_and_all_six_scores_50_classic() -> None:
    # L000: player 1 sweeps the last six tricks
    deal = _sweep_deal(CLASSIC)
    b = deal.breakdown(1)
    assert (b.last_trick, b.all_tricks) == (10, 50)


def test_r17_all_six_scores_40_in_the_encyclopedia_profile() -> None:
    deal = _sweep_deal(ENCYCLOPEDIA)
    assert deal.breakdown(1).all_tricks == 40


def test_r17_no_all_six_bonus_when_the_last_six_tricks_are_shared() -> None:
    for seed in range(40):
        deal = random_deal(seed)
        for p in (0, 1):
            b = deal.breakdown(p)
            if b.all_tricks:
                assert b.last_trick == 10


# -- the seven of trumps ------------------------------------------------------------


def test_r18_seven_turned_up_scores_10_for_the_dealer_at_once() -> None:
    deal = new_deal(ELDER, DEALER, "7H", dealer_seat=1)
    assert deal.points == (0, 10)
    assert deal.breakdown(1).dix == 10


def test_r18_seven_turned_up_cannot_be_exchanged() -> None:
    deal = new_deal("7C 8C 9C JC QC KC", DEALER, "7H")
    play(deal, "KC 9S")
    assert "dix" not in legal_texts(deal)
    with pytest.raises(IllegalActionError, match="R18: the indicator was the seven"):
        deal.play(DIX)


def test_r18_exchange_scores_10_and_the_seven_becomes_the_indicator() -> None:
    deal = new_deal("7H 8C 9C JC QC KC", DEALER, "AH")
    play(deal, "KC 9S dix")
    assert deal.points == (0, 10)
    assert card_name(deal.indicator) == "7H"
    assert parse_card("AH") in deal.hand(1) and parse_card("7H") not in deal.hand(1)


def test_r18_exchange_only_in_the_window_of_a_won_trick() -> None:
    deal = new_deal("7H 8C 9D JC QC KC", "AD TD KD QS JS 9C", "AH")
    with pytest.raises(IllegalActionError, match="R14"):
        deal.play(DIX)
    play(deal, "8C 9C")
    assert deal.to_move == 0 and "dix" not in legal_texts(deal)  # the dealer won; elder holds 7H


def test_r19_unexchanged_seven_scores_even_when_losing() -> None:
    deal = new_deal("7H 8C 9C JC QC KC", "AH TD KD QS JS 9S", "8H")
    play(deal, "7H AH")  # the seven loses to the ace of trumps but scores 10
    assert deal.breakdown(1).dix == 10
    assert deal.points == (10, 10)


def test_r19_seven_scores_for_whoever_plays_it_in_either_phase() -> None:
    played_in = set()
    for seed in range(200):
        deal = random_deal(seed)
        if deal.turned_up == deal.seven or deal.exchanged:
            continue
        index = deal.moves.index(deal.seven)
        before = deal.copy()
        while len(before.moves) > index:
            before.pop()
        player = before.to_move
        played_in.add(before.stock_empty)
        assert deal.breakdown(player).dix == 10 and deal.breakdown(player ^ 1).dix == 0
    assert played_in == {False, True}


def test_r19_encyclopedia_seven_scores_nothing_when_played() -> None:
    deal = new_deal("7H 8C 9C JC QC KC", "AH TD KD QS JS 9S", "8H", rules=ENCYCLOPEDIA)
    play(deal, "7H AH")
    assert deal.breakdown(1).dix == 0


def test_r20_exchanged_seven_earns_nothing_when_played_later() -> None:
    deal = new_deal("7H 8C 9C JC QC KC", "AD TD KD QS JS 9S", "AH", stock="8S 8D")
    play(deal, "KC 9S dix draw")
    assert deal.points == (0, 10)
    finish_phase1(deal)
    while not deal.is_over:
        deal.play(deal.legal_actions()[0])
    assert sum(deal.breakdown(p).dix for p in (0, 1)) == 10


def test_r20_second_exchange_is_refused() -> None:
    deal = new_deal("7H 8C 9C JC QC KC", "AD TD KD QS JS 9S", "AH", stock="8S 8D")
    play(deal, "KC 9S dix")
    with pytest.raises(IllegalActionError, match="R18/R20"):
        deal.play(DIX)


def test_r20_turned_up_seven_earns_nothing_when_played_later() -> None:
    for seed in range(300):
        rng = random.Random(seed)
        deck = list(range(32))
        rng.shuffle(deck)
        if deck[12] & 7 != 0:
            continue  # not a seven turned up
        deal = Deal(deck, 0)
        while not deal.is_over:
            legal = deal.legal_actions()
            deal.push(legal[rng.randrange(len(legal))])
        assert deal.breakdown(0).dix == 10 and deal.breakdown(1).dix == 0
        return
    pytest.fail("no deck with a seven turned up")


# -- score and match -----------------------------------------------------------------


def reference_breakdown(deal: Deal) -> tuple[Breakdown, Breakdown]:
    """R17-R21 scored from the deck and the action list alone, written out
    plainly (who acts, trick winners, card and meld values), independently
    of the engine's incremental scoring."""
    assert deal.deck is not None
    rules = deal.rules
    turned_up = deal.deck[len(rules.deal_pattern) * 2 * rules.deal_pattern[0]]
    trump = turned_up // 8
    seven = trump * 8  # rank 0 is the seven
    card_points = {6: 10, 7: 10}  # R2: aces and tens (ranks 7 8 9 J Q K T A = 0-7)
    src = [dict.fromkeys(("cards", "melds", "dix", "last_card", "last_trick", "all_tricks"), 0)
           for _ in (0, 1)]
    seven_done = turned_up == seven
    if seven_done:
        src[deal.dealer]["dix"] = 10  # R18: turned up, the dealer scores it
    player, led, trick, late = deal.dealer ^ 1, None, 0, [0, 0]
    for a in deal.moves:
        if a < MELD_BASE:
            if a == seven and not seven_done and rules.dix_on_play:
                src[player]["dix"], seven_done = 10, True  # R19
            if led is None:
                led, leader, player = a, player, player ^ 1
                continue
            if a // 8 == led // 8:
                winner = player if a % 8 > led % 8 else leader
            else:
                winner = player if a // 8 == trump else leader
            src[winner]["cards"] += card_points.get(a % 8, 0) + card_points.get(led % 8, 0)
            trick += 1
            if trick > 10:
                late[winner] += 1
            if trick == 10:
                src[winner ^ 1]["last_card"] = 10  # R15: the loser takes the indicator
            led, player = None, winner
        elif a < DIX:
            src[player]["melds"] += MELD_VALUES[trump][a - MELD_BASE]
        elif a == DIX:
            src[player]["dix"], seven_done = 10, True
    if trick == 16:
        src[player]["last_trick"] = 10  # R17: the winner of trick 16 leads nothing more
        if late[player] == 6:
            src[player]["all_tricks"] = rules.all_tricks_bonus
    return Breakdown(**src[0]), Breakdown(**src[1])


@pytest.mark.parametrize("rules", [CLASSIC, ENCYCLOPEDIA], ids=lambda r: r.profile)
def test_r21_deal_score_is_the_sum_of_its_sources(rules: Rules) -> None:
    for seed in range(60):
        deal = random_deal(seed, rules)
        expected = reference_breakdown(deal)
        assert (deal.breakdown(0), deal.breakdown(1)) == expected
        assert deal.points == (expected[0].total, expected[1].total)
        assert expected[0].cards + expected[1].cards == 80


def test_r22_match_ends_when_a_total_reaches_the_target_and_totals_differ() -> None:
    match = Match(CLASSIC.replace(target=100), first_dealer=0, seed=5)
    play_match(match, [_Seeded(1), _Seeded(2)])
    t0, t1 = match.totals
    assert max(t0, t1) >= 100 and t0 != t1
    assert match.winner == (0 if t0 > t1 else 1)
    # every earlier deal left the match undecided
    running = [0, 0]
    for d in match.deals[:-1]:
        running = [running[0] + d.points[0], running[1] + d.points[1]]
        assert max(running) < 100 or running[0] == running[1]


def test_r22_a_tie_at_or_above_the_target_continues() -> None:

    from marjolet.record import load, replay
    from test_records import EXAMPLES as examples

    tie = replay(load(examples / "L005-hand-tie-510-open.json"))
    assert tie.totals == (510, 510) and tie.winner is None
    decided = replay(load(examples / "L004-hand-tie-510-then-decided.json"))
    assert decided.winner == 0


def test_r22_a_deal_is_always_finished_before_the_next() -> None:
    from marjolet.errors import MarjoletError

    match = Match(seed=1)
    match.start_deal()
    with pytest.raises(MarjoletError, match="not finished"):
        match.start_deal()


# -- knowledge -------------------------------------------------------------------


def test_r23_observation_hides_the_opponents_unexposed_hand_and_the_stock() -> None:
    deal = new_deal(ELDER, DEALER, "8H")
    obs = observe(deal, 0)
    assert obs.hand == deal.hand(0)
    assert obs.opponent_known == CardSet()
    assert obs.unseen.mask == (deal.hand(1).mask | CardSet(deal.stock).mask)
    assert obs.indicator == deal.indicator


def test_r23_indicator_taken_by_dix_is_known_in_the_opponents_hand() -> None:
    deal = new_deal("7H 8C 9C JC QC KC", DEALER, "AH")
    play(deal, "KC 9S dix")
    assert observe(deal, 0).opponent_known == CardSet.parse("AH")


def test_r23_both_hands_are_known_once_the_stock_is_empty() -> None:
    deal = random_deal(4, stop=0)
    finish_phase1(deal)
    for seat in (0, 1):
        obs = observe(deal, seat)
        assert obs.opponent_known == deal.hand(seat ^ 1)
        assert obs.unseen == CardSet()


# -- helpers ---------------------------------------------------------------------------


def _sweep_deal(rules: Rules) -> Deal:
    from marjolet.record import loads

    text = (
        '{"format": "marjolet-record/1", "rules": %s, "first_dealer": 0, "deals": [{"deck": '
        '["AS","TS","KS","AD","TD","KD","QS","JS","9S","QD","JD","9D","8H","8S","8D","7S","7D",'
        '"AC","KC","TC","QC","AH","JC","TH","9C","KH","8C","QH","7C","JH","7H","9H"], "actions": '
        '["AS","AD","draw","TS","TD","draw","KS","KD","draw","QS","QD","draw","JS","JD","draw",'
        '"9S","9D","draw","8S","8D","draw","7S","7D","draw","AC","KC","draw","TC","QC","draw",'
        '"AH","7H","TH","8H","KH","JC","QH","9C","JH","8C","9H","7C"]}]}'
    )
    import json

    from marjolet.record import to_match

    record = loads(text % json.dumps(rules.to_record()))
    match = to_match(record)
    assert match.deal is not None and match.deal.is_over
    return match.deal


class _FirstLegal:
    def choose(self, obs: Observation, legal: Sequence[int]) -> int:
        return legal[0]


class _Seeded:
    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def choose(self, obs: Observation, legal: Sequence[int]) -> int:
        return legal[self.rng.randrange(len(legal))]


def test_rules_from_json_rejects_bad_settings() -> None:
    from marjolet.errors import RulesError

    for bad in (
        {"profile": "classic", "target": 0},
        {"profile": "classic", "target": True},
        {"profile": "classic", "all_tricks_bonus": -1},
        {"profile": "classic", "deal_pattern": [3, 2]},
        {"profile": "classic", "jack_queen": "any"},
        {"profile": "classic", "dix_on_play": 1},
        {"profile": "classic", "bogus": 1},
        {"target": 500},
        "tournament",
        42,
    ):
        with pytest.raises(RulesError):
            Rules.from_json(bad)


def test_rules_settings_combine_freely_and_round_trip() -> None:
    rules = Rules.from_json(
        {
            "profile": "encyclopedia",
            "deal_pattern": [2, 2, 2],
            "jack_queen": "same-suit",
            "target": 1000,
            "one_meld_per_window": True,
        }
    )
    assert rules.all_tricks_bonus == 40 and rules.target == 1000
    assert Rules.from_json(rules.to_record()) == rules
    assert Rules.from_json(rules.to_json()) == rules


def test_one_meld_per_window_allows_one_declaration_but_still_the_dix() -> None:
    rules = CLASSIC.replace(one_meld_per_window=True)
    deal = new_deal("KH QH KS QS 7H 8C", DEALER2, "AH", rules=rules)
    play(deal, "8C 9S meld KQH")
    assert legal_texts(deal) == {"dix", "draw"}
    with pytest.raises(IllegalActionError, match="one_meld_per_window"):
        play(deal, "meld KQS")


def test_r22_totals_count_a_deal_finished_through_the_deal_itself() -> None:
    match = Match(seed=2, first_dealer=0)
    deal = match.start_deal()
    while not deal.is_over:
        deal.push(deal.legal_actions()[0])
    assert match.totals == deal.points
    assert match.needs_deal
