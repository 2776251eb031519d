"""The terminal in French: ``--lang fr`` or ``LANG=fr_FR...`` (the catalogues
of :mod:`marjolet.i18n`, the same as the web pages')."""

from __future__ import annotations

import asyncio
import io
import os
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from helpers import deck_for
from marjolet import record
from marjolet.actions import parse_action
from marjolet.analysis.review import Decision
from marjolet.analysis.summary import PlayerSummary, summarise
from marjolet.bots import Bot, make_bot
from marjolet.bots.base import BotFault
from marjolet.cards import suit_of
from marjolet.commands.play import add_arguments, run_plain
from marjolet.errors import RecordError
from marjolet.match import Match
from marjolet.melds import JACK_QUEEN_BASE
from marjolet.observation import Observation
from marjolet.rules import CLASSIC
from marjolet.tui import describe, words
from marjolet.tui.app import MarjoletApp
from marjolet.tui.help import HelpScreen, rules_text
from marjolet.tui.review import decision_line, player_line
from marjolet.tui.session import GameSession
from marjolet.tui.state import Note
from marjolet.turns import play_match
from test_tui_app import SIZE, meld_session, screen_text, session_with_deck, settle


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
            assert {"Jouer", "Conseil", "Aide", "Quitter"} <= footer  # the footer
            await pilot.press("1")  # A♠ wins trick 1: the meld window
            await settle(app, pilot)
            text = screen_text(app)
            footer = {b.binding.description for b in app.active_bindings.values()}
            assert {"Annoncer", "Piocher"} <= footer
            assert "Vos annonces" in text and "mariage" in text and "piocher" in text
            await pilot.press("h")
            await pilot.pause()
            assert isinstance(app.screen, HelpScreen)
            text = screen_text(app)
            assert "Touches" in text and "Marjolet\u00a0: aide" in text

    asyncio.run(main())


@pytest.mark.parametrize("width", [60, 80, 100])
def test_the_help_never_starts_a_line_with_a_french_sign(width: int, french: None) -> None:
    """Textual's Markdown turns each run of whitespace into one plain space,
    the unbreakable ones included: the rule book wrapped « visible » and
    « : sa couleur est l’atout » onto two lines. The help keeps them."""
    from textual.app import App, ComposeResult
    from textual.widgets.markdown import MarkdownBlock

    from marjolet.tui.help import UnbreakableMarkdown, keys_text
    from marjolet.tui.wrapping import keep_unbreakable_spaces

    source = keys_text("marjolet play --resume") + "\n\n" + rules_text(CLASSIC)

    class Page(App[None]):
        def compose(self) -> ComposeResult:
            yield UnbreakableMarkdown(source)

    async def main() -> list[str]:
        keep_unbreakable_spaces()
        app = Page()
        async with app.run_test(size=(width, 1000)) as pilot:
            while not app.query(MarkdownBlock):
                await pilot.pause()
            await pilot.pause()
            return [strip.text for strip in app.screen._compositor.render_strips()]

    rows = asyncio.run(main())
    text = " ".join(row.strip() for row in rows)
    assert "visible\u00a0: sa couleur" in text  # the space shown, not lost
    assert not set(text) & set("\u2e31\u2e33\u2e30")  # no stand-in left on screen
    assert "**" not in text  # every bold closed: « **?** : » too, before its unbreakable space
    starts = [row.strip(" │")[:1] for row in rows if row.strip(" │")]
    assert not set(starts) & set(":;!»%"), [r for r in rows if r.strip(" │")[:1] in ":;!»%"]
    questions = [r for r in rows if r.strip(" │").startswith("?")]
    assert not questions, questions


def test_the_help_tells_the_same_rules_as_the_web_page(french: None) -> None:
    text = rules_text(CLASSIC)
    for words_ in ("mariage d’atout", "le marjolet", "sept d’atout", "dernier pli",
                   "les six derniers plis", "la même dame, deux occasions", "| 100 |"):  # fmt: skip
        assert words_ in text.lower().replace("**", ""), words_


