"""Lock files: one process at a time on a file (a terminal's save, a web
server's SQLite database).

The lock is an exclusive ``flock`` on a lock file beside what it guards.
The operating system drops it when the process ends, even after a crash: a
lock file left behind locks nothing. A normal release removes the lock file
while still holding it, and only if it is still the file this process
locked (same device and inode): a lock file that someone deleted and
another process made again and took is never removed. Because a holder
removes its file, a taker checks, once it has the ``flock``, that the file
it locked is still the one at the path (it may have opened the old one just
before its holder removed it), and otherwise takes a fresh one. Standard
library only.
"""

from __future__ import annotations

import errno
import os
import time
from pathlib import Path
from typing import Any

#: Why a lock file may be opened for reading only: not ours to write, or
#: on a read-only file system (``db-copy`` reading a database there).
_READ_ONLY = (errno.EACCES, errno.EPERM, errno.EROFS)


class LockHeld(Exception):
    """Another process holds the lock."""


def take(path: Path) -> int | None:
    """Lock ``path`` (made if missing) for this process: the descriptor that
    holds the lock, to give back to :func:`release`; ``None`` on a system
    without ``flock`` (nothing is locked). Raises :class:`LockHeld` when
    another process holds it, and :class:`OSError` when the lock file can
    be neither opened nor made."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not a POSIX system
        return None
    while True:
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        except OSError as exc:
            if exc.errno not in _READ_ONLY:
                raise
            fd = os.open(path, os.O_RDONLY)  # a lock file we may not write still locks
        if not _flock_soon(fd, fcntl):
            os.close(fd)
            raise LockHeld(str(path))
        if _same_file(fd, path):
            return fd
        os.close(fd)  # its holder removed it as we opened it: lock a fresh one


#: How long :func:`take` keeps trying before it says the lock is held: a
#: look that only asks whether a file is in use (``saves.in_use`` holds a
#: shared lock for an instant) must not pass for a holder; a real holder
#: keeps its lock for the whole game or server.
PATIENCE_S = 0.1


def _flock_soon(fd: int, fcntl: Any) -> bool:
    """Take the exclusive ``flock`` of ``fd``, trying again for up to
    :data:`PATIENCE_S`; whether it was taken."""
    deadline = time.monotonic() + PATIENCE_S
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except OSError:
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.005)


def in_use(path: Path) -> bool:
    """Whether a process holds the lock of ``path`` now: a look that takes
    a shared ``flock`` for an instant (:data:`PATIENCE_S` covers a
    :func:`take` at that instant), makes no file and takes no lock."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not a POSIX system
        return False
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:  # no lock file: nobody holds it
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except OSError:
        return True
    finally:
        os.close(fd)  # drops the shared lock, if taken
    return False


def release(fd: int | None, path: Path) -> None:
    """Give back a lock :func:`take` returned: its file is removed (while
    still held, so that a waiting taker sees it gone) if it is still the
    one this process locked, then the lock is dropped."""
    if fd is None:
        return
    try:
        if _same_file(fd, path):
            os.unlink(path)
    except OSError:  # a folder we may not write in: the file stays, locking nothing
        pass
    os.close(fd)  # closing the descriptor drops the flock


def _same_file(fd: int, path: Path) -> bool:
    """Whether ``path`` still names the file open as ``fd``."""
    try:
        held, named = os.fstat(fd), os.stat(path)
    except OSError:
        return False
    return (held.st_dev, held.st_ino) == (named.st_dev, named.st_ino)
