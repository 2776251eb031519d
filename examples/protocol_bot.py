#!/usr/bin/env python3
"""A Marjolet bot in one file that speaks ``marjolet-bot/1`` and nothing else.

It imports nothing from ``marjolet``: the protocol carries all a bot needs.
Plug it in wherever a bot spec is accepted::

    chmod +x examples/protocol_bot.py
    marjolet arena exec:examples/protocol_bot.py heuristic --matches 20
    marjolet play --opponent exec:examples/protocol_bot.py

Its play is greedy and stateless, worked out from each ``act`` alone:
declare the best meld on offer and exchange the seven whenever it may, then
draw; lead a low card that is worth nothing; when following, take a trick
that holds an ace or a ten as cheaply as possible, otherwise throw the
cheapest card. Standard error is for logs (``--verbose`` shows each move).
"""

import json
import random
import sys

RANKS = "789JQKTA"  # low to high within a suit
MELD_VALUE = {"4A": 100, "4T": 80, "4K": 60, "4Q": 40}


def rank(card):
    return RANKS.index(card[0])


def suit(card):
    return card[1]


def card_points(card):
    return 10 if card[0] in "AT" else 0


def meld_value(meld, trump):
    """Points of ``meld ID`` (four of a kind, else 40 in trumps, 20 otherwise)."""
    ident = meld.split()[1]
    return MELD_VALUE.get(ident, 40 if ident[-1] == trump else 20)


def cost(card, trump):
    """What it costs to give a card away: its points, its rank, trumps dearer."""
    return card_points(card) * 10 + rank(card) + (20 if suit(card) == trump else 0)


def beats(card, lead, trump):
    """Whether ``card`` played second wins the trick led with ``lead``."""
    if suit(card) == suit(lead):
        return rank(card) > rank(lead)
    return suit(card) == trump


def choose(act):
    legal = act["legal"]
    deal = act["deal"]
    trump = suit(deal["indicator"])
    melds = [a for a in legal if a.startswith("meld ")]
    if melds:  # in a meld window: best meld first, then the dix, then draw
        return max(melds, key=lambda m: meld_value(m, trump))
    if "dix" in legal:
        return "dix"
    if "draw" in legal:
        return "draw"
    # cards come in pairs: an odd number played means a trick is waiting
    played = [a for a in deal["actions"] if a not in ("dix", "draw") and not a.startswith("meld")]
    if len(played) % 2 == 0:  # lead: the cheapest card, trumps kept back
        return min(legal, key=lambda c: cost(c, trump))
    lead = played[-1]
    winners = [c for c in legal if beats(c, lead, trump)]
    if winners and card_points(lead):
        return min(winners, key=lambda c: cost(c, trump))
    return min(legal, key=lambda c: cost(c, trump))


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()  # a line the host cannot see yet is no answer


def main():
    verbose = "--verbose" in sys.argv
    for line in sys.stdin:
        if not line.strip():
            continue
        message = json.loads(line)
        cmd = message.get("cmd")
        if cmd == "hello":
            send({"name": "protocol-example", "author": "marjolet examples",
                  "protocol": "marjolet-bot/1"})
        elif cmd == "act":
            try:
                action = choose(message)
            except (KeyError, ValueError, IndexError) as exc:  # never leave the host waiting
                print(f"protocol_bot: {exc!r}; playing at random", file=sys.stderr)
                action = random.choice(message["legal"])
            if verbose:
                print(f"protocol_bot: {action}", file=sys.stderr)
            send({"action": action})
        elif cmd == "result":
            if verbose:
                print(f"protocol_bot: match over, {message}", file=sys.stderr)
        elif cmd == "quit":
            return


if __name__ == "__main__":
    main()
