"""Does reading the tricks the opponent lost place its hidden cards
better? A screen for ``best:answers=`` before any arena run (issue 25).

Plays ``--deals`` seeded deals of self-play by ``--bot`` (by default a bot
like the frozen ``best``) and, at every phase-1 decision where
:func:`marjolet.bots.best.answer_odds` reads something (the opponent lost a
trick to a side-suit lead of the seat's while a higher card of that suit
was unseen), deals ``--hands`` hands of the opponent from the kernel's
sampler (``infer=0.1``) for each ``--keeps`` value ``q``. It prints, for
each ``q``, the cross-entropy (nats a card) of each unseen card's true
place (the opponent's hand or the stock), for every unseen card and for
the aces and tens alone, and the calibration of the cards the reading
touched: how often the opponent truly held them, against the share of
sampled hands holding them. ``q`` 1 is the plain sampler. Lower is better.

    nice .venv/bin/python benchmarks/answer_reading_quality.py --deals 60 --seed 2
"""

from __future__ import annotations

import argparse
import math
import random
from collections.abc import Sequence
from dataclasses import dataclass

from marjolet.bots import make_bot
from marjolet.bots.best import KERNEL, answer_odds, base_deal, world_spec
from marjolet.cards import ACE, TEN, rank_of
from marjolet.engine import Deal
from marjolet.kernel import kernel_deal
from marjolet.observation import Observation, observe
from marjolet.rules import CLASSIC

SELF_PLAY = "best:worlds=150,time=0,eval=noisy,infer=0.3,match=-1"
KEEPS = (1.0, 0.7, 0.5, 0.35, 0.2, 0.1)


@dataclass
class Tally:
    """Surprise sums (all cards, aces and tens) and the touched cards'
    sampled share, for one ``q``."""

    cards: float = 0.0
    highs: float = 0.0
    touched_share: float = 0.0


def positions(deals: int, seed: int, spec: str) -> list[tuple[Observation, int, int]]:
    """(observation, the opponent's true hand, the cards the reading
    touched) at every phase-1 decision where the reading says something."""
    rng = random.Random(seed)
    bot = make_bot(spec, seed=seed)
    out = []
    for _ in range(deals):
        deck = list(range(32))
        rng.shuffle(deck)
        deal = Deal(deck, rng.randrange(2), CLASSIC)
        while not deal.stock_empty:
            obs = observe(deal, deal.to_move)
            odds = answer_odds(obs, 0.5)
            if odds is not None:
                touched = sum(1 << c for c in range(32) if odds[c] < 1.0)
                out.append((obs, deal.hand_mask(obs.seat ^ 1), touched))
            deal.push(bot.choose(obs, deal.legal_actions()))
    return out


def hand_shares(obs: Observation, keep: float, hands: int, seed: int) -> list[float]:
    """Each card's share of ``hands`` sampled opponent hands."""
    spec = world_spec(obs, 0.1, False, keep)
    kdeal = kernel_deal(base_deal(obs, spec))
    dealt = KERNEL.sample(
        kdeal, obs.seat, spec.unseen, spec.opp_missing, spec.first_slot, hands, seed,
        spec.weights, spec.soft,
    )
    return [sum(h >> c & 1 for h, _ in dealt) / hands for c in range(32)]


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=60)
    parser.add_argument("--seed", type=int, default=2)
    parser.add_argument("--hands", type=int, default=300)
    parser.add_argument("--bot", default=SELF_PLAY, help="the self-play bot (a bot spec)")
    parser.add_argument("--keeps", type=float, nargs="+", default=list(KEEPS))
    args = parser.parse_args(argv)
    if KERNEL is None:
        parser.error("the C kernel is not built")
    found = positions(args.deals, args.seed, args.bot)
    tallies = {q: Tally() for q in args.keeps}
    cards = highs = touched = held = 0
    for k, (obs, truth, marked) in enumerate(found):
        unseen = [c for c in range(32) if obs.unseen.mask >> c & 1]
        cards += len(unseen)
        highs += sum(rank_of(c) in (ACE, TEN) for c in unseen)
        touched += sum(marked >> c & 1 for c in unseen)
        held += sum(marked >> c & truth >> c & 1 for c in unseen)
        for q, tally in tallies.items():
            shares = hand_shares(obs, q, args.hands, args.seed * 1_000_003 + k)
            for c in unseen:
                p = (shares[c] * args.hands + 0.5) / (args.hands + 1)
                s = -math.log(p if truth >> c & 1 else 1.0 - p)
                tally.cards += s
                if rank_of(c) in (ACE, TEN):
                    tally.highs += s
                if marked >> c & 1:
                    tally.touched_share += shares[c]
    print(f"{len(found)} positions, {cards} unseen cards, {highs} aces or tens, "
          f"{touched} touched by the reading ({held / max(1, touched):.3f} truly held)")
    print(f"{'q':>5s} {'card xent':>10s} {'A/10 xent':>10s} {'touched: sampled share':>23s}")
    for q, t in tallies.items():
        print(f"{q:5.2f} {t.cards / cards:10.4f} {t.highs / max(1, highs):10.4f} "
              f"{t.touched_share / max(1, touched):23.3f}")


if __name__ == "__main__":
    main()
