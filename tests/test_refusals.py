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



def identity_deal(*actions: str) -> Deal:
    """The deal of the deck in the cards' order, player 0 dealing (player 0
    holds K♣ Q♣ J♦ and the trumps are diamonds; player 1 leads), after
    ``actions``."""
    deal = Deal(list(range(32)), dealer=0)
    for action in actions:
        deal.play(parse_action(action))
    return deal


@pytest.mark.parametrize(
    ("actions", "meld", "missing", "other_holds"),
    [
        (("AC", "JC"), "KQC", ["KC", "QC"], True),  # the loser holds the marriage
        (("AC", "JC"), "JQC", ["QC", "JD"], True),  # and the marjolet with the queen
        # shown by the loser's meld after trick 1: exposed cards are still in hand
        (("7C", "JC", "meld KQC", "draw", "8D", "TD"), "KQC", ["KC", "QC"], True),
        (("AC", "JC"), "4K", ["KC", "KD", "KH", "KS"], False),  # the loser holds one king
        (("AC", "JC"), "KQH", ["KH", "QH"], False),  # in the stock: nobody holds them
    ],
    ids=["marriage", "jack-queen", "exposed", "one-of-four", "stock"],
)
def test_a_meld_refused_to_the_tricks_winner_says_whether_the_loser_holds_it(
    actions: tuple[str, ...], meld: str, missing: list[str], other_holds: bool
) -> None:
    """A meld written after a trick its holder lost (« 1. AC JC meld KQC »,
    K♣ Q♣ in the loser's hand): the window owner is refused for missing
    cards, and the refusal says that the other player holds them all."""
    deal = identity_deal(*actions)
    winner = deal.to_move
    assert deal.in_window and deal.window_owner == winner
    reason = deal.illegal_reason(parse_action(f"meld {meld}"))
    assert reason is not None and reason.why() == {
        "code": "meld_missing",
        "player": winner,
        "meld": meld,
        "trump": "D",
        "jack_queen": "trump-jack",
        "missing": missing,
        "other_holds": other_holds,
    }
    held = {CARD_NAMES[c] for c in deal.hand(winner ^ 1)}  # exposed cards included
    assert set(missing) <= held if other_holds else not set(missing) <= held
    if "meld KQC" in actions:
        assert {CARD_NAMES[c] for c in deal.exposed(winner ^ 1)} == {"KC", "QC"}
    # the message (a player in play may be sent it) tells nothing of the other's hand
    assert f"player {winner ^ 1}" not in reason


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_a_refused_meld_in_play_never_tells_the_player_who_holds_it(lang: str) -> None:
    """The other player's hand is hidden in play: the terminal words a
    refused meld from what the mover knows, the same whoever holds it."""
    from marjolet.observation import observe
    from marjolet.tui import describe
    from marjolet.tui.words import speaking

    deal = identity_deal("AC", "JC")  # the loser, player 0, holds K♣ Q♣
    obs = observe(deal, deal.to_move)
    action = parse_action("meld KQC")
    reason = deal.illegal_reason(action)
    assert reason is not None and reason.code == "meld_missing"
    plain = {k: v for k, v in reason.params.items() if k != "other_holds"}
    with speaking(lang):
        said = describe.refusal(obs, action)
        assert said == describe.refusal_words(reason.code, reason.params, obs)
        assert said == describe.refusal_words(reason.code, plain, obs)
