"""External bots (``exec:PATH``) in the web server: only the operator allows
them, by name; a bot that breaks down forfeits (stored, announced, kept
after a restart); no bot program outlives its table or the server."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from marjolet import record
from marjolet.bots import registry
from marjolet.bots.catalogue import BotCatalogue, BotChoiceError, starts_program
from marjolet.bots.external import ExternalBot
from marjolet.web.store import Store
from web_support import Browser, LiveServer, fast_config, live_server, serve_process

#: A bot program; ``MODE`` picks how it behaves at its third move. Every
#: start appends the program's pid to PIDFILE, every ``act`` it is sent a
#: line to PIDFILE.acts, every ``result`` message is appended to PIDFILE.results.
BOT_TEMPLATE = r"""
import json, os, sys, time

MODE = {mode!r}
PIDFILE = {pidfile!r}

with open(PIDFILE, "a") as f:
    f.write("%d\n" % os.getpid())
acts = 0
for line in sys.stdin:
    message = json.loads(line)
    cmd = message["cmd"]
    if cmd == "hello":
        print(json.dumps({{"name": "test-" + MODE, "protocol": "marjolet-bot/1"}}), flush=True)
    elif cmd == "act":
        acts += 1
        with open(PIDFILE + ".acts", "a") as f:
            f.write("%d\n" % acts)
        if MODE == "garbage" and acts == 3:
            print("looking for the queen of spades", file=sys.stderr, flush=True)
            print("I play the queen", flush=True)
        elif MODE == "exit" and acts == 3:
            print("out of memory, giving up", file=sys.stderr, flush=True)
            sys.exit(3)
        elif MODE == "slow":
            time.sleep(300)
        else:
            print(json.dumps({{"action": message["legal"][0]}}), flush=True)
    elif cmd == "result":
        with open(PIDFILE + ".results", "a") as f:
            f.write(line)
    elif cmd == "quit":
        break
