"""Options and helpers shared by several subcommands."""

from __future__ import annotations

import argparse
import unicodedata
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TypeVar

from marjolet.errors import MarjoletError, RulesError
from marjolet.rules import DEAL_PATTERNS, JACK_QUEEN_MODES, Rules, check_new_match

N = TypeVar("N", int, float)

#: The rules options' help for the research commands, rule ids included
#: (``marjolet play`` gives its players the same in their words).
RULES_HELP = {
    "rules": "rules",
    "profile": "classic (default) or encyclopedia",
    "deal_pattern": "batches of the deal (R4)",
    "all_tricks_bonus": "bonus for all six last tricks (R17)",
    "dix_on_play": "an unexchanged seven scores when played (R19)",
    "jack_queen": "JQs meld mode (R11)",
    "target": "match target (R22)",
    "one_meld_per_window": "at most one declaration per trick won",
}

def plain_int(text: str) -> int:
    """The ``type`` of every option that takes a whole number (``--seed``,
    ``--matches``, ``--target``...). Python's ``int()`` also takes ``1_000``
    and other scripts' digits (``١٠٠``): an option is written, logged and
    compared as typed, so its number is plain ASCII, one spelling per value,
    as in a bot spec (:meth:`marjolet.bots.base.Param.parse`). A sign and
    surrounding blanks are taken as ``int()`` takes them (``--seed -1``).
    Any other text is refused in argparse's own words (``invalid int
    value``), which ``marjolet play`` says in the player's language."""
    return _plain_number(text, int, "int")


def plain_float(text: str) -> float:
    """The ``type`` of every option that takes a number of seconds, a rate
    or an Elo (``--budget``, ``--alpha``, ``--sprt``...): as
    :func:`plain_int`, plain ASCII with no ``_`` (``float()`` takes
    ``1_0.5`` and ``١٫٥``); what ``float()`` refuses is refused in
    argparse's words (``invalid float value``)."""
    return _plain_number(text, float, "float")


