"""The player levels over HTTP (issue 22): ``/api/options`` offers the
levels in the reader's language without their specs, a new game names a
level, a rematch keeps it, and the old bot names still work for programs."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import pytest

from marjolet.bots.levels import LEVELS
from marjolet.web.store import GameRow
from web_support import Browser, LiveServer, fast_config, live_server, play_until, read_stored


@pytest.fixture
def server(tmp_path: Path) -> Iterator[LiveServer]:
    with live_server(fast_config(tmp_path / "games.sqlite3")) as srv:
        yield srv


def stored_game(server: LiveServer, game_id: str) -> GameRow:
    """A game as the server stored it (its table may have left memory)."""
    game: GameRow | None = read_stored(server, game_id)
    assert game is not None
    return game


def test_options_offer_the_levels_in_the_readers_language_without_specs(
    server: LiveServer,
) -> None:
    with server.http() as client:
        fr = client.get("/api/options", headers={"Accept-Language": "fr-FR"}).json()
        en = client.get("/api/options?lang=en").json()
    assert [lv["key"] for lv in fr["levels"]] == [lv.key for lv in LEVELS]
    assert [lv["name"] for lv in fr["levels"]] == ["Débutant", "Amateur", "Confirmé", "Expert"]
    assert en["levels"][2]["name"] == "Skilled" and en["levels"][2]["about"]
    assert fr["default_level"] in {lv.key for lv in LEVELS}
    specs = {lv.spec for lv in LEVELS}
    assert not any(spec in str(fr["levels"]) for spec in specs)
    assert fr["bots"] and fr["default_bot"]  # the other programs, as before


def test_a_game_against_a_level_seats_its_bot_and_its_name(server: LiveServer) -> None:
    game = server.new_game(mode="bot", level="beginner", name="Ann")
    stored = stored_game(server, game["id"])
    assert stored.players == ("Ann", "Beginner")
    assert stored.seats[1].spec == LEVELS[0].spec and stored.seats[1].bot == "level:beginner"


def test_an_unknown_level_is_refused_in_one_line(server: LiveServer) -> None:
    with server.http() as client:
        reply = client.post("/api/games", json={"mode": "bot", "level": "grandmaster"})
    assert reply.status_code == 400
    assert "unknown level 'grandmaster'" in reply.text and "\\n" not in reply.text


def test_old_bot_names_and_levels_in_watched_matches_still_work(server: LiveServer) -> None:
    old = server.new_game(mode="bot", bot="random", name="Ann")
    watched = server.new_game(mode="watch", bots=["level:amateur", "random"])
    with server.http() as client:
        games = {g["id"]: g for g in client.get("/api/games").json()["games"]}
    assert games[old["id"]]["players"] == ["Ann", "random"]
    assert games[watched["id"]]["players"] == ["Amateur", "random"]


def test_a_rematch_against_a_level_keeps_the_level(server: LiveServer) -> None:
    rules = {"profile": "encyclopedia", "target": 100}
    game = server.new_game(mode="bot", level="beginner", name="Ann", rules=rules)
    with Browser.open(server, game["id"], {"type": "hello", "token": game["token"]}) as ann:
        play_until(ann, lambda s: s["match_over"], random.Random(3))
    with server.http() as client:
        again = client.post(f"/api/games/{game['id']}/rematch", json={"token": game["token"]})
    assert again.status_code == 200, again.text
    new = stored_game(server, again.json()["id"])
    assert new.players == ("Ann", "Beginner") and new.seats[1].bot == "level:beginner"
