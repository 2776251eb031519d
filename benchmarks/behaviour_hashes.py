"""Hashes of the bots' seeded actions and of the worked examples' replays,
to prove that a refactoring changed no behaviour.

Every bot whose choices depend only on the code and the seed (no time
budget) plays a few seeded deals of both rule profiles against the
heuristic; the hash of each action sequence is printed, one line per
(bot, profile). The replay result (or error) of every worked example in
``shared/spec/examples`` is hashed too. Run it on two checkouts and diff:

    PYTHONPATH=src .venv/bin/python benchmarks/behaviour_hashes.py > new.txt
    PYTHONPATH=/old/src .venv/bin/python benchmarks/behaviour_hashes.py > old.txt
    cmp old.txt new.txt

The kernel and the pure-Python path may choose differently (the C search
draws its own worlds), so compare runs of the same mode
(``MARJOLET_KERNEL=0`` for the Python one); the first line names the mode.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

from marjolet import kernel
from marjolet.bots import make_bot
from marjolet.errors import RecordError
from marjolet.match import Match
from marjolet.record import load, replay
from marjolet.rules import CLASSIC, ENCYCLOPEDIA
from marjolet.turns import play_deal

#: Bot specs whose actions depend only on the code and the seed.
SPECS = (
    "heuristic",
    "solver",
    "pimc:worlds=12",
    "best:worlds=12,time=0",
    "ismcts:iterations=40",
    "cheater:worlds=12,time=0,exact=2",  # a fixed horizon: its default grows with the time left
)
EXAMPLES = Path(__file__).resolve().parents[2] / "shared" / "spec" / "examples"


def match_hash(spec: str, rules_name: str, seed: int, deals: int) -> str:
    """The hash of every action of ``deals`` seeded deals of ``spec`` against
    the heuristic (``spec`` sits in seat 0 of even seeds, seat 1 of odd)."""
    rules = CLASSIC if rules_name == "classic" else ENCYCLOPEDIA
    match = Match(rules, seed=seed)
    bots = [make_bot(spec, seed=seed), make_bot("heuristic", seed=seed + 1)]
    if seed % 2:
        bots.reverse()
    digest = hashlib.sha256()
    for _ in range(deals):
        if match.is_over:
            break
        match.start_deal()
        play_deal(match, bots)
        deal = match.deal
        assert deal is not None
        digest.update(json.dumps(list(deal.moves)).encode())
    return digest.hexdigest()[:16]


def example_hash(path: Path) -> str:
    try:
        result: object = replay(load(path, check=False)).to_json()
    except RecordError as exc:
        result = {"error": exc.to_json()}
    return hashlib.sha256(json.dumps(result, sort_keys=True).encode()).hexdigest()[:16]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=4, help="matches per bot and profile")
    parser.add_argument("--deals", type=int, default=3, help="deals per match")
    args = parser.parse_args(argv)
    print(f"engine: {kernel.description()}")
    for spec in SPECS:
        for rules_name in ("classic", "encyclopedia"):
            hashes = [match_hash(spec, rules_name, s, args.deals) for s in range(args.seeds)]
            print(f"{spec:24} {rules_name:12} {' '.join(hashes)}", flush=True)
    for path in sorted(EXAMPLES.glob("*.json")):
        if not path.name.endswith(".expected.json"):
            print(f"example {path.stem:40} {example_hash(path)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
