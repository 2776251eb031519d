"""Helpers of the web tests: a real server on 127.0.0.1 and scripted browsers.

The server runs with uvicorn in a thread (port 0: a free port), so the tests
talk to it over real HTTP and WebSockets with time-outs: a broken server
fails a test instead of hanging it.
"""

from __future__ import annotations

import json
import queue
import random
import re
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx
import pytest
import uvicorn
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect
from websockets.typing import Origin

from marjolet.web.app import create_app
from marjolet.web.config import WebConfig
from marjolet.web.db import reader
from marjolet.web.security import TRANSPORT_MAX
from marjolet.web.store import GameRow, read_game

if TYPE_CHECKING:
    from playwright.sync_api import Browser as Chromium
    from playwright.sync_api import Page, ViewportSize

TIMEOUT = 20.0
#: The two screens the browser tests look at.
PHONE: ViewportSize = {"width": 390, "height": 844}
DESKTOP: ViewportSize = {"width": 1280, "height": 800}


@dataclass
class LiveServer:
    base: str
    app: Any
    server: uvicorn.Server

    @property
    def ws_base(self) -> str:
        return "ws" + self.base[len("http") :]

    def http(self) -> httpx.Client:
        return httpx.Client(base_url=self.base, timeout=TIMEOUT)

    def new_game(self, **payload: Any) -> dict[str, Any]:
        with self.http() as client:
            response = client.post("/api/games", json=payload)
            assert response.status_code == 200, response.text
            data: dict[str, Any] = response.json()
            return data


@contextmanager
def live_server(
    config: WebConfig, port: int = 0, seed: int | None = None, **options: Any
) -> Iterator[LiveServer]:
    """A running server for ``config``; stopped at the end of the block.
    With ``seed``, the server deals, picks first dealers and seeds its bots
    from ``random.Random(seed)`` instead of the system's strong source, so a
    test that plays whole games plays the same ones on every run.
    ``options`` go to ``uvicorn.Config`` beside the address and the
    WebSocket message limit ``marjolet serve`` sets."""
    app = create_app(config)
    server = uvicorn.Server(
        uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning",
                      ws_max_size=TRANSPORT_MAX, **options)
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + TIMEOUT
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the test server did not start")
        time.sleep(0.01)
    port = server.servers[0].sockets[0].getsockname()[1]
    if seed is not None:
        app.state.hub.rng = random.Random(seed)
    try:
        yield LiveServer(f"http://127.0.0.1:{port}", app, server)
    finally:
        server.should_exit = True
        thread.join(TIMEOUT)


def move_schema(engine: Any, revision: str, *, down: bool = False) -> None:
    """Bring ``engine``'s database to ``revision`` with Alembic's own
    commands (up, or ``down``), as an older marjolet would have left it."""
    from alembic import command
    from alembic.config import Config

    from marjolet.web.db import MIGRATIONS

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        (command.downgrade if down else command.upgrade)(config, revision)


@contextmanager
def marriage_table_server(
    folder: Path, seed: int | None = None, **changes: Any
) -> Iterator[LiveServer]:
    """A server whose every deal is the same: seat 1 deals, and seat 0 leads
    the ace of trumps, takes trick 1 and may declare the trump marriage;
    bots answer at once. ``changes``: more settings (:func:`fast_config`)."""
    from helpers import deck_for

    deck = deck_for("AS KS QS 7H 8H 9H", "7C 8C 9C 7D 8D 9D", "JS")
    config = fast_config(
        folder / "g.sqlite3", bot_delay=0.02, first_dealer=1, deck_for=lambda i: deck, **changes
    )
    with live_server(config, seed=seed) as srv:
        yield srv


def fast_config(db: Any, **changes: Any) -> WebConfig:
    """Production settings with bots that answer at once and no limit on
    how fast a scripted player may send."""
    base: dict[str, Any] = {
        "db_path": db,
        "bot_delay": 0.0,
        "watch_delay": 0.0,
        "rate_per_second": 1000.0,  # scripted players are faster than people
        "rate_burst": 1000,
    }
    base.update(changes)
    return WebConfig(**base)


