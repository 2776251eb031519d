"""Where marjolet keeps per-user data (saved games, the web database).

``$MARJOLET_DATA_DIR`` if set, else ``$XDG_DATA_HOME/marjolet``, else
``~/.local/share/marjolet``. Tests point ``MARJOLET_DATA_DIR`` at a
temporary folder.
"""

from __future__ import annotations

import os
from pathlib import Path


def data_dir(create: bool = True) -> Path:
    """The per-user data folder (created on first use)."""
    explicit = os.environ.get("MARJOLET_DATA_DIR")
    if explicit:
        folder = Path(explicit)
    else:
        base = os.environ.get("XDG_DATA_HOME") or os.path.join(Path.home(), ".local", "share")
        folder = Path(base) / "marjolet"
    if create:
        folder.mkdir(parents=True, exist_ok=True)
    return folder
