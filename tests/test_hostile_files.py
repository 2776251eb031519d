"""Issue 15, files and input: the files the commands write and the input
they read, tried the way a careless user or an attacker would."""

from __future__ import annotations

import errno
import json
import os
import socket
import sqlite3
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cli_support import refusal, run_cli, selfplay_record
from marjolet import outputs, record
from marjolet.arena.store import ArenaStore
from marjolet.arena.store import StoreError as ArenaStoreError
from marjolet.cli import main
from marjolet.errors import RecordError
from marjolet.outputs import OutputError


@pytest.fixture
def match_file(tmp_path: Path) -> Path:
    """A finished match, as a JSON record."""
    return selfplay_record(tmp_path / "match.json")


# -- the file-writing rule -------------------------------------------------------------


@pytest.mark.parametrize("command", ["convert", "selfplay", "play"])
def test_an_existing_file_is_never_overwritten_without_force(
    command: str, tmp_path: Path, match_file: Path
) -> None:
    kept = tmp_path / "keep.json"
    kept.write_text("precious\n")
    flag = "--out"
    args = {
        "convert": ["convert", str(match_file), "--to", "json", "--out", str(kept)],
        "selfplay": ["selfplay", "--seed", "1", "--out", str(kept)],
        "play": ["play", "--plain", "--opponent", "random", "--seed", "1", "--save", str(kept)],
    }[command]
    line = refusal(run_cli(*args, stdin="quit\n"))
    named = f"cannot save to {kept}" if command == "play" else f"{flag} {kept}"
    assert named in line and "--force" in line
    assert kept.read_text() == "precious\n"
    proc = run_cli(*args, "--force", stdin="quit\n")
    assert proc.returncode == 0, proc.stderr
    assert record.load(kept, check=False).deals  # replaced by a record


def test_arena_plot_naming_its_own_database_is_refused_and_the_database_kept(
    tmp_path: Path,
) -> None:
    # --db x.png --plot x.png drew the figure over the run just stored
    pytest.importorskip("matplotlib")
    db = tmp_path / "x.png"
    run = ["arena", "random", "random", "--matches", "2", "--seed", "1", "--workers", "1",
           "--quiet", "--db", str(db)]
    line = refusal(run_cli(*run, "--plot", str(db)))
    assert f"--db {db} and --plot {db} name the same file" in line
    assert not db.exists()
    assert main(run) == 0
    stored = db.read_bytes()
    for plot in (str(db), str(tmp_path / "." / "x.png")):
        line = refusal(run_cli("arena", "report", "--db", str(db), "--plot", plot, "--force"))
        assert "name the same file" in line
        line = refusal(run_cli(*run, "--plot", plot, "--force"))
        assert "name the same file" in line
    assert db.read_bytes() == stored
    with ArenaStore(str(db), read_only=True) as store:
        assert len(store.runs()) == 1


def test_two_outputs_are_compared_where_writing_lands(tmp_path: Path) -> None:
    target = tmp_path / "a.txt"
    link = tmp_path / "b.txt"
    link.symlink_to(target)
    outputs.check_distinct((target, "--out"), (tmp_path / "c.txt", "--log"), (None, "--x"))
    for other in (link, tmp_path / "sub" / ".." / "a.txt", str(target)):
        with pytest.raises(OutputError) as err:
            outputs.check_distinct((target, "--out"), (None, "--x"), (other, "--log"))
        assert err.value.code == "same_file"
        assert str(err.value) == (
            f"--out {target} and --log {other} name the same file; give each its own"
        )


def test_play_save_on_its_own_match_file_goes_on(tmp_path: Path) -> None:
    save = tmp_path / "game.json"
    first = run_cli(
        "play", "--plain", "--opponent", "random", "--seed", "4", "--save", str(save),
        stdin="1\n1\nquit\n",
    )
    assert first.returncode == 0, first.stderr
    before = record.load(save, check=False).deals[0].actions
    again = run_cli("play", "--plain", "--resume", str(save), "--save", str(save),
                    stdin="1\nquit\n")
    assert again.returncode == 0, again.stderr
    after = record.load(save, check=False).deals[0].actions
    assert after[: len(before)] == before and len(after) > len(before)


