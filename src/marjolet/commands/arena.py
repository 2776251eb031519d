"""``marjolet arena BOT BOT [BOT...]``: duplicate matches between bots, with
intervals, Elo, ratings and an SPRT; ``marjolet arena report`` for past runs.

See ``docs/arena.md``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import shlex
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from types import FrameType
from typing import TYPE_CHECKING

from marjolet.commands.common import (
    add_rules_arguments,
    file_name,
    plain_float,
    plain_int,
    rules_from_args,
)
from marjolet.errors import MarjoletError

if TYPE_CHECKING:
    from marjolet.arena.progress import Progress
    from marjolet.arena.results import ArenaResult
    from marjolet.arena.sources import SourceSplit
    from marjolet.arena.store import RunInfo
    from marjolet.rules import Rules

    Sources = list[tuple[tuple[str, str], SourceSplit | None]]


NO_DB_PLOT = "--plot needs the database to read the matches (not --no-db)"
NO_DB_SOURCES = "--sources needs the database to read the matches (not --no-db)"


class ArenaUsageError(MarjoletError):
    """Options that do not go together."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.usage = (
        "marjolet arena BOT BOT [BOT ...] [--matches N] [--seed S] [--workers K] [--json] ...\n"
        "       marjolet arena --resume RUN_ID [--db FILE]\n"
        "       marjolet arena report [--db FILE] [--run ID] [--json] [--plot FILE.png|svg] "
        "[--sources]"
    )
    parser.description = (
        "Play duplicate matches between bots (every deck sequence twice, seats swapped) and "
        "report win rates, margins and Elo with 95% intervals; 'report' shows stored runs."
    )
    parser.add_argument("bots", nargs="*", metavar="BOT",
                        help="bot specs (name or name:key=value,...), or 'report'")
    parser.add_argument("--matches", type=plain_int, metavar="N",
                        help="matches per pairing, even (default 100; the budget with --sprt)")
    parser.add_argument("--seed", type=plain_int, metavar="S",
                        help="run seed (default: drawn at random and printed)")
    parser.add_argument("--workers", type=plain_int, metavar="K",
                        help="parallel workers (default: the CPUs available)")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.add_argument("--sprt", nargs=2, type=plain_float, metavar=("ELO0", "ELO1"),
                        help="sequential test of Elo <= ELO0 against Elo >= ELO1 (two bots)")
    parser.add_argument("--alpha", type=plain_float, default=0.05, help="SPRT false-positive rate")
    parser.add_argument("--beta", type=plain_float, default=0.05, help="SPRT false-negative rate")
    parser.add_argument("--db", metavar="FILE", type=file_name,
                        help="SQLite database (default marjolet-arena.db)")
    parser.add_argument("--no-db", action="store_true", help="store nothing")
    parser.add_argument("--backend", choices=["local", "ray"], default="local",
                        help="local process pool (default) or Ray")
    parser.add_argument("--address", metavar="ADDR", help="Ray cluster address (--backend ray)")
    parser.add_argument("--resume", type=plain_int, metavar="RUN_ID",
                        help="continue an interrupted run stored in the database")
    parser.add_argument("--quiet", action="store_true", help="no progress on standard error")
    parser.add_argument("--plot", metavar="FILE", type=file_name,
                        help="draw ratings and margins (.png or .svg)")
    parser.add_argument("--force", action="store_true", help="let --plot replace an existing file")
    parser.add_argument("--sources", action="store_true",
                        help="split each deal margin by where the points come from (cards won "
                             "in each phase, melds, the seven, the bonuses)")
    parser.add_argument("--run", type=plain_int, metavar="ID", help="report: the run to show")
    add_rules_arguments(parser)


def _rules_given(args: argparse.Namespace) -> bool:
    return bool(
        args.profile != "classic" or args.deal_pattern or args.all_tricks_bonus is not None
        or args.dix_on_play or args.jack_queen or args.target is not None
        or args.one_meld_per_window
    )


