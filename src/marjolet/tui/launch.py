"""The command that runs ``marjolet`` as this player started it, so the
"continue with ..." line can be typed as printed.

``marjolet play`` may be started as ``marjolet`` on the PATH, as
``.venv/bin/marjolet``, as ``python -m marjolet`` (perhaps with
``PYTHONPATH``) or through ``make play`` (which sets
:data:`MAKE_VARIABLE`). :func:`resume_command` gives the matching
``... play --resume`` line. Standard library only.
"""

from __future__ import annotations

import os
import shlex
import shutil
import sys
from pathlib import Path

#: Set by the Makefile's ``play`` target: the game was started by ``make play``.
MAKE_VARIABLE = "MARJOLET_MAKE_PLAY"


def _same_file(a: str | None, b: Path) -> bool:
    try:
        return a is not None and Path(a).resolve() == b.resolve()
    except OSError:
        return False


def _short(path: Path) -> str:
    """``path`` as the player types it: its bare name when the PATH finds
    this very file, else relative to the current folder when inside it."""
    if _same_file(shutil.which(path.name), path):
        return path.name
    try:
        relative = path.resolve().relative_to(Path.cwd().resolve())
        return shlex.quote(str(relative) if relative.parent != Path() else f"./{relative}")
    except (ValueError, OSError):
        return shlex.quote(str(path))


def program(argv0: str | None = None) -> str:
    """The command that starts ``marjolet`` the way this process was started."""
    first = Path(argv0 if argv0 is not None else sys.argv[0])
    if first.parent.name == "marjolet" and first.suffix == ".py":  # python -m marjolet
        command = f"{_short(Path(sys.executable))} -m marjolet"
        path = os.environ.get("PYTHONPATH")
        return f"PYTHONPATH={shlex.quote(path)} {command}" if path else command
    return _short(first)


def _language_flag() -> str:
    """`` --lang fr`` when the language in use is not the one the
    environment would choose, else nothing."""
    from marjolet.i18n import from_environment
    from marjolet.tui.words import lang

    return "" if lang() == from_environment() else f" --lang {lang()}"


def resume_command(path: Path | None = None, *, plain: bool = False) -> str:
    """``marjolet play --resume [FILE]`` as it works from here (``make play
    ARGS=--resume`` under make); with ``plain``, in the line interface; with
    ``--lang`` when the game speaks another language than the environment's
    (so a match begun with ``--lang fr`` goes on in French)."""
    args = "--resume" if path is None else f"--resume {shlex.quote(str(path))}"
    if plain:
        args += " --plain"
    args += _language_flag()
    return play_command(args)


def play_command(args: str = "") -> str:
    """``marjolet play ARGS`` as it works from here: ``make play
    ARGS=...`` under make, else :func:`program`'s ``play ARGS``. For the
    commands a message suggests (``start one with 'make play'``)."""
    if os.environ.get(MAKE_VARIABLE):
        return f"make play ARGS={shlex.quote(args)}" if args else "make play"
    return f"{program()} play {args}".rstrip()
