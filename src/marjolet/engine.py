"""The deal state: legal actions, ``push``/``pop``/``copy`` and scoring.

One :class:`Deal` is one deal of Marjolet (R4-R21) from the first lead to the
end of trick 16. All changing values live in one small list of ints (the
fields are indexed by the constants below); ``push`` keeps the previous list
as the undo snapshot and works on a fresh copy, so ``pop`` is one list swap
and ``copy`` shares every snapshot (a state list is never changed once
``push`` has returned). Search therefore never deep-copies anything.

``push`` trusts its caller (search pushes only legal actions);
:meth:`Deal.play` checks legality first and raises
:class:`~marjolet.errors.IllegalActionError` citing the broken rule.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType

from marjolet.actions import ACTION_NAMES, DIX, DRAW, MELD_BASE, Action, parse_action
from marjolet.cards import (
    CARD_NAMES,
    CARD_POINTS,
    JACK,
    SEVEN,
    SUIT_BYTE_CARDS,
    SUIT_MASKS,
    SUITS,
    CardSet,
    card,
    display_order,
    mask_cards,
    parse_card,
)
from marjolet.errors import ActionError, CardError, DealError, IllegalActionError
from marjolet.history import LAST_TRICK as LAST_TRICK
from marjolet.history import PHASE1_TRICKS as PHASE1_TRICKS
from marjolet.history import PHASE2_TRICKS as PHASE2_TRICKS
from marjolet.history import STOCK_CARDS as STOCK_CARDS
from marjolet.history import TrickCards as TrickCards
from marjolet.history import draw_position as draw_position
from marjolet.history import draw_positions as draw_positions
from marjolet.history import tricks, turns
from marjolet.melds import MELD_CARDS, MELD_COUNT, MELD_NAMES, MELD_VALUES
from marjolet.rules import (
    CLASSIC,
    LAST_CARD_POINTS,
    LAST_TRICK_POINTS,
    SAME_SUIT,
    SEVEN_POINTS,
    Rules,
    require_rules,
)
from marjolet.trick import BEATS, beats, follow_mask

# Indices into the state list. Per-player fields hold player 0 at the index
# and player 1 at the index + 1.
HAND = 0  # cards in hand (exposed ones included)
EXPOSED = 2  # cards shown by melds and still in hand (R13)
WON = 4  # cards captured in tricks
MELDS = 6  # bit m set: meld id m scored by the player this deal (R12)
POINTS = 8  # deal points so far (R21)
LATE_TRICKS = 10  # tricks 11-16 won (R17)
TRICKS = 12  # completed tricks, 0-16
LEAD = 13  # card led to the current trick, or -1
TURN = 14  # player to act, or -1 once the deal is over
WINDOW = 15  # 1 while TURN's meld window is open (R9, R10)
INDICATOR = 16  # face-up card at the bottom of the stock (the seven after a dix)
SEVEN_BY = 17  # player who earned the seven of trumps' 10 (R18-R20), or -1
LAST_CARD_TO = 18  # player who took the last stock card (R15), or -1
LAST_WINNER = 19  # winner of the latest trick, or -1
WINDOW_MELDS = 20  # declarations made in the open window
STATE_SIZE = 21


@dataclass(frozen=True, slots=True)
class Breakdown:
    """One player's deal score by source (R21; record.md's ``breakdown``)."""

    cards: int = 0
    melds: int = 0
    dix: int = 0
    last_card: int = 0
    last_trick: int = 0
    all_tricks: int = 0

    @property
    def total(self) -> int:
        return (
            self.cards + self.melds + self.dix + self.last_card + self.last_trick + self.all_tricks
        )

    def to_json(self) -> dict[str, int]:
        return {
            "cards": self.cards,
            "melds": self.melds,
            "dix": self.dix,
            "last_card": self.last_card,
            "last_trick": self.last_trick,
            "all_tricks": self.all_tricks,
        }


#: Every refusal code of :class:`Reason`, with the rule it cites and its
#: particulars (docs/engine.md, "Refusals", lists the same).
REFUSAL_CODES: dict[str, str] = {
    "unknown_action": "no action has this id (action)",
    "deal_over": "R17: the deal is complete",
    "window_open": "R9/R10: a card played in the mover's open meld window (player, card)",
    "not_held": "R7: a card not in the mover's hand (player, card)",
    "must_overtake": "R16: the follower must follow suit higher (player, card, lead, trump, legal)",
    "must_follow": "R16: the follower must follow suit (player, card, lead, trump, legal)",
    "must_trump": "R16: the follower has none of the suit led and must trump "
    "(player, card, lead, trump, legal)",
    "no_window": "R9: 'draw' with no meld window open (player, stock_empty)",
    "phase2_meld": "R14: a meld or the dix in tricks 11-16 (player, what)",
    "outside_window": "R14: a meld or the dix outside the winner's meld window (player, what)",
    "seven_turned_up": "R18: the dix when the indicator is the seven of trumps",
    "seven_exchanged": "R18/R20: the dix a second time",
    "seven_played": "R20: the dix after the seven of trumps was played",
    "no_seven": "R18: the dix without the seven of trumps (player, card)",
    "meld_again": "R12: a meld already scored in the deal (player, meld, trump, jack_queen)",
    "meld_missing": "R12: a meld whose cards are not all in hand "
    "(player, meld, trump, jack_queen, missing, other_holds)",
    "one_meld": "R10, one_meld_per_window: a second meld in one window (player)",
}


class Reason(str):
    """Why an action is illegal: the message, citing the rule, with the
    rule id as data (``reason.rule``, e.g. ``"R16"``), and the refusal for
    programs: ``reason.code``, one word (docs/engine.md, "Refusals"), and
    ``reason.params``, its particulars (players 0 or 1, cards and melds by
    their record names), so that a front end words it in its own language
    without reading the English message.

    >>> deal = Deal(list(range(32)), dealer=0)
    >>> reason = deal.illegal_reason(parse_action("AS"))
    >>> reason.rule, reason.code, dict(reason.params)
    ('R7', 'not_held', {'player': 1, 'card': 'AS'})
    """

    rule: str
    code: str
    params: Mapping[str, object]

    def __new__(cls, rule: str, message: str, code: str, **params: object) -> Reason:
        self = super().__new__(cls, message)
        self.rule = rule
        self.code = code
        self.params = MappingProxyType(params)
        return self

    def why(self) -> dict[str, object]:
        """The code and its particulars as one JSON object."""
        return {"code": self.code, **self.params}

    def __reduce__(self) -> tuple[object, ...]:
        """Pickled whole (an error crossing to another process keeps it)."""
        return (_reason, (self.rule, str(self), self.code, dict(self.params)))


def _reason(rule: str, message: str, code: str, params: dict[str, object]) -> Reason:
    return Reason(rule, message, code, **params)


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a finished deal or match ended (python-chess's ``Outcome``).

    ``termination`` is ``"deal"`` (trick 16 was played: R17), ``"target"``
    (R22 decided the match), ``"forfeit"`` (a seat broke down and lost the
    match; ``reason`` says how) or ``"aborted"`` (stopped with no result).
    ``winner`` is 0 or 1, or ``None`` for a deal whose two scores are equal
    and an aborted match; ``points`` are the deal points or the match totals.
    """

    termination: str
    winner: int | None
    points: tuple[int, int]
    reason: str = ""

    @property
    def forfeited_by(self) -> int | None:
        """The seat that forfeited, for a ``"forfeit"`` outcome."""
        if self.termination != "forfeit" or self.winner is None:
            return None
        return self.winner ^ 1

    def __str__(self) -> str:
        p0, p1 = self.points
        who = "a tie" if self.winner is None else f"player {self.winner} wins"
        text = f"{self.termination}: {who} {p0}-{p1}"
        return f"{text} ({self.reason})" if self.reason else text


