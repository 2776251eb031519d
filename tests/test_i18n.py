"""The French and English catalogues shared by the web pages and the terminal."""

from __future__ import annotations

import io
import re
from collections.abc import Sequence
from pathlib import Path

import pytest

from marjolet.cards import CARD_NAMES
from marjolet.i18n import (
    LANGS,
    card_label,
    card_name,
    catalogue,
    from_environment,
    negotiate,
    number,
    placeholders,
    translate,
)
from marjolet.i18n.rulebook import Block
from marjolet.rules import CLASSIC, SETTING_NAMES, Rules
from marjolet.tui import words

STATIC = Path(__file__).resolve().parent.parent / "src" / "marjolet" / "web" / "static"
SOURCES = Path(__file__).resolve().parent.parent / "src" / "marjolet"


def _texts(entry: object) -> list[str]:
    return list(entry.values()) if isinstance(entry, dict) else [str(entry)]


def test_every_key_exists_in_both_languages() -> None:
    fr, en = catalogue("fr"), catalogue("en")
    assert set(fr) == set(en), sorted(set(fr) ^ set(en))


@pytest.mark.parametrize("key", sorted(catalogue("en")))
def test_both_languages_fill_the_same_placeholders(key: str) -> None:
    en, fr = catalogue("en")[key], catalogue("fr")[key]
    assert isinstance(en, dict) == isinstance(fr, dict), key
    if isinstance(en, dict):
        assert set(en) == set(fr) == {"one", "other"}, key
    wanted = set().union(*(placeholders(t) for t in _texts(en)))
    got = set().union(*(placeholders(t) for t in _texts(fr)))
    assert wanted == got, key
    assert all(t.strip() for t in _texts(fr) + _texts(en)), key


# A key in the code is a string literal of the catalogue's prefixes: "seat.points".
KEY_LITERAL = re.compile(r"""["`]((?:%s)\.[a-z0-9_]+)["`]""")
NOT_KEYS = re.compile(r"(\.(html|js|json|py|css|svg|seat|winner|reason|choose)|_)$")


def _used_keys(pattern_files: list[Path]) -> set[str]:
    prefixes = sorted({k.split(".")[0] for k in catalogue("en")})
    literal = re.compile(KEY_LITERAL.pattern % "|".join(prefixes))
    used: set[str] = set()
    for path in pattern_files:
        used |= set(literal.findall(path.read_text(encoding="utf-8")))
    return used


def test_every_key_the_pages_and_the_terminal_use_is_in_the_catalogue() -> None:
    files = [*STATIC.glob("*.js"), *STATIC.glob("*.html"), *SOURCES.glob("tui/*.py")]
    files += [*SOURCES.glob("i18n/*.py"), *SOURCES.glob("web/*.py")]
    used = _used_keys(files)
    assert len(used) > 150
    missing = sorted(k for k in used if k not in catalogue("en") and not NOT_KEYS.search(k))
    assert not missing


def test_keys_built_at_run_time_exist_for_every_value() -> None:
    en = catalogue("en")
    for rank in "AKQJT987":
        assert f"rank.{rank}" in en and f"rank_letter.{rank}" in en
    for suit in "CDHS":
        assert f"suit.{suit}" in en
    for source in ("cards", "melds", "dix", "last_card", "last_trick", "all_tricks"):
        assert f"source.{source}" in en
    for level in ("quick", "normal", "strong", "strongest", "standard"):
        assert f"level.{level}" in en
    for status in ("waiting", "playing", "finished"):
        assert f"history.status_{status}" in en
    for mode in ("bot", "friend", "watch"):
        assert f"history.mode_{mode}" in en
    for meld in ("4A", "4T", "4K", "4Q", "KQ", "KQ_trump", "JQ", "JQ_trump", "JQ_same"):
        assert f"meld.{meld}" in en
    for lang in LANGS:
        assert f"top.lang_{lang}" in en
    for did in ("dix", "meld"):  # an opponent's move, with its points or without
        assert f"table.opponent_{did}" in en and f"table.opponent_{did}_plain" in en
    for setting in SETTING_NAMES:  # a record's rule setting out of its range
        assert f"replay.reason_rules_value_{setting}" in en
    assert "replay.reason_rules_value_deal_pattern_json" in en


