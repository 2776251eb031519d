"""Words for what happens at the table, from one seat's point of view.

Everything here works from :class:`~marjolet.observation.Observation`
objects only, so a front end that uses it cannot show a hidden card (R23).
It is shared by the plain and the full-screen interface and uses the
standard library only:

* :func:`window_options`: the meld-window choices with their values;
* :func:`follow_rule` and :func:`why_not_allowed`: the R16 duty of a
  follower in tricks 11-16, in words, and why a card is refused;
* :func:`narrate`: log lines such as "pimc won trick 5 with A♠ over your
  10♠ (+20)" or "pimc declared K♥-Q♥ for 20".
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from marjolet.actions import DIX, DRAW, MELD_BASE
from marjolet.cards import (
    CARD_POINTS,
    SEVEN,
    SUIT_NAMES,
    SUIT_SYMBOLS,
    card,
    card_symbol,
    display_order,
)
from marjolet.engine import Breakdown, r16_duty
from marjolet.history import TrickCards, tricks
from marjolet.melds import JACK_QUEEN_BASE, MARRIAGE_BASE, MELD_COUNT, MELD_VALUES, meld_cards
from marjolet.observation import Observation, late_tricks
from marjolet.rules import Rules

FOUR_KINDS = ("four aces", "four tens", "four kings", "four queens")


def cards_text(mask: int, sep: str = " ") -> str:
    """Cards of a mask as players sort them: ``A♠ 10♠ K♥``."""
    return sep.join(card_symbol(c) for c in display_order(mask))


def or_list(mask: int) -> str:
    """``A♠``, ``A♠ or K♠``, ``A♠, K♠ or 9♠``."""
    names = [card_symbol(c) for c in display_order(mask)]
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " or " + names[-1]


@dataclass(frozen=True, slots=True)
class WindowOption:
    """One choice of the meld window: the action, its cards, what it is and
    the points it scores (0 for ``draw``)."""

    action: int
    cards: str
    kind: str
    value: int

    @property
    def label(self) -> str:
        if self.action == DRAW:
            return "draw: end the window, both draw"
        return f"{self.cards}  {self.kind}  +{self.value}"


def meld_kind(meld: int, trump: int) -> str:
    """``four aces``, ``marriage``, ``trump marriage``, ``jack-queen``..."""
    if meld < MARRIAGE_BASE:
        return FOUR_KINDS[meld]
    base = "marriage" if meld < JACK_QUEEN_BASE else "jack-queen"
    return f"trump {base}" if meld & 3 == trump else base


def meld_cards_text(meld: int, trump: int, rules: Rules, sep: str = "-") -> str:
    """The cards of a meld as players name them: ``K♥-Q♥``, ``J♦-Q♠`` (the
    jack first), ``A♠-A♥-A♣-A♦``."""
    order = display_order(meld_cards(meld, trump, rules))
    if meld >= JACK_QUEEN_BASE:
        order.sort(key=lambda c: c & 7)  # the jack, then the queen
    return sep.join(card_symbol(c) for c in order)


def meld_short(meld: int, trump: int, rules: Rules) -> str:
    """A meld in a few characters: ``4×A``, ``K♥Q♥``, ``J♦Q♠``."""
    if meld < MARRIAGE_BASE:
        return "4×" + ("A", "10", "K", "Q")[meld]
    return meld_cards_text(meld, trump, rules, "")


def melds_text(mask: int, trump: int, rules: Rules) -> str:
    """The melds of a meld-id mask (``Observation.melds``), short forms."""
    return " ".join(meld_short(m, trump, rules) for m in range(MELD_COUNT) if mask >> m & 1)


def window_options(obs: Observation, legal: Sequence[int]) -> list[WindowOption]:
    """The legal meld-window actions, melds by value (highest first), then
    the dix exchange, then ``draw``."""
    melds: list[WindowOption] = []
    tail: list[WindowOption] = []
    for a in legal:
        if MELD_BASE <= a < DIX:
            m = a - MELD_BASE
            melds.append(
                WindowOption(
                    a,
                    meld_cards_text(m, obs.trump, obs.rules),
                    meld_kind(m, obs.trump),
                    MELD_VALUES[obs.trump][m],
                )
            )
        elif a == DIX:
            seven = card_symbol(card(SEVEN, obs.trump))
            ind = card_symbol(obs.indicator) if obs.indicator is not None else "?"
            tail.insert(0, WindowOption(a, f"{seven}⇄{ind}", "dix: take the indicator", 10))
        elif a == DRAW:
            tail.append(WindowOption(a, "", "draw", 0))
    melds.sort(key=lambda o: (-o.value, o.action))
    return melds + tail


# -- tricks ------------------------------------------------------------------------


#: A completed trick: who led, the two cards, who won it.
Trick = TrickCards


def tricks_of(obs: Observation) -> list[Trick]:
    """The completed tricks of the deal, from the public action list (the
    core's history walk: R3, R8)."""
    return tricks(obs.actions, obs.dealer, obs.trump)


def hand_order(mask: int) -> list[int]:
    """A hand as players hold it: suits alternate in colour (♠ ♥ ♣ ♦), the
    highest card of each suit first."""
    order = display_order(mask)
    rank = {3: 0, 2: 1, 0: 2, 1: 3}
    return sorted(order, key=lambda c: (rank[c >> 3], -c))


# -- tricks 11-16 (R16) ----------------------------------------------------------


@dataclass(frozen=True, slots=True)
class FollowRule:
    """What R16 obliges the follower to play: the allowed cards and why."""

    allowed: int
    duty: str

    def explain(self) -> str:
        return f"R16: {self.duty}: play {or_list(self.allowed)}"


def follow_rule(obs: Observation) -> FollowRule | None:
    """The follower's R16 duty in tricks 11-16, or ``None`` when the seat is
    free to play any card (leading, phase 1, or nothing to follow with)."""
    if not obs.stock_empty or obs.lead is None or obs.in_window or not obs.is_my_turn:
        return None
    lead = obs.lead
    allowed, duty = r16_duty(obs.hand.mask, lead, obs.trump)
    sym = SUIT_SYMBOLS[lead >> 3]
    if duty == "overtake":
        return FollowRule(allowed, f"follow {sym} and beat {card_symbol(lead)} when you can")
    if duty == "follow":
        return FollowRule(allowed, f"follow {sym} (you cannot beat {card_symbol(lead)})")
    if duty == "trump":
        return FollowRule(allowed, f"no {sym} in your hand, so you must trump")
    return None


def why_not_allowed(obs: Observation, c: int) -> str | None:
    """Why the seat may not play card ``c`` now, or ``None`` if it may."""
    if not obs.hand.mask >> c & 1:
        return f"{card_symbol(c)} is not in your hand"
    if obs.in_window:
        return "you won the trick: finish the meld window first (draw), then play"
    if not obs.is_my_turn:
        return "it is not your turn"
    rule = follow_rule(obs)
    if rule is None or rule.allowed >> c & 1:
        return None
    return f"{card_symbol(c)} is not allowed. {rule.explain()}"


# -- narration -------------------------------------------------------------------


def _subject(player: int, human: int, names: Sequence[str]) -> str:
    return "You" if player == human else names[player]


def deal_start(obs: Observation, names: Sequence[str]) -> list[str]:
    """Lines announcing a new deal (from ``obs.seat``'s side)."""
    dealer = "You deal" if obs.dealer == obs.seat else f"{names[obs.dealer]} deals"
    trump = f"{SUIT_SYMBOLS[obs.trump]} {SUIT_NAMES[obs.trump]}"
    lines = [
        f"Deal {obs.deal_index + 1}. {dealer}; trumps are {trump} "
        f"(indicator {card_symbol(obs.turned_up)})."
    ]
    if obs.turned_up == card(SEVEN, obs.trump):
        who = "You score" if obs.dealer == obs.seat else f"{names[obs.dealer]} scores"
        lines.append(f"{who} 10: the turned-up card is the seven of trumps (R18).")
    return lines


def narrate(
    before: Observation, after: Observation, actor: int, action: int, names: Sequence[str]
) -> list[str]:
    """What ``actor``'s ``action`` showed the seat of ``before``/``after``
    (its observations just before and just after the action)."""
    human = before.seat
    who = _subject(actor, human, names)
    out: list[str] = []
    if action < MELD_BASE:
        if before.seven_scored_by is None and after.seven_scored_by == actor:
            out.append(f"{who} played the seven of trumps {card_symbol(action)}: +10 (R19).")
        if before.lead is not None:
            out.extend(_trick_lines(before, after, actor, action, names))
        return out
    if action == DRAW:
        return _draw_lines(before, after, actor, names)
    if action == DIX:
        ind = card_symbol(before.indicator) if before.indicator is not None else "the indicator"
        seven = card_symbol(card(SEVEN, before.trump))
        return [f"{who} exchanged {seven} for the indicator {ind} (dix, +10)."]
    m = action - MELD_BASE
    what = FOUR_KINDS[m] if m < MARRIAGE_BASE else meld_cards_text(m, before.trump, before.rules)
    return [f"{who} declared {what} for {MELD_VALUES[before.trump][m]}."]


def _trick_lines(
    before: Observation, after: Observation, actor: int, action: int, names: Sequence[str]
) -> list[str]:
    human = before.seat
    lead = before.lead
    assert lead is not None
    leader = actor ^ 1
    winner = after.last_trick_winner
    assert winner is not None
    n = after.tricks_played
    win_card, lose_card = (lead, action) if winner == leader else (action, lead)
    loser = winner ^ 1
    beaten = f"your {card_symbol(lose_card)}" if loser == human else card_symbol(lose_card)
    if winner != human and loser != human:  # an onlooker's view
        beaten = f"{names[loser]}'s {card_symbol(lose_card)}"
    points = CARD_POINTS[lead] + CARD_POINTS[action]
    extra = []
    if n == 16:
        extra.append("last trick +10")
        if late_tricks(after)[winner] == 6:
            bonus = after.rules.all_tricks_bonus
            extra.append(f"all six last tricks +{bonus}")
    score = f" (+{points})" if points else ""
    won = f"{_subject(winner, human, names)} won trick {n} with {card_symbol(win_card)}"
    line = f"{won} over {beaten}{score}."
    if extra:
        line = line[:-1] + "; " + ", ".join(extra) + "."
    return [line]


def _draw_lines(
    before: Observation, after: Observation, actor: int, names: Sequence[str]
) -> list[str]:
    human = before.seat
    gained = after.hand.mask & ~before.hand.mask
    got = cards_text(gained)
    if not after.stock_empty:
        return [f"You drew {got}." if got else "Both drew."]
    # The trick-10 window closed: the winner drew the last hidden card and
    # the loser took the indicator, scoring 10 for the last card (R15).
    loser = actor ^ 1
    ind = card_symbol(before.indicator) if before.indicator is not None else "the indicator"
    lines = []
    if loser == human:
        lines.append(f"You drew the indicator {ind}: +10 for the last card (R15).")
    else:
        lines.append(f"You drew {got}; {names[loser]} took the indicator {ind}: +10 (R15).")
    lines.append(
        "The stock is empty: tricks 11-16 are strict. Follow suit and beat the card led "
        "if you can, else trump (R16)."
    )
    return lines


def deal_end(after: Observation, match_totals: tuple[int, int], names: Sequence[str]) -> list[str]:
    """Lines closing a deal: its score and the match totals."""
    me, opp = after.seat, after.seat ^ 1
    return [
        f"Deal {after.deal_index + 1} over: you {after.points[me]}, "
        f"{names[opp]} {after.points[opp]}. "
        f"Match: you {match_totals[me]}, {names[opp]} {match_totals[opp]}."
    ]


#: The rows of a deal summary: (label, Breakdown field).
SUMMARY_ROWS = (
    ("cards (A, 10)", "cards"),
    ("melds", "melds"),
    ("dix (seven)", "dix"),
    ("last card", "last_card"),
    ("last trick", "last_trick"),
    ("all six", "all_tricks"),
)


def summary_table(breakdowns: Sequence[Breakdown]) -> list[tuple[str, int, int]]:
    """The deal's points by source for both players, with the total."""
    rows = [
        (label, getattr(breakdowns[0], key), getattr(breakdowns[1], key))
        for label, key in SUMMARY_ROWS
    ]
    rows.append(("deal total", breakdowns[0].total, breakdowns[1].total))
    return rows
