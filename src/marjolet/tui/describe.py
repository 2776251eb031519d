"""Words for what happens at the table, from one seat's point of view.

Everything here works from :class:`~marjolet.observation.Observation`
objects only, so a front end that uses it cannot show a hidden card (R23).
It is shared by the plain and the full-screen interface and uses the
standard library only:

* :func:`window_options`: the meld-window choices with their values;
* :func:`follow_rule`: the R16 duty of a follower in tricks 11-16, in
  words; :func:`refusal` (and :func:`why_not_allowed` for a card): why an
  action is refused, the engine's refusal code in the player's words;
* :func:`narrate`: log lines such as "pimc won trick 5 with A♠ over your
  10♠ (+20)" or "pimc declared K♥-Q♥ for 20".
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from marjolet.actions import DIX, DRAW, MELD_BASE
from marjolet.cards import (
    CARD_POINTS,
    SEVEN,
    SUIT_SYMBOLS,
    card,
    display_order,
    parse_card,
    suit_of,
)
from marjolet.engine import LAST_TRICK, PHASE2_TRICKS, REFUSAL_CODES, Breakdown, r16_duty
from marjolet.history import TrickCards, tricks
from marjolet.melds import (
    JACK_QUEEN_BASE,
    MARRIAGE_BASE,
    MELD_COUNT,
    MELD_INDEX,
    MELD_VALUES,
    meld_card_order,
    meld_cards,
)
from marjolet.observation import Observation, late_tricks, sample_world
from marjolet.rules import LAST_CARD_POINTS, LAST_TRICK_POINTS, SAME_SUIT, SEVEN_POINTS, Rules
from marjolet.tui.words import card as card_symbol
from marjolet.tui.words import number, suit, tr

FOUR_KINDS = ("four aces", "four tens", "four kings", "four queens")
_FOUR_KEYS = ("meld.4A", "meld.4T", "meld.4K", "meld.4Q")


def four_kind(meld: int) -> str:
    """``four aces`` (``quatre as``) for the meld ids 0-3."""
    return tr(_FOUR_KEYS[meld])


def shown_trick(obs: Observation) -> int:
    """The trick a player is at (1-16): the one just won while its meld
    window is open, else the one being played."""
    trick = obs.tricks_played if obs.in_window or obs.to_move < 0 else obs.tricks_played + 1
    return min(max(trick, 1), LAST_TRICK)


def cards_text(mask: int, sep: str = " ") -> str:
    """Cards of a mask as players sort them: ``A♠ 10♠ K♥``."""
    return sep.join(card_symbol(c) for c in display_order(mask))


def or_join(names: Sequence[str]) -> str:
    """Choices as a reader lists them: ``A♠``, ``A♠ or K♠``, ``A♠, K♠ or 9♠``."""
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + tr("tui.or") + names[-1]


def or_list(mask: int) -> str:
    """The cards of a mask as a list of choices: ``A♠, K♠ or 9♠``."""
    return or_join([card_symbol(c) for c in display_order(mask)])


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
            return tr("tui.window_draw_label")
        return f"{self.cards}  {self.kind}  +{self.value}"


def meld_kind(meld: int, trump: int, rules: Rules) -> str:
    """``four aces``, ``marriage``, ``trump marriage``, ``jack-queen``...
    Under ``same-suit`` a jack and queen of a plain suit hold no marjolet
    (the trump jack, R11): French calls them « valet-dame »."""
    if meld < MARRIAGE_BASE:
        return four_kind(meld)
    base = "marriage" if meld < JACK_QUEEN_BASE else "jack_queen"
    if meld & 3 == trump:
        return tr(f"tui.kind_{base}_trump")
    if base == "jack_queen" and rules.jack_queen == SAME_SUIT:
        return tr("tui.kind_jack_queen_same")
    return tr(f"tui.kind_{base}")


def meld_cards_text(meld: int, trump: int, rules: Rules) -> str:
    """The cards of a meld as players name them: ``K♥-Q♥``, ``J♦-Q♠`` (the
    jack first), ``A♠-A♥-A♣-A♦``."""
    order = meld_card_order(meld, meld_cards(meld, trump, rules))
    return "-".join(card_symbol(c) for c in order)


def meld_words(meld: int, trump: int, rules: Rules) -> str:
    """A meld as a sentence names it: ``four aces``, ``K♥-Q♥ (marriage)``,
    ``J♠-Q♠ (trump marjolet)``; the log's words for a declaration."""
    if meld < MARRIAGE_BASE:
        return four_kind(meld)
    return f"{meld_cards_text(meld, trump, rules)} ({meld_kind(meld, trump, rules)})"


