"""The examples of docs/engine.md and of the core's docstrings run as written
(doctests, part of ``make test``)."""

from __future__ import annotations

import doctest
import importlib
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "docs" / "engine.md"]
#: The core modules (stdlib only): their docstring examples are part of the API docs.
CORE = [
    "marjolet",
    "marjolet.actions",
    "marjolet.cards",
    "marjolet.decks",
    "marjolet.engine",
    "marjolet.errors",
    "marjolet.history",
    "marjolet.match",
    "marjolet.melds",
    "marjolet.observation",
    "marjolet.record",
    "marjolet.rules",
    "marjolet.turns",
    "marjolet.web.ratings",
    "marjolet.web.ratelimits",
]
#: Modules beside the core whose docstrings hold examples (they may use
#: the extras the tests install).
BESIDE = [
    "marjolet.arena",
    "marjolet.arena.sources",
    "marjolet.bots.levels",
    "marjolet.tui.table",
]
FENCE = re.compile(r"^```python\n(.*?)^```", re.S | re.M)


def _run(test: doctest.DocTest) -> doctest.TestResults:
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(test)
    return runner.summarize(verbose=False)


@pytest.mark.parametrize("path", DOCS, ids=lambda p: p.name)
def test_markdown_examples_run_as_written(path: Path) -> None:
    """Every ``>>>`` of a document's python blocks, in order, one namespace."""
    blocks = [b for b in FENCE.findall(path.read_text(encoding="utf-8")) if ">>>" in b]
    assert blocks, f"{path.name} has no examples"
    text = "\n".join(blocks)
    test = doctest.DocTestParser().get_doctest(text, {}, path.name, str(path), 0)
    results = _run(test)
    assert results.attempted > 10
    assert results.failed == 0


@pytest.mark.parametrize("name", CORE + BESIDE)
def test_docstring_examples_run_as_written(name: str) -> None:
    module = importlib.import_module(name)
    finder = doctest.DocTestFinder(exclude_empty=True)
    failed = 0
    for test in finder.find(module, name):
        failed += _run(test).failed
    assert failed == 0
