"""The ``best`` bot and its kernel sampler: legal play under every rule set,
reproducible under a seed and a worlds cap, honest sampling (every world it
deals gives back the seat's observation), the pure-Python fallback, and the
shape of ``estimate``."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import threading

import pytest

from helpers import new_deal, play
from marjolet.actions import DRAW
from marjolet.bots import STRONGEST, make_bot
from marjolet.bots import best as best_module
from marjolet.bots.best import (
    KERNEL,
    BestBot,
    early_positions,
    inference_constraints,
    world_spec,
    worlds_from_kernel,
)
from marjolet.bots.heuristic import POLICY, public_deal
from marjolet.bots.solver import solve
from marjolet.engine import Deal, public_turns
from marjolet.kernel import kernel_deal
from marjolet.match import Match
from marjolet.observation import Observation, observe
from marjolet.rules import CLASSIC, ENCYCLOPEDIA, SAME_SUIT, Rules
from marjolet.turns import play_match

needs_kernel = pytest.mark.skipif(KERNEL is None, reason="the C kernel is not built")

RULE_SETS = {
    "classic": CLASSIC,
    "encyclopedia": ENCYCLOPEDIA,
    "2-2-2": CLASSIC.replace(deal_pattern=(2, 2, 2)),
    "same-suit": CLASSIC.replace(jack_queen=SAME_SUIT),
    "one-meld": CLASSIC.replace(one_meld_per_window=True),
    "all": ENCYCLOPEDIA.replace(
        deal_pattern=(2, 2, 2), jack_queen=SAME_SUIT, one_meld_per_window=True
    ),
}


def random_positions(rules: Rules, seed: int, n: int) -> list[tuple[Deal, int]]:
    """(deal, seat) pairs from random deals played part-way by a mix of the
    heuristic and random moves; the seat is either player."""
    rng = random.Random(seed)
    out: list[tuple[Deal, int]] = []
    while len(out) < n:
        deck = list(range(32))
        rng.shuffle(deck)
        deal = Deal(deck, rng.randrange(2), rules)
        for _ in range(rng.randrange(0, 60)):
            if deal.is_over:
                break
            legal = deal.legal_actions()
            deal.push(POLICY.act(deal) if rng.random() < 0.7 else rng.choice(legal))
        if not deal.is_over:
            out.append((deal, rng.randrange(2)))
    return out


@pytest.mark.parametrize("rules", list(RULE_SETS.values()), ids=list(RULE_SETS))
def test_best_plays_whole_matches_with_legal_actions_only_under_every_rule_set(
    rules: Rules,
) -> None:
    match = Match(rules.replace(target=150), seed=5)
    # Match.play checks every action (IllegalActionError otherwise)
    play_match(match, [make_bot("best:worlds=6,time=0", seed=1), make_bot("random", seed=2)])
    assert match.is_over


def test_best_is_reproducible_under_a_seed_and_a_worlds_cap() -> None:
    for deal, _ in random_positions(CLASSIC, 3, 6):
        obs = observe(deal, deal.to_move)
        legal = deal.legal_actions()
        first = make_bot("best:worlds=40,time=0", seed=9)
        again = make_bot("best:worlds=40,time=0", seed=9)
        assert first.choose(obs, legal) == again.choose(obs, legal)
        assert isinstance(first, BestBot) and isinstance(again, BestBot)
        assert first.estimate(obs, legal) == again.estimate(obs, legal)


def test_best_sees_only_its_observation() -> None:
    # two deals seat 0 (the elder, dealer 1) cannot tell apart
    rng = random.Random(4)
    for _ in range(3):
        deck = list(range(32))
        rng.shuffle(deck)
        hidden = [3, 4, 5, 9, 10, 11, *range(13, 32)]
        moved = [deck[i] for i in hidden]
        rng.shuffle(moved)
        other = deck.copy()
        for i, c in zip(hidden, moved, strict=True):
            other[i] = c
        a, b = Deal(deck, 1), Deal(other, 1)
        assert observe(a, 0) == observe(b, 0)
        legal = a.legal_actions()
        bot_a, bot_b = (
            make_bot("best:worlds=20,time=0", seed=1),
            make_bot("best:worlds=20,time=0", seed=1),
        )
        assert bot_a.choose(observe(a, 0), legal) == bot_b.choose(observe(b, 0), legal)


def test_estimate_gives_a_mean_and_a_standard_error_for_every_legal_action() -> None:
    bot = make_bot("best:worlds=30,time=0", seed=2)
    assert isinstance(bot, BestBot)
    for obs in early_positions(4, seed=3):
        legal = [a for a in range(46) if _legal(obs, a)]
        est = bot.estimate(obs, legal)
        assert set(est) == set(legal)
        for mean, err in est.values():
            assert isinstance(mean, float) and isinstance(err, float)
            assert err >= 0.0 and abs(mean) < 1000
        assert bot.last_worlds == 30


def _legal(obs: Observation, action: int) -> bool:
    return action in public_deal(obs).legal_actions()


def test_estimate_is_exact_once_the_stock_is_empty() -> None:
    rng = random.Random(7)
    deck = list(range(32))
    rng.shuffle(deck)
    deal = Deal(deck, 0)
    while not deal.stock_empty:
        deal.push(POLICY.act(deal))
    bot = make_bot("best:worlds=5,time=0", seed=1)
    assert isinstance(bot, BestBot)
    legal = deal.legal_actions()
    est = bot.estimate(observe(deal, deal.to_move), legal)
    solution = solve(deal)
    assert max(v for v, _ in est.values()) == solution.value
    assert all(err == 0.0 for _, err in est.values())
    assert bot.choose(observe(deal, deal.to_move), legal) in solution.best


def test_best_falls_back_to_pure_python_when_the_kernel_is_unavailable(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(best_module, "supports", lambda rules: False)
    bot = make_bot("best:worlds=3,time=0", seed=1)
    assert isinstance(bot, BestBot)
    for deal, _ in random_positions(CLASSIC, 8, 4):
        obs = observe(deal, deal.to_move)
        legal = deal.legal_actions()
        assert bot.choose(obs, legal) in legal
        assert set(bot.estimate(obs, legal)) == set(legal)


def test_best_says_it_runs_in_pure_python_with_marjolet_kernel_0() -> None:
    env = dict(os.environ, MARJOLET_KERNEL="0")
    out = subprocess.run(
        [sys.executable, "-m", "marjolet", "bots", "--json"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    rows = {row["name"]: row for row in json.loads(out)["bots"]}
    assert "pure-Python" in rows["best"]["description"]


def test_strongest_is_best_at_about_half_a_second() -> None:
    bot = make_bot(STRONGEST)
    assert bot.name == "best" and 0 < bot.options["time"] <= 1.0


@pytest.mark.parametrize(
    "spec",
    [
        "best:time=0,worlds=0",
        "best:exact=11",
        "best:eval=guess",
        "best:infer=2",
        "best:worlds=-1",
        "best:clock=sundial",
        "best:noise=-1",
        "best:noise=1001",
    ],
)
def test_bad_best_parameters_are_refused(spec: str) -> None:
    from marjolet.bots import BotSpecError

    with pytest.raises(BotSpecError):
        make_bot(spec)


# -- the kernel sampler -----------------------------------------------------------------


@needs_kernel
@pytest.mark.parametrize("rules", list(RULE_SETS.values()), ids=list(RULE_SETS))
def test_every_world_the_kernel_deals_gives_back_the_observation(rules: Rules) -> None:
    for i, (deal, seat) in enumerate(random_positions(rules, 11, 40)):
        obs = observe(deal, seat)
        for world in worlds_from_kernel(obs, 4, seed=i, accept=0.3):
            assert observe(world, seat) == obs


@needs_kernel
def test_kernel_sampler_deals_the_unseen_cards_evenly() -> None:
    # the opening: the elder sees its six cards and the indicator; each of
    # the 25 unseen cards is in the dealer's hand with probability 6/25
    deal = Deal(list(range(32)), 0)
    obs = observe(deal, 1)
    counts = [0] * 32
    n = 5000
    for world in worlds_from_kernel(obs, n, seed=1):
        for c in range(32):
            counts[c] += world.hand_mask(0) >> c & 1
    for c in obs.unseen:
        assert abs(counts[c] / n - 6 / 25) < 0.03


def _after_silent_window() -> Observation:
    """Seat 0 (dealer) wins trick 1 and draws at once, declaring nothing;
    seat 1's observation afterwards."""
    deal = new_deal("7C 8C 9C 7D 8D 9D", "AC KH QH KS QS JD", "8S", dealer_seat=0)
    play(deal, "7C AC draw")
    return observe(deal, 1)


