"""The "continue with ..." line is a command that works from where the
player is: ``marjolet`` only when the PATH finds this very program,
``python -m marjolet`` (with its ``PYTHONPATH``) when started that way,
``make play ARGS=--resume`` under ``make play``."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from marjolet import record
from marjolet.tui import launch


def run(command: list[str] | str, env: dict[str, str], stdin: str) -> str:
    proc = subprocess.run(command, input=stdin, capture_output=True, text=True, env=env,
                          timeout=120, check=False, shell=isinstance(command, str))  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_the_printed_resume_command_resumes_the_match_when_typed_as_printed(
    tmp_path: Path,
) -> None:
    env = {**os.environ, "MARJOLET_DATA_DIR": str(tmp_path), "LANG": "C.UTF-8"}
    env.pop(launch.MAKE_VARIABLE, None)
    args = [sys.executable, "-m", "marjolet", "play", "--plain", "--opponent", "random",
            "--seed", "3"]  # fmt: skip
    out = run(args, env, "1\nquit\n")
    found = re.search(r"continue with: (.+?)\)", out)
    assert found is not None, out
    command = found[1]
    assert command.endswith("-m marjolet play --resume --plain")  # as it was played
    again = run(command, env, "quit\n")  # typed in a shell, as printed
    assert "Deal 1 resumed" in again
    (game,) = (tmp_path / "games").glob("*.json")
    assert len(record.load(game).deals[0].actions) >= 1


def test_make_play_is_told_to_use_make_play_args_resume(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(launch.MAKE_VARIABLE, "1")
    assert launch.resume_command() == "make play ARGS=--resume"
    with_file = launch.resume_command(Path("my game.json"))
    assert with_file.startswith("make play ARGS=") and "my game.json" in with_file


def test_a_program_not_on_the_path_is_named_by_its_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(launch.MAKE_VARIABLE, raising=False)
    monkeypatch.setenv("PATH", "/nonexistent")
    monkeypatch.chdir(tmp_path)
    program = tmp_path / ".venv" / "bin" / "marjolet"
    assert launch.program(str(program)) == ".venv/bin/marjolet"
    elsewhere = Path("/opt/somewhere/marjolet")
    assert launch.program(str(elsewhere)) == "/opt/somewhere/marjolet"


def test_a_program_on_the_path_is_named_by_its_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    program = tmp_path / "marjolet"
    program.write_text("#!/bin/sh\n")
    program.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path))
    assert launch.program(str(program)) == "marjolet"


def test_python_dash_m_keeps_its_pythonpath(monkeypatch: pytest.MonkeyPatch) -> None:
    main = str(Path(launch.__file__).resolve().parent.parent / "__main__.py")
    monkeypatch.setenv("PYTHONPATH", "src")
    assert launch.program(main).startswith("PYTHONPATH=src ")
    assert launch.program(main).endswith(" -m marjolet")
    monkeypatch.delenv("PYTHONPATH")
    assert not launch.program(main).startswith("PYTHONPATH")


def play_error(args: list[str], env: dict[str, str]) -> str:
    command = [sys.executable, "-m", "marjolet", "play", *args]
    proc = subprocess.run(
        command, input="", capture_output=True, text=True, env=env, timeout=120, check=False
    )
    assert proc.returncode == 2 and proc.stdout == "", (proc.stdout, proc.stderr)
    return proc.stderr


def test_the_errors_of_make_play_name_commands_of_make_play(tmp_path: Path) -> None:
    # marjolet is not on the PATH of a player who only ran make play: the
    # commands an error suggests are make play's, as the resume line is
    env = {**os.environ, "MARJOLET_DATA_DIR": str(tmp_path), "LANG": "C.UTF-8",
           launch.MAKE_VARIABLE: "1"}  # fmt: skip
    nothing = play_error(["--resume"], env)
    assert "no unfinished match in" in nothing
    assert "start one with 'make play'" in nothing and "make play ARGS='--resume FILE'" in nothing
    assert "marjolet play" not in nothing
    unknown = play_error(["--frob"], env)
    assert "make play ARGS=--help lists the options" in unknown, unknown
    assert "marjolet play" not in unknown
    french = play_error(["--resume"], {**env, "LANG": "fr_FR.UTF-8"})
    assert "«\u00a0make play\u00a0»" in french and "make play ARGS='--resume FICHIER'" in french


def test_the_errors_name_the_program_as_it_was_started(tmp_path: Path) -> None:
    env = {**os.environ, "MARJOLET_DATA_DIR": str(tmp_path), "LANG": "C.UTF-8"}
    env.pop(launch.MAKE_VARIABLE, None)
    nothing = play_error(["--resume"], env)
    program = r"(?:PYTHONPATH=\S+ )?\S* -m marjolet"  # as launch.program() writes it
    assert re.search(rf"start one with '{program} play' ", nothing), nothing
    assert re.search(r"-m marjolet play --resume FILE$", nothing.strip()), nothing
    assert re.search(rf"{program} play --help lists the options", play_error(["--x"], env))