def meld_name(meld: int, trump: int, rules: Rules) -> str:
    """A meld named in words as the web's table names it (``meldName`` of
    board.js, from the same ``meld.*`` keys): ``four aces``, ``marriage in
    trumps``, ``the marjolet and the queen of spades``, ``jack and queen of
    hearts`` (``same-suit``); a bad record's refusal names a meld so, on the
    command line as on the replay page."""
    if meld < MARRIAGE_BASE:
        return four_kind(meld)
    which = "KQ" if meld < JACK_QUEEN_BASE else "JQ"
    if which == "JQ" and rules.jack_queen == SAME_SUIT:
        which = "JQ_same"
    if meld & 3 == trump:
        return tr(f"meld.{which}_trump")
    return tr(f"meld.{which}", suit=tr(f"suit.{'CDHS'[meld & 3]}"))


def meld_short(meld: int, trump: int, rules: Rules) -> str:
    """A meld in a few characters: ``4×A``, ``K♥-Q♥``, ``J♦-Q♠`` (its cards
    joined as the log and the meld window join them)."""
    if meld < MARRIAGE_BASE:
        return "4×" + tr(f"rank_letter.{'ATKQ'[meld]}")
    return meld_cards_text(meld, trump, rules)


def melds_text(mask: int, trump: int, rules: Rules) -> str:
    """The melds of a meld-id mask (``Observation.melds``) between commas,
    fours in words as the log says them: ``four aces, K♥-Q♥``."""
    return ", ".join(
        four_kind(m) if m < MARRIAGE_BASE else meld_short(m, trump, rules)
        for m in range(MELD_COUNT)
        if mask >> m & 1
    )


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
                    meld_kind(m, obs.trump, obs.rules),
                    MELD_VALUES[obs.trump][m],
                )
            )
        elif a == DIX:
            seven = card_symbol(card(SEVEN, obs.trump))
            ind = card_symbol(obs.indicator) if obs.indicator is not None else "?"
            tail.insert(0, WindowOption(a, f"{seven}⇄{ind}", tr("tui.kind_dix"), SEVEN_POINTS))
        elif a == DRAW:
            tail.append(WindowOption(a, "", tr("tui.kind_draw"), 0))
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
        return tr("tui.last_tricks", duty=self.duty, cards=or_list(self.allowed))


def follow_rule(obs: Observation) -> FollowRule | None:
    """The follower's R16 duty in tricks 11-16, or ``None`` when the seat is
    free to play any card (leading, phase 1, or nothing to follow with)."""
    if not obs.stock_empty or obs.lead is None or obs.in_window or not obs.is_my_turn:
        return None
    lead = obs.lead
    allowed, duty = r16_duty(obs.hand.mask, lead, obs.trump)
    sym = SUIT_SYMBOLS[lead >> 3]
    if duty == "overtake":
        return FollowRule(allowed, tr("tui.duty_beat", suit=sym, card=card_symbol(lead)))
    if duty == "follow":
        return FollowRule(allowed, tr("tui.duty_follow", suit=sym, card=card_symbol(lead)))
    if duty == "trump":
        return FollowRule(allowed, tr("tui.duty_trump", suit=sym))
    return None


def why_not_allowed(obs: Observation, c: int) -> str | None:
    """Why the seat may not play card ``c`` now, or ``None`` if it may."""
    return refusal(obs, c)


def refusal(obs: Observation, action: int) -> str | None:
    """Why the seat may not take ``action`` now, in the player's words, or
    ``None`` if it may. The engine says why (its refusal code,
    :meth:`marjolet.engine.Deal.illegal_reason`); this only words it. The
    engine asks a deal, so the observation's own world stands in for it: a
    refusal's code and the particulars worded here depend only on what the
    mover knows (its hand, its melds, the trick, the seven), never on the
    hidden cards (``meld_missing``'s ``other_holds`` does, and is never
    worded here: a record's replay says it, :mod:`marjolet.tui.record_errors`)."""
    if obs.to_move >= 0 and not obs.is_my_turn:
        return tr("tui.not_your_turn")
    reason = sample_world(obs, random.Random(0)).illegal_reason(action)
    return None if reason is None else refusal_words(reason.code, reason.params, obs)