def _special_files(tmp_path: Path) -> list[tuple[str, Path]]:
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    sock_path = tmp_path / "s.json"
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(sock_path))
    sock.close()
    found = [("FIFO", fifo), ("socket", sock_path)]
    device = tmp_path / "device.json"
    try:
        os.mknod(device, stat.S_IFCHR | 0o600, os.makedev(1, 3))  # like /dev/null
    except PermissionError:
        pass
    else:
        found.append(("device", device))
    return found


def test_devices_fifos_and_sockets_are_refused_even_with_force(
    tmp_path: Path, match_file: Path
) -> None:
    for kind, path in _special_files(tmp_path):
        mode = os.stat(path).st_mode
        line = refusal(
            run_cli("convert", str(match_file), "--to", "text", "--out", str(path), "--force")
        )
        assert str(path) in line and kind in line
        with pytest.raises(OSError):
            outputs.write_atomic(path, "x")
        assert os.stat(path).st_mode == mode  # still the same kind of file


def test_a_symlink_is_written_through_and_its_target_replaced_atomically(
    tmp_path: Path, match_file: Path
) -> None:
    real = tmp_path / "real" / "game.txt"
    real.parent.mkdir()
    real.write_text("old\n")
    os.chmod(real, 0o640)
    link = tmp_path / "link.txt"
    link.symlink_to(real)
    assert main(["convert", str(match_file), "--to", "text", "--out", str(link), "--force"]) == 0
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert record.load(real) == record.load(match_file)
    assert stat.S_IMODE(os.stat(real).st_mode) == 0o640  # the replaced file keeps its mode
    assert sorted(p.name for p in real.parent.iterdir()) == ["game.txt"]  # no temporary left
    with pytest.raises(OutputError, match="exists"):
        outputs.check_output(link)  # and without --force a link to a file is refused too


def test_no_command_creates_a_missing_folder(tmp_path: Path, match_file: Path) -> None:
    missing = tmp_path / "no" / "such"
    for args in (
        ["convert", str(match_file), "--to", "json", "--out", str(missing / "a.json")],
        ["selfplay", "--seed", "1", "--out", str(missing / "b.json")],
        ["play", "--plain", "--opponent", "random", "--save", str(missing / "c.json")],
        ["arena", "random", "random", "--matches", "2", "--db", str(missing / "d.db")],
    ):
        line = refusal(run_cli(*args, stdin="quit\n"))
        assert "no such folder" in line, line
    assert not (tmp_path / "no").exists()


def test_every_db_refuses_an_existing_file_that_is_not_a_marjolet_database(
    tmp_path: Path,
) -> None:
    from marjolet.web.store import Store, StoreError

    notes = tmp_path / "notes.txt"
    notes.write_text("not a database\n")
    other = tmp_path / "other.sqlite3"
    with sqlite3.connect(other) as conn:
        conn.execute("CREATE TABLE accounts (x)")
    before = {p: p.read_bytes() for p in (notes, other)}
    for path in (notes, other):
        with pytest.raises(StoreError, match="is not a marjolet database"):
            Store(path)
        with pytest.raises(ArenaStoreError, match="is not a marjolet arena database"):
            ArenaStore(path)
        line = refusal(
            run_cli("arena", "random", "random", "--matches", "2", "--db", str(path))
        )
        assert str(path) in line
    arena_db = tmp_path / "arena.db"
    ArenaStore(arena_db).close()
    with pytest.raises(StoreError, match="is not a marjolet database"):
        Store(arena_db)  # one kind of marjolet database is not the other
    assert {p: p.read_bytes() for p in (notes, other)} == before
    left = sorted(p.name for p in tmp_path.iterdir() if not p.name.startswith("arena.db"))
    assert left == ["notes.txt", "other.sqlite3"]  # no lock, no journal beside them
    Store(tmp_path / "new.sqlite3").close()  # a new file is still created


