"""``marjolet replay FILE [--json]``: validate and score a record (record.md)."""

from __future__ import annotations

import argparse
import json
import sys

from marjolet.errors import RecordError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", metavar="FILE", help="a record, JSON or text form ('-' for stdin)")
    parser.add_argument("--json", action="store_true", help="print the result object of record.md")


def run(args: argparse.Namespace) -> int:
    from marjolet import record

    try:
        rec = record.loads(record.read_text(args.file), check=False)
        result = record.replay(rec)
    except RecordError as exc:
        if args.json:
            print(json.dumps({"error": exc.to_json()}))
        else:
            print(f"marjolet: error: {args.file}: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(result.to_json()))
    else:
        print(record.format_result_table(rec, result))
    return 0