def test_inference_reads_the_opponents_silent_window() -> None:
    obs = _after_silent_window()
    constraints = dict(inference_constraints(obs, 0.25))
    from marjolet.cards import parse_card

    kqh = 1 << parse_card("KH") | 1 << parse_card("QH")
    assert constraints[kqh] == 0.25
    assert 1 << parse_card("7S") in constraints  # the seven of trumps, unexchanged
    assert world_spec(obs, 1.0).soft == ()  # infer=1: no inference


def test_a_window_speaks_only_of_the_cards_held_then_with_recent() -> None:
    """Right after its silent window the opponent drew one card, which may
    have completed a meld: a world holding a marriage is held against it
    only as far as neither card is that draw (4 in 6 of 5 in 6)."""
    obs = _after_silent_window()
    from marjolet.cards import parse_card

    kqh = 1 << parse_card("KH") | 1 << parse_card("QH")
    constraints = dict(inference_constraints(obs, 0.25, recent=True))
    assert constraints[kqh] == pytest.approx(1 - 0.75 * (10 / 15))
    assert constraints[1 << parse_card("7S")] == pytest.approx(1 - 0.75 * (5 / 6))
    assert dict(inference_constraints(obs, 0.25)).keys() == constraints.keys()
    assert best_module.held_since_window(obs, len(obs.actions) - 1, 1) == pytest.approx(5 / 6)


