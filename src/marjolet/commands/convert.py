"""``marjolet convert FILE --to json|text [--out FILE [--force]]``.

The record is checked against the rules first (as ``replay`` does): a
record that ``replay`` rejects is not converted. ``--out`` follows the rule
of :mod:`marjolet.outputs` (an existing file only with ``--force``).
"""

from __future__ import annotations

import argparse
import sys

from marjolet.commands.common import file_name


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "file", metavar="FILE", type=file_name, help="a record, JSON or text form ('-' for stdin)"
    )
    parser.add_argument("--to", choices=["json", "text"], required=True, help="the form to write")
    parser.add_argument(
        "--out", metavar="FILE", type=file_name, help="write there (atomically) instead of stdout"
    )
    parser.add_argument("--force", action="store_true", help="replace --out if it exists")


def run(args: argparse.Namespace) -> int:
    from marjolet import outputs, record
    from marjolet.errors import RecordError

    if args.out:
        outputs.check_output(args.out, force=args.force, flag="--out")
    try:
        rec = record.loads(record.read_text(args.file), check=False)
        record.replay(rec)  # the same check as `marjolet replay`
    except RecordError as exc:
        raise RecordError(record.located(args.file, exc)) from None
    text = rec.dumps() if args.to == "json" else rec.to_text()
    if args.out:
        try:
            outputs.write_atomic(args.out, text)
        except OSError as exc:
            raise RecordError(f"cannot write {args.out!r}: {exc.strerror or exc}") from None
    else:
        sys.stdout.write(text)
    return 0
