"""The ``best`` bot's decisions at a fixed number of worlds, to compare two
checkouts.

Under a time budget the bot's choices depend on how fast the machine is;
with ``time=0`` and a ``worlds=`` cap they depend only on the code and the
seed. This prints one line per decision (position, exact horizon, chosen
action, every action's mean value) on seeded positions of both profiles,
so that two versions can be diffed: identical output means the same search
result world for world, so an arena run of one version measures the other
at equal speed (and conservatively if the other is faster).

    .venv/bin/python benchmarks/best_decisions.py > new.txt
    PYTHONPATH=/path/to/old/src python benchmarks/best_decisions.py > old.txt
    cmp old.txt new.txt

It also prints the worlds a second of each run on standard error (CPU
time), to see what changed in speed.
"""

from __future__ import annotations

import argparse
import random
import sys
import time

from marjolet.bots import make_bot
from marjolet.bots.best import BestBot
from marjolet.bots.heuristic import POLICY
from marjolet.engine import Deal
from marjolet.observation import observe
from marjolet.rules import CLASSIC, ENCYCLOPEDIA


def positions(per_profile: int, seed: int) -> list[tuple[int, Deal]]:
    """Phase-1 positions with a choice, reached by heuristic play."""
    rng = random.Random(seed)
    out: list[tuple[int, Deal]] = []
    for rules in (CLASSIC, ENCYCLOPEDIA):
        for i in range(per_profile):
            deck = list(range(32))
            rng.shuffle(deck)
            deal = Deal(deck, rng.randrange(2), rules)
            for _ in range(rng.randrange(0, 34)):
                if deal.is_over:
                    break
                deal.push(POLICY.act(deal))
            if not deal.is_over and not deal.stock_empty and len(deal.legal_actions()) > 1:
                out.append((i, deal))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=60, help="tried per profile")
    parser.add_argument("--worlds", type=int, default=64, help="worlds per decision")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--params", default="", help="more bot parameters, e.g. eval=noisy")
    args = parser.parse_args(argv)
    worlds = 0
    seconds = 0.0
    for i, deal in positions(args.positions, args.seed):
        legal = deal.legal_actions()
        obs = observe(deal, deal.to_move)
        for exact in (2, 3):
            extra = f",{args.params}" if args.params else ""
            bot = make_bot(f"best:worlds={args.worlds},time=0,exact={exact}{extra}", seed=i)
            assert isinstance(bot, BestBot)
            start = time.process_time()
            action = bot.choose(obs, legal)
            seconds += time.process_time() - start
            worlds += args.worlds
            values = sorted((a, round(v, 6)) for a, v in bot.last_values.items())
            print(i, exact, action, values)
    if seconds > 0:
        print(f"{worlds / seconds:.0f} worlds a second (CPU)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
