"""``marjolet review RECORD [--json] [--budget S] [--seat 0|1] [--out FILE]
[--open] [--lang fr|en]``: the points lost on every decision of a record
(docs/review.md); the text in the player's words and language."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING

from marjolet.commands.common import file_name, plain_float, plain_int
from marjolet.commands.words import tr
from marjolet.errors import MarjoletError

if TYPE_CHECKING:
    from marjolet.outputs import OutputError

#: The longest search per decision (the bots' ``time`` limit).
MAX_BUDGET = 3600


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options, described in the player's language
    (:func:`marjolet.commands.words.prepare`)."""
    from marjolet.analysis.review import DEFAULT_BUDGET
    from marjolet.commands.replay import add_lang_argument

    parser.add_argument(
        "file",
        metavar=tr("review.help.metavar_record"),
        type=file_name,
        help=tr("replay.help.file"),
    )
    parser.add_argument("--json", action="store_true", help=tr("review.help.json"))
    parser.add_argument(
        "--budget",
        type=plain_float,
        default=DEFAULT_BUDGET,
        metavar="S",
        help=tr("review.help.budget", default=f"{DEFAULT_BUDGET:g}"),
    )
    parser.add_argument(
        "--seat", type=plain_int, choices=[0, 1], help=tr("review.help.seat")
    )
    parser.add_argument(
        "--out", metavar=tr("cli.help.metavar_file"), type=file_name, help=tr("review.help.out")
    )
    parser.add_argument("--force", action="store_true", help=tr("review.help.force"))
    parser.add_argument("--open", action="store_true", help=tr("review.help.open"))
    parser.add_argument(
        "--estimator",
        choices=["auto", "best", "sampling"],
        default="auto",
        help=tr("review.help.estimator"),
    )
    add_lang_argument(parser)


def run(args: argparse.Namespace) -> int:
    from marjolet import outputs
    from marjolet.analysis import annotate, default_estimator, review_record
    from marjolet.arena.progress import NullProgress, Progress, TerminalProgress
    from marjolet.commands.replay import load_or_report
    from marjolet.i18n import number
    from marjolet.tui.words import lang, speaking, tr

    if not 0 <= args.budget <= MAX_BUDGET:  # NaN too; the search's own limit, named here
        given = args.budget  # « entre 0 et 3 600 secondes, pas 9 999 »
        value = number(int(given), lang()) if given.is_integer() else f"{given:g}"
        words = {"flag": "--budget", "low": 0, "high": number(MAX_BUDGET, lang()), "value": value}
        raise MarjoletError(tr("cli.seconds_range", **words))
    if args.out:
        try:  # before the work
            outputs.check_output(args.out, force=args.force, flag="--out")
        except outputs.OutputError as exc:
            raise _cannot_write(args.out, exc) from None
    loaded = load_or_report(args.file, args.json, args.lang)
    if isinstance(loaded, int):
        return loaded
    rec, _ = loaded
    isatty = getattr(sys.stderr, "isatty", None)
    with speaking(args.lang):  # the bar's words, in the player's language
        title, unit, left = (tr(f"review.progress_{w}") for w in ("title", "unit", "left"))
    bar: Progress = (
        TerminalProgress(sys.stderr, eta=left) if isatty and isatty() else NullProgress()
    )
    started = False

    def progress(done: int, total: int) -> None:
        nonlocal started
        if not started:
            bar.start(total, 0, title)
            started = True
        bar.update(done, lambda: unit)

    seats = (args.seat,) if args.seat is not None else (0, 1)
    estimator = default_estimator(args.budget, kind=args.estimator)
    try:
        review = review_record(
            rec,
            budget=args.budget,
            seats=seats,
            view="open" if args.open else "seat",
            estimator=estimator,
            progress=progress,
        )
    finally:
        bar.finish()
    if args.out:
        annotated = annotate(rec, review)
        text = annotated.dumps() if args.out.endswith(".json") else annotated.to_text()
        try:
            outputs.write_atomic(args.out, text)
        except OSError as exc:
            raise _cannot_write(args.out, exc) from None
    if args.json:
        print(json.dumps(review.to_json()))
    else:  # the player's words, as the terminal's review (key r) says them
        from marjolet.tui.reports import review_text

        with speaking(args.lang):
            print(review_text(rec, review))
    return 0


def _cannot_write(path: str, exc: OutputError | OSError) -> MarjoletError:
    """``--out``'s file refused, or its writing failed, in the player's
    words (``review.cannot_write``, ``cli.output.*``)."""
    from marjolet.commands.words import output_reason

    return MarjoletError(tr("review.cannot_write", path=path, reason=output_reason(exc)))