# -- reading ---------------------------------------------------------------------------


def test_convert_checks_the_record_first(tmp_path: Path, match_file: Path) -> None:
    whole = json.loads(match_file.read_text())
    first = whole["deals"][0]
    truncated = dict(whole, deals=[dict(first, actions=first["actions"][:5]), whole["deals"][1]])
    extra = dict(whole, deals=[dict(first, actions=[*first["actions"], "draw"])])
    for name, obj in (("truncated", truncated), ("extra", extra)):
        bad = tmp_path / f"{name}.json"
        bad.write_text(json.dumps(obj))
        assert refusal(run_cli("replay", str(bad)))
        out = tmp_path / f"{name}.txt"
        line = refusal(run_cli("convert", str(bad), "--to", "text", "--out", str(out)))
        assert "deal 0" in line
        assert not out.exists()


NESTED = "[" * 100_000 + "]" * 100_000


@pytest.mark.parametrize("command", ["replay", "convert", "solve", "play"])
def test_deeply_nested_json_is_one_line_and_exit_2(command: str, tmp_path: Path) -> None:
    bad = tmp_path / "nested.json"
    bad.write_text(NESTED)
    args = {
        "replay": ["replay", str(bad)],
        "convert": ["convert", str(bad), "--to", "text"],
        "solve": ["solve", str(bad)],
        "play": ["play", "--plain", "--resume", str(bad)],
    }[command]
    line = refusal(run_cli(*args))
    assert "nested 100000 levels deep" in line and f"limit is {record.MAX_JSON_DEPTH}" in line
    # standard input too, and the text form's quoted player names
    assert "nested" in refusal(run_cli("replay", "-", stdin=NESTED))
    with pytest.raises(RecordError, match="players"):
        record.loads("first_dealer 0\nplayers " + "[" * 10_000)


def test_a_deeply_nested_bot_protocol_line_is_a_protocol_error() -> None:
    from marjolet.bots.protocol import ProtocolError, decode

    nested = "[" * 30_000  # within bot-serve's 64 KiB line limit
    with pytest.raises(ProtocolError, match="not JSON"):
        decode(nested.encode())
    line = refusal(run_cli("bot-serve", "random", stdin=nested + "\n"))
    assert "line 1 is not JSON" in line


def test_resume_skips_unreadable_saves_with_a_warning(tmp_path: Path) -> None:
    data = tmp_path / "data"
    env = {"MARJOLET_DATA_DIR": str(data)}
    started = run_cli("play", "--plain", "--opponent", "random", "--seed", "2", stdin="1\nquit\n",
                      env=env)
    assert started.returncode == 0, started.stderr
    games = data / "games"
    (good,) = games.iterdir()
    bad = games / "9999-broken.json"
    bad.write_text(NESTED)
    later = time.time() + 60
    os.utime(bad, (later, later))  # the newest save is the damaged one
    proc = run_cli("play", "--plain", "--resume", stdin="quit\n", env=env)
    assert proc.returncode == 0, proc.stderr
    warning = [line for line in proc.stderr.splitlines() if "warning" in line]
    assert len(warning) == 1 and str(bad) in warning[0] and "nested" in warning[0]
    assert str(good) in proc.stdout


def test_a_byte_order_mark_or_non_utf8_file_is_named_in_the_message(
    tmp_path: Path, match_file: Path
) -> None:
    text = match_file.read_text()
    cases = {
        "bom.json": ("\ufeff" + text).encode("utf-8"),
        "utf16.json": text.encode("utf-16"),
        "latin1.txt": record.load(match_file).to_text().replace('"random"', '"Zoé"', 1).encode(
            "latin-1"
        ),
    }
    expected = {"bom.json": "byte-order mark", "utf16.json": "UTF-16", "latin1.txt": "not UTF-8"}
    for name, data in cases.items():
        path = tmp_path / name
        path.write_bytes(data)
        line = refusal(run_cli("replay", str(path)))
        assert expected[name] in line and "first_dealer" not in line, line
        assert expected[name] in refusal(run_cli("replay", "-", stdin=data))