def refusal_words(code: str, params: Mapping[str, object], obs: Observation) -> str:
    """A refusal of the engine (``code`` and its particulars, docs/engine.md
    "Refusals") as the seat of ``obs`` reads it: cards as the screen shows
    them, melds by their cards; never a rule id or a record code."""
    key = f"tui.why_{code}"
    if code not in REFUSAL_CODES:
        return tr("tui.move_refused")
    if code == "no_window" and params.get("stock_empty"):  # after trick 10 nobody draws
        return tr("tui.why_no_stock")
    args: dict[str, object] = {}
    for name in ("card", "lead"):
        if isinstance(value := params.get(name), str):
            args[name] = card_symbol(parse_card(value))
    if isinstance(lead := params.get("lead"), str):
        args["suit"] = SUIT_SYMBOLS[suit_of(parse_card(lead))]
    if isinstance(legal := params.get("legal"), (list, tuple)):
        args["legal"] = or_join([card_symbol(parse_card(str(c))) for c in legal])
    if isinstance(meld := params.get("meld"), str) and meld in MELD_INDEX:
        args["meld"] = meld_words(MELD_INDEX[meld], obs.trump, obs.rules)
    if isinstance(missing := params.get("missing"), (list, tuple)):
        args["missing"] = ", ".join(card_symbol(parse_card(str(c))) for c in missing)
    return tr(key, **args)


# -- narration -------------------------------------------------------------------


def _subject(player: int, human: int, names: Sequence[str]) -> str:
    return tr("player.you") if player == human else names[player]


def _says(key: str, player: int, human: int, **args: object) -> str:
    """``key`` said of the human (``tui.you_*``: French conjugates) or of another player."""
    return tr(f"tui.you_{key}" if player == human else f"tui.{key}", **args)


def deal_heading(
    deal_index: int, dealer: int, turned_up: int, names: Sequence[str], human: int = -1
) -> str:
    """A deal's opening line as the log says it: ``Deal 1. You deal; trumps
    are ♥ hearts (turned up: 9♥).`` (``human``: the seat spoken to as "you",
    -1 for none; ``deal_index`` counts from 0, the line from 1)."""
    return tr(
        "tui.deal_start",
        n=deal_index + 1,
        dealer=_says("deal", dealer, human, name=names[dealer]),
        trump=suit(suit_of(turned_up)),
        card=card_symbol(turned_up),
    )


def deal_start(obs: Observation, names: Sequence[str]) -> list[str]:
    """Lines announcing a new deal (from ``obs.seat``'s side)."""
    lines = [deal_heading(obs.deal_index, obs.dealer, obs.turned_up, names, obs.seat)]
    if obs.turned_up == card(SEVEN, obs.trump):
        dealer_name = names[obs.dealer]
        lines.append(_says("seven_turned", obs.dealer, obs.seat, name=dealer_name, n=SEVEN_POINTS))
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
            played = card_symbol(action)
            out.append(_says("seven_played", actor, human, who=who, card=played, n=SEVEN_POINTS))
        if before.lead is not None:
            out.extend(_trick_lines(before, after, actor, action, names))
        return out
    if action == DRAW:
        return _draw_lines(before, after, actor, names)
    if action == DIX:
        ind = card_symbol(before.indicator) if before.indicator is not None else "?"
        seven = card_symbol(card(SEVEN, before.trump))
        return [_says("exchanged", actor, human, who=who, seven=seven, card=ind, n=SEVEN_POINTS)]
    m = action - MELD_BASE
    what = meld_words(m, before.trump, before.rules)
    value = MELD_VALUES[before.trump][m]
    return [_says("declared", actor, human, who=who, what=what, n=value)]


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
    lose = card_symbol(lose_card)
    beaten = tr("tui.your_card", card=lose) if loser == human else lose
    if winner != human and loser != human:  # an onlooker's view
        beaten = tr("tui.their_card", name=names[loser], card=lose)
    points = CARD_POINTS[lead] + CARD_POINTS[action]
    extra = []
    if n == LAST_TRICK:  # R17: the last trick, and the all-six bonus where it is worth any
        extra.append(tr("tui.last_trick_bonus", n=LAST_TRICK_POINTS))
        bonus = after.rules.all_tricks_bonus
        if late_tricks(after)[winner] == PHASE2_TRICKS and bonus:
            extra.append(tr("tui.all_six_bonus", n=bonus))
    score = f" (+{points})" if points else ""
    who = _subject(winner, human, names)
    line = _says("won_trick", winner, human, who=who, n=n, card=card_symbol(win_card))
    line = tr("tui.over", won=line, beaten=beaten, score=score)
    if extra:
        line = line[:-1] + tr("tui.semicolon") + ", ".join(extra) + "."
    return [line]


