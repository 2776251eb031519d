"""How well do `best`'s sampled worlds place the opponent's hidden cards?
A fast screen for inference ideas, before any arena run (issue 25).

Plays ``--deals`` seeded deals of self-play by ``--bot`` (the heuristic
by default, quick; it declares every meld and exchanges the seven at once,
as the frozen `best` does) and, at about half the phase-1 decisions where the window inference
has something to say, deals ``--worlds`` worlds from the kernel's sampler
under each setting and compares them with the true deal:

* ``card xent``: the cross-entropy (nats a card) of each unseen card's
  true place (the opponent's hand or the stock) under the worlds'
  frequency; lower is better, about 0.69 knows nothing;
* ``meld xent``: the same for the events "the opponent holds every unseen
  card of this meld (or the seven of trumps)", the events the window
  inference speaks of; lower is better.

Each setting is ``infer`` (the keep-probability of a contradicting world)
with or without ``recent`` (the window speaks only of the cards held
then). The decisions and the worlds' seeds are the same for every
setting, so the settings are compared pairwise.

    nice .venv/bin/python benchmarks/inference_quality.py --deals 100 --seed 1
    nice .venv/bin/python benchmarks/inference_quality.py --deals 100 --bot 'best:worlds=200,time=0'
"""

from __future__ import annotations

import argparse
import math
import random
from collections.abc import Sequence
from dataclasses import dataclass

from marjolet.bots import make_bot
from marjolet.bots.best import KERNEL, base_deal, inference_constraints, world_spec
from marjolet.bots.heuristic import POLICY
from marjolet.engine import Deal
from marjolet.kernel import kernel_deal
from marjolet.observation import Observation, observe
from marjolet.rules import CLASSIC

#: (label, infer, recent) of the settings compared.
SETTINGS = (
    ("no inference", 1.0, False),
    ("infer=0.3", 0.3, False),
    ("infer=0.1", 0.1, False),
    ("infer=0.1,recent=1", 0.1, True),
    ("infer=0.03,recent=1", 0.03, True),
    ("infer=0,recent=1", 0.0, True),
)


@dataclass
class Tally:
    """Summed cross-entropies and their counts for one setting."""

    card: float = 0.0
    meld: float = 0.0


def hands(obs: Observation, infer: float, recent: bool, n: int, seed: int) -> list[int]:
    """The opponent's hidden hands of ``n`` worlds dealt for ``obs``."""
    spec = world_spec(obs, infer, recent)
    kdeal = kernel_deal(base_deal(obs, spec))
    args = (kdeal, obs.seat, spec.unseen, spec.opp_missing, spec.first_slot, n, seed)
    return [hidden for hidden, _stock in KERNEL.sample(*args, None, spec.soft)]


def surprise(hits: int, n: int, truth: bool) -> float:
    """-log of the (smoothed) frequency the worlds give the true outcome."""
    p = (hits + 0.5) / (n + 1)
    return -math.log(p if truth else 1.0 - p)


def positions(deals: int, seed: int, spec: str) -> list[tuple[Observation, int]]:
    """(observation, the opponent's true hand) at about half the phase-1
    decisions of self-play by ``spec`` where the windows constrain a world."""
    rng = random.Random(seed)
    bot = make_bot(spec, seed=seed)
    out = []
    for _ in range(deals):
        deck = list(range(32))
        rng.shuffle(deck)
        deal = Deal(deck, rng.randrange(2), CLASSIC)
        while not deal.stock_empty:
            obs = observe(deal, deal.to_move)
            if rng.random() < 0.5 and inference_constraints(obs, 0.1):
                out.append((obs, deal.hand_mask(obs.seat ^ 1)))
            legal = deal.legal_actions()
            deal.push(POLICY.act(deal) if spec == "heuristic" else bot.choose(obs, legal))
    return out


def measure(
    deals: int, seed: int, worlds: int, spec: str = "heuristic"
) -> tuple[int, int, int, dict[str, Tally]]:
    """(positions, unseen cards, meld events, tally by setting)."""
    found = positions(deals, seed, spec)
    tallies = {label: Tally() for label, _, _ in SETTINGS}
    cards = events = 0
    for k, (obs, truth) in enumerate(found):
        unseen = [c for c in range(32) if obs.unseen.mask >> c & 1]
        masks = [mask for mask, _ in inference_constraints(obs, 0.1)]
        cards += len(unseen)
        events += len(masks)
        for label, infer, recent in SETTINGS:
            dealt = hands(obs, infer, recent, worlds, seed * 100_003 + k)
            tally = tallies[label]
            for c in unseen:
                hits = sum(h >> c & 1 for h in dealt)
                tally.card += surprise(hits, worlds, bool(truth >> c & 1))
            for mask in masks:
                hits = sum(h & mask == mask for h in dealt)
                tally.meld += surprise(hits, worlds, truth & mask == mask)
    return len(found), cards, events, tallies


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--worlds", type=int, default=300)
    parser.add_argument("--bot", default="heuristic", help="the self-play bot (a bot spec)")
    args = parser.parse_args(argv)
    if KERNEL is None:
        parser.error("the C kernel is not built")
    n, cards, events, tallies = measure(args.deals, args.seed, args.worlds, args.bot)
    print(f"{n} positions, {cards} unseen cards, {events} meld events")
    print(f"{'setting':22s} {'card xent':>10s} {'meld xent':>10s}")
    for label, tally in tallies.items():
        print(f"{label:22s} {tally.card / cards:10.4f} {tally.meld / max(1, events):10.4f}")


if __name__ == "__main__":
    main()
