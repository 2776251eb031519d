"""The exact ending solver (tricks 11-16) against plain minimax and the rules."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from helpers import cards
from marjolet.bots.solver import (
    EndingSolver,
    NotAnEndingError,
    minimax_value,
    representatives,
    solve,
)
from marjolet.cards import parse_card
from marjolet.cli import main
from marjolet.engine import (
    HAND,
    INDICATOR,
    LAST_CARD_TO,
    LAST_WINNER,
    LATE_TRICKS,
    LEAD,
    POINTS,
    SEVEN_BY,
    STATE_SIZE,
    TRICKS,
    TURN,
    Deal,
)
from marjolet.record import Record, save
from marjolet.rules import CLASSIC, ENCYCLOPEDIA, Rules


def mask(text: str) -> int:
    m = 0
    for c in cards(text):
        m |= 1 << c
    return m


def ending(
    hand0: str,
    hand1: str,
    *,
    trump: str = "S",
    to_move: int = 0,
    lead: str | None = None,
    points: tuple[int, int] = (0, 0),
    late: tuple[int, int] = (0, 0),
    seven_by: int = -1,
    rules: Rules = CLASSIC,
) -> Deal:
    """A phase-2 position built directly from its parts. The indicator is a
    card of the trump suit in neither hand (the 8 unless a hand holds it)."""
    h0, h1 = mask(hand0), mask(hand1)
    lead_card = parse_card(lead) if lead else -1
    in_hands = h0 | h1 | (1 << lead_card if lead_card >= 0 else 0)
    suit = "CDHS".index(trump)
    indicator = next(
        suit * 8 + r for r in (1, 2, 3, 4, 5, 6, 7, 0) if not in_hands >> (suit * 8 + r) & 1
    )
    size = max(h0.bit_count(), h1.bit_count())
    state = [0] * STATE_SIZE
    state[HAND], state[HAND + 1] = h0, h1
    state[TRICKS] = 16 - size
    state[LEAD] = lead_card
    state[TURN] = to_move
    state[INDICATOR] = indicator
    state[SEVEN_BY] = seven_by
    state[POINTS], state[POINTS + 1] = points
    state[LATE_TRICKS], state[LATE_TRICKS + 1] = late
    state[LAST_CARD_TO] = 1
    state[LAST_WINNER] = to_move
    return Deal.from_state(rules, 0, indicator, [-1] * 19, state)


def random_ending(rng: random.Random, extra: int, rules: Rules = CLASSIC) -> Deal:
    """A position reached by random legal play: the last draw, then
    ``extra`` more random cards (so mid-trick positions occur)."""
    deck = list(range(32))
    rng.shuffle(deck)
    deal = Deal(deck, rng.randrange(2), rules)
    while not deal.stock_empty:
        deal.push(rng.choice(deal.legal_actions()))
    for _ in range(extra):
        deal.push(rng.choice(deal.legal_actions()))
    return deal


def minimax_action_value(deal: Deal, action: int) -> int:
    me = deal.to_move
    deal.push(action)
    try:
        if deal.is_over:
            return deal.points[me] - deal.points[me ^ 1]
        v = minimax_value(deal)
        return v if deal.to_move == me else -v
    finally:
        deal.pop()


# -- agreement with plain minimax --------------------------------------------------


ENDING_RULES = {
    "classic": CLASSIC,
    "encyclopedia": ENCYCLOPEDIA,
    "no-bonus": CLASSIC.replace(all_tricks_bonus=0),
    "bonus-1000-no-dix-on-play": CLASSIC.replace(all_tricks_bonus=1000, dix_on_play=False),
}


@pytest.mark.parametrize("rules", ENDING_RULES.values(), ids=ENDING_RULES.keys())
def test_solver_value_and_best_set_agree_with_plain_minimax_on_random_endings(rules: Rules) -> None:
    rng = random.Random(20240501 + rules.all_tricks_bonus)
    for i in range(60):
        extra = 0 if i % 6 == 0 else rng.randrange(1, 11)
        deal = random_ending(rng, extra, rules)
        solution = solve(deal)
        # plain minimax's value is the best of its actions' values: one search
        # of each action (the whole tree once) gives both
        values = {a: minimax_action_value(deal, a) for a in deal.legal_actions()}
        assert solution.value == max(values.values()), f"ending {i}: {deal!r}"
        optimal = {a for a, v in values.items() if v == solution.value}
        assert set(solution.best) == optimal, f"ending {i}: {deal!r}"
        assert values == EndingSolver.for_deal(deal).exact_values(deal)


def test_solver_reuses_its_table_across_positions_of_one_deal() -> None:
    rng = random.Random(7)
    deal = random_ending(rng, 0)
    solver = EndingSolver.for_deal(deal)
    while not deal.is_over:
        assert solver.solve(deal).value == minimax_value(deal)
        deal.push(solver.solve(deal).best[0])


# -- what the value counts (R15-R21) -----------------------------------------------


def test_r17_sweep_of_all_six_tricks_counts_last_trick_and_bonus() -> None:
    deal = ending("AS TS KS QS JS 9S", "AH TH KH AD 9C 8C")
    # player 0 wins every trick: 20 of its own points, 30 captured, 10 + 50 (R17)
    assert solve(deal).value == 20 + 30 + 10 + 50


def test_r17_encyclopedia_all_six_bonus_is_40() -> None:
    deal = ending("AS TS KS QS JS 9S", "AH TH KH AD 9C 8C", rules=ENCYCLOPEDIA)
    assert solve(deal).value == 20 + 30 + 10 + 40


def test_r17_no_all_six_bonus_once_the_opponent_has_a_late_trick() -> None:
    deal = ending("AS TS KS QS", "AH TH 9C 8C", late=(1, 1))
    assert solve(deal).value == 20 + 20 + 10


def test_value_counts_points_already_scored_in_the_deal() -> None:
    base = solve(ending("AS TS KS QS", "AH TH 9C 8C", late=(1, 1))).value
    later = solve(ending("AS TS KS QS", "AH TH 9C 8C", late=(1, 1), points=(130, 90))).value
    assert later == base + 40
    # and it is always the player to move's side
    other = solve(ending("AH TH 9C 8C", "AS TS KS QS", late=(1, 1), to_move=1, points=(90, 130)))
    assert other.value == later and other.to_move == 1


def test_r19_unexchanged_seven_scores_for_whoever_plays_it_even_when_losing() -> None:
    # player 1's seven of trumps is its only card: it loses the trick but scores 10
    with_seven = solve(ending("AS", "7S", late=(1, 4)))
    assert with_seven.value == (10 + 10) - 10
    assert minimax_value(ending("AS", "7S", late=(1, 4))) == with_seven.value


def test_r20_a_seven_that_already_earned_its_10_scores_nothing_when_played() -> None:
    assert solve(ending("AS", "7S", late=(1, 4), seven_by=1)).value == 20


def test_r19_encyclopedia_seven_scores_nothing_when_played() -> None:
    assert solve(ending("AS", "7S", late=(1, 4), rules=ENCYCLOPEDIA)).value == 20


def test_r16_mid_trick_position_is_solved_from_the_follower_side() -> None:
    # player 0 led AH; player 1 must follow with a heart and cannot beat it
    # player 0 led AH and keeps 8H: saving the ten for the last trick wins it
    deal = ending("8H", "TH 9H", lead="AH", to_move=1, late=(2, 2))
    solution = solve(deal)
    assert solution.to_move == 1
    assert solution.value == minimax_value(deal)
    assert set(solution.best) == {parse_card("9H")}


def test_solver_refuses_a_position_before_the_stock_is_empty() -> None:
    deal = Deal(list(range(32)), 0)
    with pytest.raises(NotAnEndingError, match="stock is not empty"):
        solve(deal)


def test_ties_between_optimal_cards_prefer_the_lowest_card() -> None:
    # every card wins (player 1 is void of trumps... and must discard) - equal values
    deal = ending("AS KS", "9C 8C", late=(3, 1))
    solution = solve(deal)
    assert set(solution.best) == {parse_card("AS"), parse_card("KS")}
    assert solution.best[0] == parse_card("KS")


def test_equivalent_cards_collapse_to_one_representative() -> None:
    # A and 10 of clubs touch (same points): one is enough; K and 9 of clubs
    # with the queen and jack in the other hand do not touch
    own = mask("AC TC KC 9C")
    others = mask("QC JC")
    reps = representatives(own, others, trump=3, seven_pending=False)
    assert reps == mask("AC KC 9C")
    # the pending seven of trumps is never merged with the eight
    assert representatives(mask("8S 7S"), 0, trump=3, seven_pending=True) == mask("8S 7S")
    assert representatives(mask("8S 7S"), 0, trump=3, seven_pending=False) == mask("8S")


# -- marjolet solve ------------------------------------------------------------------


def _ending_record(tmp_path: Path, extra: int = 1) -> tuple[Path, Deal]:
    rng = random.Random(11)
    deck = list(range(32))
    rng.shuffle(deck)
    deal = Deal(deck, 0)
    while not deal.stock_empty:
        deal.push(rng.choice(deal.legal_actions()))
    for _ in range(extra):
        deal.push(rng.choice(deal.legal_actions()))
    from marjolet.record import DealRecord

    record = Record(CLASSIC, 0, None, (DealRecord(tuple(deck), tuple(deal.moves)),))
    path = tmp_path / "ending.json"
    save(record, path)
    return path, deal


def test_solve_command_prints_value_and_best_cards_as_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, deal = _ending_record(tmp_path)
    assert main(["solve", str(path), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    solution = solve(deal)
    assert out == solution.to_json()
    assert out["value"] == minimax_value(deal)
    assert set(out) == {"to_move", "value", "best"}


def test_solve_command_text_output_names_the_best_cards(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, _ = _ending_record(tmp_path, extra=0)
    assert main(["solve", str(path)]) == 0
    out = capsys.readouterr().out
    assert "best:" in out and "value" in out


def test_solve_command_rejects_a_record_before_trick_11(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from marjolet.record import DealRecord

    path = tmp_path / "early.json"
    save(Record(CLASSIC, 0, None, (DealRecord(tuple(range(32)), ()),)), path)
    with pytest.raises(SystemExit) as exc:
        main(["solve", str(path)])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "tricks 11-16" in err


def test_solve_command_reports_a_missing_file_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["solve", str(tmp_path / "nope.json")])
    assert exc.value.code == 2
    assert capsys.readouterr().err.startswith("marjolet: error:")