def test_cards_are_named_as_french_and_english_players_say_them() -> None:
    assert card_name("QS", "fr") == "dame de pique"
    assert card_name("QS", "en") == "queen of spades"
    assert card_name("TH", "fr") == "dix de cœur"
    assert card_name("AD", "fr") == "as de carreau"
    assert card_name("7C", "fr") == "sept de trèfle"
    assert card_name(CARD_NAMES.index("JH"), "fr") == "valet de cœur"
    assert [translate(f"rank.{r}", "fr") for r in "AT KQJ987".replace(" ", "")] == [
        "as", "dix", "roi", "dame", "valet", "neuf", "huit", "sept",
    ]  # fmt: skip
    assert card_label("KH", "fr") == "R♥" and card_label("KH", "en") == "K♥"
    assert card_label("TS", "fr") == "10♠"


def test_the_french_catalogue_uses_the_words_of_french_rule_books() -> None:
    text = " ".join(t for v in catalogue("fr").values() for t in _texts(v))
    for word in ("atout", "mariage", "marjolet", "sept d’atout", "dernier pli",
                 "les six derniers plis", "retourne", "pli", "donne"):  # fmt: skip
        assert word in text.lower(), word
    assert translate("trump.word", "fr") == "Atout"
    assert translate("source.last_trick", "fr") == "Dernier pli"
    assert translate("source.all_tricks", "fr") == "Les six derniers plis"


def test_french_elides_with_the_typographic_apostrophe() -> None:
    """French typesetting writes l’atout, not l'atout: the catalogue's
    elisions, and those added before a name, use U+2019."""
    for key, entry in catalogue("fr").items():
        for text in _texts(entry):
            assert "'" not in text, (key, text)
    assert translate("history.forfeited", "fr", name="Ève") == "forfait d’Ève"


def test_french_punctuation_never_starts_a_line() -> None:
    """French puts a space before : ; ? ! % and inside « »; a plain one lets
    a wrapped line start with the sign, so the catalogue writes it
    unbreakable (U+00A0 before : and inside « », the narrow U+202F before
    ; ? ! %), which browsers honour. The terminal writes U+00A0 for both,
    and its wrapping is taught to keep them (marjolet.tui.wrapping)."""
    loose = re.compile(r"(?<!,) [:;?!%»]|« ")  # ", ?": the hint's key in a list of keys
    for key, entry in catalogue("fr").items():
        for text in _texts(entry):
            assert not loose.search(text), (key, text)
    words.use("fr")
    try:
        text = words.tr("tui.draw_confirm", what="R♥-D♥ mariage", n=20)
        welcome = words.tr("tui.welcome", bot="Expert")
    finally:
        words.use("en")
    assert "(+20)\u00a0? Entrée" in text and "piocher\u00a0; d pioche" in text
    assert welcome.endswith("h\u00a0: aide, ?\u00a0: conseil.")  # "?" is a key here


@pytest.mark.parametrize("library", ["rich", "textual"])
def test_the_terminal_wraps_french_text_without_starting_a_line_with_its_sign(
    library: str,
) -> None:
    from rich.console import Console
    from rich.text import Text
    from textual.content import Content

    from marjolet.tui.wrapping import keep_unbreakable_spaces

    keep_unbreakable_spaces()
    words.use("fr")
    try:
        texts = {  # the text and the signs that must not start a line
            words.tr("tui.draw_confirm", what="R♥-D♥ mariage", n=20): ":;?!%»",
            words.tr("tui.declare_first"): ":;?!%»",
            words.tr("tui.welcome", bot="Confirmé"): ":;!%»",  # its "?" is the hint's key
        }
    finally:
        words.use("en")
    for text, signs in texts.items():
        for width in range(12, 60):
            if library == "rich":
                console = Console(width=width, record=True, file=io.StringIO())
                console.print(Text(text))
                lines = console.export_text().splitlines()
            else:
                lines = [line.plain for line in Content(text).wrap(width)]
            starts = [line.lstrip(" ")[:1] for line in lines if line.strip()]
            assert not set(starts) & set(signs), (width, lines)
            assert "".join(lines).replace(" ", "").replace("\u00a0", "") == text.replace(
                " ", ""
            ).replace("\u00a0", "")  # nothing lost or added