def test_the_help_ends_with_the_questions_players_ask(french: None) -> None:
    text = rules_text(CLASSIC)
    assert "### Questions fréquentes" in text
    assert "**Faut-il fournir pendant les dix premiers plis\u202f?**" in text
    assert text.index("Questions fréquentes") > text.index("Les réglages de cette table")


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
    assert "-- fin de la donne 1\u00a0: détail des points" in out.stdout
    assert "(partie en 500)" in out.stdout
    assert "Partie arrêtée (fin de l’entrée)\u00a0; enregistrée dans" in out.stdout
    for english in ("points by source", "Game stopped", "input ended", "target 500"):
        assert english not in out.stdout


@pytest.mark.parametrize(
    ("option", "said"),
    [
        (["--target", "50"], "--target doit être entre 100 et 10\u00a0000, pas 50"),
        (
            ["--all-tricks-bonus", "5000"],
            "--all-tricks-bonus doit être entre 0 et 1\u00a0000, pas 5\u00a0000",
        ),
        (["--rules", "fancy"], "il n’y a pas de règle «\u00a0fancy\u00a0»"),
    ],
)
def test_a_rule_option_out_of_bounds_is_refused_in_french(
    tmp_path: Path, option: list[str], said: str
) -> None:
    env = {**os.environ, "LANG": "fr_FR.UTF-8", "LC_ALL": "", "LANGUAGE": "",
           "MARJOLET_DATA_DIR": str(tmp_path)}  # fmt: skip
    args = [sys.executable, "-m", "marjolet.cli", "play", "--plain", *option]
    out = subprocess.run(args, capture_output=True, text=True, env=env, timeout=60)
    assert out.returncode == 2
    assert out.stderr.startswith("marjolet\u00a0: erreur\u00a0: ") and said in out.stderr
    assert out.stderr.count("\n") == 1 and " must " not in out.stderr


# -- the bot breaking down, the default name, the review: in French too ----------------


class BrokenBot(Bot):
    """An in-process bot whose every move fails."""

    name = "broken"

    def choose(self, obs: Observation, legal: Sequence[int]) -> int:
        raise RuntimeError("ce robot est cassé")


class FaultyBot(Bot):
    """A bot that breaks down as an external program does (it forfeits)."""

    name = "faulty"

    def choose(self, obs: Observation, legal: Sequence[int]) -> int:
        raise BotFault("the bot timed out after 5 s")


def bot_leads(tmp_path: Path, bot: Bot) -> GameSession:
    """A session where the bot leads the first trick at once."""
    deck = deck_for("AS 7S KH QH 8C 9C", "7D 8D 9D JD QD KD", "TS", "8S 9S")
    return session_with_deck(tmp_path, deck, first_dealer=0, bot=bot)


@pytest.mark.parametrize(
    ("bot", "wanted"),
    [
        (BrokenBot(), "L’ordinateur est tombé en panne\u00a0: ce robot est cassé. "
                      "La partie est enregistrée\u00a0; appuyez sur q."),
        (FaultyBot(), "Le programme de random a échoué\u00a0: random perd la partie par forfait "
                      "et vous gagnez. (Détail technique, en anglais\u00a0: deal 1, trick 1: "
                      "the bot timed out after 5 s) Appuyez sur q."),
    ],
)  # fmt: skip
def test_a_bot_that_breaks_down_is_told_in_french(
    tmp_path: Path, french: None, bot: Bot, wanted: str
) -> None:
    app = MarjoletApp(bot_leads(tmp_path, bot), pace=0)

    async def main() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await settle(app, pilot)
            assert app.waiting == "error"
            assert app.note == Note(wanted, problem=True)

    asyncio.run(main())


def test_the_plain_interface_tells_a_forfeit_in_french(tmp_path: Path, french: None) -> None:
    session = bot_leads(tmp_path, FaultyBot())
    out = io.StringIO()
    assert run_plain(session, io.StringIO(""), out) == 0
    text = out.getvalue()
    assert "Le programme de random a échoué\u00a0: random perd la partie par forfait" in text
    # where it happened, in the record's terms, then the fault
    detail = "(Détail technique, en anglais\u00a0: deal 1, trick 1: the bot timed out"
    assert detail in text
    assert "broke down" not in text and "you win" not in text


