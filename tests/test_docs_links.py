"""Every relative link of README.md and docs/*.md leads to a file of the
repository (and to a heading, when it names one), and every file a document
cites by name in code (`` `record.md` ``, `` `examples/protocol_bot.py` ``)
exists (beside the document, at the top of the repository, under src/ or
src/marjolet/): a reader never follows a reference into nothing."""

from __future__ import annotations

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