class LegalActions(tuple[int, ...]):
    """The legal action ids of a position, ascending: a tuple that also
    answers ``in`` for action texts (``"KS" in deal.legal``)."""

    __slots__ = ()

    def __contains__(self, action: object) -> bool:
        if isinstance(action, str):
            try:
                action = parse_action(action)
            except ActionError:
                return False
        return tuple.__contains__(self, action)

    def __str__(self) -> str:
        return " ".join(ACTION_NAMES[a] for a in self)

    def __repr__(self) -> str:
        return f"<LegalActions ({', '.join(ACTION_NAMES[a] for a in self)})>"


def r16_duty_words(hand: int, lead: int, trump: int) -> str:
    """The follower's R16 duty in words, for a refusal: "must follow suit
    with a higher card", "must play a trump" (trumps led, none higher)..."""
    duty = r16_duty(hand, lead, trump)[1]
    if lead >> 3 == trump and duty in ("overtake", "follow"):
        return "must play a higher trump" if duty == "overtake" else "must play a trump"
    return {
        "overtake": "must follow suit with a higher card",
        "follow": "must follow suit",
        "trump": "has none of the suit led and must trump",
    }.get(duty, "may play any card")


def r16_duty(hand: int, lead: int, trump: int) -> tuple[int, str]:
    """The follower's duty in tricks 11-16 (R16): the cards it may play
    (:func:`~marjolet.trick.follow_mask`) and the duty's name:
    ``"overtake"`` (follow suit with a higher card), ``"follow"`` (follow
    suit, none is higher), ``"trump"`` (no card of the suit led, so trump)
    or ``"any"`` (neither: any card)."""
    legal = follow_mask(lead, hand, trump)
    if legal & SUIT_MASKS[lead >> 3]:
        lowest = (legal & -legal).bit_length() - 1
        return legal, "overtake" if beats(lead, lowest, trump) else "follow"
    return legal, "trump" if hand & SUIT_MASKS[trump] else "any"


