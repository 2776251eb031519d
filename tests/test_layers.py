"""The layers of docs/architecture.md, checked on the source: no front end
imports another, and nothing below the front ends imports one (shared code
goes down a layer, as the bot catalogue did to ``bots/catalogue.py``)."""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src" / "marjolet"
FRONT_ENDS = ("tui", "web")


def imported_packages(path: Path) -> set[str]:
    """The ``marjolet.<package>`` names a file imports, at the top or inside
    a function (lazy imports count too)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        found.update(
            name.split(".")[1] for name in names if name.startswith("marjolet.") and "." in name
        )
    return found


def layer_of(path: Path) -> str:
    """The package a source file belongs to (``""`` for the core's modules)."""
    parts = path.relative_to(SRC).parts
    return parts[0] if len(parts) > 1 else ""


def test_no_front_end_imports_another_and_no_lower_layer_imports_one() -> None:
    wrong = []
    for path in sorted(SRC.rglob("*.py")):
        layer = layer_of(path)
        if layer == "commands":  # the CLI sits above every front end
            continue
        for package in imported_packages(path) & set(FRONT_ENDS):
            if package != layer:
                wrong.append(f"{path.relative_to(SRC)} imports marjolet.{package}")
    assert not wrong, wrong


def test_the_layer_check_sees_lazy_imports(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text("def f():\n    from marjolet.web.hub import Hub\n    import marjolet.tui\n")
    assert imported_packages(sample) == {"web", "tui"}
