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
searches' noise alone. With ``--told``, `best`'s sampler is also told
where some of the opponent's hidden cards are (its trumps, its aces and
tens, or its whole hand: they are dealt to it, or kept from it, by the
kernel sampler's card odds), to see which part of the hand the loss comes
from. Each line gives how often the choices differ and the loss under the
true hand averaged over every position (deal points a decision). This is
hindsight: the arena's ``cheater:from=N`` runs (docs/bots.md) show that
a loss here need not cost matches.

    nice .venv/bin/python benchmarks/hand_regret.py --trick 8 --positions 120 --seed 8
    nice .venv/bin/python benchmarks/hand_regret.py --trick 5 --told trumps points hand
"""

from __future__ import annotations

import argparse
import random
from collections.abc import Callable, Sequence

from marjolet.bots import make_bot
from marjolet.bots.best import EVAL_MODES, INFER_DEFAULT, BestBot, base_deal, world_spec
from marjolet.bots.cheater import CheaterBot
from marjolet.bots.heuristic import POLICY
from marjolet.cards import ACES, SUIT_MASKS, TENS
from marjolet.engine import Deal
from marjolet.kernel import KERNEL, kernel_deal
from marjolet.observation import observe

#: The card groups ``--told`` can reveal, for a deal (its trump suit).
TOLD: dict[str, Callable[[Deal], int]] = {
    "trumps": lambda deal: SUIT_MASKS[deal.trump],
    "points": lambda deal: ACES | TENS,
    "hand": lambda deal: (1 << 32) - 1,
}
#: How the report names each group.
TOLD_NAMES = {"trumps": "trumps", "points": "aces and tens", "hand": "whole hand"}


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


def told_values(deal: Deal, told: int, worlds: int, seed: int) -> dict[int, float]:
    """Each legal action's mean value by `best`'s kernel search (its
    defaults at time=0, the deal margin) when its sampler is also told
    which of the cards in ``told`` the opponent holds."""
    seat = deal.to_move
    obs = observe(deal, seat)
    spec = world_spec(obs, INFER_DEFAULT)
    theirs = deal.hand_mask(seat ^ 1)
    odds = [
        (1e9 if theirs >> c & 1 else 0.0) if told >> c & 1 and spec.unseen >> c & 1 else 1.0
        for c in range(32)
    ]
    done, actions, sums, _, _ = KERNEL.pimc(
        kernel_deal(base_deal(obs, spec)),
        KERNEL.Table(16),
        seat,
        spec.unseen,
        spec.opp_missing,
        spec.first_slot,
        worlds,
        seed,
        2,
        EVAL_MODES["tuned"],
        odds,
        spec.soft,
        8,
        None,
        True,
    )
    return {a: total / done for a, total in zip(actions, sums, strict=True)}


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


def told_loss(deal: Deal, told: int, worlds: int, seed: int) -> float | None:
    """The same loss as compare's first, `best` told the cards ``told``."""
    seeing = f"cheater:worlds={worlds},time=0,match=-1,exact=2,sees=hand"
    values = told_values(deal, told, worlds, seed)
    cheater, judge = estimates(seeing, deal, seed), estimates(seeing, deal, seed + 2)
    mine = max(values, key=values.__getitem__)
    theirs = max(cheater, key=cheater.__getitem__)
    return None if mine == theirs else judge[theirs] - judge[mine]


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
    parser.add_argument(
        "--told", nargs="*", default=[], choices=sorted(TOLD), help="card groups to reveal too"
    )
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
    for group in args.told:
        losses = [told_loss(d, TOLD[group](d), args.worlds, args.seed) for d in found]
        print(summary(f"best told the opponent's {TOLD_NAMES[group]}", losses))


if __name__ == "__main__":
    main()
