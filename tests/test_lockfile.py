"""Lock files (marjolet.lockfile), shared by the terminal's saves and the
web's SQLite store: one holder at a time, the file removed on a normal
release, and never a lock file another process has made and taken since."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from marjolet import lockfile


def test_a_released_lock_leaves_no_file_and_can_be_taken_again(tmp_path: Path) -> None:
    path = tmp_path / "x.lock"
    fd = lockfile.take(path)
    assert path.exists()
    lockfile.release(fd, path)
    assert not path.exists()
    lockfile.release(lockfile.take(path), path)
    assert not path.exists()


def test_a_held_lock_refuses_another_process(tmp_path: Path) -> None:
    path = tmp_path / "x.lock"
    fd = lockfile.take(path)
    try:
        other = subprocess.run(
            [sys.executable, "-c",
             "import sys; from pathlib import Path; from marjolet import lockfile\n"
             "try: lockfile.take(Path(sys.argv[1]))\n"
             "except lockfile.LockHeld: sys.exit(3)",
             str(path)],
            capture_output=True, text=True, timeout=60,
        )
        assert other.returncode == 3, other.stderr
    finally:
        lockfile.release(fd, path)


def test_a_lock_file_replaced_by_another_holder_is_not_removed(tmp_path: Path) -> None:
    """Someone deleted the lock file while it was held, and another holder
    made and took a new one: releasing the old lock leaves the new file."""
    path = tmp_path / "x.lock"
    fd = lockfile.take(path)
    path.unlink()
    newer = lockfile.take(path)  # a fresh file: nobody holds its lock
    try:
        lockfile.release(fd, path)
        assert path.exists()
        assert newer is not None and os.fstat(newer).st_ino == os.stat(path).st_ino
    finally:
        lockfile.release(newer, path)
    assert not path.exists()


def test_a_lock_file_removed_while_a_taker_opened_it_is_taken_afresh(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The taker opened the old file just before its holder removed it: it
    locks a new one, not the unlinked one (which would lock nothing)."""
    path = tmp_path / "x.lock"
    path.write_text("")
    real_open = os.open
    opened: list[int] = []

    def open_then_removed(name: str | os.PathLike[str], flags: int, *args: int) -> int:
        fd = real_open(name, flags, *args)
        if not opened:  # the first open: its holder removes it just after
            os.unlink(name)
        opened.append(fd)
        return fd

    monkeypatch.setattr(os, "open", open_then_removed)
    fd = lockfile.take(path)
    monkeypatch.undo()
    try:
        assert len(opened) == 2 and fd == opened[1]
        assert fd is not None and os.fstat(fd).st_ino == os.stat(path).st_ino
    finally:
        lockfile.release(fd, path)


def test_a_look_at_whether_a_file_is_in_use_does_not_pass_for_a_holder(tmp_path: Path) -> None:
    """``saves.in_use`` holds a shared lock for an instant; a take at that
    instant waited for nothing and said "open elsewhere"."""
    import fcntl
    import threading

    path = tmp_path / "x.lock"
    path.touch()
    look = os.open(path, os.O_RDONLY)
    fcntl.flock(look, fcntl.LOCK_SH | fcntl.LOCK_NB)
    threading.Timer(0.02, os.close, (look,)).start()  # the look ends 20 ms later
    fd = lockfile.take(path)
    assert fd is not None
    lockfile.release(fd, path)
    assert not path.exists()


def test_a_lock_file_on_a_read_only_file_system_is_locked_for_reading(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """db-copy reads a database on a read-only file system where an old
    lock file stays: opening it to write fails with EROFS, not
    PermissionError, and the copy failed."""
    import errno

    path = tmp_path / "x.lock"
    path.touch()
    real_open = os.open

    def read_only(name: object, flags: int, *args: object) -> int:
        if flags & (os.O_RDWR | os.O_WRONLY | os.O_CREAT):
            raise OSError(errno.EROFS, "Read-only file system", str(name))
        return real_open(name, flags, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "open", read_only)
    fd = lockfile.take(path)
    assert fd is not None
    monkeypatch.setattr(os, "open", real_open)
    lockfile.release(fd, path)


def test_in_use_says_whether_a_holder_has_the_lock_and_makes_no_file(tmp_path: Path) -> None:
    path = tmp_path / "x.lock"
    assert not lockfile.in_use(path) and not path.exists()
    fd = lockfile.take(path)
    try:
        other = subprocess.run(
            [sys.executable, "-c",
             "import sys; from pathlib import Path; from marjolet import lockfile\n"
             "sys.exit(3 if lockfile.in_use(Path(sys.argv[1])) else 0)",
             str(path)],
            capture_output=True, text=True, timeout=60,
        )
        assert other.returncode == 3, other.stderr
    finally:
        lockfile.release(fd, path)
    path.touch()  # a lock file left behind locks nothing
    assert not lockfile.in_use(path)
