"""Write tests/file_seconds.txt, the seconds each test file took, from a
pytest log run with ``--durations=0``.

``make test`` hands the test files to its processes longest first
(tests/conftest.py reads this table), so that no long file starts last
and keeps one process busy while the other has finished. Refresh the
table when files are added or grow much slower:

    make test PYTEST_ARGS=--durations=0 > test.log 2>&1
    .venv/bin/python scripts/test_file_seconds.py test.log
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

TABLE = Path(__file__).resolve().parent.parent / "tests" / "file_seconds.txt"
DURATION = re.compile(r"\s*([\d.]+)s (?:setup|call|teardown)\s+tests/([^:/]+\.py)::")


def file_seconds(log: str) -> dict[str, float]:
    """Seconds by test file, the sum of its tests' setups, calls and teardowns."""
    seconds: dict[str, float] = {}
    for line in log.splitlines():
        if match := DURATION.match(line):
            name = match.group(2)
            seconds[name] = seconds.get(name, 0.0) + float(match.group(1))
    return seconds


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: scripts/test_file_seconds.py PYTEST_LOG", file=sys.stderr)
        return 2
    try:
        log = Path(argv[0]).read_text(encoding="utf-8", errors="replace")
    except OSError as error:
        print(f"error: {argv[0]}: cannot read: {error.strerror}", file=sys.stderr)
        return 2
    seconds = file_seconds(log)
    if not seconds:
        print(f"error: {argv[0]}: no test durations (run pytest with --durations=0)",
              file=sys.stderr)
        return 2
    longest_first = sorted(seconds.items(), key=lambda row: -row[1])
    lines = [f"{round(s):d} {name}" for name, s in longest_first if s >= 1]
    header = "# seconds a test file took, longest first (scripts/test_file_seconds.py)\n"
    TABLE.write_text(header + "\n".join(lines) + "\n", encoding="utf-8")
    print(f"wrote {TABLE} ({len(lines)} files)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
