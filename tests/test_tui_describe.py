"""What the terminal says about the game: R16 explanations, meld-window
choices, the trick list and the log lines (marjolet.tui.describe)."""

from __future__ import annotations

import dataclasses
import random
import re

import pytest

from helpers import new_deal, play
from marjolet.actions import DIX, DRAW, MELD_BASE, parse_action
from marjolet.cards import card_symbol, parse_card
from marjolet.engine import Deal
from marjolet.match import seeded_deck
from marjolet.melds import MELD_INDEX
from marjolet.observation import observe
from marjolet.rules import CLASSIC
from marjolet.tui import describe


def random_deals(count: int, seed: int) -> list[Deal]:
    """Complete deals of uniformly random legal play (replayed from their
    deck and moves by the tests to visit every position)."""
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        deck = list(range(32))
        rng.shuffle(deck)
        d = Deal(deck, rng.randrange(2))
        while not d.is_over:
            d.push(rng.choice(d.legal_actions()))
        out.append(d)
    return out


def test_r16_follow_rule_allows_exactly_the_engines_legal_cards() -> None:
    checked = 0
    for finished in random_deals(150, seed=16):
        assert finished.deck is not None
        d = Deal(finished.deck, finished.dealer)
        for a in finished.moves:
            obs = observe(d, d.to_move)
            if not d.in_window:
                legal = d.legal_mask()
                rule = describe.follow_rule(obs)
                allowed = obs.hand.mask if rule is None else rule.allowed
                assert allowed == legal, (d, rule)
                for c in obs.hand:
                    reason = describe.why_not_allowed(obs, c)
                    assert (reason is None) == bool(legal >> c & 1)
                    if reason is not None:
                        assert "In the last tricks" in reason and card_symbol(c) in reason
                        assert not re.search(r"\bR\d+\b", reason)  # no rule id
                        checked += 1
            d.push(a)
    assert checked > 100  # the property was exercised on many refused cards


def test_r16_explanations_name_the_duty() -> None:
    d = new_deal("AS KS QS 7H 8H 9C", "TS JS 9S TH JH 8C", "AD")
    assert describe.follow_rule(observe(d, 0)) is None  # phase 1: no duty
    seen: set[str] = set()
    for finished in random_deals(60, seed=3):
        assert finished.deck is not None
        d = Deal(finished.deck, finished.dealer)
        for a in finished.moves:
            obs = observe(d, d.to_move)
            rule = describe.follow_rule(obs)
            if rule is not None:
                assert obs.lead is not None
                text = rule.explain()
                assert text.startswith("In the last tricks: ") and "play " in text
                if "when you can" in text:
                    assert card_symbol(obs.lead) in text
                    seen.add("beat")
                elif "must trump" in text:
                    seen.add("trump")
                else:
                    assert "cannot beat" in text
                    seen.add("follow")
            d.push(a)
    assert seen == {"beat", "trump", "follow"}


def test_window_options_list_melds_by_value_then_dix_then_draw() -> None:
    # Trumps spades (indicator 10♠); the elder holds K♥ Q♥ and the seven of
    # trumps and wins trick 1 with A♠.
    d = new_deal("AS 7S KH QH 8C 9C", "7D 8D 9D JD QD KD", "TS", dealer_seat=1)
    play(d, "AS 7D")
    obs = observe(d, 0)
    options = describe.window_options(obs, d.legal_actions())
    assert [o.action for o in options] == [MELD_BASE + MELD_INDEX["KQH"], DIX, DRAW]
    kqh, dix, draw = options
    assert (kqh.cards, kqh.kind, kqh.value) == ("K♥-Q♥", "marriage", 20)
    assert (dix.cards, dix.value) == ("7♠⇄10♠", 10)
    assert draw.value == 0 and "draw" in draw.label


def test_trump_marriage_is_labelled_and_worth_40() -> None:
    d = new_deal("AS KS QS 8C 9C 7D", "7H 8D 9D JD QD KD", "TS", dealer_seat=1)
    play(d, "AS 7H")
    options = describe.window_options(observe(d, 0), d.legal_actions())
    assert options[0].kind == "trump marriage" and options[0].value == 40


