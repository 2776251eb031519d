"""The one rule for every file the user names as an output.

``convert --out``, ``selfplay --out``, ``play --save``, ``arena --plot`` and
the ``--db`` databases all go through here, so the rule is the same
everywhere:

- an existing file is never replaced without ``--force`` (``force=True``);
  the error names the file and the flag that would allow it;
- a path that is (or leads through a symlink to) a device, a FIFO or a
  socket is refused, even with ``--force``, and so is a folder;
- a symlink is *written through*: its target is replaced atomically in the
  target's own folder; the link itself is never replaced by a regular file;
- the folder of the file must exist: no command creates missing folders for
  a file the user named (a typo in a path is an error, not a new tree);
- two outputs of one command may not name the same file
  (:func:`check_distinct`), even with ``--force``;
- a name ending with ``/`` names a folder and is refused (resolving it
  would drop the slash); an empty name is refused where it is given, by
  the commands' argparse type ``commands.common.file_name``;
- standard output is one more output: a command that cannot write it (a
  full disk) ends as one line naming it (:class:`GuardedStdout`);
- a database (``--db``) that exists must be a marjolet database of that kind
  (or an empty file); any other file is refused, never turned into one.

Writes are atomic (:func:`write_atomic`): a temporary file in the target's
folder, flushed to disk, renamed over the target, keeping the mode of the
file it replaces. Standard library only.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import os
import stat
import sys
import tempfile
from collections.abc import Callable, Collection, Iterator
from pathlib import Path
from typing import Any, TextIO, TypeVar

from marjolet.errors import MarjoletError

R = TypeVar("R")

#: The first 16 bytes of every SQLite database file.
SQLITE_HEADER = b"SQLite format 3\x00"


class OutputError(MarjoletError):
    """A file the user named cannot, or may not, be written.

    ``code`` says why in one word, for a program that words the error
    itself (``marjolet play`` in the player's language): ``exists``,
    ``folder``, ``special`` (a device, FIFO or socket), ``no_folder``,
    ``cannot_write`` (``detail``: the system's reason), ``stdout`` (standard
    output failed; ``detail``: the system's reason), ``same_file`` (two
    outputs of one command name one file), or ``""``.
    """

    def __init__(self, message: str, *, code: str = "", detail: str = "") -> None:
        super().__init__(message)
        self.code = code
        self.detail = detail


def _kind(mode: int) -> str | None:
    """The name of a file type that is never written, or ``None``."""
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISDIR(mode):
        return "a folder (directory)"
    return None


def _refuse_folder_name(shown: str, lead: str) -> None:
    """A name ending with a slash names a folder: refused, where resolving
    it would quietly drop the slash and write a file called like the folder."""
    if shown.endswith(("/", os.sep)) and shown.strip("/" + os.sep):
        raise OutputError(
            f"{lead}: ends with '/', so it names a folder; give the name of a file",
            code="folder",
        )


def real_target(path: str | os.PathLike[str]) -> Path:
    """Where writing ``path`` lands: symlinks followed (even a dangling one)."""
    return Path(os.path.realpath(path))


def check_output(
    path: str | os.PathLike[str],
    *,
    force: bool = False,
    flag: str = "--out",
    may_replace: str | os.PathLike[str] | None = None,
    prefix: str | None = None,
) -> Path:
    """Check that ``path`` may be written under the rule of this module and
    return the real file that will be written.

    ``may_replace`` names a file that is this command's own (``play
    --resume FILE`` saving back to FILE): it may be replaced without force.
    Raises :class:`OutputError` with one line naming the file and the flag
    (it starts with ``prefix``, by default ``FLAG PATH``).
    """
    shown = os.fspath(path)
    lead = prefix if prefix is not None else f"{flag} {shown}"
    _refuse_folder_name(shown, lead)
    target = real_target(path)
    try:
        info = os.stat(target)
    except FileNotFoundError:
        info = None
    except OSError as exc:
        reason = str(exc.strerror or exc)
        raise OutputError(
            f"{lead}: cannot write: {reason}", code="cannot_write", detail=reason
        ) from None
    if info is not None:
        kind = _kind(info.st_mode)
        if kind is not None:
            raise OutputError(
                f"{lead}: is {kind}; give the name of a regular file",
                code="folder" if stat.S_ISDIR(info.st_mode) else "special",
            )
        own = may_replace is not None and real_target(may_replace) == target
        if not force and not own:
            raise OutputError(f"{lead}: the file exists; add --force to replace it", code="exists")
        return target
    folder = target.parent
    if not folder.is_dir():
        raise OutputError(
            f"{lead}: cannot write: no such folder {str(folder)!r}",
            code="no_folder",
            detail=str(folder),
        )
    return target


def check_distinct(*named: tuple[str | os.PathLike[str] | None, str]) -> None:
    """Refuse two outputs of one command that land on the same file.

    ``named`` holds ``(path, flag)`` pairs (a ``None`` path is an output not
    asked for). Each would replace the other's content: ``--out run.npz
    --log run.npz`` kept the weights and lost the log, ``arena --db x.png
    --plot x.png`` drew over the run's database. Compared where writing
    lands (symlinks followed, ``./`` and ``..`` resolved), with or without
    ``--force``, before anything is written.
    """
    seen: dict[Path, tuple[str, str]] = {}
    for path, flag in named:
        if path is None:
            continue
        target = real_target(path)
        if target in seen:
            first_flag, first_path = seen[target]
            raise OutputError(
                f"{first_flag} {first_path} and {flag} {os.fspath(path)} name the same file; "
                "give each its own",
                code="same_file",
            )
        seen[target] = (flag, os.fspath(path))


def write_atomic(path: str | os.PathLike[str], data: str | bytes) -> None:
    """Write ``data`` so that ``path`` holds either the old or the new
    content, never a part: a temporary file in the real target's folder,
    flushed to disk, then renamed over it (a symlink keeps pointing to the
    new content). A device, FIFO, socket or folder is never replaced; the
    mode of a replaced file is kept. Raises :class:`OSError`."""
    target = real_target(path)
    try:
        old: os.stat_result | None = os.stat(target)
    except FileNotFoundError:
        old = None
    if old is not None and _kind(old.st_mode) is not None:
        # OSError picks the subclass: IsADirectoryError for a folder,
        # FileExistsError for a device, FIFO or socket (never replaced).
        number = errno.EISDIR if stat.S_ISDIR(old.st_mode) else errno.EEXIST
        raise OSError(number, f"is {_kind(old.st_mode)}, not a regular file", str(path))
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    except OSError as exc:  # name the file asked for, not the temporary one
        reason = exc.strerror or str(exc)
        if isinstance(exc, FileNotFoundError) and not target.parent.is_dir():
            reason = f"no such folder {str(target.parent)!r}"
        raise type(exc)(exc.errno, reason, str(path)) from None
    try:
        if hasattr(os, "fchmod"):  # POSIX: the mode of the file replaced, else the usual one
            os.fchmod(fd, stat.S_IMODE(old.st_mode) if old is not None else _default_mode())
        with os.fdopen(fd, "wb") as f:
            f.write(data.encode("utf-8") if isinstance(data, str) else data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


@functools.cache
def _default_mode() -> int:
    """The mode a new file gets from ``open``: 0o666 less the umask (read
    once: reading it means setting it for an instant)."""
    mask = os.umask(0o077)
    os.umask(mask)
    return 0o666 & ~mask


def check_database(
    path: str | os.PathLike[str],
    *,
    tables: Collection[str],
    what: str,
    prefix: str | None = None,
) -> Path:
    """Check that ``path`` may be used as a marjolet database of one kind
    (``tables``: the tables that kind always has; ``what``: its name) and
    return the real file.

    A missing file (in an existing folder) or an empty one will be created;
    an existing SQLite file must hold ``tables`` or no table at all; any other
    file, and a device, FIFO, socket or directory, is refused with one line that
    starts with ``prefix`` (default ``--db PATH``)."""
    shown = os.fspath(path)
    lead = prefix if prefix is not None else f"--db {shown}"
    _refuse_folder_name(shown, lead)
    target = real_target(path)
    try:
        info = os.stat(target)
    except FileNotFoundError:
        if not target.parent.is_dir():
            raise OutputError(
                f"{lead}: cannot create the database: no such folder {str(target.parent)!r}"
            ) from None
        return target
    except OSError as exc:
        raise OutputError(f"{lead}: cannot open database: {exc.strerror or exc}") from None
    kind = _kind(info.st_mode)
    if kind is not None:
        raise OutputError(f"{lead}: is {kind}, not a database file")
    if info.st_size == 0:
        return target
    try:
        with open(target, "rb") as f:
            head = f.read(len(SQLITE_HEADER))
    except OSError as exc:
        raise OutputError(f"{lead}: cannot open database: {exc.strerror or exc}") from None
    found = sqlite_tables(target) if head == SQLITE_HEADER else None
    if found is None and head == SQLITE_HEADER:  # not "no database": the right file, damaged
        raise OutputError(
            f"{lead}: the file is a SQLite database that cannot be read (damaged?); "
            "refusing to change it"
        )
    if found is None:
        raise OutputError(
            f"{lead}: the file exists and is not {what} (it is not a database at all); "
            "refusing to change it"
        )
    if found and not set(tables) <= found:
        raise OutputError(
            f"{lead}: the file exists and is not {what} (its tables: "
            f"{', '.join(sorted(found)[:5])}); refusing to change it"
        )
    return target


def sqlite_tables(path: Path) -> set[str] | None:
    """The table names of a SQLite file, opened read-only (``None`` if it
    cannot be read as a database)."""
    rows = _query_read_only(path, "SELECT name FROM sqlite_master WHERE type='table'")
    return None if isinstance(rows, Exception) else {str(r[0]) for r in rows}


def sqlite_damage(path: Path) -> str | None:
    """What SQLite's quick check finds wrong in a database file, opened
    read-only, on one line; ``None`` when the file is sound, when it is no
    database at all (:func:`sqlite_tables` says so) or when it is busy (then
    opening it for use says so). A damaged file is refused before anything
    opens it for writing: a first write would change it (its header, a
    page) before the damage showed."""
    import sqlite3

    rows = _query_read_only(path, "PRAGMA quick_check(1)", sound=lambda rows: rows == [("ok",)])
    if isinstance(rows, Exception):
        damaged = getattr(rows, "sqlite_errorcode", None) == sqlite3.SQLITE_CORRUPT
        return " ".join(str(rows).split()) if damaged else None
    first = str(rows[0][0]) if rows else "ok"
    if first == "ok":
        return None
    return " ".join(first.removeprefix("*** in database main ***").split())


def sqlite_read_only_uri(path: Path, *, locked: bool = False) -> str:
    """The SQLite URI that opens ``path`` read-only (``mode=ro``) without
    leaving files beside it.

    Opened read-only, a database in write-ahead-log mode still gets its
    -wal and -shm files made, and left, when the folder is writable. When
    neither is there no connection has it open and its log is empty, so it
    is read as ``immutable`` (no locks, no side files); a writer starting
    during the look changes the file itself when it checkpoints (see
    below). A database in another journal mode, or one already open (its
    side files there), is read with SQLite's usual locks, which make no
    file; ``locked`` asks for those.

    An ``immutable`` connection never looks for changes: pages it cached
    before a writer changed the file are read beside pages written after
    (a count of rows neither before nor after). A read through it is only
    kept when :func:`sqlite_files_state` is the same after it as before
    the connection was made; else it is read again (:func:`read_unchanged`,
    :class:`marjolet.arena.store.ArenaStore`)."""
    uri = f"{path.resolve().as_uri()}?mode=ro"
    if locked:
        return uri
    try:
        with open(path, "rb") as f:
            head = f.read(20)
    except OSError:
        return uri  # (connecting says what is wrong)
    wal = head.startswith(SQLITE_HEADER) and head[18:20] == b"\x02\x02"
    side = [path.with_name(path.name + suffix) for suffix in ("-wal", "-shm", "-journal")]
    if wal and not any(os.path.lexists(p) for p in side):
        uri += "&immutable=1"
    return uri


def _query_read_only(
    path: Path, sql: str, *, sound: Callable[[list[Any]], bool] = lambda rows: True
) -> list[Any] | Exception:
    """The rows of ``sql`` on the SQLite file ``path`` opened read-only, or
    the :class:`sqlite3.Error` that stopped it.

    A damaged file whose header asks for a write-ahead log makes SQLite
    create its -wal and -shm files even read-only: those it made are
    removed again when the file proves not to be a database, or damaged
    (an error saying so, or rows that ``sound`` does not accept). An
    immutable read that a writer may have crossed is read again
    (:func:`read_unchanged`)."""
    return read_unchanged(path, lambda uri: _query_once(path, uri, sql, sound))


def read_unchanged(path: Path, read: Callable[[str], R]) -> R:
    """What ``read(uri)`` reads of the SQLite file ``path`` through
    :func:`sqlite_read_only_uri`'s URI. An immutable read is kept only if
    :func:`sqlite_files_state` is the same after it as before (no writer
    opened or changed the file meanwhile); else it is read again, the last
    time under SQLite's locks, which see every change."""
    for attempt in range(IMMUTABLE_TRIES + 1):
        before = sqlite_files_state(path)
        uri = sqlite_read_only_uri(path, locked=attempt == IMMUTABLE_TRIES)
        result = read(uri)
        if "immutable=1" not in uri or sqlite_files_state(path) == before:
            return result
    raise AssertionError("unreachable: the last try is locked")  # pragma: no cover


