"""The review graph's marks are targets a finger finds on a phone (390x844,
fr-FR, Debian's Chromium): each mark, drawn about 7 pixels wide, has a
target of at least 24 CSS pixels a side (WCAG 2.5.8), a tap anywhere in it
steps to that mark's decision (not to an unmarked decision nearer under the
finger), and where two marks' targets overlap the tap goes to the nearer
mark. The review is a fixed one, a decision at every action of the first
deal, so the decisions lie a few pixels apart."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page

from web_support import (
    LiveServer,
    exact_decision,
    first_deal_reviewable,
    needs_chromium,
    open_reviewed,
)

pytestmark = needs_chromium

TARGET_PX = 24
#: The marked decisions, by action: two close (their targets overlap), one apart.
MARKED = {10: "inaccuracy", 12: "mistake", 30: "blunder"}


@pytest.fixture
def page_options() -> dict[str, Any]:
    return {"viewport": {"width": 390, "height": 844}, "locale": "fr-FR",
            "is_mobile": True, "has_touch": True}


@pytest.fixture
def graph(page: Page, tmp_path: Path) -> Iterator[list[dict[str, Any]]]:
    """The replay of a game whose first deal is over, reviewed with a
    decision at each of its actions (three marked); yields the decisions."""
    with first_deal_reviewable(tmp_path) as (server, game, record):
        with server.http() as client:
            log = client.get(f"/api/games/{game['id']}/replay").json()["deals"][0]["log"]
        deal = record["deals"][0]
        assert len(deal["actions"]) > max(MARKED) + 10
        decisions = [exact_decision(deal, i, log[i]["player"], MARKED.get(i))
                     for i in range(len(deal["actions"]))]
        review = {
            "decisions": decisions,
            "players": [{"seat": s, "decisions": 1, "accuracy": 50.0, "inaccuracies": 1,
                         "mistakes": 1, "blunders": 1, "exact_loss": 70, "estimated_loss": 0.0}
                        for s in (0, 1)],
            "view": "seat", "budget": 0.3, "estimator": "best",
            "thresholds": {"inaccuracy": 10, "mistake": 20, "blunder": 40},
        }
        _open(page, server, game["id"], review)
        yield decisions


def _open(page: Page, server: LiveServer, game_id: str, review: dict[str, Any]) -> None:
    open_reviewed(page, server.base, game_id, review)
    page.wait_for_selector("svg.review-graph .review-dot", timeout=60_000)


def _targets(page: Page) -> dict[int, dict[str, float]]:
    """Each mark's target on the screen, by the action of its decision (the
    graph scrolled into view, where a finger can tap it)."""
    page.locator("svg.review-graph").scroll_into_view_if_needed()
    boxes: list[dict[str, Any]] = page.evaluate(
        """() => [...document.querySelectorAll('svg.review-graph .review-target')].map(n => {
             const r = n.getBoundingClientRect();
             return {index: Number(n.dataset.index), left: r.left, top: r.top,
                     right: r.right, bottom: r.bottom, width: r.width, height: r.height};
           })"""
    )
    return {box["index"]: box for box in boxes}


def _tap(page: Page, x: float, y: float) -> int:
    """Tap the screen at (x, y); the action the replay then shows."""
    page.touchscreen.tap(x, y)
    assert page.locator("#deal-select").input_value() == "0"
    return int(page.locator("#slider").input_value())


def test_each_mark_on_the_graph_has_a_target_of_24_pixels_on_a_phone(
    page: Page, graph: list[dict[str, Any]]
) -> None:
    dots = page.evaluate(
        "() => [...document.querySelectorAll('svg.review-graph .review-dot')]"
        ".map(n => n.getBoundingClientRect().width)"
    )
    assert dots and max(dots) < TARGET_PX, dots  # the marks drawn: too small for a finger
    targets = _targets(page)
    assert sorted(targets) == sorted(MARKED), targets
    for action, box in targets.items():
        assert box["width"] >= TARGET_PX and box["height"] >= TARGET_PX, (action, box)
    assert page.evaluate("document.documentElement.scrollWidth") <= 390


def test_a_tap_at_the_edge_of_a_marks_target_steps_to_that_mark(
    page: Page, graph: list[dict[str, Any]]
) -> None:
    # the decisions lie a few pixels apart: a tap 12 pixels off the mark's
    # centre stepped to an unmarked decision two or three actions away
    action = 30
    box, away = _targets(page)[action], _targets(page)[10]
    spacing = (_targets(page)[12]["left"] - _targets(page)[10]["left"]) / 2
    assert spacing < TARGET_PX / 2, spacing  # several decisions lie under a finger
    middle_x, middle_y = (box["left"] + box["right"]) / 2, (box["top"] + box["bottom"]) / 2
    edges = [(box["left"] + 1, middle_y), (box["right"] - 1, middle_y),
             (middle_x, box["top"] + 1), (middle_x, box["bottom"] - 1),
             (box["left"] + 1, box["top"] + 1)]
    for x, y in edges:
        assert _tap(page, away["left"] + away["width"] / 2, middle_y) == 10  # (away first)
        assert _tap(page, x, y) == action, (x, y)


def test_a_tap_between_two_close_marks_steps_to_the_nearer_one(
    page: Page, graph: list[dict[str, Any]]
) -> None:
    targets = _targets(page)
    first, second = targets[10], targets[12]
    assert first["right"] > second["left"]  # their targets overlap
    between = (first["left"] + second["right"]) / 2
    y = (first["top"] + first["bottom"]) / 2
    assert _tap(page, between - 2, y) == 10
    assert _tap(page, between + 2, y) == 12
    # under neither target, a tap steps to the decision under it, marked or not
    assert _tap(page, between, first["top"] - 20) == 11
