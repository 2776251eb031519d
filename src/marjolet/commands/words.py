"""The player's language in the player's commands' help and usage errors.

``marjolet``, ``marjolet play``, ``review``, ``replay`` and ``rules``
speak the language of the last ``--lang`` among the raw arguments, else the
environment's (``LANG``): :func:`prepare` chooses it before the options are
added, so their help texts (``cli.help.*`` and each command's
``<command>.help.*`` keys), argparse's headings (:class:`Help`) and the line
that reports a usage error (:func:`worded_usage_error`, ``cli.usage.*``) come in it.
The developer commands (arena, bench, serve...) keep argparse's English:
their users read the research docs, which are in English.

Standard library and the catalogues only, so ``marjolet --help`` stays fast.
"""

from __future__ import annotations

import argparse
import errno
import os
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from marjolet.outputs import OutputError

#: The commands a player types: their help and usage errors are translated.
PLAYER_COMMANDS = ("play", "replay", "review", "rules")

#: ``--lang`` as argparse takes it: whole, or cut short where no other
#: option starts the same (``--l`` before the command and after ``rules``
#: or ``review``; after ``play`` it is ambiguous with ``--level``).
LANG_SPELLINGS = ("--l", "--la", "--lan", "--lang")


def lang_argument(argv: Sequence[str]) -> str | None:
    """The value of the last usable ``--lang X`` or ``--lang=X`` (or an
    abbreviation argparse accepts) before any ``--``."""
    from marjolet.i18n import LANGS

    found = None
    for i, arg in enumerate(argv):
        if arg == "--":
            break
        name, equals, value = arg.partition("=")
        if name not in LANG_SPELLINGS:
            continue
        if not equals:
            value = argv[i + 1] if i + 1 < len(argv) else ""
        found = value if value in LANGS else found
    return found


@contextmanager
def kept() -> Iterator[None]:
    """Leave the language in use as it was before the block: a command run
    in a program (``main([...])``) leaves no trace of :func:`prepare`."""
    from marjolet.tui import words

    before = words.lang()
    try:
        yield
    finally:
        words.use(before)


def prepare(argv: Sequence[str]) -> None:
    """Speak the player's language before the options are read, so that
    ``--help`` and a usage error come in it: the last ``--lang`` among the
    raw arguments, else the environment's language."""
    from marjolet.i18n import from_environment
    from marjolet.tui import words

    words.use(lang_argument(argv) or from_environment())


def tr(key: str, /, **args: object) -> str:
    """The catalogue text of ``key`` in the language in use
    (:func:`marjolet.tui.words.tr`)."""
    from marjolet.tui import words

    return words.tr(key, **args)


def translate_parser(parser: argparse.ArgumentParser, description: str | None = None) -> None:
    """Give ``parser`` the headings, "usage:" and ``-h``'s help of the
    language in use, and ``description`` if given."""
    from marjolet.tui.words import tr

    if description is not None:
        parser.description = description
    parser.formatter_class = Help
    parser._optionals.title = tr("cli.help.options")
    parser._positionals.title = tr("cli.help.positionals")
    for action in parser._actions:
        if action.dest == "help":
            action.help = tr("cli.help.help")


def rules_words() -> dict[str, str]:
    """The rules options' help for a player (no rule ids), for
    :func:`marjolet.commands.common.add_rules_arguments`."""
    from marjolet.commands.common import RULES_HELP
    from marjolet.rules import CLASSIC, ENCYCLOPEDIA
    from marjolet.tui.words import tr

    values = {  # the defaults the help quotes, from the rules' home
        "classic": CLASSIC.all_tricks_bonus,
        "encyclopedia": ENCYCLOPEDIA.all_tricks_bonus,
        "target": CLASSIC.target,
    }
    said = {key: tr(f"cli.help.{key}", **values) for key in RULES_HELP}
    return said | {"metavar_profile": tr("cli.help.metavar_profile")}


class Help(argparse.HelpFormatter):
    """argparse's help with its "usage:" and its headings' colons in the
    player's language (French sets a space before a colon)."""

    def start_section(self, heading: str | None) -> None:
        from marjolet.tui.words import tr

        super().start_section(None if heading is None else tr("cli.help.section", title=heading))

    def add_usage(
        self,
        usage: str | None,
        actions: Iterable[argparse.Action],
        groups: Iterable[argparse._MutuallyExclusiveGroup],
        prefix: str | None = None,
    ) -> None:
        from marjolet.tui.words import tr

        words = tr("cli.help.usage") if prefix is None else prefix
        super().add_usage(usage, actions, groups, words)


