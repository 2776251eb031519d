"""A learned belief over the opponent's hidden cards (issue 25, an
experiment): what the seat knows, as a flat vector, and a small network
that turns it into each unseen card's odds of being in the opponent's hand,
for the kernel's weighted sampler. Fitted by ``benchmarks/belief_net.py``.
Needs numpy."""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np

from marjolet.actions import DIX, DRAW, MELD_BASE
from marjolet.bots.best import inference_constraints
from marjolet.engine import public_turns
from marjolet.history import tricks
from marjolet.melds import MELD_COUNT
from marjolet.observation import Observation

#: Per-card channels (each 32 wide, suits put in a canonical order: trumps first).
CHANNELS = (
    "mine",  # in my hand
    "opp_known",  # in the opponent's hand, shown (a meld, the indicator it took)
    "unseen",
    "indicator",
    "i_drew",  # a card I drew from the stock
    "played_me",
    "opp_led",
    "opp_answered_won",
    "opp_answered_lost",
    "my_lead_beaten_suit",  # my lead, which the opponent beat with a higher card of its suit
    "my_lead_trumped",
    "my_lead_let_go",  # my lead, which the opponent did not beat
    "play_trick",  # the trick a card was played in, /10
    "window_constrained",  # unseen, in a meld the opponent's windows speak against
    "opp_lead_now",  # the card the opponent just led (the decision answers it)
)
GLOBALS = 10 + 8 + 2 * MELD_COUNT
FEATURES = 32 * len(CHANNELS) + GLOBALS


def canonical(trump: int) -> list[int]:
    """Card -> canonical index: the trump suit first, the others in order."""
    order = [trump] + [s for s in range(4) if s != trump]
    where = {s: i for i, s in enumerate(order)}
    return [where[c >> 3] * 8 + (c & 7) for c in range(32)]


def features(obs: Observation) -> np.ndarray:
    """What the seat knows at ``obs``, as a flat vector (see CHANNELS)."""
    me, opp = obs.seat, obs.seat ^ 1
    canon = canonical(obs.trump)
    ch = {name: i for i, name in enumerate(CHANNELS)}
    x = np.zeros((len(CHANNELS), 32), dtype=np.float32)

    def put(name: str, c: int, value: float = 1.0) -> None:
        x[ch[name], canon[c]] = value

    for c in range(32):
        if obs.hand.mask >> c & 1:
            put("mine", c)
        if obs.opponent_known.mask >> c & 1:
            put("opp_known", c)
        if obs.unseen.mask >> c & 1:
            put("unseen", c)
    if obs.indicator is not None:
        put("indicator", obs.indicator)
    for c in obs.draws:
        put("i_drew", c)
    for t in tricks(obs.actions, obs.dealer, obs.trump):
        put("play_trick", t.lead, t.number / 10)
        put("play_trick", t.follow, t.number / 10)
        if t.leader == me:
            put("played_me", t.lead)
            won = t.winner == opp
            if not won:
                put("my_lead_let_go", t.lead)
            elif t.follow >> 3 == t.lead >> 3:
                put("my_lead_beaten_suit", t.lead)
            else:
                put("my_lead_trumped", t.lead)
            put("opp_answered_won" if won else "opp_answered_lost", t.follow)
        else:
            put("opp_led", t.lead)
            put("played_me", t.follow)
    if obs.lead is not None and obs.to_move == me:
        put("opp_lead_now", obs.lead)
        put("opp_led", obs.lead)
    for mask, _keep in inference_constraints(obs, 0.1):
        for c in range(32):
            if mask >> c & 1:
                put("window_constrained", c)
    g = np.zeros(GLOBALS, dtype=np.float32)
    g[min(obs.tricks_played, 9)] = 1.0
    empty_windows, last_empty = 0, 0
    declared = False
    turns = public_turns(obs.actions, obs.dealer, obs.trump)
    for a, (actor, done) in zip(obs.actions, turns, strict=True):
        if actor != opp or a < MELD_BASE:
            continue
        if a == DRAW:
            if not declared:
                empty_windows += 1
                last_empty = done
            declared = False
        elif a <= DIX:
            declared = True
    g[10:18] = (
        obs.stock_size / 20,
        obs.points[me] / 100,
        obs.points[opp] / 100,
        empty_windows / 5,
        last_empty / 10,
        obs.hand_sizes[opp] / 6,
        (obs.hand_sizes[opp] - obs.opponent_known.mask.bit_count()) / 6,
        float(obs.turned_up >> 3 == obs.trump and obs.indicator != obs.turned_up),
    )
    for m in range(MELD_COUNT):
        g[18 + m] = obs.melds[me] >> m & 1
        g[18 + MELD_COUNT + m] = obs.melds[opp] >> m & 1
    return np.concatenate([x.reshape(-1), g])



@cache
def load_net(path: str) -> list[Any]:
    """The layers' weights and biases of a fitted network (``.npz``)."""
    with np.load(path) as data:
        return [data[f"arr_{i}"] for i in range(len(data.files))]


def card_odds(obs: Observation, path: str, floor: float = 0.02) -> list[float]:
    """Each card's odds (p / (1 - p)) of being in the opponent's hand, by the
    network at ``path``, in card order; 1 for cards that are not unseen."""
    layers = load_net(path)
    h = features(obs)
    for i in range(0, len(layers), 2):
        h = layers[i] @ h + layers[i + 1]
        if i + 2 < len(layers):
            h = np.maximum(h, 0.0)
    hidden = obs.hand_sizes[obs.seat ^ 1] - obs.opponent_known.mask.bit_count()
    rate = min(max(hidden / max(1, obs.unseen.mask.bit_count()), 0.02), 0.98)
    p = 1.0 / (1.0 + np.exp(-(h + np.log(rate / (1.0 - rate)))))
    canon = canonical(obs.trump)
    out = []
    for c in range(32):
        if obs.unseen.mask >> c & 1:
            q = min(max(float(p[canon[c]]), floor), 1.0 - floor)
            out.append(q / (1.0 - q))
        else:
            out.append(1.0)
    return out
