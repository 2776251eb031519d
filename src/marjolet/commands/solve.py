"""``marjolet solve RECORD [--json]``: the exact value and best cards of the
position at the end of a record whose last deal is in tricks 11-16."""

from __future__ import annotations

import argparse
import json

from marjolet.commands.common import file_name
from marjolet.errors import MarjoletError


class NotSolvableError(MarjoletError):
    """The record's last position is not an ending the solver can take."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "file", metavar="RECORD", type=file_name, help="a record, JSON or text form ('-' for stdin)"
    )
    parser.add_argument(
        "--json",
        action="store_true",
        help='print {"to_move": p, "value": v, "best": [...]} (value: final deal-score '
        "difference, player to move minus opponent, under best play)",
    )


def run(args: argparse.Namespace) -> int:
    from marjolet import record
    from marjolet.actions import ACTION_NAMES
    from marjolet.bots.solver import EndingSolver
    from marjolet.cards import CardSet

    where = record.source_name(args.file)  # "standard input" for '-', as replay says
    try:
        rec = record.loads(record.read_text(args.file), check=False)
        match = record.to_match(rec)
    except MarjoletError as exc:
        raise type(exc)(record.located(args.file, exc)) from None
    deal = match.deal
    if deal is None:
        raise NotSolvableError(f"{where}: the record has no deal to solve")
    d = len(match.deals) - 1
    if deal.is_over:
        raise NotSolvableError(f"{where}: deal {d} is finished; there is no position to solve")
    if not deal.stock_empty:
        raise NotSolvableError(
            f"{where}: deal {d} is at trick {deal.trick_number} with {deal.stock_size} cards "
            "still to draw; solve needs a position in tricks 11-16 (stock empty)"
        )
    solver = EndingSolver.for_deal(deal)
    solution = solver.solve(deal)
    if args.json:
        print(json.dumps(solution.to_json()))
        return 0
    p = solution.to_move
    values = solver.exact_values(deal)
    print(f"deal {d}, trick {deal.trick_number}, trumps {'CDHS'[deal.trump]}; player {p} to move")
    for seat in (0, 1):
        print(f"  player {seat}: {CardSet(deal.hand_mask(seat))}   points {deal.points[seat]}")
    if deal.lead is not None:
        print(f"  led: {ACTION_NAMES[deal.lead]}")
    print(
        f"value {solution.value:+d} (final deal-score difference, player {p} minus player {p ^ 1}, "
        "under best play)"
    )
    print("best: " + " ".join(ACTION_NAMES[a] for a in solution.best))
    order = sorted(values, key=lambda a: (-values[a], a))
    print("all:  " + "  ".join(f"{ACTION_NAMES[a]} {values[a]:+d}" for a in order))
    return 0