def finished_session(seed: int, name: str) -> GameSession:
    """A session whose match to 100 two random bots have played out."""
    match = Match(CLASSIC.replace(target=100), seed=seed, players=(name, "random"))
    play_match(match, [make_bot("random", seed=seed), make_bot("random", seed=seed + 1)])
    return GameSession(match, opponent="random", save_path=None)


@pytest.mark.parametrize(
    ("lang", "name", "seed", "wanted"),
    [
        ("fr", "Vous", 1, "Partie terminée\u00a0: vous gagnez 110\u00a0–\u00a020."),
        ("fr", "Ann", 1, "Partie terminée\u00a0: vous gagnez 110\u00a0–\u00a020."),
        ("fr", "Vous", 0, "Partie terminée\u00a0: random gagne 180\u00a0–\u00a080."),
        ("en", "You", 1, "Match over: you won 110\u00a0–\u00a020."),
        ("en", "Ann", 1, "Match over: you won 110\u00a0–\u00a020."),
        ("en", "You", 0, "Match over: random won 180\u00a0–\u00a080."),
    ],
)  # fmt: skip
def test_the_plain_interface_ends_with_a_grammatical_winner_in_both_languages(
    lang: str, name: str, seed: int, wanted: str
) -> None:
    session = finished_session(seed, name)
    assert session.match.winner == (0 if seed == 1 else 1)
    words.use(lang)
    try:
        out = io.StringIO()
        assert run_plain(session, io.StringIO(""), out) == 0
    finally:
        words.use("en")
    assert out.getvalue().strip().splitlines()[-1] == wanted


def test_the_default_name_is_vous_in_french_and_a_given_name_is_kept(
    tmp_path: Path, french: None
) -> None:
    session = GameSession.new(CLASSIC, opponent="random", seed=1, save_path=tmp_path / "a.json")
    assert session.names[0] == "Vous"
    assert record.load(tmp_path / "a.json").players == ("Vous", "random")
    named = GameSession.new(
        CLASSIC, opponent="random", seed=1, name="You", save_path=tmp_path / "b.json"
    )
    assert record.load(tmp_path / "b.json").players == ("You", "random")
    assert named.names[0] == "You"
    words.use("en")
    english = GameSession.new(CLASSIC, opponent="random", seed=1, save_path=tmp_path / "c.json")
    assert english.names[0] == "You"


@pytest.mark.parametrize(("flags", "name"), [((), "Vous"), (("--name", "You"), "You")])
def test_marjolet_play_in_french_records_vous_unless_a_name_is_given(
    tmp_path: Path, flags: tuple[str, ...], name: str
) -> None:
    env = {**os.environ, "LANG": "fr_FR.UTF-8", "LC_ALL": "", "LANGUAGE": "",
           "MARJOLET_DATA_DIR": str(tmp_path)}  # fmt: skip
    save = tmp_path / "game.json"
    args = [sys.executable, "-m", "marjolet.cli", "play", "--plain", "--opponent", "random",
            "--seed", "4", "--save", str(save), *flags]  # fmt: skip
    out = subprocess.run(args, input="xyz\nquit\n", capture_output=True, text=True, env=env,
                         timeout=60)  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert f"Marjolet\u00a0: {name} contre random" in out.stdout
    dealt = ("vous avez donné\u00a0; l’atout est", "a donné\u00a0; l’atout est")
    assert any(words_ in out.stdout for words_ in dealt)
    assert "«\u00a0xyz\u00a0» n’est pas une action" in out.stdout
    assert "unknown action" not in out.stdout
    assert record.load(save).players == (name, "random")


def test_a_resumed_record_naming_no_bot_is_noted_in_french(tmp_path: Path, french: None) -> None:
    path = tmp_path / "g.json"
    rec = record.Record(players=("Ann", "Bob"), deals=(record.DealRecord(tuple(range(32))),))
    record.save(rec, path)
    session = GameSession.resume(path, fallback_opponent="random")
    # the computer takes the seat, called so: no program's name ("random")
    note = "«\u00a0Bob\u00a0» n’est pas un robot\u00a0; Ordinateur prend sa place."
    assert session.notes == [note]


