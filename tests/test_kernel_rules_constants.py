"""The C kernel's rule values come from their Python homes.

``_kernel/rules_constants.h`` is written by ``scripts/rules_header.py``
from ``cards.py``, ``melds.py``, ``rules.py`` and ``history.py``: the
committed header must be what the script writes now, so that a change to a
rule value in Python fails here until the header is written again (and the
kernel rebuilt; the agreement tests then compare the scores themselves).
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import ModuleType

import pytest

from marjolet import cards, history, rules

ROOT = Path(__file__).resolve().parent.parent
KERNEL_DIR = ROOT / "src" / "marjolet" / "_kernel"


def _script() -> ModuleType:
    path = ROOT / "scripts" / "rules_header.py"
    spec = importlib.util.spec_from_file_location("rules_header", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_committed_header_is_what_the_script_writes_from_the_python_homes() -> None:
    script = _script()
    assert script.HEADER == KERNEL_DIR / "rules_constants.h"
    assert script.HEADER.read_text(encoding="utf-8") == script.render(), (
        "rules_constants.h is stale: run PYTHONPATH=src python scripts/rules_header.py"
    )
    assert script.main(["--check"]) == 0


@pytest.mark.parametrize(
    ("module", "name", "value"),
    [
        (rules, "SEVEN_POINTS", 11),
        (rules, "LAST_CARD_POINTS", 20),
        (rules, "LAST_TRICK_POINTS", 5),
        (rules, "CLASSIC", rules.CLASSIC.replace(all_tricks_bonus=60)),
        (cards, "POINT_CARD_POINTS", 11),
        (cards, "CARD_POINTS", (1,) * 32),
        (history, "STOCK_CARDS", 18),
    ],
)
def test_a_changed_rule_value_makes_the_header_stale(
    module: ModuleType, name: str, value: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    script = _script()
    monkeypatch.setattr(module, name, value)
    assert script.render() != script.HEADER.read_text(encoding="utf-8")
    assert script.main(["--check"]) == 1


def test_the_script_refuses_a_deal_pattern_the_kernel_cannot_deal(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    script = _script()
    monkeypatch.setattr(rules, "DEAL_PATTERNS", ((3, 3), (2, 2, 2), (1,) * 6))
    with pytest.raises(SystemExit, match="DEAL_PATTERNS"):
        script.render()


def test_the_kernel_adds_no_number_typed_in_c_to_a_score() -> None:
    # every score the kernel keeps is points[...] = / += a named value
    literal = re.compile(r"points\[[^\]]*\]\s*\+?=\s*-?\d")
    for path in sorted(KERNEL_DIR.glob("*.c")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            assert not literal.search(line), f"{path.name}:{number}: {line.strip()}"
