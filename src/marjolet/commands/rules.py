"""``marjolet rules``: print the rule set in force, or its rule book, in the
player's language (``--lang``, else ``LANG``)."""

from __future__ import annotations

import argparse
import json

from marjolet.commands.common import add_rules_arguments, rules_from_args


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
        help="the language of the settings table and the rule book "
        "(default: from LANG, else English; --json is the same in any)",
    )


def run(args: argparse.Namespace) -> int:
    rules = rules_from_args(args)
    if args.json:
        print(json.dumps(rules.to_json()))
        return 0
    from marjolet.i18n import from_environment, translate
    from marjolet.i18n.rulebook import rulebook, settings_text, to_text

    lang = args.lang or from_environment()
    if args.book:
        print(to_text(rulebook(rules, lang), translate("rules.title", lang)), end="")
    else:  # the settings in the player's words, as the rule book's table gives them
        print(settings_text(rules, lang))
    return 0
