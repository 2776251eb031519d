"""``heuristic``: a hand-written player, and the playout policy of the search bots.

It plays the way a careful club player reasons, without search:

* **Meld window** (R10-R14): exchange the seven of trumps first (the indicator
  may complete a meld), then declare every meld it holds, the most valuable
  first (with ``one_meld_per_window`` only that one), then draw.
* **Tricks 1-10** (R7): every card gets a *keep value*: trumps, aces and
  tens, the seven while it can still be exchanged, and the pieces of melds it
  holds or may still complete (weighted by the chance of drawing the missing
  cards and of winning a trick to declare them). As follower it compares, for
  each card, what winning or losing the trick is worth (the trick's points,
  the melds it could then declare, the opponent's window, the indicator's 10
  for the loser of trick 10) against the card's keep value. As leader it
  estimates from the unseen cards how likely the opponent is to beat each
  lead, and leads cheap cards unless it wants the trick for a meld.
* **Tricks 11-16** (R16, both hands known): leads a card the opponent cannot
  beat when it captures points, draws trumps when it holds the master trump,
  wins tricks as cheaply as it can (saving a ten the opponent's ace would
  catch), and discards its lowest card when it must lose.

The policy reads only what its seat may know (R23): its own hand, the
opponent's exposed cards (and the indicator it took by a dix), everything
played, and the whole opposing hand once the stock is empty. Because it reads
those from the state list, the same code plays the ``heuristic`` bot (on the
observation's public state) and the playouts of ``pimc`` (on sampled worlds).
"""

from __future__ import annotations

from collections.abc import Sequence

from marjolet.actions import DIX, DRAW, MELD_BASE
from marjolet.bots.base import Bot
from marjolet.cards import ALL_CARDS, CARD_POINTS, SUIT_MASKS
from marjolet.engine import (
    EXPOSED,
    HAND,
    INDICATOR,
    LATE_TRICKS,
    LEAD,
    MELDS,
    SEVEN_BY,
    TRICKS,
    TURN,
    WINDOW,
    WON,
    Deal,
)
from marjolet.melds import MELD_COUNT
from marjolet.observation import Observation

# -- tuning ------------------------------------------------------------------------

#: Keep value of a card in tricks 1-10 by rank (7 8 9 J Q K T A), in points:
#: what the card is worth to hold rather than to spend, melds apart.
KEEP_PLAIN = (0.0, 0.3, 0.6, 1.0, 1.5, 2.0, 7.0, 10.0)
KEEP_TRUMP = (4.0, 4.5, 5.0, 6.0, 7.0, 8.0, 14.0, 17.0)
#: What the opponent's meld window is worth to the opponent, on average.
OPPONENT_WINDOW = 5.0
#: Worth of holding the lead (the next trick's initiative).
LEAD_VALUE = 1.0
#: Points the cheap card thrown on a trick is expected to carry.
DISCARD_POINTS = 1.5
TRUMP_DRAW = -3.0


def _bits(mask: int) -> list[int]:
    out = []
    while mask:
        b = mask & -mask
        out.append(b.bit_length() - 1)
        mask ^= b
    return out


_P_NONE: dict[tuple[int, int, int], float] = {}


def _p_none(pool: int, good: int, drawn: int) -> float:
    """Chance that ``drawn`` cards dealt from ``pool`` unseen cards include
    none of ``good`` given ones (hypergeometric), memoised."""
    key = (pool, good, drawn)
    p = _P_NONE.get(key)
    if p is None:
        p = 1.0
        for i in range(drawn):
            if pool - i <= 0:
                break
            p *= max(0.0, (pool - good - i) / (pool - i))
        _P_NONE[key] = p
    return p


def realise_chance(tricks_done: int) -> float:
    """Chance to declare, later in tricks 1-10, a meld held complete now
    after the trick being played (``tricks_done`` completed before it)."""
    later = 9 - tricks_done  # phase-1 tricks after the current one
    if later <= 0:
        return 0.0
    return min(0.85, 0.35 + 0.15 * later)


def opponent_known(deal: Deal, seat: int) -> int:
    """The cards of the opponent's hand that ``seat`` knows (R23), read so
    that the answer is the same on a true deal, a sampled world and an
    observation's public state."""
    s = deal.state
    opp = seat ^ 1
    hand = s[HAND + opp]
    if deal.stock_empty:
        return hand
    known = s[EXPOSED + opp]
    if s[SEVEN_BY] == opp and s[INDICATOR] != deal.turned_up:
        known |= 1 << deal.turned_up
    return hand & known