def reproduce_command(
    bots: list[str], matches: int, seed: int, rules: Rules, sprt: dict[str, float] | None
) -> str:
    """The command line that plays the same run again."""
    words = ["marjolet", "arena", *bots, "--matches", str(matches), "--seed", str(seed)]
    form = rules.to_record()
    if isinstance(form, str):
        if form != "classic":
            words += ["--rules", form]
    else:
        words += ["--rules", str(form["profile"])]
        if "deal_pattern" in form:
            words += ["--deal-pattern", "-".join(str(n) for n in form["deal_pattern"])]
        if "all_tricks_bonus" in form:
            words += ["--all-tricks-bonus", str(form["all_tricks_bonus"])]
        if "dix_on_play" in form:
            words += ["--dix-on-play", "yes" if form["dix_on_play"] else "no"]
        if "jack_queen" in form:
            words += ["--jack-queen", str(form["jack_queen"])]
        if "target" in form:
            words += ["--target", str(form["target"])]
        if form.get("one_meld_per_window"):
            words += ["--one-meld-per-window"]
    if sprt is not None:
        words += ["--sprt", f"{sprt['elo0']:g}", f"{sprt['elo1']:g}"]
        words += ["--alpha", f"{sprt['alpha']:g}", "--beta", f"{sprt['beta']:g}"]
    return shlex.join(words)


def run(args: argparse.Namespace) -> int:
    if args.force and args.plot is None:  # as --alpha without --sprt
        raise ArenaUsageError("--force is for --plot (it lets the plot replace a file)")
    if args.bots and args.bots[0] == "report":
        return _report(args)
    return _play(args)


def _db_path(args: argparse.Namespace) -> str | None:
    from marjolet.arena.store import DEFAULT_DB

    if args.no_db:
        if args.db is not None:
            raise ArenaUsageError("--db and --no-db do not go together")
        return None
    return str(args.db) if args.db is not None else DEFAULT_DB


@contextlib.contextmanager
def _sigterm_interrupts() -> Iterator[list[int]]:
    """While a run plays, SIGTERM (``kill``, a batch system's stop) stops it
    as Ctrl-C does: the finished matches stay saved and the run is marked
    interrupted, ready for ``--resume``. Yields a list that holds the signal
    number once it came."""
    came: list[int] = []
    if threading.current_thread() is not threading.main_thread():
        yield came
        return

    def stop(signum: int, frame: FrameType | None) -> None:
        came.append(signum)
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, stop)
    try:
        yield came
    finally:
        signal.signal(signal.SIGTERM, previous)


def _play(args: argparse.Namespace) -> int:
    with _sigterm_interrupts() as came:
        code = _play_run(args)
    return 143 if came and code == 130 else code


def _play_run(args: argparse.Namespace) -> int:
    """Play a new run, or resume a stored one, and print its results: a run
    stopped by Ctrl-C prints what it played and returns 130."""
    from marjolet.arena.backends import default_workers
    from marjolet.arena.progress import NullProgress, auto_progress
    from marjolet.arena.runner import ArenaInterrupted

    _check_run_options(args)
    db = _db_path(args)
    _check_plot_option(args, db)
    if args.sources and db is None:
        raise ArenaUsageError(NO_DB_SOURCES)
    workers = args.workers if args.workers is not None else default_workers()
    progress: Progress = NullProgress() if args.quiet else auto_progress(sys.stderr)
    finished = False
    try:
        if args.resume is not None:
            result, finished = _resume_run(args, db, workers, progress)
        else:
            result = _new_run(args, db, workers, progress)
    except ArenaInterrupted as stop:
        _print_result(stop.result, args.json, _sources_of(stop.result, db, args.sources))
        print(f"marjolet: {stop.hint()}", file=sys.stderr)
        return 130
    _print_result(result, args.json, _sources_of(result, db, args.sources))
    if args.plot is not None:
        _plot(result, db, args.plot)
    if finished:
        print(f"marjolet: run {args.resume} was finished already: nothing was played, "
              "the database is as it was", file=sys.stderr)
    elif not args.json and db is not None and result.run_id is not None:
        _print_saved_as(result.run_id, db)
    return 0


def _check_run_options(args: argparse.Namespace) -> None:
    """Refuse the options a run cannot use: ``--run`` is the report's,
    ``--address`` Ray's."""
    if args.run is not None:
        raise ArenaUsageError("--run is for 'marjolet arena report'")
    if args.address is not None and args.backend != "ray":
        raise ArenaUsageError("--address needs --backend ray")


