"""marjolet-bot/1 messages: the act built from the observation only (R23),
the bot side's exact reconstruction of that observation, and the checks
both sides make on what they read."""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import walk
from marjolet.actions import ACTION_NAMES, parse_action
from marjolet.bots.protocol import (
    PROTOCOL,
    ProtocolError,
    act_message,
    answer_timeout,
    decode,
    encode,
    observation_from_act,
    parse_act,
    parse_action_answer,
    parse_identity,
    rebuild_deal,
    result_message,
)
from marjolet.cards import CARD_NAMES, mask_cards, parse_card
from marjolet.engine import Deal
from marjolet.observation import observe
from marjolet.rules import CLASSIC, ENCYCLOPEDIA, Rules

EXAMPLES = Path(__file__).resolve().parent / "examples"

#: The act message of the spec (bot-protocol.md), seat 0 after five actions
#: of examples/L006-hand-seed05-partial.json.
SPEC_ACT: dict[str, Any] = {
    "cmd": "act",
    "seat": 0,
    "first_dealer": 0,
    "deal_index": 0,
    "rules": {
        "profile": "classic",
        "all_tricks_bonus": 50,
        "dix_on_play": True,
        "jack_queen": "trump-jack",
        "deal_pattern": [3, 3],
        "target": 500,
        "one_meld_per_window": False,
    },
    "totals": [0, 0],
    "deal": {
        "dealer": 0,
        "hand": ["9S", "8S", "7S", "KH", "QH", "7H"],
        "indicator": "9D",
        "actions": ["7C", "7S", "meld KQS", "draw", "8C"],
        "draws": ["8D"],
    },
    "legal": ["9S", "8S", "KH", "QH", "7H", "8D"],
    "budget_s": 0.25,
}

RULE_SETS = [
    CLASSIC,
    ENCYCLOPEDIA,
    CLASSIC.replace(jack_queen="same-suit", deal_pattern=(2, 2, 2), one_meld_per_window=True),
]


def l006_deal(actions: int) -> Deal:
    record = json.loads((EXAMPLES / "L006-hand-seed05-partial.json").read_text())
    deal_json = record["deals"][0]
    deal = Deal([parse_card(c) for c in deal_json["deck"]], record["first_dealer"], CLASSIC)
    for text in deal_json["actions"][:actions]:
        deal.play(parse_action(text))
    return deal


def positions(seeds: range, rules: Rules = CLASSIC) -> list[tuple[Deal, int]]:
    """(position, seat to act) of random deals, every position."""
    out = []
    for seed in seeds:
        for deal in walk(seed, rules):
            if deal.is_over:
                break
            out.append((deal.copy(), deal.to_move))
    return out


def test_act_message_of_the_spec_example() -> None:
    deal = l006_deal(5)
    msg = act_message(observe(deal, 0), deal.legal_actions(), 0.25)
    # the hand and the legal actions are sets ("in no meaningful order")
    assert sorted(msg["deal"]["hand"]) == sorted(SPEC_ACT["deal"]["hand"])
    assert sorted(msg["legal"]) == sorted(SPEC_ACT["legal"])
    strip = copy.deepcopy(msg)
    expected = copy.deepcopy(SPEC_ACT)
    for m in (strip, expected):
        del m["deal"]["hand"], m["legal"]
    assert strip == expected


def test_act_message_is_one_json_line_and_decodes_back() -> None:
    deal = l006_deal(5)
    msg = act_message(observe(deal, 0), deal.legal_actions(), 0.25)
    line = encode(msg)
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    assert decode(line) == msg


def test_spec_example_act_rebuilds_the_hosts_observation() -> None:
    deal = l006_deal(5)
    obs, legal = observation_from_act(parse_act(SPEC_ACT))
    assert obs == observe(deal, 0)
    assert legal == deal.legal_actions()


@pytest.mark.parametrize("rules", RULE_SETS, ids=["classic", "encyclopedia", "variant"])
def test_r23_act_holds_only_what_the_seat_may_know(rules: Rules) -> None:
    """Against the full state: no card the seat has not seen appears in the
    message, and what it has seen is reported exactly."""
    for deal, seat in positions(range(40), rules):
        msg = act_message(observe(deal, seat), deal.legal_actions(), 1.0)
        view = msg["deal"]
        assert {parse_card(c) for c in view["hand"]} == set(mask_cards(deal.dealt[seat]))
        assert [parse_card(c) for c in view["draws"]] == deal.draws(seat)
        assert parse_card(view["indicator"]) == deal.turned_up
        assert [parse_action(a) for a in view["actions"]] == deal.moves
        assert {parse_action(a) for a in msg["legal"]} == set(deal.legal_actions())
        seen = set(mask_cards(deal.dealt[seat])) | set(deal.draws(seat)) | {deal.turned_up}
        seen |= {a for a in deal.moves if a < 32}
        named = {
            parse_card(token)
            for token in json.dumps(msg).replace('"', " ").replace(",", " ").split()
            if _is_card(token)
        }
        assert named <= seen
        if not deal.stock_empty:
            opp = seat ^ 1
            hidden = deal.hand_mask(opp) & ~deal.exposed(opp).mask & ~(1 << deal.turned_up)
            assert not named & set(mask_cards(hidden))


