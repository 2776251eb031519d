"""``marjolet serve``'s command line: every numeric setting outside its
limits is refused in one line naming the flag, before anything starts."""

from __future__ import annotations

import argparse

import pytest

from marjolet.commands import serve
from marjolet.errors import MarjoletError


@pytest.mark.parametrize(("flag", "name", "low", "high", "unit"), serve.RANGES)
def test_every_numeric_serve_setting_outside_its_limits_is_one_line_naming_the_flag(
    flag: str, name: str, low: int, high: int, unit: str
) -> None:
    parser = argparse.ArgumentParser()
    serve.add_arguments(parser)
    serve.check_ranges(parser.parse_args([]))  # the defaults are inside
    for value in (low - 1, high + 1):
        args = parser.parse_args([flag, str(value)])
        with pytest.raises(MarjoletError) as caught:
            serve.check_ranges(args)
        assert str(caught.value).startswith(f"{flag} must be between {low} and {high}{unit}, got ")
