"""The ``marjolet`` command of the rules-engine issue: replay, convert, rules,
selfplay, play (plain, through a pipe) and bench."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

from cli_support import run_cli
from marjolet import kernel
from marjolet.cli import main
from marjolet.record import load
from marjolet.rules import DEAL_PATTERNS, JACK_QUEEN_MODES
from test_records import EXAMPLE_FILES


@pytest.mark.parametrize("path", EXAMPLE_FILES, ids=lambda p: p.stem)
def test_replay_json_prints_the_expected_result_and_exit_status(
    path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    expected = json.loads(path.with_name(path.stem + ".expected.json").read_text())
    status = main(["replay", str(path), "--json"])
    got = json.loads(capsys.readouterr().out)
    if "error" in expected:
        assert status == 2
        assert (got["error"]["deal"], got["error"]["action"]) == (
            expected["error"]["deal"],
            expected["error"]["action"],
        )
    else:
        assert status == 0
        assert got == expected


def test_replay_exits_2_with_one_line_for_a_missing_file() -> None:
    proc = run_cli("replay", "/nonexistent/game.json")
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "game.json" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_a_record_read_from_standard_input_is_named_so() -> None:
    proc = run_cli("replay", "-", stdin="first_dealer 0\ndeal 0\n1. TC 7D\n")
    assert proc.returncode == 2
    assert proc.stderr.startswith(
        "marjolet: error: standard input: this file is not a valid game (line 3, deal 1): "
        "deal 1 has no “deck” line"
    )


def test_replay_table_shows_each_deal_and_the_winner(capsys: pytest.CaptureFixture[str]) -> None:
    path = next(p for p in EXAMPLE_FILES if p.name.startswith("L004"))
    assert main(["replay", str(path), "--lang", "en"]) == 0
    out = capsys.readouterr().out
    assert out.rstrip().endswith("won the match. 640\u00a0–\u00a0520")
    assert "\nDeal 1. Player 1 deals; trumps are ♥ hearts (indicator 7♥).\n" in out
    assert out.count("\nDeal ") == 6 and "\nDeal 6. " in out  # each deal, from 1


def test_replay_names_the_winner_by_seat_when_both_players_bear_one_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "m.json"
    assert main(["selfplay", "--seed", "3", "--out", str(out)]) == 0  # random against random
    capsys.readouterr()
    assert main(["replay", str(out), "--lang", "en"]) == 0
    winner = record_winner(out)
    assert f"random (player {winner + 1}) won the match." in capsys.readouterr().out


def test_replay_speaks_the_players_words_in_their_language(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Deals counted from 1 and trumps by name, as the game announces a
    deal (``Donne 1. ... l’atout est ♣ trèfle``), not ``deal 0`` and ``C``;
    a French LANG or --lang fr speaks French; --json is unchanged."""
    from marjolet.match import Match
    from marjolet.record import Record, save
    from marjolet.rules import CLASSIC
    from marjolet.tui import words

    match = Match(CLASSIC, seed=4, players=("Vous", "Skilled"), first_dealer=0)
    match.start_deal()
    assert match.deal is not None
    while not match.deal.is_over:
        match.play(match.deal.legal_actions()[0])
    path = tmp_path / "game.json"
    save(Record.from_match(match), path)
    for name in ("LANGUAGE", "LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LANG", "fr_FR.UTF-8")
    assert main(["replay", str(path)]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0] == "Règle\u00a0: classique, partie en 500"
    assert lines[2].startswith("Donne 1. Vous donnez\u00a0; l’atout est ")
    assert lines[3].split() == ["points", "Vous", "Confirmé"]  # the level in French
    assert lines[-1].startswith("La partie n’est pas finie\u00a0: ")
    assert not re.search(r"\bdeal\b|\bdonne 0\b|\btrump\b|\bplayer\b|Skilled", out)
    assert words.lang() == "en"  # the command leaves the language as it was
    monkeypatch.setenv("LANG", "C")
    assert main(["replay", str(path), "--lang", "fr"]) == 0
    assert capsys.readouterr().out == out
    assert main(["replay", str(path)]) == 0
    english = capsys.readouterr().out.splitlines()
    assert english[2].startswith("Deal 1. You deal; trumps are ")
    assert main(["replay", str(path), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["deals"][0]["trump"] in "CDHS" and result["deals"][0]["dealer"] == 0


def record_winner(path: Path) -> int:
    from marjolet.record import replay

    result = replay(load(path))
    assert result.winner is not None
    return result.winner


def test_convert_round_trips_between_json_and_text(tmp_path: Path) -> None:
    src = next(p for p in EXAMPLE_FILES if p.name.startswith("L006"))
    text_file = tmp_path / "game.txt"
    json_file = tmp_path / "back.json"
    assert main(["convert", str(src), "--to", "text", "--out", str(text_file)]) == 0
    assert main(["convert", str(text_file), "--to", "json", "--out", str(json_file)]) == 0
    assert load(json_file) == load(src)


def test_rules_prints_the_profile_and_overrides(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules", "--profile", "encyclopedia", "--json"]) == 0
    rules = json.loads(capsys.readouterr().out)
    assert rules["all_tricks_bonus"] == 40 and rules["dix_on_play"] is False
    assert main(["rules", "--target", "1000", "--jack-queen", "same-suit", "--lang", "en"]) == 0
    out = capsys.readouterr().out
    assert "match target — 1000" in out and "jack and queen of the same suit" in out


def test_rules_prints_the_settings_in_the_players_language(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A French LANG (or --lang fr) gets the settings table in French, as
    the rule book is: no English setting names such as ``profile classic``."""
    for name in ("LANGUAGE", "LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LANG", "fr_FR.UTF-8")
    assert main(["rules", "--jack-queen", "same-suit"]) == 0
    out = capsys.readouterr().out
    assert "règle — classique" in out and "valet et dame de la même couleur" in out
    assert not re.search(r"profile|classic|deal_pattern|same-suit|true|false", out)
    monkeypatch.setenv("LANG", "C")
    assert main(["rules", "--lang", "fr"]) == 0
    assert "partie en — 500" in capsys.readouterr().out
    assert main(["rules"]) == 0
    out = capsys.readouterr().out
    assert "match target — 500" in out and "deal_pattern" not in out


@pytest.mark.parametrize("pattern", DEAL_PATTERNS)
@pytest.mark.parametrize("mode", JACK_QUEEN_MODES)
def test_rules_flags_accept_every_deal_pattern_and_jack_queen_mode_of_the_rules(
    pattern: tuple[int, ...], mode: str, capsys: pytest.CaptureFixture[str]
) -> None:
    text = "-".join(str(n) for n in pattern)
    assert main(["rules", "--deal-pattern", text, "--jack-queen", mode, "--json"]) == 0
    rules = json.loads(capsys.readouterr().out)
    assert (tuple(rules["deal_pattern"]), rules["jack_queen"]) == (pattern, mode)


@pytest.mark.parametrize(
    ("lang", "wanted"),
    [
        ("fr", ["Les règles du marjolet", "une seule annonce est permise par pli gagné",
                "quatre as", "mariage d’atout"]),
        ("en", ["The rules of marjolet", "one declaration is allowed per trick won",
                "four aces", "marriage in trumps"]),
    ],
)  # fmt: skip
def test_rules_book_prints_the_rule_book_of_these_settings_in_either_language(
    lang: str, wanted: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["rules", "--book", "--lang", lang, "--one-meld-per-window"]) == 0
    out = capsys.readouterr().out
    for text in wanted:
        assert text.casefold() in " ".join(out.split()).casefold(), text
    assert max(len(line) for line in out.splitlines()) <= 78
    assert "\\" not in out and "R1" not in out  # no Markdown escapes, no rule ids


def test_rules_book_and_json_are_one_or_the_other() -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["rules", "--book", "--json"])
    assert exit_.value.code == 2


@pytest.mark.parametrize(
    "args",
    [
        ["rules", "--profile", "poker"],
        ["rules", "--target", "0"],
        ["replay"],
        ["nosuch"],
        ["bench", "--rounds", "0"],
    ],
)
def test_bad_arguments_exit_2_with_one_line(args: list[str]) -> None:
    proc = run_cli(*args)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert proc.stderr.strip().splitlines()[-1].startswith(("marjolet", "usage"))


def test_selfplay_writes_a_valid_reproducible_record(tmp_path: Path) -> None:
    a, b = tmp_path / "a.json", tmp_path / "b.txt"
    assert main(["selfplay", "--seed", "9", "--out", str(a)]) == 0
    assert main(["selfplay", "--seed", "9", "--out", str(b)]) == 0
    assert load(a) == load(b)
    assert main(["replay", str(a), "--json"]) == 0


ILLEGAL_AT_THIRD_ACT = """
import json, sys
acts = 0
for line in sys.stdin:
    message = json.loads(line)
    if message["cmd"] == "hello":
        print(json.dumps({"name": "third", "protocol": "marjolet-bot/1"}), flush=True)
    elif message["cmd"] == "act":
        acts += 1
        legal = message["legal"]
        print(json.dumps({"action": "banana" if acts == 3 else legal[0]}), flush=True)
    elif message["cmd"] == "quit":
        break
"""


def test_selfplay_with_a_faulty_bot_names_it_and_where_and_keeps_the_record(
    tmp_path: Path,
) -> None:
    bot = tmp_path / "third.py"
    bot.write_text(f"#!{sys.executable}\n" + ILLEGAL_AT_THIRD_ACT)
    bot.chmod(0o755)
    out = tmp_path / "m.json"
    proc = run_cli("selfplay", "--seed", "5", "--out", str(out), "--bots", "random", f"exec:{bot}")
    assert proc.returncode == 1, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert re.match(
        rf"marjolet: bot 'exec:{re.escape(str(bot))}' \(seat 1\) forfeited in deal 0, "
        r"action \d+ \(trick \d+\): .*banana.*; the record up to there is in ",
        lines[0],
    ), lines[0]
    record = load(out)  # the moves before the fault, replayable
    assert len(record.deals) == 1 and record.deals[0].actions


def test_selfplay_to_an_unwritable_place_exits_2(tmp_path: Path) -> None:
    proc = run_cli("selfplay", "--seed", "1", "--out", str(tmp_path / "no" / "such" / "dir.json"))
    assert proc.returncode == 2 and "cannot write" in proc.stderr


def test_play_against_a_level_names_it_and_records_the_level_by_its_name(tmp_path: Path) -> None:
    save = tmp_path / "game.json"
    proc = run_cli(
        "play", "--opponent", "level:amateur", "--seed", "4", "--save", str(save),
        stdin="1\n" * 600,
    )
    assert proc.returncode == 0, proc.stderr
    assert "Amateur" in proc.stdout and "level:" not in proc.stdout
    record = load(save)
    assert record.players is not None and record.players[1] == "Amateur"  # as the web records it


def test_play_through_a_pipe_finishes_a_match_and_saves_it(tmp_path: Path) -> None:
    save = tmp_path / "game.json"
    proc = run_cli(
        "play", "--opponent", "random", "--seed", "4", "--save", str(save), stdin="1\n" * 600
    )
    assert proc.returncode == 0, proc.stderr
    assert "Match over" in proc.stdout
    record = load(save)
    assert record.players is not None and record.players[1] == "random"


def test_play_accepts_action_text_and_rejects_nonsense(tmp_path: Path) -> None:
    save = tmp_path / "game.json"
    proc = run_cli(
        "play",
        "--opponent",
        "random",
        "--seed",
        "4",
        "--save",
        str(save),
        stdin="zz\n99\nmeld 4J\nhelp\n1\nquit\n",
    )
    assert proc.returncode == 0
    assert "'zz' is not an action" in proc.stdout  # in the player's words, no record code
    assert "no action 99" in proc.stdout
    assert "four jacks score nothing: they are not a meld" in proc.stdout
    assert "R11" not in proc.stdout  # no rule id on a player's screen
    lines = proc.stdout.splitlines()
    quit_at = next(i for i, line in enumerate(lines) if line.startswith("  quit "))
    help_quit = " ".join(lines[quit_at : quit_at + 2])  # the command may start a line
    assert f"--resume {save}" in help_quit  # the help names the file this game is saved to
    assert "saved to" in proc.stdout
    assert len(load(save).deals[0].actions) >= 1


def test_play_lists_window_choices_in_words_and_tells_who_took_the_indicator(
    tmp_path: Path,
) -> None:
    proc = run_cli(
        "play", "--opponent", "random", "--seed", "5", "--save", str(tmp_path / "g.json"),
        stdin="1\n" * 600,
    )  # fmt: skip
    assert proc.returncode == 0
    menu = [line for line in proc.stdout.splitlines() if re.match(r"^ +\d+\) ", line)]
    window = [line for line in menu if "+" in line or "draw:" in line]
    assert window, "no meld window was met"
    assert not [line for line in menu if re.search(r"\) (meld [0-9A-Z]+|dix|draw) ", line)]
    # trick 10 (R15): the winner draws the last hidden card, the loser takes the
    # indicator and scores 10 for the last card, said whichever side the player is
    took = re.findall(r"(You drew \S+; \w+ took the (?:indicator \S+|\S+, exchanged for "
                      r"the indicator): \+10\.|You (?:drew the indicator \S+|took the \S+, "
                      r"exchanged for the indicator): \+10 for the last card\.)", proc.stdout)
    assert took and len(took) == proc.stdout.count("The stock is empty: tricks 11-16 are strict")
    # an exchanged seven lies where the indicator was, and is told as what it is
    assert "You took the 7♠, exchanged for the indicator: +10 for the last card." in took


def test_play_says_why_it_draws_after_the_one_meld_a_window_allows(tmp_path: Path) -> None:
    args = ("play", "--opponent", "random", "--seed", "4", "--save", str(tmp_path / "g.json"))
    one = run_cli(*args, "--one-meld-per-window", stdin="1\n" * 600)
    assert one.returncode == 0 and "(one meld per trick won under these rules" in one.stdout
    free = run_cli(*args, "--force", stdin="1\n" * 600)  # classic: every meld at once
    assert free.returncode == 0 and "one meld per trick won" not in free.stdout


def test_play_resume_continues_the_saved_match(tmp_path: Path) -> None:
    save = tmp_path / "game.txt"
    run_cli(
        "play", "--opponent", "random", "--seed", "4", "--save", str(save), stdin="1\n1\n1\nquit\n"
    )
    before = load(save)
    proc = run_cli("play", "--resume", str(save), stdin="1\n" * 600)
    assert proc.returncode == 0
    after = load(save)
    assert after.deals[0].actions[: len(before.deals[0].actions)] == before.deals[0].actions
    assert len(after.deals) > len(before.deals) or len(after.deals[0].actions) > len(
        before.deals[0].actions
    )


def test_bench_json_reports_the_four_figures(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "--json", "--rounds", "1", "--deals", "20"]) == 0
    figures = json.loads(capsys.readouterr().out)
    kernel_figures = figures.pop("kernel")
    assert set(figures) == {"deals_per_s", "actions_per_s", "copy_us", "push_pop_us"}
    assert all(v > 0 for v in figures.values())
    if not kernel.available():
        assert kernel_figures is None
        return
    assert set(kernel_figures) == {"actions_per_s", "solve_median_us", "pimc_worlds_per_s"}
    assert kernel_figures["actions_per_s"] > 0 and kernel_figures["solve_median_us"] > 0


def test_bench_and_bots_say_which_engine_is_in_use(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "--rounds", "1", "--deals", "10"]) == 0
    assert f"engine in use: {kernel.description()}" in capsys.readouterr().out
    assert main(["bots"]) == 0
    assert f"Engine: {kernel.description()}" in capsys.readouterr().out
    assert main(["bots", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["kernel"] is kernel.available()


def test_rules_json_is_the_same_in_every_language(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules", "--json"]) == 0
    english = capsys.readouterr().out
    assert main(["rules", "--lang", "fr", "--json"]) == 0
    assert capsys.readouterr().out == english and json.loads(english)["profile"] == "classic"


def test_replay_says_equal_totals_past_the_target_play_another_deal(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """R22: 510-510 after a finished deal is not "not over" like 300-200:
    another deal is played until the totals differ."""
    examples = Path(__file__).parent / "examples"
    assert main(["replay", str(examples / "L005-hand-tie-510-open.json"), "--lang", "fr"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == (
        "Égalité à 510–510, le but de 500 atteint\u00a0: une autre donne se joue pour départager."
    )
    assert main(["replay", str(examples / "L005-hand-tie-510-open.json"), "--lang", "en"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == (
        "Tied at 510–510 with the target of 500 reached: "
        "another deal is played to decide the match."
    )
    assert main(["replay", str(examples / "L006-hand-seed05-partial.json"), "--lang", "en"]) == 0
    assert capsys.readouterr().out.splitlines()[-1].startswith("The match is not over: ")