def _is_card(token: str) -> bool:
    try:
        parse_card(token)
    except ValueError:
        return False
    return token in CARD_NAMES


def test_r23_act_is_the_same_in_every_world_the_seat_cannot_tell_apart() -> None:
    rng = random.Random(7)
    for deal, seat in positions(range(30))[::3]:
        obs = observe(deal, seat)
        msg = act_message(obs, deal.legal_actions(), 1.0)
        other = rebuild_deal(parse_act(msg), rng)  # different hidden cards
        assert act_message(observe(other, seat), other.legal_actions(), 1.0) == msg


@pytest.mark.parametrize("rules", RULE_SETS, ids=["classic", "encyclopedia", "variant"])
def test_bot_side_rebuilds_exactly_the_hosts_observation(rules: Rules) -> None:
    rng = random.Random(1)
    for deal, seat in positions(range(60), rules):
        obs = observe(deal, seat, deal_index=3, totals=(120, 340))
        msg = decode(encode(act_message(obs, deal.legal_actions(), 0.5)))
        rebuilt, legal = observation_from_act(parse_act(msg), rng)
        assert rebuilt == obs
        assert legal == deal.legal_actions()


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10**6), stop=st.integers(0, 120), world_seed=st.integers(0, 99))
def test_rebuilt_observation_property(seed: int, stop: int, world_seed: int) -> None:
    for deal in walk(seed):
        if deal.is_over or len(deal.moves) >= stop:
            break
    if deal.is_over:
        return
    seat = deal.to_move
    index = seed % 5  # totals before a later deal, short of the target
    obs = observe(deal, seat, deal_index=index, totals=(seed % 400, 7) if index else (0, 0))
    req = parse_act(act_message(obs, deal.legal_actions(), 1.0))
    assert observation_from_act(req, random.Random(world_seed))[0] == obs


def test_first_dealer_follows_from_dealer_and_deal_index() -> None:
    deal = l006_deal(5)
    for index in range(4):
        msg = act_message(observe(deal, 0, deal_index=index), deal.legal_actions(), 1.0)
        assert msg["first_dealer"] == (0 if index % 2 == 0 else 1)
        assert parse_act(msg).first_dealer == msg["first_dealer"]


def test_result_message() -> None:
    assert result_message((520, 301), 0) == {"cmd": "result", "totals": [520, 301], "winner": 0}


def test_answer_timeout_is_ten_budgets_but_at_least_five_seconds() -> None:
    assert answer_timeout(0.25) == 5.0
    assert answer_timeout(0.5) == 5.0
    assert answer_timeout(2.0) == 20.0


# -- what the host accepts from a bot -------------------------------------------


def test_answer_must_spell_a_legal_action_exactly() -> None:
    legal = [parse_action(a) for a in ("9S", "8D", "meld KQS", "draw")]
    assert parse_action_answer({"action": "8D"}, legal) == parse_action("8D")
    assert parse_action_answer({"action": "meld KQS"}, legal) == parse_action("meld KQS")
    for bad in ("8d", " 8D", "8♦", "AS", "meld  KQS"):
        with pytest.raises(ProtocolError, match="not one of the legal actions"):
            parse_action_answer({"action": bad}, legal)
    for wrong, kind in ((5, "number"), (None, "null"), (["8D"], "array"), (True, "boolean")):
        with pytest.raises(ProtocolError, match=f"is a JSON {kind}, not a string: answer one of"):
            parse_action_answer({"action": wrong}, legal)
    with pytest.raises(ProtocolError, match="no 'action'"):
        parse_action_answer({"move": "8D"}, legal)


def test_answers_that_are_not_json_objects_are_rejected() -> None:
    for line in (b"8D\n", b"{action: 8D}\n", b"[1, 2]\n", b"\n", b"\xff\xfe\n"):
        with pytest.raises(ProtocolError, match=r"not a JSON object|not JSON"):
            decode(line, "answer")


def test_hello_answer_needs_a_name_and_the_protocol() -> None:
    assert parse_identity({"name": "x", "author": "me", "protocol": PROTOCOL}).name == "x"
    assert parse_identity({"name": "x"}).author == ""
    with pytest.raises(ProtocolError, match="no 'name'"):
        parse_identity({"protocol": PROTOCOL})
    with pytest.raises(ProtocolError, match="marjolet-bot/2"):
        parse_identity({"name": "x", "protocol": "marjolet-bot/2"})
    with pytest.raises(ProtocolError, match=r"has a 'name' that is not a string \(42\)"):
        parse_identity({"name": 42, "protocol": PROTOCOL})
    with pytest.raises(ProtocolError, match=r"no 'name' \(it answers an act: a line written"):
        parse_identity({"action": "draw"})