def test_tricks_of_matches_the_engine_winners_and_captures() -> None:
    for finished in random_deals(40, seed=8):
        obs = observe(finished, 0)
        tricks = describe.tricks_of(obs)
        assert len(tricks) == 16
        for p in (0, 1):
            won = 0
            for t in tricks:
                if t.winner == p:
                    won |= 1 << t.lead | 1 << t.follow
            assert won == obs.won[p].mask
        assert tricks[-1].winner == obs.last_trick_winner


def test_hand_order_alternates_colours_highest_first() -> None:
    mask = 0
    for t in ["7C", "AC", "KH", "9D", "AS", "TS", "QD", "8H"]:
        mask |= 1 << parse_card(t)
    assert [card_symbol(c) for c in describe.hand_order(mask)] == [
        "A♠", "10♠", "K♥", "8♥", "A♣", "7♣", "Q♦", "9♦",
    ]  # fmt: skip


def test_narration_tells_tricks_melds_dix_and_draws_from_the_humans_side() -> None:
    d = new_deal("AS 7S KH QH 8C 9C", "7D 8D 9D JD QD KD", "TS", "8S 9S", dealer_seat=1)
    names = ("You", "North")
    lines: list[str] = []
    for text in ("AS", "7D", "meld KQH", "dix", "draw"):
        before = observe(d, 0)
        actor = d.to_move
        action = parse_action(text)
        d.play(action)
        lines += describe.narrate(before, observe(d, 0), actor, action, names)
    assert lines == [
        "You won trick 1 with A♠ over 7♦ (+10).",
        "You declared K♥-Q♥ (marriage) for 20.",
        "You exchanged 7♠ for the indicator 10♠ (+10).",
        "You drew 8♠.",
    ]


def test_narration_of_the_opponent_uses_its_name_and_hides_its_draw() -> None:
    d = new_deal("AS 7S KH QH 8C 9C", "7D 8D 9D JD QD KD", "TS", "8S 9S", dealer_seat=0)
    # seat 0 is the dealer here; the elder (seat 1, North) leads.
    names = ("You", "North")
    lines: list[str] = []
    for text in ("AS", "7D", "meld KQH", "draw"):
        before = observe(d, 0)
        actor = d.to_move
        action = parse_action(text)
        d.play(action)
        lines += describe.narrate(before, observe(d, 0), actor, action, names)
    assert lines == [
        "North won trick 1 with A♠ over your 7♦ (+10).",
        "North declared K♥-Q♥ (marriage) for 20.",
        "You drew 9♠.",
    ]
    assert "8♠" not in " ".join(lines)  # North's draw stays secret (R23)


def test_summary_table_lists_every_source_and_the_total() -> None:
    finished = random_deals(1, seed=5)[0]
    rows = describe.summary_table((finished.breakdown(0), finished.breakdown(1)))
    labels = [r[0] for r in rows]
    assert labels == ["cards (A, 10)", "melds", "seven of trumps", "last card of the stock",
                      "last trick", "all six last tricks", "deal total"]  # fmt: skip
    assert rows[-1][1:] == finished.points


def test_melds_are_named_as_players_say_them() -> None:
    hearts = 2
    assert describe.meld_cards_text(MELD_INDEX["JQC"], hearts, CLASSIC) == "J♥-Q♣"
    same_suit = CLASSIC.replace(jack_queen="same-suit")
    assert describe.meld_cards_text(MELD_INDEX["JQC"], hearts, same_suit) == "J♣-Q♣"
    assert describe.meld_short(MELD_INDEX["KQS"], hearts, CLASSIC) == "K♠-Q♠"
    assert describe.meld_short(MELD_INDEX["4T"], hearts, CLASSIC) == "4×10"
    assert describe.melds_text(1 << MELD_INDEX["4A"] | 1 << MELD_INDEX["KQH"], hearts, CLASSIC) == (
        "four aces, K♥-Q♥"  # as the log says them: a newcomer could not read "4×A"
    )


def test_hint_text_gives_the_move_its_margin_and_the_runner_up() -> None:
    from marjolet.tui.hint import Hint

    h = Hint(parse_card("AS"), "pimc", 12.4, False, (MELD_BASE + MELD_INDEX["KQH"], 8.0))
    assert h.text() == (
        "Hint: play A♠. You should end this deal about 12 points ahead; "
        "declare marriage in hearts instead: about 8 points ahead."  # no trump: never "KQH"
    )
    assert Hint(DRAW, "pimc", -3.0, True).text() == (
        "Hint: draw. You should end this deal exactly 3 points behind."
    )
    tie = Hint(parse_card("AS"), "pimc", -23.2, False, (DRAW, -22.9))
    assert tie.text() == (
        "Hint: play A♠. You should end this deal about 23 points behind; "
        "draw instead: just as good."
    )
    assert Hint(DRAW, "pimc", 0.3, True).text() == "Hint: draw. You should end this deal level."
    assert Hint(DRAW, "pimc", 1.2, True).text().endswith("exactly 1 point ahead.")


