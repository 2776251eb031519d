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
from dataclasses import dataclass

from marjolet.bots import make_bot
from marjolet.bots.best import EVAL_MODES, BestBot, base_deal, world_spec
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
#: The two searches compared (``worlds=`` is added): `best`, and the
#: cheater shown the opponent's hand; both value the deal margin.
BLIND = "best:time=0,match=-1"
SEEING = "cheater:time=0,match=-1,exact=2,sees=hand"
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
    settings at time=0, the deal margin) when its sampler is also told
    which of the cards in ``told`` the opponent holds."""
    bot = make_bot(f"{BLIND},worlds={worlds}", seed=seed)
    assert isinstance(bot, BestBot)
    seat = deal.to_move
    obs = observe(deal, seat)
    spec = world_spec(obs, bot.options["infer"])
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
        bot.exact_tricks(),
        EVAL_MODES[bot.options["eval"]],
        odds,
        spec.soft,
        bot.options["noise"],
        None,
        bool(bot.options["paired"]),
    )
    return {a: total / done for a, total in zip(actions, sums, strict=True)}


@dataclass(frozen=True, slots=True)
class Verdict:
    """What the cheater shown the hand makes of one position: its choice,
    and an independent search's values that score any pair of cards."""

    choice: int
    judge: dict[int, float]

    def loss(self, values: dict[int, float], better: int | None = None) -> float | None:
        """What the best card by ``values`` loses against ``better`` (the
        cheater's choice by default), or None where they agree."""
        mine = best_action(values)
        theirs = self.choice if better is None else better
        return None if mine == theirs else self.judge[theirs] - self.judge[mine]


def best_action(values: dict[int, float]) -> int:
    return max(values, key=values.__getitem__)


def verdict(deal: Deal, worlds: int, seed: int) -> Verdict:
    seeing = f"{SEEING},worlds={worlds}"
    choice = best_action(estimates(seeing, deal, seed))
    return Verdict(choice, estimates(seeing, deal, seed + 2))


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
    verdicts = [verdict(deal, args.worlds, args.seed) for deal in found]
    blind = f"{BLIND},worlds={args.worlds}"
    hand, noise = [], []
    for deal, v in zip(found, verdicts, strict=True):
        first, second = estimates(blind, deal, args.seed), estimates(blind, deal, args.seed + 1)
        hand.append(v.loss(first))
        noise.append(v.loss(first, best_action(second)))
    print(f"trick {args.trick}, {len(found)} positions, {args.worlds} worlds a search")
    print(summary("best against the cheater", hand))
    print(summary("control, best against best", noise))
    for group in args.told:
        losses = [
            v.loss(told_values(deal, TOLD[group](deal), args.worlds, args.seed))
            for deal, v in zip(found, verdicts, strict=True)
        ]
        print(summary(f"best told the opponent's {TOLD_NAMES[group]}", losses))


if __name__ == "__main__":
    main()
