"""The version of marjolet, from one source: ``[project] version`` in
``pyproject.toml`` (standard library only).

An installed marjolet (a wheel, an sdist, ``pip install -e``) reads it from
its distribution metadata (:func:`importlib.metadata.version`), which the
build copies from ``pyproject.toml``. A source checkout run without
installing (``PYTHONPATH=src``), or one whose editable install predates a
change of version, reads ``pyproject.toml`` beside ``src/`` itself: so the
version printed by ``marjolet --version`` is the one of the code that runs.
Failing both it is :data:`UNKNOWN`.
"""

from __future__ import annotations

import tomllib
from importlib import metadata
from pathlib import Path

DISTRIBUTION = "marjolet"
UNKNOWN = "0+unknown"


def checkout_version(root: Path | None = None) -> str | None:
    """The version in the ``pyproject.toml`` of the checkout this module
    lies in (``src/marjolet/version.py`` -> ``pyproject.toml``), if any."""
    root = root if root is not None else Path(__file__).resolve().parents[2]
    try:
        with open(root / "pyproject.toml", "rb") as f:
            project = tomllib.load(f).get("project", {})
    except (OSError, tomllib.TOMLDecodeError):
        return None
    if project.get("name") != DISTRIBUTION or not isinstance(project.get("version"), str):
        return None
    return str(project["version"])


def installed_version() -> str | None:
    """The version in the installed distribution's metadata, if installed."""
    try:
        return metadata.version(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        return None


def version() -> str:
    """The version of the running code (see the module docstring)."""
    return checkout_version() or installed_version() or UNKNOWN
