"""A full disk (issue 21): a bot's move the store cannot save is not lost
and its game is not stuck: the players are told, and the move is saved
once space returns; a person's move and a new game get a clear
``disk_full`` error, never a generic 500. The full disk is simulated by a
store whose writes raise ``OSError(ENOSPC)`` or SQLite's "database or disk
is full"."""

from __future__ import annotations

import errno
import sqlite3
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from marjolet.web.store import Store
from web_support import Browser, LiveServer, fast_config, live_server, read_stored


class FullDisk:
    """Makes a store's writes fail while ``full`` is set (after letting
    ``allow`` more writes through)."""

    def __init__(self, store: Store, error: Exception) -> None:
        self.store = store
        self.error = error
        self.full = threading.Event()
        self.allow = 0
        self.failures = 0
        for name in ("append_action", "add_deal", "create_game"):
            setattr(store, name, self._guard(getattr(store, name)))

    def _guard(self, write: Callable[..., Any]) -> Callable[..., Any]:
        def guarded(*args: Any, **kwargs: Any) -> Any:
            if self.full.is_set():
                if self.allow > 0:
                    self.allow -= 1
                else:
                    self.failures += 1
                    raise self.error
            return write(*args, **kwargs)

        return guarded


ERRORS = {
    "ENOSPC": OSError(errno.ENOSPC, "No space left on device"),
    "sqlite-full": sqlite3.OperationalError("database or disk is full"),
}


@pytest.fixture(params=list(ERRORS))
def full_disk(
    request: pytest.FixtureRequest, tmp_path: Path
) -> Iterator[tuple[LiveServer, FullDisk]]:
    config = fast_config(tmp_path / "g.sqlite3", first_dealer=1, save_retry=0.1)
    with live_server(config) as server:
        store = server.app.state.hub.ledger._store
        yield server, FullDisk(store, ERRORS[request.param])


@contextmanager
def a_game_against_random(
    server: LiveServer,
) -> Iterator[tuple[dict[str, Any], Browser, dict[str, Any]]]:
    """A new game against the random bot, joined by its person: the game,
    the person's connection and the first position."""
    game = server.new_game(mode="bot", bot="random")
    with Browser.open(server, game["id"], {"type": "hello", "token": game["token"]}) as me:
        yield game, me, me.next_state()


def test_a_new_game_on_a_full_disk_is_a_clear_error(
    full_disk: tuple[LiveServer, FullDisk],
) -> None:
    server, disk = full_disk
    disk.full.set()
    with server.http() as client:
        response = client.post("/api/games", json={"mode": "bot", "bot": "random"})
    assert response.status_code == 507
    error = response.json()["error"]
    assert error["code"] == "disk_full" and "disk is full" in error["message"]


def test_a_bot_s_unsaved_move_is_told_and_saved_once_space_returns(
    full_disk: tuple[LiveServer, FullDisk],
) -> None:
    server, disk = full_disk
    with a_game_against_random(server) as (game, me, state):
        assert state["legal"]  # first dealer 1: the person leads
        disk.allow = 1  # the person's move is saved, the bot's answer is not
        disk.full.set()
        me.act(state["legal"][0]["action"])
        notice = me.recv_until(lambda m: m["type"] == "notice")
        assert notice["key"] == "notice.save_failed"
        assert "disk is full" in notice["message"]
        failures = disk.failures
        assert failures >= 1
        disk.full.clear()  # space returns
        resumed = me.recv_until(lambda m: m["type"] == "notice")
        assert resumed["key"] == "notice.save_resumed"
        answered = me.state  # the bot's move may come before the notice
        if answered is None or answered["to_move"] != 0:
            answered = me.recv_until(lambda m: m["type"] == "state" and m["to_move"] == 0)
    stored = read_stored(server, game["id"])
    # every move shown is saved, each once (the bot may answer more than once)
    assert stored is not None
    assert len(stored.actions[0]) == answered["version"] - state["version"] >= 2


def test_a_person_s_move_on_a_full_disk_is_a_clear_error(
    full_disk: tuple[LiveServer, FullDisk],
) -> None:
    server, disk = full_disk
    with a_game_against_random(server) as (_, me, state):
        disk.full.set()
        me.act(state["legal"][0]["action"])
        error = me.error()
        assert error["code"] == "disk_full"
        disk.full.clear()
        me.act(state["legal"][0]["action"])  # the same move, now saved
        assert me.next_state()["version"] == state["version"] + 1