class HeuristicPolicy:
    """The heuristic as a function of a deal and the seat to act.

    :meth:`act` may be called on a true deal, a sampled world or a public
    deal built from an observation: it reads only what the seat may know.
    """

    __slots__ = ()

    def act(self, deal: Deal, legal: Sequence[int] | None = None) -> int:
        s = deal.state
        seat = s[TURN]
        if s[WINDOW]:
            return self.window_action(
                deal, seat, legal if legal is not None else deal.legal_actions()
            )
        if deal.stock_empty:
            return self.ending_card(deal, seat, deal.legal_mask())
        return self.stock_card(deal, seat, deal.legal_mask())

    # -- the meld window -----------------------------------------------------------

    def window_action(self, deal: Deal, seat: int, legal: Sequence[int]) -> int:
        """Dix first, then the most valuable meld, then draw (R10-R14)."""
        if DIX in legal:
            return DIX
        best = DRAW
        best_value = 0
        values = deal.meld_values
        for a in legal:
            if MELD_BASE <= a < DIX:
                v = values[a - MELD_BASE]
                if v > best_value:
                    best, best_value = a, v
        return best

    # -- tricks 1-10 ---------------------------------------------------------------

    def stock_card(self, deal: Deal, seat: int, hand: int) -> int:
        """A card in tricks 1-10 (see the module docstring)."""
        s = deal.state
        trump = deal.trump
        tmask = SUIT_MASKS[trump]
        tricks = s[TRICKS]
        lead = s[LEAD]
        known = opponent_known(deal, seat)
        indicator = s[INDICATOR]
        seen = hand | s[WON] | s[WON + 1] | known | 1 << indicator
        if lead >= 0:
            seen |= 1 << lead
        unseen = ALL_CARDS & ~seen
        n_unseen = unseen.bit_count()
        hidden_stock = max(0, 19 - 2 * tricks)
        # chance that one given unseen card reaches this hand by a draw
        p_draw = (hidden_stock / 2) / n_unseen if n_unseen else 0.0
        seven = deal.seven
        can_dix = s[SEVEN_BY] < 0 and indicator != seven
        p_indicator = 0.5
        if can_dix and hand >> seven & 1:
            p_indicator = 0.85
        q = realise_chance(tricks)
        keep_trump, keep_plain = KEEP_TRUMP, KEEP_PLAIN

        # meld potential, per meld, and which melds each card serves
        meld_cards = deal.meld_cards
        meld_values = deal.meld_values
        scored = s[MELDS + seat]
        one_meld = deal.rules.one_meld_per_window
        loss = [0.0] * 32  # potential lost by spending each card
        complete: list[int] = []  # unscored melds held complete
        not_here = seen & ~(1 << indicator)  # gone, or known to be the opponent's
        for m in range(MELD_COUNT):
            if scored >> m & 1:
                continue
            need = meld_cards[m]
            have = need & hand
            if not have:
                continue
            miss = need & ~hand
            if miss == 0:
                complete.append(m)
                contrib = meld_values[m] * q
            else:
                if miss & not_here:
                    continue
                prob = q
                if miss >> indicator & 1:
                    prob *= p_indicator
                    miss ^= 1 << indicator
                prob *= p_draw ** miss.bit_count()
                contrib = meld_values[m] * prob
            while have:
                b = have & -have
                have ^= b
                loss[b.bit_length() - 1] += contrib

        # what winning the trick adds through the window beyond the potential
        # already counted: the melds held complete are realised now, and the dix
        realise = 1 - q
        dix_gain = 0.0
        if can_dix and hand >> seven & 1:
            dix_gain = (10 + keep_trump[indicator & 7] - keep_trump[0]) * realise
        seven_keep = (10 + keep_trump[indicator & 7] - keep_trump[0]) * q if can_dix else 0.0
        seven_bonus = 10 if deal.seven_pending else 0
        last_stock_trick = tricks == 9
        # the loser of trick 10 takes the indicator and scores 10 (R15)
        lose_extra = (10 + keep_trump[indicator & 7] * 0.6) if last_stock_trick else 0.0
        win_extra = 3.0 if last_stock_trick else 0.0
        win_base = LEAD_VALUE + win_extra
        lose_base = -OPPONENT_WINDOW - LEAD_VALUE + lose_extra

        leader = lead < 0
        if leader:
            # the leader's hand and the opponent's have the same size here
            opp_hidden = max(0, min(hand.bit_count() - known.bit_count(), n_unseen))
        else:
            lsuit = lead >> 3
            lead_pts = CARD_POINTS[lead]
        best_card = -1
        best_score = -1e9
        m_hand = hand
        while m_hand:
            bit = m_hand & -m_hand
            m_hand ^= bit
            c = bit.bit_length() - 1
            csuit = c >> 3
            rank = c & 7
            keep = (keep_trump[rank] if csuit == trump else keep_plain[rank]) + loss[c]
            if c == seven:
                keep += seven_keep
            # the window after winning with c
            gain = 0.0
            for m in complete:
                if not meld_cards[m] >> c & 1:
                    extra = meld_values[m] * realise
                    if one_meld:
                        if extra > gain:
                            gain = extra
                    else:
                        gain += extra
            if c != seven:
                gain += dix_gain
            pts = CARD_POINTS[c]
            if leader:
                # how likely is the opponent to take this lead?
                higher = SUIT_MASKS[csuit] & ~((2 << c) - 1)
                beaters = higher if csuit == trump else higher | tmask
                if known & beaters:
                    p_can = 1.0
                else:
                    p_can = 1.0 - _p_none(n_unseen, (unseen & beaters).bit_count(), opp_hidden)
                p_take = p_can * (0.9 if pts else 0.35)
                win = pts + DISCARD_POINTS + gain + win_base
                lose = lose_base - (pts + 3.0)
                v = (1 - p_take) * win + p_take * lose - keep
            else:  # follower (R7: any card)
                trick = lead_pts + pts
                if csuit == lsuit:
                    wins = c > lead
                else:
                    wins = csuit == trump
                v = (trick + gain + win_base if wins else lose_base - trick) - keep
            if c == seven:
                v += seven_bonus
            if v > best_score or (v == best_score and rank < best_card & 7):
                best_card, best_score = c, v
        return best_card

    # -- tricks 11-16 --------------------------------------------------------------

    def ending_card(self, deal: Deal, seat: int, legal: int) -> int:
        """Greedy play of the ending with both hands known (R16, R23)."""
        s = deal.state
        if legal & (legal - 1) == 0:
            return legal.bit_length() - 1
        opp = seat ^ 1
        trump = deal.trump
        mine = s[HAND + seat]
        theirs = s[HAND + opp]
        lead = s[LEAD]
        seven_live = deal.seven_pending
        if lead >= 0:
            return _ending_answer(lead, legal, theirs, trump, deal.seven if seven_live else -1)
        # leader: follow each lead along one greedy line to the end of the
        # deal (no branching: every later card is the greedy rule's) and
        # take the lead whose line scores best
        line = _EndingLine(trump, deal.seven if seven_live else -1, deal.rules.all_tricks_bonus)
        sweep = (1 if s[LATE_TRICKS + opp] == 0 else 0) | (2 if s[LATE_TRICKS + seat] == 0 else 0)
        best_card = -1
        best_score = -1e9
        for c in _bits(mine):
            v = line.play_out(c, mine, theirs, sweep) + 0.01 * line.lead_score(
                c, mine, theirs, sweep
            )
            if v > best_score or (v == best_score and c & 7 < best_card & 7):
                best_card, best_score = c, v
        return best_card


