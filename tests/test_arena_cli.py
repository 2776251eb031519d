"""``marjolet arena`` and ``marjolet arena report`` from the command line."""

from __future__ import annotations

import io
import json
import math
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cli_support import gone
from marjolet.arena import run_arena
from marjolet.arena.progress import PlainProgress, TerminalProgress, auto_progress
from marjolet.arena.results import PairingResult, Rating
from marjolet.cli import main
from marjolet.rules import CLASSIC, Rules
from services import refused_port


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    try:
        code = main(["arena", *argv])
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def test_json_output_has_the_documented_keys(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    db = str(tmp_path / "a.db")
    code, out, _ = _run(
        capsys,
        "random",
        "random",
        "--matches",
        "6",
        "--seed",
        "3",
        "--json",
        "--db",
        db,
        "--workers",
        "1",
    )
    assert code == 0
    data = json.loads(out)
    (pairing,) = data["pairings"]
    for key in (
        "bots",
        "matches",
        "wins",
        "win_rate",
        "win_rate_ci",
        "margin",
        "margin_ci",
        "elo",
        "elo_ci",
    ):
        assert key in pairing
    assert pairing["bots"] == ["random", "random#2"]
    assert pairing["matches"] == 6 and sum(pairing["wins"]) == 6
    assert pairing["win_rate"] == pairing["wins"][0] / 6
    assert set(data["ratings"]) == {"random", "random#2"}
    assert data["run"] == 1 and data["seed"] == 3
    # The same run through the Python API gives the same figures.
    api = run_arena(["random", "random"], matches=6, seed=3)
    assert api.to_json()["pairings"] == data["pairings"]


def test_an_even_score_is_elo_0_never_minus_0(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["random", "random", "--matches", "2", "--seed", "3", "--no-db", "--quiet"]
    code, out, _ = _run(capsys, *argv, "--json")
    assert code == 0
    (pairing,) = json.loads(out)["pairings"]
    assert pairing["wins"] == [1, 1]  # the even score: 400 * log10(1) is -0.0 in floats
    assert pairing["elo"] == 0.0 and math.copysign(1.0, pairing["elo"]) == 1.0
    assert "-0.0," not in out and "-0.0]" not in out
    code, out, _ = _run(capsys, *argv)
    assert code == 0
    assert re.search(r"[-\s]0 \[n/a\]", out) is None and "+0 [n/a]" in out  # the Elo column


def test_json_never_holds_a_negative_zero() -> None:
    pairing = PairingResult(
        bots=("a", "b"), matches=2, wins=(1, 1), win_rate=0.5, win_rate_ci=(0.1, 0.9),
        margin=-0.001, margin_ci=(-0.004, 0.003), match_margin=-0.02, match_margin_ci=None,
        elo=-0.0, elo_ci=(-0.04, 0.0), pairs=(0, 1, 0), deals=12,
    )  # fmt: skip
    data = pairing.to_json()
    figures = [data["margin"], *data["margin_ci"], data["match_margin"], data["elo"]]
    assert all(x == 0.0 and math.copysign(1.0, x) == 1.0 for x in figures + data["elo_ci"])
    rating = Rating("b", -0.04, (-0.04, 0.0), 2, 0.5).to_json()
    assert math.copysign(1.0, rating["elo"]) == 1.0 and "-0.0" not in json.dumps(rating)


def test_text_output_and_report(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    db = str(tmp_path / "a.db")
    code, out, err = _run(
        capsys,
        "random",
        "random",
        "random",
        "--matches",
        "4",
        "--seed",
        "5",
        "--db",
        db,
        "--workers",
        "2",
        "--target",
        "300",
    )
    assert code == 0, err
    assert "random vs random#2" in out and "ratings (Bradley-Terry" in out
    assert "seed 5" in out and "target=300" in out
    assert f"saved as run 1 in {db}" in out
    # Plain progress lines on a non-terminal standard error.
    assert "arena run 1: 12/12 matches (100%)" in err
    code, out, _ = _run(capsys, "report", "--db", db)
    assert code == 0
    assert "random random random" in out and "12/12" in out and "done" in out
    code, out, _ = _run(capsys, "report", "--db", db, "--run", "1")
    assert code == 0
    assert "arena run 1: 12/12 matches" in out
    assert (
        "reproduce with: marjolet arena random random random --matches 4 --seed 5 "
        "--rules classic --target 300" in out
    )
    code, out, _ = _run(capsys, "report", "--db", db, "--run", "1", "--json")
    report = json.loads(out)
    code, out, _ = _run(
        capsys,
        "random",
        "random",
        "random",
        "--matches",
        "4",
        "--seed",
        "5",
        "--no-db",
        "--json",
        "--quiet",
        "--target",
        "300",
    )
    again = json.loads(out)
    assert report["pairings"] == again["pairings"] and report["ratings"] == again["ratings"]
    assert report["settings"]["rules"]["target"] == 300


def test_the_header_writes_the_rules_as_a_record_does(capsys: pytest.CaptureFixture[str]) -> None:
    rules = ["--deal-pattern", "2-2-2", "--one-meld-per-window", "--target", "300"]
    argv = ["random", "random", "--matches", "2", "--seed", "1", "--no-db", "--quiet", *rules]
    code, out, _ = _run(capsys, *argv)
    assert code == 0
    head = out.splitlines()[0]
    text = "classic deal_pattern=2-2-2 target=300 one_meld_per_window=true"
    assert f", rules {text}, status done" in head
    assert "[2, 2, 2]" not in head and "True" not in head
    assert Rules.parse(text) == CLASSIC.replace(
        deal_pattern=(2, 2, 2), target=300, one_meld_per_window=True
    )


def test_report_plot_png_and_svg(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    db = str(tmp_path / "a.db")
    _run(
        capsys,
        "random",
        "random",
        "--matches",
        "8",
        "--seed",
        "1",
        "--db",
        db,
        "--quiet",
        "--plot",
        str(tmp_path / "run.png"),
    )
    assert (tmp_path / "run.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    code, _, err = _run(capsys, "report", "--db", db, "--plot", str(tmp_path / "latest.svg"))
    assert code == 0, err
    assert "<svg" in (tmp_path / "latest.svg").read_text()
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["nobody", "random"], "unknown bot 'nobody'"),
        (["random:speed=3", "random"], "no parameter 'speed'"),
        (["random"], "at least two bots"),
        (["random", "random", "--matches", "5"], "--matches must be a positive even number"),
        (["random", "random", "--matches", "-2"], "--matches must be a positive even number"),
        (["random", "random", "--workers", "0"], "--workers must be a positive integer"),
        (["random", "random", "random", "--sprt", "0", "10"], "exactly two bots"),
        (["random", "random", "--sprt", "10", "0"], "ELO0 < ELO1"),
        (["random", "random", "--sprt", "0", "10", "--alpha", "0.9"], "alpha"),
        (["random", "random", "--alpha", "0.1"], "--alpha is for --sprt"),
        (["random", "random", "--address", "x:1"], "--address needs --backend ray"),
        (["random", "random", "--db", "/nonexistent/dir/a.db"], "cannot use the arena database"),
        (["random", "random", "--plot", "x.pdf"], "must end in .png or .svg"),
        (["random", "random", "--no-db", "--plot", "x.png"], "--plot needs the database"),
        (["random", "random", "--force"], "--force is for --plot"),
        (["report", "--force"], "--force is for --plot"),
        (["random", "random", "--deal-pattern", "2-2-2", "--target", "0"], "target"),
        (["--resume", "1", "random"], "give no BOT"),
        (["--resume", "1", "--no-db"], "needs the database"),
        (["--resume", "1", "--seed", "3"], "drop --seed"),
        (["report", "--db", "/nonexistent/a.db"], "no arena database"),
        (["report", "--matches", "4"], "'report' does not take --matches"),
        (["report", "random"], "'report' takes no BOT"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    argv: list[str],
    message: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    extra = ["--quiet"] if argv[0] != "report" else []
    missing = str(tmp_path / "nonexistent")  # a folder surely missing (/nonexistent may not be)
    argv = [a.replace("/nonexistent", missing, 1) for a in argv]
    code, _, err = _run(capsys, *argv, *extra)
    assert code == 2
    assert message in err
    assert err.count("\n") == 1 and err.startswith("marjolet: error: ")
    assert "Traceback" not in err


def test_plot_without_matplotlib_is_refused_before_any_match(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # not installed
    db = str(tmp_path / "a.db")
    code, _, err = _run(capsys, "random", "random", "--db", db, "--plot", "x.png", "--quiet")
    assert code == 2
    assert err == "marjolet: error: --plot needs matplotlib: pip install 'marjolet[plot]'\n"
    assert not Path(db).exists()  # refused before the run began


def test_ray_backend_without_ray_is_one_clear_error(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # makes `import ray` fail
    code, _, err = _run(capsys, "random", "random", "--backend", "ray", "--no-db", "--quiet")
    assert code == 2
    assert err == "marjolet: error: --backend ray needs Ray: pip install 'marjolet[ray]'\n"


@pytest.mark.parametrize(
    ("address", "message"),
    [
        ("127.0.0.1:{refused}", "cannot reach the Ray cluster at '127.0.0.1:{refused}': Conn"),
        ("ray://127.0.0.1:{refused}", "cannot reach the Ray cluster at 'ray://127.0.0.1:{refused}'"),
        ("head", "--address 'head' is not HOST:PORT, ray://HOST:PORT or auto"),
        ("head:99999", "--address 'head:99999' is not HOST:PORT"),
    ],
)
def test_a_ray_address_that_cannot_be_reached_is_refused_at_once_before_any_run(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, address: str, message: str
) -> None:
    """Ray would retry such an address for minutes, printing its own log
    lines; the arena says what is wrong in one line and writes nothing."""
    db = tmp_path / "a.db"
    with refused_port() as refused:
        address, message = address.format(refused=refused), message.format(refused=refused)
        started = time.monotonic()
        code, _, err = _run(capsys, "random", "random", "--backend", "ray", "--address", address,
                            "--db", str(db), "--quiet")
    assert code == 2
    assert err.startswith(f"marjolet: error: {message}") and err.count("\n") == 1
    assert time.monotonic() - started < 30  # REACH_TIMEOUT_S, not Ray's minutes
    assert not db.exists()


def test_help_describes_both_forms(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "--help")
    assert code == 0
    assert "marjolet arena report" in out and "--sprt ELO0 ELO1" in out and "%%" not in out


def test_resume_of_an_unknown_run_and_a_foreign_file(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    db = tmp_path / "a.db"
    _run(capsys, "random", "random", "--matches", "2", "--seed", "1", "--db", str(db), "--quiet")
    code, _, err = _run(capsys, "--resume", "7", "--db", str(db), "--quiet")
    assert code == 2 and "no run 7" in err
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"\x00not a database" * 200)
    code, _, err = _run(capsys, "random", "random", "--db", str(junk), "--quiet")
    assert code == 2 and "not a database" in err


def test_progress_is_a_bar_on_a_terminal_and_lines_otherwise() -> None:
    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    tty = Tty()
    bar = auto_progress(tty)
    assert isinstance(bar, TerminalProgress)
    run_arena(["random", "random"], matches=20, seed=1, progress=bar)
    drawn = tty.getvalue()
    assert "\r" in drawn and "[####################] 20/20" in drawn and "random-random#2" in drawn
    plain = io.StringIO()
    lines = auto_progress(plain)
    assert isinstance(lines, PlainProgress)
    run_arena(["random", "random"], matches=20, seed=1, progress=lines)
    text = plain.getvalue()
    assert "\r" not in text and "arena: 20/20 matches (100%)" in text


def _count_matches(db: Path) -> int:
    try:
        with sqlite3.connect(db) as conn:
            return int(conn.execute("SELECT COUNT(*) FROM matches").fetchone()[0])
    except sqlite3.Error:
        return 0


@pytest.mark.parametrize(
    ("signum", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)], ids=["ctrl-c", "kill"]
)
def test_ctrl_c_or_kill_keeps_finished_matches_and_resume_finishes_the_run(
    tmp_path: Path, signum: int, code: int
) -> None:
    db = tmp_path / "c.db"
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    cli = [sys.executable, "-m", "marjolet.cli", "arena"]
    # A long target makes each match slow enough to interrupt mid-run; 40
    # matches leave the resume enough to finish (200 only took longer).
    argv = [
        *cli,
        "random",
        "random",
        "--matches",
        "40",
        "--seed",
        "9",
        "--target",
        "3000",
        "--workers",
        "2",
        "--db",
        str(db),
        "--sources",
    ]
    # A process started with SIGINT ignored keeps it ignored (as a shell's
    # background job does, rightly); whatever in this test session may have
    # ignored it, the arena here must start as from a terminal: Ctrl-C live.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        proc = subprocess.Popen(
            argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=tmp_path
        )
    finally:
        signal.signal(signal.SIGINT, previous)
    deadline = time.monotonic() + 60
    while _count_matches(db) < 10 and time.monotonic() < deadline:
        time.sleep(0.05)
    proc.send_signal(signum)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == code, err
    assert f"continue with: marjolet arena --resume 1 --db {db}" in err
    assert "Traceback" not in err
    saved = _count_matches(db)
    assert 10 <= saved < 40
    assert "status interrupted" in out
    assert "where the deal margin comes from, random vs random#2" in out  # --sources, so far
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT status FROM runs WHERE id=1").fetchone()[0] == "interrupted"
    resumed = subprocess.run(
        [*cli, "--resume", "1", "--db", str(db), "--json", "--quiet"],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=120,
    )
    assert resumed.returncode == 0, resumed.stderr
    data = json.loads(resumed.stdout)
    assert data["status"] == "done" and data["matches"] == 40 and data["run"] == 1
    assert _count_matches(db) == 40


def _descendants(pid: int) -> set[int]:
    """The processes started by ``pid`` and by its children (Linux /proc)."""
    found: set[int] = set()
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            children = (task / "children").read_text().split()
        except OSError:
            continue
        for child in map(int, children):
            found |= {child, *_descendants(child)}
    return found


def _command_line(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_text()
    except OSError:
        return ""


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="reads Linux /proc")
def test_a_sigkilled_arena_leaves_no_worker_or_bot_playing_on(tmp_path: Path) -> None:
    """SIGKILL reaches the arena alone; its workers, and the ``exec:`` bots
    they started, end within seconds instead of playing on for nobody."""
    program = tmp_path / "rand.sh"
    program.write_text(f"#!/bin/sh\nexec {sys.executable} -m marjolet bot-serve random\n")
    program.chmod(0o755)
    db = tmp_path / "k.db"
    argv = [sys.executable, "-m", "marjolet.cli", "arena", f"exec:{program}", "random",
            "--matches", "200", "--seed", "9", "--target", "3000", "--workers", "2",
            "--db", str(db)]  # fmt: skip
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while True:  # matches played, and both workers inside one with their bot
            started = _descendants(proc.pid)
            bots = [pid for pid in started if "bot-serve" in _command_line(pid)]
            if (_count_matches(db) >= 2 and len(bots) >= 2) or time.monotonic() > deadline:
                break
            time.sleep(0.05)
        assert len(started) >= 4 and len(bots) >= 2, started  # two workers, a bot each
    finally:
        proc.kill()
        proc.wait(10)
    left = [pid for pid in started if not gone(pid, wait=15)]
    assert not left, f"still running after the arena's SIGKILL: {left}"


def test_a_run_and_its_report_take_a_database_path_relative_to_the_current_directory(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--db runs.db`` names a file in the current directory, for the run and
    for the report, both writing it and reading an existing one (the
    read-only check of an existing file once failed on a relative path)."""
    monkeypatch.chdir(tmp_path)
    argv = ("random", "random", "--matches", "2", "--seed", "1", "--workers", "1")
    code, out, err = _run(capsys, *argv, "--db", "runs.db")
    assert code == 0, err
    code, out, err = _run(capsys, *argv, "--db", "runs.db")
    assert code == 0, err
    assert "saved as run 2 in runs.db" in out
    code, out, err = _run(capsys, "report", "--db", "runs.db", "--run", "2")
    assert code == 0, err
    assert "arena run 2: 2/2 matches" in out


def test_a_cut_short_database_is_left_as_it_was_with_no_files_beside_it(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """A write-ahead-log database cut short makes SQLite create its -wal and
    -shm files even read-only: the refusal says "left untouched", so they go."""
    db = tmp_path / "whole.db"
    _run(capsys, "random", "random", "--matches", "2", "--seed", "1", "--db", str(db), "--quiet")
    cut = tmp_path / "cut.db"
    cut.write_bytes(db.read_bytes()[:5000])
    before = cut.read_bytes()
    code, _, err = _run(capsys, "report", "--db", str(cut))
    assert code == 2 and "is a damaged database" in err and "left untouched" in err
    assert cut.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cut.db", "whole.db"]