def deal_hands(deck: Sequence[int], pattern: Sequence[int]) -> tuple[int, int]:
    """The elder's and the dealer's six cards from the front of the deck (R4)."""
    elder = dealer = 0
    pos = 0
    for batch in pattern:
        for _ in range(batch):
            elder |= 1 << deck[pos]
            pos += 1
        for _ in range(batch):
            dealer |= 1 << deck[pos]
            pos += 1
    return elder, dealer


def validate_deck(deck: Sequence[int]) -> tuple[int, ...]:
    """Check that ``deck`` holds each of the 32 cards once; return it as a tuple."""
    cards = tuple(deck)
    if len(cards) != 32:
        raise CardError(f"a deck has 32 cards, this one has {len(cards)}")
    seen = 0
    for c in cards:
        if not isinstance(c, int) or not 0 <= c < 32:
            raise CardError(f"deck holds {c!r}, which is not a card id 0-31")
        if seen >> c & 1:
            raise CardError(f"card {CARD_NAMES[c]} appears twice in the deck")
        seen |= 1 << c
    return cards


def public_turns(actions: Sequence[int], dealer: int, trump: int) -> Iterator[tuple[int, int]]:
    """For each action of a deal: (the player who made it, the tricks
    completed before it); see :func:`marjolet.history.walk`."""
    for player, done, _, _ in turns(actions, dealer, trump):
        yield player, done


def _play_move(deal: Deal, number: int, token: str) -> None:
    """Move ``number`` of a deal notation, a refusal naming the move."""
    where = f"deal notation, move {number} ({token!r})"
    try:
        deal.play_text(token)
    except IllegalActionError as exc:
        raise IllegalActionError(
            f"{where}: {exc}", action=exc.action, rule=exc.rule, why=exc.why
        ) from None
    except ActionError as exc:
        raise ActionError(f"{where}: {exc}") from None


