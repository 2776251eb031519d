"""The review in the replay page, read by its player in French (fr-FR,
Debian's Chromium): a player who gave no name is spoken to as the table
spoke to them (« Vous », not « Joueur »), the graph's marks differ in shape
as well as colour, and the graph is reached by Tab and stepped with the
arrow keys. The review is a fixed one (the page's request for it is
answered by the test), so the marks are the same on every run."""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page

from test_web_pages_browser import AXE, axe_problems
from web_support import Browser as Client
from web_support import (
    LiveServer,
    exact_decision,
    fast_config,
    first_deal_reviewable,
    live_server,
    needs_chromium,
    open_reviewed,
    play_until,
)

pytestmark = needs_chromium

MARKS = ("inaccuracy", "mistake", "blunder", None)


@pytest.fixture
def page_options() -> dict[str, Any]:
    # axe-core is injected inline (the page's own policy allows no inline script)
    return {"viewport": {"width": 1400, "height": 900}, "locale": "fr-FR", "bypass_csp": True}


@pytest.fixture
def game(tmp_path: Path) -> Iterator[tuple[LiveServer, dict[str, Any], list[dict[str, Any]]]]:
    """A game whose first deal is over, its player having given no name
    (« you »), and a review of four of that player's decisions: a ?!, a ?,
    a ?? and one unmarked."""
    with first_deal_reviewable(tmp_path) as (server, game, record):
        with server.http() as client:
            log = client.get(f"/api/games/{game['id']}/replay").json()["deals"][0]["log"]
        assert record["players"][game["seat"]] == "you"
        deal = record["deals"][0]
        cards = [i for i, a in enumerate(deal["actions"])  # the cards this player played
                 if re.fullmatch(r"[2-9TJQKA][CDHS]", a) and log[i]["player"] == game["seat"]]
        marked = zip(cards[::3], MARKS, strict=False)
        decisions = [exact_decision(deal, i, game["seat"], j) for i, j in marked]
        review = {
            "decisions": decisions,
            "players": [{"seat": s, "decisions": 4, "accuracy": 50.0, "inaccuracies": 1,
                         "mistakes": 1, "blunders": 1, "exact_loss": 70, "estimated_loss": 0.0}
                        for s in (0, 1)],
            "view": "seat", "budget": 0.3, "estimator": "best",
            "thresholds": {"inaccuracy": 10, "mistake": 20, "blunder": 40},
        }
        game["review"] = review
        yield server, game, decisions


def _open(page: Page, server: LiveServer, game: dict[str, Any], *, held: bool) -> None:
    """The game's replay and review, in the browser that played it (``held``:
    its seat remembered, as the table left it) or in another one."""
    if held:
        seats = {game["id"]: {"seat": game["seat"], "token": game["token"]}}
        stored = json.dumps(json.dumps(seats))
        page.add_init_script(f"localStorage.setItem('marjolet.seats', {stored})")
    open_reviewed(page, server.base, game["id"], game["review"])
    page.wait_for_selector(".review-panel", timeout=60_000)


def _go_to_first_decision(page: Page, decisions: list[dict[str, Any]]) -> None:
    page.keyboard.press("Home")
    for _ in range(decisions[0]["action"]):
        page.keyboard.press("ArrowRight")


def test_the_player_who_gave_no_name_is_spoken_to_as_the_table_spoke_to_them(
    page: Page, game: tuple[LiveServer, dict[str, Any], list[dict[str, Any]]]
) -> None:
    # the table said « Vous » to them; the review said « À Joueur de choisir »,
    # « Joueur joue 10♠ », « Joueur en haut »
    server, g, decisions = game
    _open(page, server, g, held=True)
    _go_to_first_decision(page, decisions)
    review = page.locator("#review").inner_text()
    assert "À vous de choisir (exact)" in review, review
    assert "vous pouviez espérer mener" in review, review
    assert "Vous\u00a0: précision" in review and "Pli 1, vous\u00a0: " in review, review
    graph = page.locator("svg.review-graph")
    label = graph.get_attribute("aria-label") or ""
    assert re.search(r"\bvous en (haut|bas)\b", label), label
    everything = page.locator("main").inner_text() + label
    assert "Joueur" not in everything, everything
    # their move played: the step line speaks to them too (« Vous jouez », never « Vous joue »)
    page.keyboard.press("ArrowRight")
    board = page.locator("#board").inner_text()
    assert re.search(r"Pli 1\u00a0: Vous jouez ", board) and "Joueur" not in board, board


