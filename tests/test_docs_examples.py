"""The game records shown in the documentation replay as the documents say,
and the README's library example runs.

A record in a document is a fenced block whose info string is ``json
record`` or ``text record``. When the next fenced block is ``json result``,
it is what replaying the record must give: the result object of
``marjolet replay --json``, or ``{"error": {...}}`` for a record that breaks
a rule (then the error's position and message must match).
The README's library example is run as a doctest.
"""

from __future__ import annotations

import doctest
import json
import math
import re
from pathlib import Path

import pytest

from marjolet.errors import RecordError
from marjolet.record import loads, replay

ROOT = Path(__file__).resolve().parent.parent
DOCS = sorted([ROOT / "README.md", *(ROOT / "docs").glob("*.md")])
#: A fenced block: its info string and its text.
FENCE = re.compile(r"^```([^\n`]*)\n(.*?)^```[ \t]*$", re.S | re.M)


def fenced_blocks(path: Path) -> list[tuple[str, str]]:
    """Every fenced block of a Markdown file, as ``(info, text)``."""
    text = path.read_text(encoding="utf-8")
    return [(info.strip(), body) for info, body in FENCE.findall(text)]


def record_examples() -> list[tuple[str, str, str | None]]:
    """``(id, record text, expected result text or None)`` for each record block."""
    out = []
    for path in DOCS:
        blocks = fenced_blocks(path)
        count = 0
        for i, (info, body) in enumerate(blocks):
            if info not in ("json record", "text record"):
                continue
            count += 1
            expected = None
            if i + 1 < len(blocks) and blocks[i + 1][0] == "json result":
                expected = blocks[i + 1][1]
            out.append((f"{path.name}-{count}", body, expected))
    return out


EXAMPLES = record_examples()


def outcome(text: str) -> dict[str, object]:
    """What replaying ``text`` gives: the result object or ``{"error": ...}``."""
    try:
        return replay(loads(text, check=False)).to_json()
    except RecordError as exc:
        return {"error": exc.to_json()}


def test_the_rules_and_the_record_format_have_record_examples() -> None:
    names = {name.split("-")[0] for name, _, _ in EXAMPLES}
    assert {"rules.md", "record.md"} <= names


@pytest.mark.parametrize(
    ("text", "expected"),
    [pytest.param(text, expected, id=name) for name, text, expected in EXAMPLES],
)
def test_documented_record_replays_as_the_document_says(text: str, expected: str | None) -> None:
    got = outcome(text)
    if expected is None:
        assert "error" not in got, got
    else:
        assert got == json.loads(expected)


def test_documented_record_example_converts_losslessly() -> None:
    for _, text, _ in EXAMPLES:
        try:
            record = loads(text, check=False)
        except RecordError:
            continue  # an example of a malformed record
        assert loads(record.to_text(), check=False) == record
        assert loads(record.dumps(), check=False) == record


def test_the_rules_page_follow_table_says_what_the_engine_allows() -> None:
    """rules.md's R16 table ("Examples with hearts trumps": led card,
    follower's hand, what may be played) is what the engine lets a
    follower play in tricks 11-16; "either" is any card of the hand."""
    from marjolet.cards import CardSet, parse_card
    from marjolet.trick import follow_mask

    text = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    section = text[text.index("**R16.") : text.index("**R17.")]
    assert "Examples with hearts trumps" in section
    hearts = 2  # suits C D H S
    card = re.compile(r"\b([789TJQKA][CDHS])\b")
    rows = [line for line in section.splitlines() if line.startswith("| `")]
    assert len(rows) >= 5
    for row in rows:
        led, holds, may, _why = (cell.strip() for cell in row.strip("|").split("|"))
        hand = CardSet.parse(" ".join(card.findall(holds)))
        allowed = CardSet(follow_mask(parse_card(card.findall(led)[0]), hand.mask, hearts))
        expected = hand if may == "either" else CardSet.parse(" ".join(card.findall(may)))
        assert allowed == expected, (row, str(allowed))


@pytest.mark.parametrize("card", ["R♣", "D♥", "V♠", "qs"])
def test_the_record_page_is_right_that_french_letters_are_not_record_notation(card: str) -> None:
    """record.md tells French players that the screens' R D V (and small
    letters) are not card notation in a record: such a record is refused
    naming the card, as an action and in a deck."""
    page = (ROOT / "docs" / "record.md").read_text(encoding="utf-8")
    assert "are not record notation" in page and f"`{card}`" in page
    deck = (
        "KS QS JD 9S 8S 7S QD 7C 8C KH QH 7H 9D 9C 8D AC "
        "7D TC KD AS JS TS AH JH TH 9H 8H AD TD KC QC JC"
    )
    head = "first_dealer 0\ndeal 0\n"
    with pytest.raises(RecordError, match=re.escape(f"'{card}'")):
        replay(loads(f"{head}deck {deck}\n1. 7C {card}\n", check=False))
    with pytest.raises(RecordError, match=re.escape(f"'{card}'")):
        replay(loads(f"{head}deck {deck.replace('KS', card)}\n", check=False))


