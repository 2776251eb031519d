"""``marjolet serve``'s command line: every numeric setting outside its
limits is refused in one line naming the flag, before anything starts."""

from __future__ import annotations

import argparse

import pytest

from marjolet.commands import serve
from marjolet.errors import MarjoletError

#: The limits, written out here (not read from the code under test).
LIMITS = [
    ("--port", 0, 65535, ""),
    ("--bot-delay", 0, 60, " seconds"),
    ("--watch-delay", 0, 60, " seconds"),
    ("--review-budget", 0, 10, " seconds"),
    ("--away-grace", 0, 86_400, " seconds"),
    ("--move-limit", 0, 86_400, " seconds"),
    ("--abandon-after", 0, 30 * 86_400, " seconds"),
    ("--rate-limit", 1, 100_000, " messages a second"),
    ("--bot-threads", 1, 64, ""),
]


def test_the_table_of_limits_is_the_documented_one() -> None:
    assert [(flag, low, high, unit) for flag, _, low, high, unit in serve.RANGES] == LIMITS


@pytest.mark.parametrize(("flag", "low", "high", "unit"), LIMITS)
def test_every_numeric_serve_setting_outside_its_limits_is_one_line_naming_the_flag(
    flag: str, low: int, high: int, unit: str
) -> None:
    parser = argparse.ArgumentParser()
    serve.add_arguments(parser)
    serve.check_ranges(parser.parse_args([]))  # the defaults are inside
    for value in (low, high):
        serve.check_ranges(parser.parse_args([flag, str(value)]))  # the limits themselves
    for value in (low - 1, high + 1):
        args = parser.parse_args([flag, str(value)])
        with pytest.raises(MarjoletError) as caught:
            serve.check_ranges(args)
        assert str(caught.value).startswith(f"{flag} must be between {low} and {high}{unit}, got ")


def test_the_lease_length_is_ten_seconds_unless_its_variable_gives_another(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    parser = argparse.ArgumentParser()
    serve.add_arguments(parser)
    monkeypatch.delenv("MARJOLET_LEASE_SECONDS", raising=False)
    assert serve.web_config(parser.parse_args([]), None, None).lease_seconds == 10.0
    for text, seconds in (("1", 1.0), ("2.5", 2.5), ("3600", 3600.0)):
        monkeypatch.setenv("MARJOLET_LEASE_SECONDS", text)
        assert serve.web_config(parser.parse_args([]), None, None).lease_seconds == seconds


@pytest.mark.parametrize("text", ["", "0", "0.5", "3601", "ten", "nan", "inf", "-4"])
def test_a_lease_length_that_is_not_1_to_3600_seconds_is_one_line_naming_the_variable(
    monkeypatch: pytest.MonkeyPatch, text: str
) -> None:
    parser = argparse.ArgumentParser()
    serve.add_arguments(parser)
    monkeypatch.setenv("MARJOLET_LEASE_SECONDS", text)
    with pytest.raises(MarjoletError) as caught:
        serve.web_config(parser.parse_args([]), None, None)
    assert str(caught.value) == (
        f"MARJOLET_LEASE_SECONDS={text!r}: give the seconds of a lease, from 1 to 3600 "
        "(unset: 10), or unset it"
    )
