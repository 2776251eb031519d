"""The web pages' rule fields offer what the engine allows, no more and no
less: the new-match limits (rules.NEW_MATCH_LIMITS) on the number fields
and the engine's choices (rules.setting_choices) in the menus. The pages
are static; this pins them to the one place the rules say it."""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path

import marjolet.web
from marjolet.rules import NEW_MATCH_LIMITS, setting_choices

STATIC = Path(marjolet.web.__file__).parent / "static"


class Fields(HTMLParser):
    """Every input's attributes and every select's option values, by the
    field's name (or id)."""

    def __init__(self) -> None:
        super().__init__()
        self.inputs: dict[str, dict[str, str | None]] = {}
        self.selects: dict[str, list[str]] = {}
        self._select: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        key = a.get("name") or a.get("id") or ""
        if tag == "input":
            self.inputs[key] = a
        elif tag == "select":
            self._select = key
            self.selects[key] = []
        elif tag == "option" and self._select is not None:
            self.selects[self._select].append(a.get("value") or "")

    def handle_endtag(self, tag: str) -> None:
        if tag == "select":
            self._select = None


def fields(page: str) -> Fields:
    parser = Fields()
    parser.feed((STATIC / page).read_text(encoding="utf-8"))
    return parser


def assert_limits(field: dict[str, str | None], setting: str) -> None:
    low, high = NEW_MATCH_LIMITS[setting]
    assert (field.get("min"), field.get("max")) == (str(low), str(high)), setting
    assert field.get("step") in (None, "1"), f"{setting}: the engine takes any whole number"


def test_the_new_match_fields_take_the_engines_limits() -> None:
    assert_limits(fields("index.html").inputs["all_tricks_bonus"], "all_tricks_bonus")
    assert_limits(fields("online.html").inputs["seek-target"], "target")


def test_the_new_match_menus_offer_the_engines_choices() -> None:
    menus = fields("index.html").selects
    choices = setting_choices()
    assert menus["target"] == [str(t) for t in choices["target"]]
    assert menus["deal_pattern"] == ["-".join(map(str, p)) for p in choices["deal_pattern"]]
    assert menus["jack_queen"] == list(choices["jack_queen"])
