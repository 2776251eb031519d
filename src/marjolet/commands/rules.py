"""``marjolet rules``: print the rule set in force, or its rule book."""

from __future__ import annotations

import argparse
import json

from marjolet.commands.common import add_rules_arguments, rules_from_args
from marjolet.errors import MarjoletError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_rules_arguments(parser)
    output = parser.add_mutually_exclusive_group()
    output.add_argument("--json", action="store_true", help="print the rules object of record.md")
    output.add_argument(
        "--book",
        action="store_true",
        help="print the rules of the game in words, for these settings (as the web's rules page)",
    )
    parser.add_argument(
        "--lang",
        choices=("fr", "en"),
        help="the rule book's language (default: from LANG, else English)",
    )


def run(args: argparse.Namespace) -> int:
    if args.lang is not None and not args.book:
        raise MarjoletError("--lang chooses the rule book's language: use it with --book")
    rules = rules_from_args(args)
    if args.json:
        print(json.dumps(rules.to_json()))
    elif args.book:
        from marjolet.i18n import from_environment, translate
        from marjolet.i18n.rulebook import rulebook, to_text

        lang = args.lang or from_environment()
        print(to_text(rulebook(rules, lang), translate("rules.title", lang)), end="")
    else:
        print(rules.describe())
    return 0
