"""The terminal in French: ``--lang fr`` or ``LANG=fr_FR...`` (the catalogues
of :mod:`marjolet.i18n`, the same as the web pages')."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from marjolet.commands.play import add_arguments
from marjolet.rules import CLASSIC
from marjolet.tui import words
from marjolet.tui.app import MarjoletApp
from marjolet.tui.help import HelpScreen, rules_text
from test_tui_app import SIZE, meld_session, screen_text, settle


@pytest.fixture
def french() -> Iterator[None]:
    words.use("fr")
    try:
        yield
    finally:
        words.use("en")


def test_the_table_speaks_french_with_french_card_letters(tmp_path: Path, french: None) -> None:
    app = MarjoletApp(meld_session(tmp_path), pace=0)

    async def main() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await settle(app, pilot)
            text = screen_text(app)
            assert "atout ♠ pique" in text and "talon ouvert" in text
            assert "Marque" in text and "Journal" in text
            assert "R♥" in text and "D♥" in text  # roi and dame of hearts in the hand
            footer = {b.binding.description for b in app.active_bindings.values()}
            assert {"Jouer", "Piocher", "Conseil", "Aide", "Quitter"} <= footer  # the footer
            await pilot.press("1")  # A♠ wins trick 1: the meld window
            await settle(app, pilot)
            text = screen_text(app)
            assert "Vos annonces" in text and "mariage" in text and "piocher" in text
            await pilot.press("h")
            await pilot.pause()
            assert isinstance(app.screen, HelpScreen)
            text = screen_text(app)
            assert "Touches" in text and "Marjolet : aide" in text

    asyncio.run(main())


def test_the_help_tells_the_same_rules_as_the_web_page(french: None) -> None:
    text = rules_text(CLASSIC)
    for words_ in ("mariage d'atout", "le marjolet", "sept d'atout", "dernier pli",
                   "les six derniers plis", "la même dame, deux occasions", "| 100 |"):  # fmt: skip
        assert words_ in text.lower().replace("**", ""), words_


@pytest.mark.parametrize(("env_lang", "flag", "wanted"), [
    ("fr_FR.UTF-8", None, "Donne 1"),
    ("en_US.UTF-8", "fr", "Donne 1"),
    ("fr_FR.UTF-8", "en", "Deal 1"),
])  # fmt: skip
def test_lang_and_the_lang_option_choose_the_terminal_language(
    tmp_path: Path, env_lang: str, flag: str | None, wanted: str
) -> None:
    env = {**os.environ, "LANG": env_lang, "LC_ALL": "", "LANGUAGE": "",
           "MARJOLET_DATA_DIR": str(tmp_path)}  # fmt: skip
    args = [sys.executable, "-m", "marjolet.cli", "play", "--opponent", "random", "--seed", "4"]
    if flag:
        args += ["--lang", flag]
    out = subprocess.run(args, input="quit\n", capture_output=True, text=True, env=env, timeout=60)
    assert out.returncode == 0, out.stderr
    assert wanted in out.stdout


def test_the_lang_option_accepts_only_fr_and_en() -> None:
    import argparse

    parser = argparse.ArgumentParser(exit_on_error=False)
    add_arguments(parser)
    assert parser.parse_args(["--lang", "fr"]).lang == "fr"
    with pytest.raises((argparse.ArgumentError, SystemExit)):
        parser.parse_args(["--lang", "de"])


def test_the_plain_interface_ends_a_deal_and_stops_in_french(tmp_path: Path) -> None:
    env = {**os.environ, "LANG": "fr_FR.UTF-8", "LC_ALL": "", "LANGUAGE": "",
           "MARJOLET_DATA_DIR": str(tmp_path)}  # fmt: skip
    args = [sys.executable, "-m", "marjolet.cli", "play", "--plain", "--opponent", "random",
            "--seed", "4"]  # fmt: skip
    out = subprocess.run(args, input="1\n" * 25, capture_output=True, text=True, env=env,
                         timeout=60)  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert "-- fin de la donne 1 : points par origine" in out.stdout
    assert "(partie en 500)" in out.stdout
    assert "Partie arrêtée (fin de l'entrée) ; enregistrée dans" in out.stdout
    for english in ("points by source", "Game stopped", "input ended", "target 500"):
        assert english not in out.stdout