def test_another_browser_still_reads_the_player_in_the_third_person(
    page: Page, game: tuple[LiveServer, dict[str, Any], list[dict[str, Any]]]
) -> None:
    # who did not play the game is not « vous »: « Joueur », as the history says
    server, g, decisions = game
    _open(page, server, g, held=False)
    _go_to_first_decision(page, decisions)
    review = page.locator("#review").inner_text()
    assert "À Joueur de choisir" in review and "vous" not in review.lower(), review


def test_each_mark_on_the_graph_has_its_own_shape_and_the_legend_names_it(
    page: Page, game: tuple[LiveServer, dict[str, Any], list[dict[str, Any]]]
) -> None:
    server, g, _ = game
    _open(page, server, g, held=True)
    shapes = {m: page.locator(f"svg.review-graph .review-dot.review-{m}").evaluate("n => n.tagName")
              for m in MARKS if m}
    assert len(set(shapes.values())) == 3, shapes
    legend = page.locator(".review-legend").inner_text()
    for words in ("?! imprécision", "? erreur", "?? gaffe"):
        assert words in legend, legend
    assert len({page.locator(f".review-key.review-{m}").inner_text()[0] for m in MARKS if m}) == 3


def test_the_graph_is_reached_by_tab_and_stepped_with_the_arrow_keys(
    page: Page, game: tuple[LiveServer, dict[str, Any], list[dict[str, Any]]]
) -> None:
    server, g, decisions = game
    _open(page, server, g, held=True)
    on_graph = "() => document.activeElement && document.activeElement.matches('svg.review-graph')"
    page.locator("body").focus()
    for _ in range(60):
        page.keyboard.press("Tab")
        if page.evaluate(on_graph):
            break
    assert page.evaluate(on_graph), "Tab never reaches the graph"
    graph = page.locator("svg.review-graph")
    assert graph.get_attribute("role") == "slider"
    assert graph.get_attribute("aria-label")
    assert graph.get_attribute("aria-valuemax") == str(len(decisions))

    def position() -> tuple[int, int]:
        deal = page.locator("#deal-select").input_value()
        return int(deal), int(page.locator("#slider").input_value())

    # each arrow goes to the next or the previous decision, as a click there does,
    # and the keyboard stays on the graph (it is drawn anew at each step)
    page.keyboard.press("Home")
    assert position() == (0, decisions[0]["action"])
    for i in range(1, len(decisions)):
        page.keyboard.press("ArrowRight")
        assert position() == (0, decisions[i]["action"]), i
        assert page.evaluate(on_graph)
        assert graph.get_attribute("aria-valuenow") == str(i + 1)
    page.keyboard.press("ArrowLeft")
    assert position() == (0, decisions[-2]["action"])
    page.keyboard.press("End")
    assert position() == (0, decisions[-1]["action"])
    text = graph.get_attribute("aria-valuetext") or ""
    assert text.startswith("donne 1, pli ") and "vous" in text, text
    page.keyboard.press("Home")
    assert "?! (imprécision)" in (graph.get_attribute("aria-valuetext") or "")
    if AXE.exists():
        assert axe_problems(page) == []


@pytest.mark.parametrize("held", [True, False])
def test_the_forfeit_banner_speaks_to_the_player_who_resigned_in_their_browser(
    page: Page, tmp_path: Path, held: bool
) -> None:
    # the banner said « Joueur a abandonné » in the very browser that resigned,
    # where the rest of the page says « Vous »
    with live_server(fast_config(tmp_path / "games.sqlite3")) as server:
        server.app.state.hub.rng = random.Random(2)
        game = server.new_game(
            mode="bot", level="beginner", rules={"profile": "classic", "target": 1000}
        )
        with Client.open(server, game["id"], {"type": "hello", "token": game["token"]}) as me:
            play_until(me, lambda s: bool(s["deal_over"]), random.Random(3))
            me.send({"type": "resign"})
            me.recv_until(lambda m: m["type"] == "state" and m["match_over"])
        if held:
            seats = {game["id"]: {"seat": game["seat"], "token": game["token"]}}
            stored = json.dumps(json.dumps(seats))
            page.add_init_script(f"localStorage.setItem('marjolet.seats', {stored})")
        page.goto(f"{server.base}/replay?game={game['id']}")
        page.wait_for_selector("#partial:not([hidden])")
        banner = page.locator("#partial").inner_text()
    if held:
        assert banner.startswith("Vous avez abandonné\u00a0: "), banner
        assert "Joueur" not in banner, banner
    else:
        assert banner.startswith("Joueur a abandonné\u00a0: "), banner
        assert "vous" not in banner.lower(), banner
