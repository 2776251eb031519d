"""``marjolet replay FILE [--json] [--lang fr|en]``: validate and score a
record (record.md), in the player's words and language."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING

from marjolet.commands.common import file_name
from marjolet.commands.words import tr
from marjolet.errors import RecordError

if TYPE_CHECKING:
    from marjolet.record import Record, ReplayResult


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options, described in the player's language
    (:func:`marjolet.commands.words.prepare`)."""
    parser.add_argument(
        "file", metavar=tr("cli.help.metavar_file"), type=file_name, help=tr("replay.help.file")
    )
    parser.add_argument("--json", action="store_true", help=tr("replay.help.json"))
    add_lang_argument(parser)


def add_lang_argument(parser: argparse.ArgumentParser) -> None:
    """``--lang fr|en``: the language of a player's text (``replay``,
    ``review``); ``--json`` is the same in any language."""
    parser.add_argument("--lang", choices=("fr", "en"), help=tr("replay.help.lang"))


def load_or_report(
    file: str, as_json: bool, lang: str | None
) -> tuple[Record, ReplayResult] | int:
    """Read a record (a path or ``-`` for stdin) and check it against the
    rules: the record and its result, or the bad record's error reported
    by :func:`report_error` and its exit status (2). Shared with
    ``marjolet review``."""
    from marjolet import record

    rec = None
    try:
        rec = record.loads(record.read_text(file), check=False)
        return rec, record.replay(rec)
    except RecordError as exc:
        return report_error(file, exc, as_json, lang=lang, rec=rec)


def report_error(
    file: str,
    exc: RecordError,
    as_json: bool,
    *,
    lang: str | None = None,
    rec: Record | None = None,
) -> int:
    """Print a bad record's error the way ``replay`` does: one line on
    standard error in the player's words and language (``lang``, else the
    environment's; ``rec``, the record read without its check, names the
    players of a refused move), and with ``--json`` also the error object,
    unchanged, on standard output; returns 2."""
    if as_json:  # the object for programs, the line for whoever reads the terminal
        print(json.dumps({"error": exc.to_json()}))
    from marjolet.tui.record_errors import record_error_line
    from marjolet.tui.words import speaking

    with speaking(lang):
        print(record_error_line(file, exc, rec), file=sys.stderr)
    return 2


def run(args: argparse.Namespace) -> int:
    loaded = load_or_report(args.file, args.json, args.lang)
    if isinstance(loaded, int):
        return loaded
    rec, result = loaded
    if args.json:
        print(json.dumps(result.to_json()))
    else:  # the player's words: deals from 1, trumps by name, as the game says them
        from marjolet.tui.reports import replay_text
        from marjolet.tui.words import speaking

        with speaking(args.lang):
            print(replay_text(rec, result))
    return 0