def _last_opponent_window(obs: Observation) -> int:
    """The index of the opponent's last ``draw`` (the close of its last
    window), or -1."""
    turns = public_turns(obs.actions, obs.dealer, obs.trump)
    closes = [
        i
        for i, (a, (actor, _tricks)) in enumerate(zip(obs.actions, turns, strict=True))
        if a == DRAW and actor != obs.seat
    ]
    return closes[-1] if closes else -1


def test_the_chance_a_meld_was_held_at_the_window_falls_with_each_draw_since() -> None:
    """For the opponent's last window, the chance that k of its hidden
    cards were all held then is a probability, lower for more cards, and
    lower after each card it draws while it gets no new window."""
    rng = random.Random(4)
    checked = 0
    for _ in range(30):
        deck = list(range(32))
        rng.shuffle(deck)
        deal = Deal(deck, rng.randrange(2), CLASSIC)
        while not deal.stock_empty:
            action = POLICY.act(deal)
            seat = deal.to_move
            obs = observe(deal, seat)
            window = _last_opponent_window(obs)
            if window >= 0:
                held = [best_module.held_since_window(obs, window, k) for k in (1, 2, 4)]
                assert all(0.0 <= h <= 1.0 for h in held)
                assert held[0] >= held[1] >= held[2]
                if action == DRAW:  # the seat won: the opponent draws, no window
                    deal.push(action)
                    after = best_module.held_since_window(observe(deal, seat), window, 1)
                    assert after < held[0] or held[0] == 0.0
                    checked += 1
                    continue
            deal.push(action)
    assert checked > 50


@needs_kernel
def test_kernel_sampler_honours_soft_constraints_and_zero_weights() -> None:
    obs = _after_silent_window()
    spec = world_spec(obs, 0.0)
    kdeal = kernel_deal(best_module.base_deal(obs, spec))
    args = (kdeal, 1, spec.unseen, spec.opp_missing, spec.first_slot, 300, 5)
    for hidden, _ in KERNEL.sample(*args, None, spec.soft):
        for mask, _p in spec.soft:
            assert hidden & mask != mask
    weights = [1.0] * 32
    banned = next(iter(obs.unseen))
    weights[banned] = 0.0
    for hidden, _ in KERNEL.sample(*args, weights, ()):
        assert not hidden >> banned & 1


