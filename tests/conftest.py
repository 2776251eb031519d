"""Shared pytest set-up: keep per-user data in a temporary folder."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings

sys.path.insert(0, str(Path(__file__).parent))

#: Property tests never fail on a slow example (the machines are shared), and
#: under CI (``CI`` set) they draw the same examples on every run, so that a
#: red run is a finding that reproduces and never a roll of the dice.
settings.register_profile("dev", deadline=None)
settings.register_profile("ci", deadline=None, derandomize=True)
settings.load_profile("ci" if os.environ.get("CI") else "dev")


@pytest.fixture(autouse=True)
def _isolated_data_dir(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Iterator[None]:
    monkeypatch.setenv("MARJOLET_DATA_DIR", str(tmp_path_factory.mktemp("data")))
    for name in ("LANGUAGE", "LC_ALL", "LC_MESSAGES"):  # the terminal speaks English
        monkeypatch.delenv(name, raising=False)  # unless a test asks otherwise
    monkeypatch.setenv("LANG", "C.UTF-8")
    yield


#: Throwaway PostgreSQL and Redis servers (tests/services.py); the browser
#: tests' Chromium, page and screenshot folder (tests/browsers.py).
pytest_plugins = ["services", "browsers"]


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A fresh empty database of each kind the server runs on: a SQLite
    file, and a PostgreSQL database (skipped where PostgreSQL is missing)."""
    if request.param == "sqlite":
        return str(tmp_path / "web.sqlite3")
    return str(request.getfixturevalue("postgres_url"))
