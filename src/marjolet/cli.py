"""The ``marjolet`` command: a thin dispatcher.

Each subcommand lives in its own module that provides
``add_arguments(parser)`` and ``run(args) -> int`` and keeps heavy imports
inside ``run``; this file only lists them. Every input error
(:class:`~marjolet.errors.MarjoletError`, a bad file, a bad option) ends as
one line on standard error and exit status 2, never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Callable, Sequence
from typing import NoReturn, cast

from marjolet.commands import words
from marjolet.commands.words import LANG_SPELLINGS, PLAYER_COMMANDS
from marjolet.errors import MarjoletError

#: name -> module, imported lazily. Each command's one-line help is
#: ``cli.command.<name>`` in the catalogues (``-`` read as ``_``), said in
#: the player's language in ``marjolet --help``.
COMMANDS: dict[str, str] = {
    "play": "marjolet.commands.play",
    "replay": "marjolet.commands.replay",
    "convert": "marjolet.commands.convert",
    "rules": "marjolet.commands.rules",
    "selfplay": "marjolet.commands.selfplay",
    "serve": "marjolet.commands.serve",
    "db-copy": "marjolet.commands.db_copy",
    "arena": "marjolet.commands.arena",
    "bot-serve": "marjolet.commands.bot_serve",
    "bench": "marjolet.commands.bench",
    "bots": "marjolet.commands.bots",
    "solve": "marjolet.commands.solve",
    "review": "marjolet.commands.review",
}


class OneLineParser(argparse.ArgumentParser):
    """argparse that reports usage errors in one line with exit status 2.

    ``word_error``, when set, words that line itself: ``marjolet`` and the
    player's commands say it in the player's language."""

    word_error: Callable[[str], str] | None = None

    def error(self, message: str) -> NoReturn:
        if self.word_error is not None:
            self.exit(2, self.word_error(message) + "\n")
        self.exit(2, f"{self.prog}: error: {message}\n")


def build_parser(command: str | None = None, argv: Sequence[str] = ()) -> argparse.ArgumentParser:
    """The argument parser. Only ``command``'s module is imported (the others
    are listed by name and help text), so start-up stays fast.

    ``marjolet`` alone and the player's commands (``play``, ``review``,
    ``replay``, ``rules``: :data:`marjolet.commands.words.PLAYER_COMMANDS`)
    speak the player's language: the last ``--lang`` among the raw
    arguments, else ``LANG``, chosen before the parser is built, for the
    help and the usage errors (:mod:`marjolet.commands.words`). A command
    module may also provide ``usage_error(message) -> str``, the line that
    reports a usage error of that command (``play`` words its English too)."""
    from marjolet import __version__
    from marjolet.i18n import translate

    def english(key: str) -> str:
        return translate(key, "en")

    if command is None or command in PLAYER_COMMANDS:
        words.prepare(argv)  # else English: a developer command's own help stays English
    tr = words.tr
    parser = OneLineParser(prog="marjolet", description=tr("cli.help.description"))
    parser.add_argument(
        "--version",
        action="version",
        version=f"marjolet {__version__}",
        help=tr("cli.help.version"),
    )
    parser.add_argument(  # dest apart: a command's own --lang (default None) would hide it
        "--lang", dest="top_lang", choices=("fr", "en"), help=tr("cli.help.lang")
    )
    words.translate_parser(parser)
    sub = parser.add_subparsers(
        dest="command", metavar=tr("cli.help.metavar_command"), parser_class=OneLineParser
    )
    parser._positionals.title = tr("cli.help.commands")
    for name, module in COMMANDS.items():
        key = f"cli.command.{name.replace('-', '_')}"
        mine = name in PLAYER_COMMANDS  # a developer command's own help stays English
        cmd = sub.add_parser(name, help=tr(key), description=tr(key) if mine else english(key))
        if name == command:
            mod = importlib.import_module(module)
            mod.add_arguments(cmd)
            cmd.set_defaults(_module=mod)
            if mine:
                words.translate_parser(cmd)
                parser.word_error = cmd.word_error = _usage_error(mod, name, cmd)
    if command is None:
        parser.word_error = _usage_error(None, None, parser)
    return parser


def _usage_error(
    module: object, name: str | None, parser: argparse.ArgumentParser
) -> Callable[[str], str]:
    """The function that words a usage error of ``marjolet [name]``: the
    module's ``usage_error`` if it has one, else the shared one, which
    leaves English in argparse's words."""
    own = getattr(module, "usage_error", None)
    if own is not None:
        return cast("Callable[[str], str]", own)
    options = parser._option_string_actions
    return lambda message: words.worded_usage_error(
        message, words.help_command(name), options, english=False
    )


def fail(message: str) -> NoReturn:
    """Print one error line and exit with status 2."""
    print(f"marjolet: error: {message}", file=sys.stderr)
    raise SystemExit(2)


def fail_worded(exc: Exception, command: str | None) -> NoReturn:
    """Print the error that ends ``marjolet [command]`` in one line and exit
    with status 2: in the player's language and words for ``marjolet``
    alone and the player's commands (``cli.error``), whose ``run`` words
    its errors in the language in use; a developer command's in English."""
    if _speaks_player_language(command):
        print(words.tr("cli.error", message=words.worded_error(exc)), file=sys.stderr)
        raise SystemExit(2)
    fail(str(exc))


def _speaks_player_language(command: str | None) -> bool:
    """``marjolet`` alone (or with a command not known) and the player's
    commands speak the player's language (:func:`build_parser`)."""
    return command not in COMMANDS or command in PLAYER_COMMANDS


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; a failure to write its output (standard output on a
    full disk) is reported like any input error: one line, status 2."""
    from marjolet.outputs import OutputError, guarded_stdout

    argv = list(sys.argv[1:] if argv is None else argv)
    with words.kept():  # the player's language, for this command only
        try:
            with guarded_stdout():
                try:
                    return _dispatch(argv)
                except SystemExit as stop:  # help, --version, fail(): the output flushed first
                    try:
                        sys.stdout.flush()
                    except OutputError:
                        if stop.code in (0, None):
                            raise
                    raise
        except OutputError as exc:
            fail_worded(exc, _command_word(argv))


def _command_word(argv: Sequence[str]) -> str | None:
    """The command's name: the first argument that is no option, nor the
    value of a ``--lang`` given before it (``marjolet --lang fr play``)."""
    value = False
    for arg in argv:
        if value:
            value = False
        elif arg in LANG_SPELLINGS:
            value = True
        elif not arg.startswith("-"):
            return arg
    return None


def _dispatch(argv: Sequence[str]) -> int:
    command = _command_word(argv)
    try:  # building the parser imports the command's module (and what it imports)
        parser = build_parser(command if command in COMMANDS else None, argv)
        args = parser.parse_args(argv)
        if args.command is None:
            parser.print_help()
            return 2
        if args.top_lang is not None:  # marjolet --lang fr play: the command's --lang
            if args.command not in PLAYER_COMMANDS:
                fail(f"--lang: {args.command} speaks English only; give --lang after "
                     f"{', '.join(PLAYER_COMMANDS[:-1])} or {PLAYER_COMMANDS[-1]}")
            if args.lang is None:
                args.lang = args.top_lang
        result: int = args._module.run(args)
        return result
    except MarjoletError as exc:
        fail_worded(exc, command)
    except KeyboardInterrupt:
        interrupted = "marjolet: interrupted"
        if _speaks_player_language(command):
            interrupted = words.tr("cli.interrupted")
        print(interrupted, file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 1


if __name__ == "__main__":
    raise SystemExit(main())
