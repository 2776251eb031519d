"""The player's commands speak the player's language in their help and
usage errors (``marjolet``, ``play``, ``review``, ``replay``, ``rules``):
the last ``--lang`` among the arguments, else ``LANG``; English unchanged
under ``LANG=C``; the developer commands keep English for their own help."""

from __future__ import annotations

import subprocess
import sys

import pytest

from cli_support import run_main as run
from marjolet.i18n import catalogue
from marjolet.tui import words

PLAYER_COMMANDS = ("review", "replay", "rules")


def bogus(command: str) -> list[str]:
    """``command`` with an unknown option, and its record if it needs one."""
    return [command, "--bogus"] + (["r.json"] if command != "rules" else [])


def french(how: str, monkeypatch: pytest.MonkeyPatch, argv: list[str]) -> list[str]:
    """``argv`` asked in French: by ``LANG`` or by ``--lang fr``."""
    if how == "LANG":
        monkeypatch.setenv("LANG", "fr_FR.UTF-8")
        return argv
    if argv and argv[0] in PLAYER_COMMANDS:
        return [*argv, "--lang", "fr"]
    return ["--lang", "fr", *argv]


@pytest.mark.parametrize("how", ["LANG", "--lang"])
@pytest.mark.parametrize("argv", [["--help"], []], ids=["help", "alone"])
def test_marjolet_lists_its_commands_in_french_for_a_french_player(
    how: str, argv: list[str], monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, out, _ = run(french(how, monkeypatch, argv), capsys)
    assert status == (0 if argv else 2)
    assert out.startswith("utilisation\u00a0: marjolet ")
    fr = catalogue("fr")
    for said in ("commandes\u00a0:", "options\u00a0:", "afficher cette aide et quitter",
                 fr["cli.help.description"], "jouer une partie contre l’ordinateur",
                 "les points perdus à chaque décision",
                 "mesurer des robots les uns contre les autres"):  # a developer command's too
        assert said in out, said
    for english in ("usage:", "show this help", "play a match", "measure bots"):
        assert english not in out
    assert words.lang() == "en"  # the command leaves the language as it was


@pytest.mark.parametrize("how", ["LANG", "--lang"])
@pytest.mark.parametrize(
    ("command", "said"),
    [
        ("review", ["--out FICHIER", "PARTIE", "n’analyser qu’un joueur", "arguments\u00a0:"]),
        ("replay", ["FICHIER", "afficher l’objet résultat de record.md", "la langue du texte"]),
        ("rules", ["règles\u00a0:", "--rules PROFIL", "afficher les règles du jeu en toutes"]),
    ],
)
def test_review_replay_and_rules_give_their_help_in_french_for_a_french_player(
    how: str, command: str, said: list[str], monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, out, _ = run(french(how, monkeypatch, [command, "--help"]), capsys)
    assert status == 0
    assert out.startswith(f"utilisation\u00a0: marjolet {command} ")
    for text in ["options\u00a0:", "afficher cette aide et quitter", *said]:
        assert text in out, text
    for english in ("usage:", "show this help", "positional arguments", "(R4)", "print "):
        assert english not in out


@pytest.mark.parametrize("how", ["LANG", "--lang"])
@pytest.mark.parametrize("command", PLAYER_COMMANDS)
def test_an_unknown_option_of_review_replay_or_rules_is_refused_in_french(
    how: str, command: str, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, out, err = run(french(how, monkeypatch, bogus(command)), capsys)
    assert status == 2 and out == ""
    assert err.startswith("marjolet\u00a0: erreur\u00a0: option ou argument inconnu\u00a0: --bogus")
    assert err.endswith(f" {command} --help\u00a0» liste les options)\n")
    assert len(err.splitlines()) == 1


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["review", "--budget", "x", "r.json"], "--budget attend un nombre, pas «\u00a0x\u00a0»"),
        (
            ["review", "--budget", "1_0", "r.json"],  # a decimal option: no "entier"
            "--budget attend un nombre écrit avec les chiffres de 0 à 9, sans «\u00a0_\u00a0», "
            "pas «\u00a01_0\u00a0»",
        ),
        (["review"], "il manque\u00a0: PARTIE"),
        (["replay", ""], "FICHIER attend un nom de fichier, pas un nom vide"),
        (
            ["review", "--seat", "3", "r.json"],
            "--seat\u00a0: «\u00a03\u00a0» n’est pas un choix possible\u00a0; au choix\u00a0: 0, 1",
        ),
        (["rules", "--json", "--book"], "--book ne peut pas aller avec --json"),
        (["rules", "--target", "x"], "--target attend un nombre entier, pas «\u00a0x\u00a0»"),
        (["rules", "--lang"], "--lang attend une valeur"),
        (
            ["bogus"],
            "la commande «\u00a0bogus\u00a0» n’existe pas\u00a0; "
            "les commandes\u00a0: play, replay, convert, rules,",
        ),
    ],
)
def test_the_usage_errors_of_the_player_s_commands_are_said_in_french(
    argv: list[str], said: str, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("LANG", "fr_FR.UTF-8")
    status, out, err = run(argv, capsys)
    assert status == 2 and out == ""
    assert err.startswith(f"marjolet\u00a0: erreur\u00a0: {said}")
    assert len(err.splitlines()) == 1


@pytest.mark.parametrize("command", PLAYER_COMMANDS)
def test_review_replay_and_rules_keep_their_english_under_lang_c(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, _ = run([command, "--help"], capsys)
    assert status == 0
    assert out.startswith(f"usage: marjolet {command} ") and "\noptions:\n" in out
    assert "utilisation" not in out and "afficher" not in out
    status, out, err = run(bogus(command), capsys)
    assert status == 2
    assert err == "marjolet: error: unrecognized arguments: --bogus\n"


def test_marjolet_alone_keeps_its_english_under_lang_c(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, out, _ = run(["--help"], capsys)
    assert status == 0
    assert out.startswith("usage: marjolet ")
    assert "Marjolet, the French two-player trick-and-draw card game." in out
    assert "play a match against the computer" in out and "measure bots" in out


def test_a_developer_command_keeps_english_for_its_own_help(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("LANG", "fr_FR.UTF-8")
    status, out, _ = run(["bench", "--help"], capsys)
    assert status == 0
    assert out.startswith("usage: marjolet bench ") and "benchmark the rules engine" in out
    status, _, err = run(["--lang", "fr", "bench"], capsys)
    assert status == 2
    assert err == (
        "marjolet: error: --lang: bench speaks English only; give --lang after play, replay, "
        "review or rules\n"
    )


def test_a_lang_before_the_command_is_the_command_s_language(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, out, _ = run(["--lang", "fr", "rules"], capsys)
    assert status == 0
    assert "règle" in out and "profile" not in out


@pytest.mark.parametrize("spelling", ["--l", "--la", "--lan", "--lang", "--lang="])
def test_lang_cut_short_before_the_command_is_still_the_language_not_the_command(
    spelling: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """argparse takes ``--l`` for ``--lang`` before the command; ``en``
    was then read as the command's name and ``marjolet --l en rules``
    ended in a traceback."""
    given = [spelling + "fr"] if spelling.endswith("=") else [spelling, "fr"]
    status, out, err = run([*given, "rules", "--target", "5"], capsys)
    assert (status, out) == (2, "")
    assert err == (
        "marjolet\u00a0: erreur\u00a0: --target doit être entre 100 et 10\u00a0000, pas 5\n"
    )
    status, out, err = run([*given[:-1], "en"] if len(given) == 2 else ["--lang=en"], capsys)
    assert status == 2 and "Traceback" not in err


def test_the_french_help_of_marjolet_imports_no_command_nor_heavy_library() -> None:
    code = (
        "import os, sys\n"
        "os.environ['LANG'] = 'fr_FR.UTF-8'\n"
        "from marjolet.cli import main\n"
        "try:\n"
        "    main(['--help'])\n"
        "except SystemExit:\n"
        "    pass\n"
        "bad = [m for m in sys.modules if m.split('.')[0] in "
        "{'numpy', 'textual', 'rich', 'fastapi', 'torch', 'ray'}]\n"
        "bad += [m for m in sys.modules if m.startswith(('marjolet.commands.', "
        "'marjolet.bots', 'marjolet.analysis', 'marjolet.web', 'marjolet.arena'))\n"
        "        and m != 'marjolet.commands.words']\n"
        "assert not bad, bad\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    assert "commandes\u00a0:" in proc.stdout
