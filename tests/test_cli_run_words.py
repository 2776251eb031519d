"""The errors that ``marjolet review``, ``replay`` and ``rules`` raise once
their options are read (a setting out of its limits, a rule set not known,
``--budget`` out of range, an ``--out`` file refused or not written,
standard output failing, an interruption) are one line in the player's
language and words, the sentences ``marjolet play`` says where they are the
same; English under ``LANG=C`` in the catalogue's words."""

from __future__ import annotations

import errno
import json
import os
from pathlib import Path

import pytest

from cli_support import error_line, run_cli, selfplay_record
from marjolet.cli import main

FR = "marjolet\u00a0: erreur\u00a0: "
#: The environment's other language variables, emptied: LANG decides.
NO_LANGUAGE = {"LANGUAGE": "", "LC_ALL": "", "LC_MESSAGES": ""}
EN = "marjolet: error: "


@pytest.fixture(scope="module")
def record_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return selfplay_record(tmp_path_factory.mktemp("record") / "game.json")


def refused(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    """The one line of ``marjolet ARGV``'s refusal (status 2, nothing on
    standard output)."""
    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 2
    out = capsys.readouterr()
    assert out.out == ""
    return error_line(out.err)


def in_language(lang: str, how: str, argv: list[str], monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """``argv`` asked in ``lang``: by ``LANG``, or by ``--lang`` after or
    before the command."""
    for name in NO_LANGUAGE:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LANG", "C")
    if how == "LANG":
        monkeypatch.setenv("LANG", "fr_FR.UTF-8" if lang == "fr" else "C")
        return argv
    if how == "after":
        return [*argv, "--lang", lang]
    return ["--lang", lang, *argv]


LANGS = [("fr", "LANG"), ("fr", "after"), ("fr", "before"), ("en", "LANG"), ("en", "after")]


@pytest.mark.parametrize(("lang", "how"), LANGS)
@pytest.mark.parametrize(
    ("option", "en", "fr"),
    [
        (
            ["--target", "50"],
            "--target must be between 100 and 10000, not 50",
            "--target doit être entre 100 et 10\u00a0000, pas 50",
        ),
        (
            ["--all-tricks-bonus", "5000"],
            "--all-tricks-bonus must be between 0 and 1000, not 5000",
            "--all-tricks-bonus doit être entre 0 et 1\u00a0000, pas 5\u00a0000",
        ),
        (
            ["--rules", "nosuch"],
            "--rules: there are no rules called 'nosuch' (known: classic, encyclopedia)",
            "--rules\u00a0: il n’y a pas de règle «\u00a0nosuch\u00a0» "
            "(connues\u00a0: classique, encyclopédie)",
        ),
    ],
    ids=["target", "bonus", "profile"],
)
def test_rules_refuses_a_setting_as_play_does_in_the_player_s_language(
    lang: str, how: str, option: list[str], en: str, fr: str,
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    line = refused(in_language(lang, how, ["rules", *option], monkeypatch), capsys)
    assert line == (FR + fr if lang == "fr" else EN + en)
    assert "new match" not in line  # rules starts no match


@pytest.mark.parametrize("lang", ["fr", "en"])
def test_play_and_rules_say_a_setting_out_of_range_in_one_same_sentence(
    tmp_path: Path, lang: str
) -> None:
    env = {"MARJOLET_DATA_DIR": str(tmp_path), "LANG": "C", **NO_LANGUAGE}
    for option in (["--target", "50"], ["--rules", "nosuch"]):
        play = run_cli("play", "--plain", "--lang", lang, *option, env=env)
        rules = run_cli("rules", "--lang", lang, *option, env=env)
        assert play.returncode == rules.returncode == 2
        assert error_line(play.stderr) == error_line(rules.stderr)


@pytest.mark.parametrize(("lang", "how"), LANGS)
@pytest.mark.parametrize(("budget", "fr"), [("9999", "9\u00a0999"), ("-1", "-1"), ("nan", "nan")])
def test_review_refuses_a_budget_out_of_range_in_the_player_s_language(
    lang: str, how: str, budget: str, fr: str, record_file: Path,
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    """French writes « entre 0 et 3 600 secondes, pas 9 999 »
    (marjolet.i18n.number, the terminal's unbreakable space); English 3600."""
    argv = ["review", "--budget", budget, str(record_file)]
    line = refused(in_language(lang, how, argv, monkeypatch), capsys)
    if lang == "fr":
        assert line == f"{FR}--budget doit être entre 0 et 3\u00a0600 secondes, pas {fr}"
    else:
        assert line == f"{EN}--budget must be between 0 and 3600 seconds, not {budget}"


@pytest.mark.parametrize(("lang", "how"), LANGS)
def test_review_out_refuses_an_existing_file_in_the_player_s_language(
    lang: str, how: str, record_file: Path, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    taken = tmp_path / "g.txt"
    taken.write_text("mine\n", encoding="utf-8")
    argv = ["review", "--budget", "0", "--out", str(taken), str(record_file)]
    line = refused(in_language(lang, how, argv, monkeypatch), capsys)
    if lang == "fr":
        assert line == (
            f"{FR}impossible d’écrire la partie commentée dans {taken}\u00a0: "
            "le fichier existe déjà\u00a0: ajoutez --force pour le remplacer"
        )
    else:
        assert line == (
            f"{EN}cannot write the annotated record to {taken}: "
            "the file exists; add --force to replace it"
        )
    assert taken.read_text(encoding="utf-8") == "mine\n"


@pytest.mark.parametrize("lang", ["fr", "en"])
def test_review_out_in_a_missing_folder_or_a_folder_is_refused_in_the_player_s_language(
    lang: str, record_file: Path, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    missing = tmp_path / "no" / "g.txt"
    said = {
        "fr": (f"le dossier {missing.parent} n’existe pas", "c’est un dossier\u00a0: donnez"),
        "en": (f"no such folder: {missing.parent}", "it is a folder; give the name of a file"),
    }[lang]
    in_language("en", "LANG", [], monkeypatch)
    for out, reason in ((missing, said[0]), (f"{tmp_path}/", said[1])):
        argv = ["review", "--budget", "0", "--lang", lang, "--out", str(out), str(record_file)]
        line = refused(argv, capsys)
        assert line.startswith(FR if lang == "fr" else EN)
        assert reason in line and "cannot write:" not in line
    assert not missing.parent.exists()


@pytest.mark.parametrize("lang", ["fr", "en"])
def test_review_out_that_cannot_be_written_is_said_in_the_player_s_language(
    lang: str, record_file: Path, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    from marjolet import outputs

    out = tmp_path / "g.txt"

    def full_disk(path: str, data: str) -> None:
        raise OSError(errno.ENOSPC, "No space left on device", str(path))

    monkeypatch.setattr(outputs, "write_atomic", full_disk)
    in_language("en", "LANG", [], monkeypatch)
    argv = ["review", "--budget", "0", "--lang", lang, "--out", str(out), str(record_file)]
    line = refused(argv, capsys)
    if lang == "fr":
        assert line == (
            f"{FR}impossible d’écrire la partie commentée dans {out}\u00a0: "
            "le disque est plein"
        )
    else:
        assert line == (
            f"{EN}cannot write the annotated record to {out}: the disk is full"
        )
    assert not out.exists()


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize(
    ("lang", "said"),
    [
        ("fr", f"{FR}impossible d’écrire à l’écran (sortie standard)\u00a0: "),
        ("en", f"{EN}cannot write to the screen (standard output): "),
    ],
    ids=["fr", "en"],
)
@pytest.mark.parametrize(
    "argv", [["rules"], ["--lang", "{lang}", "rules", "--book"]], ids=["rules", "lang-first"]
)
def test_rules_says_standard_output_failed_in_the_player_s_language(
    lang: str, said: str, argv: list[str]
) -> None:
    args = [a.replace("{lang}", lang) for a in argv]
    env = {"LANG": "fr_FR.UTF-8" if lang == "fr" else "C", **NO_LANGUAGE}
    with open("/dev/full", "w") as full:
        result = run_cli(*args, env=env, stdout=full.fileno())
    assert result.returncode == 2
    assert error_line(result.stderr).startswith(said)


@pytest.mark.parametrize(
    ("lang", "said"),
    [("fr", "marjolet\u00a0: interrompu"), ("en", "marjolet: interrupted")],
    ids=["fr", "en"],
)
def test_an_interrupted_player_s_command_says_so_in_the_player_s_language(
    lang: str, said: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from marjolet.commands import rules

    def interrupted(args: object) -> int:
        raise KeyboardInterrupt

    monkeypatch.setattr(rules, "run", interrupted)
    in_language("en", "LANG", [], monkeypatch)
    assert main(["rules", "--lang", lang]) == 130
    assert error_line(capsys.readouterr().err) == said


def test_a_developer_command_keeps_its_english_errors_under_a_french_lang(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    in_language("fr", "LANG", [], monkeypatch)
    line = refused(["selfplay", "--seed", "1", "--out", "-", "--target", "50"], capsys)
    assert line == f"{EN}--target: target must be 100-10000 for a new match, got 50"


@pytest.mark.parametrize(
    ("given", "profile"),
    [("classique", "classic"), ("Classic", "classic"), ("Encyclopédie", "encyclopedia"),
     ("encyclopedie", "encyclopedia"), ("ENCYCLOPEDIA", "encyclopedia")],
)
def test_the_rules_may_be_named_as_the_screens_name_them_in_any_language(
    given: str, profile: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """A French player types « classique », as the lobby says it; case and
    accents do not matter."""
    from marjolet.cli import main

    assert main(["rules", "--json", "--rules", given]) == 0
    assert json.loads(capsys.readouterr().out)["profile"] == profile
