"""What the opponent's plays say about its hand: a card-by-card belief.

``best`` deals the unseen cards into worlds; uniformly, every unseen card
is as likely to be in the opponent's hand as in the stock. But the
opponent chose its plays from its hand: a player who threw a low heart on
your heart lead while it could have won the trick, or who never led a
trump, holds different cards from one who did. This module turns the
public history into, for each unseen card, the log-odds that the opponent
holds it, with a logistic model over sparse features of the card and of
what the opponent did in the card's suit (:func:`card_features`). The
weights (``BELIEF_WEIGHTS``, in :mod:`marjolet.bots.beliefs_data`) were
fitted on self-play deals of ``best`` by ``benchmarks/beliefs.py``.

Standard library only: a decision needs a few hundred additions.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from marjolet.actions import MELD_BASE
from marjolet.cards import rank_of, suit_of
from marjolet.history import turns
from marjolet.observation import Observation

#: Rank relations of a played card to the card whose belief is scored.
LOWER, HIGHER = 0, 1
#: What a player did with a card of the scored card's suit (see _events).
EVENTS = (
    "led",  # led a card of the suit
    "followed_won",  # on a lead of the suit, played the suit and won the trick
    "followed_lost",  # on a lead of the suit, played the suit and lost it
    "trumped",  # on a lead of the suit (not trumps), played a trump
    "threw_other",  # on a lead of the suit, played another suit (not a trump) and lost
    "discarded",  # on a lead of another suit, played this suit and lost
    "won_with",  # on a lead of another suit, won the trick with this suit (a trump)
)
#: Recency: the event happened in the last RECENT tricks, or earlier.
RECENT = 3
N_CLASSES = 16  # (trump or not) x 8 ranks
N_PHASES = 3  # tricks 1-3, 4-7, 8-10
CLASS_BASE = 0
PHASE_BASE = CLASS_BASE + N_CLASSES
EVENT_BASE = PHASE_BASE + N_CLASSES * N_PHASES
#: One weight a (event, relation, card is trump, recent) for the opponent's
#: own plays, and the same for the seat's own plays (what the opponent saw).
EVENT_SLOTS = len(EVENTS) * 2 * 2 * 2
N_FEATURES = EVENT_BASE + 2 * EVENT_SLOTS


def card_class(c: int, trump: int) -> int:
    """0-15: the card's rank, shifted by 8 for a trump."""
    return rank_of(c) + (8 if suit_of(c) == trump else 0)


def phase_of(tricks: int) -> int:
    return 0 if tricks < 3 else 1 if tricks < 7 else 2


def _events(
    actions: Sequence[int], dealer: int, trump: int, seat: int
) -> list[tuple[int, int, int, int]]:
    """(player, event index, card played, trick number) for every card play
    of phase 1, as described by :data:`EVENTS` (an event names the suit of
    the card it concerns: the card played, or for ``trumped`` and
    ``threw_other`` the suit led)."""
    out: list[tuple[int, int, int, int]] = []
    pending = -1
    for a, (player, tricks, lead, winner) in zip(
        actions, turns(actions, dealer, trump), strict=True
    ):
        if a >= MELD_BASE or tricks >= 10:
            continue
        if lead < 0:
            out.append((player, EVENTS.index("led"), a, tricks))
            pending = a
            continue
        led_suit, suit = suit_of(pending), suit_of(a)
        won = winner == player
        if suit == led_suit:
            name = "followed_won" if won else "followed_lost"
            out.append((player, EVENTS.index(name), a, tricks))
        else:
            if suit == trump and won:
                out.append((player, EVENTS.index("trumped"), pending, tricks))
                out.append((player, EVENTS.index("won_with"), a, tricks))
            else:
                out.append((player, EVENTS.index("threw_other"), pending, tricks))
                out.append((player, EVENTS.index("discarded"), a, tricks))
    del seat
    return out


def card_features(obs: Observation) -> dict[int, list[int]]:
    """For each unseen card, the indices of its active features."""
    trump = obs.trump
    opp = obs.seat ^ 1
    tricks = obs.tricks_played
    events = _events(obs.actions, obs.dealer, trump, obs.seat)
    out: dict[int, list[int]] = {}
    for c in obs.unseen:
        cls = card_class(c, trump)
        feats = [CLASS_BASE + cls, PHASE_BASE + cls * N_PHASES + phase_of(tricks)]
        s, r, is_trump = suit_of(c), rank_of(c), int(suit_of(c) == trump)
        seen: set[int] = set()
        for player, ev, played, when in events:
            if suit_of(played) != s:
                continue
            relation = HIGHER if rank_of(played) > r else LOWER
            recent = int(tricks - when <= RECENT)
            slot = ((ev * 2 + relation) * 2 + is_trump) * 2 + recent
            index = EVENT_BASE + (0 if player == opp else EVENT_SLOTS) + slot
            seen.add(index)
        feats.extend(sorted(seen))
        out[c] = feats
    return out


def log_odds(obs: Observation, weights: Sequence[float]) -> dict[int, float]:
    """Each unseen card's log-odds of being in the opponent's hand: the
    uniform rate's log-odds plus the model's correction."""
    unseen = obs.unseen.mask.bit_count()
    missing = obs.hand_sizes[obs.seat ^ 1] - obs.opponent_known.mask.bit_count()
    if unseen == 0 or missing <= 0 or missing >= unseen:
        return {}
    base = math.log(missing / (unseen - missing))
    return {c: base + sum(weights[f] for f in fs) for c, fs in card_features(obs).items()}


def card_weights(obs: Observation, weights: Sequence[float], strength: float) -> list[float]:
    """Sampling weights for the kernel's weighted dealer (32 floats, the
    odds of each unseen card, tempered by ``strength``: 0 gives uniform
    worlds, 1 the model's odds)."""
    out = [0.0] * 32
    unseen = obs.unseen.mask.bit_count()
    missing = obs.hand_sizes[obs.seat ^ 1] - obs.opponent_known.mask.bit_count()
    if unseen == 0 or missing <= 0 or missing >= unseen:
        return [1.0] * 32
    base = math.log(missing / (unseen - missing))
    for c, value in log_odds(obs, weights).items():
        out[c] = math.exp(strength * (value - base))
    return out