def _check_plot_option(args: argparse.Namespace, db: str | None) -> None:
    """Before anything plays: ``--plot`` needs the database, and a path it
    may write."""
    from marjolet.arena.plotting import check_plot_path
    from marjolet.outputs import check_distinct

    if args.plot is not None:
        if db is None:
            raise ArenaUsageError(NO_DB_PLOT)
        check_distinct((db, "--db"), (args.plot, "--plot"))  # first: --force cannot help
        check_plot_path(args.plot, force=args.force)


def _resume_run(
    args: argparse.Namespace, db: str | None, workers: int, progress: Progress
) -> tuple[ArenaResult, bool]:
    """Continue the stored run ``--resume`` names, with its stored bots and
    settings: refuse any given anew. Also says whether the run was
    finished already (then it is shown, not written to)."""
    from marjolet.arena.runner import is_finished, resume_arena
    from marjolet.arena.store import ArenaStore

    if args.bots:
        raise ArenaUsageError("--resume takes its bots from the database: give no BOT")
    if db is None:
        raise ArenaUsageError("--resume needs the database (not --no-db)")
    others = _settings_given(args)
    if others:
        raise ArenaUsageError(
            f"--resume continues a run with its stored settings: drop {', '.join(others)}"
        )
    with ArenaStore(db, read_only=True) as store:
        finished = is_finished(store.run(args.resume))
    result = resume_arena(args.resume, db, workers=workers, backend=args.backend,
                          address=args.address, progress=progress)
    return result, finished


def _settings_given(args: argparse.Namespace) -> list[str]:
    """The options of a run's settings given on the command line, which a
    resumed run takes from the database instead."""
    return [
        name for name, given in (
            ("--matches", args.matches is not None), ("--seed", args.seed is not None),
            ("--sprt", args.sprt is not None), ("--rules", _rules_given(args)),
        ) if given
    ]


def _new_run(
    args: argparse.Namespace, db: str | None, workers: int, progress: Progress
) -> ArenaResult:
    """Play a new run of the bots given, recording the command line that
    plays it again."""
    from marjolet.arena.runner import canonical_specs, run_arena

    _check_new_run_options(args)
    rules = rules_from_args(args)
    matches = args.matches if args.matches is not None else 100
    seed = args.seed if args.seed is not None else _random_seed()
    sprt = tuple(args.sprt) if args.sprt is not None else None
    specs = canonical_specs(args.bots)
    sprt_json = (
        {"elo0": sprt[0], "elo1": sprt[1], "alpha": args.alpha, "beta": args.beta}
        if sprt is not None else None
    )
    return run_arena(
        specs, matches=matches, seed=seed, workers=workers, rules=rules, db=db,
        backend=args.backend, address=args.address,
        sprt=(sprt[0], sprt[1]) if sprt is not None else None,
        alpha=args.alpha, beta=args.beta, progress=progress,
        command=reproduce_command(specs, matches, seed, rules, sprt_json),
    )


def _check_new_run_options(args: argparse.Namespace) -> None:
    """A new run needs two bots at least; ``--alpha`` and ``--beta`` only
    go with ``--sprt``."""
    if len(args.bots) < 2:
        raise ArenaUsageError(
            f"give at least two bots (got {len(args.bots)}), e.g. "
            "marjolet arena heuristic random --matches 100"
        )
    for name, value in (("--alpha", args.alpha), ("--beta", args.beta)):
        if args.sprt is None and value != 0.05:
            raise ArenaUsageError(f"{name} is for --sprt")


def _random_seed() -> int:
    """A run seed drawn at random, when none is given (the report prints
    it, so the run can be played again)."""
    import secrets

    return secrets.randbelow(2**31)


def _print_saved_as(run_id: int, db: str) -> None:
    """Where the run was saved, and the command that shows it again."""
    from marjolet.arena.store import DEFAULT_DB

    where = "" if db == DEFAULT_DB else f" --db {shlex.quote(db)}"
    print(f"saved as run {run_id} in {db} "
          f"(see: marjolet arena report --run {run_id}{where})")


