"""What the browser is told, computed incrementally: the step log of a live
table adds one engine push per new move and agrees with the public history
walk; phase and melds come from the engine (web/views.py)."""

from __future__ import annotations

import random

import pytest

from marjolet.cards import CARD_NAMES
from marjolet.engine import Deal
from marjolet.history import walk
from marjolet.match import Match
from marjolet.web import views


def played_deal(seed: int) -> tuple[Deal, list[int]]:
    """A random deal, with its moves, played to the end."""
    match = Match(seed=seed)
    deal = match.start_deal()
    rng = random.Random(seed)
    moves = []
    while not deal.is_over:
        action = rng.choice(deal.legal_actions())
        moves.append(action)
        match.play(action)
    return deal, moves


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_step_log_agrees_with_the_public_history_and_the_score(seed: int) -> None:
    deal, moves = played_deal(seed)
    steps = views.deal_steps(deal)
    walked = list(walk(moves, deal.dealer, deal.trump))
    assert [(s.player, s.action, s.trick, s.won_by) for s in steps] == [
        (w.player, w.action, w.trick, w.winner) for w in walked
    ]
    seven = 10 if deal.turned_up == deal.seven else 0  # R18: scored before any move
    gained = [sum(s.gain[p] for s in steps) for p in (0, 1)]
    gained[deal.dealer] += seven
    assert tuple(gained) == deal.points


def test_the_step_log_pushes_each_move_once_however_often_it_is_asked(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    match = Match(seed=4)
    deal = match.start_deal()
    log = views.StepLog(deal)
    pushes = 0
    push = Deal.push

    def counted(self: Deal, action: int) -> None:
        nonlocal pushes
        if self is log.replay:
            pushes += 1
        push(self, action)

    monkeypatch.setattr(Deal, "push", counted)
    rng = random.Random(4)
    while not deal.is_over:
        match.play(rng.choice(deal.legal_actions()))
        for _ in range(3):  # every connection asks for its picture
            log.update(deal)
    assert pushes == len(deal.moves)
    assert log.update(deal) == views.deal_steps(deal)


def test_a_new_deal_starts_the_step_log_again() -> None:
    match = Match(seed=5)
    first = match.start_deal()
    log = views.StepLog(first)
    rng = random.Random(5)
    while not first.is_over:
        match.play(rng.choice(first.legal_actions()))
    assert len(log.update(first)) == len(first.moves)
    second = match.start_deal()
    assert log.update(second) == []


def test_phase_and_melds_are_the_engines() -> None:
    match = Match(seed=6)
    deal = match.start_deal()
    rng = random.Random(6)
    while not deal.is_over:
        view = views.open_view(match)
        assert view["phase"] == deal.phase
        for player in (0, 1):
            shown = {m["id"] for m in view["melds"][player]}
            assert shown == set(deal.melds_scored(player))
        match.play(rng.choice(deal.legal_actions()))


def test_a_jack_queen_meld_lists_the_jack_first_as_a_marriage_lists_the_king() -> None:
    from helpers import new_deal
    from marjolet.actions import parse_action

    d = new_deal("AH JH QC KS QS 9C", "7D 8D 9D JD TD KD", "TH", "8H 9H", dealer_seat=1)
    for text in ("AH", "7D"):  # the ace of trumps wins trick 1: a meld window
        d.play(parse_action(text))
    melds = {c["meld"]: c for c in views.legal_choices(d, d.legal_actions()) if c["kind"] == "meld"}
    assert melds["JQC"]["cards"] == ["JH", "QC"] and melds["JQC"]["label"].startswith("J♥-Q♣")
    assert melds["KQS"]["cards"] == ["KS", "QS"] and melds["KQS"]["label"].startswith("K♠-Q♠")


def _duty(view: dict[str, object]) -> str:
    """R16 worked out here from the picture alone, independently of the
    engine: beat the card led if possible, else follow its suit, else trump,
    else any card."""
    lead = str(view["lead"])
    hand = view["hands"][view["seat"]]["cards"]  # type: ignore[index]
    ranks = "789JQKTA"
    same = [c for c in hand if c[1] == lead[1]]
    if same:
        higher = [c for c in same if ranks.index(c[0]) > ranks.index(lead[0])]
        return "overtake" if higher else "follow"
    return "trump" if any(c[1] == view["trump"] for c in hand) else "any"


SEEDS = (4, 5, 6, 7, 8, 9)


def _held_back_reasons(seed: int) -> set[str]:
    """Play three seeded random deals, checking at every position why each
    card of the hand to act is held back; return the reasons met."""
    match = Match(seed=seed)
    rng = random.Random(seed)
    met: set[str] = set()
    for _ in range(3):
        deal = match.start_deal()
        while not deal.is_over:
            seat = deal.to_move
            view = views.seat_view(match, seat)
            legal = deal.legal_actions()
            cards = set(view["hands"][seat]["cards"])
            assert set(view["blocked"]) == cards - {CARD_NAMES[a] for a in legal if a < 32}
            for name, why in view["blocked"].items():
                reason = deal.illegal_reason(CARD_NAMES.index(name))
                assert reason is not None
                expected = "window" if reason.rule == "R9/R10" else _duty(view)
                assert reason.rule in ("R9/R10", "R16") and why == expected, (name, why, reason)
                met.add(why)
            if view["blocked"] and not view["in_window"]:
                assert view["must_play"] == views.names(sum(1 << a for a in legal if a < 32))
            else:
                assert view["must_play"] == []
            # the duty the prompt states (tricks 11-16, following), held back or not
            following = not view["in_window"] and not view["stock"] and view["lead"]
            assert view["duty"] == (_duty(view) if following else None)
            other = views.seat_view(match, seat ^ 1)
            assert other["blocked"] == {} and other["must_play"] == []
            assert other["duty"] is None
            match.play(rng.choice(legal))
        if match.is_over:
            break
    return met


@pytest.mark.parametrize("seed", SEEDS)
def test_a_held_back_card_is_explained_by_the_engines_rule_never_by_a_copy_of_it(
    seed: int,
) -> None:
    """The page words why a card is held back from what the view says: the
    meld window (R9/R10) or the duty of tricks 11-16 with the cards it
    leaves (R16, marjolet.engine.r16_duty); the page keeps no copy of R16."""
    assert _held_back_reasons(seed)


def test_every_reason_a_card_is_held_back_is_met() -> None:
    """The seeds above meet the window and the three duties of R16."""
    met = set().union(*(_held_back_reasons(seed) for seed in SEEDS))
    assert met == {"window", "overtake", "follow", "trump"}
