"""``marjolet db-copy SOURCE TARGET``: copy the server's database into an
empty one (a SQLite file to PostgreSQL when one process is outgrown, or
PostgreSQL to a new SQLite file as a backup; marjolet.web.dbcopy)."""

from __future__ import annotations

import argparse

from marjolet.commands.common import file_name, web_extra_imports


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "source",
        metavar="SOURCE",
        type=file_name,
        help="the database to copy, as serve --db takes it: a SQLite file or "
        "postgresql://USER@HOST:PORT/DB; at this marjolet's schema revision, no server "
        "running on it; only read",
    )
    parser.add_argument(
        "target",
        metavar="TARGET",
        type=file_name,
        help="an empty database: a new (or empty) SQLite file, or an empty PostgreSQL "
        "database; its tables are created, then every row is copied in one transaction",
    )


def run(args: argparse.Namespace) -> int:
    with web_extra_imports():
        from marjolet.web.dbcopy import copy_database
    print(copy_database(args.source, args.target).summary())
    return 0
