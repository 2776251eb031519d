"""The browser's WebSocket messages (web/protocol.py): each refusal has its
code and one line naming what is wrong; unknown keys are ignored."""

from __future__ import annotations

import pytest

from marjolet.web.protocol import Act, Hello, Hint, Next, Ping, ProtocolError, parse_message


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            '{"type": "act", "action": "QS", "version": 3}',
            Act.model_construct(type="act", action=28, version=3),
        ),
        ('{"type": "hello", "watch": true}', Hello(type="hello", token=None, watch=True)),
        ('{"type": "hello", "token": "abc"}', Hello(type="hello", token="abc", watch=False)),
        ('{"type": "hint", "extra": 1}', Hint(type="hint")),
        ('{"type": "next", "version": 0}', Next(type="next", version=0)),
        ('{"type": "ping"}', Ping(type="ping")),
    ],
)
def test_a_well_formed_message_is_read(text: str, expected: object) -> None:
    assert parse_message(text, 2048) == expected


@pytest.mark.parametrize(
    ("text", "code", "message"),
    [
        ('{"type": "act", "action": "xx", "version": 3}', "unknown_action", "unknown action 'xx'"),
        ('{"type": "act", "action": 5, "version": 3}', "malformed", "'action' must be text"),
        ('{"type": "act", "action": "QS"}', "malformed", "'version' must be a whole number"),
        ('{"type": "next", "version": true}', "malformed", "'version' must be a whole number"),
        ('{"type": "next", "version": -1}', "malformed", "got -1"),
        ('{"type": "hello"}', "malformed", "'hello' needs a 'token'"),
        ('{"type": "hello", "token": ""}', "malformed", "'token' must be the seat's secret"),
        ('{"type": "hello", "watch": 1}', "malformed", "'watch' must be true or false"),
        ('{"type": "chess"}', "malformed", "unknown message type 'chess'"),
        ('{"type": [1]}', "malformed", "unknown message type [1]"),
        ("{}", "malformed", "unknown message type null"),
        ("[1]", "malformed", "a message must be a JSON object"),
        ("{bad", "malformed", "malformed JSON at column 2"),
        ("[" * 5000, "malformed", "malformed JSON"),
        ('{"type": "ping", "pad": "' + "x" * 3000 + '"}', "too_large", "the limit is 2048"),
    ],
)
def test_a_bad_message_is_refused_with_its_code_and_one_line(
    text: str, code: str, message: str
) -> None:
    with pytest.raises(ProtocolError) as refused:
        parse_message(text, 2048 if code == "too_large" else 1_000_000)
    assert refused.value.code == code and message in str(refused.value)
    assert "\n" not in str(refused.value)


def test_a_binary_frame_is_refused() -> None:
    with pytest.raises(ProtocolError, match="not binary frames"):
        parse_message(b'{"type": "ping"}', 2048)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"type": "hello", "token": "\\ud800"}', "'token' is not valid text"),
        ('{"type": "act", "action": "Q\\udc00S", "version": 3}', "'action' is not valid text"),
        ('{"type": "ping", "pad": {"\\ud800": 1}}', "'pad.\\ud800' is not valid text"),
        ('{"type": "ping", "pad": ' + "1" * 5000 + "}", "a number of more than 4300 digits"),
    ],
)
def test_text_that_is_not_text_or_a_number_too_long_to_read_is_malformed(
    text: str, message: str
) -> None:
    with pytest.raises(ProtocolError) as refused:
        parse_message(text, 1_000_000)
    assert refused.value.code == "malformed" and message in str(refused.value)
