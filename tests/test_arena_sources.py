"""Where a pairing's deal margin comes from (``marjolet arena --sources``,
``marjolet.arena.sources``): the split by source of the points."""

from __future__ import annotations

import json
import math
import sqlite3
from collections.abc import Sequence
from pathlib import Path

import pytest

from cli_support import run_main
from marjolet.arena import ArenaStore, run_arena
from marjolet.arena.sources import SOURCES, deal_sources, run_sources
from marjolet.bots import Bot, make_bot, register
from marjolet.bots.base import BotFault
from marjolet.cards import CARD_POINTS, mask_cards
from marjolet.engine import Deal
from marjolet.match import seeded_deck
from marjolet.observation import Observation, observe
from marjolet.record import loads
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
        assert split is not None
        assert [s.source for s in split.sources] == [key for key, _ in SOURCES]
        assert pairing.margin is not None
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
    margin = result.pairings[0].margin
    assert split is not None
    assert margin is not None and math.isclose(split.total.margin, margin, abs_tol=1e-9)


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
    assert code != 0 and "arena run 1: 2/2 matches" in out  # the figures first
    assert "where the deal margin comes from" not in out
    assert err.count("\n") == 1 and "Traceback" not in err
    assert "pairing 0 pair 0 game 1: deal 0 of its record replays to" in err
    assert f"not the stored {first[0][0]}-{first[0][1]}" in err


class LateForfeit(Bot):
    """Breaks down in the second deal of a match: the record ends in a deal
    that was not finished."""

    name = "test-sources-late-forfeit"

    def choose(self, obs: Observation, legal: Sequence[int]) -> int:
        if obs.deal_index == 1 and obs.tricks_played > 3:
            raise BotFault("answered 'banana' (not an action)")
        return legal[0]


class EarlyForfeit(Bot):
    """Breaks down in the first deal: no deal of the match is finished."""

    name = "test-sources-early-forfeit"

    def choose(self, obs: Observation, legal: Sequence[int]) -> int:
        if obs.tricks_played > 2:
            raise BotFault("answered 'banana' (not an action)")
        return legal[0]


register(LateForfeit.name, LateForfeit)
register(EarlyForfeit.name, EarlyForfeit)


def test_a_forfeited_match_counts_its_finished_deals_not_the_one_it_broke_in(
    tmp_path: Path,
) -> None:
    db = tmp_path / "f.db"
    result = run_arena(["heuristic", LateForfeit.name], matches=4, seed=6, db=db)
    assert result.pairings[0].forfeits == (0, 4)
    with ArenaStore(db, read_only=True) as store:
        assert result.run_id is not None
        outcomes = list(store.outcomes(result.run_id))
        ((_, split),) = run_sources(result, outcomes)
    assert all(len(loads(o.record).deals) == len(o.deal_points) + 1 for o in outcomes)
    assert split is not None and result.pairings[0].margin is not None
    assert math.isclose(split.total.margin, result.pairings[0].margin, abs_tol=1e-9)


def test_a_pairing_with_no_finished_deal_has_no_margin_and_says_so(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    db = str(tmp_path / "e.db")
    code, out, err = _run(capsys, "random", EarlyForfeit.name, "--matches", "2", "--seed", "1",
                          "--db", db, "--quiet", "--workers", "1", "--sources")
    assert code == 0, err
    assert "2-0  100.0% [34.2, 100.0]  n/a" in out
    assert f"random vs {EarlyForfeit.name}: no deal was finished" in out
    code, text, _ = _run(capsys, "report", "--db", db, "--sources", "--json")
    data = json.loads(text)
    assert data["pairings"][0]["margin"] is None and data["pairings"][0]["deals"] == 0
    assert data["sources"][0]["deal_margin"] == {"margin": None, "margin_ci": None}


def test_resume_of_a_finished_run_leaves_the_database_as_it_was(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    db = tmp_path / "d.db"
    run_arena(["random", "random"], matches=2, seed=3, db=db)
    before = db.read_bytes()
    code, out, err = _run(capsys, "--resume", "1", "--db", str(db), "--quiet")
    assert code == 0 and "arena run 1: 2/2 matches" in out
    assert err == (
        "marjolet: run 1 was finished already: nothing was played, the database is as it was\n"
    )
    assert "saved as" not in out
    assert db.read_bytes() == before
