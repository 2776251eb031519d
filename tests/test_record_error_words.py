"""``marjolet replay`` and ``marjolet review`` tell a player what is wrong in
a bad record in the player's words and language: one line naming the file,
the deal and trick counted from 1 and the player by the record's name; no
rule id, no record code; ``--json`` keeps the object for programs as it was
(docs/replay.md, "A bad record")."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from cli_support import run_main as run
from marjolet.bots import make_bot
from marjolet.cards import CARD_NAMES
from marjolet.cli import main
from marjolet.match import Match
from marjolet.record import Record
from marjolet.turns import play_deal

NB = "\u00a0"


@pytest.fixture
def selfplay_text(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    """The record of ``marjolet selfplay --seed 3``, in the text form."""
    path = tmp_path / "g.txt"
    assert run(["selfplay", "--seed", "3", "--out", str(path)], capsys)[0] == 0
    return path.read_text()


def edited(tmp_path: Path, text: str, old: str, new: str, name: str) -> str:
    assert old in text, "the self-play record changed: pick another line"
    path = tmp_path / name
    path.write_text(text.replace(old, new, 1))
    return str(path)


def not_held(tmp_path: Path, selfplay_text: str) -> str:
    """Trick 2's second card replaced by a card the player does not hold."""
    return edited(tmp_path, selfplay_text, "\n   2. 7H 9C draw", "\n   2. 7H KD draw", "g2.txt")


def no_rule_words(line: str, path: str) -> None:
    line = line.replace(path, "FILE")
    for code in ("R7", "R16", "KD", "JH", "7C", "not_held", "must_overtake", "action 4"):
        assert code not in line, line


@pytest.mark.parametrize("how", ["--lang", "LANG"])
def test_replay_of_a_card_not_held_is_told_in_french_with_deal_trick_and_name(
    tmp_path: Path,
    selfplay_text: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    how: str,
) -> None:
    path = not_held(tmp_path, selfplay_text)
    flags = ["--lang", "fr"] if how == "--lang" else []
    if how == "LANG":
        monkeypatch.setenv("LANG", "fr_FR.UTF-8")
        monkeypatch.delenv("LC_ALL", raising=False)
        monkeypatch.delenv("LC_MESSAGES", raising=False)
        monkeypatch.delenv("LANGUAGE", raising=False)
    status, out, err = run(["replay", path, *flags], capsys)
    assert status == 2 and out == ""
    assert err == (
        f"marjolet{NB}: erreur{NB}: {path}{NB}: ce fichier n’est pas une partie valable "
        f"(ligne 8, donne 1, pli 2){NB}: random (joueur 1) joue R♦ sans l’avoir en main.\n"
    )


