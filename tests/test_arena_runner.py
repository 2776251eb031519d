"""The arena runner: duplicate play, reproducibility across workers, SPRT,
the database, interruption and resumption, bot failures."""

from __future__ import annotations

import json
import os
import re
import sqlite3
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import ClassVar

import pytest

from marjolet.arena import (
    ArenaError,
    ArenaInterrupted,
    ArenaStore,
    BotFailure,
    StoreError,
    resume_arena,
    run_arena,
    stored_result,
)
from marjolet.arena.backends import BackendError
from marjolet.arena.progress import Figures, NullProgress
from marjolet.arena.report import format_result
from marjolet.arena.runner import reproduce_line, thinks
from marjolet.arena.tasks import MatchTask, derive_seed, plan_tasks, play_task
from marjolet.bots import Bot, BotSpecError, register
from marjolet.bots.base import BotFault
from marjolet.errors import RulesError
from marjolet.observation import Observation
from marjolet.record import loads, replay
from marjolet.rules import CLASSIC


class LowCardBot(Bot):
    """Test-only bot: declares every meld it can and plays its lowest card.
    It beats ``random`` about 85% of the time."""

    name = "test-lowcard"

    def choose(self, obs: Observation, legal: Sequence[int]) -> int:
        melds = [a for a in legal if 32 <= a <= 44]
        if melds:
            return melds[-1]
        cards = [a for a in legal if a < 32]
        return min(cards, key=lambda c: c % 8) if cards else legal[-1]


class CountingBot(Bot):
    """Test-only bot that counts how many instances were built."""

    name = "test-counting"
    built: ClassVar[int] = 0

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        CountingBot.built += 1

    def choose(self, obs: Observation, legal: Sequence[int]) -> int:
        return legal[self.rng.randrange(len(legal))]


class CrashingBot(Bot):
    name = "test-crash"

    def choose(self, obs: Observation, legal: Sequence[int]) -> int:
        if obs.tricks_played >= 3:
            raise RuntimeError("boom")
        return legal[0]


class IllegalBot(Bot):
    name = "test-illegal"

    def choose(self, obs: Observation, legal: Sequence[int]) -> int:
        return 45 if 45 not in legal else 0  # 'draw' outside a window, or a card in one


class ExitingBot(Bot):
    """Ends its process on its first move, as a crash of native code would."""

    name = "test-exit"

    def choose(self, obs: Observation, legal: Sequence[int]) -> int:
        os._exit(3)


for _bot in (LowCardBot, CountingBot, CrashingBot, IllegalBot, ExitingBot):
    register(_bot.name, _bot)


def test_same_seed_same_results_whatever_the_worker_count() -> None:
    one = run_arena(["test-lowcard", "random"], matches=24, seed=11, workers=1)
    two = run_arena(["test-lowcard", "random"], matches=24, seed=11, workers=2)
    assert one.to_json() == two.to_json()
    other = run_arena(["test-lowcard", "random"], matches=24, seed=12, workers=1)
    assert other.to_json() != one.to_json()


def test_duplicate_pair_swaps_seats_over_the_same_decks_and_dealer() -> None:
    rules = CLASSIC
    tasks = plan_tasks(["test-lowcard", "random"], 4, 5, rules)
    assert [t.key for t in tasks] == [(0, 0, 0), (0, 0, 1), (0, 1, 0), (0, 1, 1)]
    g0, g1 = play_task(tasks[0]), play_task(tasks[1])
    assert g0.seat_specs == ("test-lowcard", "random")
    assert g1.seat_specs == ("random", "test-lowcard")
    r0, r1 = loads(g0.record), loads(g1.record)
    assert r0.first_dealer == r1.first_dealer
    shared = min(len(r0.deals), len(r1.deals))
    assert [d.deck for d in r0.deals[:shared]] == [d.deck for d in r1.deals[:shared]]
    # The next pair gets other cards.
    r2 = loads(play_task(tasks[2]).record)
    assert r2.deals[0].deck != r0.deals[0].deck


