"""What `best` loses, decision by decision, for not knowing the opponent's
hand: a diagnostic for inference ideas (issue 25).

Plays seeded deals with the heuristic to a card to play in trick
``--trick`` (a lead or an answer, half each), and there asks two searches
for the value of every legal action with the same worlds budget:

* `best` (``best:worlds=W,time=0,match=-1``): the opponent's hand dealt
  from what the seat has seen, the stock order at random;
* the cheater shown the opponent's hand
  (``cheater:...,exact=2,sees=hand``): only the stock order at random.

Where the two choose differently, `best`'s choice is worth less under the
true hand by the cheater's own values; the table gives how often the
choices differ and that loss averaged over every position (deal points a
decision). This is hindsight: the arena's ``cheater:from=N`` runs
(docs/bots.md) show that a loss here need not cost matches.

    nice .venv/bin/python benchmarks/hand_regret.py --trick 8 --positions 120 --seed 8
"""

from __future__ import annotations

import argparse
import random
from collections.abc import Sequence

from marjolet.bots import make_bot
from marjolet.bots.best import BestBot
from marjolet.bots.cheater import CheaterBot
from marjolet.bots.heuristic import POLICY
from marjolet.engine import Deal
from marjolet.kernel import KERNEL
from marjolet.observation import observe


def positions(trick: int, n: int, seed: int) -> list[Deal]:
    """Deals at a card to play in ``trick`` (1-10) with a choice to make."""
    rng = random.Random(seed)
    before = trick - 1
    out: list[Deal] = []
    while len(out) < n:
        deck = list(range(32))
        rng.shuffle(deck)
        deal = Deal(deck, rng.randrange(2))
        while deal.tricks_played < before or (deal.tricks_played == before and deal.in_window):
            deal.push(POLICY.act(deal))
        if rng.random() < 0.5 and deal.tricks_played == before and not deal.in_window:
            deal.push(POLICY.act(deal))  # the answer to a lead
        if deal.tricks_played == before and not deal.in_window and len(deal.legal_actions()) > 1:
            out.append(deal)
    return out


def regret(deal: Deal, worlds: int, seed: int) -> float | None:
    """The true-hand value lost by `best`'s choice, or None if both agree."""
    seat, legal = deal.to_move, deal.legal_actions()
    obs = observe(deal, seat)
    bot = make_bot(f"best:worlds={worlds},time=0,match=-1", seed=seed)
    assert isinstance(bot, BestBot)
    blind = bot.estimate(obs, legal)
    cheater = make_bot(f"cheater:worlds={worlds},time=0,match=-1,exact=2,sees=hand", seed=seed)
    assert isinstance(cheater, CheaterBot)
    cheater.see_deal(deal.copy())
    seeing = cheater.estimate(obs, legal)
    chosen = max(legal, key=lambda a: blind[a][0])
    best = max(legal, key=lambda a: seeing[a][0])
    return None if chosen == best else seeing[best][0] - seeing[chosen][0]


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trick", type=int, default=8, choices=range(1, 11))
    parser.add_argument("--positions", type=int, default=120)
    parser.add_argument("--worlds", type=int, default=600)
    parser.add_argument("--seed", type=int, default=8)
    args = parser.parse_args(argv)
    if KERNEL is None:
        parser.error("the C kernel is not built")
    found = positions(args.trick, args.positions, args.seed)
    losses = [regret(deal, args.worlds, args.seed) for deal in found]
    differ = [x for x in losses if x is not None]
    print(
        f"trick {args.trick}: {len(found)} positions, choices differ in {len(differ)} "
        f"({100 * len(differ) / len(found):.0f}%), loss {sum(differ) / len(found):.2f} "
        "points a decision"
    )


if __name__ == "__main__":
    main()
