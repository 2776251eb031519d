"""Comments inside a record's deals are kept by both forms (record.py)."""

from __future__ import annotations

import json

import pytest

from marjolet.bots import make_bot
from marjolet.errors import RecordError
from marjolet.match import Match
from marjolet.record import Comment, Record, loads
from marjolet.turns import play_match


def played_record() -> Record:
    match = Match(seed=21)
    play_match(match, [make_bot("random", seed=1), make_bot("random", seed=2)])
    return Record.from_match(match)


def with_notes(record: Record) -> Record:
    last = len(record.deals[1].actions)
    return record.with_comments(
        [
            Comment(0, 0, "before the first card"),
            Comment(0, 1, "mid-trick, after the lead"),
            Comment(0, 3, "after the window"),
            Comment(0, 3, "a second one at the same place # with a hash"),
            Comment(1, last, "at the very end"),
        ]
    )


def test_comments_round_trip_through_the_text_form_at_their_place() -> None:
    record = with_notes(played_record())
    text = record.to_text()
    assert loads(text) == record
    assert "# mid-trick, after the lead" in text


def test_comments_round_trip_through_the_json_form() -> None:
    record = with_notes(played_record())
    assert loads(record.dumps()) == record
    assert loads(loads(record.dumps()).to_text()) == record


def test_a_record_without_comments_is_written_as_before() -> None:
    record = played_record()
    assert "#" not in record.to_text() and "comments" not in record.dumps()
    assert loads(record.to_text()).comments == ()


def test_comment_text_is_kept_on_one_line() -> None:
    record = played_record().with_comments([Comment(0, 2, "two\nlines   here")])
    assert loads(record.to_text()).comments == (Comment(0, 2, "two lines here"),)


def test_comments_on_header_and_deal_lines_are_dropped() -> None:
    record = played_record()
    text = "# a saved game\n" + record.to_text().replace("deal 0\n", "deal 0  # first deal\n")
    assert loads(text) == record


@pytest.mark.parametrize(
    "comments, message",
    [
        ("{}", "'comments' must be a list"),
        ('[{"deal": 99, "after": 0, "text": "x"}]', "'deal' must be the index"),
        ('[{"deal": 0, "after": 999, "text": "x"}]', "'after' must be"),
        ('[{"deal": 0, "after": 0, "text": 3}]', "'text' must be a string"),
        ('[{"deal": 0, "after": 0, "text": "x", "colour": 1}]', "expected an object"),
    ],
)
def test_bad_json_comments_are_one_clear_error(comments: str, message: str) -> None:
    obj = json.loads(played_record().dumps())
    obj["comments"] = json.loads(comments)
    with pytest.raises(RecordError, match=message):
        loads(json.dumps(obj))


def test_an_empty_comment_keeps_its_place_through_the_text_form() -> None:
    record = played_record().with_comments([Comment(0, 1, "")])
    assert loads(record.to_text()) == record
    assert loads(loads(record.dumps()).to_text()) == record


def test_a_json_comment_over_several_lines_is_read_as_one_line() -> None:
    """The text form holds a comment on one line: a line break in a JSON
    comment would otherwise start a line of actions there."""
    obj = json.loads(played_record().dumps())
    obj["comments"] = [{"deal": 0, "after": 1, "text": "two\ndeck AS\n  lines"}]
    record = loads(json.dumps(obj))
    assert record.comments == (Comment(0, 1, "two deck AS lines"),)
    assert loads(record.to_text()) == record
