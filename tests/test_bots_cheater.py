"""``cheater``, the measuring ceiling: ``best``'s search on the true deal,
exact as early in phase 1 as its budget reaches, so that what it wins
against ``best`` is what hidden information costs."""

from __future__ import annotations

import random

import pytest

from marjolet.bots import make_bot
from marjolet.bots.cheater import EXACT_SECONDS, CheaterBot, exact_reach
from marjolet.bots.heuristic import POLICY
from marjolet.engine import Deal
from marjolet.kernel import KERNEL, kernel_deal
from marjolet.observation import observe

needs_kernel = pytest.mark.skipif(KERNEL is None, reason="the C kernel is not built")


def phase1_positions(trick_from: int, n: int, seed: int = 5) -> list[Deal]:
    """Deals played by the heuristic to a card to play in phase 1 at or
    after ``trick_from`` (counted from 1), with a choice to make (meld
    windows are declared at once, without a search)."""
    rng = random.Random(seed)
    out: list[Deal] = []
    while len(out) < n:
        deck = list(range(32))
        rng.shuffle(deck)
        deal = Deal(deck, rng.randrange(2))
        stop = rng.randrange(trick_from - 1, 10)
        while not deal.stock_empty and (deal.tricks_played < stop or deal.in_window):
            deal.push(POLICY.act(deal))
        if not deal.stock_empty and not deal.in_window and len(deal.legal_actions()) > 1:
            out.append(deal)
    return out


def test_the_exact_reach_grows_with_the_budget() -> None:
    assert exact_reach(0.0) == 2
    assert exact_reach(0.025) == 4
    assert exact_reach(0.25) == 6
    assert exact_reach(10.0) == max(EXACT_SECONDS)
    assert make_bot("cheater:time=0.025").exact_tricks() == 4  # type: ignore[attr-defined]
    assert make_bot("cheater:time=0.025,exact=3").exact_tricks() == 3  # type: ignore[attr-defined]


@needs_kernel
def test_within_its_reach_the_cheater_plays_the_true_deals_exact_best() -> None:
    """From trick 7 at 0.025 s every action's value is the exact value of the
    true deal (the kernel's exact search, stock order known) and the card
    played reaches the best of them: the cheater searches the real deal, not
    a sampled one."""
    differs = 0
    for deal in phase1_positions(7, 12):
        me = deal.to_move
        bot = make_bot("cheater:time=0.025,clock=cpu,match=-1", seed=1)
        assert isinstance(bot, CheaterBot)
        bot.see_deal(deal.copy())
        choice = bot.choose(observe(deal, me), deal.legal_actions())
        exact = kernel_deal(deal).exact_action_values(KERNEL.Table(16))
        assert bot.last_worlds == 1  # one known deal: one exact answer
        assert bot.last_values == {a: float(v) for a, v in exact.items()}, deal.moves
        assert exact[choice] == max(exact.values())
        differs += len(set(exact.values())) > 1
    assert differs >= 4  # positions where a wrong card costs points


def test_the_cheater_refuses_to_play_blind_and_plays_whole_deals() -> None:
    cheater = make_bot("cheater:time=0.01,clock=cpu", seed=1)
    deal = Deal(list(range(32)), 0)
    with pytest.raises(RuntimeError, match="see_deal"):
        cheater.choose(observe(deal, 1), deal.legal_actions())
    rng = random.Random(3)
    while not deal.is_over:
        if deal.to_move == 0:
            cheater.see_deal(deal.copy())
            action = cheater.choose(observe(deal, 0), deal.legal_actions())
        else:
            action = rng.choice(deal.legal_actions())
        deal.push(action)
    assert deal.points[0] > deal.points[1]


@pytest.mark.parametrize("kernel", [True, False])
def test_shown_the_hand_only_the_cheater_samples_the_stock_and_keeps_the_hand(
    kernel: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``sees=hand``: every world holds the opponent's true hand, and the
    stock still to draw is dealt afresh (not the true order)."""
    if kernel and KERNEL is None:
        pytest.skip("the C kernel is not built")
    import marjolet.bots.best as best

    if not kernel:
        monkeypatch.setattr(best, "supports", lambda rules: False)
    deal = phase1_positions(2, 1, seed=11)[0]
    me = deal.to_move
    bot = make_bot("cheater:sees=hand,worlds=40,time=0,exact=0", seed=2)
    assert isinstance(bot, CheaterBot)
    bot.see_deal(deal.copy())
    obs = observe(deal, me)
    worlds = [bot._python_world(obs) for _ in range(20)]
    assert {w.hand_mask(me ^ 1) for w in worlds} == {deal.hand_mask(me ^ 1)}
    assert len({tuple(w.stock) for w in worlds}) > 1
    bot.choose(obs, deal.legal_actions())
    assert bot.last_worlds == 40


def test_before_trick_from_the_cheater_deals_worlds_as_best_does() -> None:
    """``from=N``: before trick N the cheater is shown nothing (its worlds
    are sampled, the opponent's hand among them); from trick N on it holds
    the true hand. So what the knowledge is worth can be split by trick."""
    deal = phase1_positions(2, 1, seed=11)[0]
    me = deal.to_move
    trick = deal.tricks_played + 1
    obs = observe(deal, me)
    true_hand = deal.hand_mask(me ^ 1)
    for start, shown in ((trick + 1, False), (trick, True)):
        bot = make_bot(f"cheater:sees=hand,from={start},worlds=40,time=0,exact=0", seed=2)
        assert isinstance(bot, CheaterBot)
        bot.see_deal(deal.copy())
        hands = {bot._python_world(obs).hand_mask(me ^ 1) for _ in range(20)}
        assert (hands == {true_hand}) is shown
    with pytest.raises(ValueError, match="from must be 1-11"):
        make_bot("cheater:from=0")
