"""``marjolet selfplay --seed N --out FILE``: a bot-vs-bot match as a record."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from marjolet.commands.common import add_rules_arguments, file_name, plain_int, rules_from_args

if TYPE_CHECKING:
    from marjolet.match import Match


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--seed", type=plain_int, required=True, help="seed of the shuffles and the bots"
    )
    parser.add_argument(
        "--out",
        metavar="FILE",
        type=file_name,
        required=True,
        help="record file (.json for JSON, anything else for the text form)",
    )
    parser.add_argument("--force", action="store_true", help="replace --out if it exists")
    parser.add_argument(
        "--bots",
        nargs=2,
        metavar="SPEC",
        default=["random", "random"],
        help="the two players' bot specs (default: random random)",
    )
    add_rules_arguments(parser)


def run(args: argparse.Namespace) -> int:
    from marjolet import outputs
    from marjolet.bots import make_bot
    from marjolet.bots.base import BotFault, close_bots, end_match
    from marjolet.errors import RecordError
    from marjolet.match import Match
    from marjolet.turns import faulty_seat, play_match, position_text

    rules = rules_from_args(args)
    outputs.check_output(args.out, force=args.force, flag="--out")
    seats = [make_bot(spec, seed=args.seed * 2 + i) for i, spec in enumerate(args.bots)]
    match = Match(rules, seed=args.seed, players=[s.spec for s in seats])
    try:
        play_match(match, seats)
    except BotFault as fault:  # the match ends there: its record up to the fault
        seat = faulty_seat(fault.seat, match)
        where = position_text(match)
        told = f"bot {seats[seat].spec!r} (seat {seat}) forfeited in {where}: {fault}"
        end_match(seats, match.running_totals, 1 - seat)
        try:
            _save(match, args.out)
        except RecordError as exc:  # both facts, in one line
            raise RecordError(f"{told}; {exc}") from None
        print(f"marjolet: {told}; the record up to there is in {args.out}", file=sys.stderr)
        return 1
    else:
        winner = match.winner
        assert winner is not None
        end_match(seats, match.totals, winner)  # the protocol's `result`
    finally:
        close_bots(seats)  # an external bot's program ends now
    _save(match, args.out)
    t0, t1 = match.totals
    print(f"wrote {args.out}: {len(match.deals)} deals, totals {t0}-{t1}, winner {match.winner}")
    return 0


def _save(match: Match, out: str) -> None:
    from marjolet import record
    from marjolet.errors import RecordError

    try:
        record.save(record.Record.from_match(match), out)
    except OSError as exc:
        raise RecordError(f"cannot write {out!r}: {exc.strerror or exc}") from None