def _plain_number(text: str, kind: Callable[[str], N], name: str) -> N:
    if not text.isascii() or "_" in text:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a plain number (write it with the digits 0-9, no '_')"
        )
    try:
        return kind(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid {name} value: {text!r}") from None


def file_name(text: str) -> str:
    """The ``type`` of every argument that names a file: the text as given,
    refused when empty. An empty name is a slip (an unset shell variable):
    read as "not given" it sent an output to standard output or to the
    default place, and read as a path it was taken for the current folder."""
    if not text:
        raise argparse.ArgumentTypeError("an empty file name; give the name of a file")
    return text


def profile_name(text: str) -> str:
    """The ``type`` of ``--rules``: a profile by its name in any language of
    the screens, any case (« classique », « Encyclopédie », ``Classic``), as
    its record name (``classic``), accents optional (``encyclopedie``); any
    other text as given, for the refusal that lists the profiles."""
    from marjolet.i18n import LANGS, translate
    from marjolet.rules import PROFILE_NAMES

    def plain(word: str) -> str:
        letters = unicodedata.normalize("NFKD", word.strip().casefold())
        return "".join(c for c in letters if not unicodedata.combining(c))

    for name in PROFILE_NAMES:
        said = {name, *(translate(f"lobby.profile_{name}", lang) for lang in LANGS)}
        if plain(text) in {plain(word) for word in said}:
            return name
    return text


#: ``--deal-pattern``'s choices: the deal patterns of the rules (R4), as ``3-3``.
PATTERN_TEXTS = tuple("-".join(str(n) for n in pattern) for pattern in DEAL_PATTERNS)


def add_rules_arguments(
    parser: argparse.ArgumentParser, words: dict[str, str] | None = None
) -> None:
    """``--rules PROFILE`` and one flag per variation (rules.md), described
    by ``words`` (the keys of :data:`RULES_HELP`, and ``metavar_profile``)."""
    say = RULES_HELP if words is None else words
    group = parser.add_argument_group(say["rules"])
    group.add_argument(
        "--rules",
        "--profile",
        dest="profile",
        default="classic",
        type=profile_name,
        metavar=say.get("metavar_profile", "PROFILE"),
        help=say["profile"],
    )
    group.add_argument("--deal-pattern", choices=PATTERN_TEXTS, help=say["deal_pattern"])
    group.add_argument(
        "--all-tricks-bonus", type=plain_int, metavar="N", help=say["all_tricks_bonus"]
    )
    group.add_argument("--dix-on-play", choices=["yes", "no"], help=say["dix_on_play"])
    group.add_argument("--jack-queen", choices=JACK_QUEEN_MODES, help=say["jack_queen"])
    group.add_argument("--target", type=plain_int, metavar="N", help=say["target"])
    group.add_argument(
        "--one-meld-per-window",
        action="store_true",
        default=None,
        help=say["one_meld_per_window"],
    )


#: The flag of each rule setting, for error messages.
FLAGS = {
    "deal_pattern": "--deal-pattern",
    "all_tricks_bonus": "--all-tricks-bonus",
    "dix_on_play": "--dix-on-play",
    "jack_queen": "--jack-queen",
    "target": "--target",
    "one_meld_per_window": "--one-meld-per-window",
}


def rules_from_args(args: argparse.Namespace) -> Rules:
    """The rules of a new match from the options; an error names the flag
    that was given (``--target: ...``), and the limits of
    :data:`marjolet.rules.NEW_MATCH_LIMITS` apply."""
    try:
        rules = Rules.profile_named(args.profile)
    except RulesError as exc:
        raise RulesError(f"--rules: {exc}") from None
    changes: dict[str, object] = {}
    if args.deal_pattern:
        changes["deal_pattern"] = tuple(int(x) for x in args.deal_pattern.split("-"))
    if args.all_tricks_bonus is not None:
        changes["all_tricks_bonus"] = args.all_tricks_bonus
    if args.dix_on_play:
        changes["dix_on_play"] = args.dix_on_play == "yes"
    if args.jack_queen:
        changes["jack_queen"] = args.jack_queen
    if args.target is not None:
        changes["target"] = args.target
    if args.one_meld_per_window:
        changes["one_meld_per_window"] = True
    for key, value in changes.items():
        try:
            rules = check_new_match(rules.replace(**{key: value}))
        except RulesError as exc:
            raise RulesError(f"{FLAGS[key]}: {exc}") from None
    return rules


def rules_in_words(args: argparse.Namespace) -> Rules:
    """:func:`rules_from_args` for a player (``marjolet play``, ``rules``):
    a rule set not known or a setting out of its limits refused in the
    player's language (``cli.unknown_rules``, ``cli.setting_range``), from
    the rules' own data, not their English."""
    from marjolet.i18n import number
    from marjolet.rules import NEW_MATCH_LIMITS, PROFILES, beyond_new_match_limits
    from marjolet.tui.words import lang, tr

    if args.profile not in PROFILES:  # named as the player's screens name them
        known = ", ".join(tr(f"lobby.profile_{name}") for name in PROFILES)
        raise MarjoletError(tr("cli.unknown_rules", flag="--rules", name=args.profile, known=known))
    beyond = beyond_new_match_limits({key: getattr(args, key, None) for key in NEW_MATCH_LIMITS})
    if beyond is not None:
        key, low, high, value = beyond
        said = {"low": low, "high": high, "value": value}  # « entre 100 et 10 000 »
        words = {"flag": FLAGS[key], **{k: number(v, lang()) for k, v in said.items()}}
        raise MarjoletError(tr("cli.setting_range", **words))
    return rules_from_args(args)


def missing_web_extra(module: str | None) -> MarjoletError:
    """The one line for a module of the web extra that is missing or broken."""
    return MarjoletError(
        f"the web extra is not installed ({module}): pip install 'marjolet[web]'"
    )


@contextmanager
def web_extra_imports() -> Iterator[None]:
    """Imports of the web extra: a module that is missing, or found yet
    broken (a damaged install), is :func:`missing_web_extra`'s one line. A
    :class:`MarjoletError` passes (a kernel setting refused on import)."""
    try:
        yield
    except ImportError as exc:
        if isinstance(exc, MarjoletError):
            raise
        raise missing_web_extra(exc.name) from None