def test_the_meld_window_prompt_offers_the_exchange_only_when_it_is_legal() -> None:
    from marjolet.tui import board
    from marjolet.tui.state import Waiting

    names = ("You", "North")
    for hand, can_exchange in (("AS 7S KH QH 8C 9C", True), ("AS JS KH QH 8C 9C", False)):
        d = new_deal(hand, "7D 8D 9D JD QD KD", "TS", "8S 9S", dealer_seat=1)
        for text in ("AS", "7D"):  # the ace of trumps wins trick 1: a meld window
            d.play(parse_action(text))
        legal = d.legal_actions()
        assert (DIX in legal) is can_exchange
        words = board.prompt(Waiting.HUMAN, observe(d, 0), names, 5, legal)
        assert words.startswith("You won the trick: declare melds")
        assert ("seven of trumps" in words) is can_exchange, words
        # the keys are the menu's three lines: K♥-Q♥, then the exchange (7♠) or
        # the marjolet J♠-Q♥, then draw (it said "1-9" whatever the menu)
        assert "or 1-3)" in words, words
    # the seven and no meld: the exchange alone, no melds to declare
    d = new_deal("AS 7S 8H 9H 8C 9C", "7D 8D 9D JD QD KD", "TS", "8S 9S", dealer_seat=1)
    for text in ("AS", "7D"):
        d.play(parse_action(text))
    words = board.prompt(Waiting.HUMAN, observe(d, 0), names, 5, d.legal_actions())
    assert words == (
        "You won the trick: exchange the seven of trumps (↑↓ Enter or 1-2), then draw (d)."
    )


SWEEP_DECK = (
    "AS TS KS AD TD KD QS JS 9S QD JD 9D 8H 8S 8D 7S "
    "7D AC KC TC QC AH JC TH 9C KH 8C QH 7C JH 7H 9H"
)
SWEEP_ACTIONS = (
    "AS AD draw TS TD draw KS KD draw QS QD draw JS JD draw 9S 9D draw 8S 8D draw 7S 7D draw "
    "AC KC draw TC QC draw AH 7H TH 8H KH JC QH 9C JH 8C 9H 7C"
)


@pytest.mark.parametrize("bonus", [50, 40, 0])
def test_r17_the_last_trick_is_narrated_with_the_engines_bonuses(bonus: int) -> None:
    # player 1 wins all six last tricks; the bonus is said only where it scores
    rules = dataclasses.replace(CLASSIC, all_tricks_bonus=bonus)
    d = Deal([parse_card(c) for c in SWEEP_DECK.split()], dealer=0, rules=rules)
    *start, last = SWEEP_ACTIONS.split()
    play(d, " ".join(start))
    before, actor = observe(d, 1), d.to_move
    d.play(parse_card(last))
    [line] = describe.narrate(before, observe(d, 1), actor, parse_card(last), ("South", "You"))
    b = d.breakdown(1)
    assert (b.last_trick, b.all_tricks) == (10, bonus)
    said = f"; last trick +10, all six last tricks +{bonus}." if bonus else "; last trick +10."
    assert line.endswith(said)


def test_every_refusal_code_of_the_engine_has_words_in_both_languages() -> None:
    from marjolet.engine import REFUSAL_CODES
    from marjolet.i18n import catalogue, placeholders

    for lang in ("en", "fr"):
        words = catalogue(lang)
        missing = [code for code in REFUSAL_CODES if f"tui.why_{code}" not in words]
        assert not missing, (lang, missing)
    for code in REFUSAL_CODES:  # the TUI fills what the engine's particulars give
        texts = (catalogue("en")[f"tui.why_{code}"], catalogue("fr")[f"tui.why_{code}"])
        allowed = {"card", "lead", "suit", "legal", "meld", "missing"}
        assert all(isinstance(t, str) and placeholders(t) <= allowed for t in texts), code


