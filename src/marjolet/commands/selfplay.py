"""``marjolet selfplay --seed N --out FILE``: a bot-vs-bot match as a record."""

from __future__ import annotations

import argparse

from marjolet.commands.common import add_rules_arguments, rules_from_args


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--seed", type=int, required=True, help="seed of the shuffles and the bots")
    parser.add_argument(
        "--out",
        metavar="FILE",
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
    from marjolet import outputs, record
    from marjolet.bots import make_bot
    from marjolet.errors import RecordError
    from marjolet.match import Match
    from marjolet.turns import play_match

    rules = rules_from_args(args)
    outputs.check_output(args.out, force=args.force, flag="--out")
    seats = [make_bot(spec, seed=args.seed * 2 + i) for i, spec in enumerate(args.bots)]
    match = Match(rules, seed=args.seed, players=[s.spec for s in seats])
    play_match(match, seats)
    try:
        record.save(record.Record.from_match(match), args.out)
    except OSError as exc:
        raise RecordError(f"cannot write {args.out!r}: {exc.strerror or exc}") from None
    t0, t1 = match.totals
    print(f"wrote {args.out}: {len(match.deals)} deals, totals {t0}-{t1}, winner {match.winner}")
    return 0
