"""The order in which ``make test`` hands out the test files: longest first
(tests/file_seconds.txt), so that no long file starts last."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from conftest import FILE_SECONDS, _file_seconds, pytest_collection_modifyitems

ROOT = Path(__file__).resolve().parent.parent


def test_every_file_of_the_table_is_a_test_file_and_the_longest_come_first() -> None:
    seconds = _file_seconds()
    assert len(seconds) >= 50, FILE_SECONDS
    missing = [name for name in seconds if not (FILE_SECONDS.parent / name).is_file()]
    assert not missing, f"refresh {FILE_SECONDS.name}: no such test files {missing}"
    assert list(seconds.values()) == sorted(seconds.values(), reverse=True)


class _Item:
    def __init__(self, name: str, test: str) -> None:
        self.path = FILE_SECONDS.parent / name
        self.test = test


def test_files_are_sorted_longest_first_and_each_keeps_its_tests_in_order() -> None:
    seconds = _file_seconds()
    longest, second = list(seconds)[:2]
    items = [_Item("test_unlisted.py", "a"), _Item(second, "b"), _Item(second, "c"),
             _Item(longest, "d"), _Item("test_unlisted.py", "e"), _Item(longest, "f")]
    pytest_collection_modifyitems(items)  # type: ignore[arg-type]
    assert [item.test for item in items] == ["d", "f", "b", "c", "a", "e"]


def test_the_table_is_written_from_a_durations_log(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec = importlib.util.spec_from_file_location(
        "test_file_seconds", ROOT / "scripts" / "test_file_seconds.py")
    assert spec is not None and spec.loader is not None
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    log = tmp_path / "test.log"
    log.write_text(
        "12.50s call     tests/test_b.py::test_one\n"
        "0.60s setup    tests/test_b.py::test_one\n"
        "30.00s call     tests/test_a.py::test_two[x-y]\n"
        "0.20s call     tests/test_c.py::test_three\n", encoding="utf-8")
    table = tmp_path / "file_seconds.txt"
    monkeypatch.setattr(script, "TABLE", table)
    assert script.main([str(log)]) == 0
    assert table.read_text(encoding="utf-8").splitlines()[1:] == ["30 test_a.py", "13 test_b.py"]
