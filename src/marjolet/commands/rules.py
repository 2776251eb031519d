"""``marjolet rules``: print the rule set in force, or its rule book, in the
player's language (``--lang``, else ``LANG``)."""

from __future__ import annotations

import argparse
import json

from marjolet.commands.common import add_rules_arguments, rules_in_words
from marjolet.commands.words import rules_words, tr


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options, described in the player's language
    (:func:`marjolet.commands.words.prepare`), the rules' as ``play``'s."""
    add_rules_arguments(parser, rules_words())
    output = parser.add_mutually_exclusive_group()
    output.add_argument("--json", action="store_true", help=tr("rules.help.json"))
    output.add_argument("--book", action="store_true", help=tr("rules.help.book"))
    parser.add_argument("--lang", choices=("fr", "en"), help=tr("rules.help.lang"))


def run(args: argparse.Namespace) -> int:
    rules = rules_in_words(args)  # refused in the player's words, as play refuses them
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