#: argparse's usage errors, read to be said in the player's words (``cli.usage.*``).
USAGE_ERRORS = (
    (r"unrecognized arguments: (?P<args>.*)", "unknown"),
    (r"argument (?P<option>[^:]+): expected one argument", "no_value"),
    (
        r"argument (?P<option>[^:]+): invalid choice: (?P<value>.*) "
        r"\(choose from (?P<choices>.*)\)",
        "choice",
    ),
    (r"argument (?P<option>[^:]+): invalid int value: '(?P<value>.*)'", "integer"),
    (r"argument (?P<option>[^:]+): invalid float value: '(?P<value>.*)'", "float"),
    (r"argument (?P<option>[^:]+): '(?P<value>.*)' is not a plain number \(.*\)", "plain_integer"),
    (r"ambiguous option: (?P<option>\S+) could match (?P<matches>.*)", "ambiguous"),
    (r"argument (?P<option>[^:]+): an empty file name.*", "empty_name"),
    (r"argument (?P<option>[^:]+): not allowed with argument (?P<other>.*)", "not_allowed"),
    (r"the following arguments are required: (?P<args>.*)", "required"),
    (r"argument (?P<option>[^:]+): (?P<detail>.*)", "option"),
)


def worded_usage_error(
    message: str,
    help_command: str,
    options: Mapping[str, argparse.Action] | None = None,
    *,
    english: bool = True,
) -> str:
    """The line that reports argparse's usage error ``message`` in the
    player's language (``marjolet : erreur : --seed attend un nombre entier,
    pas « x »``); ``help_command`` is how to ask for the help (said after an
    unknown option); ``options`` tells a decimal option from a whole one.
    A message not foreseen is given as argparse wrote it, and so is every
    message in English unless ``english`` (``marjolet play`` words its
    English too)."""
    from marjolet.i18n import DEFAULT
    from marjolet.tui.words import lang, tr

    if not english and lang() == DEFAULT:
        return f"marjolet: error: {message}"
    for pattern, key in USAGE_ERRORS:
        found = re.fullmatch(pattern, message, flags=re.DOTALL)
        if found is not None:
            parts = found.groupdict()
            if "choices" in parts:  # 'fr', 'en' -> fr, en; '4' (or 3, not a text) -> 4
                parts["choices"] = parts["choices"].replace("'", "")
                value = parts["value"]
                quoted = len(value) > 1 and value[0] == value[-1] == "'"
                parts["value"] = value[1:-1] if quoted else value
            if key == "choice" and parts["option"] == tr("cli.help.metavar_command"):
                key = "unknown_command"  # marjolet bogus: no such command
            if key == "unknown":  # the help as this player can ask it
                parts["help"] = help_command
            if key == "plain_integer" and _decimal(options, parts["option"]):
                key = "plain_float"
            return tr("cli.error", message=tr(f"cli.usage.{key}", **parts))
    return tr("cli.error", message=message)


def _decimal(options: Mapping[str, argparse.Action] | None, option: str) -> bool:
    from marjolet.commands.common import plain_float

    action = None if options is None else options.get(option.split("/")[0])
    return action is not None and action.type is plain_float


def worded_error(exc: Exception) -> str:
    """The sentence of an error that ends a player's command, for
    ``cli.error``: standard output's failure in the player's words
    (``cli.stdout_failed``); any other error is worded where it is raised."""
    from marjolet.outputs import OutputError
    from marjolet.tui.words import tr

    if isinstance(exc, OutputError) and exc.code == "stdout":
        return tr("cli.stdout_failed", detail=exc.detail)
    return str(exc)


def output_reason(exc: OutputError | OSError) -> str:
    """Why a file the player named may not, or cannot, be written, in the
    player's words (``cli.output.*``): from the refusal's ``code``
    (:func:`marjolet.outputs.check_output`), or from the system's error
    while writing (:func:`marjolet.outputs.write_atomic`)."""
    from marjolet.outputs import OutputError
    from marjolet.tui.words import tr

    if isinstance(exc, OutputError):
        if exc.code in ("exists", "folder", "special", "no_folder", "cannot_write"):
            return tr(f"cli.output.{exc.code}", detail=exc.detail, folder=exc.detail)
        return str(exc)  # pragma: no cover - every refusal of check_output has a code
    if isinstance(exc, IsADirectoryError):
        return tr("cli.output.folder")
    if isinstance(exc, FileExistsError):  # a device, pipe or socket, never replaced
        return tr("cli.output.special")
    folder = os.path.dirname(os.path.abspath(exc.filename)) if exc.filename else ""
    if isinstance(exc, FileNotFoundError) and folder and not os.path.isdir(folder):
        return tr("cli.output.no_folder", folder=folder)
    said = _SYSTEM_REASONS.get(exc.errno or 0)
    return tr(said) if said else tr("cli.output.cannot_write", detail=exc.strerror or exc)


#: The system's refusals a player meets when a file cannot be written, in
#: the player's words (the others keep the system's, English, text).
_SYSTEM_REASONS = {
    errno.EACCES: "cli.output.permission",
    errno.EPERM: "cli.output.permission",
    errno.EROFS: "cli.output.read_only",
    errno.ENOSPC: "cli.output.disk_full",
    errno.EDQUOT: "cli.output.disk_full",
    errno.ENOTDIR: "cli.output.not_a_folder",
    errno.ENOENT: "cli.output.cannot_create",
}


def help_command(command: str | None) -> str:
    """``marjolet [COMMAND] --help`` as it works from here."""
    from marjolet.tui.launch import program

    return " ".join(filter(None, (program(), command, "--help")))
