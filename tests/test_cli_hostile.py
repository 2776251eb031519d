"""Careless and hostile input to the ``marjolet`` command that a fuzzing
pass found ending in a traceback, a wrong exit status or a silent
surprise: each ends as one line naming what is wrong and where, status 2."""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from cli_support import damaged_database, error_line, run_cli, selfplay_record
from marjolet.bots.base import BotSpecError
from marjolet.bots.catalogue import BotCatalogue, BotChoiceError
from marjolet.bots.registry import make_bot
from marjolet.cli import main


@pytest.fixture
def record_file(tmp_path: Path) -> Path:
    return selfplay_record(tmp_path / "game.json")


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["bots", "--json"], "standard output: cannot write"),
        # marjolet alone and a player's command, in the player's words
        (["rules"], "cannot write to the screen (standard output)"),
        (["--help"], "cannot write to the screen (standard output)"),
        (["--version"], "cannot write to the screen (standard output)"),
    ],
)
def test_standard_output_on_a_full_disk_is_one_line_with_status_2(
    args: list[str], said: str
) -> None:
    env = {"LANG": "C", "LANGUAGE": "", "LC_ALL": "", "LC_MESSAGES": ""}
    with open("/dev/full", "w") as full:
        result = run_cli(*args, stdout=full.fileno(), env=env)
    line = error_line(result.stderr)
    assert result.returncode == 2
    assert line == f"marjolet: error: {said}: No space left on device"


@pytest.mark.parametrize("kind", ["missing", "not-an-extension"])
def test_a_kernel_lib_that_cannot_be_loaded_is_named_in_one_line(
    tmp_path: Path, record_file: Path, kind: str
) -> None:
    lib = tmp_path / "kernel.so"
    if kind == "not-an-extension":
        lib.write_text("not a shared object\n")
    # (the kernel asked for even in a run of the suite without it, MARJOLET_KERNEL=0)
    env = {"MARJOLET_KERNEL_LIB": str(lib), "MARJOLET_KERNEL": "1"}
    for args in (["bench", "--rounds", "1", "--deals", "1"], ["review", str(record_file)]):
        result = run_cli(*args, env=env)
        line = error_line(result.stderr)
        assert result.returncode == 2
        assert line.startswith(f"marjolet: error: MARJOLET_KERNEL_LIB={str(lib)!r}: ")


@pytest.mark.parametrize("value", ["false", "off", "no", "2"])
def test_a_marjolet_kernel_value_other_than_0_or_1_is_named_in_one_line(value: str) -> None:
    # MARJOLET_KERNEL=false used to leave the kernel on, silently
    result = run_cli("bench", "--rounds", "1", "--deals", "1", env={"MARJOLET_KERNEL": value})
    assert result.returncode == 2
    assert error_line(result.stderr) == (
        f"marjolet: error: MARJOLET_KERNEL={value!r}: give 0 (pure Python) or 1 "
        "(the C kernel where it is built, the default), or unset it"
    )


@pytest.mark.parametrize(
    ("env", "named"),
    [
        ({"MARJOLET_KERNEL": "false"}, "MARJOLET_KERNEL"),
        ({"MARJOLET_KERNEL": "1", "MARJOLET_KERNEL_LIB": "/nonexistent"}, "MARJOLET_KERNEL_LIB"),
    ],
    ids=["kernel-false", "kernel-lib-missing"],
)
def test_serve_names_a_kernel_setting_it_refuses_not_a_missing_web_extra(
    env: dict[str, str], named: str
) -> None:
    pytest.importorskip("uvicorn")
    result = run_cli("serve", "--port", "0", env=env)
    assert result.returncode == 2
    line = error_line(result.stderr)
    assert line.startswith(f"marjolet: error: {named}="), line
    assert "web extra" not in line


@pytest.mark.parametrize("value", ["0", " 0 ", "1", ""])
def test_marjolet_kernel_0_1_or_empty_are_taken(value: str) -> None:
    result = run_cli("bench", "--rounds", "1", "--deals", "1", env={"MARJOLET_KERNEL": value})
    assert result.returncode == 0, result.stderr
    off = value.strip() == "0"
    assert ("disabled by MARJOLET_KERNEL=0" in result.stdout) == off


