"""``marjolet convert FILE --to json|text [--out FILE]``."""

from __future__ import annotations

import argparse
import sys


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", metavar="FILE", help="a record, JSON or text form ('-' for stdin)")
    parser.add_argument("--to", choices=["json", "text"], required=True, help="the form to write")
    parser.add_argument("--out", metavar="FILE", help="write there (atomically) instead of stdout")


def run(args: argparse.Namespace) -> int:
    from marjolet import record
    from marjolet.errors import RecordError

    try:
        rec = (
            record.loads(sys.stdin.read(), check=False)
            if args.file == "-"
            else record.load(args.file, check=False)
        )
    except RecordError as exc:
        raise RecordError(f"{args.file}: {exc}") from None
    text = rec.dumps() if args.to == "json" else rec.to_text()
    if args.out:
        try:
            record.write_atomic(args.out, text)
        except OSError as exc:
            raise RecordError(f"cannot write {args.out!r}: {exc.strerror or exc}") from None
    else:
        sys.stdout.write(text)
    return 0
