"""Take the screenshot of a table in the middle of a game for the docs.

    .venv/bin/python scripts/web-screenshot.py docs/img/web-table.png

Starts the web server on 127.0.0.1 (a throw-away database, a fixed first
deal so the picture shows a declared marriage), opens the lobby in Debian's
Chromium, starts a game against the default bot by clicking, plays a few
tricks and saves the page once the bot has led a card.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from playwright.sync_api import sync_playwright

from helpers import deck_for
from web_support import fast_config, live_server

ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]


def main(out: str) -> int:
    deck = deck_for("AS KH QH TS 9C JD", "7C 8D 9D 7H 8C QC", "8S", stock="KC AD JC TD 9S QS")
    with tempfile.TemporaryDirectory() as folder:
        config = fast_config(
            Path(folder) / "shot.sqlite3",
            bot_delay=0.2,
            first_dealer=1,
            deck_for=lambda i: deck,
        )
        with live_server(config) as server, sync_playwright() as p:
            browser = p.chromium.launch(
                executable_path="/usr/bin/chromium", headless=True, args=ARGS
            )
            page = browser.new_page(viewport={"width": 1440, "height": 900}, device_scale_factor=1)
            page.goto(server.base + "/")
            page.fill("#vs-bot input[name=name]", "Camille")
            page.select_option("#bot-family", "heuristic")
            page.click("#vs-bot button[type=submit]")
            page.wait_for_selector('.hand.mine .card.playable[data-card="AS"]')

            def click(selector: str) -> None:
                before = page.get_attribute("#board", "data-version")
                page.click(selector)
                page.wait_for_function(
                    "v => document.querySelector('#board').dataset.version !== v", arg=before
                )

            click('.hand.mine .card[data-card="AS"]')
            page.wait_for_selector('.action.meld[data-action="meld KQH"]')
            click('.action.meld[data-action="meld KQH"]')
            click(".action.draw")
            for _ in range(12):  # play on until the bot leads a card to us
                page.wait_for_selector(".hand.mine .card.playable, .action.draw", timeout=30000)
                page.wait_for_timeout(300)
                if page.query_selector(".trick .trick-card:not(.done)"):
                    break
                if page.query_selector(".action.draw"):
                    click(".action.draw")
                else:
                    cards = page.eval_on_selector_all(
                        ".hand.mine .card.playable", "cs => cs.map(c => c.dataset.card)"
                    )
                    keep = {"KH", "QH"}
                    choice = next((c for c in reversed(cards) if c not in keep), cards[-1])
                    click(f'.hand.mine .card[data-card="{choice}"]')
            page.mouse.move(700, 890)  # no card lifted by the pointer
            page.wait_for_timeout(400)
            page.screenshot(path=out)
            browser.close()
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1] if len(sys.argv) > 1 else "docs/img/web-table.png"))
