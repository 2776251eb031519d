"""Every relative link of README.md and docs/*.md leads to a file of the
repository (and to a heading, when it names one), and every file a document
cites by name in code (`` `record.md` ``, `` `examples/protocol_bot.py` ``)
exists (beside the document, at the top of the repository, under src/ or
src/marjolet/): a reader never follows a reference into nothing.

The commands and tables the documents show are checked against the code too:
every option of a ``marjolet COMMAND ...`` line is one COMMAND takes, every
bot parameter table (``| parameter | default | meaning |`` under a bot's
heading) lists that bot's parameters with their defaults, and the table of
``marjolet serve``'s options in docs/web.md lists each option with its
default: a reader who copies a command or trusts a default is not misled."""

from __future__ import annotations

import argparse
import re
from pathlib import Path
from urllib.parse import unquote

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = sorted([ROOT / "README.md", *(ROOT / "docs").glob("*.md")])
#: ``[text](target)`` and ``![alt](target)``, the target up to a space or ``)``.
LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
FENCED = re.compile(r"^```.*?^```[ \t]*$", re.S | re.M)
#: A file named in inline code: a Markdown page anywhere, or a path with a
#: folder and a source extension (not a URL path, not a glob).
CITED = re.compile(r"`((?:[\w.-]+/)*[\w.-]+\.md|(?:[\w.-]+/)+[\w.-]+\.(?:py|c|h|sh|toml))`")
HEADING = re.compile(r"^#{1,6}[ \t]+(.+?)[ \t]*#*[ \t]*$", re.M)