#: How many immutable reads of a file a writer may change under them
#: before it is read under SQLite's locks (which may leave -wal and -shm).
IMMUTABLE_TRIES = 2


def sqlite_files_state(path: Path) -> tuple[object, ...]:
    """What another connection changes by opening or writing a SQLite file:
    the file's identity, size and modification time, and which of its
    -wal, -shm and -journal files exist (``None`` for a file not there)."""
    try:
        info = os.stat(path)
    except OSError:
        return (None,)
    side = tuple(
        os.path.lexists(path.with_name(path.name + suffix))
        for suffix in ("-wal", "-shm", "-journal")
    )
    return (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, *side)


def _query_once(
    path: Path, uri: str, sql: str, sound: Callable[[list[Any]], bool]
) -> list[Any] | Exception:
    """:func:`_query_read_only` through the connection ``uri`` opens."""
    import sqlite3

    companions = [path.with_name(path.name + suffix) for suffix in ("-wal", "-shm")]
    absent = [p for p in companions if not p.exists()]
    try:
        conn = sqlite3.connect(uri, uri=True, timeout=5.0)
    except sqlite3.Error as exc:
        return exc
    not_a_database = False
    try:
        rows = conn.execute(sql).fetchall()
        not_a_database = not sound(rows)
        return rows
    except sqlite3.Error as exc:  # (busy or locked: someone's database, left as it is)
        code = getattr(exc, "sqlite_errorcode", None)
        not_a_database = code in (sqlite3.SQLITE_NOTADB, sqlite3.SQLITE_CORRUPT)
        return exc
    finally:
        conn.close()
        if not_a_database:  # no database, or a damaged one: nobody is writing it
            for made in absent:
                made.unlink(missing_ok=True)