def test_target_0_names_the_flag_given() -> None:
    for args, flag in (
        (["rules", "--target", "0"], "--target "),
        (["rules", "--target", "1"], "--target "),
        (["rules", "--all-tricks-bonus", "-3"], "--all-tricks-bonus "),
        (["rules", "--rules", "nope"], "--rules:"),
    ):
        line = refusal(run_cli(*args, env={"LANG": "C", "LANGUAGE": "", "LC_ALL": ""}))
        assert line.startswith(f"marjolet: error: {flag}"), line
        assert "--rules" not in line or flag == "--rules:"


def test_arena_workers_beyond_the_backend_are_refused_before_any_process_starts(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from marjolet.arena import backends

    def no_pool(*args: object) -> None:
        raise AssertionError("a process pool was started")

    monkeypatch.setattr(backends.ProcessPoolBackend, "__init__", no_pool)
    most = backends.max_workers("local")
    assert most is not None
    with pytest.raises(SystemExit) as stop:
        main(["arena", "random", "random", "--matches", "2", "--no-db", "--workers",
              str(most + 1)])
    assert stop.value.code == 2
    assert f"--workers {most + 1}" in capsys.readouterr().err


def test_serve_with_its_port_in_use_is_one_line_and_exit_2(tmp_path: Path) -> None:
    pytest.importorskip("uvicorn")
    busy = socket.socket()
    busy.bind(("127.0.0.1", 0))
    busy.listen()
    port = busy.getsockname()[1]
    try:
        line = refusal(
            run_cli("serve", "--port", str(port), "--db", str(tmp_path / "w.sqlite3"))
        )
    finally:
        busy.close()
    assert f"127.0.0.1:{port}" in line and "in use" in line
    assert list(tmp_path.iterdir()) == []  # not even the database was touched


def test_a_refused_serve_loads_none_of_the_server_s_modules(tmp_path: Path) -> None:
    """A port in use, a bad flag or ``--check-db`` is answered before the
    web framework is imported (about 2.5 s of a 3.4 s refusal before)."""
    pytest.importorskip("uvicorn")
    busy = socket.socket()
    busy.bind(("127.0.0.1", 0))
    busy.listen()
    db = tmp_path / "w.sqlite3"
    script = (
        "import sys\n"
        "from marjolet.cli import main\n"
        "def code(*args):\n"
        "    try:\n"
        "        return main(['serve', *args])\n"
        "    except SystemExit as stop:\n"
        "        return stop.code\n"
        f"codes = [code('--port', '{busy.getsockname()[1]}', '--db', {str(db)!r}),\n"
        "         code('--port', '70000'), code('--check-db', '--db', " + repr(str(db)) + ")]\n"
        "print(codes, sorted(m for m in ('fastapi', 'uvicorn', 'starlette') if m in sys.modules))\n"
    )
    try:
        result = subprocess.run(
            [sys.executable, "-c", script], capture_output=True, text=True, timeout=120
        )
    finally:
        busy.close()
    # the check of a file that is not there is a refusal too
    assert result.stdout.splitlines()[-1] == "[2, 2, 2] []", result.stderr
    assert "in use" in result.stderr and "--port must be between" in result.stderr
    assert "no such file" in result.stderr and list(tmp_path.iterdir()) == []


def test_serve_without_a_module_of_the_web_extra_names_it_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from marjolet.commands import serve

    missing = "marjolet_no_such_web_module"
    monkeypatch.setattr(serve, "WEB_MODULES", (*serve.WEB_MODULES, missing))
    with pytest.raises(SystemExit) as stop:
        main(["serve", "--check-db", "--db", str(tmp_path / "w.sqlite3")])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert err == (
        f"marjolet: error: the web extra is not installed ({missing}): "
        "pip install 'marjolet[web]'\n"
    )
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("broken", "args"),
    [("limits", ["--port", "0"]), ("sqlalchemy", ["--check-db"])],
    ids=["serve", "check-db"],
)
def test_a_module_of_the_web_extra_that_fails_to_import_is_named_in_one_line(
    tmp_path: Path, broken: str, args: list[str]
) -> None:
    """Found by name yet broken (a damaged install): the same one line as a
    missing module, no traceback, no database made."""
    pytest.importorskip("uvicorn")
    fake = tmp_path / "site" / broken
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text(f"raise ImportError('damaged', name={broken!r})\n")
    db = tmp_path / "w.sqlite3"
    pythonpath = os.pathsep.join(
        p for p in (str(tmp_path / "site"), os.environ.get("PYTHONPATH")) if p
    )
    result = run_cli("serve", *args, "--db", str(db), env={"PYTHONPATH": pythonpath})
    assert refusal(result) == (
        f"marjolet: error: the web extra is not installed ({broken}): "
        "pip install 'marjolet[web]'"
    )
    assert not db.exists()


