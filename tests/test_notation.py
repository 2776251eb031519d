"""Every notation has a parse/format pair: cards, card sets, actions, rules."""

from __future__ import annotations

import subprocess
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from marjolet import Action, CardSet
from marjolet.actions import ACTION_COUNT, action_name, parse_action
from marjolet.bots import BotSpecError, make_bot, parse_spec
from marjolet.cards import card_name, card_symbol, parse_card
from marjolet.errors import ActionError, CardError, MarjoletError
from marjolet.i18n import card_name as i18n_card_name
from marjolet.rules import CLASSIC, Rules


@given(st.integers(0, 2**32 - 1))
def test_cardset_text_and_repr_round_trip(mask: int) -> None:
    cs = CardSet(mask)
    assert CardSet.parse(str(cs)) == cs
    assert eval(repr(cs)) == cs
    assert len(cs) == mask.bit_count() == len(list(cs))


def test_cardset_set_operations_and_membership() -> None:
    a, b = CardSet.parse("AS TS KS"), CardSet.parse("KS QH")
    assert a | b == CardSet.parse("AS TS KS QH")
    assert a & b == CardSet.parse("KS")
    assert a - b == CardSet.parse("AS TS")
    assert parse_card("AS") in a and parse_card("QH") not in a
    assert (~a).mask.bit_count() == 29
    assert str(CardSet.parse("7S AS 9C TC")) == "TC 9C AS 7S"  # by suit, highest first


def test_cardset_rejects_duplicates_and_bad_masks() -> None:
    with pytest.raises(CardError, match="twice"):
        CardSet.parse("AS AS")
    with pytest.raises(CardError):
        CardSet(1 << 32)


def test_every_action_id_round_trips_through_its_text() -> None:
    for a in range(ACTION_COUNT):
        assert parse_action(action_name(a)) == a
        assert Action.parse(str(Action(a))) == Action(a)
        assert eval(repr(Action(a))) == Action(a)
        assert int(Action(a)) == a


@pytest.mark.parametrize("bad", [-1, 46, 1.0, "x", True, None])
def test_an_action_id_out_of_range_is_refused_as_action_refuses_it(bad: object) -> None:
    """-1 (OpenSpiel's invalid action) is not 'draw', True not '8C'."""
    with pytest.raises(ActionError, match=f"action id must be 0-45, got {bad!r}"):
        action_name(bad)  # type: ignore[arg-type]
    with pytest.raises(ActionError, match=f"action id must be 0-45, got {bad!r}"):
        Action(bad)  # type: ignore[arg-type]


@pytest.mark.parametrize("bad", [-1, 32, "AS", False])
def test_a_card_id_out_of_range_is_refused_quoting_it(bad: object) -> None:
    named = [card_name, card_symbol]
    if not isinstance(bad, str):  # (the i18n name takes a card's text too)
        named.append(lambda c: i18n_card_name(c, "fr"))
    for name in named:
        with pytest.raises(CardError, match=f"card id must be 0-31, got {bad!r}"):
            name(bad)  # type: ignore[arg-type]


def test_card_and_action_ids_of_any_integer_type_are_named() -> None:
    numpy = pytest.importorskip("numpy")
    assert card_name(numpy.int64(31)) == "AS" and card_symbol(numpy.int64(31)) == "A♠"
    assert i18n_card_name(numpy.int64(31), "fr") == "as de pique"
    assert action_name(numpy.int32(45)) == "draw"
    action = Action(numpy.int64(3))
    assert type(action.id) is int and action == Action(3) and str(action) == "JC"


@pytest.mark.parametrize("bad", ["", "meld", "meld XX", "dixx", "DRAW!", "play QS"])
def test_bad_action_text_is_rejected_quoting_it(bad: str) -> None:
    with pytest.raises(ActionError):
        parse_action(bad)


def test_rules_record_form_round_trips() -> None:
    for rules in (CLASSIC, CLASSIC.replace(target=1000), Rules.profile_named("encyclopedia")):
        assert Rules.from_json(rules.to_record()) == rules
        assert eval(repr(rules)) == rules


def test_bot_specs_parse_and_reject_unknown_names_and_parameters() -> None:
    assert parse_spec("pimc:worlds=64,time=1.0") == ("pimc", {"worlds": "64", "time": "1.0"})
    assert make_bot("random", seed=1).spec == "random"
    for bad in ("", "nosuchbot", "random:depth=3", "random:x", "random:a=1,a=2"):
        with pytest.raises(BotSpecError):
            make_bot(bad)


def test_exceptions_are_value_errors_quoting_the_input() -> None:
    for exc_type in (CardError, ActionError, BotSpecError):
        assert issubclass(exc_type, MarjoletError) and issubclass(exc_type, ValueError)
    with pytest.raises(CardError, match="'ZZ'"):
        card_name(parse_card("ZZ"))


def test_core_imports_only_the_standard_library() -> None:
    code = (
        "import sys, marjolet, marjolet.record, marjolet.match, marjolet.observation\n"
        "bad = [m for m in sys.modules if m.split('.')[0] in "
        "{'numpy','textual','rich','fastapi','pettingzoo','gymnasium','pyspiel','ray'}]\n"
        "assert not bad, bad\n"
        "assert not any(m.startswith(('marjolet.bots','marjolet.arena','marjolet.web',"
        "'marjolet.rl','marjolet.tui')) for m in sys.modules)\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_a_deal_notation_refusal_names_the_move_and_keeps_the_rule() -> None:
    from marjolet import Deal
    from marjolet.errors import IllegalActionError
    from marjolet.match import seeded_deck

    written = Deal(seeded_deck(7, 0), dealer=0).notation()
    refused = r"move 2 \('QS'\): R7: player 0 does not hold QS"
    with pytest.raises(IllegalActionError, match=refused) as held:
        Deal.from_notation(f"{written} KS QS")
    assert held.value.rule == "R7" and held.value.action is not None
    with pytest.raises(ActionError, match=r"move 3 \('XX'\): unknown action 'XX'"):
        Deal.from_notation(f"{written} KS AC XX")


def test_play_given_an_action_s_name_points_to_play_text() -> None:
    from marjolet import Deal
    from marjolet.errors import IllegalActionError
    from marjolet.match import seeded_deck

    deal = Deal(seeded_deck(7, 0), dealer=0)
    with pytest.raises(IllegalActionError, match=r"unknown action id 'KS' \(.*play_text\('KS'\)"):
        deal.play("KS")  # type: ignore[arg-type]