def prose(path: Path) -> str:
    """The document without its fenced blocks (code, records, output)."""
    return FENCED.sub("", path.read_text(encoding="utf-8"))


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped,
    spaces made hyphens."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    """The anchors of a Markdown file's headings (a repeated heading gets
    ``-1``, ``-2``... as on GitHub)."""
    seen: dict[str, int] = {}
    out = set()
    for heading in HEADING.findall(prose(path)):
        base = slug(heading)
        n = seen.get(base, 0)
        seen[base] = n + 1
        out.add(base if n == 0 else f"{base}-{n}")
    return out


def relative_links(path: Path) -> list[str]:
    return [
        target
        for target in LINK.findall(prose(path))
        if not re.match(r"[a-z][a-z0-9+.-]*:", target)  # http:, mailto: ...
    ]


def broken_link(doc: Path, target: str) -> str | None:
    """Why ``target`` (a link of ``doc``) leads nowhere, or ``None``."""
    file_part, _, anchor = target.partition("#")
    dest = (doc.parent / unquote(file_part)).resolve() if file_part else doc
    if not dest.exists():
        return f"{target}: no such file"
    if ROOT not in dest.parents and dest != ROOT:
        return f"{target}: outside the repository"
    if anchor and dest.suffix == ".md" and anchor not in anchors(dest):
        return f"{target}: {dest.name} has no heading #{anchor}"
    return None


def test_every_document_is_checked() -> None:
    names = {p.name for p in DOCS}
    assert {"README.md", "rules.md", "record.md", "benchmarks.md"} <= names


def test_slugs_follow_githubs_rule() -> None:
    assert slug("Records (`marjolet.record`)") == "records-marjoletrecord"
    assert slug("`best` against the issue-12 baseline") == "best-against-the-issue-12-baseline"
    assert slug("Phase 1: tricks 1 to 10") == "phase-1-tricks-1-to-10"


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.name)
def test_relative_links_lead_to_existing_files_and_headings(doc: Path) -> None:
    broken = [why for t in relative_links(doc) if (why := broken_link(doc, t))]
    assert not broken, f"{doc.name}: " + "; ".join(broken)


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.name)
def test_files_cited_in_code_exist(doc: Path) -> None:
    missing = []
    for name in CITED.findall(prose(doc)):
        places = (doc.parent / name, ROOT / name, ROOT / "src" / name, ROOT / "src/marjolet" / name)
        if not any(p.exists() for p in places):
            missing.append(name)
    assert not missing, f"{doc.name} cites files that are not in the repository: {missing}"


#: ``marjolet COMMAND`` and what follows it on the line (a shell
#: continuation ``\\`` joins the next line first).
COMMAND_LINE = re.compile(r"\bmarjolet[ \t]+([a-z][a-z-]*)\b([^\n`|]*)")
OPTION = re.compile(r"(?<![\w-])(--[a-z][\w-]*)")


def subcommand(name: str) -> argparse.ArgumentParser:
    """The parser of ``marjolet NAME``."""
    from marjolet.cli import build_parser

    parser = build_parser(name)
    (sub,) = (a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    found: argparse.ArgumentParser = sub.choices[name]
    return found


def documented_options(doc: Path) -> list[tuple[int, str, str]]:
    """``(line, command, option)`` for each option written after ``marjolet
    COMMAND`` in ``doc``, in code and in prose."""
    from marjolet.cli import COMMANDS

    text = doc.read_text(encoding="utf-8").replace("\\\n", " ")
    out: list[tuple[int, str, str]] = []
    for number, line in enumerate(text.splitlines(), 1):
        for match in COMMAND_LINE.finditer(line):
            if match.group(1) in COMMANDS:
                args = match.group(2).split("#")[0]  # a shell comment is prose
                out.extend((number, match.group(1), o) for o in OPTION.findall(args))
    return out


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.name)
def test_documented_commands_use_only_options_the_command_takes(doc: Path) -> None:
    known: dict[str, set[str]] = {}
    wrong = []
    for number, command, option in documented_options(doc):
        if command not in known:
            known[command] = {s for a in subcommand(command)._actions for s in a.option_strings}
        if option not in known[command]:
            wrong.append(f"line {number}: marjolet {command} has no {option}")
    assert not wrong, f"{doc.name}: " + "; ".join(wrong)


def test_the_option_check_sees_a_wrong_option(tmp_path: Path) -> None:
    doc = tmp_path / "x.md"
    doc.write_text("Run `marjolet arena a b --matchs 2` or\n\n    marjolet serve \\\n  --port 1\n")
    assert [(c, o) for _, c, o in documented_options(doc)] == [
        ("arena", "--matchs"),
        ("serve", "--port"),
    ]


#: A bot's parameter table: the rows after this header line.
PARAM_TABLE = "| parameter | default | meaning |"


def parameter_tables(doc: Path) -> list[tuple[str, dict[str, str]]]:
    """``(bot, {parameter: default as written})`` for each parameter table,
    the bot being the one in backticks in the nearest heading above."""
    tables = []
    bot = ""
    lines = prose(doc).splitlines()
    for i, line in enumerate(lines):
        if heading := re.match(r"#{1,6}\s.*?`([\w-]+)`", line):
            bot = heading.group(1)
        if line.strip() != PARAM_TABLE:
            continue
        rows: dict[str, str] = {}
        for row in lines[i + 2 :]:
            if not row.startswith("|"):
                break
            cells = [c.strip().strip("`") for c in row.strip("|").split("|")]
            rows[cells[0]] = cells[1]
        tables.append((bot, rows))
    return tables


def test_every_bot_parameter_table_is_the_code_s() -> None:
    from marjolet.bots.registry import bot_class

    tables = [t for doc in DOCS for t in parameter_tables(doc)]
    assert {bot for bot, _ in tables} >= {"pimc", "ismcts", "best", "sampler"}
    wrong = []
    for bot, rows in tables:
        params = {p.name: p for p in bot_class(bot).params}
        if set(rows) != set(params):
            wrong.append(f"{bot}: the table lists {sorted(rows)}, the bot takes {sorted(params)}")
            continue
        for name, written in rows.items():
            if params[name].parse(written, bot) != params[name].default:
                wrong.append(f"{bot}: {name} defaults to {params[name].default!r}, not {written}")
    assert not wrong, "; ".join(wrong)


def test_the_serve_options_table_lists_every_option_with_its_default() -> None:
    """docs/web.md's table: one row per option of ``marjolet serve``; a
    default written as a number or a code word is the parser's."""
    text = prose(ROOT / "docs" / "web.md")
    start = text.index("| option | default | meaning |")
    rows = {}
    for row in text[start:].splitlines()[2:]:
        if not row.startswith("|"):
            break
        cells = [c.strip() for c in row.strip("|").split("|")]
        rows[cells[0].strip("`").split()[0]] = cells[1]
    actions = {a.option_strings[0]: a for a in subcommand("serve")._actions if a.option_strings}
    actions.pop("-h")
    assert set(rows) == set(actions)
    for option, written in rows.items():
        literal = re.fullmatch(r"`([^`]+)`", written)
        if literal:
            default = actions[option].default
            value = literal.group(1)
            same = float(value) == default if isinstance(default, float) else value == str(default)
            assert same, f"{option}: the table says {value}, the default is {default!r}"
