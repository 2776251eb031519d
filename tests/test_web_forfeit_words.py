"""A bot that broke down is told to a player in words of the catalogue
(« il est tombé en panne »: a crash, a garbled or illegal answer, no
answer in time alike), never by its technical reason
(a protocol error, a crash's text) nor its standard error: those stay in the
game's JSON and the server's log, for whoever studies the bot."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from marjolet.i18n import LANGS, translate

STATIC = Path(__file__).resolve().parent.parent / "src" / "marjolet" / "web" / "static"
TECHNICAL = "protocol error: line 3 is not an action"

#: Every sentence a page or a toast says about a bot's forfeit.
BOT_FORFEIT_KEYS = ("forfeit.text", "notice.forfeit", "replay.forfeit", "replay.forfeit_you_won")


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("key", BOT_FORFEIT_KEYS)
def test_a_bot_s_forfeit_is_said_in_words_whatever_reason_the_server_sends(
    key: str, lang: str
) -> None:
    said = translate(key, lang, name="Bot", winner="Ève", reason=TECHNICAL)
    assert TECHNICAL not in said and "{" not in said
    assert translate("history.bot_title", lang) in said


def test_no_page_puts_a_forfeit_s_technical_reason_or_stderr_on_the_screen() -> None:
    for name in ("history.js", "table.js", "replay.js", "board.js"):
        source = (STATIC / name).read_text(encoding="utf-8")
        shown = re.findall(r"\b(?:f|forfeit|game\.forfeit)\.(?:reason|stderr)\b[^\n]*", source)
        assert not shown, (name, shown)


def test_the_history_says_why_a_bot_forfeited_as_it_says_a_person_s_forfeit() -> None:
    history = (STATIC / "history.js").read_text(encoding="utf-8")
    assert 'if (kind === "bot")' not in history  # the bot goes through history.{kind}_title
    assert "t(`history.${kind}_title`)" in history
    assert translate("history.bot_title", "fr") == "en panne"