SERVING = re.compile(r"serving on (http://127\.0\.0\.1:\d+)/")


@contextmanager
def serve_process(
    db: Path | str, *extra: str, output: list[str] | None = None
) -> Iterator[tuple[subprocess.Popen[str], str]]:
    """``marjolet serve --port 0`` in a child process; yields it and its
    address (and keeps every line it prints in ``output``, if given)."""
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "marjolet.cli",
            "serve",
            "--port",
            "0",
            "--db",
            str(db),
            "--bot-delay",
            "0",
            "--rate-limit",
            "1000",  # a scripted player is faster than a person
            "--log-level",
            "warning",
            *extra,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    lines: queue.Queue[str] = queue.Queue()
    assert proc.stdout is not None
    out = proc.stdout
    threading.Thread(target=_pump, args=(out, lines, output), daemon=True).start()
    seen: list[str] = []
    deadline = time.monotonic() + 30
    base = None
    while base is None:
        try:
            line = lines.get(timeout=max(0.1, deadline - time.monotonic()))
        except queue.Empty:
            proc.kill()
            pytest.fail(f"marjolet serve did not start: {''.join(seen)}")
        seen.append(line)
        found = SERVING.search(line)
        if found:
            base = found.group(1)
    try:
        yield proc, base
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait(10)


def _pump(stream: Any, lines: queue.Queue[str], output: list[str] | None) -> None:
    for line in stream:
        lines.put(line)
        if output is not None:
            output.append(line)


@dataclass
class Browser:
    """One scripted WebSocket client: every message it receives is kept."""

    ws: ClientConnection
    received: list[str] = field(default_factory=list)
    state: dict[str, Any] | None = None

    @classmethod
    @contextmanager
    def open(
        cls, server: LiveServer, game_id: str, hello: dict[str, Any], *, origin: bool = False
    ) -> Iterator[Browser]:
        """A seat's socket; with ``origin``, sent with the site's Origin as
        a browser sends it."""
        url = f"{server.ws_base}/ws/{game_id}"
        site = Origin(server.base) if origin else None
        with connect(url, open_timeout=TIMEOUT, max_size=2**22, origin=site) as ws:
            browser = cls(ws)
            browser.send(hello)
            yield browser

    def send(self, message: dict[str, Any] | str) -> None:
        self.ws.send(message if isinstance(message, str) else json.dumps(message))

    def recv(self, timeout: float = TIMEOUT) -> dict[str, Any]:
        text = self.ws.recv(timeout=timeout)
        assert isinstance(text, str)
        self.received.append(text)
        msg: dict[str, Any] = json.loads(text)
        if msg["type"] == "state":
            self.state = msg
        return msg

    def recv_until(
        self, predicate: Callable[[dict[str, Any]], bool], timeout: float = TIMEOUT
    ) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("the expected message did not come")
            msg = self.recv(left)
            if predicate(msg):
                return msg

    def next_state(self, timeout: float = TIMEOUT) -> dict[str, Any]:
        return self.recv_until(lambda m: m["type"] == "state", timeout)

    def error(self, timeout: float = TIMEOUT) -> dict[str, Any]:
        return self.recv_until(lambda m: m["type"] == "error", timeout)

    def closed(self, timeout: float = TIMEOUT) -> bool:
        """True once the server closed the connection."""
        deadline = time.monotonic() + timeout
        try:
            while time.monotonic() < deadline:
                self.recv(deadline - time.monotonic())
        except ConnectionClosed:
            return True
        except TimeoutError:
            return False
        return False

    def my_turn(self) -> bool:
        s = self.state
        return bool(s and s["legal"] and not s["deal_over"])

    def act(self, action: str) -> None:
        assert self.state is not None
        self.send({"type": "act", "action": action, "version": self.state["version"]})


