"""``expert``: a rule-based player written apart from ``heuristic`` and ``best``.

Where ``heuristic`` weighs every card by a table of keep values and picks
the best weighted sum, ``expert`` plays the way a counting club player
talks through a hand: a short list of rules tried in order, each reading
counts the player keeps in its head (:class:`Counts`):

* **Meld window**: the seven of trumps is exchanged at once, then every
  meld held is declared (the most valuable first), then the draw.
* **Counting**: the trumps, aces and tens still out (unseen, or known in
  the opponent's hand), the highest trump still out (is my trump the
  master?), what the opponent may still hold of each meld it has not
  scored, and what my own window would score if I won the trick now.
* **Follower in tricks 1-10**: on the last phase-1 trick it weighs the
  window and the last hidden card against the indicator and its 10 for
  the loser (R15); else it takes a led ace or ten (with the ace over a
  ten, else with its cheapest spare trump), wins any trick that opens a
  window worth 20 or more, takes the trick whenever a cheap card does it
  or the opponent's window looks dangerous, and otherwise throws its least
  useful card, never a ten or an ace while anything else will do.
* **Leader in tricks 1-10**: when a window worth 20 waits and it holds a
  sure winner (the master trump, or an ace once no trump is out) it leads
  it; with the opponent out of trumps it cashes its aces; otherwise it
  leads low from its longest plain suit, keeping one low guard beside each
  ten (a guarded ten is safe in the ending, R16) and never leading a ten.
* **Tricks 11-16**: both hands are known (R23): the exact ending solver's
  move.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from marjolet.actions import DIX, DRAW, MELD_BASE
from marjolet.bots.base import Bot
from marjolet.bots.heuristic import opponent_known, public_deal
from marjolet.bots.solver import EndingSolver, ending_move
from marjolet.cards import ACES, ALL_CARDS, CARD_POINTS, SUIT_MASKS, TENS, mask_cards
from marjolet.engine import (
    HAND,
    INDICATOR,
    LEAD,
    MELDS,
    PHASE1_TRICKS,
    STOCK_CARDS,
    TRICKS,
    WINDOW,
    WON,
    Deal,
)
from marjolet.melds import MELD_COUNT
from marjolet.observation import Observation
from marjolet.rules import LAST_CARD_POINTS, SEVEN_POINTS
from marjolet.trick import beats

#: Tricks completed when the last trick with a draw is played (trick 10, R15).
LAST_STOCK_TRICK = PHASE1_TRICKS - 1
#: A window worth at least this many points is worth fighting for.
WINDOW_WORTH_A_FIGHT = 20
#: A plain card of at most this worth wins a trick "for free".
CHEAP = 2.0
#: The opponent's window counts as dangerous from this estimate on.
DANGEROUS_WINDOW = 18.0


@dataclass(slots=True)
class Counts:
    """What a counting player knows at a phase-1 decision."""

    seat: int
    trump: int
    hand: int
    #: Cards the opponent may hold: unseen ones and those it showed.
    out: int
    #: Unseen cards (the opponent's hidden hand or the stock).
    unseen: int
    #: Cards known to be in the opponent's hand.
    known: int
    #: The opponent's hidden hand size and the number of unseen cards.
    opp_hidden: int
    tricks: int
    lead: int
    #: Whether the seat may still exchange the seven of trumps it holds.
    can_dix: bool
    seven: int
    indicator: int
    meld_cards: tuple[int, ...]
    meld_values: tuple[int, ...]
    my_melds: int
    opp_melds: int
    one_meld: bool

    @classmethod
    def of(cls, deal: Deal, seat: int) -> Counts:
        s = deal.state
        hand = s[HAND + seat]
        known = opponent_known(deal, seat)
        lead = s[LEAD]
        seen = hand | s[WON] | s[WON + 1] | known | 1 << s[INDICATOR]
        if lead >= 0:
            seen |= 1 << lead
        unseen = ALL_CARDS & ~seen
        # the unseen cards are the opponent's hidden ones and the hidden stock
        # (less two cards a completed trick; called for card plays only)
        hidden_stock = max(0, STOCK_CARDS - 2 * s[TRICKS])
        opp_hidden = max(0, unseen.bit_count() - hidden_stock)
        return cls(
            seat=seat,
            trump=deal.trump,
            hand=hand,
            out=unseen | known,
            unseen=unseen,
            known=known,
            opp_hidden=opp_hidden,
            tricks=s[TRICKS],
            lead=lead,
            can_dix=deal.can_exchange_seven(seat),
            seven=deal.seven,
            indicator=s[INDICATOR],
            meld_cards=deal.meld_cards,
            meld_values=deal.meld_values,
            my_melds=s[MELDS + seat],
            opp_melds=s[MELDS + (seat ^ 1)],
            one_meld=deal.rules.one_meld_per_window,
        )

    # -- counting --------------------------------------------------------------

    @property
    def trumps_out(self) -> int:
        return self.out & SUIT_MASKS[self.trump]

    def master(self, c: int) -> bool:
        """No card the opponent may hold beats ``c`` when ``c`` is led."""
        suit = SUIT_MASKS[c >> 3]
        higher = self.out & suit & ~((2 << c) - 1)
        if higher:
            return False
        return c >> 3 == self.trump or not self.trumps_out

    def p_holds(self, card: int) -> float:
        """Chance the opponent holds ``card`` (1 if shown, else a share of
        the unseen cards)."""
        if self.known >> card & 1:
            return 1.0
        if not self.unseen >> card & 1:
            return 0.0
        n = self.unseen.bit_count()
        return self.opp_hidden / n if n else 0.0

    def window_after(self, spent: int) -> int:
        """Points my window would score if I won this trick with ``spent``
        still leaving my hand: every unscored meld held complete, and the
        seven's exchange."""
        hand = self.hand & ~(1 << spent) if spent >= 0 else self.hand
        total = 0
        best = 0
        for m in range(MELD_COUNT):
            if self.my_melds >> m & 1:
                continue
            need = self.meld_cards[m]
            if need & hand == need:
                total += self.meld_values[m]
                best = max(best, self.meld_values[m])
        if self.one_meld:
            total = best
        if self.can_dix and spent != self.seven:
            total += SEVEN_POINTS
        return total

    def opponent_window(self) -> float:
        """The expected worth of the opponent's window: a small base, the
        melds it could complete from what it may hold, and the seven."""
        value = 4.0
        mine_or_gone = ALL_CARDS & ~self.out
        for m in range(MELD_COUNT):
            if self.opp_melds >> m & 1:
                continue
            need = self.meld_cards[m]
            if need & mine_or_gone:
                continue
            p = 1.0
            for c in mask_cards(need):
                p *= self.p_holds(c)
            value += self.meld_values[m] * p
        if self.seven != self.indicator:
            value += SEVEN_POINTS * self.p_holds(self.seven)
        return value

    def worth(self, c: int) -> float:
        """What holding ``c`` is worth: its points and its power to win
        later tricks, more for trumps; more for a meld piece still useful."""
        rank = c & 7
        points = CARD_POINTS[c]
        if c >> 3 == self.trump:
            value = 8.0 + rank + (14.0 if points else 0.0)
            if c == self.seven and self.can_dix:
                value += 12.0
        elif rank == 7:  # an ace
            value = 12.0
        elif rank == 6:  # a ten: safe once its ace is gone or mine
            value = 11.0 if not self.out >> (c + 1) & 1 else 9.0
        else:
            value = rank * 0.5
        return value + self.meld_hope(c)

    def meld_hope(self, c: int) -> float:
        """Half the value of each unscored meld ``c`` belongs to whose other
        cards are mine or may still come to me."""
        hope = 0.0
        for m in range(MELD_COUNT):
            need = self.meld_cards[m]
            if self.my_melds >> m & 1 or not need >> c & 1:
                continue
            missing = need & ~self.hand
            if missing & ~self.unseen & ~(1 << self.indicator):
                continue  # a missing card is gone or the opponent's
            hope += 0.5 * self.meld_values[m] / (1 + missing.bit_count())
        return hope