def test_french_elides_de_before_a_name_that_starts_with_a_vowel() -> None:
    assert translate("history.forfeited", "fr", name="amelie_r") == "forfait d’amelie_r"
    assert translate("history.forfeited", "fr", name="Écrin") == "forfait d’Écrin"
    assert translate("history.forfeited", "fr", name="bob") == "forfait de bob"
    assert translate("history.forfeited", "en", name="amelie_r") == "forfeited by amelie_r"
    assert translate("tui.their_card", "fr", card="D♠", name="Expert") == "D♠ d’Expert"


def test_plurals_follow_each_language() -> None:
    assert translate("seat.tricks", "fr", n=0) == "0 pli"
    assert translate("seat.tricks", "fr", n=1) == "1 pli"
    assert translate("seat.tricks", "fr", n=2) == "2 plis"
    assert translate("seat.tricks", "en", n=0) == "0 tricks"
    assert translate("seat.tricks", "en", n=1) == "1 trick"


def test_a_missing_key_or_argument_never_fails() -> None:
    assert translate("no.such.key", "fr") == "no.such.key"
    assert translate("trick.wins", "fr", name="Ann") == "Ann remporte le pli\u00a0{n}"
    assert translate("trump.word", "de") == "Trumps"


@pytest.mark.parametrize(
    ("header", "lang"),
    [
        ("fr-FR,fr;q=0.9,en;q=0.8", "fr"),
        ("en-GB,en;q=0.9,fr;q=0.5", "en"),
        ("de-DE,fr;q=0.7,en;q=0.6", "fr"),
        ("de-DE", "en"),
        ("", "en"),
        (None, "en"),
        ("fr;q=0, en", "en"),
        ("fr;q=bad, en;q=0.1", "en"),
    ],
)
def test_the_browser_language_is_negotiated(header: str | None, lang: str) -> None:
    assert negotiate(header) == lang


@pytest.mark.parametrize(
    ("env", "lang"),
    [
        ({"LANG": "fr_FR.UTF-8"}, "fr"),
        ({"LANG": "en_US.UTF-8"}, "en"),
        ({"LANG": "C"}, "en"),
        ({"LANGUAGE": "fr:en", "LANG": "en_US.UTF-8"}, "fr"),
        ({"LC_ALL": "fr_CA.UTF-8", "LANG": "en_US.UTF-8"}, "fr"),
        ({"LANG": "de_DE.UTF-8"}, "en"),
        ({}, "en"),
    ],
)
def test_the_terminal_language_comes_from_lang(env: dict[str, str], lang: str) -> None:
    assert from_environment(env) == lang


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("profile", ["classic", "encyclopedia"])
def test_the_web_rules_page_and_the_terminal_help_say_the_same(lang: str, profile: str) -> None:
    from html import escape

    from marjolet.i18n.rulebook import rulebook, to_html, to_markdown
    from marjolet.rules import PROFILES

    rules = PROFILES[profile].replace(jack_queen="same-suit", one_meld_per_window=True)
    blocks = rulebook(rules, lang)
    html = to_html(blocks, "t")
    markdown = to_markdown(blocks, "t").replace("\\", "")
    texts = [b.text for b in blocks if b.text] + [i for b in blocks for i in b.items]
    texts += [cell for b in blocks for row in b.rows for cell in row]
    for text in texts:
        assert escape(text) in html and text in markdown
    values = {row[0]: row[1] for b in blocks if b.kind == "table" for row in b.rows}
    assert values[translate("rules.s_all_tricks_bonus", lang)] == str(rules.all_tricks_bonus)
    assert values[translate("rules.m_jqs_t", lang)] == "40"  # the same-suit variation
    assert any(translate("rules.one_meld", lang) in t for t in texts)


