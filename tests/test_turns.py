"""The turn driver: one checked path for every seat (marjolet.turns)."""

from __future__ import annotations

import random
from collections.abc import Sequence

import pytest

from marjolet.bots import Bot
from marjolet.engine import Deal
from marjolet.errors import IllegalActionError, IllegalTurnError, TurnError
from marjolet.match import Match
from marjolet.observation import Observation
from marjolet.rules import CLASSIC
from marjolet.turns import TurnDriver, checked_choice, match_version, play_match


class Recorder:
    """A seat that plays at random from its own seed and remembers what it saw."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.seen: list[Observation] = []

    def choose(self, obs: Observation, legal: Sequence[int]) -> int:
        self.seen.append(obs)
        return legal[self.rng.randrange(len(legal))]


def started(seed: int = 3) -> TurnDriver:
    driver = TurnDriver(Match(CLASSIC, seed=seed))
    driver.start_deal()
    return driver


def test_turn_names_the_seat_to_act_with_its_own_observation_and_legal_actions() -> None:
    driver = started()
    deal = driver.match.deal
    assert deal is not None
    turn = driver.turn()
    assert turn is not None
    assert turn.seat == deal.to_move == deal.dealer ^ 1  # R3: the elder leads
    assert turn.observation.seat == turn.seat
    assert turn.observation.hand == deal.hand(turn.seat)
    assert list(turn.legal) == deal.legal_actions()


def test_version_counts_deals_and_actions_and_survives_a_reload() -> None:
    driver = started()
    for _ in range(7):
        turn = driver.turn()
        assert turn is not None
        driver.submit(turn.legal[0], turn.version)
    assert driver.version == 1 + 7
    assert TurnDriver(driver.match).version == driver.version == match_version(driver.match)


def test_a_stale_answer_is_refused_and_changes_nothing() -> None:
    driver = started()
    turn = driver.turn()
    assert turn is not None
    driver.submit(turn.legal[0], turn.version)
    deal = driver.match.deal
    assert deal is not None
    before = deal.copy()
    again = driver.turn()
    assert again is not None
    with pytest.raises(TurnError) as info:
        driver.submit(again.legal[0], turn.version)
    assert info.value.code == "stale"
    assert deal == before and driver.version == again.version


def test_an_answer_from_the_wrong_seat_is_refused() -> None:
    driver = started()
    turn = driver.turn()
    assert turn is not None
    with pytest.raises(TurnError) as info:
        driver.submit(turn.legal[0], turn.version, seat=turn.seat ^ 1)
    assert info.value.code == "not_your_turn"


def test_an_illegal_answer_is_refused_with_the_rule_as_data() -> None:
    driver = started()
    turn = driver.turn()
    assert turn is not None
    draw = 45  # no meld window is open before trick 1 (R9)
    refused = driver.refusal(draw, turn.version)
    assert isinstance(refused, IllegalTurnError) and isinstance(refused, IllegalActionError)
    assert (refused.code, refused.rule, refused.action) == ("illegal", "R9", draw)
    # a front end words it (and a draw after trick 10, from the empty stock, otherwise)
    assert refused.why == {"code": "no_window", "player": turn.seat, "stock_empty": False}
    with pytest.raises(IllegalActionError, match="R9"):
        driver.submit(draw, turn.version)
    assert driver.version == turn.version


def test_an_unknown_action_id_has_no_rule_id() -> None:
    deal = Deal(list(range(32)))
    reason = deal.illegal_reason(99)
    assert reason is not None and reason.rule == "" and "99" in reason
    with pytest.raises(IllegalActionError) as info:
        deal.play(99)
    assert info.value.rule == ""


def test_no_turn_between_deals_and_start_deal_moves_the_version() -> None:
    driver = TurnDriver(Match(CLASSIC, seed=1))
    assert driver.turn() is None and driver.needs_deal
    with pytest.raises(TurnError) as info:
        driver.submit(0, driver.version)
    assert info.value.code == "no_turn"
    driver.start_deal()
    assert driver.version == 1 and driver.turn() is not None


def test_a_forfeit_ends_the_match_for_the_other_seat() -> None:
    driver = started()
    turn = driver.turn()
    assert turn is not None
    outcome = driver.forfeit(turn.seat, "the program stopped answering")
    assert (outcome.termination, outcome.winner, outcome.forfeited_by) == (
        "forfeit",
        turn.seat ^ 1,
        turn.seat,
    )
    assert driver.outcome == outcome and driver.is_over and driver.turn() is None
    assert driver.version == turn.version + 1
    with pytest.raises(TurnError) as info:
        driver.submit(turn.legal[0], driver.version)
    assert info.value.code == "match_over"
    with pytest.raises(TurnError):
        driver.start_deal()


def test_only_a_bot_that_sees_hidden_cards_is_briefed_and_with_a_copy() -> None:
    driver = started()
    turn = driver.turn()
    assert turn is not None
    class Peeker(Bot):
        name = "peeker"
        sees_hidden_cards = True
        def __init__(self) -> None:
            super().__init__()
            self.shown: list[Deal] = []

        def see_deal(self, deal: Deal) -> None:
            self.shown.append(deal)

    cheater = Peeker()
    driver.brief(cheater, turn)
    [seen] = cheater.shown
    assert seen == driver.match.deal and seen is not driver.match.deal
    honest = Recorder(1)
    driver.brief(honest, turn)  # nothing to hand over, nothing raised
    driver.submit(turn.legal[0], turn.version)
    with pytest.raises(TurnError, match="stale"):
        driver.brief(cheater, turn)


def test_checked_choice_refuses_an_answer_outside_the_legal_actions() -> None:
    class Stubborn:
        def choose(self, obs: Observation, legal: Sequence[int]) -> int:
            return 45

    driver = started()
    turn = driver.turn()
    assert turn is not None
    with pytest.raises(IllegalTurnError, match="not one of its legal actions"):
        checked_choice(Stubborn(), turn)


def reference_match(seed: int) -> list[list[int]]:
    """The same match played with the engine alone: deal, ask, play."""
    match = Match(CLASSIC.replace(target=200), seed=seed)
    seats = [Recorder(seed), Recorder(seed + 1)]
    while not match.is_over:
        deal = match.start_deal()
        while not deal.is_over:
            seat = deal.to_move
            deal.play(seats[seat].choose(match.observation(seat), deal.legal_actions()))
    return [d.moves for d in match.deals]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_play_match_through_the_driver_plays_the_same_actions_as_the_engine(seed: int) -> None:
    match = Match(CLASSIC.replace(target=200), seed=seed)
    play_match(match, [Recorder(seed), Recorder(seed + 1)])
    assert [d.moves for d in match.deals] == reference_match(seed)
    outcome = match.outcome()
    assert outcome is not None and outcome.termination == "target"
    assert outcome.winner == match.winner and outcome.points == match.totals


def test_a_checked_move_is_pushed_without_checking_the_rules_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    driver = started()
    calls = []
    reason = Deal.illegal_reason

    def counted(deal: Deal, action: int) -> object:
        calls.append(action)
        return reason(deal, action)

    monkeypatch.setattr(Deal, "illegal_reason", counted)
    turn = driver.turn()
    assert turn is not None
    move = driver.check(turn.legal[0], turn.version, turn.seat)
    assert driver.version == turn.version  # checking changes nothing
    played = driver.push(move)
    assert calls == [turn.legal[0]]  # the rules were asked once, by check
    assert (played.seat, played.action) == (turn.seat, move.action)
    assert played.version == move.version + 1


def test_a_checked_move_goes_stale_when_the_position_moves_on() -> None:
    driver = started()
    turn = driver.turn()
    assert turn is not None
    move = driver.check(turn.legal[0], turn.version)
    driver.push(move)
    with pytest.raises(TurnError) as refused:
        driver.push(move)  # the same move again: a position it was not checked in
    assert refused.value.code == "stale"
    assert driver.version == turn.version + 1


def test_a_turn_makes_a_move_only_of_its_legal_actions() -> None:
    driver = started()
    turn = driver.turn()
    assert turn is not None
    illegal = next(a for a in range(46) if a not in turn.legal)
    with pytest.raises(IllegalTurnError):
        turn.move(illegal)
    move = turn.move(turn.legal[-1])
    assert (move.seat, move.version) == (turn.seat, turn.version)
    driver.push(move)