class ExpertPolicy:
    """The rules of the module docstring on a deal (true, sampled or public)."""

    __slots__ = ()

    def window_action(self, deal: Deal, legal: Sequence[int]) -> int:
        """Dix, then the most valuable meld, then draw."""
        if DIX in legal:
            return DIX
        melds = [a for a in legal if MELD_BASE <= a < DIX]
        if melds:
            values = deal.meld_values
            return max(melds, key=lambda a: (values[a - MELD_BASE], -a))
        return DRAW

    def card(self, deal: Deal, legal: Sequence[int]) -> int:
        """A card of tricks 1-10."""
        k = Counts.of(deal, deal.to_move)
        cards = [a for a in legal if a < 32]
        if k.lead >= 0:
            return self.follow(k, cards)
        return self.lead(k, cards)

    # -- following -------------------------------------------------------------

    def follow(self, k: Counts, cards: list[int]) -> int:
        lead = k.lead
        lead_pts = CARD_POINTS[lead]
        winners = [c for c in cards if beats(lead, c, k.trump)]
        cheapest = min(winners, key=k.worth) if winners else -1
        if k.tricks == LAST_STOCK_TRICK:
            return self.last_stock_trick_follow(k, cards, winners)
        if lead_pts and winners:
            ace = lead + 1
            if lead & 7 == 6 and ace in winners:
                return ace
            spare = [c for c in winners if c >> 3 == k.trump and not CARD_POINTS[c]]
            spare = [c for c in spare if k.worth(c) <= lead_pts + 12]
            if spare:
                return min(spare, key=k.worth)
        for c in sorted(winners, key=k.worth):
            gain = k.window_after(c)
            if gain >= WINDOW_WORTH_A_FIGHT and k.worth(c) < gain + lead_pts:
                return c
        if winners and k.worth(cheapest) <= CHEAP:
            return cheapest
        danger = k.opponent_window()
        if winners and danger >= DANGEROUS_WINDOW and k.worth(cheapest) < danger:
            return cheapest
        return self.discard(k, cards)

    def discard(self, k: Counts, cards: list[int]) -> int:
        """The card whose loss hurts least: never points while anything else
        will do, never the last low guard of a ten."""
        def cost(c: int) -> float:
            v = k.worth(c) + 2 * CARD_POINTS[c]
            if self._guards_ten(k, c):
                v += 4.0
            return v

        return min(cards, key=lambda c: (cost(c), c & 7))

    def last_stock_trick_follow(self, k: Counts, cards: list[int], winners: list[int]) -> int:
        """Trick 10: the winner gets the window and the last hidden card,
        the loser the indicator and 10 points (R15)."""
        lead_pts = CARD_POINTS[k.lead]
        loser_gets = LAST_CARD_POINTS + k.worth(k.indicator) * 0.5
        best_win = max(
            winners,
            key=lambda c: lead_pts + CARD_POINTS[c] + k.window_after(c) - k.worth(c),
            default=-1,
        )
        if best_win >= 0:
            win_value = (
                lead_pts + CARD_POINTS[best_win] + k.window_after(best_win) - k.worth(best_win)
            )
            losers = [c for c in cards if c not in winners]
            if not losers:
                return best_win
            lose_card = self.discard(k, losers)
            lose_value = loser_gets - lead_pts - CARD_POINTS[lose_card] - k.worth(lose_card)
            return best_win if win_value + 4 >= lose_value else lose_card
        return self.discard(k, cards)

    # -- leading ---------------------------------------------------------------

    def lead(self, k: Counts, cards: list[int]) -> int:
        sure = [c for c in cards if k.master(c)]
        if k.tricks == LAST_STOCK_TRICK and k.worth(k.indicator) * 0.5 + LAST_CARD_POINTS > max(
            (k.window_after(c) for c in cards), default=0
        ):
            return self.low_lead(k, cards)  # happy to lose: the indicator is worth more
        for c in sorted(sure, key=k.worth):
            if k.window_after(c) >= WINDOW_WORTH_A_FIGHT:
                return c
        if not k.trumps_out:
            aces = [c for c in sure if c & 7 == 7]
            if aces:
                return aces[0]
        return self.low_lead(k, cards)

    def low_lead(self, k: Counts, cards: list[int]) -> int:
        """Low from the longest plain suit, keeping tens guarded, never a ten."""
        def cost(c: int) -> tuple[float, int]:
            suit = c >> 3
            v = k.worth(c) + (6.0 if CARD_POINTS[c] else 0.0)
            if suit == k.trump:
                v += 5.0
            if self._guards_ten(k, c):
                v += 4.0
            length = (k.hand & SUIT_MASKS[suit]).bit_count()
            return (v - 0.3 * length, c & 7)

        return min(cards, key=cost)

    @staticmethod
    def _guards_ten(k: Counts, c: int) -> bool:
        """``c`` is the only low card beside a ten whose ace is still out."""
        suit = SUIT_MASKS[c >> 3]
        ten = (c & ~7) | 6
        if c == ten or not k.hand >> ten & 1 or not k.out >> (ten + 1) & 1:
            return False
        low = k.hand & suit & ~(TENS | ACES)
        return low == 1 << c


POLICY = ExpertPolicy()


class ExpertBot(Bot):
    name = "expert"
    description = (
        "rule-based counting player: declares at once, counts trumps and tens, fights for "
        "meld windows, keeps tens guarded; exact ending"
    )

    def __init__(self, *, seed: int | None = None, **options: object) -> None:
        super().__init__(seed=seed, **options)
        self._ending: EndingSolver | None = None

    def new_match(self, seed: int | None = None) -> None:
        super().new_match(seed)
        self._ending = None

    def choose(self, obs: Observation, legal: Sequence[int]) -> int:
        if len(legal) == 1:
            return legal[0]
        deal = public_deal(obs)
        if deal.state[WINDOW]:
            action = POLICY.window_action(deal, legal)
        elif deal.stock_empty:
            self._ending, action, _ = ending_move(self._ending, deal)
        else:
            action = POLICY.card(deal, legal)
        return action if action in legal else legal[0]


__all__ = ["POLICY", "Counts", "ExpertBot", "ExpertPolicy", "beats"]
