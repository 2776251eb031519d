"""The engine's refusals for programs (``Reason.code`` and its particulars):
every code is met in play, carries what docs/engine.md says it carries, and
has words in every language for a front end to show."""

from __future__ import annotations

import dataclasses
import json
import pickle
import random
import re
from pathlib import Path

import pytest

from marjolet.actions import DRAW, parse_action
from marjolet.cards import CARD_NAMES, SUITS
from marjolet.engine import REFUSAL_CODES, Deal, Reason
from marjolet.errors import IllegalActionError, RecordError
from marjolet.i18n import catalogue
from marjolet.melds import MELD_NAMES
from marjolet.record import load, loads
from marjolet.rules import CLASSIC, ENCYCLOPEDIA, Rules

ROOT = Path(__file__).parent.parent
EXAMPLES = Path(__file__).parent / "examples"
RULE_SETS = [
    CLASSIC,
    ENCYCLOPEDIA,
    dataclasses.replace(CLASSIC, one_meld_per_window=True, jack_queen="same-suit"),
]


def documented_particulars(code: str) -> set[str]:
    """The particulars REFUSAL_CODES names in brackets after a code's meaning."""
    found = re.search(r"\(([a-z_, ]+)\)$", REFUSAL_CODES[code])
    return {name.strip() for name in found.group(1).split(",")} if found else set()


def refusals_in_random_play(rules: Rules, deals: int, seed: int) -> list[tuple[Deal, Reason]]:
    """Every refusal of every action id (and one beyond) at every position
    of ``deals`` random deals, with the position it was given in."""
    rng = random.Random(seed)
    found: list[tuple[Deal, Reason]] = []
    for k in range(deals):
        deck = list(range(32))
        rng.shuffle(deck)
        deal = Deal(deck, dealer=k % 2, rules=rules)
        while True:
            for action in range(DRAW + 2):
                reason = deal.illegal_reason(action)
                if reason is not None:
                    found.append((deal.copy(), reason))
            legal = list(deal.legal_actions())
            if not legal:
                break
            deal.play(rng.choice(legal))
    return found


@pytest.fixture(scope="module")
def refusals() -> list[tuple[Deal, Reason]]:
    return [
        pair for i, rules in enumerate(RULE_SETS) for pair in refusals_in_random_play(rules, 24, i)
    ]


def test_every_refusal_code_is_met_in_random_play(refusals: list[tuple[Deal, Reason]]) -> None:
    assert {reason.code for _, reason in refusals} == set(REFUSAL_CODES)


def test_a_refusal_carries_the_particulars_its_code_documents(
    refusals: list[tuple[Deal, Reason]],
) -> None:
    for deal, reason in refusals:
        assert set(reason.params) == documented_particulars(reason.code), reason
        why = json.loads(json.dumps(reason.why()))
        assert why == {"code": reason.code, **reason.params}
        assert (reason.rule == "") == (reason.code == "unknown_action")
        assert reason.rule in REFUSAL_CODES[reason.code]  # the rule the code documents
        if "player" in why:
            assert why["player"] == deal.to_move, reason
        for field in ("card", "lead"):
            if field in why:
                assert why[field] in CARD_NAMES and str(why[field]) in reason, reason
        if "legal" in why:  # R16: the follower's legal cards, as the engine's mask
            assert {parse_action(c) for c in why["legal"]} == set(deal.legal_actions())
        if "meld" in why:
            assert why["meld"] in MELD_NAMES and why["trump"] == SUITS[deal.trump]
            assert why["jack_queen"] == deal.rules.jack_queen


def test_an_illegal_play_raises_with_the_refusal_for_programs() -> None:
    deal = Deal(list(range(32)), dealer=0)
    with pytest.raises(IllegalActionError) as raised:
        deal.play(parse_action("AS"))
    assert raised.value.why == {"code": "not_held", "player": deal.to_move, "card": "AS"}


def test_a_record_refused_by_a_rule_carries_the_engines_refusal() -> None:
    with pytest.raises(RecordError) as raised:
        load(EXAMPLES / "I000-hand-seed05-repeat-JQS.json")
    assert raised.value.why is not None and raised.value.why["code"] == "meld_again"
    assert raised.value.why["meld"] == "JQS"


def test_a_record_that_cannot_be_read_carries_no_refusal() -> None:
    with pytest.raises(RecordError) as raised:
        loads("not a record")
    assert raised.value.why is None


def placeholders(text: str) -> set[str]:
    return set(re.findall(r"\{(\w+)\}", text))


@pytest.mark.parametrize("code", sorted(set(REFUSAL_CODES) - {"unknown_action"}))
def test_every_refusal_a_record_can_meet_has_words_in_each_language(code: str) -> None:
    """The replay page words an upload's refusal from its code (replay.js)."""
    key = f"replay.why_{code}"
    texts = {lang: catalogue(lang)[key] for lang in ("en", "fr")}
    assert placeholders(texts["en"]) == placeholders(texts["fr"])
    names = {"card", "lead", "legal", "missing", "meld"} & documented_particulars(code)
    assert names <= placeholders(texts["en"])
    assert ("name" in placeholders(texts["en"])) == ("player" in documented_particulars(code))


def test_the_engine_docs_list_every_refusal_code() -> None:
    text = (ROOT / "docs" / "engine.md").read_text()
    section = text.split("## Refusals", 1)[1].split("\n## ", 1)[0]
    assert set(re.findall(r"^\| `(\w+)` \|", section, re.M)) == set(REFUSAL_CODES)


def test_an_illegal_action_error_and_its_reason_pickle_whole() -> None:
    """An error crossing to another process (the arena's workers) keeps its
    message, rule and refusal."""
    deal = Deal(list(range(32)), dealer=0)
    with pytest.raises(IllegalActionError) as raised:
        deal.play(parse_action("AS"))
    again = pickle.loads(pickle.dumps(raised.value))
    assert str(again) == str(raised.value) and again.why == raised.value.why
    reason = pickle.loads(pickle.dumps(deal.illegal_reason(parse_action("AS"))))
    wanted = ("R7", "not_held", {"player": deal.to_move, "card": "AS"})
    assert (reason.rule, reason.code, dict(reason.params)) == wanted

