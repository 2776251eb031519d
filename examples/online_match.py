#!/usr/bin/env python3
"""Play a rated match between two new accounts on a running ``marjolet serve``,
through the documented API only (docs/web.md): a check of the online API
apart from the project's tests. It imports nothing from ``marjolet``.

    marjolet serve --port 8000 &
    python examples/online_match.py http://127.0.0.1:8000

It creates two accounts, posts a rated offer (to 100 points) as the first,
accepts it as the second, learns the first's seat over the lobby socket,
plays both seats with random legal moves over the table sockets (each
taking its seat with its account's session cookie), then prints both
profiles and checks the ratings against Glicko-2 computed here from
Glickman's formulas. Exit status 0 when everything agrees, 1 otherwise.
Needs ``httpx`` and ``websockets`` (the ``web`` extra has both).
"""

from __future__ import annotations

import argparse
import json
import math
import random
import secrets
import sys
import threading
import time
from typing import Any

import httpx
from websockets.exceptions import WebSocketException
from websockets.sync.client import connect

COOKIE = "marjolet_session"
SCALE = 173.7178


def glicko2_one_game(
    me: tuple[float, float, float], other: tuple[float, float], score: float, tau: float
) -> tuple[float, float, float]:
    """Glickman's steps 2-8 for one game (rating, RD, volatility)."""
    mu, phi, sigma = (me[0] - 1500) / SCALE, me[1] / SCALE, me[2]
    mu_j, phi_j = (other[0] - 1500) / SCALE, other[1] / SCALE
    g = 1 / math.sqrt(1 + 3 * phi_j**2 / math.pi**2)
    e = 1 / (1 + math.exp(-g * (mu - mu_j)))
    v = 1 / (g**2 * e * (1 - e))
    delta = v * g * (score - e)
    a = math.log(sigma**2)

    def f(x: float) -> float:
        ex = math.exp(x)
        return ex * (delta**2 - phi**2 - v - ex) / (2 * (phi**2 + v + ex) ** 2) - (x - a) / tau**2

    lo = a
    if delta**2 > phi**2 + v:
        hi = math.log(delta**2 - phi**2 - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        hi = a - k * tau
    f_lo, f_hi = f(lo), f(hi)
    while abs(hi - lo) > 1e-6:
        c = lo + (lo - hi) * f_lo / (f_hi - f_lo)
        f_c = f(c)
        if f_c * f_hi <= 0:
            lo, f_lo = hi, f_hi
        else:
            f_lo /= 2
        hi, f_hi = c, f_c
    sigma2 = math.exp(lo / 2)
    phi_star = math.sqrt(phi**2 + sigma2**2)
    phi2 = 1 / math.sqrt(1 / phi_star**2 + 1 / v)
    mu2 = mu + phi2**2 * g * (score - e)
    return SCALE * mu2 + 1500, SCALE * phi2, sigma2


def ws_url(base: str, path: str) -> str:
    return "ws" + base[len("http") :] + path


def play(base: str, game_id: str, cookie: str, seed: int, out: dict[int, Any]) -> None:
    """Play one seat with random legal moves until the match is over."""
    rng = random.Random(seed)
    headers = {"Cookie": f"{COOKIE}={cookie}"}
    with connect(ws_url(base, f"/ws/{game_id}"), additional_headers=headers) as ws:
        ws.send(json.dumps({"type": "hello", "account": True}))
        seat = None
        while True:
            msg = json.loads(ws.recv(timeout=60))
            if msg["type"] == "welcome":
                seat = msg["seat"]
            if msg["type"] != "state":
                continue
            if msg["match_over"]:
                out[seat] = msg
                return
            if msg["deal_over"]:
                ws.send(json.dumps({"type": "next", "version": msg["version"]}))
            elif msg["legal"]:
                action = rng.choice(msg["legal"])["action"]
                ws.send(json.dumps({"type": "act", "action": action, "version": msg["version"]}))


def main(base: str) -> int:
    suffix = secrets.token_hex(3)
    names = [f"ann_{suffix}", f"ben_{suffix}"]
    clients = [httpx.Client(base_url=base, timeout=30) for _ in names]
    for client, name in zip(clients, names, strict=True):
        answer = client.post("/api/accounts", json={"name": name, "password": "a long password"})
        if answer.status_code != 201:
            print(f"sign-up failed: {answer.text}")
            return 1
    system = clients[0].get("/api/rating-system").json()
    before = [clients[0].get(f"/api/players/{n}").json()["rating"] for n in names]
    seek = (
        clients[0]
        .post("/api/seeks", json={"rules": {"profile": "classic", "target": 100}, "rated": True})
        .json()
    )
    headers = {"Cookie": f"{COOKIE}={clients[0].cookies[COOKIE]}"}
    with connect(ws_url(base, "/ws/lobby"), additional_headers=headers) as lobby:
        lobby.send(json.dumps({"type": "follow", "seek": seek["id"]}))
        theirs = clients[1].post(f"/api/seeks/{seek['id']}/accept", json={}).json()
        while (msg := json.loads(lobby.recv(timeout=30)))["type"] != "matched":
            pass
    mine = msg["game"]
    print(f"game {mine['id']}: {names[0]} seat {mine['seat']}, {names[1]} seat {theirs['seat']}")
    finals: dict[int, Any] = {}
    threads = [
        threading.Thread(target=play, args=(base, mine["id"], c.cookies[COOKIE], i, finals))
        for i, c in enumerate(clients)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(600)
    winner_seat = finals[mine["seat"]]["winner"]
    score_first = 1.0 if winner_seat == mine["seat"] else 0.0
    time.sleep(0.5)  # the result is rated as the match ends
    ok = True
    for i, name in enumerate(names):
        r = before[i]
        o = before[1 - i]
        score = score_first if i == 0 else 1 - score_first
        expected = glicko2_one_game(
            (r["value"], r["rd"], r["volatility"]), (o["value"], o["rd"]), score, system["tau"]
        )
        got = clients[i].get(f"/api/players/{name}").json()["rating"]
        agree = abs(got["value"] - expected[0]) < 0.01 and abs(got["rd"] - expected[1]) < 0.01
        ok = ok and agree
        print(
            f"{name}: {got['value']:.2f}/{got['rd']:.2f}"
            f" expected {expected[0]:.2f}/{expected[1]:.2f}"
            f" {'ok' if agree else 'DIFFERENT'}"
        )
    return 0 if ok else 1


def run(argv: list[str] | None = None) -> int:
    """The command line: the server's address; a server that cannot be
    reached or answers out of the API is said in one line (status 2)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("base", nargs="?", default="http://127.0.0.1:8000",
                        help="the server's address (default: %(default)s)")  # fmt: skip
    base = parser.parse_args(argv).base
    try:
        return main(base)
    except (httpx.HTTPError, WebSocketException, OSError, TimeoutError) as exc:
        print(f"online_match: {base}: {type(exc).__name__}: {exc}", file=sys.stderr)
    except (KeyError, TypeError, ValueError) as exc:  # an answer out of the documented API
        print(f"online_match: {base}: unexpected answer ({type(exc).__name__}: {exc})",
              file=sys.stderr)  # fmt: skip
    return 2


if __name__ == "__main__":
    sys.exit(run())