def test_a_failed_serve_start_leaves_no_lock(tmp_path: Path) -> None:
    pytest.importorskip("uvicorn")
    from marjolet.web.store import Store, StoreError

    newer = tmp_path / "newer.sqlite3"
    with sqlite3.connect(newer) as conn:
        conn.execute("PRAGMA user_version = 99")
    with pytest.raises(StoreError, match="schema version 99"):
        Store(newer)  # fails after taking the lock
    notdb = tmp_path / "notes.sqlite3"
    notdb.write_text("hello\n")
    line = refusal(run_cli("serve", "--port", "0", "--db", str(notdb)))
    assert str(notdb) in line
    assert sorted(p.name for p in tmp_path.iterdir()) == ["newer.sqlite3", "notes.sqlite3"]


def test_a_look_at_a_database_a_writer_changes_meanwhile_reads_it_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # No one has the file open, so the look is immutable (no -wal or -shm
    # left); a writer that starts and checkpoints during it must not leave
    # it with the pages it read before (here the table list, so 'extra'
    # would be missing).
    db = tmp_path / "w.db"
    with sqlite3.connect(db) as conn:
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("CREATE TABLE runs (id INTEGER)")
    conn.close()
    connect = sqlite3.connect
    crossed: list[str] = []

    def write_meanwhile() -> int:
        if not crossed:
            crossed.append("written")
            writer = connect(db)
            with writer:
                writer.execute("CREATE TABLE extra (id INTEGER)")
            writer.close()
        return 0

    def connecting(target: str, *, uri: bool = False, timeout: float = 5.0) -> sqlite3.Connection:
        conn = connect(target, uri=uri, timeout=timeout)
        if "immutable=1" in str(target):
            conn.set_progress_handler(write_meanwhile, 1)
        return conn

    monkeypatch.setattr(sqlite3, "connect", connecting)
    assert outputs.sqlite_tables(db) == {"runs", "extra"}
    assert crossed == ["written"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["w.db"]


def test_saving_a_record_into_a_missing_folder_names_that_folder_not_a_temporary_file(
    tmp_path: Path, match_file: Path
) -> None:
    target = tmp_path / "nowhere" / "game.json"
    with pytest.raises(FileNotFoundError) as caught:
        record.save(record.load(match_file), target)
    message = str(caught.value)
    assert caught.value.filename == str(target)
    assert f"no such folder {str(target.parent)!r}" in message
    assert ".tmp" not in message
    assert not target.parent.exists()


def test_saving_a_record_over_a_folder_says_so_with_a_real_error_number(tmp_path: Path) -> None:
    folder = tmp_path / "games"
    folder.mkdir()
    with pytest.raises(IsADirectoryError) as caught:
        outputs.write_atomic(folder, "x")
    assert caught.value.errno == errno.EISDIR and "[Errno 0]" not in str(caught.value)
    assert "is a folder" in str(caught.value) and caught.value.filename == str(folder)