class Clock:
    """A clock the test moves by hand (leases, "Play now" places)."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def read_stored(server: LiveServer, game_id: str) -> GameRow | None:
    """A game as the server stored it, read through a connection of the
    test's own: the store's one connection belongs to the server's writer
    thread (a read on it from another thread ended the writer's
    transaction under it: "transaction already deassociated")."""
    with reader(server.app.state.hub.ledger.engine).connect() as db:
        return read_game(db, game_id)


def wait_matched(client: httpx.Client, key: str, timeout: float = 40) -> dict[str, Any]:
    """Poll a "Play now" place (each poll is its player's sign of life)
    until it is matched; the seat of the game found."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        status = client.get(f"/api/play-now/{key}")
        assert status.status_code == 200, status.text
        if status.json()["status"] == "matched":
            game: dict[str, Any] = status.json()["game"]
            return game
        time.sleep(0.1)
    raise AssertionError("the place was not matched")


def play_until(
    browser: Browser,
    done: Callable[[dict[str, Any]], bool],
    rng: random.Random,
    *,
    choose: Callable[[dict[str, Any]], str] | None = None,
    max_steps: int = 5000,
) -> dict[str, Any]:
    """Play this seat with random legal actions (starting each next deal)
    until ``done(state)``; returns that state."""
    for _ in range(max_steps):
        state = browser.state or browser.next_state()
        if done(state):
            return state
        if state["deal_over"] and not state["match_over"]:
            browser.send({"type": "next", "version": state["version"]})
        elif state["legal"]:
            action = choose(state) if choose else rng.choice(state["legal"])["action"]
            browser.act(action)
        browser.state = None
        browser.next_state()
    raise AssertionError("the game did not reach the expected point")


def play_ahead(
    server: LiveServer,
    game: dict[str, Any],
    done: Callable[[dict[str, Any]], bool],
    seed: int = 5,
) -> dict[str, Any]:
    """Play a seat of ``game`` (as ``server.new_game`` returned it) over its
    socket, with random legal moves, until ``done(state)``: a browser test
    gets to a late point of a game without clicking every move (see
    :func:`play_until`); returns that state, the socket closed."""
    hello = {"type": "hello", "token": game["token"]}
    with Browser.open(server, game["id"], hello) as seat:
        return play_until(seat, done, random.Random(seed))


def last_card_to_play(state: dict[str, Any]) -> bool:
    """This seat is to play the last card of its hand: one move before its
    deal ends."""
    hand = state["hands"][state["seat"]]["size"]
    return bool(state["legal"]) and not state["deal_over"] and hand == 1


def open_reviewed(page: Any, base: str, game_id: str, review: dict[str, Any]) -> None:
    """The replay of ``game_id`` opened with its review, the server's answer
    to the page's review request replaced by ``review`` (done at once)."""

    def answer(route: Any) -> None:
        route.fulfill(content_type="application/json",
                      body=json.dumps({"status": "done", "review": review}))

    page.route(re.compile(r".*/api/games/[^/]+/review$"), answer)
    page.goto(f"{base}/replay?game={game_id}&review=1")


def exact_decision(
    deal: dict[str, Any], action: int, seat: int, judgement: str | None
) -> dict[str, Any]:
    """A stored review's exact decision at ``action`` of a record's ``deal``
    by ``seat``, losing what ``judgement`` takes (none: nothing lost)."""
    played = deal["actions"][action]
    best = "TS" if played != "TS" else "TC"
    loss = {"inaccuracy": 10, "mistake": 20, "blunder": 40, None: 0}[judgement]
    return {"deal": 0, "action": action, "seat": seat, "trick": 1 + action // 4,
            "played": played, "best": [best], "value_played": -loss, "value_best": 0,
            "loss": loss, "exact": True, "view": "ending", "method": "solver",
            "values": {best: 0, played: -loss}, "judgement": judgement}


@contextmanager
def first_deal_reviewable(
    folder: Path,
) -> Iterator[tuple[LiveServer, dict[str, Any], dict[str, Any]]]:
    """A server with a game against the beginner whose first deal is over
    (seeded; the match goes on to 1000, so the game stays open), its seat
    having given no name: the server, the game and its record (JSON)."""
    with live_server(fast_config(folder / "games.sqlite3")) as server:
        server.app.state.hub.rng = random.Random(2)
        game = server.new_game(
            mode="bot", level="beginner", rules={"profile": "classic", "target": 1000}
        )
        play_ahead(server, game, lambda s: bool(s["deal_over"]), seed=3)
        with server.http() as client:
            record = client.get(f"/api/games/{game['id']}/record?form=json").json()
        yield server, game, record


def mistyped(code: str) -> str:
    """``code`` with its first character changed: surely another code
    (``"x" + code[1:]`` was the code itself once in 64)."""
    return ("y" if code[0] == "x" else "x") + code[1:]


def newer_state(version: int, message: dict[str, Any]) -> bool:
    """A state message past ``version``."""
    return bool(message["type"] == "state" and message["version"] > version)


def first_moves(*seats: Browser) -> dict[str, Any]:
    """Both seats of a two-person game, each a welcomed socket, play legal
    moves until each has made a move of its own (``moved`` of the state):
    from then on a claim against either one is a win, not an abort.
    Returns the last state the first socket saw."""
    for _ in range(20):
        states = [seat.state or seat.next_state() for seat in seats]
        if all(states[0]["moved"]):
            return states[0]
        mover = next((seat for seat in seats if seat.my_turn()), None)
        assert mover is not None, "nobody is to move"
        mover.act(mover.state["legal"][0]["action"])  # type: ignore[index]
        before: int = states[0]["version"]
        for seat in seats:
            seat.state = None
            seat.recv_until(partial(newer_state, before))
    raise AssertionError("the seats did not both move")


CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]

