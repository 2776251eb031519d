"""What `best` loses, decision by decision, for not knowing the opponent's
hand: a diagnostic for inference ideas (issue 25).

Plays seeded deals with the heuristic to a card to play in trick
``--trick`` (a lead, or after a coin toss the answer to one), and there
asks searches for the value of every legal action, ``--worlds`` worlds
each, valuing the deal margin (``match=-1``, not the shipped ``match=0``):

* `best` (``best:worlds=W,time=0,match=-1``): the opponent's hand dealt
  from what the seat has seen, the stock order at random;
* the cheater shown the opponent's hand
  (``cheater:...,exact=2,sees=hand``): only the stock order at random.

The cheater's choice is compared with `best`'s, and each pair of cards is
scored by a second, independent cheater search (another seed), so that
the noise which picked a card does not also score it. The control does
the same for two `best` searches with different seeds (the same
information): how often choices differ, and what that costs, from the
searches' noise alone. Each line gives how often the choices differ and
the loss under the true hand averaged over every position (deal points a
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


def estimates(spec: str, deal: Deal, seed: int) -> dict[int, float]:
    """Each legal action's mean value by the bot ``spec`` for the player to
    act (a cheater is shown the deal)."""
    bot = make_bot(spec, seed=seed)
    if isinstance(bot, CheaterBot):
        bot.see_deal(deal.copy())
    assert isinstance(bot, BestBot)
    legal = deal.legal_actions()
    return {a: mean for a, (mean, _) in bot.estimate(observe(deal, deal.to_move), legal).items()}


def compare(deal: Deal, worlds: int, seed: int) -> tuple[float | None, float | None]:
    """(the true-hand value `best`'s choice loses against the cheater's, the
    same between two `best` searches), each None where the choices agree."""
    blind = f"best:worlds={worlds},time=0,match=-1"
    seeing = f"cheater:worlds={worlds},time=0,match=-1,exact=2,sees=hand"
    first, second = estimates(blind, deal, seed), estimates(blind, deal, seed + 1)
    cheater, judge = estimates(seeing, deal, seed), estimates(seeing, deal, seed + 2)

    def loss(values: dict[int, float], better: dict[int, float]) -> float | None:
        mine, theirs = max(values, key=values.__getitem__), max(better, key=better.__getitem__)
        return None if mine == theirs else judge[theirs] - judge[mine]

    return loss(first, cheater), loss(first, second)


def summary(label: str, losses: Sequence[float | None]) -> str:
    differ = [x for x in losses if x is not None]
    n = len(losses)
    return (
        f"{label}: choices differ in {len(differ)} ({100 * len(differ) / n:.0f}%), "
        f"loss {sum(differ) / n:+.2f} points a decision"
    )


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trick", type=int, default=8, choices=range(1, 11))
    parser.add_argument("--positions", type=int, default=120)
    parser.add_argument("--worlds", type=int, default=600)
    parser.add_argument("--seed", type=int, default=8)
    args = parser.parse_args(argv)
    if KERNEL is None:
        parser.error("the C kernel is not built")
    if args.positions < 1 or args.worlds < 1:
        parser.error("--positions and --worlds must be at least 1")
    found = positions(args.trick, args.positions, args.seed)
    pairs = [compare(deal, args.worlds, args.seed) for deal in found]
    print(f"trick {args.trick}, {len(found)} positions, {args.worlds} worlds a search")
    print(summary("best against the cheater", [hand for hand, _ in pairs]))
    print(summary("control, best against best", [noise for _, noise in pairs]))

if __name__ == "__main__":
    main()
