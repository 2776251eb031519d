"""Protocol overhead per move: an ``act`` and its answer through a child
process, against the same bot called in-process.

The positions are every decision of seeded random matches. Each is timed
as one ``choose`` call, the program already started (the ``hello`` and the
process start are not part of a move):

- ``in-process random``: ``RandomBot.choose``, the baseline;
- ``host messages``: what the host does per move without a process:
  ``act_message`` + JSON encoding + decoding and checking an answer;
- ``bot-side rebuild``: what ``bot-serve`` does per move besides the bot:
  ``parse_act`` + ``observation_from_act`` (deal a consistent world, replay
  the public actions, observe);
- ``exec: example bot``: the full round trip to ``examples/protocol_bot.py``
  (a few lines of Python per move, no rebuild): the cost of the protocol
  itself, pipes and JSON on both sides;
- ``exec: bot-serve random``: the full round trip to ``marjolet bot-serve
  random``, i.e. one of our bots played through the protocol.

Overhead per move = round trip - in-process. Run on a quiet machine::

    nice .venv/bin/python benchmarks/bench_protocol.py            # 3000 moves
    nice .venv/bin/python benchmarks/bench_protocol.py --moves 500 --json
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from marjolet.bots import make_bot
from marjolet.bots.external import ExternalBot
from marjolet.bots.protocol import (
    act_message,
    decode,
    encode,
    observation_from_act,
    parse_act,
    parse_action_answer,
)
from marjolet.match import Match
from marjolet.observation import Observation

EXAMPLE_BOT = Path(__file__).resolve().parents[1] / "examples" / "protocol_bot.py"

Position = tuple[Observation, list[int]]


def positions(count: int, seed: int) -> list[Position]:
    """Every decision of seeded random matches, until ``count`` of them."""
    out: list[Position] = []
    chooser = make_bot("random", seed=seed)
    match_seed = seed
    while len(out) < count:
        match = Match(seed=match_seed)
        match_seed += 1
        while not match.is_over and len(out) < count:
            if match.needs_deal:
                match.start_deal()
            deal = match.deal
            assert deal is not None
            seat = deal.to_move
            legal = deal.legal_actions()
            obs = match.observation(seat)
            out.append((obs, legal))
            match.play(chooser.choose(obs, legal))
    return out


def time_each(
    fn: Callable[[Observation, list[int]], object], cases: Sequence[Position]
) -> list[float]:
    """Seconds per call, one figure per position."""
    out = []
    clock = time.perf_counter
    for obs, legal in cases:
        t0 = clock()
        fn(obs, legal)
        out.append(clock() - t0)
    return out


def summary(name: str, seconds: list[float]) -> dict[str, float | str]:
    ordered = sorted(seconds)
    return {
        "name": name,
        "moves": len(seconds),
        "median_us": statistics.median(ordered) * 1e6,
        "p95_us": ordered[int(0.95 * (len(ordered) - 1))] * 1e6,
        "mean_us": statistics.fmean(ordered) * 1e6,
    }


def host_messages(obs: Observation, legal: list[int]) -> int:
    line = encode(act_message(obs, legal, 1.0))
    answer = decode(b'{"action": "%s"}\n' % decode(line)["legal"][0].encode())
    return parse_action_answer(answer, legal)


def bot_side(obs: Observation, legal: list[int]) -> object:
    request = parse_act(decode(encode(act_message(obs, legal, 1.0))))
    return observation_from_act(request)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="marjolet-bot/1 overhead per move")
    parser.add_argument("--moves", type=int, default=3000, help="positions timed (default 3000)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)

    cases = positions(args.moves, args.seed)
    rows = []
    baseline = make_bot("random", seed=1)
    rows.append(summary("in-process random", time_each(baseline.choose, cases)))
    rows.append(summary("host messages (no process)", time_each(host_messages, cases)))
    rows.append(summary("bot-side rebuild (no process)", time_each(bot_side, cases)))
    with tempfile.TemporaryDirectory() as tmp:
        wrapper = Path(tmp) / "serve-random.sh"
        wrapper.write_text(
            f"#!/bin/sh\nexec '{sys.executable}' -m marjolet bot-serve random --seed 1\n"
        )
        wrapper.chmod(0o755)
        for name, path in (("exec: example bot", EXAMPLE_BOT), ("exec: bot-serve random", wrapper)):
            bot = make_bot(f"exec:{path}")
            assert isinstance(bot, ExternalBot)
            with bot:
                bot.start()
                time_each(bot.choose, cases[:50])  # warm up both sides
                rows.append(summary(name, time_each(bot.choose, cases)))
    base = float(rows[0]["median_us"])
    for row in rows:
        row["overhead_median_us"] = float(row["median_us"]) - base
    if args.json:
        print(json.dumps({"cpus": os.cpu_count(), "python": sys.version.split()[0], "rows": rows}))
        return 0
    header = ("median", "p95", "mean", "overhead")
    print(f"{'per move (microseconds)':32} " + " ".join(f"{h:>10}" for h in header))
    for row in rows:
        print(
            f"{row['name']:32} {row['median_us']:10.1f} {row['p95_us']:10.1f} "
            f"{row['mean_us']:10.1f} {row['overhead_median_us']:10.1f}"
        )
    print(f"{len(cases)} positions from seeded random matches (seed {args.seed})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