def _decision(**changes: object) -> Decision:
    fields: dict[str, object] = dict(
        deal=0, action=4, seat=0, trick=3, played=parse_action("QS"), best=(parse_action("AS"),),
        value_played=-5.5, value_best=10.0, loss=15.5, exact=False, view="seat",
        method="sampling", stderr_loss=1.25,
    )  # fmt: skip
    fields.update(changes)
    return Decision(**fields)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "decision",
    [_decision(), _decision(exact=True, view="ending", loss=15.0, value_played=-5.0),
     _decision(view="open", loss=0.5, value_played=9.5, stderr_loss=None)],
)  # fmt: skip
def test_the_deal_review_reads_in_player_words_in_french_and_english(
    decision: Decision,
) -> None:
    english = decision_line(decision, "Ann")
    assert english.startswith("Trick 3, Ann played Q♠") and "A♠ was worth" in english
    words.use("fr")
    try:
        french = decision_line(decision, "Ann")
    finally:
        words.use("en")
    assert french.startswith("Pli 3, Ann a joué D♠")
    assert "mieux valait A♠, " in french and "point" in french and "de plus" in french
    for english_word in ("best", "played", "lost", "estimate", "worth"):
        assert english_word not in french, english_word
    summary = summarise([decision], 0)
    assert player_line(summary, "Ann").startswith("Ann: 1 decision, accuracy")
    words.use("fr")
    try:
        french = player_line(summary, "Ann")
    finally:
        words.use("en")
    assert french.startswith("Ann\u00a0: 1 décision,") and "précision" in french
    assert "accuracy" not in french and "decisions" not in french


@pytest.mark.parametrize(
    ("lang", "n", "wanted"),
    [
        ("fr", 0, "0 imprécision, 0 erreur, 0 gaffe"),
        ("fr", 1, "1 imprécision, 1 erreur, 1 gaffe"),
        ("fr", 2, "2 imprécisions, 2 erreurs, 2 gaffes"),
        ("en", 0, "0 inaccuracies, 0 mistakes, 0 blunders"),
        ("en", 1, "1 inaccuracy, 1 mistake, 1 blunder"),
        ("en", 2, "2 inaccuracies, 2 mistakes, 2 blunders"),
    ],
)
def test_the_review_counts_marks_in_the_singular_for_one_and_in_french_for_none(
    lang: str, n: int, wanted: str
) -> None:
    summary = PlayerSummary(
        seat=0, decisions=n, exact_decisions=n, exact_loss=0, estimated_loss=0.0,
        inaccuracies=n, mistakes=n, blunders=n, accuracy=None,
    )  # fmt: skip
    words.use(lang)
    try:
        line = player_line(summary, "Ann")
    finally:
        words.use("en")
    assert line.endswith("; " + wanted), line


def test_the_review_speaks_in_whole_points_without_codes_or_plus_minus(french: None) -> None:
    line = decision_line(_decision(), "Ann")
    assert "environ 16 points de plus (estimation)" in line  # 15.5 ± 1.25: about 16
    assert "±" not in line and "sampling" not in line and "QS" not in line
    unsure = decision_line(_decision(loss=2.0, stderr_loss=1.5), "Ann")
    assert "peut-être 2 points" in unsure  # within its uncertainty: said so
    exact = decision_line(_decision(exact=True, view="ending", loss=15.0), "Ann")
    assert "mieux valait A♠, 15 points de plus (compte exact)" in exact


def test_the_french_review_says_vous_avez_joue_and_one_point_in_the_singular(
    french: None,
) -> None:
    one = decision_line(_decision(exact=True, view="ending", loss=1.0), "Vous")
    assert one.startswith("Pli 3, vous avez joué D♠") and "mieux valait A♠, 1 point de plus" in one
    assert decision_line(_decision(), "Ann").startswith("Pli 3, Ann a joué D♠")
    summary = summarise([_decision(exact=True, view="ending", loss=1.0)], 0)
    assert "1 point perdu" in player_line(summary, "Vous")