"""

BotProgram = Callable[[str], Path]


@pytest.fixture
def bot_program(tmp_path: Path) -> BotProgram:
    """Write the template in a given mode as an executable script."""

    def write(mode: str) -> Path:
        path = tmp_path / f"bot_{mode}.py"
        pidfile = str(tmp_path / f"{mode}.pids")
        path.write_text(f"#!{sys.executable}\n" + BOT_TEMPLATE.format(mode=mode, pidfile=pidfile))
        path.chmod(0o755)
        return path

    return write


def started(program: Path) -> list[int]:
    """The pids of every start of ``program`` so far."""
    pidfile = program.with_name(program.stem.removeprefix("bot_") + ".pids")
    if not pidfile.exists():
        return []
    return [int(line) for line in pidfile.read_text().split()]


def asked(program: Path) -> int:
    """How many moves ``program`` was asked for, over all its starts."""
    acts = program.with_name(program.stem.removeprefix("bot_") + ".pids.acts")
    return len(acts.read_text().split()) if acts.exists() else 0


def results(program: Path) -> list[dict[str, Any]]:
    path = program.with_name(program.stem.removeprefix("bot_") + ".pids.results")
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines()]


def wait_for(predicate: Callable[[], bool], what: str, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.02)


def gone(pid: int) -> bool:
    """Whether our child ``pid`` has ended and been reaped (no zombie left)."""
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        pass  # reaped already (by the server): what we want
    else:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def seat_hello(game: dict[str, Any]) -> dict[str, Any]:
    return {"type": "hello", "token": game["token"]}


# -- the operator's list ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda p: str(p / "missing.py"), "no such file"),
        (lambda p: str(p), "is a directory, not a program"),
        (lambda p: str(p / "plain.txt"), "is not executable (chmod +x"),
        (lambda p: "", "needs the path of a program"),
    ],
)
def test_allow_bot_exec_must_name_an_executable_file(
    tmp_path: Path, make: Callable[[Path], str], message: str
) -> None:
    (tmp_path / "plain.txt").write_text("not a program\n")
    spec = f"exec:{make(tmp_path)}" if make(tmp_path) else "exec:path="
    with pytest.raises(BotChoiceError) as caught:
        BotCatalogue.build({"mine": spec})
    text = str(caught.value)
    assert text.startswith("--allow-bot mine=exec:") and message in text
    assert "\n" not in text


def test_serve_refuses_a_missing_bot_program_in_one_line_with_status_2(tmp_path: Path) -> None:
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "marjolet.cli",
            "serve",
            "--db",
            str(tmp_path / "g.sqlite3"),
            "--allow-bot",
            f"mine=exec:{tmp_path / 'nope'}",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("marjolet: error: --allow-bot mine=exec:")
    assert "no such file" in lines[0]
    assert not (tmp_path / "g.sqlite3").exists()  # refused before any database is made


def test_an_allowed_program_path_is_stored_absolute_with_its_budget(
    tmp_path: Path, bot_program: BotProgram, monkeypatch: pytest.MonkeyPatch
) -> None:
    program = bot_program("good")
    monkeypatch.chdir(program.parent)
    catalogue = BotCatalogue.build(
        {"mine": f"exec:{program.name}", "quick": f"exec:path={program.name},budget_s=0.5"},
        defaults=False,
    )
    assert catalogue.choices["mine"].spec == f"exec:{program}"
    assert catalogue.choices["quick"].spec == f"exec:path={program},budget_s=0.5"
    assert started(program) == []  # checking an entry starts nothing


def test_the_default_list_never_offers_a_bot_that_runs_a_program(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    class WrappedProgram(ExternalBot):
        name = "test-wrapped-program"

    # a registered bot class that runs a program is left out like exec itself
    monkeypatch.setitem(registry._BOTS, WrappedProgram.name, "x:WrappedProgram")
    monkeypatch.setitem(registry._LOADED, WrappedProgram.name, WrappedProgram)
    catalogue = BotCatalogue.build()
    assert WrappedProgram.name not in catalogue.choices
    assert not any(starts_program(c.spec) for c in catalogue.choices.values())
    assert not any(c.spec.startswith("exec") for c in catalogue.choices.values())
    assert not starts_program(catalogue.hint_spec)


def test_a_browser_can_only_name_an_allowed_program_never_give_its_spec(
    tmp_path: Path, bot_program: BotProgram
) -> None:
    program = bot_program("good")
    config = fast_config(tmp_path / "g.sqlite3", allowed_bots={"mine": f"exec:{program}"})
    with live_server(config) as server, server.http() as client:
        options = client.get("/api/options")
        assert "mine" in {b["name"] for b in options.json()["bots"]}
        assert str(program) not in options.text and "exec" not in options.text
        for payload in (
            {"mode": "bot", "bot": f"exec:{program}"},
            {"mode": "bot", "bot": f"exec:path={program},budget_s=0.5"},
            {"mode": "bot", "bot": "exec:/bin/sh"},
            {"mode": "bot", "bot": "mine:budget_s=9"},
            {"mode": "bot", "bot": {"name": "mine"}},
            {"mode": "watch", "bots": ["random", "exec:/bin/sh"]},
            {"mode": "watch", "bots": [f"exec:{program}", "mine"]},
        ):
            response = client.post("/api/games", json=payload)
            assert response.status_code == 400, payload
            assert "unknown bot" in response.json()["error"]["message"]
        assert started(program) == []
        history = client.get("/api/games").json()["games"]
        assert history == []
        # the operator's name is what a browser uses
        assert client.post("/api/games", json={"mode": "bot", "bot": "mine"}).status_code == 200


# -- forfeits ----------------------------------------------------------------------------


def test_an_exec_bot_answering_garbage_forfeits_and_the_forfeit_is_stored_and_kept(
    tmp_path: Path, bot_program: BotProgram
) -> None:
    program = bot_program("garbage")
    db = tmp_path / "g.sqlite3"
    config = fast_config(db, allowed_bots={"garbler": f"exec:{program}"}, first_dealer=1)
    rng = random.Random(4)
    with live_server(config) as server:
        # first dealer 1: Ann (seat 0) leads, so the bot's program starts once she
        # is connected (a bot that moved before she came would leave with its idle
        # table and start again: test_a_table_that_leaves_memory...); its third
        # move is garbage
        game = server.new_game(mode="bot", bot="garbler", name="Ann")
        with Browser.open(server, game["id"], seat_hello(game)) as me:
            notice = None
            for _ in range(300):
                msg = me.recv()
                if msg["type"] == "notice":
                    notice = msg
                    break
                if msg["type"] == "state" and msg["legal"] and not msg["deal_over"]:
                    me.act(rng.choice(msg["legal"])["action"])
            assert notice is not None and "forfeit" in notice
            assert notice["message"].startswith("garbler broke down and forfeits the match")
            assert "JSON" in notice["message"] and notice["message"].endswith("Ann wins")
            assert "looking for the queen of spades" in notice["message"]
            forfeit = notice["forfeit"]
            assert forfeit["seat"] == 1 and forfeit["winner"] == 0 and forfeit["bot"] == "garbler"
            assert forfeit["stderr"] == ["looking for the queen of spades"]
            final = me.recv_until(lambda m: m["type"] == "state" and m["forfeit"] is not None)
            assert final["status"] == "finished" and final["match_over"]
            assert final["winner"] == 0 and final["legal"] == []
            # the table refuses every move from now on
            me.send({"type": "act", "action": "draw", "version": final["version"]})
            err = me.error()
            assert err["code"] == "match_over" and "forfeited" in err["message"]
        pids = started(program)
        assert len(pids) == 1
        wait_for(lambda: gone(pids[0]), "the broken bot program to be reaped")
        with server.http() as client:
            listed = next(g for g in client.get("/api/games").json()["games"])
            assert listed["status"] == "finished" and listed["winner"] == 0
            assert listed["forfeit"]["seat"] == 1 and "JSON" in listed["forfeit"]["reason"]
            text = client.get(f"/api/games/{game['id']}/record?form=json").text
        rec = record.loads(text)  # a valid record: the moves that were played
        replayed = record.replay(rec)
        assert replayed.winner is None and not replayed.deals[-1].complete
        assert sum(len(d.actions) for d in rec.deals) == listed["actions"] >= 3

    # the store itself, opened again: the forfeit is a property of the game
    store = Store(db)
    try:
        row = store.load_game(game["id"])
    finally:
        store.close()
    assert row is not None and row.status == "finished" and row.winner == 0
    assert row.forfeit is not None and row.forfeit.seat == 1 and row.forfeit.bot == "garbler"
    assert row.record() == rec

    # a restarted server shows the game over and never asks the bot again
    with live_server(config) as server, Browser.open(server, game["id"], seat_hello(game)) as me:
        state = me.next_state()
        assert state["status"] == "finished" and state["forfeit"]["seat"] == 1
        assert state["match_over"] and state["winner"] == 0 and state["legal"] == []
        time.sleep(0.3)
        assert started(program) == pids
        assert server.app.state.hub.tables[game["id"]].bots == {}


def test_a_bot_program_that_exits_forfeits_a_watched_match_for_good_even_after_sigkill(
    tmp_path: Path, bot_program: BotProgram
) -> None:
    program = bot_program("exit")
    db = tmp_path / "g.sqlite3"
    allow = ("--allow-bot", f"quitter=exec:{program}", "--watch-delay", "0")
    with serve_process(db, *allow) as (proc, base):
        server = LiveServer(base, None, None)  # type: ignore[arg-type]
        game = server.new_game(mode="watch", bots=["quitter", "random"])

        def summary() -> dict[str, Any]:
            games = httpx.get(f"{base}/api/games", timeout=10).json()["games"]
            found: dict[str, Any] = next(g for g in games if g["id"] == game["id"])
            return found

        wait_for(lambda: summary()["status"] == "finished", "the forfeit")
        before = summary()
        assert before["winner"] == 1 and before["forfeit"]["seat"] == 0
        assert "exited with status 3" in before["forfeit"]["reason"]
        assert before["forfeit"]["stderr"] == ["out of memory, giving up"]
        pids = started(program)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)
    with serve_process(db, *allow) as (_proc, base):
        server = LiveServer(base, None, None)  # type: ignore[arg-type]
        with Browser.open(server, game["id"], {"type": "hello", "watch": True}) as viewer:
            state = viewer.next_state()
            assert state["match_over"] and state["winner"] == 1
            assert state["forfeit"]["reason"] == before["forfeit"]["reason"]
        after = httpx.get(f"{base}/api/games", timeout=10).json()["games"][0]
        assert after["status"] == "finished" and after["forfeit"] == before["forfeit"]
        assert after["actions"] == before["actions"]
        assert started(program) == pids  # no bot was asked to move again


# -- no program outlives its table or the server -----------------------------------------


def test_a_table_that_leaves_memory_reaps_its_bot_program_and_comes_back(
    tmp_path: Path, bot_program: BotProgram
) -> None:
    program = bot_program("good")
    config = fast_config(
        tmp_path / "g.sqlite3", allowed_bots={"mine": f"exec:{program}"}, first_dealer=0
    )
    with live_server(config) as server:
        game = server.new_game(mode="bot", bot="mine")  # the bot leads at once
        wait_for(lambda: len(started(program)) == 1, "the bot program to start")
        hub = server.app.state.hub
        # nobody is connected: once the bot has played, the table unloads
        wait_for(lambda: game["id"] not in hub.tables, "the idle table to unload")
        first = started(program)[0]
        wait_for(lambda: gone(first), "the bot program of the unloaded table to be reaped")
        with Browser.open(server, game["id"], seat_hello(game)) as me:
            # play on until the bot moves again (a won trick may keep the turn here)
            for _ in range(100):
                msg = me.next_state()
                if msg.get("last_action", {}).get("player") == 1:
                    break
                if msg["legal"] and not msg["deal_over"]:
                    me.act(msg["legal"][0]["action"])
            else:
                pytest.fail("the bot of the reloaded table never moved")
        assert len(started(program)) == 2  # a fresh program for the reloaded table


def test_shutdown_reaps_every_bot_program_even_one_thinking_and_it_is_no_forfeit(
    tmp_path: Path, bot_program: BotProgram
) -> None:
    slow, good = bot_program("slow"), bot_program("good")
    db = tmp_path / "g.sqlite3"
    config = fast_config(
        db,
        allowed_bots={"slow": f"exec:{slow}", "good": f"exec:{good}"},
        first_dealer=0,
        watch_delay=0.2,
    )
    with live_server(config) as server:
        # seat 1 leads: the slow program thinks for ever, the good one plays on
        thinking = server.new_game(mode="watch", bots=["random", "slow"])
        playing = server.new_game(mode="watch", bots=["random", "good"])
        # the slow one is inside its move, the good one has played (it was asked again)
        wait_for(lambda: asked(slow) >= 1 and asked(good) >= 2, "both programs to be asked")
        assert not gone(started(slow)[0]) and not gone(started(good)[0])
    for pid in started(slow) + started(good):
        assert gone(pid), f"bot program {pid} outlived the server"
    store = Store(db)
    try:
        for game_id in (thinking["id"], playing["id"]):
            row = store.load_game(game_id)
            assert row is not None and row.status == "playing" and row.forfeit is None
    finally:
        store.close()


def test_a_finished_match_tells_the_program_the_result_and_closes_it(
    tmp_path: Path, bot_program: BotProgram
) -> None:
    program = bot_program("good")
    config = fast_config(tmp_path / "g.sqlite3", allowed_bots={"mine": f"exec:{program}"})
    with live_server(config) as server:
        game = server.new_game(
            mode="watch", bots=["mine", "random"], rules={"profile": "classic", "target": 100}
        )
        with Browser.open(server, game["id"], {"type": "hello", "watch": True}) as viewer:
            final = viewer.recv_until(lambda m: m["type"] == "state" and m["match_over"], 120)
        wait_for(lambda: bool(results(program)), "the result message")
        pids = started(program)
        assert len(pids) == 1
        wait_for(lambda: gone(pids[0]), "the program to be closed after the match")
    [result] = results(program)
    assert result["cmd"] == "result" and result["winner"] == final["winner"]
    assert result["totals"] == final["totals"]


def test_a_stored_game_runs_its_program_only_while_the_operator_allows_it(
    tmp_path: Path, bot_program: BotProgram
) -> None:
    program = bot_program("good")
    db = tmp_path / "g.sqlite3"
    allowed = fast_config(db, allowed_bots={"mine": f"exec:{program}"}, first_dealer=1)
    with live_server(allowed) as server:
        game = server.new_game(mode="bot", bot="mine")  # seat 0 leads: nothing starts yet
    with (
        live_server(fast_config(db, first_dealer=1)) as server,
        Browser.open(server, game["id"], seat_hello(game)) as me,
    ):
        err = me.error()
        assert err["code"] == "bot_unavailable" and "'mine'" in err["message"]
        assert "--allow-bot" in err["message"] and str(program) not in err["message"]
        with server.http() as client:
            assert client.get("/api/games").json()["games"][0]["status"] == "playing"
    assert started(program) == []
    with live_server(allowed) as server, Browser.open(server, game["id"], seat_hello(game)) as me:
        state = me.next_state()
        me.act(state["legal"][0]["action"])
        wait_for(lambda: len(started(program)) == 1, "the allowed program to play again")