def test_seeds_depend_only_on_run_seed_specs_pair_game_and_seat() -> None:
    task = MatchTask(0, 3, 1, ("a", "b"), 9, CLASSIC)
    moved = MatchTask(5, 3, 1, ("a", "b"), 9, CLASSIC)  # another pairing index
    assert task.deck_seed == moved.deck_seed == derive_seed(9, ("a", "b"), 3, "decks")
    assert task.bot_seed(0) != task.bot_seed(1)
    assert task.bot_seed(0) != MatchTask(0, 3, 0, ("a", "b"), 9, CLASSIC).bot_seed(0)
    assert 0 <= task.deck_seed < 2**63


def test_pairing_gets_the_same_matches_inside_a_round_robin() -> None:
    duo = run_arena(["test-lowcard", "random"], matches=8, seed=4)
    trio = run_arena(["test-lowcard", "random", "random:"], matches=8, seed=4)
    assert trio.pairing("test-lowcard", "random").to_json() == duo.pairings[0].to_json()


def test_every_match_gets_fresh_bots() -> None:
    CountingBot.built = 0
    run_arena(["test-counting", "random"], matches=6, seed=2, workers=1)
    assert CountingBot.built == 6 + 1  # one per match, plus the spec check


def test_round_robin_ratings_anchor_random_and_order_bots() -> None:
    result = run_arena(["random", "test-lowcard", "random"], matches=20, seed=3)
    assert [p.bots for p in result.pairings] == [
        ("random", "test-lowcard"),
        ("random", "random#2"),
        ("test-lowcard", "random#2"),
    ]
    assert result.anchor == "random"
    assert result.ratings["random"].elo == 0.0 and result.ratings["random"].anchor
    assert next(iter(result.ratings)) == "test-lowcard"
    assert result.ratings["test-lowcard"].elo > 150
    assert result.ratings["test-lowcard"].matches == 40
    data = result.to_json()
    assert set(data["ratings"]) == {"random", "random#2", "test-lowcard"}


def test_pairing_figures_are_consistent_with_the_matches() -> None:
    result = run_arena(["test-lowcard", "random"], matches=30, seed=8)
    p = result.pairings[0]
    assert p.matches == 30 and sum(p.wins) == 30
    assert p.win_rate == p.wins[0] / 30
    assert p.win_rate_ci[0] <= p.win_rate <= p.win_rate_ci[1]
    assert p.margin is not None and p.margin_ci is not None
    assert p.margin_ci[0] <= p.margin <= p.margin_ci[1]
    assert p.elo_ci is not None and p.elo_ci[0] <= p.elo <= p.elo_ci[1]
    assert sum(p.pairs) == 15
    assert p.pairs[2] * 2 + p.pairs[1] == p.wins[0]
    flipped = result.pairing("random", "test-lowcard")
    assert flipped.wins == (p.wins[1], p.wins[0]) and flipped.elo == -p.elo


def test_rules_reach_every_match(tmp_path: Path) -> None:
    rules = CLASSIC.replace(target=1000, deal_pattern=(2, 2, 2))
    result = run_arena(["random", "random"], matches=2, seed=1, rules=rules, db=tmp_path / "a.db")
    with ArenaStore(tmp_path / "a.db") as store:
        for o in store.outcomes(result.run_id or 0):
            record = loads(o.record)
            assert record.rules == rules
            assert max(o.totals) >= 1000