@pytest.mark.parametrize(
    ("played", "best", "french", "english"),
    [
        ("draw", ("dix",), "vous avez pioché (imprécision)\u00a0: mieux valait échanger le sept,",
         "you drew (inaccuracy): exchanging the seven was worth"),
        ("dix", ("draw",), "vous avez échangé le sept (imprécision)\u00a0: mieux valait piocher,",
         "you exchanged the seven (inaccuracy): drawing was worth"),
        ("meld 4A", ("KH", "TH", "QS"),
         "vous avez annoncé quatre as (imprécision)\u00a0: mieux valait R♥, 10♥ ou D♠,",
         "you declared four aces (inaccuracy): K♥, 10♥ or Q♠ was worth"),
    ],
)  # fmt: skip
def test_the_review_names_a_draw_an_exchange_and_a_meld_with_a_verb_and_lists_choices(
    played: str, best: tuple[str, ...], french: str, english: str
) -> None:
    decision = _decision(played=parse_action(played), best=tuple(map(parse_action, best)))
    trump = suit_of(parse_action("AH"))
    assert english in decision_line(decision, "You", trump, CLASSIC)
    words.use("fr")
    try:
        line = decision_line(decision, "Vous", trump, CLASSIC)
    finally:
        words.use("en")
    assert french in line, line
    assert "prendre la retourne" not in line and " ou R♥ ou " not in line


def test_the_review_lists_losses_beyond_its_own_noise_and_counts_the_others() -> None:
    from marjolet.tui.review import listed

    marked = _decision()  # about 16 points, an inaccuracy
    noise = _decision(loss=1.0, stderr_loss=1.5, value_played=9.0)  # perhaps 1 point
    exact = _decision(exact=True, view="ending", loss=1.0, value_played=9.0)
    kept = _decision(loss=0.0, value_played=10.0)
    assert listed([marked, noise, exact, kept]) == ([marked, exact], 1)
    assert words.tr("tui.review_small", n=1).startswith("One other decision perhaps")


def test_the_deal_summary_and_its_review_screen_speak_french(tmp_path: Path, french: None) -> None:
    from marjolet.record import Record
    from marjolet.tui.review import DealReviewScreen
    from marjolet.tui.summary import DealSummaryScreen

    session = meld_session(tmp_path)
    app = MarjoletApp(session, pace=0)
    deal = session.match.deal
    assert deal is not None

    async def main() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await settle(app, pilot)
            summary = DealSummaryScreen(
                deal_number=1,
                names=session.names,
                breakdowns=(deal.breakdown(0), deal.breakdown(1)),
                totals=(0, 0),
                target=500,
                winner=None,
            )
            app.push_screen(summary)
            await pilot.pause()
            text = screen_text(app)
            assert "r\u00a0: analyser cette donne" in text and "review" not in text
            assert "Analyser" in {b.binding.description for b in app.active_bindings.values()}
            review = DealReviewScreen(Record.from_match(session.match), 0, session.names, 0.01)
            app.push_screen(review)
            await pilot.pause()
            text = screen_text(app)
            assert "Analyse de la donne 1" in text and "Échap\u00a0: retour au bilan" in text
            assert "Retour" in {b.binding.description for b in app.active_bindings.values()}
            end = time.monotonic() + 30
            while review.lines is None and time.monotonic() < end:
                await pilot.pause(0.1)
            assert review.lines is not None
            assert not any("decisions" in line or "No review" in line for line in review.lines)

    asyncio.run(main())


def test_the_terminal_review_tells_its_progress_decision_by_decision() -> None:
    from marjolet.record import Record
    from marjolet.tui.review import review_lines

    match = Match(CLASSIC, first_dealer=1, players=("Ann", "Bob"))
    match.start_deal(deck_for("AS 7S KH QH 8C 9C", "7D 8D 9D JD QD KD", "TS", "8S 9S"))
    for _ in range(12):  # a few tricks of phase 1, the first legal action each time
        assert match.deal is not None
        match.play(match.deal.legal_actions()[0])
    told: list[tuple[int, int]] = []
    review_lines(Record.from_match(match), 0, ["Ann", "Bob"], 0.01, None,
                 lambda done, total: told.append((done, total)))  # fmt: skip
    assert told and told[-1][0] == told[-1][1]  # up to the last decision
    assert [done for done, _ in told] == sorted({done for done, _ in told})
    assert words.tr("tui.review_progress", done=3, total=9) == "3 of 9 decisions"


