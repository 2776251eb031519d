"""The ``best`` bot plays for the match and declares at once: the match-odds
table (R22), the kernel's utility of a world's final deal points, and the
meld-window rule of ``declare=now``."""

from __future__ import annotations

import dataclasses
import itertools
import random
import statistics
from array import array

import pytest

from helpers import phase2_deals
from marjolet.actions import DIX, DRAW, MELD_BASE
from marjolet.bots import BotSpecError, make_bot
from marjolet.bots import best as best_module
from marjolet.bots import match_odds as match_odds_module
from marjolet.bots.best import KERNEL, BestBot, early_positions, world_spec
from marjolet.bots.heuristic import POLICY, public_deal
from marjolet.bots.match_odds import SIZE, STEP, match_odds, outcome_utility, tie_odds
from marjolet.bots.match_odds_data import OUTCOMES
from marjolet.bots.solver import solve
from marjolet.engine import Deal
from marjolet.kernel import kernel_deal
from marjolet.observation import Observation, observe
from marjolet.rules import CLASSIC

needs_kernel = pytest.mark.skipif(KERNEL is None, reason="the C kernel is not built")


@pytest.mark.parametrize(
    "spec", ["best:match=-2", "best:declare=later", "best:declare=", "best:paired=2"]
)
def test_bad_match_and_declare_parameters_are_refused(spec: str) -> None:
    with pytest.raises(BotSpecError):
        make_bot(spec)


# -- the match odds (R22) -------------------------------------------------------------


def test_match_odds_of_the_two_players_add_up_to_one() -> None:
    for x, y in [(0, 0), (120, 300), (450, 480), (490, 10), (250, 250)]:
        for deals_next in (True, False):
            mine = match_odds((x, y), deals_next, 500)
            theirs = match_odds((y, x), not deals_next, 500)
            assert mine + theirs == pytest.approx(1.0, abs=1e-9)
    assert sum(tie_odds()) == pytest.approx(1.0, abs=1e-9)


def test_match_odds_grow_with_my_total_and_end_at_the_target() -> None:
    odds = [match_odds((x, 300), True, 500) for x in range(0, 500, STEP)]
    assert all(a <= b + 1e-12 for a, b in itertools.pairwise(odds))
    assert odds[0] < 0.1 < 0.9 < odds[-1]
    assert match_odds((510, 490), False, 500) == 1.0
    assert match_odds((500, 520), True, 500) == 0.0
    assert match_odds((520, 520), True, 500) == tie_odds()[0]


