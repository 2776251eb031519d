"""R23 over the wire: no message to a seat ever names a card hidden from it.

Whole matches are played over WebSockets (a person against a bot, and two
people at one table); every message each seat received is kept, and checked
afterwards against the true deal at the moment it was sent, rebuilt from the
stored record. The hidden cards are worked out here from the deal itself
(not from the server's own observation code): the opponent's hand except its
exposed cards and the indicator it took by exchanging the seven, and every
undrawn stock card except the face-up indicator; nothing once the stock is
empty (both hands are known by elimination).
"""

from __future__ import annotations

import json
import random
import re
import threading
from pathlib import Path
from typing import Any

from marjolet import record
from marjolet.actions import DIX
from marjolet.cards import CARD_NAMES, RANK_NAMES, SUIT_SYMBOLS, mask_cards
from marjolet.engine import Deal
from marjolet.match import Match
from web_support import Browser, LiveServer, fast_config, live_server, play_until

CARD_TOKEN = re.compile(r"(?<![A-Za-z0-9])(?:[789TJQKA]|10)[CDHS♣♦♥♠](?![A-Za-z0-9])")
SYMBOL_TEXT = {RANK_NAMES[c & 7] + SUIT_SYMBOLS[c >> 3]: CARD_NAMES[c] for c in range(32)}


def cards_named(text: str) -> set[str]:
    """Every card named anywhere in a message (record names and symbols)."""
    out = set()
    for token in CARD_TOKEN.findall(text):
        out.add(SYMBOL_TEXT.get(token, token.replace("10", "T")))
    return out


def hidden_from(deal: Deal, seat: int, took_by_dix: dict[int, int]) -> set[str]:
    """The cards ``seat`` cannot see in ``deal`` (R23), from the deal itself."""
    if deal.stock_empty:
        return set()
    opp = seat ^ 1
    hand = deal.hand_mask(opp) & ~deal.exposed(opp).mask
    if opp in took_by_dix:
        hand &= ~(1 << took_by_dix[opp])
    hidden = {CARD_NAMES[c] for c in mask_cards(hand)}
    drawn = 2 * deal.tricks_played - (2 if deal.in_window else 0)
    assert deal.deck is not None
    undrawn = deal.stock[drawn:]
    hidden |= {CARD_NAMES[c] for c in undrawn if c != deal.indicator}
    return hidden


def hidden_by_version(rec: record.Record, seat: int) -> dict[int, set[str]]:
    """The hidden cards of ``seat`` after each version of the game (a
    version counts the deals started and the actions played)."""
    match = Match(rec.rules, first_dealer=rec.first_dealer, seed=0)
    out: dict[int, set[str]] = {}
    version = 0
    for deal_record in rec.deals:
        deal = match.start_deal(deal_record.deck)
        took: dict[int, int] = {}
        version += 1
        out[version] = hidden_from(deal, seat, took)
        for action in deal_record.actions:
            if action == DIX:
                took[deal.to_move] = deal.indicator
            match.play(action)
            version += 1
            out[version] = hidden_from(deal, seat, took)
    return out


def check_messages(messages: list[str], rec: record.Record, seat: int) -> None:
    """Assert that no message names a hidden card, and that the seat was sent
    the state of every version of the match from the one it joined at (so the
    check covered all of it, however short the match was; a bot may have
    moved before the seat's first message)."""
    hidden = hidden_by_version(rec, seat)
    version = 0
    states_seen = set()
    for text in messages:
        msg = json.loads(text)
        if msg["type"] in ("state", "hint"):
            version = msg["version"]
        if msg["type"] == "state":
            states_seen.add(version)
        leaked = cards_named(text) & hidden.get(version, set())
        assert not leaked, (
            f"seat {seat} was sent hidden cards {sorted(leaked)} at version {version}: {text[:300]}"
        )
    assert states_seen, f"seat {seat} was sent no state"
    missing = sorted(v for v in hidden if v >= min(states_seen) and v not in states_seen)
    assert not missing, f"seat {seat} was never sent versions {missing[:10]} of {len(hidden)}"


def stored_record(server: LiveServer, game_id: str) -> record.Record:
    with server.http() as client:
        response = client.get(f"/api/games/{game_id}/record?form=json")
        assert response.headers["X-Marjolet-Complete"] == "true"
        return record.loads(response.text)


def test_r23_no_message_to_a_player_names_a_hidden_card_in_whole_matches(tmp_path: Path) -> None:
    with live_server(fast_config(tmp_path / "g.sqlite3")) as server:
        for seed in (11, 12):
            game = server.new_game(mode="bot", bot="random")
            rng = random.Random(seed)
            with Browser.open(server, game["id"], {"type": "hello", "token": game["token"]}) as me:
                steps = 0

                def choose(state: dict[str, Any], rng: random.Random = rng) -> str:
                    nonlocal steps
                    steps += 1
                    if steps % 7 == 0:  # ask for hints and make mistakes along the way
                        me.send({"type": "hint"})
                        me.send({"type": "act", "action": "draw", "version": state["version"]})
                        me.send({"type": "act", "action": "AS", "version": state["version"] - 1})
                    return str(rng.choice(state["legal"])["action"])

                play_until(me, lambda s: bool(s["match_over"]), rng, choose=choose)
                me.send({"type": "ping"})
                me.recv_until(lambda m: m["type"] == "pong")
            rec = stored_record(server, game["id"])
            check_messages(me.received, rec, 0)


def test_r23_two_people_at_one_table_never_see_each_others_hidden_cards(tmp_path: Path) -> None:
    with live_server(fast_config(tmp_path / "g.sqlite3")) as server:
        game = server.new_game(mode="friend", name="A", rules={"profile": "classic", "target": 200})
        invite = game["invite_url"].split("#invite=")[1]
        with server.http() as client:
            joined = client.post(f"/api/games/{game['id']}/join", json={"invite": invite}).json()
        received: dict[int, list[str]] = {}
        errors: list[BaseException] = []

        def player(seat: int, token: str) -> None:
            rng = random.Random(seat)
            try:
                with Browser.open(server, game["id"], {"type": "hello", "token": token}) as me:
                    play_until(me, lambda s: bool(s["match_over"]), rng)
                    received[seat] = me.received
            except BaseException as exc:  # reported by the main thread
                errors.append(exc)

        threads = [
            threading.Thread(target=player, args=(0, game["token"])),
            threading.Thread(target=player, args=(1, joined["token"])),
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join(120)
        assert not errors, errors
        rec = stored_record(server, game["id"])
        check_messages(received[0], rec, 0)
        check_messages(received[1], rec, 1)


def test_the_leak_check_itself_catches_a_hidden_card() -> None:
    rec = record.Record(deals=(record.DealRecord(tuple(range(32))),))
    hidden = hidden_by_version(rec, 0)[1]
    deal = Deal(tuple(range(32)), 0)
    opponent_card = CARD_NAMES[mask_cards(deal.hand_mask(1))[0]]
    assert opponent_card in hidden
    assert CARD_NAMES[deal.indicator] not in hidden
    assert cards_named(f'{{"x": "{opponent_card}", "m": "meld KQH"}}') == {opponent_card}