def test_matches_are_stored_as_replayable_records(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    result = run_arena(["test-lowcard", "random"], matches=6, seed=5, db=db)
    assert result.run_id == 1
    with ArenaStore(db, create=False) as store:
        info = store.run(1)
        assert info.status == "done" and info.played == 6 and info.seed == 5
        assert info.bots == ("test-lowcard", "random")
        outcomes = list(store.outcomes(1))
        for o in outcomes:
            replayed = replay(loads(o.record))
            assert replayed.totals == o.totals
            assert replayed.winner == o.winner
            assert loads(o.record).players == o.seat_specs
        assert stored_result(store, info).to_json() == result.to_json()
        assert info.summary == result.to_json()


def test_sprt_stops_early_and_identically_on_any_worker_count(tmp_path: Path) -> None:
    one = run_arena(["test-lowcard", "random"], matches=400, seed=1, sprt=(0, 50), workers=1)
    two = run_arena(
        ["test-lowcard", "random"],
        matches=400,
        seed=1,
        sprt=(0, 50),
        workers=2,
        db=tmp_path / "s.db",
    )
    assert one.sprt is not None and one.sprt.decision == "H1"
    assert one.status == "sprt"
    assert one.matches == 2 * one.sprt.pairs < 400
    assert one.to_json() == {**two.to_json(), "run": None}
    with ArenaStore(tmp_path / "s.db") as store:
        info = store.run(1)
        assert info.status == "sprt"
        assert stored_result(store, info).to_json() == two.to_json()


def test_sprt_accepts_h0_for_equal_bots() -> None:
    result = run_arena(["random", "random"], matches=2000, seed=2, sprt=(0, 60))
    assert result.sprt is not None and result.sprt.decision == "H0"


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"specs": ["random"]}, "at least two bots"),
        ({"matches": 7}, "even"),
        ({"matches": 0}, "even"),
        ({"workers": 0}, "--workers"),
        ({"specs": ["random", "random", "random"], "sprt": (0, 10)}, "exactly two"),
        ({"sprt": (10, 0)}, "ELO0 < ELO1"),
        ({"backend": "cloud"}, "unknown backend"),
    ],
)
def test_impossible_settings_are_refused(kwargs: dict[str, object], message: str) -> None:
    args: dict[str, object] = {"specs": ["random", "random"], "matches": 4, "seed": 1, **kwargs}
    specs = args.pop("specs")
    with pytest.raises(ArenaError, match=message):
        run_arena(specs, **args)  # type: ignore[arg-type]


def test_unknown_bot_and_bad_parameter_are_refused() -> None:
    with pytest.raises(BotSpecError, match="unknown bot 'nobody'"):
        run_arena(["nobody", "random"], matches=2, seed=1)
    with pytest.raises(BotSpecError, match="no parameter"):
        run_arena(["random:depth=3", "random"], matches=2, seed=1)


def test_rules_given_as_a_profile_name_are_refused_before_any_worker_starts(
    tmp_path: Path,
) -> None:
    db = tmp_path / "arena.db"
    says = r"rules must be a Rules such as Rules\.profile_named\('classic'\)"
    with pytest.raises(RulesError, match=says):
        run_arena(
            ["random", "random"], matches=2, seed=1, workers=2, rules="classic", db=db  # type: ignore[arg-type]
        )
    assert not db.exists()  # no run was stored


def test_unusable_database_is_one_clear_error(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="cannot use the arena database"):
        run_arena(["random", "random"], matches=2, seed=1, db=tmp_path / "missing" / "a.db")
    with pytest.raises(StoreError, match="directory"):
        run_arena(["random", "random"], matches=2, seed=1, db=tmp_path)
    junk = tmp_path / "junk.db"
    junk.write_text("this is not sqlite " * 100)
    with pytest.raises(StoreError, match="not a database"):
        run_arena(["random", "random"], matches=2, seed=1, db=junk)
    other = tmp_path / "other.db"
    sqlite3.connect(other).execute("CREATE TABLE t (x)").connection.commit()
    with pytest.raises(StoreError, match="not an arena database"):
        ArenaStore(other, create=False)


@pytest.mark.parametrize(("spec", "workers"), [("test-crash", 1), ("test-illegal", 2)])
def test_failing_bot_stops_the_run_with_one_line_naming_it(
    tmp_path: Path, spec: str, workers: int
) -> None:
    db = tmp_path / "f.db"
    # with two workers whichever failing pair finishes first is reported
    expected = f"bot '{spec}' \\(seat [01]\\) failed in pairing 0 pair [0-9]+ game [01]"
    with pytest.raises(BotFailure, match=expected):
        run_arena([spec, "random"], matches=4, seed=1, db=db, workers=workers)
    with ArenaStore(db) as store:
        assert store.run(1).status == "failed"


