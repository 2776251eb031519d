"""The rule book's "Questions players ask" (docs/rules.md's section, in the
players' words): at the end of the book in French and English, in
``marjolet rules --book``; answered for the table's rules, as the engine
plays them. (The /rules page's copy: test_web_pages.py.)"""

from __future__ import annotations

import random
import re
from itertools import product

import pytest

from marjolet.actions import DIX, is_meld, parse_action
from marjolet.cli import main
from marjolet.engine import Deal
from marjolet.errors import ActionError
from marjolet.i18n import LANGS, catalogue, number, translate
from marjolet.i18n.rulebook import rulebook, to_html, to_markdown, to_text
from marjolet.rules import CLASSIC, LAST_CARD_POINTS, LAST_TRICK_POINTS, PROFILES, Rules

HEADING = {"en": "Questions players ask", "fr": "Questions fréquentes"}

#: What a player must never read in the questions: a rule id (R14), a
#: record code (``meld 4J``, ``JQS``, ``7S``) or a setting's key.
CODES = re.compile(
    r"\bR\d{1,2}\b|\b[789TJQKA][CDHS]\b|\b(?:4[ATKQJ]|KQ[CDHSs]|JQ[CDHSs])\b|\bmeld [0-9A-Z]"
    r"|(?i:dix_on_play|jack_queen|trump-jack|same-suit|one_meld|all_tricks|deal_pattern)"
)


def _questions(rules: Rules, lang: str) -> list[tuple[str, str]]:
    blocks = rulebook(rules, lang)
    assert blocks[-2].kind == "h2" and blocks[-2].text == HEADING[lang]
    assert blocks[-1].kind == "qa"
    return [(q, a) for q, a in blocks[-1].rows]


def _answer(rules: Rules, lang: str, key: str) -> str:
    question = translate(f"rules.faq_{key}", lang, target=rules.target, last_trick=10, last_card=10)
    return dict(_questions(rules, lang))[question]


def _every_rule_set() -> list[Rules]:
    return [
        PROFILES[p].replace(jack_queen=jq, one_meld_per_window=one, dix_on_play=dix, target=t)
        for p, jq, one, dix, t in product(
            PROFILES, ("trump-jack", "same-suit"), (False, True), (False, True), (500, 1000)
        )
    ]


@pytest.mark.parametrize("lang", LANGS)
def test_the_rule_book_ends_with_the_questions_players_ask(lang: str) -> None:
    questions = _questions(CLASSIC, lang)
    assert len(questions) >= 15
    title = translate("rules.title", lang)
    blocks = rulebook(CLASSIC, lang)
    text = " ".join(to_text(blocks, title).split())
    markdown = to_markdown(blocks, title).replace("\\", "")
    html = to_html(blocks, title)
    assert text.rindex(HEADING[lang]) > text.index(translate("rules.profiles_h", lang))
    for question, answer in questions:
        assert question.endswith("?") and answer.endswith(".")
        assert " ".join(question.split()) in text and " ".join(answer.split()) in text
        assert f"**{question}**" in markdown and answer in markdown
        assert f"<dt>{question}</dt><dd>{answer}</dd>" in html.replace("&#x27;", "'")


