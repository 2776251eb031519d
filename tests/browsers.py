"""The browser tests' fixtures: Debian's Chromium, a watched page and the
screenshot folder, set up once here for every ``test_web_*_browser`` module.

Loaded for the whole session (``pytest_plugins`` in conftest), so Playwright
and the web server are imported only when a test asks for a fixture: the
other tests run without them.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page


@pytest.fixture(scope="module")
def chromium() -> Iterator[Browser]:
    """Debian's headless Chromium, one for each module that uses it."""
    from web_support import launch_chromium

    with launch_chromium() as browser:
        yield browser


@pytest.fixture
def page_options() -> dict[str, Any]:
    """The browser context of :func:`page`: a desktop window. A module
    overrides this fixture for another screen or locale."""
    return {"viewport": {"width": 1400, "height": 900}}


@pytest.fixture
def page(chromium: Browser, page_options: dict[str, Any]) -> Iterator[Page]:
    """A page in a fresh context; the test fails if the page raised a script error."""
    from web_support import watched_page

    with watched_page(chromium, **page_options) as page:
        yield page


@pytest.fixture(scope="module")
def shots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where screenshots go: ``$MARJOLET_SCREENSHOTS`` when it is set, else
    a temporary folder."""
    folder = os.environ.get("MARJOLET_SCREENSHOTS")
    path = Path(folder) if folder else tmp_path_factory.mktemp("shots")
    path.mkdir(parents=True, exist_ok=True)
    return path