class GuardedStdout:
    """Standard output for the length of one command: a write or flush that
    fails (a full disk, a device error) raises one :class:`OutputError`
    naming standard output instead of a bare :class:`OSError` whose
    traceback would reach the user. A closed pipe stays
    :class:`BrokenPipeError` (the reader left: not an error to report).
    Everything else is the wrapped stream's."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        try:
            return self._stream.write(text)
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise self._failed(exc) from None

    def flush(self) -> None:
        try:
            self._stream.flush()
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise self._failed(exc) from None

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)

    def _failed(self, exc: OSError) -> OutputError:
        """The error to raise; the output still buffered is dropped (the
        file descriptor now points at the null device), so that Python's
        own flush at exit does not fail a second time with a traceback."""
        reason = str(exc.strerror or exc)
        try:
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, self._stream.fileno())
            os.close(null)
        except (OSError, ValueError, AttributeError):  # not a file (a test's capture)
            pass
        return OutputError(
            f"standard output: cannot write: {reason}", code="stdout", detail=reason
        )


@contextlib.contextmanager
def guarded_stdout() -> Iterator[GuardedStdout]:
    """``sys.stdout`` wrapped in :class:`GuardedStdout` until the block
    ends; then flushed (still guarded) and put back."""
    stream = sys.stdout
    guard = GuardedStdout(stream)
    sys.stdout = guard
    try:
        yield guard
        guard.flush()
    finally:
        sys.stdout = stream