def test_a_tie_at_the_target_says_that_another_deal_decides(french: None) -> None:
    from marjolet.tui.summary import standing

    assert standing((510, 510), 500, "Ann") == (  # R22
        "Partie en 500\u00a0: égalité à 500 points ou plus\u00a0: "
        "une donne de plus vous départagera."
    )
    assert standing((490, 490), 500, "Ann") == "Partie en 500\u00a0: égalité."
    assert standing((300, 420), 500, "Ann") == "Partie en 500\u00a0: Ann mène de 120."


def test_the_terminal_writes_scores_and_targets_of_1000_and_more_with_a_thousands_space(
    french: None,
) -> None:
    """« partie en 1 000 », « 1 040 » on the score board and the deal's end,
    as the rule book writes them (the terminal's unbreakable space)."""
    from rich.console import Console

    from marjolet.tui.reports import replay_text
    from marjolet.tui.summary import standing
    from marjolet.tui.widgets import score_table

    assert standing((1040, 1040), 1000, "Ann") == (
        "Partie en 1\u00a0000\u00a0: égalité à 1\u00a0000 points ou plus\u00a0: "
        "une donne de plus vous départagera."
    )
    lead = standing((980, 2100), 2000, "Ann")
    assert lead == "Partie en 2\u00a0000\u00a0: Ann mène de 1\u00a0120."
    console = Console(width=60, record=True)
    console.print(score_table(["Ann", "Bob"], (3, 2), (1200, 20), (1040, 980)))
    board = console.export_text()
    assert "1\u00a0200" in board and "1\u00a0040" in board and "980" in board
    assert "1200" not in board and "1040" not in board
    played = record.loads("format marjolet-record/1\nrules classic target=1000\nfirst_dealer 0\n")
    told = replay_text(played, record.replay(played))  # marjolet replay's rules line
    assert told.startswith("Règle\u00a0: classique, partie en 1\u00a0000\n")
    words.use("en")  # English keeps its digits together, as its rule book does
    assert standing((980, 2100), 2000, "Ann") == "Match to 2000: Ann leads by 1120."
    assert "1000" in replay_text(played, record.replay(played))


def test_the_hint_and_its_runner_up_read_in_french(french: None) -> None:
    from marjolet.actions import MELD_BASE
    from marjolet.melds import MELD_INDEX
    from marjolet.tui.hint import Hint

    h = Hint(parse_action("QS"), "pimc", 12.4, False, (MELD_BASE + MELD_INDEX["KQH"], 8.0),
             trump=0, rules=CLASSIC)  # fmt: skip
    assert h.text() == (
        "Conseil\u00a0: jouer D♠. Vous devriez finir cette donne environ 12 points devant\u00a0; "
        "annoncer R♥-D♥ à la place\u00a0: environ 8 points devant."
    )
    tie = Hint(parse_action("QS"), "pimc", -60.2, False, (parse_action("JS"), -59.9))
    assert tie.text() == (  # a runner-up as good, said so rather than "-60 ; V♠ : -60"
        "Conseil\u00a0: jouer D♠. Vous devriez finir cette donne environ 60 points derrière\u00a0; "
        "jouer V♠ à la place\u00a0: autant."
    )


def test_resuming_in_french_a_match_started_in_english_uses_the_french_default_name(
    tmp_path: Path,
) -> None:
    path = tmp_path / "g.json"
    GameSession.new(CLASSIC, opponent="random", seed=1, save_path=path)  # in English: "You"
    words.use("fr")
    try:
        resumed = GameSession.resume(path)
        named = tmp_path / "ann.json"
        GameSession.new(CLASSIC, opponent="random", seed=1, name="Ann", save_path=named)
        kept = GameSession.resume(named)
    finally:
        words.use("en")
    assert resumed.names[0] == "Vous"
    assert record.load(path).players == ("You", "random")  # the record keeps what was written
    assert kept.names[0] == "Ann"  # a chosen name is never translated