def _print_result(
    result: ArenaResult,
    as_json: bool,
    sources: Callable[[], Sources] | None = None,
    extra: dict[str, object] | None = None,
) -> None:
    """The run's figures (``extra`` joins the JSON), and with ``sources``
    each pairing's deal margin split by source (``--sources``): computed
    before the JSON, after the text's figures, so that a stored record
    that does not replay still leaves the figures on screen."""
    from marjolet.arena.report import format_result, format_sources
    from marjolet.arena.sources import sources_json

    if as_json:
        out = {**result.to_json(), **(extra or {})}
        if sources is not None:
            out["sources"] = sources_json(sources())
        print(json.dumps(out))
        return
    print(format_result(result))
    if sources is not None:
        split = sources()
        print()
        print(format_sources(split))


def _sources_of(
    result: ArenaResult, db: str | None, wanted: bool
) -> Callable[[], Sources] | None:
    """With ``--sources``, what computes each pairing's split from the
    run's stored matches."""
    if not wanted:
        return None
    if db is None or result.run_id is None:
        raise ArenaUsageError(NO_DB_SOURCES)

    def split() -> Sources:
        from marjolet.arena.sources import run_sources
        from marjolet.arena.store import ArenaStore

        assert db is not None and result.run_id is not None
        with ArenaStore(db, read_only=True) as store:
            return run_sources(result, list(store.outcomes(result.run_id)))

    return split


def _plot(result: ArenaResult, db: str | None, path: str) -> None:
    from marjolet.arena.plotting import plot_result

    if db is None or result.run_id is None:
        raise ArenaUsageError(NO_DB_PLOT)
    from marjolet.arena.store import ArenaStore

    with ArenaStore(db, read_only=True) as store:
        plot_result(result, store.outcomes(result.run_id), path)
    print(f"wrote {path}", file=sys.stderr)


def _report(args: argparse.Namespace) -> int:
    from marjolet.arena.plotting import check_plot_path, plot_result
    from marjolet.arena.report import format_runs
    from marjolet.arena.runner import reproduce_line, stored_result
    from marjolet.arena.sources import run_sources
    from marjolet.arena.store import ArenaStore
    from marjolet.outputs import check_distinct

    if len(args.bots) > 1:
        raise ArenaUsageError(f"'report' takes no BOT, got {' '.join(args.bots[1:])}")
    misplaced = [
        name for name, given in (
            ("--matches", args.matches is not None), ("--seed", args.seed is not None),
            ("--workers", args.workers is not None), ("--sprt", args.sprt is not None),
            ("--resume", args.resume is not None), ("--address", args.address is not None),
            ("--no-db", args.no_db), ("--rules", _rules_given(args)),
            ("--backend", args.backend != "local"),
        ) if given
    ]
    if misplaced:
        raise ArenaUsageError(f"'report' does not take {', '.join(misplaced)}")
    db = _db_path(args)
    assert db is not None
    if args.plot is not None:
        check_distinct((db, "--db"), (args.plot, "--plot"))  # first: --force cannot help
        check_plot_path(args.plot, force=args.force)
    with ArenaStore(db, read_only=True) as store:
        if args.run is None and args.plot is None and not args.sources:
            runs = store.runs()
            if args.json:
                print(json.dumps({"runs": [_run_json(r) for r in runs]}))
            else:
                print(format_runs(runs))
            return 0
        info = store.run(args.run) if args.run is not None else store.latest_run()
        outcomes = list(store.outcomes(info.id))  # read once: a live run may add matches
        result = stored_result(store, info, outcomes)
    split = (lambda: run_sources(result, outcomes)) if args.sources else None
    _print_result(result, args.json, split, extra={"settings": _run_json(info)})
    reproduce = reproduce_line(info)
    if reproduce and not args.json:
        print(f"reproduce with: {reproduce}")
    if args.plot is not None:
        plot_result(result, outcomes, args.plot)
        print(f"wrote {args.plot}", file=sys.stderr)
    return 0


def _run_json(info: RunInfo) -> dict[str, object]:
    return {
        "id": info.id,
        "started": info.started,
        "finished": info.finished,
        "status": info.status,
        "bots": list(info.bots),
        "matches": info.matches,
        "played": info.played,
        "seed": info.seed,
        "rules": info.rules.to_json(),
        "sprt": info.sprt,
        "backend": info.backend,
        "workers": info.workers,
        "version": info.version,
        "command": info.command,
        "summary": info.summary,
    }
