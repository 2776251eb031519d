"""A web move's legality is checked once, where it comes in, then applied
unchecked (issue 19): a person's by the table (``TurnDriver.check``), a
bot's in its thread (``Turn.move``); no move goes through the engine's
checked ``play`` again."""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from marjolet.engine import Deal
from marjolet.turns import Move, Turn, TurnDriver
from web_support import Browser, fast_config, live_server, play_until


def test_each_move_of_a_web_game_is_checked_once_then_pushed_unchecked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: Counter[str] = Counter()
    check, move, refusal, play = TurnDriver.check, Turn.move, TurnDriver.refusal, Deal.play

    def counted_check(self: TurnDriver, *args: Any) -> Move:
        checked = check(self, *args)
        calls["person"] += 1
        return checked

    def counted_move(self: Turn, action: int) -> Move:
        checked = move(self, action)
        calls["bot"] += 1
        return checked

    def counted_refusal(self: TurnDriver, *args: Any) -> Any:
        calls["rules"] += 1
        return refusal(self, *args)

    def counted_play(self: Deal, action: int) -> None:
        calls["checked play"] += 1
        play(self, action)

    monkeypatch.setattr(TurnDriver, "check", counted_check)
    monkeypatch.setattr(Turn, "move", counted_move)
    monkeypatch.setattr(TurnDriver, "refusal", counted_refusal)
    monkeypatch.setattr(Deal, "play", counted_play)
    # seat 1 deals, so the person leads (R3): no bot move before the page
    # connects, so the table is never reloaded from its record (a load
    # replays a stored record through the checked path, which is not a move)
    with live_server(fast_config(tmp_path / "g.sqlite3", first_dealer=1)) as server:
        game = server.new_game(mode="bot", bot="random")
        hello = {"type": "hello", "token": game["token"]}
        with Browser.open(server, game["id"], hello) as me:
            state = play_until(me, lambda s: s["deal_over"], random.Random(7))
    actions = len(state["log"])
    assert actions >= 32 and calls["person"] and calls["bot"]
    assert calls["person"] + calls["bot"] == actions  # every move checked once
    assert calls["rules"] == calls["person"]  # the rules asked once per person's move
    assert calls["checked play"] == 0  # and never again when it is applied
