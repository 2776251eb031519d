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
from typing import NoReturn

from marjolet.errors import MarjoletError

#: name -> (module, one-line help). Modules are imported lazily.
COMMANDS: dict[str, tuple[str, str]] = {
    "play": ("marjolet.commands.play", "play a match against the computer"),
    "replay": ("marjolet.commands.replay", "validate and score a game record"),
    "convert": ("marjolet.commands.convert", "convert a record between JSON and text"),
    "rules": ("marjolet.commands.rules", "print the rule set in force"),
    "selfplay": (
        "marjolet.commands.selfplay",
        "write a bot-against-bot match as a record (random bots unless --bots)",
    ),
    "serve": ("marjolet.commands.serve", "play in the browser: the web server"),
    "db-copy": (
        "marjolet.commands.db_copy",
        "copy the web server's database into an empty one (SQLite <-> PostgreSQL)",
    ),
    "arena": ("marjolet.commands.arena", "measure bots against each other (duplicate matches)"),
    "bot-serve": ("marjolet.commands.bot_serve", "run a bot as a marjolet-bot/1 program"),
    "bench": ("marjolet.commands.bench", "benchmark the rules engine"),
    "bots": ("marjolet.commands.bots", "list the bots, their parameters and defaults"),
    "solve": ("marjolet.commands.solve", "exact value and best cards of an ending (tricks 11-16)"),
    "review": ("marjolet.commands.review", "the points lost on every decision of a record"),
}


class OneLineParser(argparse.ArgumentParser):
    """argparse that reports usage errors in one line with exit status 2.

    ``word_error``, when set, words that line itself: ``marjolet play``
    says it in the player's language."""

    word_error: Callable[[str], str] | None = None

    def error(self, message: str) -> NoReturn:
        if self.word_error is not None:
            self.exit(2, self.word_error(message) + "\n")
        self.exit(2, f"{self.prog}: error: {message}\n")


def build_parser(command: str | None = None, argv: Sequence[str] = ()) -> argparse.ArgumentParser:
    """The argument parser. Only ``command``'s module is imported (the others
    are listed by name and help text), so start-up stays fast.

    A command module may also provide ``prepare(argv)``, called with the raw
    arguments before its options are added (``play`` picks its language
    there), and ``usage_error(message) -> str``, the line that reports a
    usage error of that command."""
    from marjolet import __version__

    parser = OneLineParser(
        prog="marjolet",
        description="Marjolet, the French two-player trick-and-draw card game.",
    )
    parser.add_argument("--version", action="version", version=f"marjolet {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=OneLineParser)
    for name, (module, help_text) in COMMANDS.items():
        cmd = sub.add_parser(name, help=help_text, description=help_text)
        if name == command:
            mod = importlib.import_module(module)
            if hasattr(mod, "prepare"):
                mod.prepare(argv)
            mod.add_arguments(cmd)
            cmd.set_defaults(_module=mod)
            if hasattr(mod, "usage_error"):  # the top parser reports unknown arguments
                parser.word_error = cmd.word_error = mod.usage_error
    return parser


def fail(message: str) -> NoReturn:
    """Print one error line and exit with status 2."""
    print(f"marjolet: error: {message}", file=sys.stderr)
    raise SystemExit(2)


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; a failure to write its output (standard output on a
    full disk) is reported like any input error: one line, status 2."""
    from marjolet.outputs import OutputError, guarded_stdout

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
        fail(str(exc))


def _dispatch(argv: Sequence[str] | None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    command = next((a for a in argv if not a.startswith("-")), None)
    try:  # building the parser imports the command's module (and what it imports)
        parser = build_parser(command if command in COMMANDS else None, argv)
        args = parser.parse_args(argv)
        if args.command is None:
            parser.print_help()
            return 2
        result: int = args._module.run(args)
        return result
    except MarjoletError as exc:
        fail(str(exc))
    except KeyboardInterrupt:
        print("marjolet: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 1


if __name__ == "__main__":
    raise SystemExit(main())