#: Catalogue texts that quote a rule's number: each takes it as a value from
#: the rule's home (rules.py, cards.py), never typed in the sentence.
RULE_NUMBER_KEYS = (
    "rules.last_p",
    "rules.points_cards",
    "rules.points_dix",
    "rules.points_last_card",
    "rules.points_last_trick",
    "rules.points_all_six",
    "rules.points_all_six_none",
    "rules.points_match",
    "rules.profiles_p",
    "cli.help.all_tricks_bonus",
    "cli.help.target",
)


@pytest.mark.parametrize("lang", LANGS)
def test_the_rules_numbers_in_the_catalogues_are_values_not_typed_text(lang: str) -> None:
    for key in RULE_NUMBER_KEYS:
        text = re.sub(r"(trick|pli) 10\b", "", catalogue(lang)[key])  # the trick's number
        assert not re.search(r"\d", text), (key, lang, text)


def test_the_rule_book_quotes_the_points_of_the_rules_homes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from marjolet.i18n import rulebook as book

    monkeypatch.setattr(book, "LAST_CARD_POINTS", 11)
    monkeypatch.setattr(book, "LAST_TRICK_POINTS", 12)
    monkeypatch.setattr(book, "SEVEN_POINTS", 13)
    items = [i for b in book.rulebook(CLASSIC, "en") for i in b.items]
    assert "the loser of trick 10, who takes the last card: 11" in items
    assert "the last trick: 12" in items  # no French in the English rules
    assert "the seven of trumps: 13" in items
    assert "every ace and every ten won in tricks: 10 (80 in the pack)" in items


def test_the_french_rule_book_writes_1000_and_more_with_a_thousands_space() -> None:
    """« partie en 1 000 », as French writes it (U+202F, the catalogue's
    narrow space), in every text and table of the book; English keeps 1000."""
    from marjolet.i18n.rulebook import rulebook, to_html, to_text

    rules = CLASSIC.replace(target=10_000, all_tricks_bonus=1_000)
    book = to_text(rulebook(rules, "fr"), translate("rules.title", "fr"))
    fr = re.sub(r"[ \n]+", " ", book)  # the lines joined again
    assert not re.search(r"\d{4}", fr), re.findall(r".{30}\d{4}.{10}", fr)
    assert "(règle classique, partie en 10\u202f000)" in fr
    assert "atteint 10\u202f000" in fr  # the questions players ask
    assert "partie en 1\u202f000, une seule annonce" in fr  # the profiles
    page = to_html(rulebook(rules, "fr"), translate("rules.title", "fr"))
    assert "<td>10\u202f000</td>" in page and "<td>1\u202f000</td>" in page
    en = to_text(rulebook(rules, "en"), translate("rules.title", "en"))
    assert "10000" in en and "\u202f" not in en


def test_a_number_is_written_as_each_language_writes_it() -> None:
    assert [number(n, "fr") for n in (0, 500, 999, 1000, 10_000, 1_234_567, -2500)] == [
        "0", "500", "999", "1\u202f000", "10\u202f000", "1\u202f234\u202f567", "-2\u202f500"
    ]
    assert number(10_000, "en") == "10000"


def test_every_sentence_of_a_catalogue_text_starts_with_a_capital() -> None:
    """A full stop then a small letter is a sentence left in lower case
    ("... quand il est joué. encyclopédie : ..."); the welcome line's key
    names ("h : aide", "? for a hint") are keys, not sentences."""
    keys_named = {"tui.welcome"}
    for lang in ("en", "fr"):
        for key, value in catalogue(lang).items():
            if key in keys_named:
                continue
            for text in value.values() if isinstance(value, dict) else [value]:
                found = re.search(r"[.!?]\s+[a-zà-ÿ]", text)
                assert found is None, (lang, key, text[max(0, found.start() - 30) : found.end()])


