"""Reading the opponent's lead with a model of its search (issue 25).

When the seat answers a lead, the card led says something about the hand
it came from: a player searching its own position leads what its search
rates best. So each candidate hand of the opponent is weighed by how the
opponent's *own* search, run from the opponent's seat in that world (the
seat's hand dealt from what the opponent has seen, as the opponent's
sampler would), rates the card it led against its best card:
``exp(beta * (value of the lead - best value))``. A policy's values were
tried first and lost (docs/bots.md, "reading the opponent's lead"): a
searching opponent leads what a search likes, which a policy does not
predict.

The answer's search then draws its worlds from the candidate hands in
proportion to their weights, each with a random order of the stock.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from marjolet.actions import DIX, MELD_BASE
from marjolet.cards import SEVEN, card
from marjolet.engine import EXPOSED, HAND, LEAD, TURN, Deal, public_turns
from marjolet.melds import MELD_CARDS
from marjolet.observation import Observation, observe, world_deal
from marjolet.rules import SAME_SUIT

#: Worlds of each inner search (the opponent's search of one candidate hand).
INNER_WORLDS = 16


@dataclass(frozen=True, slots=True)
class Candidate:
    """One candidate hidden hand of the opponent and its weight."""

    hidden: int
    weight: float


def lead_to_read(obs: Observation) -> int | None:
    """The opponent's lead the seat is answering, if it can be read: the
    last action was the opponent's lead of a card other than the seven of
    trumps (whose play may score, which undoing would have to reverse)."""
    lead = obs.lead
    if lead is None or obs.in_window or not obs.actions or obs.actions[-1] != lead:
        return None
    if lead == card(SEVEN, obs.trump):
        return None
    return lead


def shown_by_meld(obs: Observation, c: int) -> bool:
    """Whether the opponent declared a meld holding card ``c`` (so ``c``
    stayed exposed in its hand until it was played, R13)."""
    opp = obs.seat ^ 1
    melds = MELD_CARDS[obs.rules.jack_queen == SAME_SUIT][obs.trump]
    turns = public_turns(obs.actions, obs.dealer, obs.trump)
    for a, (actor, _tricks) in zip(obs.actions, turns, strict=True):
        if actor == opp and MELD_BASE <= a < DIX and melds[a - MELD_BASE] >> c & 1:
            return True
    return False


def before_lead(obs: Observation, hidden: int, stock: Sequence[int], lead: int) -> Deal:
    """The world of ``obs`` (the opponent's hidden cards ``hidden``) as it
    was just before the opponent led ``lead``."""
    world = world_deal(obs, hidden, stock)
    s = list(world.state)
    opp = obs.seat ^ 1
    s[HAND + opp] |= 1 << lead
    if shown_by_meld(obs, lead):
        s[EXPOSED + opp] |= 1 << lead
    s[LEAD] = -1
    s[TURN] = opp
    return Deal.from_state(
        world.rules,
        world.dealer,
        world.turned_up,
        world.stock,
        s,
        dealt=world.dealt,
        moves=obs.actions[:-1],
    )


def lead_weight(values: dict[int, float], lead: int, beta: float) -> float:
    """How likely a searcher with these action values leads ``lead``,
    up to a constant: ``exp(beta * (values[lead] - best))``."""
    return math.exp(beta * (values[lead] - max(values.values())))


def read_lead(
    obs: Observation,
    lead: int,
    samples: Sequence[tuple[int, Sequence[int]]],
    inner: Any,
    beta: float,
) -> list[Candidate]:
    """Weigh each sampled (hidden hand, stock) of ``obs`` by the chance that
    the opponent, holding it, led ``lead``. ``inner(view)`` runs the
    opponent's search from its observation ``view`` and returns each of its
    actions' mean value."""
    out = []
    for hidden, stock in samples:
        view = observe(before_lead(obs, hidden, stock, lead), obs.seat ^ 1)
        values = inner(view)
        if lead in values:
            out.append(Candidate(hidden, lead_weight(values, lead, beta)))
    return out


def card_odds(unseen: int, candidates: Sequence[Candidate], prior: float = 2.0) -> list[float]:
    """Each card's odds of being in the opponent's hand under the reading,
    relative to the unweighted candidates (both frequencies smoothed by
    ``prior`` pseudo-hands at the mean rate): 32 weights for the kernel's
    weighted sampler, 1 for cards not unseen."""
    n = len(candidates)
    total = sum(c.weight for c in candidates)
    mean_weight = total / n
    odds = [1.0] * 32
    cards = [x for x in range(32) if unseen >> x & 1]
    if not cards:
        return odds
    rate = sum(c.hidden.bit_count() for c in candidates) / (n * len(cards))
    if rate == 0:
        return odds
    for x in cards:
        held = [c for c in candidates if c.hidden >> x & 1]
        weighted = (sum(c.weight for c in held) + prior * mean_weight * rate) / (
            total + prior * mean_weight
        )
        plain = (len(held) + prior * rate) / (n + prior)
        odds[x] = weighted / plain
    return odds