def test_a_long_match_reads_the_odds_by_the_distances_to_its_target(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The chance depends on the distances to the target only: a match to
    1,000 near its end reads the table of a match to 300 (the horizon,
    lowered here), and a total farther than the horizon counts as that far
    (the table's cost grows with the square of the target)."""
    monkeypatch.setattr(match_odds_module, "HORIZON", 300)
    for deals_next in (True, False):
        assert match_odds((900, 850), deals_next, 1000) == match_odds((200, 150), deals_next, 300)
        assert match_odds((100, 850), deals_next, 1000) == match_odds((0, 150), deals_next, 300)
        assert match_odds((980, 990), deals_next, 1000) == match_odds((280, 290), deals_next, 300)
    assert match_odds((1010, 990), True, 1000) == 1.0  # over: the target itself decides
    monkeypatch.undo()  # within the horizon the shift is exact, not an approximation
    assert match_odds((900, 850), True, 1000) == match_odds((200, 150), True, 300)
    assert match_odds((100, 850), True, 1000) < match_odds((0, 150), True, 300)

def test_a_match_tied_at_the_target_goes_on_with_the_other_player_dealing() -> None:
    """R22: equal totals at or past the target play another deal, dealt by
    the other player (the dealer alternates): from 490-490, the last deal's
    ties are worth the tie odds of the player who does not deal next."""
    total = sum(n for _, _, n in OUTCOMES)
    for i_deal in (True, False):
        expected = 0.0
        for d, o, n in OUTCOMES:
            mine, theirs = (d, o) if i_deal else (o, d)
            if mine == theirs:
                after = tie_odds()[1] if i_deal else tie_odds()[0]  # next dealer: the other
            else:
                after = 1.0 if mine > theirs else 0.0
            expected += n / total * after
        assert match_odds((490, 490), i_deal, 500) == pytest.approx(expected, abs=1e-12)


def test_outcome_utility_rows_are_my_final_deal_points() -> None:
    grid = array("d")
    grid.frombytes(outcome_utility((450, 480), False, 500))
    assert len(grid) == SIZE * SIZE
    # 60 points for me and 0 for the opponent wins the match (510 against 480)
    assert grid[6 * SIZE + 0] == 1.0
    assert grid[0 * SIZE + 3] == 0.0  # 450 against 510: lost
    assert grid[4 * SIZE + 1] == match_odds((490, 490), True, 500)


# -- the kernel's utility ---------------------------------------------------------------


def _phase2_positions(n: int, seed: int) -> list[tuple[Deal, int]]:
    """``n`` ending positions with a choice, and the player to act."""
    chosen = (d for d in phase2_deals(seed) if len(d.legal_actions()) > 1)
    return [(d, d.to_move) for d in itertools.islice(chosen, n)]


def _final_points_by_optimal_play(deal: Deal) -> tuple[int, int]:
    deal = deal.copy()
    while not deal.is_over:
        deal.push(solve(deal).best[0])
    return deal.points


@needs_kernel
def test_kernel_utility_reads_the_exact_final_points_of_each_player() -> None:
    # utility = an encoding of (my points, their points): the sums give them back
    code = array("d", [a * 1000 + b for a in range(SIZE) for b in range(SIZE)]).tobytes()
    for deal, seat in _phase2_positions(40, seed=2):
        obs = observe(deal, seat)
        spec = world_spec(obs)
        kdeal = kernel_deal(best_module.base_deal(obs, spec))
        args = (kdeal, KERNEL.Table(), seat, spec.unseen, spec.opp_missing, spec.first_slot)
        _, actions, sums, _, usums = KERNEL.pimc(*args, 1, 1, 2, 0, None, (), 8, code)
        for a, s, u in zip(actions, sums, usums, strict=True):
            after = deal.copy()
            after.push(a)
            pts = _final_points_by_optimal_play(after)
            mine, theirs = pts[seat], pts[seat ^ 1]
            assert s == mine - theirs
            assert u == (mine // STEP) * 1000 + theirs // STEP


@needs_kernel
def test_kernel_utility_of_the_deal_margin_gives_the_margin_back_in_phase_1() -> None:
    # in phase 1 the final points are estimated, but always with their exact difference
    margin = array("d", [STEP * (a - b) for a in range(SIZE) for b in range(SIZE)]).tobytes()
    for obs in early_positions(6, seed=4):
        spec = world_spec(obs)
        kdeal = kernel_deal(best_module.base_deal(obs, spec))
        args = (kdeal, KERNEL.Table(), obs.seat, spec.unseen, spec.opp_missing, spec.first_slot)
        _, _, sums, _, usums = KERNEL.pimc(*args, 50, 7, 2, 4, None, (), 8, margin)
        assert usums == pytest.approx(sums)


@needs_kernel
def test_kernel_refuses_a_bad_utility_grid() -> None:
    obs = early_positions(1)[0]
    spec = world_spec(obs)
    kdeal = kernel_deal(best_module.base_deal(obs, spec))
    args = (kdeal, KERNEL.Table(), obs.seat, spec.unseen, spec.opp_missing, spec.first_slot, 2, 1)
    with pytest.raises(ValueError):
        KERNEL.pimc(*args, 2, 4, None, (), 8, b"\0" * 8)
    nan = array("d", [float("nan")] * (SIZE * SIZE)).tobytes()
    with pytest.raises(ValueError):
        KERNEL.pimc(*args, 2, 4, None, (), 8, nan)
    assert KERNEL.pimc(*args, 2, 4, None, (), 8, None)[4] == (0.0,) * len(
        public_deal(obs).legal_actions()
    )


@needs_kernel
def test_match_aware_best_changes_decisions_near_the_end_of_a_match() -> None:
    changed = 0
    for obs in early_positions(8, seed=5):
        legal = public_deal(obs).legal_actions()
        late = dataclasses.replace(obs, totals=(440, 470))
        margin = make_bot("best:worlds=300,time=0,match=-1", seed=1).choose(late, legal)
        match = make_bot("best:worlds=300,time=0,match=0", seed=1)
        assert isinstance(match, BestBot)
        changed += match.choose(late, legal) != margin
    assert changed >= 1


@needs_kernel
def test_paired_playouts_make_the_actions_differences_in_a_world_less_noisy() -> None:
    # common random numbers: world by world, v(a) - v(first action) varies less
    spread = {}
    for paired in (False, True):
        total = 0.0
        for obs in early_positions(8, seed=7):
            spec = world_spec(obs)
            kdeal = kernel_deal(best_module.base_deal(obs, spec))
            table = KERNEL.Table(11)
            args = (kdeal, table, obs.seat, spec.unseen, spec.opp_missing, spec.first_slot, 1)
            rows = [KERNEL.pimc(*args, s, 2, 4, None, (), 8, None, paired)[2] for s in range(200)]
            for i in range(1, len(rows[0])):
                total += statistics.pvariance([r[i] - r[0] for r in rows])
        spread[paired] = total
    assert spread[True] < 0.9 * spread[False]
    obs = early_positions(1, seed=7)[0]
    legal = public_deal(obs).legal_actions()
    bots = [make_bot("best:worlds=150,time=0,paired=1", seed=3) for _ in range(2)]
    assert isinstance(bots[0], BestBot) and isinstance(bots[1], BestBot)
    assert bots[0].estimate(obs, legal) == bots[1].estimate(obs, legal)


# -- the meld window ----------------------------------------------------------------------


def _window_positions(n: int, seed: int) -> list[Observation]:
    rng = random.Random(seed)
    out: list[Observation] = []
    while len(out) < n:
        deck = list(range(32))
        rng.shuffle(deck)
        deal = Deal(deck, rng.randrange(2), CLASSIC)
        while not deal.is_over and not deal.stock_empty:
            legal = deal.legal_actions()
            if deal.in_window and any(a == DIX or MELD_BASE <= a < DIX for a in legal):
                out.append(observe(deal, deal.to_move))
                break
            deal.push(rng.choice(legal))
    return out


def test_declare_now_exchanges_and_declares_before_drawing() -> None:
    for obs in _window_positions(12, seed=3):
        legal = public_deal(obs).legal_actions()
        bot = make_bot("best:worlds=20,time=0,declare=now", seed=1)
        action = bot.choose(obs, legal)
        assert action != DRAW
        assert action == POLICY.act(public_deal(obs), legal)
