"""``marjolet rules``: print the rule set in force."""

from __future__ import annotations

import argparse
import json

from marjolet.commands.common import add_rules_arguments, rules_from_args


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_rules_arguments(parser)
    parser.add_argument("--json", action="store_true", help="print the rules object of record.md")


def run(args: argparse.Namespace) -> int:
    rules = rules_from_args(args)
    if args.json:
        print(json.dumps(rules.to_json()))
    else:
        print(rules.describe())
    return 0