@pytest.mark.parametrize("lang", LANGS)
def test_marjolet_rules_book_prints_the_questions_players_ask(
    lang: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["rules", "--book", "--lang", lang]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert HEADING[lang] in out
    for question, answer in _questions(CLASSIC, lang):
        assert " ".join(question.split()) in out and " ".join(answer.split()) in out


@pytest.mark.parametrize("lang", LANGS)
def test_the_questions_show_no_rule_ids_record_codes_or_typed_numbers(lang: str) -> None:
    for rules in _every_rule_set():
        for question, answer in _questions(rules, lang):
            for text in (question, answer):
                found = CODES.search(text)
                assert found is None, (lang, rules, text)
    # every number a rule fixes is a value from its home, not typed in the
    # sentence; only the tricks' numbers are written (trick 10, plis 11 à 16)
    for key, text in catalogue(lang).items():
        if key.startswith("rules.faq_"):
            rest = re.sub(r"(?:tricks?|plis?) (?:\d+ (?:to|à) )?\d+|\{\w+\}", "", text)
            assert not re.search(r"\d", rest), (key, text)


@pytest.mark.parametrize("lang", LANGS)
def test_the_questions_write_cards_as_the_rule_book_does(lang: str) -> None:
    """The jack's two queens, as the worked example writes them (D♠, V♦):
    the answer says « as in the example above », so both pairs are the
    example's (it had D♣–V♦, which the example never shows)."""
    answer = _answer(CLASSIC, lang, "jack_twice_q")
    cards = {"en": ("Q♠–J♦", "Q♦–J♦"), "fr": ("D♠–V♦", "D♦–V♦")}[lang]
    assert all(card in answer for card in cards)
    assert all(card in translate("rules.example_p", lang) for card in cards)


@pytest.mark.parametrize("lang", LANGS)
def test_french_questions_use_french_spacing(lang: str) -> None:
    for question, answer in _questions(CLASSIC, lang):
        for text in (question, answer):
            assert "'" not in text
            if lang == "fr":
                assert not re.search(r"[ \u202f]:|[ \u00a0][;?!]", text), text
                assert re.search(r"\u202f\?$", question), question


@pytest.mark.parametrize("lang", LANGS)
def test_the_seven_drawn_last_scores_when_played_only_where_the_table_says_so(
    lang: str,
) -> None:
    played = translate("rules.faq_last_seven_played", lang, n=10)
    nothing = translate("rules.faq_last_seven_not_played", lang)
    classic = _answer(CLASSIC, lang, "last_seven_q")
    without = _answer(CLASSIC.replace(dix_on_play=False), lang, "last_seven_q")
    assert played in classic and nothing not in classic
    assert nothing in without and played not in without and "10" not in without
    encyclopedia = _answer(PROFILES["encyclopedia"], lang, "last_seven_q")
    assert nothing in encyclopedia


@pytest.mark.parametrize("lang", LANGS)
def test_the_jack_and_two_queens_answer_follows_the_jack_queen_variation(lang: str) -> None:
    trump_jack = _answer(CLASSIC, lang, "jack_twice_q")
    same_suit = _answer(CLASSIC.replace(jack_queen="same-suit"), lang, "jack_twice_q")
    yes, no = {"en": ("Yes", "No"), "fr": ("Oui", "Non")}[lang]
    assert trump_jack.startswith(yes) and "marjolet" in trump_jack
    assert same_suit.startswith(no) and "marjolet" not in same_suit


@pytest.mark.parametrize("lang", LANGS)
def test_the_several_melds_answer_follows_one_declaration_per_trick(lang: str) -> None:
    yes, no = {"en": ("Yes", "No"), "fr": ("Oui", "Non")}[lang]
    assert _answer(CLASSIC, lang, "several_q").startswith(yes)
    one = _answer(CLASSIC.replace(one_meld_per_window=True), lang, "several_q")
    only = {"en": "only one declaration is allowed per trick won",
            "fr": "une seule annonce est permise par pli gagné"}[lang]  # fmt: skip
    assert one.startswith(no) and only in one


@pytest.mark.parametrize("lang", LANGS)
def test_the_questions_quote_the_tables_target_and_all_six_bonus(lang: str) -> None:
    rules = PROFILES["encyclopedia"].replace(target=1000)
    both = translate("rules.faq_both_target_q", lang, target=number(1000, lang))  # 1 000
    assert both in dict(_questions(rules, lang)) and "500" not in both
    last = _answer(rules, lang, "last_points_q")
    assert translate("rules.faq_all_six", lang, n=rules.all_tricks_bonus) in last
    none = _answer(CLASSIC.replace(all_tricks_bonus=0), lang, "last_points_q")
    assert translate("rules.faq_all_six_none", lang) in none
    assert translate("rules.faq_all_six", lang, n=0) not in none


def test_four_jacks_cannot_be_declared_as_the_questions_say() -> None:
    assert "cannot be declared" in _answer(CLASSIC, "en", "four_jacks_q")
    with pytest.raises(ActionError, match="four jacks"):
        parse_action("meld 4J")


def _random_deals(rules: Rules, count: int) -> list[Deal]:
    deals = []
    for seed in range(count):
        rng = random.Random(seed)
        deal = Deal(rng.sample(range(32), 32), seed % 2, rules)
        while not deal.is_over:
            deal.play(rng.choice(deal.legal_actions()))
        deals.append(deal)
    return deals


def test_the_last_tricks_points_and_the_last_cards_are_two_awards_as_the_questions_say() -> None:
    """One player may earn both; otherwise each player has one."""
    answer = _answer(CLASSIC, "en", "last_points_q")
    assert "two different awards" in answer and "One player may earn both" in answer
    both = split = 0
    for deal in _random_deals(CLASSIC, 40):
        marks = [deal.breakdown(p) for p in (0, 1)]
        assert sorted(b.last_card for b in marks) == [0, LAST_CARD_POINTS]
        assert sorted(b.last_trick for b in marks) == [0, LAST_TRICK_POINTS]
        one = next(b for b in marks if b.last_card)
        both += bool(one.last_trick)
        split += not one.last_trick
    assert both and split


def test_one_declaration_a_trick_still_lets_the_winner_exchange_the_seven_as_the_questions_say(
) -> None:
    rules = CLASSIC.replace(one_meld_per_window=True)
    assert "does not count" in _answer(rules, "en", "several_q")
    for seed in range(200):
        rng = random.Random(seed)
        deal = Deal(rng.sample(range(32), 32), seed % 2, rules)
        while not deal.is_over:
            actions = deal.legal_actions()
            melds = [a for a in actions if is_meld(a)]
            if DIX in actions and melds:
                deal.play(melds[0])
                after = deal.legal_actions()
                assert DIX in after and not any(is_meld(a) for a in after)
                return
            deal.play(rng.choice(actions))
    pytest.fail("no window with both a meld and the exchange in 200 deals")