#: What a refusal on a player's screen never shows: a rule id, a record code
#: (a card as ``QS``, a meld as ``KQH``), or English in French.
RULE_OR_CODE = re.compile(r"\bR\d+\b|\b(?:KQ|JQ)[CDHS]\b|\b4[ATKQJ]\b|\b[AKQJT987][CDHS]\b")
ENGLISH = re.compile(r"\b(?:the|you|your|not|play|meld|melds|trick|draw|hand|must|player)\b", re.I)


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_refusals_in_the_terminal_are_the_engines_in_words_without_rule_ids_or_english(
    lang: str,
) -> None:
    """Every action of many positions: the terminal refuses exactly what the
    engine refuses, and words each refusal from its code."""
    from marjolet.tui import words

    codes: set[str] = set()
    words.use(lang)
    try:
        for finished in random_deals(16, seed=12):
            assert finished.deck is not None
            d = Deal(finished.deck, finished.dealer)
            for a in finished.moves:
                obs = observe(d, d.to_move)
                for action in range(DRAW + 1):
                    reason = d.illegal_reason(action)
                    text = describe.refusal(obs, action)
                    assert (text is None) == (reason is None), (d, action, reason)
                    if reason is None or text is None:
                        continue
                    codes.add(reason.code)
                    assert text == describe.refusal_words(reason.code, reason.params, obs)
                    assert not RULE_OR_CODE.search(text), text
                    assert not text[0].islower() and text.endswith("."), text
                    if lang == "fr":
                        assert not ENGLISH.search(text), text
                other = observe(d, d.to_move ^ 1)  # the other seat, waiting
                assert describe.refusal(other, a) == words.tr("tui.not_your_turn")
                d.push(a)
    finally:
        words.use("en")
    common = {"window_open", "not_held", "must_overtake", "must_follow", "no_window",
              "phase2_meld", "outside_window", "meld_missing", "no_seven"}  # fmt: skip
    assert common <= codes, common - codes


@pytest.mark.parametrize(
    ("meld", "english", "french"),
    [
        ("KQH", "declare marriage in hearts", "annoncer mariage à cœur"),
        ("JQS", "declare a jack and the queen of spades", "annoncer un valet et la dame de pique"),
    ],
)
def test_a_meld_whose_trump_is_unknown_is_named_by_its_kind_never_its_record_letters(
    meld: str, english: str, french: str
) -> None:
    """Without the trump or the rules a meld's cards are unknown: the hint,
    the review and the refusals name it in the player's words by its kind
    and suit (« mariage à cœur »), never by the record's letters (``KQH``)."""
    from marjolet.tui.hint import action_words
    from marjolet.tui.words import speaking

    action = parse_action(f"meld {meld}")
    for trump, rules in ((None, CLASSIC), (0, None), (None, None)):
        with speaking("en"):
            assert action_words(action, trump, rules) == english
        with speaking("fr"):
            assert action_words(action, trump, rules) == french
            assert meld not in describe.choice_label(action, trump, rules)


@pytest.mark.parametrize(
    ("lang", "too_soon", "too_late"),
    [
        ("en", "You draw after winning a trick",
         "The stock is empty: nobody draws any more; play a card."),
        ("fr", "On pioche après avoir gagné un pli",
         "Le talon est épuisé\u00a0: on ne pioche plus\u00a0; jouez une carte."),
    ],
)
def test_draw_asked_in_tricks_11_to_16_is_told_the_stock_is_empty(
    lang: str, too_soon: str, too_late: str
) -> None:
    """« piocher » before a trick is won is told when one draws; in tricks
    11-16 it is told nobody draws any more (it got the phase-1 answer)."""
    from marjolet.bots import make_bot
    from marjolet.tui import words

    deal = Deal(seeded_deck(3, 0), 0, CLASSIC)
    bot = make_bot("heuristic", seed=1)
    previous = words.lang()
    try:
        words.use(lang)
        seat = deal.to_move
        assert (describe.refusal(observe(deal, seat), DRAW) or "").startswith(too_soon)
        while not deal.stock_empty:
            deal.push(bot.choose(observe(deal, deal.to_move), deal.legal_actions()))
        assert describe.refusal(observe(deal, deal.to_move), DRAW) == too_late
    finally:
        words.use(previous)