def test_replay_of_a_card_not_held_is_told_in_english_without_rule_id(
    tmp_path: Path, selfplay_text: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = not_held(tmp_path, selfplay_text)
    status, _, err = run(["replay", path, "--lang", "en"], capsys)
    assert status == 2
    assert err == (
        f"marjolet: error: {path}: this file is not a valid game (line 8, deal 1, trick 2): "
        "random (player 1) plays K♦, which is not in their hand.\n"
    )
    no_rule_words(err, path)


def test_the_json_error_of_a_bad_record_keeps_its_codes_for_programs(
    tmp_path: Path, selfplay_text: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = not_held(tmp_path, selfplay_text)
    for command in ("replay", "review"):
        status, out, err = run([command, path, "--json", "--lang", "fr"], capsys)
        assert status == 2
        assert json.loads(out) == {
            "error": {"deal": 0, "action": 4, "message": "R7: player 0 does not hold KD"}
        }
        assert err.startswith(f"marjolet{NB}: erreur{NB}: ") and len(err.splitlines()) == 1


@pytest.mark.parametrize(
    ("lang", "said"),
    [
        ("fr", f"(ligne 18, donne 1, pli 12){NB}: random (joueur 2) joue 7♣ sur V♥ alors "
               f"qu’il faut fournir et monter{NB}; il fallait jouer A♥."),
        ("en", "(line 18, deal 1, trick 12): random (player 2) plays 7♣ on J♥ but must follow "
               "suit with a higher card; they could play A♥."),
    ],
)  # fmt: skip
def test_review_of_a_card_the_rules_forbid_names_the_card_the_rule_wants(
    tmp_path: Path, selfplay_text: str, capsys: pytest.CaptureFixture[str], lang: str, said: str
) -> None:
    path = edited(tmp_path, selfplay_text, "\n  12. JH AH", "\n  12. JH 7C", "g3.txt")
    status, out, err = run(["review", path, "--lang", lang], capsys)
    assert status == 2 and out == ""
    assert err.endswith(said + "\n") and len(err.splitlines()) == 1, err
    no_rule_words(err, path)


def test_a_refused_move_names_the_player_as_the_record_names_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for players, named in ((["Alice", "Bob"], "Alice joue"), (["You", "Bob"], "Joueur 1 joue")):
        match = Match(seed=4, players=players)
        match.start_deal()
        record = Record.from_match(match)
        deal = record.deals[0]
        first = match.deal.legal_actions()[0] if match.deal else 0
        # the leader plays a card, the follower "plays" it again: not in their hand
        bad = Record(record.rules, record.first_dealer, record.players,
                     (type(deal)(deal.deck, (first, first)),), ())  # fmt: skip
        path = tmp_path / "named.json"
        path.write_text(bad.dumps())
        status, _, err = run(["replay", str(path), "--lang", "fr"], capsys)
        assert status == 2 and f"(donne 1, pli 1){NB}: {named} " in err, err
        assert "Vous" not in err and "joueur 0" not in err


#: What a player is told of a file that holds no game: text that is none,
#: or JSON of another shape (not "neither JSON nor the text notation").
NO_GAME = {
    "fr": f"ce fichier n’est pas une partie valable{NB}: on n’y lit aucune partie de marjolet "
          "(ni en JSON, ni en notation texte).",
    "en": "this file is not a valid game: no marjolet game can be read in it "
          "(neither JSON nor the text notation).",
}  # fmt: skip
JSON_NO_GAME = {
    "en": "this file is not a valid game: it holds JSON, but no marjolet game "
          "(a game is a JSON object with a record's fields).",
    "fr": f"ce fichier n’est pas une partie valable{NB}: il contient du JSON, mais aucune "
          "partie de marjolet (une partie est un objet JSON avec les champs d’un "
          "enregistrement).",
}  # fmt: skip


@pytest.mark.parametrize(
    ("text", "command", "lang", "said"),
    [
        ("garbage\n", "review", "fr", NO_GAME["fr"]),
        ("garbage\n", "replay", "en", NO_GAME["en"]),
        *((text, "replay", lang, JSON_NO_GAME[lang])
          for text in ("[1, 2]", '{"nothing": 3}', "42", '"a game"') for lang in ("en", "fr")),
    ],
)  # fmt: skip
def test_a_file_that_is_no_record_is_said_so_in_the_players_language(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, command: str, lang: str,
    said: str,
) -> None:
    path = tmp_path / "bad.rec"
    path.write_text(text)
    status, _, err = run([command, str(path), "--lang", lang], capsys)
    assert status == 2 and err.endswith(f"{path}{NB if lang == 'fr' else ''}: {said}\n"), err
    assert "garbage" not in err and "not a marjolet record" not in err


@pytest.mark.parametrize("command", ["replay", "review"])
def test_a_missing_file_or_a_folder_cannot_be_read_in_french(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    missing = tmp_path / "absent.txt"
    status, _, err = run([command, str(missing), "--lang", "fr"], capsys)
    assert status == 2
    assert err == f"marjolet{NB}: erreur{NB}: impossible de lire {missing}{NB}: ce fichier " \
        "n’existe pas.\n"
    status, _, err = run([command, str(tmp_path), "--lang", "fr"], capsys)
    assert status == 2 and err.endswith("c’est un dossier, pas un fichier.\n"), err


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_the_error_line_goes_on_in_small_letters_after_each_colon(
    tmp_path: Path, selfplay_text: str, capsys: pytest.CaptureFixture[str], lang: str
) -> None:
    """As every other error of the commands (``marjolet: error: cannot
    listen on ...``): « marjolet : erreur : g.txt : ce fichier n’est pas une
    partie valable », not « : Ce fichier »."""
    files = {
        "missing": tmp_path / "absent.txt",
        "not-a-record": tmp_path / "garbage.txt",
        "bom": tmp_path / "bom.txt",
        "utf16": tmp_path / "utf16.txt",
        "refused": Path(not_held(tmp_path, selfplay_text)),
    }
    files["not-a-record"].write_text("garbage\n")
    files["bom"].write_bytes(b"\xef\xbb\xbf" + selfplay_text.encode())
    files["utf16"].write_bytes(selfplay_text.encode("utf-16"))
    for path in files.values():
        status, _, err = run(["replay", str(path), "--lang", lang], capsys)
        line = err.replace(str(path), "file")
        assert status == 2 and len(line.splitlines()) == 1, err
        after_colons = [after for after in line.split(":")[1:] if after.strip()]
        assert len(after_colons) >= 3, line
        for after in after_colons:
            assert not after.lstrip(f" {NB}")[:1].isupper(), line


def test_not_utf8_a_bad_action_and_a_short_deck_are_told_in_french(
    tmp_path: Path, selfplay_text: str, capsys: pytest.CaptureFixture[str]
) -> None:
    latin = tmp_path / "latin.txt"
    latin.write_bytes(selfplay_text.replace('"random"', '"Zoé"', 1).encode("latin-1"))
    bad_action = edited(tmp_path, selfplay_text, "\n   2. 7H 9C", "\n   2. 7H ZZ", "a.txt")
    deck_line = next(line for line in selfplay_text.splitlines() if line.startswith("deck "))
    short = edited(tmp_path, selfplay_text, deck_line, deck_line.rsplit(" ", 1)[0], "d.txt")
    said = {
        str(latin): f"ce fichier n’est pas du texte UTF-8{NB}: enregistrez la partie en UTF-8",
        bad_action: f"(ligne 8, donne 1, coup 5){NB}: «{NB}ZZ{NB}» n’est ni une carte ni un "
        "coup du jeu.",
        short: f"(ligne 6, donne 1){NB}: son paquet a 31 cartes et non 32{NB}; il manque 8♥.",
    }
    for path, words in said.items():
        status, _, err = run(["replay", path, "--lang", "fr"], capsys)
        assert status == 2 and words in err and len(err.splitlines()) == 1, err
        assert "R1" not in err and "R4" not in err and "offset" not in err


def test_an_action_or_a_deal_line_that_cannot_be_read_is_quoted_on_one_line_without_controls(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A JSON action string is anything, a text line nearly so: an escape
    sequence, a line break or thousands of letters went to the terminal as
    written, as the header's words never do (and to the replay page's
    upload error)."""
    action = "a\x1b[2J\nb" + "X" * 5000
    body = {"first_dealer": 0, "deals": [{"deck": list(CARD_NAMES), "actions": [action]}]}
    (tmp_path / "action.json").write_text(json.dumps(body))
    (tmp_path / "deal.txt").write_text("first_dealer 0\ndeal 0\x1b[2J" + "X" * 5000 + "\n")
    quoted = "a [2J b" + "X" * 32 + "…"  # 40 characters at most
    said = {
        "action.json": f"(donne 1, coup 1){NB}: «{NB}{quoted}{NB}» n’est ni une carte ni un "
        "coup du jeu.\n",
        "deal.txt": f"ligne devrait être «{NB}deal 0{NB}», pas «{NB}deal 0 [2J{'X' * 29}…{NB}».\n",
    }
    for name, words in said.items():
        status, _, err = run(["replay", str(tmp_path / name), "--lang", "fr"], capsys)
        assert status == 2 and len(err.splitlines()) == 1, err
        assert err.endswith(words), err


@pytest.mark.parametrize(
    ("lang", "said"),
    [
        (
            "fr",
            [
                f"(ligne 6, donne 1){NB}: son paquet contient deux fois 10♣.",
                f"(ligne 23, donne 1){NB}: la donne 1 n’est pas finie, alors qu’une autre "
                "donne la suit.",
                f"(ligne 23, donne 2){NB}: les donnes sont numérotées dans l’ordre à partir de "
                f"0{NB}: cette ligne devrait être «{NB}deal 1{NB}», pas «{NB}deal 2{NB}».",
            ],
        ),
        (
            "en",
            [
                "(line 6, deal 1): its deck holds 10♣ twice.",
                "(line 23, deal 1): deal 1 is not finished, yet another deal follows it.",
                "(line 23, deal 2): the deals are numbered in order from 0: this line should "
                "be “deal 1”, not “deal 2”.",
            ],
        ),
    ],
)
def test_a_repeated_card_an_unfinished_deal_and_a_misnumbered_deal_are_told_in_words(
    tmp_path: Path,
    selfplay_text: str,
    capsys: pytest.CaptureFixture[str],
    lang: str,
    said: list[str],
) -> None:
    """They were the library's English in the player's frame, a deal
    counted from 0 inside a sentence that counts from 1, and a repeated
    card not named at all."""
    deck_line = next(line for line in selfplay_text.splitlines() if line.startswith("deck "))
    paths = [
        edited(tmp_path, selfplay_text, deck_line, deck_line.replace(" KD ", " TC ", 1), "t.txt"),
        edited(tmp_path, selfplay_text, "\n  16. 8H TD\n", "\n", "u.txt"),
        edited(tmp_path, selfplay_text, "\ndeal 1\n", "\ndeal 2\n", "n.txt"),
    ]
    for path, words in zip(paths, said, strict=True):
        status, _, err = run(["replay", path, "--lang", lang], capsys)
        assert status == 2 and words in err and len(err.splitlines()) == 1, err
        assert "R4" not in err and "R22" not in err and "(in English)" not in err, err


HAND_TYPED = (
    "format marjolet-record/1\nrules classic\nfirst_dealer 0\ndeal 0\n"
    "deck " + " ".join(CARD_NAMES) + "\n"
)


@pytest.mark.parametrize(
    ("actions", "fr", "en"),
    [
        ("  1. 7C JC draw\n2 QC 8C draw\n",
         f"(ligne 7, donne 1, coup 4){NB}: «{NB}2{NB}» n’est pas un coup{NB}: le numéro d’un "
         f"pli s’écrit suivi d’un point («{NB}2.{NB}»).",
         "(line 7, deal 1, action 4): “2” is not a move: a trick's number is written with a "
         "dot after it (“2.”)."),
        ("  1. 7C JC meld\n  KQC\n",
         f"(ligne 6, donne 1, coup 3){NB}: «{NB}meld{NB}» n’est suivi d’aucune annonce{NB}: son "
         f"identifiant s’écrit sur la même ligne, comme «{NB}meld KQS{NB}».",
         "(line 6, deal 1, action 3): “meld” has no declaration after it: its id goes on the "
         "same line, like “meld KQS”."),
        ("  1. qs\n",
         f"(ligne 6, donne 1, coup 1){NB}: «{NB}qs{NB}» n’est pas une carte{NB}: les cartes "
         f"s’écrivent en majuscules, «{NB}QS{NB}».",
         "(line 6, deal 1, action 1): “qs” is not a card: cards are written in capitals, “QS”."),
        ("  1. RC\n",
         f"(ligne 6, donne 1, coup 1){NB}: «{NB}RC{NB}» n’est pas une carte{NB}: les rangs "
         "s’écrivent en lettres anglaises, K pour R (roi), et les couleurs C D H S (trèfle, "
         "carreau, cœur, pique).",
         "(line 6, deal 1, action 1): “RC” is not a card: ranks are written in English "
         "letters, K for R (king), and suits C D H S (clubs, diamonds, hearts, spades)."),
        ("  1. 7C D♥\n",
         f"(ligne 6, donne 1, coup 2){NB}: «{NB}D♥{NB}» n’est pas une carte{NB}: les rangs "
         "s’écrivent en lettres anglaises, Q pour D (dame), et les couleurs C D H S (trèfle, "
         "carreau, cœur, pique).",
         "(line 6, deal 1, action 2): “D♥” is not a card: ranks are written in English "
         "letters, Q for D (queen), and suits C D H S (clubs, diamonds, hearts, spades)."),
        ("  1. 7C JC draw\n  2. V♠\n",
         f"(ligne 7, donne 1, coup 4){NB}: «{NB}V♠{NB}» n’est pas une carte{NB}: les rangs "
         "s’écrivent en lettres anglaises, J pour V (valet), et les couleurs C D H S (trèfle, "
         "carreau, cœur, pique).",
         "(line 7, deal 1, action 4): “V♠” is not a card: ranks are written in English "
         "letters, J for V (jack), and suits C D H S (clubs, diamonds, hearts, spades)."),
        ("  1. 7C JC draw\n  2. 8C\n",
         f"(ligne 7, donne 1, pli 2){NB}: Joueur 1 joue 8♣ sans l’avoir en main.",
         "(line 7, deal 1, trick 2): Player 1 plays 8♣, which is not in their hand."),
        ("  1. 7C JC draw\n2) QC 8C draw\n",
         f"(ligne 7, donne 1, coup 4){NB}: «{NB}2){NB}» n’est pas un coup{NB}: le numéro d’un "
         f"pli s’écrit suivi d’un point («{NB}2.{NB}»).",
         "(line 7, deal 1, action 4): “2)” is not a move: a trick's number is written with a "
         "dot after it (“2.”)."),
        ("12: 7C JC draw\n",
         f"(ligne 6, donne 1, coup 1){NB}: «{NB}12:{NB}» n’est pas un coup{NB}: le numéro d’un "
         f"pli s’écrit suivi d’un point («{NB}12.{NB}»).",
         "(line 6, deal 1, action 1): “12:” is not a move: a trick's number is written with a "
         "dot after it (“12.”)."),
        ("  1. 7C JC Draw\n",
         f"(ligne 6, donne 1, coup 3){NB}: «{NB}Draw{NB}» n’est pas un mot de la notation{NB}: "
         f"ses mots s’écrivent en minuscules, «{NB}draw{NB}».",
         "(line 6, deal 1, action 3): “Draw” is not a word of the notation: its words are "
         "written in small letters, “draw”."),
        ("  1. 7C JC MELD KQC\n",
         f"(ligne 6, donne 1, coup 3){NB}: «{NB}MELD{NB}» n’est pas un mot de la notation{NB}: "
         f"ses mots s’écrivent en minuscules, «{NB}meld{NB}».",
         "(line 6, deal 1, action 3): “MELD” is not a word of the notation: its words are "
         "written in small letters, “meld”."),
        ("  1. 7C JC meld kqc\n",
         f"(ligne 6, donne 1, coup 3){NB}: «{NB}kqc{NB}» n’est pas un identifiant d’annonce{NB}: "
         f"il s’écrit en majuscules, «{NB}meld KQC{NB}».",
         "(line 6, deal 1, action 3): “kqc” is not a meld id: it is written in capitals, "
         "“meld KQC”."),
        ("  1. 7C JC draw\nDeal 1\n",
         f"(ligne 7, donne 2){NB}: «{NB}Deal{NB}» n’est pas un mot de la notation{NB}: "
         f"ses mots s’écrivent en minuscules, «{NB}deal{NB}».",
         "(line 7, deal 2): “Deal” is not a word of the notation: its words are "
         "written in small letters, “deal”."),
    ],
    ids=["trick-number-no-dot", "meld-id-next-line", "lower-case", "french-R", "french-D",
         "french-V", "card-not-held", "trick-number-parenthesis", "trick-number-colon",
         "draw-capitalised", "meld-in-capitals", "meld-id-lower-case", "deal-capitalised"],
)  # fmt: skip
def test_a_hand_typed_records_mistake_is_told_with_its_line_and_how_to_write_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], actions: str, fr: str, en: str
) -> None:
    path = tmp_path / "table.txt"
    path.write_text(HAND_TYPED + actions)
    for command, lang, said in (("replay", "fr", fr), ("review", "en", en)):
        status, _, err = run([command, str(path), "--lang", lang], capsys)
        assert status == 2 and err.endswith(f" {said}\n") and len(err.splitlines()) == 1, err
        assert "(en anglais)" not in err and "(in English)" not in err


@pytest.mark.parametrize(
    ("action", "fr", "en"),
    [
        ("Draw",
         f"(donne 1, coup 3){NB}: «{NB}Draw{NB}» n’est pas un mot de la notation{NB}: "
         f"ses mots s’écrivent en minuscules, «{NB}draw{NB}».",
         "(deal 1, action 3): “Draw” is not a word of the notation: its words are "
         "written in small letters, “draw”."),
        ("meld kqc",
         f"(donne 1, coup 3){NB}: «{NB}kqc{NB}» n’est pas un identifiant d’annonce{NB}: "
         f"il s’écrit en majuscules, «{NB}meld KQC{NB}».",
         "(deal 1, action 3): “kqc” is not a meld id: it is written in capitals, "
         "“meld KQC”."),
    ],
)  # fmt: skip
def test_a_json_records_action_in_the_wrong_letters_is_told_how_to_write_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], action: str, fr: str, en: str
) -> None:
    """The JSON form's ``"Draw"`` is told as the text form's, not as an
    unknown move."""
    path = tmp_path / "table.json"
    deck = list(CARD_NAMES)
    deal = {"deck": deck, "actions": ["7C", "JC", action]}
    path.write_text(json.dumps({"first_dealer": 0, "deals": [deal]}))
    for command, lang, said in (("replay", "fr", fr), ("review", "en", en)):
        status, _, err = run([command, str(path), "--lang", lang], capsys)
        assert status == 2 and err.endswith(f" {said}\n") and len(err.splitlines()) == 1, err


def test_a_header_keyword_in_capitals_is_told_with_its_line_in_french(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "head.txt"
    path.write_text(HAND_TYPED.replace("first_dealer 0", "First_Dealer 0", 1))
    status, _, err = run(["replay", str(path), "--lang", "fr"], capsys)
    assert status == 2 and err.endswith(
        f"(ligne 3){NB}: «{NB}First_Dealer{NB}» n’est pas un mot de la notation{NB}: ses mots "
        f"s’écrivent en minuscules, «{NB}first_dealer{NB}».\n"
    ), err


#: A setting's value out of its range in the ``rules`` line, and what the
#: setting may be: (setting, value, French, English).
RULE_VALUES = [
    ("target", "abc", "c’est un nombre entier de points supérieur à 0",
     "it is a whole number of points above 0"),
    ("all_tricks_bonus", "-5", "c’est un nombre entier de points, 0 ou plus",
     "it is a whole number of points, 0 or more"),
    ("deal_pattern", "4-4", "il vaut 3-3 ou 2-2-2", "it is 3-3 or 2-2-2"),
    ("dix_on_play", "yes", "il vaut true ou false", "it is true or false"),
    ("one_meld_per_window", "1", "il vaut true ou false", "it is true or false"),
    ("jack_queen", "any", "il vaut trump-jack ou same-suit", "it is trump-jack or same-suit"),
]  # fmt: skip

KNOWN_SETTINGS = (
    "deal_pattern, all_tricks_bonus, dix_on_play, jack_queen, target, one_meld_per_window"
)

#: A text record's header fault (``HAND_TYPED``'s ``old`` made ``new``) and
#: how ``replay`` says it in French and ``review`` in English, with its line.
BAD_HEADERS = [
    ("rules classic", "rules classique",
     f"(ligne 2){NB}: profil de règles inconnu «{NB}classique{NB}» (profils connus{NB}: classic, "
     "encyclopedia).",
     "(line 2): unknown rules profile “classique” (known profiles: classic, encyclopedia)."),
    ("rules classic", "rules",
     f"(ligne 2){NB}: la ligne «{NB}rules{NB}» est vide{NB}: elle commence par le profil de "
     "règles, classic ou encyclopedia.",
     "(line 2): the “rules” line is empty: it starts with the rules profile, classic or "
     "encyclopedia."),
    ("rules classic", "rules classic foo=1",
     f"(ligne 2){NB}: réglage de règles inconnu «{NB}foo{NB}» (réglages connus{NB}: "
     f"{KNOWN_SETTINGS}).",
     f"(line 2): unknown rule setting “foo” (known settings: {KNOWN_SETTINGS})."),
    ("rules classic", "rules classic target=500 target=1000",
     f"(ligne 2){NB}: les règles donnent deux fois «{NB}target{NB}».",
     "(line 2): the rules give “target” twice."),
    ("rules classic", "rules classic target",
     f"(ligne 2){NB}: «{NB}target{NB}» n’est pas un réglage des règles{NB}: un réglage s’écrit "
     f"nom=valeur, comme «{NB}target=1000{NB}».",
     "(line 2): “target” in the rules is not a setting: a setting is written name=value, "
     "like “target=1000”."),
    ("rules classic", "rules classic profile=encyclopedia",
     f"(ligne 2){NB}: «{NB}profile=encyclopedia{NB}» dans les règles{NB}: le profil en est le "
     f"premier mot, seul, comme «{NB}rules encyclopedia target=1000{NB}».",
     "(line 2): “profile=encyclopedia” in the rules: the profile is their first word, alone, "
     "like “rules encyclopedia target=1000”."),
    *[
        ("rules classic", f"rules classic {setting}={value}",
         f"(ligne 2){NB}: «{NB}{setting}{NB}» ne peut pas valoir «{NB}{value}{NB}» dans les "
         f"règles{NB}: {fr}.",
         f"(line 2): “{setting}” cannot be “{value}” in the rules: {en}.")
        for setting, value, fr, en in RULE_VALUES
    ],
    ("format marjolet-record/1", "format marjolet-record/2",
     f"(ligne 1){NB}: format inconnu «{NB}marjolet-record/2{NB}»{NB}: ce programme lit "
     f"«{NB}marjolet-record/1{NB}».",
     "(line 1): unknown format “marjolet-record/2”: this program reads “marjolet-record/1”."),
    ("rules classic\n", "rules classic\nrules classic\n",
     f"(ligne 3){NB}: la ligne «{NB}rules{NB}» est donnée deux fois{NB}: chaque ligne "
     "d’en-tête ne vient qu’une fois.",
     "(line 3): the “rules” line is given twice: each heading line comes once."),
    ("first_dealer 0", "first_dealer 2",
     f"(ligne 3){NB}: «{NB}first_dealer{NB}» ne peut pas valoir «{NB}2{NB}»{NB}: c’est 0 ou 1, "
     "le joueur qui donne le premier.",
     "(line 3): “first_dealer” cannot be “2”: it is 0 or 1, the player who deals first."),
    ("first_dealer 0\n", "",
     f"(ligne 3){NB}: il manque «{NB}first_dealer{NB}», qui dit qui donne le premier (0 ou 1), "
     "avant les donnes.",
     "(line 3): “first_dealer” is missing: it says who deals first (0 or 1), before the deals."),
    ("first_dealer 0", 'players "Alice"\nfirst_dealer 0',
     f"(ligne 3){NB}: «{NB}players{NB}» donne 1 nom{NB}: il doit donner les noms des deux "
     "joueurs.",
     "(line 3): “players” gives 1 name: it must give the two players' names."),
    ("first_dealer 0", "players Alice Bob\nfirst_dealer 0",
     f"(ligne 3){NB}: «{NB}players{NB}» doit donner les noms des deux joueurs, chacun entre "
     "guillemets droits (\").",
     "(line 3): “players” must give the two players' names, each in double quotes."),
    ("first_dealer 0\n", "first_dealer 0\nrule encyclopedia\n",
     f"(ligne 4){NB}: «{NB}rule encyclopedia{NB}» n’est pas une ligne d’en-tête (format, rules, "
     f"players, first_dealer), et les donnes commencent par «{NB}deal 0{NB}».",
     "(line 4): “rule encyclopedia” is not a heading line (format, rules, players, "
     "first_dealer), and the deals start with “deal 0”."),
    ("rules classic", "rule classic",
     f"(ligne 2){NB}: «{NB}rule classic{NB}» n’est pas une ligne d’en-tête (format, rules, "
     f"players, first_dealer), et les donnes commencent par «{NB}deal 0{NB}».",
     "(line 2): “rule classic” is not a heading line (format, rules, players, first_dealer), "
     "and the deals start with “deal 0”."),
]  # fmt: skip


@pytest.mark.parametrize(
    ("old", "new", "fr", "en"),
    BAD_HEADERS,
    ids=["unknown-profile", "empty-rules", "unknown-rule-key", "rule-key-twice",
         "rule-without-value", "profile-not-first",
         *(f"bad-{setting}" for setting, *_ in RULE_VALUES),
         "unknown-format", "header-line-twice", "bad-first-dealer", "no-first-dealer",
         "one-player", "players-unquoted", "unknown-keyword", "unknown-keyword-no-dealer"],
)  # fmt: skip
def test_a_bad_header_line_is_told_in_the_players_words_with_its_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], old: str, new: str, fr: str, en: str
) -> None:
    """A header the library refuses was its English in the player's
    sentence (« rules: unknown profile 'classique' (known: classic,
    encyclopedia) (en anglais) »); it is said in the player's language,
    the profile, key or value quoted as the file writes it."""
    assert old in HAND_TYPED
    path = tmp_path / "head.txt"
    path.write_text(HAND_TYPED.replace(old, new, 1))
    for command, lang, said in (("replay", "fr", fr), ("review", "en", en)):
        status, _, err = run([command, str(path), "--lang", lang], capsys)
        assert status == 2 and err.endswith(f" {said}\n") and len(err.splitlines()) == 1, err
        assert "(en anglais)" not in err and "(in English)" not in err, err


#: A JSON record's header fault (the record's keys changed, ``...`` for
#: one removed) and how it is said in French and English.
BAD_JSON_HEADERS = [
    ({"rules": "classique"},
     f"profil de règles inconnu «{NB}classique{NB}» (profils connus{NB}: classic, "
     "encyclopedia).",
     "unknown rules profile “classique” (known profiles: classic, encyclopedia)."),
    ({"rules": {"profile": "classique", "target": 1000}},
     f"profil de règles inconnu «{NB}classique{NB}» (profils connus{NB}: classic, "
     "encyclopedia).",
     "unknown rules profile “classique” (known profiles: classic, encyclopedia)."),
    ({"rules": {"target": 1000}},
     f"l’objet «{NB}rules{NB}» ne nomme pas son profil{NB}: «{NB}profile{NB}» vaut classic "
     "ou encyclopedia.",
     "the “rules” object does not name its profile: “profile” is classic or encyclopedia."),
    ({"rules": 5},
     f"«{NB}rules{NB}» doit être un profil de règles, classic ou encyclopedia, ou un objet "
     "qui en nomme un.",
     "“rules” must be a rules profile, classic or encyclopedia, or an object that names one."),
    ({"rules": {"profile": "classic", "foo": 1}},
     f"réglage de règles inconnu «{NB}foo{NB}» (réglages connus{NB}: {KNOWN_SETTINGS}).",
     f"unknown rule setting “foo” (known settings: {KNOWN_SETTINGS})."),
    ({"rules": {"profile": "classic", "deal_pattern": "3-3"}},
     f"«{NB}deal_pattern{NB}» ne peut pas valoir «{NB}\"3-3\"{NB}» dans les règles{NB}: il vaut "
     "[3, 3] ou [2, 2, 2].",
     "“deal_pattern” cannot be “\"3-3\"” in the rules: it is [3, 3] or [2, 2, 2]."),
    ({"rules": {"profile": "classic", "target": "1000"}},
     f"«{NB}target{NB}» ne peut pas valoir «{NB}\"1000\"{NB}» dans les règles{NB}: c’est un "
     "nombre entier de points supérieur à 0.",
     "“target” cannot be “\"1000\"” in the rules: it is a whole number of points above 0."),
    ({"first_dealer": "0"},
     f"«{NB}first_dealer{NB}» ne peut pas valoir «{NB}\"0\"{NB}»{NB}: c’est 0 ou 1, le joueur "
     "qui donne le premier.",
     "“first_dealer” cannot be “\"0\"”: it is 0 or 1, the player who deals first."),
    ({"first_dealer": ...},
     f"il manque «{NB}first_dealer{NB}», qui dit qui donne le premier (0 ou 1), avant les "
     "donnes.",
     "“first_dealer” is missing: it says who deals first (0 or 1), before the deals."),
    ({"format": "marjolet-record/2"},
     f"format inconnu «{NB}marjolet-record/2{NB}»{NB}: ce programme lit "
     f"«{NB}marjolet-record/1{NB}».",
     "unknown format “marjolet-record/2”: this program reads “marjolet-record/1”."),
    ({"players": ["Alice", "Bob", "Carol"]},
     f"«{NB}players{NB}» donne 3 noms{NB}: il doit donner les noms des deux joueurs.",
     "“players” gives 3 names: it must give the two players' names."),
    ({"players": "Alice"},
     f"«{NB}players{NB}» doit donner les noms des deux joueurs, chacun entre guillemets "
     "droits (\").",
     "“players” must give the two players' names, each in double quotes."),
]  # fmt: skip


@pytest.mark.parametrize(
    ("changes", "fr", "en"),
    BAD_JSON_HEADERS,
    ids=["unknown-profile", "unknown-profile-in-object", "no-profile", "not-rules",
         "unknown-rule-key", "bad-deal_pattern", "bad-target", "bad-first-dealer",
         "no-first-dealer", "unknown-format", "three-players", "players-not-a-list"],
)  # fmt: skip
def test_a_json_records_bad_header_is_told_in_the_players_words(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
    changes: dict[str, object], fr: str, en: str,
) -> None:  # fmt: skip
    """The JSON form's header faults, said as the text form's (without a
    line, which a JSON record has not), its values as JSON writes them: a
    string in its quotes (``"0"``), not to be taken for the number."""
    record: dict[str, object] = {
        "format": "marjolet-record/1", "rules": "classic", "first_dealer": 0,
        "deals": [{"deck": list(CARD_NAMES), "actions": []}],
    }  # fmt: skip
    for key, value in changes.items():
        if value is ...:
            del record[key]
        else:
            record[key] = value
    path = tmp_path / "head.json"
    path.write_text(json.dumps(record))
    for command, lang, said in (("review", "fr", fr), ("replay", "en", en)):
        status, _, err = run([command, str(path), "--lang", lang], capsys)
        colon = f"{NB}:" if lang == "fr" else ":"
        assert status == 2 and err.endswith(f"{colon} {said}\n"), err
        assert "(" not in err.split(said)[0].split(str(path))[-1], err  # no place: no line
        assert len(err.splitlines()) == 1 and "anglais" not in err and "English" not in err


@pytest.mark.parametrize(
    ("lang", "said"),
    [
        ("fr", f"la clé «{NB}rules{NB}» est donnée deux fois dans un même objet JSON."),
        ("en", "the key “rules” is given twice in one JSON object."),
    ],
    ids=["fr", "en"],
)
def test_a_json_key_given_twice_is_told_in_the_players_words(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], lang: str, said: str
) -> None:
    path = tmp_path / "twice.json"
    path.write_text('{"rules": "classic", "rules": "encyclopedia", "first_dealer": 0}')
    status, _, err = run(["replay", str(path), "--lang", lang], capsys)
    assert status == 2 and err.endswith(f" {said}\n") and len(err.splitlines()) == 1, err


def test_a_lower_case_card_in_the_deck_line_is_told_with_its_line_in_french(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "deck.txt"
    path.write_text(HAND_TYPED.replace("deck 7C ", "deck 7c ", 1))
    status, _, err = run(["replay", str(path), "--lang", "fr"], capsys)
    assert status == 2 and err.endswith(
        f"(ligne 5, donne 1){NB}: «{NB}7c{NB}» n’est pas une carte{NB}: les cartes "
        f"s’écrivent en majuscules, «{NB}7C{NB}».\n"
    ), err


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_the_review_progress_bar_speaks_french(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    match = Match(seed=6, players=["random", "random"])
    match.start_deal()
    play_deal(match, [make_bot("random", seed=1), make_bot("random", seed=2)])
    path = tmp_path / "one.json"
    path.write_text(Record.from_match(match).dumps())
    terminal = _Terminal()
    monkeypatch.setattr("sys.stderr", terminal)
    assert main(["review", str(path), "--budget", "0", "--lang", "fr"]) == 0
    drawn = terminal.getvalue()
    assert "analyse [" in drawn and " reste " in drawn and "décisions" in drawn, drawn
    assert "ETA" not in drawn and "review [" not in drawn and "decisions" not in drawn


REPEATED_JQ = Path(__file__).parent / "examples" / "I000-hand-seed05-repeat-JQS.json"


@pytest.mark.parametrize(
    ("lang", "said"),
    [
        ("en", "Player 2 declares the marjolet and the queen of spades a second time"),
        ("fr", "Joueur 2 annonce le marjolet et la dame de pique une deuxième fois"),
    ],
)
def test_a_refused_meld_is_named_in_words_as_the_table_names_it(
    capsys: pytest.CaptureFixture[str], lang: str, said: str
) -> None:
    # the web's words (meld.* of the catalogues), not "J♦-Q♠ (jack-queen)"
    status, _, err = run(["replay", str(REPEATED_JQ), "--lang", lang], capsys)
    assert status == 2 and said in err, err
    assert "J♦" not in err and "V♦" not in err


def test_meld_name_says_each_meld_as_the_catalogue_words_it() -> None:
    from marjolet.melds import MELD_INDEX
    from marjolet.rules import Rules
    from marjolet.tui.describe import meld_name
    from marjolet.tui.words import speaking

    classic, same = Rules(), Rules(jack_queen="same-suit")
    hearts = 2
    with speaking("en"):
        assert meld_name(MELD_INDEX["4A"], hearts, classic) == "four aces"
        assert meld_name(MELD_INDEX["KQH"], hearts, classic) == "marriage in trumps"
        assert meld_name(MELD_INDEX["KQC"], hearts, classic) == "marriage in clubs"
        jq_trump, jq_spades = (meld_name(MELD_INDEX[m], hearts, classic) for m in ("JQH", "JQS"))
        assert jq_trump == "the marjolet and the queen of trumps"
        assert jq_spades == "the marjolet and the queen of spades"
        assert meld_name(MELD_INDEX["JQD"], hearts, same) == "jack and queen of diamonds"
    with speaking("fr"):
        assert meld_name(MELD_INDEX["KQH"], hearts, classic) == "mariage d’atout"


@pytest.mark.parametrize(
    ("lang", "fr_or_en"),
    [
        ("fr", f"la donne 1 n’a pas de ligne «{NB}deck{NB}»{NB}: juste après «{NB}deal 0{NB}» "
               f"viennent ses 32 cartes («{NB}deck …{NB}»), puis ses coups."),
        ("en", "deal 1 has no “deck” line: right after “deal 0” come its 32 cards "
               "(“deck …”), then its moves."),
    ],
)  # fmt: skip
def test_a_deal_without_its_deck_line_is_told_in_words_counted_from_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], lang: str, fr_or_en: str
) -> None:
    """A forgotten or misspelt ``deck`` line was the library's English
    (« deal 0 has no 'deck' line (en anglais) ») after a place that counts
    the deals from 1; it is now said in the player's words, with its line."""
    header = HAND_TYPED.split("deck ")[0]
    line = {"fr": "ligne", "en": "line"}[lang]
    deal = {"fr": "donne", "en": "deal"}[lang]
    for name, text, at in (
        ("actions.txt", header + "  1. 7C JC draw\n", 5),
        ("misspelt.txt", header + "dek " + " ".join(CARD_NAMES) + "\n", 5),
        ("end.txt", header, 4),
    ):
        path = tmp_path / name
        path.write_text(text)
        status, _, err = run(["replay", str(path), "--lang", lang], capsys)
        colon = f"{NB}:" if lang == "fr" else ":"
        assert status == 2 and err.endswith(f"({line} {at}, {deal} 1){colon} {fr_or_en}\n"), err
        assert len(err.splitlines()) == 1 and "anglais" not in err and "English" not in err


@pytest.mark.parametrize("lang", ["fr", "en"])
def test_a_deal_after_the_match_was_won_is_told_with_deals_counted_from_one(
    tmp_path: Path, selfplay_text: str, capsys: pytest.CaptureFixture[str], lang: str
) -> None:
    """R22: no deal after the match is decided. The refusal was the
    library's English, « the match was decided after deal 2 (totals [...]) »,
    counting from 0 inside a sentence placed « donne 4 »."""
    from marjolet.record import loads, replay

    result = replay(loads(selfplay_text))
    assert result.winner is not None, "the self-play record must be a finished match"
    deals = len(result.deals)
    deck_line = [line for line in selfplay_text.splitlines() if line.startswith("deck ")][-1]
    path = tmp_path / "after.txt"
    path.write_text(f"{selfplay_text.rstrip()}\ndeal {deals}\n{deck_line}\n")
    status, _, err = run(["replay", str(path), "--lang", lang], capsys)
    a, b = sorted(result.totals, reverse=True)
    said = {
        "fr": f"la partie était déjà gagnée après la donne {deals} ({a}–{b}){NB}: "
              "aucune donne ne peut la suivre.",
        "en": f"the match was already won after deal {deals} ({a}–{b}): no deal may follow it.",
    }[lang]  # fmt: skip
    assert status == 2 and err.endswith(f" {said}\n") and len(err.splitlines()) == 1, err
    assert "R22" not in err and "[" not in err and "anglais" not in err, err


@pytest.mark.parametrize(
    ("actions", "fr", "en"),
    [
        ("  1. dix\n",
         "Joueur 2 échange le sept d’atout hors du moment prévu",
         "Player 2 exchanges the seven of trumps outside the time for it"),
        ("  1. meld KQS\n",
         "Joueur 2 fait une annonce hors du moment prévu",
         "Player 2 declares a meld outside the time for it"),
    ],
    ids=["dix", "meld"],
)  # fmt: skip
def test_a_meld_or_an_exchange_out_of_its_window_is_told_as_what_it_is(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], actions: str, fr: str, en: str
) -> None:
    """R14: a refused exchange of the seven was told « annonce ou échange le
    sept d'atout », which reads as declaring the seven; the engine knows
    which of the two it refused, and the sentence says it."""
    path = tmp_path / "window.txt"
    path.write_text(HAND_TYPED + actions)
    for lang, said in (("fr", fr), ("en", en)):
        status, _, err = run(["replay", str(path), "--lang", lang], capsys)
        assert status == 2 and f" {said} " in err and len(err.splitlines()) == 1, err
        assert " ou " not in err.split(said)[1] and " or " not in err.split(said)[1], err


def test_an_exchange_in_the_last_six_tricks_is_told_as_an_exchange(
    tmp_path: Path, selfplay_text: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """R14: no exchange of the seven in tricks 11-16, said as such, by the
    player the record would give it to, not « une annonce ou un échange »."""
    path = edited(tmp_path, selfplay_text, "\n  12. JH AH", "\n  12. JH AH dix", "late.txt")
    for lang, said in (
        ("fr", "échange le sept d’atout pendant les six derniers plis"),
        ("en", "exchanges the seven of trumps during the last six tricks"),
    ):
        status, _, err = run(["replay", path, "--lang", lang], capsys)
        assert status == 2 and said in err and len(err.splitlines()) == 1, err
        assert "annonce" not in err and "declaration" not in err, err


@pytest.mark.parametrize(
    ("after", "fr", "en"),
    [
        ("draw",
         f"(ligne 18, donne 1, pli 12){NB}: random (joueur 2) pioche alors que le talon est "
         f"épuisé{NB}: après le pli 10, on ne pioche plus, on joue une carte.",
         "(line 18, deal 1, trick 12): random (player 2) draws when the stock is empty: after "
         "trick 10 there is no more drawing, a card is played."),
        ("dix",
         f"(ligne 18, donne 1, pli 12){NB}: random (joueur 2) échange le sept d’atout pendant "
         "les six derniers plis, où on ne l’échange plus.",
         "(line 18, deal 1, trick 12): random (player 2) exchanges the seven of trumps during "
         "the last six tricks, when it can no longer be exchanged."),
    ],
)  # fmt: skip
def test_a_draw_or_an_exchange_written_after_a_late_trick_is_placed_at_that_trick(
    tmp_path: Path, selfplay_text: str, capsys: pytest.CaptureFixture[str],
    after: str, fr: str, en: str,
) -> None:
    """« 12. JH AH draw », the habit of tricks 1-10 carried on: the fault
    is on the line of trick 12 and follows it, so it is placed at trick 12
    (it was « pli 13 », a trick not begun), and a draw there is told as a
    draw from an empty stock, not as « aucune annonce n'est ouverte »."""
    path = edited(tmp_path, selfplay_text, "\n  12. JH AH", f"\n  12. JH AH {after}", "t12.txt")
    for lang, said in (("fr", fr), ("en", en)):
        status, _, err = run(["replay", path, "--lang", lang], capsys)
        assert status == 2 and err.endswith(f" {said}\n") and len(err.splitlines()) == 1, err


@pytest.mark.parametrize(
    ("cards", "fr", "en"),
    [
        ("", "son paquet a 0 carte et non 32", "its deck has 0 cards, not 32"),
        (" AS", "son paquet a 1 carte et non 32", "its deck has 1 card, not 32"),
        (" AS AC", "son paquet a 2 cartes et non 32", "its deck has 2 cards, not 32"),
    ],
)
def test_a_short_decks_count_of_cards_agrees_with_its_number(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], cards: str, fr: str, en: str
) -> None:
    """« son paquet a 1 cartes »: French counts 0 and 1 in the singular."""
    path = tmp_path / "short.txt"
    path.write_text(f"first_dealer 0\ndeal 0\ndeck{cards}\n")
    for lang, said in (("fr", fr), ("en", en)):
        status, _, err = run(["replay", str(path), "--lang", lang], capsys)
        assert status == 2 and said in err and len(err.splitlines()) == 1, err


#: The deck in the cards' order, player 0 (Alice) dealing: Alice holds K♣
#: Q♣ J♦ and the trumps are diamonds; Bob leads.
ALICE_BOB = HAND_TYPED.replace("first_dealer 0", 'players "Alice" "Bob"\nfirst_dealer 0', 1)


@pytest.mark.parametrize(
    ("actions", "fr", "en"),
    [
        # Bob wins trick 1 (A♣ over J♣), Alice holds the marriage
        ("  1. AC JC meld KQC\n",
         f"(ligne 7, donne 1, pli 1){NB}: Bob annonce mariage à trèfle sans avoir R♣ ou D♣{NB}: "
         "c’est Alice qui les a, mais seul le gagnant du pli annonce.",
         "(line 7, deal 1, trick 1): Bob declares marriage in clubs without holding K♣ or Q♣: "
         "Alice holds them, but only the winner of the trick declares."),
        # Alice declared it after trick 1 (her K♣ Q♣ are shown), Bob wins trick 2
        ("  1. 7C JC meld KQC draw\n  2. 8D TD meld KQC\n",
         f"(ligne 8, donne 1, pli 2){NB}: Bob annonce mariage à trèfle sans avoir R♣ ou D♣{NB}: "
         "c’est Alice qui les a, mais seul le gagnant du pli annonce.",
         "(line 8, deal 1, trick 2): Bob declares marriage in clubs without holding K♣ or Q♣: "
         "Alice holds them, but only the winner of the trick declares."),
    ],
    ids=["in-hand", "exposed"],
)  # fmt: skip
def test_a_meld_written_after_a_trick_its_holder_lost_says_only_the_winner_declares(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    actions: str,
    fr: str,
    en: str,
) -> None:
    """A meld written after a trick the meld's holder lost is the winner's
    (docs/record.md): the refusal named the winner « sans avoir » the cards,
    true but misleading; it says whose they are and that only the trick's
    winner declares."""
    path = tmp_path / "lost.txt"
    path.write_text(ALICE_BOB + actions)
    monkeypatch.setenv("LANG", "fr_FR.UTF-8")
    for name in ("LC_ALL", "LC_MESSAGES", "LANGUAGE"):
        monkeypatch.delenv(name, raising=False)
    status, out, err = run(["replay", str(path)], capsys)
    assert status == 2 and out == ""
    assert err == f"marjolet{NB}: erreur{NB}: {path}{NB}: ce fichier n’est pas une partie " \
        f"valable {fr}\n"
    status, _, err = run(["replay", str(path), "--lang", "en"], capsys)
    assert status == 2
    assert err == f"marjolet: error: {path}: this file is not a valid game {en}\n"


@pytest.mark.parametrize(
    ("meld", "fr", "en"),
    [
        ("4K", "Bob annonce quatre rois sans avoir R♣, R♦, R♥ ou R♠.",
         "Bob declares four kings without holding K♣, K♦, K♥ or K♠."),  # Alice holds K♣ only
        ("KQH", "Bob annonce mariage à cœur sans avoir R♥ ou D♥.",
         "Bob declares marriage in hearts without holding K♥ or Q♥."),  # in the stock
    ],
)  # fmt: skip
def test_a_meld_neither_player_holds_whole_keeps_the_plain_sentence(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], meld: str, fr: str, en: str
) -> None:
    path = tmp_path / "nobody.txt"
    path.write_text(ALICE_BOB + f"  1. AC JC meld {meld}\n")
    for lang, said in (("fr", fr), ("en", en)):
        status, _, err = run(["replay", str(path), "--lang", lang], capsys)
        assert status == 2 and err.endswith(f" {said}\n") and len(err.splitlines()) == 1, err
        assert "Alice" not in err, err


def test_json_that_does_not_parse_is_told_with_its_line_and_column(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "cut.json"
    path.write_text('{"format": "marjolet-record/1",\n "rules": ', encoding="utf-8")
    status, _, err = run(["replay", str(path), "--lang", "fr"], capsys)
    assert status == 2
    assert err == (
        f"marjolet{NB}: erreur{NB}: {path}{NB}: ce fichier n’est pas une partie valable{NB}: "
        "son JSON est abîmé à la ligne 2, colonne 11 (une virgule, un guillemet, un crochet "
        "ou une accolade y manque ou y est de trop, ou le fichier a été coupé).\n"
    )
    status, _, err = run(["replay", str(path), "--lang", "en"], capsys)
    assert err.endswith(": its JSON is broken at line 2, column 11 (a comma, a quote or a "
                        "bracket is missing or one too many there, or the file was cut short).\n")
    assert "malformed" not in err and "Expecting" not in err


def test_a_save_that_cannot_be_resumed_is_told_as_replay_tells_it(
    tmp_path: Path, selfplay_text: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # marjolet play --resume: the same sentence as marjolet replay's, the
    # place counted from 1, never the library's English or its deal 0
    header = edited(tmp_path, selfplay_text, "rules classic", "rules classique", "h.txt")
    broken = tmp_path / "b.json"
    broken.write_text("{ not json", encoding="utf-8")
    for path in (not_held(tmp_path, selfplay_text), header, str(broken)):
        status, out, replayed = run(["replay", path, "--lang", "fr"], capsys)
        assert status == 2
        status, out, resumed = run(["play", "--resume", path, "--lang", "fr"], capsys)
        assert status == 2 and out == ""
        said = replayed.removeprefix(f"marjolet{NB}: erreur{NB}: {path}{NB}: ")
        assert resumed == f"marjolet{NB}: erreur{NB}: impossible de reprendre {path}{NB}: {said}"
        assert "(en anglais" not in resumed and "technique" not in resumed
    status, _, resumed = run(["play", "--resume", header, "--lang", "en"], capsys)
    assert resumed == (
        f"marjolet: error: {header} cannot be resumed: this file is not a valid game (line 2): "
        "unknown rules profile “classique” (known profiles: classic, encyclopedia).\n"
    )


def test_a_damaged_save_skipped_by_resume_is_told_as_replay_tells_it(
    tmp_path: Path, selfplay_text: str, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # marjolet play --resume without a file skips a damaged save with a
    # warning: in the words marjolet replay says of the same file
    from marjolet.tui import saves
    from marjolet.tui.words import speaking

    monkeypatch.setenv("MARJOLET_DATA_DIR", str(tmp_path / "data"))
    games = saves.games_dir(create=True)
    damaged = games / f"damaged{saves.SUFFIX}"
    damaged.write_text(selfplay_text.replace("rules classic", "rules classique", 1))
    status, _, replayed = run(["replay", str(damaged), "--lang", "fr"], capsys)
    assert status == 2
    warned: list[str] = []
    with speaking("fr"):
        assert saves.last_unfinished(warned.append) is None
    said = replayed.removeprefix(f"marjolet{NB}: erreur{NB}: ").rstrip("\n")
    assert warned == [f"partie enregistrée illisible, laissée de côté{NB}: {said}"]
    assert "profil de règles inconnu" in said and "unknown" not in said


def test_a_trick_number_too_long_to_read_is_quoted_at_most_40_characters(
    tmp_path: Path, selfplay_text: str, capsys: pytest.CaptureFixture[str]
) -> None:
    digits = "1" * 5000
    path = edited(tmp_path, selfplay_text, "\n   2. 7H 9C draw", f"\n   {digits}) 7H 9C draw",
                  "long.txt")
    status, _, err = run(["replay", path, "--lang", "fr"], capsys)
    assert status == 2 and err.count("\n") == 1
    assert f"«{NB}{'1' * 39}…{NB}» n’est pas un coup" in err
    assert "1" * 41 not in err and len(err) < 400