def last_card_kind(face_up: int | None, turned_up: int) -> str:
    """What the loser of trick 10 takes (R15), for the catalogue's words:
    ``indicator`` (the turned-up card, « la retourne ») or ``seven`` (the
    seven of trumps exchanged for it, R18), which is no « retourne »."""
    return "seven" if face_up is not None and face_up != turned_up else "indicator"


def _draw_lines(
    before: Observation, after: Observation, actor: int, names: Sequence[str]
) -> list[str]:
    human = before.seat
    gained = after.hand.mask & ~before.hand.mask
    got = cards_text(gained)
    if not after.stock_empty:
        return [tr("tui.you_drew", cards=got) if got else tr("tui.both_drew")]
    # The trick-10 window closed: the winner drew the last hidden card and
    # the loser took the indicator, scoring 10 for the last card (R15).
    loser = actor ^ 1
    ind = card_symbol(before.indicator) if before.indicator is not None else "?"
    seven = last_card_kind(before.indicator, before.turned_up)
    lines = []
    if loser == human:
        lines.append(tr(f"tui.you_drew_{seven}", card=ind, n=LAST_CARD_POINTS))
    else:
        took = tr(
            f"tui.they_took_{seven}", cards=got, name=names[loser], card=ind, n=LAST_CARD_POINTS
        )
        lines.append(took)
    lines.append(tr("tui.stock_empty_line"))
    return lines


def deal_end(after: Observation, match_totals: tuple[int, int], names: Sequence[str]) -> list[str]:
    """Lines closing a deal: its score and the match totals."""
    me, opp = after.seat, after.seat ^ 1
    return [
        tr(
            "tui.deal_end",
            n=after.deal_index + 1,
            you=number(after.points[me]),
            name=names[opp],
            them=number(after.points[opp]),
            you_total=number(match_totals[me]),
            them_total=number(match_totals[opp]),
        )
    ]


#: The rows of a deal summary: (label, Breakdown field).
SUMMARY_ROWS = (
    ("tui.row_cards", "cards"),
    ("tui.row_melds", "melds"),
    ("tui.row_dix", "dix"),
    ("tui.row_last_card", "last_card"),
    ("tui.row_last_trick", "last_trick"),
    ("tui.row_all_six", "all_tricks"),
)


def summary_table(breakdowns: Sequence[Breakdown]) -> list[tuple[str, int, int]]:
    """The deal's points by source for both players, with the total."""
    rows = [
        (tr(label), getattr(breakdowns[0], key), getattr(breakdowns[1], key))
        for label, key in SUMMARY_ROWS
    ]
    rows.append((tr("tui.row_total"), breakdowns[0].total, breakdowns[1].total))
    return rows


def action_label(action: int, trump: int | None, rules: Rules | None) -> str:
    """An action as the table shows it: ``A♠``, ``K♥-Q♥``, ``four aces``,
    ``dix``, ``draw``; a meld without its trump or rules (its jack unknown)
    by its kind and suit, ``marriage in hearts``, never its record letters."""
    if action < MELD_BASE:
        return card_symbol(action)
    if action == DRAW:
        return tr("tui.kind_draw")
    if action == DIX:
        return tr("tui.kind_dix")
    m = action - MELD_BASE
    if m < MARRIAGE_BASE:
        return four_kind(m)
    if trump is None or rules is None:  # its suit, not which jack (the rules and the trump say)
        suit = tr(f"suit.{'CDHS'[m & 3]}")
        return tr("meld.KQ" if m < JACK_QUEEN_BASE else "meld.JQ_unseen", suit=suit)
    return meld_cards_text(m, trump, rules)


def did_label(action: int, trump: int | None, rules: Rules | None) -> str:
    """What a player did, as a sentence of the review goes on after the
    player's name: ``played Q♠``, ``drew``, ``exchanged the seven``,
    ``declared four aces`` (``a joué D♠``, ``a pioché`` in French)."""
    if action < MELD_BASE:
        return tr("review.did_card", card=card_symbol(action))
    if action in (DRAW, DIX):
        return tr("review.did_draw" if action == DRAW else "review.did_dix")
    return tr("review.did_meld", meld=action_label(action, trump, rules))


def choice_label(action: int, trump: int | None, rules: Rules | None) -> str:
    """An action as the subject of "was worth more": ``A♠``, ``drawing``,
    ``exchanging the seven``, ``declaring K♥-Q♥`` (``piocher``, ``échanger
    le sept``, ``annoncer R♥-D♥`` in French)."""
    if action < MELD_BASE:
        return card_symbol(action)
    if action in (DRAW, DIX):
        return tr("review.choice_draw" if action == DRAW else "review.choice_dix")
    return tr("review.choice_meld", meld=action_label(action, trump, rules))
