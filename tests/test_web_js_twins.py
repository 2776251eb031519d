"""Names the pages' JavaScript writes out again from the server's Python:
each copy is read from the page's source and checked against its home, so
that a change on one side fails here until the other agrees."""

from __future__ import annotations

import re
from pathlib import Path

from marjolet.bots.levels import LEVELS
from marjolet.web.store import RESIGNED_REASON
from marjolet.web.tables import LEFT_REASON, TIMEOUT_REASON

COMMON_JS = (
    Path(__file__).resolve().parent.parent / "src" / "marjolet" / "web" / "static" / "common.js"
).read_text(encoding="utf-8")


def _object_literal(name: str) -> dict[str, str]:
    """``const NAME = { A: "a", "b c": "d" };`` as a dict."""
    body = re.search(rf"const {name} = \{{(.*?)\}};", COMMON_JS, re.S)
    assert body is not None, name
    pairs = re.findall(r'"?([\w ]+)"?\s*:\s*"([^"]*)"', body.group(1))
    return {k.strip(): v for k, v in pairs}


def test_the_pages_know_each_level_by_its_record_name_and_key() -> None:
    assert _object_literal("LEVEL_KEYS") == {lv.name("en"): lv.key for lv in LEVELS}
    pattern = re.search(r"const level = /\^\((.*?)\)", COMMON_JS)
    assert pattern is not None
    assert pattern.group(1).split("|") == [lv.name("en") for lv in LEVELS]


def test_the_pages_tell_each_kind_of_forfeit_by_the_server_s_reasons() -> None:
    body = re.search(r"function forfeitKind\(forfeit\) \{(.*?)\n\}", COMMON_JS, re.S)
    assert body is not None
    found = re.findall(r'"?([\w ]+)"?\s*:\s*"(\w+)"', body.group(1))
    kinds = {k.strip(): v for k, v in found}
    assert kinds == {RESIGNED_REASON: "resigned", TIMEOUT_REASON: "timeout"}
    assert '|| "left"' in body.group(1)  # every other reason a person gives is leaving
    assert LEFT_REASON not in kinds
