"""The review's three marks in colour (style.css): an inaccuracy, a mistake
and a blunder must be told apart at a glance, by every reader, colour-blind
ones too, and each must stay readable on the panel (WCAG 2.1 contrast)."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import pytest

CSS = Path(__file__).resolve().parents[1] / "src/marjolet/web/static/style.css"
MARKS = ("inaccuracy", "mistake", "blunder")
#: the panel the review is drawn on (--panel) and the page's white
BACKGROUNDS = ("#f6f1e4", "#ffffff")
#: Machado et al. (2009) at full severity, on linear RGB
SIMULATIONS = {
    "normal": ((1, 0, 0), (0, 1, 0), (0, 0, 1)),
    "protanopia": ((0.152286, 1.052583, -0.204868), (0.114503, 0.786281, 0.099216),
                   (-0.003882, -0.048116, 1.051998)),
    "deuteranopia": ((0.367322, 0.860646, -0.227968), (0.280085, 0.672501, 0.047413),
                     (-0.011820, 0.042940, 0.968881)),
    "tritanopia": ((1.255528, -0.076749, -0.178779), (-0.078411, 0.930809, 0.147602),
                   (0.004733, 0.691367, 0.303900)),
}
#: CIE76 distance under which two small marks are easily taken for one another
#: (the colours before this test: 4 apart for a deuteranope, 25 for anyone)
APART = 20.0


def _linear(hex_colour: str) -> tuple[float, ...]:
    channels = (int(hex_colour[i:i + 2], 16) / 255 for i in (1, 3, 5))
    return tuple(c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels)


def _luminance(hex_colour: str) -> float:
    r, g, b = _linear(hex_colour)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def _contrast(a: str, b: str) -> float:
    high, low = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def _lab(rgb: tuple[float, ...]) -> tuple[float, float, float]:
    r, g, b = (min(1.0, max(0.0, c)) for c in rgb)
    x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047
    y = 0.2126 * r + 0.7152 * g + 0.0722 * b
    z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883

    def f(t: float) -> float:
        return t ** (1 / 3) if t > 0.008856 else 7.787 * t + 16 / 116

    return 116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))


def _seen(hex_colour: str, kind: str) -> tuple[float, float, float]:
    rgb = _linear(hex_colour)
    return _lab(tuple(sum(m * c for m, c in zip(row, rgb, strict=True))
                      for row in SIMULATIONS[kind]))


def _colours() -> dict[str, set[str]]:
    """Every colour style.css gives each mark (log, graph dot, legend key)."""
    css = CSS.read_text(encoding="utf-8")
    found: dict[str, set[str]] = {m: set() for m in MARKS}
    for selectors, body in re.findall(r"([^{}]+)\{([^{}]*)\}", css):
        for mark in MARKS:
            if f".review-{mark}" in selectors:
                found[mark] |= {c.lower() for c in re.findall(r"#[0-9a-fA-F]{6}\b", body)}
    return found


def test_each_mark_has_one_colour_everywhere() -> None:
    colours = _colours()
    assert all(len(c) == 1 for c in colours.values()), colours


@pytest.mark.parametrize("background", BACKGROUNDS)
def test_each_marks_colour_is_readable_on_the_panel(background: str) -> None:
    for mark, (colour,) in ((m, tuple(c)) for m, c in _colours().items()):
        assert _contrast(colour, background) >= 4.5, (mark, colour, background)


@pytest.mark.parametrize("kind", sorted(SIMULATIONS))
def test_the_three_marks_colours_are_apart_for_every_reader(kind: str) -> None:
    colours = {m: next(iter(c)) for m, c in _colours().items()}
    for a, b in itertools.combinations(MARKS, 2):
        distance = sum((p - q) ** 2 for p, q in zip(
            _seen(colours[a], kind), _seen(colours[b], kind), strict=True)) ** 0.5
        assert distance >= APART, (kind, a, colours[a], b, colours[b], round(distance, 1))
