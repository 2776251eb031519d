"""Helpers for building exact positions in tests."""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator
from typing import Any

from marjolet.actions import action_name, parse_action
from marjolet.cards import parse_card
from marjolet.engine import Deal
from marjolet.rules import CLASSIC, ENCYCLOPEDIA, Rules


def cards(text: str) -> list[int]:
    return [parse_card(t) for t in text.split()]


def deck_for(
    elder: str,
    dealer: str,
    indicator: str,
    stock: str = "",
    pattern: tuple[int, ...] = (3, 3),
) -> list[int]:
    """A deck order that deals ``elder`` and ``dealer`` these six cards (R4),
    turns ``indicator`` up (R5) and puts ``stock`` first in the stock; the
    other cards follow in id order."""
    e, d = cards(elder), cards(dealer)
    assert len(e) == 6 and len(d) == 6 and not set(e) & set(d), (elder, dealer)
    deck: list[int] = []
    for i, batch in enumerate(pattern):
        start = sum(pattern[:i])
        deck += e[start : start + batch] + d[start : start + batch]
    deck.append(parse_card(indicator))
    deck += cards(stock)
    deck += [c for c in range(32) if c not in deck]
    assert len(set(deck)) == 32
    return deck


def new_deal(
    elder: str,
    dealer: str,
    indicator: str,
    stock: str = "",
    *,
    dealer_seat: int = 0,
    rules: Rules = CLASSIC,
) -> Deal:
    return Deal(deck_for(elder, dealer, indicator, stock, rules.deal_pattern), dealer_seat, rules)


def play(deal: Deal, actions: str) -> None:
    """Play space-separated actions (``meld KQS`` is one) with full checks."""
    tokens = actions.split()
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        if tok == "meld":
            tok = f"meld {tokens[i + 1]}"
            i += 1
        deal.play(parse_action(tok))
        i += 1


def legal_texts(deal: Deal) -> set[str]:
    return {action_name(a) for a in deal.legal_actions()}


def random_deal(seed: int, rules: Rules = CLASSIC, *, stop: int | None = None) -> Deal:
    """A deal played at random from a seeded deck (to the end, or ``stop`` actions)."""
    rng = random.Random(seed)
    deck = list(range(32))
    rng.shuffle(deck)
    deal = Deal(deck, seed & 1, rules)
    while not deal.is_over and (stop is None or len(deal.moves) < stop):
        legal = deal.legal_actions()
        deal.push(legal[rng.randrange(len(legal))])
    return deal


def walk(seed: int, rules: Rules = CLASSIC) -> Iterable[Deal]:
    """Every position of a random deal, in order (the same object, mutated)."""
    rng = random.Random(seed)
    deck = list(range(32))
    rng.shuffle(deck)
    deal = Deal(deck, seed & 1, rules)
    while True:
        yield deal
        if deal.is_over:
            return
        legal = deal.legal_actions()
        deal.push(legal[rng.randrange(len(legal))])


def minimax_value(deal: Deal, table: dict[tuple[int, ...], int] | None = None) -> int:
    """Final score difference for the player to act, by plain exhaustive
    minimax over every legal action of the rest of the deal (windows
    included, no pruning): an oracle independent of the bots' solver and the
    review's search. Memoised on the full state in ``table`` when one is
    given. ``deal`` is not over."""
    key = (*deal.state, deal.to_move)
    if table is not None and key in table:
        return table[key]
    best = max(minimax_action_values(deal, table).values())
    if table is not None:
        table[key] = best
    return best


def minimax_action_values(
    deal: Deal, table: dict[tuple[int, ...], int] | None = None
) -> dict[int, int]:
    """The :func:`minimax_value` of each legal action, for the player to act."""
    me = deal.to_move
    values = {}
    for action in deal.legal_actions():
        deal.push(action)
        if deal.is_over:
            points = deal.points
            value = points[me] - points[me ^ 1]
        else:
            value = minimax_value(deal, table)
            value = value if deal.to_move == me else -value
        deal.pop()
        values[action] = value
    return values


def random_step(state: Any, rng: random.Random) -> None:
    """Apply one uniformly random move to an OpenSpiel state that is not
    terminal: a chance outcome at a chance node, else a legal action."""
    if state.is_chance_node():
        outcomes = state.chance_outcomes()
        state.apply_action(outcomes[rng.randrange(len(outcomes))][0])
    else:
        legal = state.legal_actions()
        state.apply_action(legal[rng.randrange(len(legal))])


def phase2_deals(seed: int) -> Iterator[Deal]:
    """Endless deals of either rule set played by the heuristic to the empty
    stock, then up to five random ending moves: positions of the last six
    tricks, where every card is known."""
    from marjolet.bots.heuristic import POLICY  # the engine tests need no bots

    rng = random.Random(seed)
    while True:
        deck = list(range(32))
        rng.shuffle(deck)
        deal = Deal(deck, rng.randrange(2), rng.choice([CLASSIC, ENCYCLOPEDIA]))
        while not deal.stock_empty:
            deal.push(POLICY.act(deal))
        for _ in range(rng.randrange(0, 6)):
            deal.push(rng.choice(deal.legal_actions()))
        yield deal