@pytest.mark.parametrize(
    "args",
    [
        ["convert", "--to", "text", "--out", "", "{record}"],
        ["review", "--budget", "0", "--out", "", "{record}"],
        ["selfplay", "--seed", "1", "--out", ""],
        ["replay", ""],
        ["arena", "report", "--db", ""],
        ["db-copy", "{record}", ""],
    ],
    ids=["convert-out", "review-out", "selfplay-out", "replay-file", "arena-db", "db-copy"],
)
def test_an_empty_file_name_is_refused_not_taken_for_no_file(
    args: list[str], record_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = [a.replace("{record}", str(record_file)) for a in args]
    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 2
    out, err = capsys.readouterr()
    assert out == ""  # convert and review wrote nothing to standard output instead
    assert "an empty file name" in error_line(err)


@pytest.mark.parametrize(
    ("lang", "expected"),
    [
        ("en", "marjolet: error: --save needs the name of a file, not an empty one"),
        ("fr", "marjolet\u00a0: erreur\u00a0: --save attend un nom de fichier, pas un nom vide"),
    ],
)
def test_play_refuses_an_empty_save_name_in_the_player_s_language(
    tmp_path: Path, lang: str, expected: str
) -> None:
    env = {"HOME": str(tmp_path), "XDG_DATA_HOME": str(tmp_path / "data")}
    result = run_cli("play", "--plain", "--lang", lang, "--save", "", env=env)
    assert result.returncode == 2
    assert error_line(result.stderr) == expected
    assert not (tmp_path / "data").exists()  # no game saved to the default place


def test_play_refuses_an_empty_resume_name_not_taken_for_the_last_match(tmp_path: Path) -> None:
    # --resume alone resumes the last unfinished match; --resume "$UNSET"
    # is a slip, as an empty --save is, not a request for that match
    env = {"HOME": str(tmp_path), "XDG_DATA_HOME": str(tmp_path / "data")}
    result = run_cli("play", "--plain", "--lang", "en", "--resume", "", env=env)
    assert result.returncode == 2
    assert error_line(result.stderr) == (
        "marjolet: error: --resume needs the name of a file, not an empty one"
    )
    alone = run_cli("play", "--plain", "--lang", "en", "--resume", env=env)
    assert alone.returncode == 2  # (there is no last match to resume here)
    assert "no unfinished match in" in error_line(alone.stderr)


@pytest.mark.parametrize(
    ("spec", "message"),
    [("best:time=-1", "time must be 0-3600"), ("pimc:clock=moon", "clock must be wall or cpu")],
)
def test_serve_refuses_an_allowed_bot_whose_values_the_bot_refuses(spec: str, message: str) -> None:
    with pytest.raises(BotChoiceError) as caught:
        BotCatalogue.build({"mine": spec})
    assert str(caught.value).startswith(f"--allow-bot mine={spec}: ")
    assert message in str(caught.value)


@pytest.mark.parametrize(
    "args",
    [
        ["convert", "--to", "text", "--out", "{dir}/new.txt/", "{record}"],
        ["selfplay", "--seed", "1", "--out", "{dir}/new.txt/"],
        ["arena", "random", "random", "--matches", "2", "--quiet", "--db", "{dir}/new.txt/"],
    ],
    ids=["convert", "selfplay", "arena-db"],
)
def test_an_output_name_ending_with_a_slash_writes_no_file_named_like_the_folder(
    args: list[str], tmp_path: Path, record_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = [a.replace("{dir}", str(tmp_path)).replace("{record}", str(record_file)) for a in args]
    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 2
    assert "names a folder" in error_line(capsys.readouterr().err)
    assert not (tmp_path / "new.txt").exists()


@pytest.mark.parametrize("budget", ["inf", "1e30", "nan", "-1"])
def test_review_names_budget_when_its_value_is_out_of_range(
    budget: str, record_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["review", "--budget", budget, str(record_file)])
    assert stop.value.code == 2
    assert "--budget must be between 0 and 3600 seconds" in error_line(capsys.readouterr().err)


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize(
    ("lang", "expected"),
    [
        ("en", "marjolet: error: cannot write to the screen (standard output): "),
        (
            "fr",
            "marjolet\u00a0: erreur\u00a0: impossible d’écrire à l’écran (sortie standard)\u00a0: ",
        ),
    ],
)
def test_play_says_standard_output_failed_in_the_player_s_language(
    tmp_path: Path, lang: str, expected: str
) -> None:
    env = {"MARJOLET_DATA_DIR": str(tmp_path)}
    with open("/dev/full", "w") as full:
        result = run_cli(
            "play", "--plain", "--lang", lang, "--seed", "1", env=env, stdout=full.fileno()
        )
    assert result.returncode == 2
    assert error_line(result.stderr).startswith(expected)


def without_root_s_reach(argv: list[str]) -> list[str]:
    """``argv`` run so that file permissions hold: as root, without the
    capabilities that read and write past them (``setpriv``)."""
    if os.geteuid() != 0:
        return argv
    if shutil.which("setpriv") is None:
        pytest.skip("as root, needs setpriv to let file permissions hold")
    return ["setpriv", "--bounding-set=-dac_override,-dac_read_search", "--", *argv]


@pytest.fixture
def arena_db(tmp_path: Path) -> Path:
    path = tmp_path / "runs.db"
    argv = ["arena", "random", "random", "--matches", "2", "--seed", "1", "--quiet"]
    assert main([*argv, "--db", str(path)]) == 0
    return path


@pytest.mark.parametrize(
    "args",
    [
        ["arena", "report", "--db", "{db}"],
        ["arena", "random", "random", "--matches", "2", "--quiet", "--db", "{db}"],
        ["arena", "--resume", "1", "--quiet", "--db", "{db}"],
    ],
    ids=["report", "run", "resume"],
)
def test_an_arena_database_that_cannot_be_read_is_said_so_not_called_no_database(
    args: list[str], arena_db: Path
) -> None:
    arena_db.chmod(0)
    argv = [a.replace("{db}", str(arena_db)) for a in args]
    result = subprocess.run(
        without_root_s_reach([sys.executable, "-m", "marjolet", *argv]),
        input="",
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 2
    assert error_line(result.stderr) == (
        f"marjolet: error: cannot read the arena database {str(arena_db)!r}: "
        "Permission denied; left untouched"
    )


@pytest.mark.parametrize(
    ("args", "shown"),
    [
        (["arena", "report", "--db", "{db}"], "random random"),
        (["arena", "report", "--run", "1", "--db", "{db}"], "arena run 1: 2/2 matches"),
        (["arena", "report", "--json", "--db", "{db}"], '"runs": [{"id": 1'),
    ],
    ids=["report", "report-run", "report-json"],
)
def test_a_read_only_arena_database_is_reported_leaving_no_side_files(
    args: list[str], shown: str, arena_db: Path
) -> None:
    arena_db.chmod(0o444)
    os.utime(arena_db, ns=(1_500_000_000_000_000_000, 1_500_000_000_000_000_000))
    contents = arena_db.read_bytes()
    before = sorted(p.name for p in arena_db.parent.iterdir())
    result = subprocess.run(
        without_root_s_reach(
            [sys.executable, "-m", "marjolet", *[a.replace("{db}", str(arena_db)) for a in args]]
        ),
        input="",
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert (result.returncode, result.stderr) == (0, "")
    assert shown in result.stdout
    assert arena_db.read_bytes() == contents
    assert arena_db.stat().st_mtime_ns == 1_500_000_000_000_000_000
    assert sorted(p.name for p in arena_db.parent.iterdir()) == before  # no -wal, no -shm


@pytest.mark.parametrize(
    ("kind", "message"),
    [
        ("random bytes", "not a database"),
        ("text", "not a database"),
        ("damaged", "is a damaged database (SQLite finds: "),
    ],
)
@pytest.mark.parametrize(
    "args",
    [
        ["arena", "report", "--db", "{db}"],
        ["arena", "report", "--run", "1", "--db", "{db}"],
        ["arena", "random", "random", "--matches", "2", "--quiet", "--db", "{db}"],
        ["arena", "--resume", "1", "--quiet", "--db", "{db}"],
    ],
    ids=["report", "report-run", "run", "resume"],
)
def test_a_refused_arena_database_is_left_byte_for_byte_with_its_time_and_no_side_files(
    args: list[str],
    kind: str,
    message: str,
    arena_db: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    folder = arena_db.parent
    given = folder / "given.db"
    contents = {
        "random bytes": random.Random(5).randbytes(9000),
        "text": b"run 1: random against random, 2 matches\n" * 50,
        "damaged": damaged_database(arena_db, "matches"),
    }[kind]
    given.write_bytes(contents)
    os.utime(given, ns=(1_500_000_000_000_000_000, 1_500_000_000_000_000_000))
    before = sorted(p.name for p in folder.iterdir())
    with pytest.raises(SystemExit) as stop:
        main([a.replace("{db}", str(given)) for a in args])
    assert stop.value.code == 2
    line = error_line(capsys.readouterr().err)
    assert line.startswith("marjolet: error: ") and repr(str(given)) in line and message in line
    assert given.read_bytes() == contents
    assert given.stat().st_mtime_ns == 1_500_000_000_000_000_000
    assert sorted(p.name for p in folder.iterdir()) == before  # no -journal, -wal, -shm


@pytest.mark.parametrize(
    ("spec", "parameter"),
    [
        ("best:time=0.025,worlds=1_000", "worlds='1_000'"),
        ("pimc:worlds=\u0661\u0660\u0660", "worlds='\u0661\u0660\u0660'"),  # Arabic-Indic 100
        ("pimc:time=\uff10.\uff15", "time='\uff10.\uff15'"),  # fullwidth 0.5
        ("ismcts:c=0_7", "c='0_7'"),
        ("sampler:worlds=\u096b", "worlds='\u096b'"),  # Devanagari 5
    ],
)
def test_a_bot_number_that_is_not_plain_ascii_is_refused_quoting_the_parameter(
    spec: str, parameter: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(BotSpecError) as refused:
        make_bot(spec)
    assert str(refused.value) == (
        f"bot spec {spec!r}: parameter {parameter} is not a plain number "
        "(write it with the digits 0-9, no '_')"
    )
    with pytest.raises(SystemExit) as stop:
        main(["arena", spec, "random", "--matches", "2", "--no-db", "--quiet"])
    assert stop.value.code == 2
    assert error_line(capsys.readouterr().err) == f"marjolet: error: {refused.value}"


@pytest.mark.parametrize(
    ("spec", "option", "value"),
    [
        ("pimc:worlds=+50,time=.5e-1", "worlds", 50),
        ("best:time=0.025,worlds=1000", "worlds", 1000),
        ("ismcts:c=1.,scale=2E2", "scale", 200.0),
    ],
)
def test_plain_ascii_bot_numbers_are_still_taken(spec: str, option: str, value: float) -> None:
    assert make_bot(spec).options[option] == value


@pytest.mark.parametrize("spec", ["", "  "])
@pytest.mark.parametrize(
    ("lang", "expected"),
    [
        (
            "en",
            "marjolet: error: --opponent: an empty opponent; name a bot that 'marjolet bots' "
            "lists, or choose a level with --level",
        ),
        (
            "fr",
            # (the catalogue's U+202F before ';' reaches a terminal as U+00A0: tui/words.py)
            "marjolet\u00a0: erreur\u00a0: --opponent\u00a0: adversaire vide\u00a0; nommez un "
            "robot de la liste de «\u00a0marjolet bots\u00a0», ou choisissez un niveau avec "
            "--level",
        ),
    ],
)
def test_play_refuses_an_empty_opponent_not_taken_for_no_opponent(
    tmp_path: Path, spec: str, lang: str, expected: str
) -> None:
    env = {"HOME": str(tmp_path), "XDG_DATA_HOME": str(tmp_path / "data")}
    result = run_cli("play", "--plain", "--lang", lang, "--opponent", spec, env=env)
    assert result.returncode == 2
    assert result.stdout == ""  # no match against the default opponent began
    assert error_line(result.stderr) == expected
    assert not (tmp_path / "data").exists()


@pytest.mark.parametrize(
    "args",
    [["solve", "-"], ["replay", "-"], ["convert", "--to", "text", "-"], ["review", "-"]],
    ids=["solve", "replay", "convert", "review"],
)
@pytest.mark.parametrize(
    ("given", "problem"),
    [
        ("{\n", "malformed JSON at line 2 column 1"),
        ("", "empty file: there is no record in it"),
    ],
    ids=["malformed", "empty"],
)
def test_every_command_reading_a_record_calls_it_standard_input(
    args: list[str], given: str, problem: str
) -> None:
    result = run_cli(*args, stdin=given)
    assert result.returncode == 2
    if args[0] in ("replay", "review"):  # a player's words (docs/replay.md)
        problem = {
            "malformed JSON at line 2 column 1": "this file is not a valid game: its JSON is "
            "broken at line 2, column 1 (a comma, a quote or a bracket is missing or one too "
            "many there, or the file was cut short).",
            "empty file: there is no record in it": "this file is not a valid game: the file "
            "is empty",
        }[problem]
    assert error_line(result.stderr).startswith(
        f"marjolet: error: standard input: {problem}"
    )


@pytest.mark.parametrize("value", ["1_000", "\u0661\u0660\u0660", "\uff15", "\u096b0"])
@pytest.mark.parametrize(
    ("args", "option"),
    [
        (["selfplay", "--out", "-", "--seed", "{n}"], "--seed"),
        (["arena", "random", "random", "--no-db", "--quiet", "--matches", "{n}"], "--matches"),
        (["arena", "random", "random", "--no-db", "--quiet", "--seed", "{n}"], "--seed"),
        (["arena", "random", "random", "--no-db", "--quiet", "--workers", "{n}"], "--workers"),
        (["arena", "report", "--run", "{n}"], "--run"),
        (["bench", "--rounds", "1", "--deals", "{n}"], "--deals"),
        (["bench", "--rounds", "1", "--deals", "1", "--target", "{n}"], "--target"),
        (["selfplay", "--seed", "1", "--out", "-", "--all-tricks-bonus", "{n}"],
         "--all-tricks-bonus"),
        (["serve", "--port", "{n}"], "--port"),
        (["bot-serve", "random", "--seed", "{n}"], "--seed"),
    ],
    ids=["selfplay-seed", "arena-matches", "arena-seed", "arena-workers", "report-run",
         "bench-deals", "bench-target", "all-tricks-bonus", "serve-port", "bot-serve-seed"],
)
def test_a_whole_number_option_that_is_not_plain_ascii_is_refused_quoting_it(
    args: list[str], option: str, value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as stop:
        main([a.replace("{n}", value) for a in args])
    assert stop.value.code == 2
    out, err = capsys.readouterr()
    assert out == ""  # nothing was played, benched or served with the number int() made of it
    assert error_line(err).endswith(
        f": error: argument {option}: {value!r} is not a plain number "
        "(write it with the digits 0-9, no '_')"
    )


@pytest.mark.parametrize("value", ["1_0.5", "\u0661\u066b\u0665", "\uff10.5"])
@pytest.mark.parametrize(
    ("args", "option"),
    [
        (["review", "--budget", "{n}", "{record}"], "--budget"),
        (["arena", "random", "random", "--no-db", "--quiet", "--alpha", "{n}"], "--alpha"),
        (["arena", "random", "random", "--no-db", "--quiet", "--sprt", "0", "{n}"], "--sprt"),
        (["serve", "--away-grace", "{n}"], "--away-grace"),
        (["serve", "--bot-delay", "{n}"], "--bot-delay"),
    ],
    ids=["review-budget", "arena-alpha", "arena-sprt", "serve-away-grace", "serve-bot-delay"],
)
def test_a_decimal_option_that_is_not_plain_ascii_is_refused_quoting_it(
    args: list[str], option: str, value: str, record_file: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``float()`` takes ``1_0.5`` and other scripts' digits; an option's
    number is plain ASCII, as a whole number's and a bot spec's are."""
    given = [a.replace("{n}", value).replace("{record}", str(record_file)) for a in args]
    with pytest.raises(SystemExit) as stop:
        main(given)
    assert stop.value.code == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert error_line(err).endswith(
        f": error: argument {option}: {value!r} is not a plain number "
        "(write it with the digits 0-9, no '_')"
    )
    with pytest.raises(SystemExit):  # what float() refuses keeps argparse's words
        main([a.replace("{n}", "soon").replace("{record}", str(record_file)) for a in args])
    assert error_line(capsys.readouterr().err).endswith(
        f": error: argument {option}: invalid float value: 'soon'"
    )


@pytest.mark.parametrize(
    ("lang", "option", "value", "expected"),
    [
        (
            "fr",
            "--seed",
            "1_000",
            "marjolet\u00a0: erreur\u00a0: --seed attend un nombre entier écrit avec les "
            "chiffres de 0 à 9, sans «\u00a0_\u00a0», pas «\u00a01_000\u00a0»",
        ),
        (
            "fr",
            "--target",
            "\u0665\u0660\u0660",
            "marjolet\u00a0: erreur\u00a0: --target attend un nombre entier écrit avec les "
            "chiffres de 0 à 9, sans «\u00a0_\u00a0», pas «\u00a0\u0665\u0660\u0660\u00a0»",
        ),
        (
            "en",
            "--all-tricks-bonus",
            "1_0",
            "marjolet: error: --all-tricks-bonus needs a whole number written with the "
            "digits 0-9, no '_', not '1_0'",
        ),
    ],
)
def test_play_refuses_a_whole_number_that_is_not_plain_ascii_in_the_player_s_language(
    tmp_path: Path, lang: str, option: str, value: str, expected: str
) -> None:
    env = {"HOME": str(tmp_path), "XDG_DATA_HOME": str(tmp_path / "data")}
    result = run_cli("play", "--plain", "--lang", lang, option, value, env=env)
    assert result.returncode == 2
    assert result.stdout == ""
    assert error_line(result.stderr) == expected
    assert not (tmp_path / "data").exists()  # no match began


def test_signed_plain_whole_numbers_are_still_taken(tmp_path: Path) -> None:
    def played(seed: str) -> str:
        out = tmp_path / f"game{seed}.json"
        assert main(["selfplay", "--seed", seed, "--out", str(out)]) == 0
        return out.read_text()

    assert played("+12") == played(" 12 ") == played("12")
    assert played("-7") != played("7")  # a negative seed is its own, as before


@pytest.mark.parametrize("lang", ["fr", "en"])
def test_a_data_folder_that_is_a_file_is_one_line_in_the_player_s_language(
    tmp_path: Path, lang: str
) -> None:
    """MARJOLET_DATA_DIR naming a file: the saves folder cannot be made
    (it was a FileExistsError traceback)."""
    in_the_way = tmp_path / "data.txt"
    in_the_way.write_text("not a folder\n", encoding="utf-8")
    env = {"MARJOLET_DATA_DIR": str(in_the_way), "LANG": "C"}
    proc = run_cli("play", "--plain", "--lang", lang, "--level", "beginner", env=env)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    said = {
        "fr": "un fichier se trouve là où il faut un dossier",
        "en": "a file stands where a folder is needed",
    }[lang]
    colon = "\u00a0: " if lang == "fr" else ": "
    assert error_line(proc.stderr).endswith(f"{in_the_way / 'games'}{colon}{said}")
    assert in_the_way.read_text(encoding="utf-8") == "not a folder\n"


@pytest.mark.parametrize(
    ("error", "en", "fr"),
    [
        (PermissionError(13, "Permission denied", "/x/g.json"), "permission denied",
         "permission refusée"),
        (OSError(30, "Read-only file system", "/x/g.json"), "the disk is read-only",
         "le disque est en lecture seule"),
        (OSError(28, "No space left on device", "/x/g.json"), "the disk is full",
         "le disque est plein"),
        (FileNotFoundError(2, "No such file or directory", "/proc/g.json"),
         "no file can be made there", "aucun fichier ne peut y être créé"),
    ],
)
def test_a_save_the_system_refuses_is_told_why_in_the_player_s_words(
    error: OSError, en: str, fr: str
) -> None:
    """The system's usual refusals are said in the player's language, not
    in the system's English (« écriture impossible : Permission denied »)."""
    from marjolet.commands.words import output_reason
    from marjolet.tui import words

    previous = words.lang()
    try:
        for lang, said in (("en", en), ("fr", fr)):
            words.use(lang)
            assert output_reason(error) == said
    finally:
        words.use(previous)