def _every_rule_set() -> list[Rules]:
    from itertools import product

    from marjolet.rules import PROFILES

    return [
        PROFILES[profile].replace(
            jack_queen=jack_queen,
            one_meld_per_window=one_meld,
            deal_pattern=pattern,
            dix_on_play=dix,
            target=target,
        )
        for profile, jack_queen, one_meld, pattern, dix, target in product(
            PROFILES, ("trump-jack", "same-suit"), (False, True), ((3, 3), (2, 2, 2)),
            (False, True), (500, 1000),
        )
    ]


#: What a player must never read in the rule book: rule ids (R16), record
#: notation (cards AS TD, meld ids KQS 4A, setting keys) and the names of
#: the bots' algorithms.
RECORD_CODES = re.compile(
    r"\bR\d{1,2}\b|\b[789TJQKA][CDHS]\b|\b(?:4[ATKQJ]|KQ[CDHSs]|JQ[CDHSs])\b"
    r"|(?i:dix_on_play|jack_queen|trump-jack|same-suit|one_meld|all_tricks|deal_pattern"
    r"|MCTS|PIMC|minimax|alpha-beta|expectimax|heuristic)"
)


@pytest.mark.parametrize("lang", LANGS)
def test_the_rule_book_shows_players_no_rule_ids_record_codes_or_algorithms(lang: str) -> None:
    from marjolet.i18n.rulebook import rulebook, to_text

    for rules in _every_rule_set():
        text = to_text(rulebook(rules, lang), translate("rules.title", lang))
        found = RECORD_CODES.search(text)
        assert found is None, (lang, rules, text[max(0, found.start() - 40) : found.end() + 40])


@pytest.mark.parametrize(
    ("lang", "declare", "exchange", "draw"),
    [
        ("en", "may still declare melds", "exchange the seven of trumps", "draw the last"),
        ("fr", "peut encore annoncer", "échanger le sept d’atout", "pioche la dernière"),
    ],
)
def test_the_rule_book_lets_the_winner_of_trick_10_declare_before_the_last_draws(
    lang: str, declare: str, exchange: str, draw: str
) -> None:
    """R14: the window after trick 10 is still a phase-1 window; the rule
    book says so where it tells of the last two cards, before the draws."""
    from marjolet.i18n.rulebook import rulebook

    blocks = rulebook(CLASSIC, lang)
    heading = next(i for i, b in enumerate(blocks) if b.text == translate("rules.last_h", lang))
    last = blocks[heading + 1].text
    assert "10" in last and declare in last and exchange in last
    assert last.index(declare) < last.index(draw)


def _paragraph_after(blocks: Sequence[Block], heading_key: str, lang: str) -> str:
    heading = next(i for i, b in enumerate(blocks) if b.text == translate(heading_key, lang))
    return str(blocks[heading + 1].text)


@pytest.mark.parametrize(
    ("lang", "window", "then"),
    [
        ("en", "declare melds and exchange the seven of trumps", "; then the winner draws"),
        ("fr", "annoncer ses combinaisons et échanger le sept d’atout", "\u202f; puis il pioche"),
    ],
)
def test_the_rule_book_puts_the_draws_after_the_window_in_its_own_clause(
    lang: str, window: str, then: str
) -> None:
    """R9: what the winner *may* do (declare, exchange) and what then
    happens (the draws, the next lead) were one run-on list ("may declare
    ..., draws the top card" / "... le sept d'atout, il pioche")."""
    from marjolet.i18n.rulebook import rulebook

    phase1 = _paragraph_after(rulebook(CLASSIC, lang), "rules.phase1_h", lang)
    assert window + then in phase1, phase1