needs_chromium = pytest.mark.skipif(
    not Path(CHROMIUM).exists(),
    reason=f"Debian's Chromium is not installed at {CHROMIUM} "
    "(run scripts/install-chromium.sh as root)",
)
"""The browser tests' mark: Debian's Chromium, never ``playwright install``."""


#: A page's test (``page.wait_for_function(STILL)``): true once no finite
#: animation or transition runs. A card still on its way overlaps what it
#: passes and a lift half done is half as high, so a test measures a page
#: after it, never after a fixed wait (which a loaded machine outlasts).
STILL = """() => document.getAnimations().every(
  (a) => a.playState !== 'running' || a.effect.getComputedTiming().iterations === Infinity)"""


@contextmanager
def launch_chromium() -> Iterator[Chromium]:
    """Debian's headless Chromium driven by Playwright, closed at the end."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


def open_watched_page(chromium: Chromium, **context_options: Any) -> Page:
    """A page in a new browser context that keeps every error it raises,
    for :func:`close_watched_page` to check."""
    context = chromium.new_context(**context_options)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.errors = errors  # type: ignore[attr-defined]
    return page


def close_watched_page(page: Page) -> None:
    """Close the page's context; fail if the page raised a script error."""
    errors: list[str] = page.errors  # type: ignore[attr-defined]
    page.context.close()
    assert not errors, f"the page raised: {errors}"


@contextmanager
def watched_page(chromium: Chromium, **context_options: Any) -> Iterator[Page]:
    """:func:`open_watched_page` for the length of a block."""
    page = open_watched_page(chromium, **context_options)
    yield page
    close_watched_page(page)


def start_against_random(
    page: Page, base: str, name: str = "Ann", ready: str = ".hand.mine .card"
) -> None:
    """From the lobby at ``base``, ``name`` starts a game against the
    random bot; returns once ``ready`` (a selector) is on the table."""
    page.goto(base + "/")
    page.wait_for_selector("#bot-program option", state="attached")
    if not page.is_checked("#research"):  # the research bots: asked for in the settings
        page.click(".prefs-menu summary")
        page.check("#research")
        page.click(".prefs-menu summary")
    page.click("#vs-bot .programs summary")  # then in a fold
    page.select_option("#bot-program", "random")
    page.fill("#vs-bot input[name=name]", name)
    page.click("#vs-bot button[type=submit]")
    page.wait_for_url("**/game/**")
    page.wait_for_selector(ready)


def at_once(*calls: Callable[[], Any], timeout: float = 30.0) -> list[Any]:
    """Run ``calls`` in threads released together by one barrier (a race
    between two requests); their results, in the order the calls finished."""
    go = threading.Barrier(len(calls))
    results: list[Any] = []

    def run(call: Callable[[], Any]) -> None:
        go.wait(10)
        results.append(call())

    threads = [threading.Thread(target=run, args=(call,)) for call in calls]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout)
    return results
