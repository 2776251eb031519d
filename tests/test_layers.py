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


def module_imports() -> dict[str, set[str]]:
    """Each module below the front ends (``marjolet.x.y``) and the modules
    it imports, lazily or not, type-only or not; packages' ``__init__``
    re-exports are left out (a package importing its own modules is no
    circle between two modules)."""
    modules = {}
    for path in SRC.rglob("*.py"):
        if path.name == "__init__.py" or layer_of(path) in FRONT_ENDS:
            continue
        name = ".".join(("marjolet", *path.relative_to(SRC).with_suffix("").parts))
        modules[name] = path
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        found: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                found.add(node.module)
                found.update(f"{node.module}.{alias.name}" for alias in node.names)
            elif isinstance(node, ast.Import):
                found.update(alias.name for alias in node.names)
        graph[name] = {m for m in found if m in modules and m != name}
    return graph


def test_no_two_modules_import_each_other_even_through_others() -> None:
    graph = module_imports()
    circles = []
    for start in graph:
        # depth-first from start: a path back to start is a circle
        stack: list[tuple[str, tuple[str, ...]]] = [(start, (start,))]
        seen: set[str] = set()
        while stack:
            node, path = stack.pop()
            for nxt in graph[node]:
                if nxt == start:
                    circles.append(" -> ".join((*path, start)))
                elif nxt not in seen:
                    seen.add(nxt)
                    stack.append((nxt, (*path, nxt)))
    assert not circles, circles
