"""Where a pairing's deal margin comes from (``marjolet arena --sources``,
``marjolet.arena.sources``): the split by source of the points."""

from __future__ import annotations

import json
import math
import sqlite3
from pathlib import Path

import pytest

from cli_support import run_main
from marjolet.arena import ArenaStore, run_arena
from marjolet.arena.sources import SOURCES, deal_sources, run_sources
from marjolet.bots import make_bot
from marjolet.cards import CARD_POINTS, mask_cards
from marjolet.engine import Deal
from marjolet.match import seeded_deck
from marjolet.observation import observe
from marjolet.rules import CLASSIC


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    return run_main(["arena", *argv], capsys)


def test_the_sources_add_up_to_each_pairing_deal_margin(tmp_path: Path) -> None:
    db = tmp_path / "a.db"
    result = run_arena(["heuristic", "random", "novice"], matches=4, seed=3, db=db)
    with ArenaStore(db, read_only=True) as store:
        assert result.run_id is not None
        splits = run_sources(result, store.outcomes(result.run_id))
    assert [bots for bots, _ in splits] == [p.bots for p in result.pairings]
    for pairing, (_, split) in zip(result.pairings, splits, strict=True):
        assert [s.source for s in split.sources] == [key for key, _ in SOURCES]
        assert math.isclose(sum(s.margin for s in split.sources), pairing.margin, abs_tol=1e-9)
        assert math.isclose(split.total.margin, pairing.margin, abs_tol=1e-9)
        assert split.total.margin_ci == pytest.approx(pairing.margin_ci)


def _phase1_cards_by_trick(deal: Deal, actions: list[int]) -> list[int]:
    """Each seat's points of the cards it won in tricks 1-10, counted trick
    by trick from the cards each seat's won set gains."""
    replay = Deal(deal.deck or (), deal.dealer, deal.rules)
    points = [0, 0]
    for action in actions:
        trick = replay.tricks_played
        before = [replay.won(seat).mask for seat in (0, 1)]
        replay.push(action)
        if replay.tricks_played > trick and trick < 10:
            for seat in (0, 1):
                gained = replay.won(seat).mask & ~before[seat]
                points[seat] += sum(CARD_POINTS[c] for c in mask_cards(gained))
    return points


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_the_cards_of_tricks_1_to_10_are_those_won_before_the_stock_empties(seed: int) -> None:
    deal = Deal(seeded_deck(seed, 0), seed & 1, CLASSIC)
    bots = [make_bot("heuristic", seed=seed), make_bot("heuristic", seed=seed + 1)]
    while not deal.is_over:
        seat = deal.to_move
        deal.push(bots[seat].choose(observe(deal, seat), deal.legal_actions()))
    played, split = deal_sources(deal.deck or (), deal.dealer, CLASSIC, deal.moves)
    assert played.state == deal.state
    by_trick = _phase1_cards_by_trick(deal, deal.moves)
    assert [split[seat]["cards_phase1"] for seat in (0, 1)] == by_trick
    for seat in (0, 1):
        bd = deal.breakdown(seat)
        assert split[seat]["cards_phase1"] + split[seat]["cards_phase2"] == bd.cards
        assert sum(split[seat].values()) == bd.total


def test_report_and_run_print_the_split_as_text_and_json(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    db = str(tmp_path / "a.db")
    code, out, err = _run(capsys, "heuristic", "random", "--matches", "2", "--seed", "4",
                          "--db", db, "--quiet", "--sources")
    assert code == 0, err
    assert "where the deal margin comes from, heuristic vs random" in out
    for _, words in SOURCES:
        assert f"  {words}" in out
    code, report, _ = _run(capsys, "report", "--db", db, "--sources")
    assert code == 0
    assert report.split("\n\n")[2] == out.split("\n\n")[2]  # the same split, run or report
    code, text, _ = _run(capsys, "report", "--db", db, "--run", "1", "--sources", "--json")
    data = json.loads(text)
    (split,) = data["sources"]
    assert split["bots"] == ["heuristic", "random"]
    assert set(split) == {"bots", "deal_margin", *(key for key, _ in SOURCES)}
    assert split["deal_margin"]["margin"] == round(data["pairings"][0]["margin"], 2)


def test_after_an_sprt_decision_the_split_counts_the_pairs_decided_on(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    result = run_arena(["heuristic", "random"], matches=60, seed=2, db=db, sprt=(0.0, 200.0))
    assert result.sprt is not None and result.sprt.decision == "H1"
    with ArenaStore(db, read_only=True) as store:
        assert result.run_id is not None
        ((_, split),) = run_sources(result, store.outcomes(result.run_id))
    assert math.isclose(split.total.margin, result.pairings[0].margin, abs_tol=1e-9)


def test_sources_need_the_database(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(capsys, "random", "random", "--no-db", "--sources", "--quiet")
    assert code == 2 and out == ""
    assert err == (
        "marjolet: error: --sources needs the database to read the matches (not --no-db)\n"
    )


def test_a_stored_match_whose_record_does_not_give_its_points_is_named_in_one_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    db = tmp_path / "a.db"
    run_arena(["heuristic", "random"], matches=2, seed=5, db=db)
    with sqlite3.connect(db) as con:
        (points,) = con.execute(
            "SELECT deal_points FROM matches WHERE pair=0 AND game=1"
        ).fetchone()
        first = json.loads(points)
        first[0][0] += 10
        con.execute("UPDATE matches SET deal_points=? WHERE pair=0 AND game=1",
                    (json.dumps(first),))
    code, out, err = _run(capsys, "report", "--db", str(db), "--sources")
    assert code != 0 and out == ""
    assert err.count("\n") == 1 and "Traceback" not in err
    assert "match 2 of pair 1 of pairing 1: deal 1 of its record replays to" in err
    assert f"not the stored {first[0][0]}-{first[0][1]}" in err
