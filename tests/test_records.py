"""Game records: the worked examples, both forms, round trips, errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from marjolet.bots import make_bot
from marjolet.cards import CARD_NAMES
from marjolet.errors import RecordError
from marjolet.match import Match
from marjolet.record import (
    Record,
    format_result_table,
    load,
    loads,
    notation_mistake,
    replay,
    save,
    to_match,
    write_atomic,
)
from marjolet.rules import CLASSIC, Rules
from marjolet.turns import play_match

# The normative examples live in ../shared/spec/examples beside the clone (as CI
# lays it out); tests/examples holds a copy for clones without shared/.
_SHARED = Path(__file__).resolve().parents[2] / "shared" / "spec" / "examples"
EXAMPLES = _SHARED if _SHARED.is_dir() else Path(__file__).resolve().parent / "examples"
EXAMPLE_FILES = sorted(p for p in EXAMPLES.glob("*.json") if not p.name.endswith(".expected.json"))


def result_or_error(path: Path) -> dict[str, object]:
    try:
        return replay(load(path, check=False)).to_json()
    except RecordError as exc:
        return {"error": exc.to_json()}


def test_the_worked_examples_are_present() -> None:
    assert len(EXAMPLE_FILES) >= 18, f"examples not found in {EXAMPLES}"


@pytest.mark.parametrize("path", EXAMPLE_FILES, ids=lambda p: p.stem)
def test_worked_example_replays_to_its_expected_result(path: Path) -> None:
    expected = json.loads(path.with_name(path.stem + ".expected.json").read_text())
    got = result_or_error(path)
    if "error" in expected:
        assert "error" in got, got
        err = got["error"]
        assert isinstance(err, dict)
        assert (err["deal"], err["action"]) == (
            expected["error"]["deal"],
            expected["error"]["action"],
        )
        assert str(err["message"]).startswith("R")  # the message cites a rule
    else:
        assert got == expected


@pytest.mark.parametrize("path", EXAMPLE_FILES, ids=lambda p: p.stem)
def test_worked_example_round_trips_through_the_text_form(path: Path) -> None:
    try:
        record = load(path, check=False)
    except RecordError:
        pytest.skip("holds an action that is not even well-formed (e.g. 'meld 4J')")
    # equal records replay alike, so the replay itself is checked once, above
    assert loads(record.to_text(), check=False) == record
    assert loads(record.dumps(), check=False) == record


def random_match(seed: int, rules: Rules = CLASSIC) -> Match:
    match = Match(rules, seed=seed, players=['Ann "the" | player', "random"])
    play_match(match, [make_bot("random", seed=seed), make_bot("random", seed=seed + 1)])
    return match


@settings(max_examples=15, deadline=None)
@given(
    st.integers(0, 10**6),
    st.sampled_from(
        [CLASSIC, CLASSIC.replace(deal_pattern=(2, 2, 2), all_tricks_bonus=40, target=300)]
    ),
)
def test_both_record_forms_round_trip_losslessly(seed: int, rules: Rules) -> None:
    match = random_match(seed, rules)
    record = Record.from_match(match)
    assert loads(record.dumps()) == record
    assert loads(record.to_text()) == record
    assert loads(loads(record.to_text()).dumps()) == record
    result = replay(record)
    assert (result.totals, result.winner) == (match.totals, match.winner)


def test_unfinished_match_round_trips_and_resumes(tmp_path: Path) -> None:
    match = Match(seed=3)
    match.start_deal()
    deal = match.deal
    assert deal is not None
    for _ in range(13):
        match.play(deal.legal_actions()[0])
    path = tmp_path / "game.json"
    save(Record.from_match(match), path)
    resumed = to_match(load(path))
    assert resumed.deal is not None
    assert resumed.deal.state == deal.state
    result = replay(load(path))
    assert result.deals[0].complete is False


def test_write_atomic_leaves_no_partial_file_on_failure(tmp_path: Path) -> None:
    target = tmp_path / "r.json"
    write_atomic(target, "old")

    class Boom(str):
        def __str__(self) -> str:
            raise RuntimeError("boom")

    with pytest.raises(TypeError):
        write_atomic(target, 123)  # type: ignore[arg-type]
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["r.json"]


@pytest.mark.parametrize(
    ("text", "deal", "action", "needle"),
    [
        ("{not json", None, None, "malformed JSON"),
        ("[]", None, None, "JSON object"),
        ('{"format": "other/2", "first_dealer": 0}', None, None, "format"),
        ('{"deals": []}', None, None, "first_dealer"),
        ('{"first_dealer": 2, "deals": []}', None, None, "first_dealer"),
        ('{"first_dealer": true, "deals": []}', None, None, "must be 0 or 1, got true$"),
        ('{"rules": "poker", "first_dealer": 0}', None, None, "profile"),
        (
            '{"rules": {"profile": "classic", "target": -5}, "first_dealer": 0}',
            None,
            None,
            "target",
        ),
        ('{"rules": {"profile": "classic", "colour": 1}, "first_dealer": 0}', None, None, "colour"),
        ('{"first_dealer": 0, "deals": [{"deck": ["AS"]}]}', 0, None, "32"),
        ('{"first_dealer": 0, "deals": [{"deck": ["XX"]}]}', 0, None, "XX"),
        ('{"first_dealer": 0, "deals": "none"}', None, None, "deals"),
    ],
)
def test_bad_records_raise_errors_with_positions(
    text: str, deal: int | None, action: int | None, needle: str
) -> None:
    with pytest.raises(RecordError, match=needle) as info:
        replay(loads(text, check=False))
    assert (info.value.deal, info.value.action) == (deal, action)


def _deck_json() -> str:
    return json.dumps([f"{r}{s}" for s in "CDHS" for r in "789JQKTA"])


def record_text(*deals: list[str] | None) -> str:
    """A classic record with id-order decks and these action lists."""
    deck = json.loads(_deck_json())
    body = [{"deck": deck} if d is None else {"deck": deck, "actions": d} for d in deals]
    return json.dumps({"first_dealer": 0, "deals": body})


def test_duplicate_card_in_deck_is_an_error_at_that_deal() -> None:
    deck = json.loads(_deck_json())
    deck[5] = deck[6]
    text = json.dumps({"first_dealer": 0, "deals": [{"deck": deck}]})
    with pytest.raises(RecordError, match="twice") as info:
        loads(text)
    assert (info.value.deal, info.value.action) == (0, None)


def test_missing_draw_is_an_error_at_the_card_after_the_trick() -> None:
    # id-order deck: the elder (1) holds 7C 8C 9C TC AC 7D, the dealer JC QC KC 8D 9D JD
    text = record_text(["7C", "JC", "QC"])
    with pytest.raises(RecordError, match="draw") as info:
        loads(text)
    assert (info.value.deal, info.value.action) == (0, 2)


def test_unknown_action_string_is_an_error_at_its_index() -> None:
    text = record_text(["7C", "hello"])
    with pytest.raises(RecordError, match="hello") as info:
        loads(text)
    assert (info.value.deal, info.value.action) == (0, 1)


def test_unfinished_deal_that_is_not_the_last_is_an_error() -> None:
    text = record_text(["7C"], None)
    with pytest.raises(RecordError, match="unfinished") as info:
        loads(text)
    assert (info.value.deal, info.value.action) == (0, None)


def test_empty_match_and_deal_without_actions_are_valid() -> None:
    assert replay(loads('{"first_dealer": 1, "deals": []}')).to_json() == {
        "deals": [],
        "totals": [0, 0],
        "winner": None,
    }
    text = record_text(None)
    assert replay(loads(text)).deals[0].complete is False


def test_unknown_top_level_keys_are_ignored() -> None:
    assert loads('{"first_dealer": 0, "deals": [], "comment": "hi"}') == Record()


def test_text_form_reports_line_numbers() -> None:
    with pytest.raises(RecordError, match="line 3"):
        loads("format marjolet-record/1\nfirst_dealer 0\nbogus line\n")


def test_text_form_names_a_deal_whose_deck_line_is_missing() -> None:
    deck_first = r"line 4, deal 0: the deal's 'deck' line must come before"
    with pytest.raises(RecordError, match=deck_first) as e:
        loads("format marjolet-record/1\nfirst_dealer 0\ndeal 0\n1. TC 7D draw\n")
    assert (e.value.line, e.value.deal) == (4, 0)


def test_text_form_names_a_line_before_the_first_deal() -> None:
    before = r"line 2: unexpected '1. TC' before the first 'deal' line"
    with pytest.raises(RecordError, match=before):
        loads("first_dealer 0\n1. TC\n")


#: A text record's first five lines: its header, ``deal 0`` and a deck in
#: card order (player 1 leads with 7C 8C 9C TC AC 7D against JC QC KC 8D 9D
#: JD: ``1. 7C JC draw``); line 6 is next.
HAND_TYPED = (
    "format marjolet-record/1\nrules classic\nfirst_dealer 0\ndeal 0\n"
    "deck " + " ".join(CARD_NAMES) + "\n"
)


def text_error(actions: str, *, check: bool = True) -> RecordError:
    with pytest.raises(RecordError) as e:
        record = loads(HAND_TYPED + actions, check=check)
        replay(record)
    return e.value


def test_a_trick_number_without_its_dot_is_told_to_take_one_on_its_line() -> None:
    error = text_error("  1. 7C JC draw\n2 QC 8C draw\n")
    assert str(error) == (
        "line 7, deal 0, action 3: unknown action '2': a trick's number is written "
        "with a dot, like '2.'"
    )
    assert (error.line, error.kind, error.detail) == (7, "trick_number", "2")


@pytest.mark.parametrize("typed", ["2)", "2:"])
def test_a_trick_number_with_another_mark_than_its_dot_is_told_to_take_the_dot(
    typed: str,
) -> None:
    error = text_error(f"  1. 7C JC draw\n{typed} QC 8C draw\n")
    assert str(error) == (
        f"line 7, deal 0, action 3: unknown action '{typed}': a trick's number is written "
        "with a dot, like '2.'"
    )
    assert (error.line, error.kind, error.detail) == (7, "trick_number", typed)
    assert notation_mistake(error) == {"mistake": "trick_number", "text": typed, "number": "2"}


@pytest.mark.parametrize("typed", ["DRAW", "Draw", "Dix", "DIX", "Meld KQC", "MELD KQC"])
def test_an_actions_keyword_in_capitals_is_told_to_be_written_in_small_letters(
    typed: str,
) -> None:
    error = text_error(f"  1. 7C JC {typed}\n")
    word = typed.split()[0]
    assert str(error) == (
        f"line 6, deal 0, action 2: unknown word {word!r}: the notation's words are written "
        f"in small letters, like {word.lower()!r}"
    )
    assert (error.kind, error.detail) == ("keyword_case", word)
    assert notation_mistake(error) == {
        "mistake": "keyword_case",
        "text": word,
        "keyword": word.lower(),
    }


@pytest.mark.parametrize(
    ("typed", "meld"), [("kqc", "KQC"), ("Kqc", "KQC"), ("jQs", "JQS"), ("4a", "4A")]
)
def test_a_meld_id_in_small_letters_is_told_to_be_written_in_capitals(
    typed: str, meld: str
) -> None:
    """``meld kqc`` is refused (meld ids use capital suit letters), but
    with the way to write it rather than as an unknown action."""
    error = text_error(f"  1. 7C JC meld {typed}\n")
    assert str(error) == (
        f"line 6, deal 0, action 2: unknown meld id {typed!r}: meld ids are written in "
        f"capitals, like 'meld {meld}'"
    )
    assert (error.kind, error.detail) == ("meld_case", typed)
    assert notation_mistake(error) == {"mistake": "meld_case", "text": typed, "meld": meld}


@pytest.mark.parametrize("typed", ["meld xyz", "meld kq", "meld 4x"])
def test_a_meld_id_that_is_no_meld_in_any_letters_stays_an_unknown_action(typed: str) -> None:
    error = text_error(f"  1. 7C JC {typed}\n")
    assert (error.kind, notation_mistake(error)) == ("bad_action", None)


@pytest.mark.parametrize(
    ("typed", "word", "kind"),
    [("Draw", "Draw", "keyword_case"), ("DIX", "DIX", "keyword_case"),
     ("Meld KQC", "Meld", "keyword_case"), ("meld kqc", "kqc", "meld_case")],
)  # fmt: skip
def test_a_json_records_action_in_the_wrong_letters_is_told_as_the_text_form_tells_it(
    typed: str, word: str, kind: str
) -> None:
    with pytest.raises(RecordError) as e:
        loads(record_text(["7C", "JC", typed]))
    assert (e.value.deal, e.value.action, e.value.kind, e.value.detail) == (0, 2, kind, word)
    assert e.value.line is None and notation_mistake(e.value) is not None
    text = text_error(f"  1. 7C JC {typed}\n")
    assert e.value.message == text.message  # the same sentence, the text form's line apart


@pytest.mark.parametrize(
    ("old", "new", "line", "deal"),
    [
        ("format marjolet", "FORMAT marjolet", 1, None),
        ("rules classic", "Rules classic", 2, None),
        ("first_dealer 0", "FIRST_DEALER 0", 3, None),
        ("deal 0", "Deal 0", 4, 0),
        ("deck 7C", "DECK 7C", 5, 0),
    ],
)
def test_a_line_keyword_in_capitals_is_told_to_be_written_in_small_letters(
    old: str, new: str, line: int, deal: int | None
) -> None:
    with pytest.raises(RecordError) as e:
        loads(HAND_TYPED.replace(old, new, 1))
    word = new.split()[0]
    assert (e.value.line, e.value.deal, e.value.kind, e.value.detail) == (
        line, deal, "keyword_case", word
    )
    assert e.value.to_json()["message"] == (
        f"line {line}: unknown word {word!r}: the notation's words are written in small "
        f"letters, like {word.lower()!r}"
    )


def test_a_players_line_in_capitals_is_told_to_be_written_in_small_letters() -> None:
    with pytest.raises(RecordError) as e:
        loads('Players "A" "B"\n' + HAND_TYPED)
    assert (e.value.line, e.value.kind, e.value.detail) == (1, "keyword_case", "Players")


def test_meld_with_its_id_on_the_next_line_is_told_to_keep_it_on_the_line() -> None:
    error = text_error("  1. 7C meld\n  KQS\n")
    assert str(error) == (
        "line 6, deal 0, action 1: 'meld' without its id: the id goes on the same line, "
        "like 'meld KQS'"
    )
    assert error.kind == "meld_alone"


@pytest.mark.parametrize(
    ("typed", "said"),
    [
        ("qs", "unknown card 'qs': cards are written in capitals, 'QS' (expected rank"),
        ("10c", "unknown card '10c': cards are written in capitals, '10C' (expected rank"),
        ("RC", "unknown card 'RC': R is the French king, written K (expected rank"),
        ("D♥", "unknown card 'D♥': D is the French queen, written Q (expected rank"),
        ("V♠", "unknown card 'V♠': V is the French jack, written J (expected rank"),
    ],
)
def test_a_lower_case_or_french_card_is_told_how_the_notation_writes_it(
    typed: str, said: str
) -> None:
    as_action = text_error(f"  1. {typed}\n")
    with pytest.raises(RecordError) as in_deck:  # the same mistake in the deck line
        loads(HAND_TYPED.replace("deck 7C ", f"deck {typed} ", 1))
    for error, line in ((as_action, 6), (in_deck.value, 5)):
        assert said in str(error)
        assert "7 8 9 T J Q K A and suit C D H S" in str(error)
        assert (error.line, error.detail) == (line, typed)


@pytest.mark.parametrize("check", [True, False])
def test_a_text_records_rule_error_names_its_line_but_not_in_the_json(check: bool) -> None:
    """Read with its check, or read then replayed (as ``marjolet replay`` does)."""
    error = text_error("  1. 7C JC draw\n  2. 8C\n", check=check)
    assert (error.line, error.deal, error.action, error.trick) == (7, 0, 3, 2)
    assert str(error).startswith("line 7, deal 0, action 3 (trick 2): R7: ")
    assert error.to_json() == {"deal": 0, "action": 3, "message": error.message}
    assert "line" not in error.message


def test_a_bad_header_line_is_placed_on_its_own_line() -> None:
    with pytest.raises(RecordError, match=r"^line 2: rules: unknown profile 'bogus'") as e:
        loads("format marjolet-record/1\nrules bogus\nfirst_dealer 0\ndeal 0\n")
    assert (e.value.line, e.value.to_json()["deal"]) == (2, None)


def test_a_header_errors_json_message_keeps_its_line_the_only_position_it_has() -> None:
    """Both positions are null for a header fault (record.md), so the line
    in the message is all a program has to point at it."""
    with pytest.raises(RecordError) as e:
        loads("format marjolet-record/1\nrules classic\nrules classic\nfirst_dealer 0\n")
    assert e.value.to_json() == {
        "deal": None,
        "action": None,
        "message": "line 3: 'rules' given twice",
    }


HEAD = "format marjolet-record/1\n"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (HEAD + "first_dealer 0\ndeal 1\n", "line 3: expected 'deal 0', got 'deal 1'"),
        (HEAD + "first_dealer 0\ndeck 7C\n", "line 3: a 'deck' line must follow a 'deal' line"),
        (HEAD + "deal 0\n", "line 2: 'first_dealer' is required before the deals"),
        ("hello there\n", "not a marjolet record: line 1 starts with 'hello'"),
        (HEAD + "rules bogus\nfirst_dealer 0\n", None),  # the rules' own message, no line
    ],
)
def test_a_text_records_layout_fault_keeps_its_line_in_the_json_message(
    text: str, message: str | None
) -> None:
    """``replay --json`` has always given these faults' line in the message,
    their one exact place; the move of the line to ``RecordError.line``
    must not take it away from programs, nor add it where it never was."""
    with pytest.raises(RecordError) as e:
        loads(text)
    said = e.value.to_json()["message"]
    if message is None:
        assert isinstance(said, str) and not said.startswith("line "), said
    else:
        assert said == message


def test_a_json_records_error_has_no_line() -> None:
    path = next(p for p in EXAMPLE_FILES if p.stem == "I003-hand-phase2-no-trump")
    with pytest.raises(RecordError) as e:
        replay(loads(path.read_text()))
    assert e.value.line is None and not str(e.value).startswith("line")


def test_an_illegal_action_names_its_trick_on_the_line_not_in_the_json() -> None:
    path = next(p for p in EXAMPLE_FILES if p.stem == "I003-hand-phase2-no-trump")
    error = result_or_error(path)["error"]
    assert isinstance(error, dict) and set(error) == {"deal", "action", "message"}
    with pytest.raises(RecordError) as e:
        replay(loads(path.read_text()))
    assert str(e.value).startswith("deal 0, action 31 (trick 11): R16: ")


@pytest.mark.parametrize(
    ("rules", "message"),
    [
        ("classic profile=encyclopedia", "the profile is the first word"),
        ("classic deal_pattern=2-2-2 deal_pattern=3-3", "'deal_pattern' is given twice"),
        ("classic target=1000 target=1000", "'target' is given twice"),
    ],
)
def test_text_form_refuses_a_rules_line_it_would_have_to_change(rules: str, message: str) -> None:
    # the JSON form refuses any such key, and so must the text form, never
    # keeping one value of two or dropping a profile without a word
    with pytest.raises(RecordError, match=message):
        loads(f"format marjolet-record/1\nfirst_dealer 0\nrules {rules}\n")


def test_text_form_accepts_comments_symbols_and_10() -> None:
    record = random_match(5)
    rec = Record.from_match(record)
    text = rec.to_text().replace("TD", "10D").replace("QS", "Q♠")
    text = "# a saved game\n" + text.replace("deal 0\n", "deal 0  # first deal\n")
    assert loads(text) == rec


def test_the_score_table_shows_names_without_control_characters() -> None:
    # a record keeps any name; a terminal is never sent a NUL or an escape
    data = Record.from_match(random_match(3)).to_json()
    data["players"] = ["Al\x00ice\x1b[2J", "Bob"]
    rec = loads(json.dumps(data))
    assert rec.players == ("Al\x00ice\x1b[2J", "Bob")
    table = format_result_table(rec, replay(rec))
    assert "Alice[2J" in table and "winner:" in table
    assert all(c.isprintable() for line in table.splitlines() for c in line), table


@pytest.mark.parametrize(
    ("players", "shown"),
    [
        # an exec: bot is named by its program: a long common start
        (("exec:bots/my_bot_v1.py", "exec:bots/my_bot_v2.py"),
         ("exec:bots/my_bot_v1.py", "exec:bots/my_bot_v2.py")),
        # too long for the column: the end, where they differ, is kept
        (("exec:python3 /home/ann/marjolet/bots/strong.py --level 1",
          "exec:python3 /home/ann/marjolet/bots/strong.py --level 2"),
         ("…rjolet/bots/strong.py --level 1", "…rjolet/bots/strong.py --level 2")),
        # alike at both ends: in full
        (("exec:/srv/a/" + "x" * 40 + "/bot.py", "exec:/srv/b/" + "x" * 40 + "/bot.py"),
         ("exec:/srv/a/" + "x" * 40 + "/bot.py", "exec:/srv/b/" + "x" * 40 + "/bot.py")),
    ],
)  # fmt: skip
def test_the_score_table_tells_apart_players_whose_names_share_a_long_start(
    players: tuple[str, str], shown: tuple[str, str]
) -> None:
    data = Record.from_match(random_match(3)).to_json()
    data["players"] = list(players)
    rec = loads(json.dumps(data))
    lines = format_result_table(rec, replay(rec)).splitlines()
    rows = [next(line for line in lines if name + " " in line) for name in shown]
    assert rows[0] != rows[1]
    head = lines[1]
    # the name column is as wide as the longest name: the figures stay under their heads
    for row in (*rows, head):
        assert len(row) == len(head), (row, head)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.text(max_size=12), min_size=2, max_size=2))
def test_any_two_player_names_round_trip_through_the_text_form(names: list[str]) -> None:
    """Names are JSON strings on the text form's ``players`` line: a ``#``, a
    quote, a lone space or a backslash in one is part of the name."""
    record = Record.from_match(Match(players=(names[0], names[1])))
    assert loads(record.to_text()) == record
    assert loads(loads(record.to_text()).dumps()) == record


@pytest.mark.parametrize(
    "names", [["Jo #1", "random"], [" ", "b"], ['"#"', "\\"], ["a\x85b", "c\u2028d"]]
)
def test_a_name_with_a_hash_or_a_quote_is_not_cut_by_the_text_reader(names: list[str]) -> None:
    text = Record.from_match(Match(players=(names[0], names[1]))).to_text()
    assert loads(text).players == tuple(names)


@pytest.mark.parametrize(
    ("line", "names"),
    [
        ('"Ann" "Bob"', ("Ann", "Bob")),
        ('"Ann", "Bob"', ("Ann", "Bob")),  # as some hand-written records have it
        ('"Ann","Bob"', ("Ann", "Bob")),
        ('"Ann"\t"Bob"', ("Ann", "Bob")),
        ('"Ann""Bob"', None),  # no gap between the names
        ('"Ann\tx" "Bob"', None),  # a raw tab inside a name is no JSON string
        ('"Ann" Bob', None),
    ],
)
def test_the_players_line_reads_quoted_names_apart_by_spaces_or_a_comma(
    line: str, names: tuple[str, str] | None
) -> None:
    text = f"format marjolet-record/1\nplayers {line}\nfirst_dealer 0\n"
    if names is None:
        with pytest.raises(RecordError, match=r"^line 2: players: expected two quoted names"):
            loads(text)
    else:
        assert loads(text).players == names


@pytest.mark.parametrize(
    "obj, message",
    [
        (
            {"players": ["\ud800", "b"]},
            r"players: name 0 is not Unicode text \(a lone surrogate \\ud800\)",
        ),
        (
            {"comments": [{"deal": 0, "after": 0, "text": "x\udfff"}]},
            r"comment 0: 'text' is not Unicode",
        ),
    ],
)
def test_a_string_no_file_can_hold_is_refused_on_reading(
    obj: dict[str, object], message: str
) -> None:
    base = json.loads(Record.from_match(random_match(1, CLASSIC)).dumps())
    base.update(obj)
    with pytest.raises(RecordError, match=f"^{message}"):
        loads(json.dumps(base))


def test_a_json_key_given_twice_is_refused() -> None:
    text = '{"format": "marjolet-record/1", "first_dealer": 0, "deals": [], "deals": []}'
    with pytest.raises(RecordError, match=r"^key 'deals' given twice in one JSON object$"):
        loads(text)


def test_text_form_header_lines_may_separate_their_key_with_a_tab() -> None:
    record = Record.from_match(random_match(2, CLASSIC))
    text = record.to_text().replace("format ", "format\t")
    text = text.replace("first_dealer ", "first_dealer\t")
    assert loads(text) == record