def test_readme_library_example_runs_as_written() -> None:
    """The README's python block is a doctest: its outputs are checked."""
    blocks = [body for info, body in fenced_blocks(ROOT / "README.md") if info == "python"]
    assert blocks and all(">>>" in b for b in blocks), "README.md needs a >>> python example"
    test = doctest.DocTestParser().get_doctest("\n".join(blocks), {}, "README.md", None, 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(test)
    results = runner.summarize(verbose=False)
    assert results.attempted >= 5
    assert results.failed == 0


RL_PAGE = ROOT / "docs" / "rl.md"
#: How docs/rl.md marks its fenced blocks: ``python``, an example the tests
#: run as written; ``sh``, command lines, not run here (the training runs
#: among them take minutes to hours, far past a test's budget; the options
#: of its ``marjolet`` commands are checked by test_docs_links.py). No
#: ``python`` block is left out: one that needed a long training run would
#: have to be marked apart, and say why.
RL_BLOCK_KINDS = ("python", "sh")
#: The ``##`` sections of docs/rl.md that show Python examples, by test id.
RL_SECTIONS = {
    "pettingzoo": "PettingZoo",
    "openspiel": "OpenSpiel",
    "gymnasium": "Gymnasium",
    "vector": "Batched environments",
}


def rl_examples(section: str) -> list[str]:
    """The ``python`` blocks of docs/rl.md's ``## section...``, in order."""
    text = RL_PAGE.read_text(encoding="utf-8")
    parts = re.split(r"^## ", text, flags=re.M)
    chosen = [part for part in parts if part.startswith(section)]
    assert len(chosen) == 1, f"docs/rl.md has no one section '## {section}...'"
    return [body for info, body in FENCE.findall(chosen[0]) if info.strip() == "python"]


def test_every_block_of_the_research_page_is_marked_python_or_sh() -> None:
    """An example not marked ``python`` would not be run by the test below."""
    kinds = [info for info, _ in fenced_blocks(RL_PAGE)]
    assert kinds and all(kind in RL_BLOCK_KINDS for kind in kinds), kinds
    python = sum(len(rl_examples(section)) for section in RL_SECTIONS.values())
    assert python == kinds.count("python"), "a python block outside the sections tested"


@pytest.mark.parametrize("section", list(RL_SECTIONS.values()), ids=list(RL_SECTIONS))
def test_the_research_page_python_examples_run_as_written(
    section: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """docs/rl.md's ``python`` blocks of one section, run in order in one
    namespace (a block may go on from the one before), as a reader pasting
    them would: an example that breaks fails here, naming its section."""
    for module in ("gymnasium", "pettingzoo", "pyspiel"):
        pytest.importorskip(module)
    blocks = rl_examples(section)
    assert blocks, f"docs/rl.md's {section} section shows no python example"
    namespace: dict[str, object] = {"__name__": "rl_md_example"}
    for i, body in enumerate(blocks):
        exec(compile(body, f"docs/rl.md, {section}, python block {i + 1}", "exec"), namespace)
    capsys.readouterr()
    if section == "OpenSpiel":
        import pyspiel  # type: ignore[import-not-found,unused-ignore]

        # The IS-MCTS example chose a move: at a chance node the bot gives
        # INVALID_ACTION and no choice.
        assert namespace["action"] != pyspiel.INVALID_ACTION
        state = namespace["state"]
        assert state.history()[-1] == namespace["action"]  # type: ignore[attr-defined]


def test_the_python_bot_of_bots_md_registers_plays_and_is_measured(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """docs/bots.md, "A bot of your own, in Python": the example runs as
    written, its bot builds from a spec and the arena measures it."""
    from marjolet.bots import registry

    monkeypatch.setattr(registry, "_BOTS", dict(registry._BOTS))
    monkeypatch.setattr(registry, "_LOADED", dict(registry._LOADED))
    text = (ROOT / "docs" / "bots.md").read_text(encoding="utf-8")
    section = text.split("### A bot of your own, in Python", 1)[1].split("\n## ", 1)[0]
    code = [body for info, body in FENCE.findall(section) if info.strip() == "python"]
    assert len(code) == 1, "the section shows one Python example"
    namespace: dict[str, object] = {"__name__": "bots_md_example"}
    exec(compile(code[0], "docs/bots.md", "exec"), namespace)
    win_rate, elo = (float(x) for x in capsys.readouterr().out.split())
    assert 0.0 <= win_rate <= 1.0 and math.isfinite(elo)
    assert "lowcard" in registry.bot_names()
    bot = registry.make_bot("lowcard", seed=3)
    assert bot.spec == "lowcard" and bot.options == {"spare_trumps": True}
    from marjolet.bots.base import BotSpecError

    with pytest.raises(BotSpecError):
        registry.make_bot("lowcard:spare=1")


#: A record whose trick 12 breaks R16: the follower, void of spades, throws
#: a heart while holding a trump (diamonds).
UNTRUMPED = """format marjolet-record/1
rules classic
players "random" "random"
first_dealer 0
deal 0
deck QC 7H TD 7D QS JH 9C AS 7C KD JD 8S AD TC TS JS QD QH 8C 7S KC 9S AC JC AH TH KS KH 8H 9H 8D 9D
   1. 7C 8S draw
   2. 7H JH dix meld JQS draw
   3. JS AS draw
   4. 9C AD draw
   5. 7S TD meld KQC draw
   6. 9S TS draw
   7. 8C TC draw
   8. QC AC meld KQS draw
   9. JC KC draw
  10. 8H QS draw
  11. 9D JD
  12. KS 9H
"""


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_the_record_page_shows_the_error_replay_really_prints(
    lang: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """record.md's example of a player's error line (a card that must trump)
    is, word for word, what ``marjolet replay`` prints for such a record."""
    from marjolet.cli import main

    monkeypatch.chdir(tmp_path)
    (tmp_path / "game.txt").write_text(UNTRUMPED, encoding="utf-8")
    try:
        code = main(["replay", "--lang", lang, "game.txt"])
    except SystemExit as exc:
        code = int(exc.code or 0)
    err = capsys.readouterr().err
    assert code == 2
    page = (ROOT / "docs" / "record.md").read_text(encoding="utf-8")
    assert err.strip() in page.splitlines()
