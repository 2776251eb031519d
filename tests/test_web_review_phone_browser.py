"""The review of a game on a French phone (360x740, fr-FR), in Debian's
Chromium: the marks of the log read as a player reads a figure, the
evaluation graph's labels are readable, and the score's names keep their
line. The review itself is a fixed one (the page's request for it is
answered by the test), so the marks are the same on every run."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page

from web_support import LiveServer, first_deal_reviewable, needs_chromium, open_reviewed

pytestmark = needs_chromium


@pytest.fixture
def page_options() -> dict[str, Any]:
    return {"viewport": {"width": 360, "height": 740}, "locale": "fr-FR",
            "is_mobile": True, "has_touch": True}


def _decision(deal: dict[str, Any], action: int, seat: int, *, exact: bool) -> dict[str, Any]:
    """A marked decision at ``action`` of ``deal`` (a lead: a card of the
    leader's hand other than the one played is "best")."""
    played = deal["actions"][action]
    best = "TS" if played != "TS" else "TC"
    values = {best: 13.8, played: -7.4} if not exact else {best: 10, played: -10}
    loss = values[best] - values[played]
    out = {"deal": 0, "action": action, "seat": seat, "trick": 1 + action // 4,
           "played": played, "best": [best], "value_played": values[played],
           "value_best": values[best], "loss": loss, "exact": exact,
           "view": "ending" if exact else "seat", "method": "solver" if exact else "best",
           "values": values, "judgement": "mistake"}
    if not exact:
        out["stderr"] = {"played": 2.0, "best": 2.0, "loss": 0.5}
        out["worlds"] = 500
    return out


@pytest.fixture
def reviewed(page: Page, tmp_path: Path) -> Iterator[tuple[LiveServer, str]]:
    """A server with a game whose first deal is over, and the page's
    request for its review answered with two marked decisions of that deal:
    an estimate (lost 21.2) and an exact count (lost 20)."""
    with first_deal_reviewable(tmp_path) as (server, game, record):
        deal = record["deals"][0]
        leader = 1 - record["first_dealer"]
        review = {
            "decisions": [
                _decision(deal, 0, leader, exact=False),
                _decision(deal, len(deal["actions"]) - 2, leader, exact=True),
            ],
            "players": [
                {"seat": s, "decisions": 2, "accuracy": 50.0, "inaccuracies": 0,
                 "mistakes": 2 if s == leader else 0, "blunders": 0,
                 "exact_loss": 20 if s == leader else 0,
                 "estimated_loss": 21.2 if s == leader else 0.0}
                for s in (0, 1)
            ],
            "view": "seat", "budget": 0.3, "estimator": "best",
            "thresholds": {"inaccuracy": 10, "mistake": 20, "blunder": 40},
        }
        open_reviewed(page, server.base, game["id"], review)
        page.wait_for_selector(".review-panel", timeout=60_000)
        yield server, game["id"]


def test_a_marks_estimated_loss_puts_the_approx_sign_before_the_minus(
    page: Page, reviewed: tuple[LiveServer, str]
) -> None:
    page.keyboard.press("End")
    marks = page.locator(".log-list .review-mark").all_inner_texts()
    assert len(marks) == 2, marks
    # "(≈−21)" for about 21 points lost, "(−20)" for exactly 20: never "(−≈21)",
    # "minus about", which no player writes
    assert any(m.endswith("(\u2248\u221221)") for m in marks), marks
    assert any(m.endswith("(\u221220)") for m in marks), marks
    assert not any("\u2212\u2248" in m for m in marks), marks


def test_the_evaluation_graph_labels_are_readable_on_a_phone(
    page: Page, reviewed: tuple[LiveServer, str]
) -> None:
    heights = page.evaluate(
        "() => [...document.querySelectorAll('svg.review-graph text')]"
        ".map(t => t.getBoundingClientRect().height)"
    )
    assert heights and min(heights) >= 9, heights  # 6 pixels when drawn 600 wide
    assert page.evaluate("document.documentElement.scrollWidth") <= 360


def test_the_score_keeps_each_players_name_on_one_line_on_a_phone(
    page: Page, reviewed: tuple[LiveServer, str]
) -> None:
    # "Joueur" and "Débutant" in the replay's score, cut as "Joueu|r" before
    lines = page.evaluate(
        """() => [...document.querySelectorAll('#score .breakdown th:not(:first-child)')]
          .map(th => {
            const range = document.createRange();
            range.selectNodeContents(th);
            const tops = [...range.getClientRects()].map(r => Math.round(r.top));
            return [th.innerText, new Set(tops).size];
          })"""
    )
    assert lines and all(n == 1 for _, n in lines), lines
    assert page.evaluate("document.documentElement.scrollWidth") <= 360


def test_the_review_of_the_finished_deals_sums_up_those_deals_not_the_match(
    page: Page, reviewed: tuple[LiveServer, str]
) -> None:
    # the game goes on (a match to 1000, one deal over): its review's summary
    # is over the one deal reviewed, never « Sur toute la partie »
    title = page.locator(".review-summary-title").inner_text()
    assert title == "Sur la donne finie\u00a0:", title


def test_the_values_of_a_choice_say_what_their_figures_are(
    page: Page, reviewed: tuple[LiveServer, str]
) -> None:
    # « 10♠ ≈+14 », « R♥ ≈−7 »: points ahead or behind at the end of the deal,
    # which the panel now says in a line under the list
    page.keyboard.press("Home")  # before the first lead: a choice with its values
    assert page.locator(".review-values li").count() >= 2
    note = page.locator(".review-values-note").inner_text()
    assert "à la fin de la donne" in note and "(+)" in note and "(\u2212)" in note, note


def test_the_marks_thresholds_and_their_caution_are_told(
    page: Page, reviewed: tuple[LiveServer, str]
) -> None:
    # « ?! … perte ≈21 points »: a player who knows a ?! is 10-19 points needs
    # to be told that an estimate is marked only for what the review is sure of
    note = page.locator(".review-marks-note").inner_text()
    assert "imprécision (?!) dès 10" in note and "gaffe (??) dès 40" in note, note
    assert "\u224821 points perdus peuvent n\u2019être qu\u2019une imprécision" in note, note
    assert "fin de la partie" not in note  # no decision here is marked by the match chance


def test_the_summary_says_the_points_each_player_lost(
    page: Page, reviewed: tuple[LiveServer, str]
) -> None:
    # the terminal's summary says « 41 points perdus »; the web's said only marks
    lines = page.locator(".review-summary li").all_inner_texts()
    lost = "précision 50\u202f%, 41 points perdus\u202f; 0 imprécision"
    assert any(lost in x for x in lines), lines
    assert any(", 0 point perdu\u202f;" in x for x in lines), lines