@pytest.mark.parametrize(
    ("jack_queen", "suit", "wanted"),
    [
        ("trump-jack", 0, "marjolet"),  # the trump jack and a plain queen
        ("trump-jack", 3, "marjolet d’atout"),
        ("same-suit", 0, "valet-dame"),  # a plain suit's pair holds no marjolet (R11)
        ("same-suit", 3, "marjolet d’atout"),
    ],
)
def test_a_jack_queen_pair_is_a_marjolet_in_french_only_when_it_holds_the_trump_jack(
    jack_queen: str, suit: int, wanted: str, french: None
) -> None:
    rules = CLASSIC.replace(jack_queen=jack_queen)
    assert describe.meld_kind(JACK_QUEEN_BASE + suit, 3, rules) == wanted  # spades trumps


def test_a_match_the_opponent_forfeited_is_saved_as_over_and_cannot_be_resumed(
    tmp_path: Path,
) -> None:
    session = bot_leads(tmp_path, FaultyBot())
    assert run_plain(session, io.StringIO(""), io.StringIO()) == 0
    path = session.save_path
    assert path is not None
    saved = record.load(path)
    assert [c.text for c in saved.comments] == ["forfeit: the bot timed out after 5 s"]
    with pytest.raises(RecordError, match=r"the match is over \(the opponent's program failed"):
        GameSession.resume(path)


def test_a_failed_review_shows_a_sentence_and_logs_the_python_error(
    tmp_path: Path, french: None, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """The review's exception is for the log: the screen said "Pas d’analyse :
    ValueError text" in English before."""
    from marjolet.record import Record
    from marjolet.tui import review as review_module
    from marjolet.tui.review import DealReviewScreen

    def broken(*args: object, **kwargs: object) -> list[str]:
        raise ValueError("internal: no such array index")

    monkeypatch.setattr(review_module, "review_lines", broken)
    session = meld_session(tmp_path)
    app = MarjoletApp(session, pace=0)

    async def main() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await settle(app, pilot)
            screen = DealReviewScreen(Record.from_match(session.match), 0, session.names, 0.01)
            app.push_screen(screen)
            end = time.monotonic() + 30
            while screen.lines is None and time.monotonic() < end:
                await pilot.pause(0.1)
            assert screen.lines == [words.tr("tui.review_failed")]
            assert "internal" not in screen_text(app) and "ValueError" not in screen_text(app)

    with caplog.at_level("ERROR", logger="marjolet.tui"):
        asyncio.run(main())
    logged = [r.exc_info[1] for r in caplog.records if r.exc_info]
    assert any("no such array index" in str(exc) for exc in logged)
    assert words.tr("tui.review_failed").startswith("Pas d’analyse\u00a0: ")


def test_a_move_the_engine_refuses_is_told_in_french_from_its_code_never_in_english(
    tmp_path: Path, french: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``session.play`` raised the engine's English ("R9: 'draw' closes a meld
    window...") and the table showed it as it was."""
    from marjolet.actions import DRAW
    from marjolet.errors import MarjoletError

    session = meld_session(tmp_path)
    app = MarjoletApp(session, pace=0)

    async def main() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await settle(app, pilot)
            assert session.human_to_move and not session.observation().in_window
            app.play_human(DRAW)  # no window open: refused by the engine (no_window)
            assert app.note == Note(words.tr("tui.why_no_window"), problem=True)
            assert "R9" not in app.note.text and "draw" not in app.note.text

            def broken(action: int, seat: int | None = None) -> list[str]:
                raise MarjoletError("something went wrong in English")

            monkeypatch.setattr(session, "play", broken)
            app.play_human(session.legal()[0])
            assert app.note == Note(words.tr("tui.move_refused"), problem=True)

    asyncio.run(main())
