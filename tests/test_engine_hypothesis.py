"""Properties over whole decks and rule sets drawn by Hypothesis, and a
state machine for push/pop/copy."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    Bundle,
    RuleBasedStateMachine,
    consumes,
    initialize,
    invariant,
    precondition,
    rule,
)

from marjolet.decks import deck_for
from marjolet.engine import STOCK_CARDS, Deal
from marjolet.history import draws, tricks, walk
from marjolet.observation import observe
from marjolet.rules import DEAL_PATTERNS, JACK_QUEEN_MODES, PROFILES, Rules

decks = st.permutations(range(32))
rule_sets = st.builds(
    lambda profile, **changes: PROFILES[profile].replace(**changes),
    st.sampled_from(sorted(PROFILES)),
    deal_pattern=st.sampled_from(DEAL_PATTERNS),
    all_tricks_bonus=st.sampled_from([0, 40, 50]),
    dix_on_play=st.booleans(),
    jack_queen=st.sampled_from(JACK_QUEEN_MODES),
    one_meld_per_window=st.booleans(),
)
dealers = st.integers(0, 1)


def played(deck: list[int], dealer: int, rules: Rules, seed: int, stop: int = 999) -> Deal:
    """The deal of ``deck`` played at random (seeded) for up to ``stop`` actions."""
    rng = random.Random(seed)
    deal = Deal(deck, dealer, rules)
    while not deal.is_over and len(deal.moves) < stop:
        legal = deal.legal_actions()
        deal.push(legal[rng.randrange(len(legal))])
    return deal


@settings(max_examples=40, deadline=None)
@given(decks, dealers, rule_sets, st.integers(0, 2**16))
def test_the_history_walk_agrees_with_the_engine_at_every_action(
    deck: list[int], dealer: int, rules: Rules, seed: int
) -> None:
    deal = played(deck, dealer, rules, seed)
    replay = Deal(deck, dealer, rules)
    for step in walk(deal.moves, dealer, deal.trump):
        assert step.player == replay.to_move
        assert step.trick == replay.trick_number
        replay.push(step.action)
        if step.winner is not None:
            assert step.winner == replay.last_trick_winner
    assert len(tricks(deal.moves, dealer, deal.trump)) == 16
    for p in (0, 1):
        positions = [pos for _, who, pos in draws(deal.moves, dealer, deal.trump) if who == p]
        assert len(positions) == len(deal.draws(p))


@settings(max_examples=40, deadline=None)
@given(decks, dealers, rule_sets, st.integers(0, 2**16), st.integers(0, 120))
def test_notation_round_trips_any_position(
    deck: list[int], dealer: int, rules: Rules, seed: int, stop: int
) -> None:
    deal = played(deck, dealer, rules, seed, stop)
    again = Deal.from_notation(deal.notation())
    assert again == deal and again.notation() == deal.notation()
    assert eval(repr(deal), {"Deal": Deal}) == deal


@settings(max_examples=30, deadline=None)
@given(decks, dealers, rule_sets, st.integers(0, 2**16), st.integers(0, 120))
def test_a_consistent_deck_replays_to_the_same_observation(
    deck: list[int], dealer: int, rules: Rules, seed: int, stop: int
) -> None:
    deal = played(deck, dealer, rules, seed, stop)
    for seat in (0, 1):
        obs = observe(deal, seat)
        other = Deal(deck_for(obs, random.Random(seed)), dealer, rules)
        for a in deal.moves:
            other.play(a)
        again = observe(other, seat)
        assert (again.hand, again.draws, again.public_state, again.unseen) == (
            obs.hand,
            obs.draws,
            obs.public_state,
            obs.unseen,
        )


@settings(max_examples=40, deadline=None)
@given(decks, dealers, rule_sets, st.integers(0, 2**16))
def test_outcome_names_the_higher_score(
    deck: list[int], dealer: int, rules: Rules, seed: int
) -> None:
    deal = played(deck, dealer, rules, seed)
    outcome = deal.outcome()
    assert outcome is not None and outcome.points == deal.points
    p0, p1 = deal.points
    assert outcome.winner == (None if p0 == p1 else int(p1 > p0))


class PushPopCopy(RuleBasedStateMachine):
    """Random pushes, pops and copies of one deal: every copy keeps the
    position it was taken at, whatever happens to the original, and a pop
    restores exactly the position before the push."""

    copies = Bundle("copies")

    @initialize(deck=decks, dealer=dealers, rules=rule_sets)
    def deal_out(self, deck: list[int], dealer: int, rules: Rules) -> None:
        self.deal = Deal(deck, dealer, rules)
        self.history: list[tuple[tuple[int, ...], list[int]]] = []

    @precondition(lambda self: not self.deal.is_over)
    @rule(pick=st.integers(0, 45))
    def push(self, pick: int) -> None:
        legal = self.deal.legal_actions()
        self.history.append((self.deal.state, self.deal.moves))
        self.deal.push(legal[pick % len(legal)])

    @precondition(lambda self: bool(self.history))
    @rule()
    def pop(self) -> None:
        last = self.deal.peek()
        assert self.deal.pop() == last
        assert (self.deal.state, self.deal.moves) == self.history.pop()

    @rule(target=copies)
    def copy(self) -> tuple[Deal, tuple[int, ...], list[int]]:
        return (self.deal.copy(), self.deal.state, self.deal.moves)

    @rule(kept=consumes(copies))
    def copies_keep_their_position(self, kept: tuple[Deal, tuple[int, ...], list[int]]) -> None:
        deal, state, moves = kept
        assert (deal.state, deal.moves) == (state, moves)
        if not deal.is_over:  # a copy plays on by itself
            deal.push(deal.legal_actions()[0])
            assert deal.moves == [*moves, deal.peek()]

    @invariant()
    def legal_actions_are_legal(self) -> None:
        if hasattr(self, "deal"):
            legal = self.deal.legal
            assert all(self.deal.is_legal(a) for a in legal)
            assert len(legal) == len(set(legal)) and (len(legal) == 0) == self.deal.is_over


PushPopCopy.TestCase.settings = settings(max_examples=40, stateful_step_count=60, deadline=None)
test_push_pop_copy_state_machine = PushPopCopy.TestCase


@settings(max_examples=40, deadline=None)
@given(decks, dealers, rule_sets, st.integers(0, 2**16), st.integers(0, 120))
def test_a_deals_draws_read_from_its_undo_stack_are_the_history_walks(
    deck: list[int], dealer: int, rules: Rules, seed: int, stop: int
) -> None:
    """``Deal.draws`` reads the drawer of each draw from the undo stack; a
    copy without a stack walks the tricks again; both say what the walk says."""
    deal = played(deck, dealer, rules, seed, stop)
    bare = deal.copy(stack=False)
    for p in (0, 1):
        walked = [
            deal.stock[pos] if pos < STOCK_CARDS else deal.indicator
            for _, who, pos in draws(deal.moves, dealer, deal.trump)
            if who == p
        ]
        assert deal.draws(p) == bare.draws(p) == walked