class _EndingLine:
    """One greedy line of the ending, for judging a lead without search."""

    __slots__ = ("bonus", "seven", "tmask", "trump")

    def __init__(self, trump: int, seven: int, bonus: int) -> None:
        self.trump = trump
        self.tmask = SUIT_MASKS[trump]
        self.seven = seven  # -1 unless it still scores when played (R19)
        self.bonus = bonus

    def lead_score(self, c: int, mine: int, theirs: int, sweep: int) -> float:
        """The one-trick rule: the trick's points, the lead kept or lost,
        and what the led card would be worth later."""
        trump = self.trump
        answer = _ending_answer(
            c, _follow_mask(c, theirs, self.tmask), mine & ~(1 << c), trump, self.seven
        )
        csuit = c >> 3
        a_suit = answer >> 3
        wins = answer < c if a_suit == csuit else a_suit != trump
        trick = CARD_POINTS[c] + CARD_POINTS[answer]
        v = float(trick if wins else -trick)
        if wins:
            v += 2.0 + (3.0 if sweep & 1 else 0.0)
        else:
            v -= 2.0
        v -= _ending_keep(c, trump, theirs) * (0.3 if wins else 1.0)
        if c == self.seven:
            v += 10
        if (
            csuit == trump
            and not wins
            and (mine & self.tmask).bit_count() <= (theirs & self.tmask).bit_count()
        ):
            v -= 4.0
        return v

    def greedy_lead(self, mine: int, theirs: int, sweep: int) -> int:
        best_card, best_score = -1, -1e9
        for c in _bits(mine):
            v = self.lead_score(c, mine, theirs, sweep)
            if v > best_score or (v == best_score and c & 7 < best_card & 7):
                best_card, best_score = c, v
        return best_card

    def play_out(self, lead: int, mine: int, theirs: int, sweep: int) -> int:
        """Score difference (leader minus follower) of the rest of the deal
        when ``lead`` is led and both sides then follow the greedy rules.
        ``sweep``: bit 0 = the leader may still win all six, bit 1 = the
        follower may."""
        trump, seven = self.trump, self.seven
        diff = 0  # from the original leader's side
        sign = 1  # +1 while the original leader leads
        a, b = mine, theirs  # leader's and follower's hands
        while True:
            a ^= 1 << lead
            ans = _ending_answer(lead, _follow_mask(lead, b, self.tmask), a, trump, seven)
            b ^= 1 << ans
            pts = CARD_POINTS[lead] + CARD_POINTS[ans]
            extra = (10 if lead == seven else 0) - (10 if ans == seven else 0)
            wins = ans < lead if ans >> 3 == lead >> 3 else ans >> 3 != trump
            if not a:
                pts += 10
                if (wins and sweep & 1) or (not wins and sweep & 2):
                    pts += self.bonus
            diff += sign * (extra + (pts if wins else -pts))
            if not wins:
                a, b = b, a
                sign = -sign
                sweep = 1 if sweep & 2 else 0
            else:
                sweep = 1 if sweep & 1 else 0
            if not a:
                return diff
            lead = self.greedy_lead(a, b, sweep)


