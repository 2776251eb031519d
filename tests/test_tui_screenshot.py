"""The README's screenshot: a mid-game screen at 80x24, as an SVG.

The test always renders it (to a temporary folder) and checks what it
shows; with ``MARJOLET_WRITE_SCREENSHOTS=1`` it also writes
``docs/img/tui-game.svg``, the file the README links to::

    MARJOLET_WRITE_SCREENSHOTS=1 .venv/bin/pytest tests/test_tui_screenshot.py
"""

from __future__ import annotations

import asyncio
import os
import random
from pathlib import Path

import pytest
from textual.pilot import Pilot

from marjolet.rules import CLASSIC
from marjolet.tui import describe
from marjolet.tui.app import MarjoletApp
from marjolet.tui.session import GameSession
from test_tui_app import SIZE, screen_text, settle

DOCS_IMAGE = Path(__file__).resolve().parent.parent / "docs" / "img" / "tui-game.svg"
SEED = 21


async def play_to_mid_game(app: MarjoletApp, pilot: Pilot[None]) -> None:
    """Declare every meld offered, play seeded random cards, and stop on the
    human's answer to a lead once melded cards are on show (or at trick 9)."""
    rng = random.Random(SEED)
    await settle(app, pilot)
    while True:
        obs = app.session.observation()
        if obs.in_window:
            options = describe.window_options(obs, app.legal)
            await pilot.press("1" if len(options) > 1 else "d")
        else:
            shown = bool(obs.exposed[0] or obs.exposed[1])
            late = obs.tricks_played >= 8 or (shown and obs.tricks_played >= 4)
            if obs.lead is not None and late:
                return
            playable = [i for i, c in enumerate(app.hand) if app.turn.playable >> c & 1]
            await pilot.press(str(rng.choice(playable) + 1))
        await settle(app, pilot)


def test_mid_game_screenshot_shows_the_whole_table(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from textual import constants

    # a terminal of millions of colours, whatever TERM the tests run under
    # (TERM=xterm alone is 16 colours, where the red suits take the terminal's red)
    monkeypatch.setattr(constants, "COLOR_SYSTEM", "truecolor")
    session = GameSession.new(CLASSIC, opponent="random", seed=SEED, save_path=tmp_path / "g.json")
    app = MarjoletApp(session, pace=0)
    out = tmp_path / "tui-game.svg"

    async def main() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await play_to_mid_game(app, pilot)
            await pilot.press("right")  # show the raised, chosen card
            await pilot.pause()
            text = screen_text(app)
            for part in ("Score", "Log", "trumps", "led", "stock", "1-6 Play card", "Hint"):
                assert part in text, part
            out.write_text(app.export_screenshot(title="marjolet play"), encoding="utf-8")
            if os.environ.get("MARJOLET_WRITE_SCREENSHOTS") == "1":
                DOCS_IMAGE.parent.mkdir(parents=True, exist_ok=True)
                DOCS_IMAGE.write_text(out.read_text(encoding="utf-8"), encoding="utf-8")

    asyncio.run(main())
    svg = out.read_text(encoding="utf-8")
    assert svg.startswith("<svg") and "marjolet&#160;play" in svg
    assert "#d03030" in svg  # red suits in colour
