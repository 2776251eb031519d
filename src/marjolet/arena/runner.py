"""Run an arena: plan the matches, play them on a backend, store them,
follow the SPRT, and return the figures.

The Python API of the arena is :func:`run_arena` (a new run) and
:func:`resume_arena` (finish an interrupted one)::

    from marjolet.arena import run_arena
    result = run_arena(["heuristic", "random"], matches=200, seed=1, workers=2)
    p = result.pairings[0]
    print(p.win_rate, p.win_rate_ci, p.elo, p.elo_ci)
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shlex
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from marjolet.arena import stats
from marjolet.arena.backends import (
    BACKENDS,
    Backend,
    check_reachable,
    default_workers,
    make_backend,
    max_workers,
)
from marjolet.arena.progress import NullProgress, Progress
from marjolet.arena.results import ArenaResult, aggregate, pairings_of
from marjolet.arena.store import ArenaStore, RunInfo
from marjolet.arena.tasks import MatchOutcome, MatchTask, plan_tasks
from marjolet.bots import BotSpecError, make_bot
from marjolet.bots.registry import EXEC, bot_class, parse_spec
from marjolet.errors import MarjoletError
from marjolet.rules import CLASSIC, Rules, require_rules


class ArenaError(MarjoletError):
    """Impossible arena settings (too few bots, odd match count, ...)."""


class ArenaInterrupted(Exception):
    """Ctrl-C stopped a run; every finished match is saved.

    ``result`` holds the figures of the matches played so far.
    """

    def __init__(self, result: ArenaResult, db: str | None) -> None:
        self.result = result
        self.db = db
        super().__init__(self.hint())

    def hint(self) -> str:
        r = self.result
        played = f"{r.matches} of {r.planned} matches played"
        if r.run_id is None or self.db is None:
            return f"interrupted: {played} (no database, so the run cannot be resumed)"
        return (
            f"interrupted: {played}, saved as run {r.run_id} in {self.db}; "
            f"continue with: marjolet arena --resume {r.run_id} --db {self.db}"
        )


def canonical_specs(specs: Sequence[str]) -> list[str]:
    """Check every bot spec (unknown names and parameters raise
    :class:`~marjolet.bots.BotSpecError`) and write it canonically."""
    return [make_bot(spec, seed=0).spec for spec in specs]


def bot_labels(specs: Sequence[str]) -> list[str]:
    """Unique display names: the spec, with ``#2``, ``#3`` for repeats (so
    that ``random random`` is a valid sanity check)."""
    seen: dict[str, int] = {}
    labels = []
    for spec in specs:
        seen[spec] = seen.get(spec, 0) + 1
        labels.append(spec if seen[spec] == 1 else f"{spec}#{seen[spec]}")
    return labels


@dataclass(frozen=True, slots=True)
class _Plan:
    specs: tuple[str, ...]
    labels: tuple[str, ...]
    matches: int
    seed: int
    rules: Rules
    sprt: stats.SprtBounds | None

    @property
    def settings(self) -> dict[str, object]:
        return {
            "bots": list(self.specs),
            "matches": self.matches,
            "seed": self.seed,
            "rules": self.rules.to_json(),
            "sprt": _sprt_json(self.sprt),
        }


def _sprt_json(bounds: stats.SprtBounds | None) -> dict[str, float] | None:
    if bounds is None:
        return None
    return {"elo0": bounds.elo0, "elo1": bounds.elo1, "alpha": bounds.alpha, "beta": bounds.beta}


def _check_workers(workers: int, backend: str, address: str | None) -> None:
    if backend not in BACKENDS:
        raise ArenaError(f"unknown backend {backend!r} (known: {', '.join(BACKENDS)})")
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ArenaError(f"--workers must be a positive integer, got {workers!r}")
    if backend == "ray" and address is not None:
        check_reachable(address)  # before any database row: Ray would retry for minutes
    most = max_workers(backend, address)
    if most is not None and workers > most:
        raise ArenaError(
            f"--workers {workers}: the {backend} backend runs at most {most} workers here "
            f"({default_workers()} CPUs available)"
        )


def run_arena(
    specs: Sequence[str],
    *,
    matches: int = 100,
    seed: int | None = None,
    workers: int = 1,
    rules: Rules = CLASSIC,
    db: str | os.PathLike[str] | None = None,
    backend: str = "local",
    address: str | None = None,
    sprt: tuple[float, float] | None = None,
    alpha: float = 0.05,
    beta: float = 0.05,
    progress: Progress | None = None,
    command: str | None = None,
) -> ArenaResult:
    """Play a duplicate round robin between ``specs`` and measure it.

    ``matches`` is the number of matches per pairing (even: each deck
    sequence is played twice with the seats swapped); with ``sprt=(elo0,
    elo1)`` (two bots only) it is the most the test may play, and the run
    stops as soon as the test decides. ``seed`` makes the run reproducible
    whatever ``workers`` and ``backend`` (a random seed is drawn when
    ``None``; it is in the result). With ``db`` (a SQLite file) every match
    and the run's settings are stored and the run gets an id.

    Raises :class:`~marjolet.errors.MarjoletError` subclasses for bad
    settings or a failing bot, :class:`ArenaInterrupted` on Ctrl-C.
    """
    if isinstance(specs, str):
        raise ArenaError("specs must be a list of bot specs, not one string")
    if len(specs) < 2:
        raise ArenaError(f"an arena needs at least two bots, got {len(specs)}")
    if isinstance(matches, bool) or not isinstance(matches, int) or matches < 2 or matches % 2:
        raise ArenaError(
            f"--matches must be a positive even number (duplicate play plays each deck "
            f"sequence twice, seats swapped), got {matches!r}"
        )
    _check_workers(workers, backend, address)
    require_rules(rules)  # a profile name would fail in every worker
    if seed is None:
        seed = secrets.randbelow(2**31)
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ArenaError(f"--seed must be an integer, got {seed!r}")
    bounds: stats.SprtBounds | None = None
    if sprt is not None:
        if len(specs) != 2:
            raise ArenaError(f"--sprt compares exactly two bots, got {len(specs)}")
        try:
            bounds = stats.SprtBounds(float(sprt[0]), float(sprt[1]), alpha, beta)
        except ValueError as exc:
            raise ArenaError(f"--sprt: {exc}") from None
    canonical = canonical_specs(specs)
    plan = _Plan(
        tuple(canonical), tuple(bot_labels(canonical)), matches, seed, rules, bounds
    )
    store = ArenaStore(db) if db is not None else None
    try:
        run_id = None
        if store is not None:
            run_id = store.create_run(
                bots=plan.specs,
                matches=matches,
                seed=seed,
                rules=rules,
                sprt=_sprt_json(bounds),
                backend=backend,
                workers=workers,
                command=command,
            )
        return _execute(plan, store, run_id, {}, workers, backend, address, progress)
    finally:
        if store is not None:
            store.close()


def resume_arena(
    run_id: int,
    db: str | os.PathLike[str],
    *,
    workers: int = 1,
    backend: str = "local",
    address: str | None = None,
    progress: Progress | None = None,
) -> ArenaResult:
    """Play the missing matches of a stored run with its own settings.

    An ``exec:`` program the run names by a relative path is found from the
    folder the run was started in: the matches are played from there (the
    process's working folder changes for the call, and is restored)."""
    _check_workers(workers, backend, address)
    with ArenaStore(db, create=False) as store:
        info = store.run(run_id)
        if is_finished(info):  # nothing to play: the stored run stays as it is
            return stored_result(store, info)
        with _started_folder(info):
            plan = plan_of(info)
            played = {o.key: o for o in store.outcomes(run_id)}
            store.mark_running(run_id, backend=backend, workers=workers)
            return _execute(plan, store, run_id, played, workers, backend, address, progress)


def _started_folder(info: RunInfo) -> contextlib.AbstractContextManager[object]:
    """Work from the run's own folder when it names a program by a relative
    path and that folder still exists; else stay where we are."""
    folder = info.folder
    if folder and os.path.isdir(folder) and any(relative_program(s) for s in info.bots):
        return contextlib.chdir(folder)
    return contextlib.nullcontext()


def plan_of(info: RunInfo) -> _Plan:
    """The settings of a stored run, checked again."""
    bounds = None
    if info.sprt is not None:
        s = info.sprt
        bounds = stats.SprtBounds(s["elo0"], s["elo1"], s["alpha"], s["beta"])
    try:
        specs = canonical_specs(info.bots)
    except BotSpecError as exc:
        if not any(relative_program(spec) and repr(spec) in str(exc) for spec in info.bots):
            raise
        started = f" ({info.folder})" if info.folder else ""
        raise BotSpecError(
            f"{exc} (run {info.id}'s programs are found from the folder the run was "
            f"started in{started}: resume it from there)"
        ) from None
    labels = tuple(bot_labels(specs))
    return _Plan(tuple(specs), labels, info.matches, info.seed, info.rules, bounds)


def relative_program(spec: str) -> bool:
    """Whether ``spec`` runs a program given by a relative path."""
    name, params = parse_spec(spec)
    return name == EXEC and not os.path.isabs(params.get("path", ""))


def is_finished(info: RunInfo) -> bool:
    """Whether a stored run has nothing left to play: its SPRT decided, or
    it is done with every planned match stored. ``resume_arena`` leaves
    such a run as it is."""
    planned = len(pairings_of(list(info.bots))) * info.matches
    return info.status == "sprt" or (info.status == "done" and info.played >= planned)


def reproduce_line(info: RunInfo) -> str | None:
    """The command that plays a stored run again, if it was stored: from
    the run's own folder when a bot is a program named by a relative path
    (its spec, which the decks depend on, must stay as written)."""
    if not info.command:
        return None
    if info.folder and any(relative_program(s) for s in info.bots):
        return f"cd {shlex.quote(info.folder)} && {info.command}"
    return info.command


def stored_result(
    store: ArenaStore, info: RunInfo, outcomes: Iterable[MatchOutcome] | None = None
) -> ArenaResult:
    """Recompute the figures of a stored run from its matches (any status),
    or from ``outcomes`` already read from them."""
    bounds = None
    if info.sprt is not None:
        s = info.sprt
        bounds = stats.SprtBounds(s["elo0"], s["elo1"], s["alpha"], s["beta"])
    labels = bot_labels(list(info.bots))
    planned = len(pairings_of(labels)) * info.matches
    status = "running" if info.status == "running" else info.status
    return aggregate(
        labels,
        store.outcomes(info.id) if outcomes is None else outcomes,
        sprt=bounds,
        run_id=info.id,
        status=status,
        planned=planned,
        seed=info.seed,
        settings={
            "bots": list(info.bots),
            "matches": info.matches,
            "seed": info.seed,
            "rules": info.rules.to_json(),
            "sprt": info.sprt,
            "backend": info.backend,
            "workers": info.workers,
        },
    )


class _SprtTracker:
    """Follows the SPRT incrementally over the complete pairs of pairing 0,
    in pair order (the same rule as :func:`results.sprt_prefix`)."""

    def __init__(self, bounds: stats.SprtBounds) -> None:
        self.bounds = bounds
        self.games: dict[int, int] = {}  # pair -> games finished
        self.wins: dict[int, int] = {}  # pair -> games won by the first bot
        self.next_pair = 0
        self.counts = [0, 0, 0]
        self.llr = 0.0
        self.decision: str | None = None

    def add(self, o: MatchOutcome) -> None:
        if o.pairing != 0 or self.decision is not None:
            return
        self.games[o.pair] = self.games.get(o.pair, 0) + 1
        self.wins[o.pair] = self.wins.get(o.pair, 0) + (1 if o.first_won else 0)
        while self.games.get(self.next_pair) == 2 and self.decision is None:
            self.counts[self.wins[self.next_pair]] += 1
            self.next_pair += 1
            self.llr = stats.sprt_llr(self.counts, self.bounds)
            self.decision = self.bounds.decide(self.llr)


def thinks(spec: str) -> bool:
    """Whether a bot searches before it moves (a program behind ``exec:``,
    or a bot with a ``time=`` budget parameter): its matches take seconds
    to minutes, so they are sent to the workers a pair at a time and an
    interrupted run loses at most the pairs in play."""
    name, _ = parse_spec(spec)
    return name == EXEC or any(p.name == "time" for p in bot_class(name).params)


def _batches(tasks: Sequence[MatchTask], workers: int, cap: int) -> Iterator[list[MatchTask]]:
    """Cut the tasks into batches of at most ``cap``: big enough to hide the
    cost of sending a task to a worker, small enough to balance the load
    and report often (one pair for slow matches, four for an SPRT that may
    stop any time). Batches hold an even number of tasks so that pairs stay
    together."""
    size = len(tasks) // (workers * 8)
    size = max(2, min(cap, size))
    size += size % 2
    for i in range(0, len(tasks), size):
        yield list(tasks[i : i + size])


class _Running:
    """Running win counts per pairing, for the progress line."""

    def __init__(self, labels: Sequence[str], tracker: _SprtTracker | None) -> None:
        self.pairs = pairings_of(labels)
        self.wins = [0] * len(self.pairs)
        self.played = [0] * len(self.pairs)
        self.forfeits = [[0, 0] for _ in self.pairs]
        self.tracker = tracker

    def add(self, o: MatchOutcome) -> None:
        self.played[o.pairing] += 1
        self.wins[o.pairing] += 1 if o.first_won else 0
        if o.forfeit is not None:  # the loser broke down
            self.forfeits[o.pairing][0 if not o.first_won else 1] += 1

    def figures(self) -> str:
        """A short line: each pairing's score and Elo (and who forfeited how
        often: a bot that cannot start shows at once), and the SPRT's LLR."""
        parts = []
        for k, ((a, b), w, n) in enumerate(zip(self.pairs, self.wins, self.played, strict=True)):
            if n:
                elo = stats.elo_from_score(stats.clamp_score(w / n, n))
                gave_up = "".join(
                    f"; {name} forfeited {count}"
                    for name, count in zip((a, b), self.forfeits[k], strict=True)
                    if count
                )
                parts.append(
                    f"{a}-{b} {w}-{n - w} ({100 * w / n:.1f}%, Elo {round(elo) + 0:+d}{gave_up})"
                )
        if self.tracker is not None:
            bounds = self.tracker.bounds
            parts.append(
                f"LLR {self.tracker.llr:+.2f} (bounds {bounds.lower:+.2f} and {bounds.upper:+.2f})"
            )
        return "; ".join(parts)


def _execute(
    plan: _Plan,
    store: ArenaStore | None,
    run_id: int | None,
    played: dict[tuple[int, int, int], MatchOutcome],
    workers: int,
    backend_name: str,
    address: str | None,
    progress: Progress | None,
) -> ArenaResult:
    """Play the plan's matches not played yet, and return the run's figures:
    stop early once the SPRT decides; on Ctrl-C or a failure, close the
    workers and mark the stored run interrupted or failed."""
    run = _RunState(plan, store, run_id, played, backend_name, workers)
    todo = run.todo()
    reporter: Progress = progress if progress is not None else NullProgress()
    status = "sprt" if run.decided() else "done"
    backend: Backend | None = None
    try:
        if todo:
            backend = make_backend(backend_name, workers, address)
        reporter.start(len(run.tasks), len(run.outcomes), run.title())
        if backend is not None:
            status = run.play(todo, backend, reporter)
    except KeyboardInterrupt:
        partial = run.result("interrupted")
        _close(backend, reporter)
        raise run.interrupted(partial) from None
    except BaseException:
        _close(backend, reporter)
        run.mark_failed()
        raise
    _close(backend, reporter, done=status != "sprt")
    return run.finish(status)


class _RunState:
    """A run as it plays: its planned matches, the outcomes so far (those
    of an earlier session first), the running counts and the SPRT, and the
    store that keeps each finished match."""

    def __init__(
        self,
        plan: _Plan,
        store: ArenaStore | None,
        run_id: int | None,
        played: dict[tuple[int, int, int], MatchOutcome],
        backend_name: str,
        workers: int,
    ) -> None:
        self.plan = plan
        self.store = store
        self.run_id = run_id
        self.tasks = plan_tasks(plan.specs, plan.matches, plan.seed, plan.rules)
        self.outcomes = dict(played)
        self.tracker = _SprtTracker(plan.sprt) if plan.sprt is not None else None
        self.running = _Running(plan.labels, self.tracker)
        for key in sorted(self.outcomes):
            self._count(self.outcomes[key])
        self.settings = {**plan.settings, "backend": backend_name, "workers": workers}

    def _count(self, outcome: MatchOutcome) -> None:
        """Add a finished match to the running counts and the SPRT."""
        self.running.add(outcome)
        if self.tracker is not None:
            self.tracker.add(outcome)

    def decided(self) -> bool:
        """Whether the SPRT has decided, so that no further match is needed."""
        return self.tracker is not None and self.tracker.decision is not None

    def todo(self) -> list[MatchTask]:
        """The matches still to play: none once the SPRT has decided."""
        if self.decided():
            return []
        return [t for t in self.tasks if t.key not in self.outcomes]

    def title(self) -> str:
        """The progress line's title."""
        return f"arena run {self.run_id}" if self.run_id is not None else "arena"

    def play(self, todo: list[MatchTask], backend: Backend, reporter: Progress) -> str:
        """Play the matches to do, a batch at a time, keeping and counting
        each batch as it finishes: ``"sprt"`` when the SPRT decided before
        the end, else ``"done"``."""
        for finished in backend.run(_batches(todo, backend.workers, self._batch_cap())):
            self._keep(finished)
            reporter.update(len(self.outcomes), self.running.figures)
            if self.decided():
                return "sprt"
        return "done"

    def _batch_cap(self) -> int:
        """The most matches a batch holds: one pair for bots that search,
        four pairs' worth for an SPRT that may stop any time, else 16."""
        if any(thinks(s) for s in self.plan.specs):
            return 2
        return 4 if self.tracker is not None else 16

    def _keep(self, finished: list[MatchOutcome]) -> None:
        """Keep a finished batch: stored at once, so that a stopped run
        keeps it, and counted."""
        for o in finished:
            self.outcomes[o.key] = o
            if self.store is not None and self.run_id is not None:
                self.store.add_match(self.run_id, o)
            self._count(o)
        if self.store is not None:
            self.store.flush()

    def result(self, status: str) -> ArenaResult:
        """The figures of the matches played so far, with the run's status."""
        return aggregate(
            list(self.plan.labels),
            self.outcomes.values(),
            sprt=self.plan.sprt,
            run_id=self.run_id,
            status=status,
            planned=len(self.tasks),
            seed=self.plan.seed,
            settings=self.settings,
        )

    def interrupted(self, partial: ArenaResult) -> ArenaInterrupted:
        """Ctrl-C's exception, the stored run marked interrupted (ready for
        ``--resume``) with the figures so far."""
        if self.store is not None and self.run_id is not None:
            self.store.finish_run(self.run_id, "interrupted", partial.to_json())
        return ArenaInterrupted(partial, self.store.path if self.store is not None else None)

    def mark_failed(self) -> None:
        """Mark the stored run failed, as well as the store still can: the
        failure itself is what the caller reports."""
        if self.store is not None and self.run_id is not None:
            try:
                self.store.finish_run(self.run_id, "failed", self.result("failed").to_json())
            except MarjoletError:
                pass

    def finish(self, status: str) -> ArenaResult:
        """The run's final figures, stored with its status."""
        final = self.result(status)
        if self.store is not None and self.run_id is not None:
            self.store.finish_run(self.run_id, status, final.to_json())
        return final


def _close(backend: Backend | None, reporter: Progress, done: bool = False) -> None:
    reporter.finish()
    if backend is not None:
        backend.close(done)