@needs_kernel
def test_kernel_search_refuses_bad_arguments_with_exceptions() -> None:
    obs = early_positions(1)[0]
    spec = world_spec(obs)
    kdeal = kernel_deal(best_module.base_deal(obs, spec))
    table = KERNEL.Table()
    good = [kdeal, table, obs.seat, spec.unseen, spec.opp_missing, spec.first_slot, 2, 1]
    assert KERNEL.pimc(*good)[0] == 2
    bad_args = [(2, 2), (4, spec.opp_missing + 1), (5, spec.first_slot + 1), (6, -1), (3, 1 << 40)]
    for i, bad in bad_args:
        args = list(good)
        args[i] = bad
        with pytest.raises((ValueError, OverflowError)):
            KERNEL.pimc(*args)
    with pytest.raises(TypeError):
        KERNEL.pimc("deal", *good[1:])
    with pytest.raises(ValueError):
        KERNEL.pimc(*good, 2, 0, [1.0] * 31)
    with pytest.raises(ValueError):
        KERNEL.pimc(*good, 2, 9)
    with pytest.raises(ValueError):
        KERNEL.pimc(*good, 2, 4, None, (), -1)


@needs_kernel
def test_noisy_playouts_change_the_estimates_and_stay_reproducible_under_a_seed() -> None:
    obs = early_positions(1, seed=3)[0]
    legal = public_deal(obs).legal_actions()

    def estimate(eval_mode: str) -> dict[int, tuple[float, float]]:
        bot = make_bot(f"best:worlds=200,time=0,eval={eval_mode}", seed=5)
        assert isinstance(bot, BestBot)
        return bot.estimate(obs, legal)

    noisy = estimate("noisy")
    assert noisy == estimate("noisy")
    assert noisy != estimate("solve")
    assert noisy != estimate("noisy,noise=3")
    assert estimate("noisy,noise=0") == estimate("solve")  # no noise: the bare heuristic
    assert make_bot("best").options["eval"] == "tuned"
    assert estimate("tuned") == estimate("tuned")
    assert estimate("tuned") != noisy  # the learned term changes the playouts


def _pimc_args(table: object, worlds: int, seed: int) -> list[object]:
    obs = early_positions(1, seed=3)[0]
    spec = world_spec(obs)
    kdeal = kernel_deal(best_module.base_deal(obs, spec))
    return [kdeal, table, obs.seat, spec.unseen, spec.opp_missing, spec.first_slot, worlds, seed]


@needs_kernel
def test_kernel_searches_release_the_gil_and_refuse_a_table_in_use() -> None:
    """A long search runs with the GIL released (so a server's other threads
    go on), and its table cannot be cleared or shared meanwhile."""
    table = KERNEL.Table(11)
    args = _pimc_args(table, 4000, 1)
    worker = threading.Thread(target=KERNEL.pimc, args=args)
    refused: set[str] = set()
    worker.start()
    while worker.is_alive():
        try:
            table.clear()
        except RuntimeError as exc:
            refused.add(str(exc))
        try:
            KERNEL.pimc(*_pimc_args(table, 1, 2))
        except RuntimeError as exc:
            refused.add(str(exc))
    worker.join()
    assert "the Table is in use by a search" in refused  # clear()
    assert any("another thread" in m for m in refused)
    assert KERNEL.pimc(*_pimc_args(table, 1, 2))[0] == 1  # free again


@needs_kernel
def test_kernel_searches_in_threads_with_their_own_tables_match_sequential_ones() -> None:
    sequential = [KERNEL.pimc(*_pimc_args(KERNEL.Table(11), 300, s)) for s in (1, 2)]
    results: dict[int, object] = {}

    def run(s: int) -> None:
        results[s] = KERNEL.pimc(*_pimc_args(KERNEL.Table(11), 300, s))

    threads = [threading.Thread(target=run, args=(s,)) for s in (1, 2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert [results[1], results[2]] == sequential
