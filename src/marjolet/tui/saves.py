"""Where ``marjolet play`` keeps its games, and how it finds the last one.

Every match is saved as a JSON game record (record.md) in
``data_dir()/games/``, one file per match, rewritten atomically after every
action. ``marjolet play --resume`` with no file continues the newest match
in that folder that R22 has not decided yet. Standard library only: both the
plain and the full-screen interface use it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from marjolet import lockfile, record
from marjolet.errors import MarjoletError, RecordError
from marjolet.match import Match
from marjolet.paths import data_dir
from marjolet.tui.launch import play_command
from marjolet.tui.record_errors import record_error_text
from marjolet.tui.words import tr

GAMES_FOLDER = "games"
SUFFIX = ".json"


class SaveInUse(MarjoletError):
    """Another session holds the lock of this save."""


class SaveLock:
    """An exclusive ``flock`` on ``.NAME.lock`` beside a save, held while a
    session may write the save (:mod:`marjolet.lockfile`: dropped when the
    process ends, even after a crash; its file removed on a normal
    release). (The save itself is replaced at every move, so its own inode
    cannot carry the lock.)"""

    def __init__(self, fd: int | None, path: Path) -> None:
        self._fd = fd
        self.path = path

    def release(self) -> None:
        lockfile.release(self._fd, self.path)
        self._fd = None


def lock_path(save: str | Path) -> Path:
    """The lock file of ``save``: ``.NAME.lock`` beside it (hidden, and no
    save by its suffix)."""
    save = Path(save).resolve()
    return save.with_name(f".{save.name}.lock")


def lock_save(save: str | Path) -> SaveLock:
    """Lock ``save`` for this session, or raise :class:`SaveInUse` (in the
    player's words: the file, and what to do instead) when another session
    has it. Where no lock file can be
    made (a read-only folder: the save will fail and say so) or on a system
    without ``flock``, nothing is locked."""
    path = lock_path(save)
    try:
        return SaveLock(lockfile.take(path), path)
    except lockfile.LockHeld:
        raise SaveInUse(tr("play.save_in_use", path=save, start=play_command())) from None
    except OSError:
        return SaveLock(None, path)


def in_use(save: str | Path) -> bool:
    """Whether another session holds the lock of ``save`` now (it is open in
    another terminal). Takes no lock and makes no file."""
    return lockfile.in_use(lock_path(save))


def games_dir(create: bool = True) -> Path:
    """The folder of saved games, ``data_dir()/games``."""
    folder = data_dir(create) / GAMES_FOLDER
    if create:
        folder.mkdir(parents=True, exist_ok=True)
    return folder


def new_save_path(now: float | None = None) -> Path:
    """A fresh file name for a new match, from the local date and time
    (``2025-01-31_20-15-07.json``); a suffix keeps two matches started in the
    same second apart."""
    stamp = time.strftime("%Y-%m-%d_%H-%M-%S", time.localtime(now))
    folder = games_dir()
    path = folder / f"{stamp}{SUFFIX}"
    n = 2
    while path.exists():
        path = folder / f"{stamp}-{n}{SUFFIX}"
        n += 1
    return path


def saved_games() -> list[Path]:
    """The saved games, newest first (by modification time, then name)."""
    folder = games_dir(create=False)
    if not folder.is_dir():
        return []
    files = [p for p in folder.glob(f"*{SUFFIX}") if p.is_file() and not p.name.startswith(".")]
    return sorted(files, key=lambda p: (p.stat().st_mtime, p.name), reverse=True)


def may_save_back(path: str | Path, rec: record.Record) -> bool:
    """Whether a resumed match may go on in ``path``: a file of the saves
    folder (the program's own, whatever is in it: a match forked from it
    would leave it there, unfinished, to be resumed again), or one holding
    exactly what saving ``rec`` there would write. Anything else (a record
    written by hand, with comments of its own, or in another layout) is
    not replaced: the match goes on in a new file."""
    try:
        if Path(path).resolve().parent == games_dir(create=False).resolve():
            return True
        return record.read_text(path) == record.saved_text(rec, path)
    except (OSError, RecordError):
        return False


class UnreadableSave(RecordError):
    """A save that cannot be read or replayed: its message names the file;
    ``cause`` is the record's own error and ``record`` the record as read
    (``None`` when not even that), from which a player is told the fault
    in ``marjolet replay``'s words."""

    def __init__(self, message: str, cause: RecordError, rec: record.Record | None) -> None:
        super().__init__(message)
        self.cause = cause
        self.record = rec


def load_match(path: str | Path) -> tuple[record.Record, Match]:
    """Read a record and replay it into a match (raises
    :class:`UnreadableSave` naming the file on any fault)."""
    rec = None
    try:
        rec = record.load(path, check=False)
        return rec, record.to_match(rec)
    except RecordError as exc:
        message = exc.message if str(path) in exc.message else f"{path}: {exc}"
        raise UnreadableSave(message, exc, rec) from None


#: Whether a save is over, by its path, size and time: the resume hint asks often.
_over: dict[tuple[Path, int, int], bool] = {}


def is_unfinished(path: Path) -> bool:
    """Whether the save at ``path`` holds a match not decided yet (a file
    that cannot be read counts as finished: nothing to resume)."""
    try:
        st = path.stat()
        key = (path, st.st_size, st.st_mtime_ns)
        if key not in _over:
            _over[key] = load_match(path)[1].is_over
        return not _over[key]
    except (MarjoletError, OSError):
        return False


def unfinished_games() -> list[Path]:
    """The saved matches not decided yet, newest first."""
    return [p for p in saved_games() if is_unfinished(p)]


def _save_fault(path: Path, exc: Exception) -> str:
    """What is wrong with a save, as ``marjolet replay`` says it of the same
    file (the place counted from 1, in the player's language)."""
    if isinstance(exc, UnreadableSave):
        return record_error_text(str(path), exc.cause, exc.record)
    return f"{path}: {exc}"


def last_unfinished(
    warn: Callable[[str], None] | None = None, skipped: list[Path] | None = None
) -> Path | None:
    """The newest saved match that is not decided yet, or ``None``.

    Files that cannot be read or replayed are skipped, each reported through
    ``warn`` (one line naming the file and the fault) and added to
    ``skipped``: one damaged file must not hide the others.
    """
    for path in saved_games():
        try:
            _, match = load_match(path)
        except (MarjoletError, OSError) as exc:
            if warn is not None:
                warn(tr("play.skipped_save", detail=_save_fault(path, exc)))
            if skipped is not None:
                skipped.append(path)
            continue
        if not match.is_over:
            return path
    return None