_STOP_MANY_TIMES = """
import sys, tempfile
from marjolet.arena import BotFailure, run_arena
from marjolet.bots import Bot, register

class IllegalBot(Bot):
    name = "test-illegal"
    def choose(self, obs, legal):
        return 45 if 45 not in legal else 0

register(IllegalBot.name, IllegalBot)
stopped = 0
for _ in range(int(sys.argv[1])):
    with tempfile.TemporaryDirectory() as d:
        try:
            run_arena(["test-illegal", "random"], matches=4, seed=1, db=d + "/f.db", workers=2)
        except BotFailure:
            stopped += 1
print(stopped, "stopped")
"""


def test_runs_stopped_by_a_failing_bot_never_hang_on_their_workers() -> None:
    # multiprocessing.Pool.terminate() deadlocked about one stop in ten
    # here: it killed a worker in the middle of sending a result, holding
    # the result queue's lock, then waited for that lock. Forty stops in a
    # child process, killed (and the test failed) if they take two minutes.
    runs = 40
    done = subprocess.run(
        [sys.executable, "-c", _STOP_MANY_TIMES, str(runs)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == [str(runs), "stopped"]


class _StopAfter(NullProgress):
    """A progress reporter that presses Ctrl-C after some batches."""

    def __init__(self, updates: int) -> None:
        self.updates = updates

    def update(self, done: int, figures: Figures) -> None:
        figures()
        self.updates -= 1
        if self.updates == 0:
            raise KeyboardInterrupt


@pytest.mark.parametrize("workers", [1, 2])
def test_interrupted_run_keeps_its_matches_and_resumes_to_the_same_result(
    tmp_path: Path, workers: int
) -> None:
    db = tmp_path / "i.db"
    specs = ["test-lowcard", "random", "random"]
    with pytest.raises(ArenaInterrupted) as stop:
        run_arena(specs, matches=40, seed=6, db=db, workers=workers, progress=_StopAfter(3))
    partial = stop.value.result
    assert partial.status == "interrupted" and 0 < partial.matches < partial.planned == 120
    assert f"--resume {partial.run_id} --db {db}" in stop.value.hint()
    with ArenaStore(db) as store:
        info = store.run(1)
        assert info.status == "interrupted" and info.played == partial.matches
    resumed = resume_arena(1, db, workers=2)
    fresh = run_arena(specs, matches=40, seed=6, workers=1)
    assert resumed.status == "done" and resumed.run_id == 1
    assert json.dumps({**resumed.to_json(), "run": None}) == json.dumps(fresh.to_json())


class _CountStored(NullProgress):
    """A progress reporter that counts, at every report, the matches the
    database already holds (read by a second connection, as after a crash)."""

    def __init__(self, db: Path) -> None:
        self.db = db
        self.seen: list[tuple[int, int]] = []

    def update(self, done: int, figures: Figures) -> None:
        with sqlite3.connect(self.db) as conn:
            stored = conn.execute("SELECT COUNT(*) FROM matches").fetchone()[0]
        self.seen.append((done, stored))


@pytest.mark.parametrize("workers", [1, 2])
def test_every_finished_batch_is_in_the_database_before_the_next_report(
    tmp_path: Path, workers: int
) -> None:
    """A run killed without warning (SIGKILL, a crash) keeps what it reported."""
    db = tmp_path / "k.db"
    counter = _CountStored(db)
    run_arena(["random", "heuristic"], matches=40, seed=3, db=db, workers=workers, progress=counter)
    assert len(counter.seen) > 2
    assert all(done == stored for done, stored in counter.seen), counter.seen


@pytest.mark.parametrize(
    ("spec", "slow"),
    [
        ("random", False),
        ("heuristic", False),
        ("solver", False),
        ("pimc", True),
        ("pimc:time=0,worlds=20", True),  # still a search: about 20 worlds a move
        ("best:time=0.025,clock=cpu", True),
        ("exec:./my-bot", True),
    ],
)
def test_time_budgeted_and_program_bots_are_sent_a_pair_at_a_time(spec: str, slow: bool) -> None:
    assert thinks(spec) is slow


def _relative_program_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """A run of ``exec:bots/rand.sh`` started in ``work/``, its second
    match lost (as if interrupted): the run's folder and the database."""
    started = tmp_path / "work"
    (started / "bots").mkdir(parents=True)
    program = started / "bots" / "rand.sh"
    program.write_text(f"#!/bin/sh\nexec {sys.executable} -m marjolet bot-serve random\n")
    program.chmod(0o755)
    db = tmp_path / "runs.db"
    monkeypatch.chdir(started)
    run_arena(["exec:bots/rand.sh", "random"], matches=2, seed=1, db=db)
    with sqlite3.connect(db) as conn:
        conn.execute("DELETE FROM matches WHERE game = 1")
    return started, db


def test_a_run_of_a_relative_program_resumes_from_another_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, db = _relative_program_run(tmp_path, monkeypatch)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    resumed = resume_arena(1, db)
    assert resumed.status == "done" and resumed.matches == 2
    assert Path.cwd() == elsewhere  # the working folder is given back


def test_a_run_whose_program_moved_says_where_it_was_started(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    started, db = _relative_program_run(tmp_path, monkeypatch)
    monkeypatch.chdir(tmp_path)
    started.rename(tmp_path / "moved")
    with pytest.raises(BotSpecError, match=f"started in \\({re.escape(str(started))}\\): resume"):
        resume_arena(1, db)


def test_resume_of_a_finished_run_plays_nothing(tmp_path: Path) -> None:
    db = tmp_path / "d.db"
    first = run_arena(["random", "random"], matches=4, seed=3, db=db)
    again = resume_arena(1, db)
    assert again.to_json() == first.to_json()
    with pytest.raises(StoreError, match="no run 9"):
        resume_arena(9, db)


class ForfeitingBot(Bot):
    """Test-only bot that breaks down like a faulty external bot."""

    name = "test-forfeit"

    def choose(self, obs: Observation, legal: Sequence[int]) -> int:
        if obs.deal_index == 1:
            raise BotFault("answered 'banana' (not an action)")
        return legal[0]


register(ForfeitingBot.name, ForfeitingBot)


def test_bot_fault_forfeits_the_match_and_the_run_goes_on(tmp_path: Path) -> None:
    db = tmp_path / "ff.db"
    result = run_arena(["random", "test-forfeit"], matches=6, seed=2, db=db)
    p = result.pairings[0]
    assert p.wins == (6, 0) and p.forfeits == (0, 6)
    assert result.to_json()["pairings"][0]["forfeits"] == [0, 6]
    # why, told where the run is read, not only in the database
    assert p.forfeit_reasons[0] is None and "banana" in (p.forfeit_reasons[1] or "")
    assert result.to_json()["pairings"][0]["forfeit_reasons"] == list(p.forfeit_reasons)
    report = format_result(result)
    assert "random 0, test-forfeit 6" in report
    assert "  the first: bot 'test-forfeit' (seat " in report and "banana" in report
    # where: its first move of deal 1 (0-based, as the record counts)
    assert re.search(r"forfeited in pair 0 game [01], deal 1, action [01] \(trick 1\): ", report)
    with ArenaStore(db) as store:
        for o in store.outcomes(1):
            assert o.forfeit is not None and "'test-forfeit'" in o.forfeit and "banana" in o.forfeit
            assert len(o.deal_points) == 1  # the completed first deal only
            record = loads(o.record)
            assert len(record.deals) == 2  # ends where the fault happened
            assert replay(record).winner is None


class _LastFigures(NullProgress):
    """A progress reporter that keeps the last figures line."""

    line = ""

    def update(self, done: int, figures: Figures) -> None:
        self.line = figures()


def test_the_progress_line_says_who_forfeited_how_often() -> None:
    progress = _LastFigures()
    run_arena(["random", "test-forfeit"], matches=4, seed=2, db=None, progress=progress)
    assert progress.line.startswith("random-test-forfeit 4-0 (100.0%, Elo +")
    assert progress.line.endswith("; test-forfeit forfeited 4)")


def test_database_from_before_forfeits_gains_the_column(tmp_path: Path) -> None:
    db = tmp_path / "old.db"
    run_arena(["random", "random"], matches=2, seed=1, db=db)
    with sqlite3.connect(db) as conn:
        conn.execute("ALTER TABLE matches DROP COLUMN forfeit")
    with ArenaStore(db, create=False) as store:
        assert [o.forfeit for o in store.outcomes(1)] == [None, None]
    assert resume_arena(1, db).matches == 2


def test_a_database_from_before_forfeits_is_read_as_it_is_when_read_only(tmp_path: Path) -> None:
    db = tmp_path / "old.db"
    run_arena(["random", "random"], matches=2, seed=1, db=db)
    with sqlite3.connect(db) as conn:
        conn.execute("ALTER TABLE matches DROP COLUMN forfeit")
        conn.execute("ALTER TABLE runs DROP COLUMN folder")
    conn.close()
    contents = db.read_bytes()
    with ArenaStore(db, read_only=True) as store:
        assert [o.forfeit for o in store.outcomes(1)] == [None, None]
        assert store.run(1).folder is None
    assert db.read_bytes() == contents  # no column added
    assert sorted(p.name for p in tmp_path.iterdir()) == ["old.db"]


def test_a_read_only_report_reads_what_an_arena_run_started_beside_it_wrote(
    tmp_path: Path,
) -> None:
    # No one had the file open, so the report's connection is immutable (no
    # -wal or -shm left): it must not keep reading the pages it cached once
    # another arena run wrote and checkpointed the file beside it.
    db = tmp_path / "d.db"
    run_arena(["random", "random"], matches=2, seed=1, db=db)
    with ArenaStore(db, read_only=True) as report:
        assert [r.played for r in report.runs()] == [2]
        run_arena(["random", "random"], matches=4, seed=2, db=db)
        assert [r.played for r in report.runs()] == [2, 4]
        assert len(list(report.outcomes(2))) == 4


def test_a_worker_process_that_dies_is_one_error_naming_it(tmp_path: Path) -> None:
    db = tmp_path / "d.db"
    died = r"arena worker process \(pid [0-9]+\) died with exit code 3"
    with pytest.raises(BackendError, match=died):
        run_arena(["test-exit", "random"], matches=4, seed=1, db=db, workers=2)
    with ArenaStore(db) as store:
        assert store.run(1).status == "failed"


def test_a_finished_pool_run_lets_its_workers_end_by_themselves() -> None:
    # Once every batch is played the workers are told to end, not signalled
    # (a run once hung at its very end while multiprocessing.Pool terminated
    # its workers: the deadlock test_runs_stopped_by_a_failing_bot_never_hang
    # checks for).
    from marjolet.arena.backends import ProcessPoolBackend
    from marjolet.arena.tasks import play_batch

    backend = ProcessPoolBackend(2)
    workers = [w.process for w in backend._workers]
    tasks = plan_tasks(["random", "random"], 4, 3, CLASSIC)
    batches = [tasks[i : i + 2] for i in range(0, len(tasks), 2)]
    played = [o for batch in backend.run(batches) for o in batch]
    assert sorted(o.key for o in played) == sorted(play_batch(tasks)[i].key for i in range(4))
    backend.close(done=True)
    assert [w.exitcode for w in workers] == [0, 0], "ended by their end marks, not by a signal"


def test_the_reproduce_line_of_a_relative_program_starts_in_the_run_s_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The decks depend on the spec as written (``exec:bots/rand.sh``), so
    the command that plays the run again goes to the folder it started in."""
    started, db = _relative_program_run(tmp_path, monkeypatch)
    with ArenaStore(db, read_only=True) as store:
        info = store.run(1)
    command = "marjolet arena exec:bots/rand.sh random --matches 2 --seed 1"
    assert reproduce_line(replace(info, command=command)) == f"cd {started} && {command}"
    assert reproduce_line(replace(info, command=None)) is None
    plain = replace(info, bots=("random", "random"), command="marjolet arena random random")
    assert reproduce_line(plain) == "marjolet arena random random"


def test_damaged_deal_points_are_named_in_one_line(tmp_path: Path) -> None:
    db = tmp_path / "d.db"
    run_arena(["random", "random"], matches=2, seed=3, db=db)
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE matches SET deal_points='[[1]]' WHERE pair=0 AND game=1")
    with ArenaStore(db, read_only=True) as store, pytest.raises(
        StoreError, match="run 1 pairing 0 pair 0 game 1 has unreadable deal points"
    ):
        list(store.outcomes(1))