class Deal:
    """The state of one deal, from the first lead to the end of trick 16.

    Players are 0 and 1; the elder (non-dealer) leads trick 1 (R3). Actions
    are the stable ids of :mod:`marjolet.actions`.
    """

    __slots__ = (
        "_all_tricks_bonus",
        "_dix_on_play",
        "_meld_cards",
        "_meld_values",
        "_moves",
        "_one_meld",
        "_s",
        "_stack",
        "dealer",
        "dealt",
        "deck",
        "rules",
        "seven",
        "stock",
        "trump",
        "turned_up",
    )

    rules: Rules
    dealer: int
    #: The deck order (R4) when the deal was made from one, else ``None``
    #: (a world built by the sampler).
    deck: tuple[int, ...] | None
    #: Each player's six dealt cards (0 where unknown, in sampled worlds).
    dealt: tuple[int, int]
    #: The 19 hidden stock cards in drawing order (-1 where unknown).
    stock: tuple[int, ...]
    #: The card turned up at the start of the deal (R5).
    turned_up: int
    trump: int
    #: The seven of trumps.
    seven: int

    def __init__(self, deck: Sequence[int], dealer: int = 0, rules: Rules = CLASSIC) -> None:
        """Deal from a deck order (R4, R5); ``dealer`` is 0 or 1."""
        if dealer not in (0, 1):
            raise DealError(f"dealer must be 0 or 1, got {dealer!r}")
        require_rules(rules)
        cards = validate_deck(deck)
        elder_hand, dealer_hand = deal_hands(cards, rules.deal_pattern)
        hands = [0, 0]
        hands[dealer ^ 1] = elder_hand
        hands[dealer] = dealer_hand
        n = len(rules.deal_pattern) * 2 * rules.deal_pattern[0]
        turned_up = cards[n]
        s = [0] * STATE_SIZE
        s[HAND], s[HAND + 1] = hands
        s[TURN] = dealer ^ 1
        s[LEAD] = -1
        s[INDICATOR] = turned_up
        s[SEVEN_BY] = -1
        s[LAST_CARD_TO] = -1
        s[LAST_WINNER] = -1
        self._setup(rules, dealer, turned_up, cards[n + 1 :], (hands[0], hands[1]), cards)
        if turned_up == self.seven:  # R18: the dealer scores 10 at once
            s[SEVEN_BY] = dealer
            s[POINTS + dealer] = SEVEN_POINTS
        self._s = s

    def _setup(
        self,
        rules: Rules,
        dealer: int,
        turned_up: int,
        stock: Sequence[int],
        dealt: tuple[int, int],
        deck: tuple[int, ...] | None,
    ) -> None:
        self.rules = rules
        self.dealer = dealer
        self.deck = deck
        self.dealt = dealt
        self.stock = tuple(stock)
        self.turned_up = turned_up
        self.trump = turned_up >> 3
        self.seven = card(SEVEN, self.trump)
        self._meld_cards = MELD_CARDS[rules.jack_queen == SAME_SUIT][self.trump]
        self._meld_values = MELD_VALUES[self.trump]
        self._dix_on_play = rules.dix_on_play
        self._all_tricks_bonus = rules.all_tricks_bonus
        self._one_meld = rules.one_meld_per_window
        self._stack: list[list[int]] = []
        self._moves: list[int] = []

    @classmethod
    def from_state(
        cls,
        rules: Rules,
        dealer: int,
        turned_up: int,
        stock: Sequence[int],
        state: Sequence[int],
        dealt: tuple[int, int] = (0, 0),
        moves: Sequence[int] = (),
    ) -> Deal:
        """Build a position directly from its parts (used by the sampler).

        ``state`` is a full state list (see the index constants); the new
        deal has no undo history before it. ``moves`` is the public action
        history, kept for observations.
        """
        if len(state) != STATE_SIZE:
            raise DealError(f"state must have {STATE_SIZE} fields, got {len(state)}")
        self = cls.__new__(cls)
        self._setup(rules, dealer, turned_up, stock, dealt, None)
        self._s = list(state)
        self._moves = list(moves)
        return self

    # -- cheap copies and undo -------------------------------------------------

    def copy(self, *, stack: bool = True) -> Deal:
        """An independent copy. With ``stack=False`` the copy cannot ``pop``
        past its starting point (cheaper for search roots)."""
        new = Deal.__new__(Deal)
        new.rules = self.rules
        new.dealer = self.dealer
        new.deck = self.deck
        new.dealt = self.dealt
        new.stock = self.stock
        new.turned_up = self.turned_up
        new.trump = self.trump
        new.seven = self.seven
        new._meld_cards = self._meld_cards
        new._meld_values = self._meld_values
        new._dix_on_play = self._dix_on_play
        new._all_tricks_bonus = self._all_tricks_bonus
        new._one_meld = self._one_meld
        new._s = self._s  # never mutated after push returns: safe to share
        if stack:
            new._stack = self._stack.copy()
            new._moves = self._moves.copy()
        else:
            new._stack = []
            new._moves = self._moves.copy()
        return new

    def pop(self) -> int:
        """Undo the last action and return it."""
        if not self._stack:
            raise IndexError("pop from a deal with no actions to undo")
        self._s = self._stack.pop()
        return self._moves.pop()

    # -- the rules ------------------------------------------------------------

    def push(self, action: int) -> None:
        """Apply a legal action (unchecked: see :meth:`play`)."""
        old = self._s
        s = old.copy()
        self._stack.append(old)
        self._moves.append(action)
        self._s = s
        p = s[TURN]
        if action < 32:  # play a card (R7, R8, R16)
            bit = 1 << action
            s[HAND + p] ^= bit
            s[EXPOSED + p] &= ~bit
            if action == self.seven and s[SEVEN_BY] < 0 and self._dix_on_play:
                s[SEVEN_BY] = p  # R19, at most once (R20)
                s[POINTS + p] += SEVEN_POINTS
            lead = s[LEAD]
            if lead < 0:
                s[LEAD] = action
                s[TURN] = p ^ 1
                return
            # the follower completes the trick (R8)
            w = p if BEATS[self.trump][lead << 5 | action] else p ^ 1
            s[WON + w] |= bit | 1 << lead
            s[POINTS + w] += CARD_POINTS[action] + CARD_POINTS[lead]
            s[LEAD] = -1
            s[LAST_WINNER] = w
            t = s[TRICKS] + 1
            s[TRICKS] = t
            s[TURN] = w
            if t <= PHASE1_TRICKS:
                s[WINDOW] = 1  # R9: the winner's meld window
                s[WINDOW_MELDS] = 0
                return
            s[LATE_TRICKS + w] += 1
            if t == LAST_TRICK:  # R17
                s[POINTS + w] += LAST_TRICK_POINTS
                if s[LATE_TRICKS + w] == PHASE2_TRICKS:
                    s[POINTS + w] += self._all_tricks_bonus
                s[TURN] = -1
        elif action == DRAW:  # R9, R15
            t = s[TRICKS]
            i = 2 * t - 2
            s[HAND + p] |= 1 << self.stock[i]
            if t < PHASE1_TRICKS:
                s[HAND + (p ^ 1)] |= 1 << self.stock[i + 1]
            else:
                s[HAND + (p ^ 1)] |= 1 << s[INDICATOR]
                s[POINTS + (p ^ 1)] += LAST_CARD_POINTS
                s[LAST_CARD_TO] = p ^ 1
                s[EXPOSED] = 0
                s[EXPOSED + 1] = 0
            s[WINDOW] = 0
        elif action == DIX:  # R18
            s[HAND + p] ^= 1 << self.seven | 1 << s[INDICATOR]
            s[INDICATOR] = self.seven
            s[SEVEN_BY] = p
            s[POINTS + p] += SEVEN_POINTS
        else:  # declare a meld (R11-R13)
            m = action - MELD_BASE
            s[MELDS + p] |= 1 << m
            s[POINTS + p] += self._meld_values[m]
            s[EXPOSED + p] |= self._meld_cards[m]
            s[WINDOW_MELDS] += 1

    def legal_mask(self) -> int:
        """The cards the player to act may play (0 in a window or at the end)."""
        s = self._s
        p = s[TURN]
        if p < 0 or s[WINDOW]:
            return 0
        hand = s[HAND + p]
        lead = s[LEAD]
        if lead < 0 or s[TRICKS] < PHASE1_TRICKS:
            return hand  # R7: any card while the stock lasts, and any lead
        return follow_mask(lead, hand, self.trump)  # R16

    def legal_actions(self) -> list[int]:
        """Every legal action id for the player to act, in increasing order."""
        s = self._s
        p = s[TURN]
        if p < 0:
            return []
        if s[WINDOW]:
            return self._window_actions(s, p)
        m = self.legal_mask()
        t = SUIT_BYTE_CARDS
        return [
            *t[0][m & 255],
            *t[1][(m >> 8) & 255],
            *t[2][(m >> 16) & 255],
            *t[3][(m >> 24) & 255],
        ]

    def _window_actions(self, s: list[int], p: int) -> list[int]:
        hand = s[HAND + p]
        out = []
        if not (self._one_meld and s[WINDOW_MELDS]):
            scored = s[MELDS + p]
            for m, need in enumerate(self._meld_cards):
                if hand & need == need and not scored >> m & 1:
                    out.append(MELD_BASE + m)
        if self.can_exchange_seven(p):
            out.append(DIX)
        out.append(DRAW)
        return out

    def is_legal(self, action: int) -> bool:
        return self.illegal_reason(action) is None

    def illegal_reason(self, action: int) -> Reason | None:
        """Why ``action`` is illegal here, citing the rule; ``None`` if legal.

        The answer is the message (a ``str``) with the rule id as data in
        its ``rule`` attribute (``"R16"``; ``""`` for an id that is no action)."""
        s = self._s
        p = s[TURN]
        if not isinstance(action, int) or not 0 <= action <= DRAW:
            message = f"unknown action id {action!r}"
            if isinstance(action, str):  # an action's name, not its id
                message += f" (play() takes an id; play_text({action!r}) takes a name)"
            return Reason("", message, "unknown_action", action=repr(action))
        name = ACTION_NAMES[action]
        if p < 0:
            return Reason(
                "R17",
                f"R17: the deal is complete after trick 16; no further action ({name})",
                "deal_over",
            )
        if action < 32:
            return self._card_reason(p, action)
        if action == DRAW:
            if not s[WINDOW]:
                return Reason(
                    "R9",
                    f"R9: 'draw' closes a meld window and none is open (player {p} to play a card)",
                    "no_window",
                    player=p,
                    stock_empty=s[TRICKS] >= PHASE1_TRICKS,  # nothing is drawn after trick 10
                )
            return None
        if not s[WINDOW]:
            what = "meld" if action < DIX else "dix"  # a front end says which was refused
            if s[TRICKS] >= PHASE1_TRICKS:
                return Reason(
                    "R14",
                    f"R14: no {'melds' if action < DIX else 'dix'} in phase 2 (tricks 11-16)",
                    "phase2_meld",
                    player=p,
                    what=what,
                )
            return Reason(
                "R14",
                f"R14: only the winner of a trick may {'declare' if action < DIX else 'exchange'}, "
                f"in the meld window before drawing",
                "outside_window",
                player=p,
                what=what,
            )
        if action == DIX:
            return self._dix_reason(p)
        return self._meld_reason(p, action - MELD_BASE)

    def _card_reason(self, p: int, action: int) -> Reason | None:
        """Why player p may not play card ``action`` now (R7, R9/R10, R16)."""
        s = self._s
        name = ACTION_NAMES[action]
        hand = s[HAND + p]
        if s[WINDOW]:
            return Reason(
                "R9/R10",
                f"R9/R10: player {p}'s meld window after trick {s[TRICKS]} is open; "
                f"it ends with 'draw' before {name} can be played",
                "window_open",
                player=p,
                card=name,
            )
        if not hand >> action & 1:
            message = f"R7: player {p} does not hold {name}"
            return Reason("R7", message, "not_held", player=p, card=name)
        legal = self.legal_mask()
        if legal >> action & 1:
            return None
        lead = s[LEAD]
        duty = r16_duty_words(hand, lead, self.trump)
        cards = " ".join(CARD_NAMES[c] for c in display_order(legal))
        return Reason(
            "R16",
            f"R16: {name} may not follow {CARD_NAMES[lead]} "
            f"(trumps {SUITS[self.trump]}): player {p} {duty}; legal: {cards}",
            "must_" + r16_duty(hand, lead, self.trump)[1],
            player=p,
            card=name,
            lead=CARD_NAMES[lead],
            trump=SUITS[self.trump],
            legal=[CARD_NAMES[c] for c in display_order(legal)],
        )

    def _dix_reason(self, p: int) -> Reason | None:
        """Why player p, in its meld window, may not exchange the seven (R18, R20)."""
        s = self._s
        if self.seven_turned_up:
            return Reason(
                "R18",
                "R18: the indicator was the seven of trumps; there is nothing to exchange",
                "seven_turned_up",
            )
        if s[SEVEN_BY] >= 0 and s[INDICATOR] == self.seven:
            return Reason(
                "R18/R20",
                "R18/R20: the seven of trumps was already exchanged in this deal",
                "seven_exchanged",
            )
        if s[SEVEN_BY] >= 0:
            return Reason(
                "R20",
                "R20: the seven of trumps already earned its 10 when it was played",
                "seven_played",
            )
        if not s[HAND + p] >> self.seven & 1:
            return Reason(
                "R18",
                f"R18: player {p} does not hold the seven of trumps {CARD_NAMES[self.seven]}",
                "no_seven",
                player=p,
                card=CARD_NAMES[self.seven],
            )
        return None

    def _meld_reason(self, p: int, m: int) -> Reason | None:
        """Why player p, in its meld window, may not declare meld m (R12, R10)."""
        s = self._s
        meld = MELD_NAMES[m]
        # the meld as a front end names it: its cards depend on the trump and the rules
        about = {"player": p, "meld": meld, "trump": SUITS[self.trump]}
        about["jack_queen"] = self.rules.jack_queen
        if s[MELDS + p] >> m & 1:
            message = f"R12: player {p} already scored meld {meld} in this deal"
            return Reason("R12", message, "meld_again", **about)
        missing = self._meld_cards[m] & ~s[HAND + p]
        if missing:
            trump_jack = card(JACK, self.trump)
            cards = " ".join(
                f"{CARD_NAMES[c]} (the trump jack)" if c == trump_jack else CARD_NAMES[c]
                for c in display_order(missing)
            )
            # the other player holds it all (exposed cards are in hand): a
            # record's meld written after a trick its holder lost; never in
            # the message, which a player in play may be sent
            other_holds = not self._meld_cards[m] & ~s[HAND + (p ^ 1)]
            return Reason(
                "R12",
                f"R12: meld {meld} needs {cards}, not in the hand of player {p} (window owner)",
                "meld_missing",
                **about,
                missing=[CARD_NAMES[c] for c in display_order(missing)],
                other_holds=other_holds,
            )
        if self._one_meld and s[WINDOW_MELDS]:
            return Reason(
                "one_meld_per_window",
                f"R10 (variation one_meld_per_window): player {p} already declared a meld "
                "in this window, and this variation allows one a trick won",
                "one_meld",
                player=p,
            )
        return None

    def play(self, action: int) -> None:
        """Apply ``action`` after checking it; raise
        :class:`IllegalActionError` citing the rule if it is not legal."""
        reason = self.illegal_reason(action)
        if reason is not None:
            raise IllegalActionError(reason, action=action, rule=reason.rule, why=reason.why())
        self.push(action)

    # -- queries ---------------------------------------------------------------

    @property
    def state(self) -> tuple[int, ...]:
        """The state fields as a tuple (equal states compare equal)."""
        return tuple(self._s)

    @property
    def moves(self) -> list[int]:
        """The actions pushed so far (a copy)."""
        return self._moves.copy()

    @property
    def to_move(self) -> int:
        """The player to act, or -1 when the deal is over."""
        return self._s[TURN]

    @property
    def is_over(self) -> bool:
        return self._s[TURN] < 0

    @property
    def in_window(self) -> bool:
        """Whether the player to act is in the meld window of a won trick."""
        return bool(self._s[WINDOW])

    @property
    def tricks_played(self) -> int:
        return self._s[TRICKS]

    @property
    def trick_number(self) -> int:
        """The trick being played (1-16), or 16 once the deal is over."""
        s = self._s
        if s[TURN] < 0:
            return LAST_TRICK
        return s[TRICKS] + (0 if s[WINDOW] else 1)

    @property
    def stock_empty(self) -> bool:
        """True in phase 2 (R16): the indicator has been taken."""
        s = self._s
        return s[TRICKS] > PHASE1_TRICKS or (s[TRICKS] == PHASE1_TRICKS and not s[WINDOW])

    @property
    def stock_size(self) -> int:
        """Cards left to draw, the face-up indicator included (20 at the start)."""
        s = self._s
        return max(0, STOCK_CARDS + 1 - 2 * (s[TRICKS] - s[WINDOW]))

    @property
    def lead(self) -> int | None:
        """The card led to the current trick, if one has been led."""
        lead = self._s[LEAD]
        return None if lead < 0 else lead

    @property
    def indicator(self) -> int:
        """The face-up card under the stock (the seven after an exchange)."""
        return self._s[INDICATOR]

    @property
    def seven_scored_by(self) -> int | None:
        v = self._s[SEVEN_BY]
        return None if v < 0 else v

    @property
    def exchanged(self) -> bool:
        """Whether the seven of trumps was exchanged for the indicator (R18)."""
        return self._s[INDICATOR] != self.turned_up

    def hand(self, player: int) -> CardSet:
        return CardSet(self._s[HAND + player])

    def hand_mask(self, player: int) -> int:
        return self._s[HAND + player]

    def exposed(self, player: int) -> CardSet:
        return CardSet(self._s[EXPOSED + player])

    def won(self, player: int) -> CardSet:
        return CardSet(self._s[WON + player])

    def melds_scored(self, player: int) -> tuple[str, ...]:
        scored = self._s[MELDS + player]
        return tuple(MELD_NAMES[m] for m in range(MELD_COUNT) if scored >> m & 1)

    @property
    def points(self) -> tuple[int, int]:
        """Deal points so far (R21)."""
        s = self._s
        return (s[POINTS], s[POINTS + 1])

    def breakdown(self, player: int) -> Breakdown:
        """The player's deal points by source (record.md's ``breakdown``)."""
        s = self._s
        over = s[TURN] < 0
        melds = s[MELDS + player]
        swept = over and s[LATE_TRICKS + player] == PHASE2_TRICKS  # R17
        bd = Breakdown(
            cards=sum(CARD_POINTS[c] for c in mask_cards(s[WON + player])),
            melds=sum(self._meld_values[m] for m in range(MELD_COUNT) if melds >> m & 1),
            dix=SEVEN_POINTS if s[SEVEN_BY] == player else 0,
            last_card=LAST_CARD_POINTS if s[LAST_CARD_TO] == player else 0,
            last_trick=LAST_TRICK_POINTS if over and s[LAST_WINNER] == player else 0,
            all_tricks=self._all_tricks_bonus if swept else 0,
        )
        assert bd.total == s[POINTS + player], "breakdown out of step with points"
        return bd

    def _draw_positions(self, player: int) -> list[int]:
        """Where each card ``player`` drew came from (:func:`draw_positions`).
        The undo stack holds the state before each action, so the drawer of
        each ``draw`` and the tricks behind it are read there, without
        walking the tricks again; a copy made without its stack walks them."""
        if len(self._stack) != len(self._moves):
            return draw_positions(self._moves, self.dealer, self.trump, player)
        return [
            draw_position(before[TRICKS], before[TURN], player)
            for action, before in zip(self._moves, self._stack, strict=True)
            if action == DRAW
        ]

    def draws(self, player: int) -> list[int]:
        """The cards ``player`` has drawn so far, in order (the bot protocol's
        ``draws``); cards unknown in a sampled world are left out."""
        out = []
        for idx in self._draw_positions(player):
            c = self._s[INDICATOR] if idx == STOCK_CARDS else self.stock[idx]
            if c >= 0:
                out.append(c)
        return out

    # -- the public read API (front ends and bots read this, never ``_s``) ----

    def exposed_mask(self, player: int) -> int:
        return self._s[EXPOSED + player]

    def won_mask(self, player: int) -> int:
        return self._s[WON + player]

    def melds_mask(self, player: int) -> int:
        """Bit ``m`` set: meld id ``m`` scored by ``player`` this deal (R12)."""
        return self._s[MELDS + player]

    @property
    def meld_values(self) -> tuple[int, ...]:
        """The points of each meld id under this deal's trump (R11)."""
        return self._meld_values

    @property
    def meld_cards(self) -> tuple[int, ...]:
        """The card mask of each meld id under this deal's trump and rules."""
        return self._meld_cards

    def late_tricks(self, player: int) -> int:
        """Tricks 11-16 won so far by ``player`` (R17)."""
        return self._s[LATE_TRICKS + player]

    @property
    def last_trick_winner(self) -> int | None:
        """The winner of the latest completed trick, if any."""
        w = self._s[LAST_WINNER]
        return None if w < 0 else w

    @property
    def last_trick(self) -> TrickCards | None:
        """The latest completed trick, if any (from the public history)."""
        done = tricks(self._moves, self.dealer, self.trump)
        return done[-1] if done else None

    @property
    def last_card_to(self) -> int | None:
        """The player who took the last stock card (R15), once taken."""
        v = self._s[LAST_CARD_TO]
        return None if v < 0 else v

    @property
    def phase(self) -> int:
        """1 while the stock lasts (tricks 1-10), 2 after (R16)."""
        return 2 if self.stock_empty else 1

    @property
    def window_owner(self) -> int | None:
        """The player whose meld window is open (R9), if one is."""
        s = self._s
        return s[TURN] if s[WINDOW] and s[TURN] >= 0 else None

    @property
    def window_melds(self) -> int:
        """Declarations made in the open meld window."""
        return self._s[WINDOW_MELDS]

    @property
    def seven_turned_up(self) -> bool:
        """Whether the face-up card was the seven of trumps: the dealer
        scored its 10 at once, and there is nothing to exchange (R18)."""
        return self.turned_up == self.seven

    def can_exchange_seven(self, player: int) -> bool:
        """Whether ``player`` may exchange the seven of trumps in its meld
        window (R18, R20): it holds the seven, and the seven has not yet
        earned its 10 (turned up, exchanged or played). The one test of the
        dix's legality; players that plan ahead ask it too."""
        return self._s[SEVEN_BY] < 0 and bool(self._s[HAND + player] >> self.seven & 1)

    @property
    def seven_pending(self) -> bool:
        """Whether playing the seven of trumps would still score 10 (R19, R20)."""
        return self._dix_on_play and self._s[SEVEN_BY] < 0

    # -- python-chess conveniences ----------------------------------------------

    @property
    def legal(self) -> LegalActions:
        """The legal actions as a tuple that knows texts: ``"KS" in deal.legal``."""
        return LegalActions(self.legal_actions())

    def play_text(self, text: str) -> Action:
        """Parse ``text`` (``"KS"``, ``"meld KQH"``, ``"dix"``, ``"draw"``),
        play it checked, and return the action."""
        action = Action.parse(text)
        self.play(action.id)
        return action

    def peek(self) -> int:
        """The last action played (``IndexError`` if there is none)."""
        if not self._moves:
            raise IndexError("peek at a deal with no actions")
        return self._moves[-1]

    def outcome(self) -> Outcome | None:
        """How the deal ended (``None`` while it is being played)."""
        s = self._s
        if s[TURN] >= 0:
            return None
        p0, p1 = s[POINTS], s[POINTS + 1]
        return Outcome("deal", None if p0 == p1 else (0 if p0 > p1 else 1), (p0, p1))

    def notation(self) -> str:
        """The position as one line: rules, dealer, deck order, actions
        (``classic; dealer 0; deck TS QC ...; moves QC JC draw``);
        :meth:`from_notation` reads it back. Only for deals made from a deck."""
        if self.deck is None:
            raise DealError("a sampled world has no deck order, so it has no notation")
        deck = " ".join(CARD_NAMES[c] for c in self.deck)
        moves = " ".join(ACTION_NAMES[a] for a in self._moves)
        return f"{self.rules.to_text()}; dealer {self.dealer}; deck {deck}; moves {moves}".rstrip()

    @classmethod
    def from_notation(cls, text: str) -> Deal:
        """The deal written by :meth:`notation`, every action checked."""
        parts = [part.strip() for part in text.split(";")]
        if len(parts) != 4:
            raise DealError(
                f"deal notation {text!r}: expected 'RULES; dealer D; deck CARDS; moves ACTIONS'"
            )
        rules_text, dealer_text, deck_text, moves_text = parts
        key, _, dealer = dealer_text.partition(" ")
        if key != "dealer" or dealer.strip() not in ("0", "1"):
            raise DealError(f"deal notation {text!r}: expected 'dealer 0' or 'dealer 1'")
        key, _, cards = deck_text.partition(" ")
        if key != "deck":
            raise DealError(f"deal notation {text!r}: expected 'deck' and 32 cards")
        if not moves_text.startswith("moves"):
            raise DealError(f"deal notation {text!r}: expected 'moves' and the actions")
        deal = cls([parse_card(t) for t in cards.split()], int(dealer), Rules.parse(rules_text))
        tokens = moves_text[len("moves") :].split()
        i = number = 0
        while i < len(tokens):
            token = tokens[i]
            if token == "meld" and i + 1 < len(tokens):
                token = f"meld {tokens[i + 1]}"
                i += 1
            number += 1
            _play_move(deal, number, token)
            i += 1
        return deal

    def __eq__(self, other: object) -> bool:
        """Equal positions: same rules, cards, state and action history."""
        if not isinstance(other, Deal):
            return NotImplemented
        return (
            self._s == other._s
            and self._moves == other._moves
            and self.dealer == other.dealer
            and self.turned_up == other.turned_up
            and self.stock == other.stock
            and self.dealt == other.dealt
            and self.deck == other.deck
            and self.rules == other.rules
        )

    __hash__ = None  # type: ignore[assignment]  # mutable: never a dict key

    def __repr__(self) -> str:
        """``Deal.from_notation(...)``: evaluating it rebuilds the deal."""
        if self.deck is not None:
            return f"Deal.from_notation({self.notation()!r})"
        moves = " ".join(ACTION_NAMES[a] for a in self._moves)
        return f"<Deal dealer={self.dealer} deck=None moves=[{moves}]>"

    def __str__(self) -> str:
        """A text picture of the position (both hands: this is the full state)."""
        s = self._s
        lines = [
            f"trumps {SUITS[self.trump]}, indicator {CARD_NAMES[s[INDICATOR]]}, "
            f"stock {self.stock_size}, trick {self.trick_number}",
        ]
        for p in (0, 1):
            mark = "*" if s[TURN] == p else " "
            lines.append(
                f"{mark}player {p}{' (dealer)' if p == self.dealer else ''}: "
                f"{CardSet(s[HAND + p])}  exposed [{CardSet(s[EXPOSED + p])}]  "
                f"points {s[POINTS + p]}"
            )
        if s[LEAD] >= 0:
            lines.append(f"led: {CARD_NAMES[s[LEAD]]}")
        if s[WINDOW]:
            lines.append(f"meld window of player {s[TURN]}")
        return "\n".join(lines)