def test_a_bot_s_name_reaches_screens_without_control_characters() -> None:
    """The terminal shows the name a program gives: no escape sequence or
    bell may reach it, and a name of control characters only is no name."""
    sly = parse_identity({"name": "\x1b[2J\x07 sly\nbot ", "author": "\x1b]0;x\x07me"})
    assert sly.name == "[2J slybot" and sly.author == "]0;xme"
    with pytest.raises(ProtocolError, match="an empty 'name'"):
        parse_identity({"name": "\x1b\x07\n"})


# -- what the bot side accepts from a host --------------------------------------


def _broken(**changes: Any) -> dict[str, Any]:
    """The spec's act with fields changed (``deal__hand`` is deal.hand;
    the value ``KeyError`` deletes the field)."""
    msg = copy.deepcopy(SPEC_ACT)
    for path, value in changes.items():
        *parents, last = path.split("__")
        target = msg
        for key in parents:
            target = target[key]
        if value is KeyError:
            del target[last]
        else:
            target[last] = value
    return msg


@pytest.mark.parametrize(
    ("changes", "error"),
    [
        ({"seat": 2}, "'seat' must be 0-1"),
        ({"seat": KeyError}, "act has no 'seat'"),
        ({"first_dealer": 1}, "dealt by 1, not 0"),
        ({"rules": {"profile": "bridge"}}, "act: rules: unknown profile"),
        ({"totals": [0]}, "two integers"),
        ({"totals": [-10, 0], "deal_index": 2}, "two integers of at least 0"),
        ({"totals": [600, 0]}, r"before deal 0 must be \[0, 0\]"),
        ({"totals": [600, 0], "deal_index": 2}, r"already decided a match to 500 \(R22\)"),
        ({"rules": "classic"}, r"'rules' must be an object \(a profile and its settings\)"),
        ({"deal__hand": ["9S", "8S", "7S", "KH", "QH"]}, "six dealt cards"),
        ({"deal__hand": ["9S", "9S", "7S", "KH", "QH", "7H"]}, "lists a card twice"),
        ({"deal__hand": ["9S", "8S", "7S", "KH", "QH", "XX"]}, r"hand\[5\] is not a card"),
        ({"deal__indicator": "9S"}, "also in 'hand'"),
        ({"deal__actions": ["7C", "7S", "meld 4J"]}, r"actions\[2\]: R11"),
        ({"deal__actions": ["7C", "7S"], "deal__draws": []}, "seat 1 is to act, not seat 0"),
        (
            {"deal__actions": ["7C", "7S", "meld KQS", "meld KQS"], "deal__draws": []},
            r"actions\[3\] 'meld KQS' is illegal",
        ),
        ({"deal__draws": []}, "lists 0 card.s. but seat 0 has drawn 1 by these actions"),
        ({"deal__actions": ["9S"], "deal__draws": []}, r"actions\[0\]: the opponent uses 9S"),
        (
            {"deal__actions": ["7C", "7S", "meld KQH"], "deal__draws": []},
            "the opponent uses [KQ]H, which this seat holds",
        ),
        ({"deal__draws": ["9S"]}, "drawn card 9S is also dealt"),
        ({"deal__draws": ["8H"]}, "'legal' does not match the rules"),
        ({"legal": ["9S"]}, "'legal' does not match the rules"),
        ({"legal": []}, "'legal' is empty"),
        ({"legal": ["9S", "9S"]}, "'legal' lists an action twice"),
        ({"budget_s": "fast"}, "budget_s"),
        ({"budget_s": -1}, "budget_s"),
    ],
)
def test_malformed_act_is_rejected_naming_the_field(changes: dict[str, Any], error: str) -> None:
    with pytest.raises(ProtocolError, match=error):
        observation_from_act(parse_act(_broken(**changes)))


def test_the_opponent_cannot_play_a_card_before_it_could_have_drawn_it() -> None:
    # seat 1 (elder) leads the card that seat 0 itself drew: impossible
    msg = _broken(deal__actions=["7C", "7S", "meld KQS", "draw", "8D"])
    with pytest.raises(ProtocolError, match="the opponent uses 8D"):
        observation_from_act(parse_act(msg))


def test_legal_order_does_not_matter_and_bots_get_the_engines_order() -> None:
    msg = copy.deepcopy(SPEC_ACT)
    msg["legal"] = ["9S", "8D", "KH", "7H", "QH", "8S"]
    _, legal = observation_from_act(parse_act(msg))
    assert legal == sorted(legal)
    assert sorted(ACTION_NAMES[a] for a in legal) == sorted(msg["legal"])