@pytest.mark.parametrize(
    ("lang", "draw", "no_exchange"),
    [
        ("en", "draw the last", "no exchange of the seven"),
        ("fr", "pioche la dernière", "ni d’échange du sept"),
    ],
)
def test_the_rule_book_allows_no_exchange_of_the_seven_after_the_last_draws(
    lang: str, draw: str, no_exchange: str
) -> None:
    """R14, R18: no window follows the last draws, so a seven of trumps
    drawn with the last hidden card cannot be exchanged; the rule book
    says so after the draws, not only "no more melds"."""
    from marjolet.i18n.rulebook import rulebook

    last = _paragraph_after(rulebook(CLASSIC, lang), "rules.last_h", lang)
    assert no_exchange in last and last.index(draw) < last.index(no_exchange)


@pytest.mark.parametrize(
    ("lang", "until", "wrong"),
    [
        ("en", "until the stock runs out", "all along"),
        ("fr", "jusqu’à l’épuisement du talon", "tout du long"),
    ],
)
def test_the_rule_book_example_shows_the_jack_only_until_the_stock_runs_out(
    lang: str, until: str, wrong: str
) -> None:
    """R15: after trick 10 the shown cards go back into the hands; the
    worked example must not say the jack stays shown for the whole deal."""
    from marjolet.i18n.rulebook import rulebook

    example = _paragraph_after(rulebook(CLASSIC, lang), "rules.example_h", lang)
    assert until in example and wrong not in example


@pytest.mark.parametrize(
    ("lang", "nothing", "zero"),
    [("en", "nothing more", "a further 0"), ("fr", "rien de plus", "0 de plus")],
)
def test_the_rule_book_says_nothing_more_for_all_six_tricks_when_the_bonus_is_zero(
    lang: str, nothing: str, zero: str
) -> None:
    """R17 with --all-tricks-bonus 0: "a further 0" is no sentence; the
    points list says the sweep earns nothing more (the last trick's 10
    has its own line)."""
    from marjolet.i18n.rulebook import rulebook

    items = [i for b in rulebook(CLASSIC.replace(all_tricks_bonus=0), lang) for i in b.items]
    assert any(nothing in i for i in items)
    assert not any(zero in i for i in items), items
    assert any(zero.replace("0", "50") in i for b in rulebook(CLASSIC, lang) for i in b.items)


@pytest.mark.parametrize("lang", LANGS)
def test_the_lobby_says_a_turned_up_seven_is_not_scored_again_when_played(lang: str) -> None:
    """R19/R20: the played seven scores only if it was neither turned up
    nor exchanged; the lobby's check box must not say "unexchanged" alone."""
    label = translate("lobby.dix_on_play", lang)
    assert {"en": "turned up", "fr": "retourné"}[lang] in label
    assert {"en": "exchanged", "fr": "échangé"}[lang] in label


@pytest.mark.parametrize("lang", LANGS)
def test_the_play_help_does_not_say_the_target_wins_the_match(lang: str) -> None:
    """R22: reaching the target does not win by itself; after the deal that
    takes a total there, the higher total wins. `marjolet play --help`
    said "--target N: points that win the match"."""
    text = translate("cli.help.target", lang, target=500)
    assert not re.search(r"points that win|points qui gagnent", text), text
    assert {"en": "the higher total wins", "fr": "le plus haut total gagne"}[lang] in text
    assert text.endswith("500)")


@pytest.mark.parametrize("lang", LANGS)
def test_the_online_offer_names_the_target_as_the_lobby_does(lang: str) -> None:
    """R22: the target is not "points to win" (the higher total after the
    deal that reaches it wins); the online page's offer form calls it what
    the lobby and the rule book call it."""
    assert translate("online.target", lang) == translate("lobby.target", lang)
    assert not re.search(r"(?i)points (to|pour) win|pour gagner", translate("online.target", lang))


@pytest.mark.parametrize("lang", LANGS)
def test_the_lobby_does_not_promise_the_match_to_the_first_to_the_target(lang: str) -> None:
    """R22: the higher total after the deal that reaches the target wins,
    not whoever gets there first."""
    hero = translate("lobby.hero", lang)
    assert not re.search(r"target first|but le premier", hero), hero
    assert {"en": "end of the deal", "fr": "fin de la donne"}[lang] in hero
