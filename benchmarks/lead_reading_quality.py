"""Does reading the opponent's lead place its hidden cards better?
A screen for ``best:read=`` before any arena run (issue 25).

Plays ``--deals`` seeded deals of self-play by ``--bot`` and, at every
phase-1 answer from trick ``--from-trick`` on where the opponent hides a
card, deals ``--hands`` candidate hands of the opponent from the kernel's
sampler (``infer=0.1``, `best`'s default), runs ``--inner`` (a bot spec:
the model of the opponent's search) from the opponent's seat in each
candidate world just before its lead, and weighs the hand by
``exp(beta * (value of the card led - best value))`` for each ``--betas``.
It prints, for each beta, the cross-entropy (nats a card) of each unseen
card's true place (the opponent's hand or the stock) under the weighted
hands, for every unseen card and for the aces and tens alone; beta 0 is
the plain sampler. Lower is better; the hands, their seeds and the inner
searches are the same for every beta, so the betas are compared pairwise.

    nice .venv/bin/python benchmarks/lead_reading_quality.py --deals 60 --seed 2
"""

from __future__ import annotations

import argparse
import math
import random
from collections.abc import Sequence

from marjolet.bots import make_bot
from marjolet.bots.best import KERNEL, BestBot, base_deal, world_spec
from marjolet.bots.lead_reading import before_lead, lead_to_read
from marjolet.cards import ACE, TEN, rank_of
from marjolet.engine import Deal
from marjolet.kernel import kernel_deal
from marjolet.observation import Observation, observe
from marjolet.rules import CLASSIC

BETAS = (0.0, 0.03, 0.06, 0.1, 0.2, 0.4)
SELF_PLAY = "best:worlds=150,time=0,eval=noisy,infer=0.3,match=-1"
INNER = "best:worlds=16,time=0,eval=noisy,infer=0.3,match=-1"


def answers(deals: int, seed: int, spec: str, from_trick: int) -> list[tuple[Observation, int]]:
    """(the answering seat's observation, the opponent's true hidden cards)
    at each phase-1 answer to a readable lead from trick ``from_trick`` on."""
    rng = random.Random(seed)
    bot = make_bot(spec, seed=seed)
    out = []
    for _ in range(deals):
        deck = list(range(32))
        rng.shuffle(deck)
        deal = Deal(deck, rng.randrange(2), CLASSIC)
        while not deal.stock_empty:
            obs = observe(deal, deal.to_move)
            hidden = deal.hand_mask(obs.seat ^ 1) & obs.unseen.mask
            if lead_to_read(obs) is not None and obs.tricks_played + 1 >= from_trick and hidden:
                out.append((obs, hidden))
            deal.push(bot.choose(obs, deal.legal_actions()))
    return out


def candidates(obs: Observation, n: int, seed: int) -> list[tuple[int, Sequence[int]]]:
    """``n`` (hidden hand, stock) pairs of the opponent dealt for ``obs``."""
    spec = world_spec(obs, 0.1)
    kdeal = kernel_deal(base_deal(obs, spec))
    args = (kdeal, obs.seat, spec.unseen, spec.opp_missing, spec.first_slot, n, seed)
    return list(KERNEL.sample(*args, None, spec.soft))


def lead_gaps(
    obs: Observation, lead: int, dealt: Sequence[tuple[int, Sequence[int]]], inner: str, seed: int
) -> list[float]:
    """For each dealt hand, how far the inner search rates ``lead`` below
    its best card, from the opponent's seat just before the lead."""
    gaps = []
    for k, (hidden, stock) in enumerate(dealt):
        world = before_lead(obs, hidden, stock, lead)
        bot = make_bot(inner, seed=seed + k)
        assert isinstance(bot, BestBot), "the inner model must be a best bot"
        bot.choose(observe(world, obs.seat ^ 1), world.legal_actions())
        values = bot.last_values
        gaps.append(values[lead] - max(values.values()) if lead in values else -math.inf)
    return gaps


def surprise(weight_in: float, total: float, truth: bool) -> float:
    """-log of the (smoothed) weighted frequency of the true outcome."""
    p = (weight_in + 0.5) / (total + 1)
    return -math.log(p if truth else 1.0 - p)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=60)
    parser.add_argument("--seed", type=int, default=2)
    parser.add_argument("--hands", type=int, default=300)
    parser.add_argument("--from-trick", type=int, default=3)
    parser.add_argument("--bot", default=SELF_PLAY, help="the self-play bot (a bot spec)")
    parser.add_argument("--inner", default=INNER, help="the model of the opponent's search")
    parser.add_argument("--betas", type=float, nargs="+", default=list(BETAS))
    args = parser.parse_args(argv)
    if KERNEL is None:
        parser.error("the C kernel is not built")
    found = answers(args.deals, args.seed, args.bot, args.from_trick)
    card_xent = dict.fromkeys(args.betas, 0.0)
    high_xent = dict.fromkeys(args.betas, 0.0)
    cards = highs = 0
    for k, (obs, truth) in enumerate(found):
        lead = lead_to_read(obs)
        assert lead is not None
        dealt = candidates(obs, args.hands, args.seed * 100_003 + k)
        gaps = lead_gaps(obs, lead, dealt, args.inner, args.seed * 100_003 + k)
        unseen = [c for c in range(32) if obs.unseen.mask >> c & 1]
        cards += len(unseen)
        highs += sum(rank_of(c) in (ACE, TEN) for c in unseen)
        for beta in args.betas:
            weights = [math.exp(beta * g) for g in gaps]
            scale = len(weights) / sum(weights)
            for c in unseen:
                held = scale * sum(
                    w for w, (h, _) in zip(weights, dealt, strict=True) if h >> c & 1
                )
                s = surprise(held, len(weights), bool(truth >> c & 1))
                card_xent[beta] += s
                if rank_of(c) in (ACE, TEN):
                    high_xent[beta] += s
    print(f"{len(found)} answers, {cards} unseen cards, {highs} of them aces or tens")
    print(f"{'beta':>6s} {'card xent':>10s} {'A/10 xent':>10s}")
    for beta in args.betas:
        print(
            f"{beta:6.3f} {card_xent[beta] / cards:10.4f} {high_xent[beta] / max(1, highs):10.4f}"
        )


if __name__ == "__main__":
    main()