def _follow_mask(lead: int, hand: int, tmask: int) -> int:
    """The follower's legal cards (R16)."""
    suit = hand & SUIT_MASKS[lead >> 3]
    if suit:
        return (suit & ~((2 << lead) - 1)) or suit
    return (hand & tmask) or hand


def _ending_keep(c: int, trump: int, theirs: int) -> float:
    """How much a card is worth keeping in the ending: trumps and aces win
    tricks; a ten is worth less while the opponent holds its ace."""
    r = c & 7
    v = (4.0 + r) if c >> 3 == trump else float(r) * 0.5
    if r == 7:
        v += 6.0
    elif r == 6:
        v += 2.0 if theirs >> (c + 1) & 1 else 5.0
    return v


def _ending_answer(lead: int, legal: int, leader_rest: int, trump: int, seven: int) -> int:
    """The follower's greedy answer: win as cheaply as possible (a ten the
    leader's ace would catch counts as cheap), else throw the least."""
    lsuit = lead >> 3
    best_win, win_cost = -1, 1e9
    best_lose, lose_cost = -1, 1e9
    m = legal
    while m:
        b = m & -m
        m ^= b
        c = b.bit_length() - 1
        csuit = c >> 3
        keep = _ending_keep(c, trump, leader_rest) - (10 if c == seven else 0)
        if c > lead if csuit == lsuit else csuit == trump:
            cost = keep - CARD_POINTS[c]
            if cost < win_cost or (cost == win_cost and c & 7 < best_win & 7):
                best_win, win_cost = c, cost
        else:
            cost = keep + CARD_POINTS[c] * 2
            if cost < lose_cost or (cost == lose_cost and c & 7 < best_lose & 7):
                best_lose, lose_cost = c, cost
    return best_win if best_win >= 0 else best_lose


def public_deal(obs: Observation) -> Deal:
    """A deal holding only what ``obs`` shows: the opponent's hand is the
    known part of it and the stock is unknown. Policies that read only their
    seat's knowledge play the same on it as on the true deal."""
    return Deal.from_state(
        obs.rules, obs.dealer, obs.turned_up, [-1] * 19, obs.public_state, moves=obs.actions
    )


POLICY = HeuristicPolicy()


class HeuristicBot(Bot):
    name = "heuristic"
    description = (
        "hand-written player: melds and dix at once, keeps trumps, aces, tens and meld "
        "pieces, greedy ending play; no search"
    )

    def choose(self, obs: Observation, legal: Sequence[int]) -> int:
        if len(legal) == 1:
            return legal[0]
        action = POLICY.act(public_deal(obs), legal)
        if action not in legal:  # defensive: never answer an illegal action
            return legal[0]
        return action


__all__ = ["POLICY", "HeuristicBot", "HeuristicPolicy", "opponent_known", "public_deal"]
