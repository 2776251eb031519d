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
from marjolet.bots.heuristic_params import (
    DISCARD_POINTS,
    ENDING_ACE,
    ENDING_KEEP_SHARE_LOST,
    ENDING_KEEP_SHARE_WON,
    ENDING_LEAD_KEPT,
    ENDING_LEAD_LOST,
    ENDING_LINE_TIEBREAK,
    ENDING_PLAIN_PER_RANK,
    ENDING_SWEEP_LIVE,
    ENDING_TEN,
    ENDING_TEN_UNDER_ACE,
    ENDING_THROWN_POINTS,
    ENDING_TRUMP_BASE,
    ENDING_TRUMP_LEAD_LOST,
    INDICATOR_CHANCE,
    INDICATOR_CHANCE_WITH_SEVEN,
    INDICATOR_KEEP_SHARE,
    KEEP_PLAIN,
    KEEP_TRUMP,
    LAST_CARD_POINTS,
    LAST_STOCK_WIN,
    LAST_TRICK_POINTS,
    LEAD_VALUE,
    LOST_LEAD_COST,
    OPPONENT_WINDOW,
    REALISE_BASE,
    REALISE_MAX,
    REALISE_PER_TRICK,
    SEVEN_POINTS,
    TAKE_CHANCE,
)
from marjolet.cards import ALL_CARDS, CARD_POINTS, SUIT_MASKS, mask_cards
from marjolet.engine import Deal
from marjolet.history import PHASE1_TRICKS, STOCK_CARDS
from marjolet.melds import MELD_COUNT
from marjolet.observation import Observation
from marjolet.trick import BEATS, follow_mask

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
    later = PHASE1_TRICKS - 1 - tricks_done  # phase-1 tricks after the current one
    if later <= 0:
        return 0.0
    return min(REALISE_MAX, REALISE_BASE + REALISE_PER_TRICK * later)


def _card_or_none(card: int | None) -> int:
    """A card, or -1 for none (the policy's convention)."""
    return -1 if card is None else card


def opponent_known(deal: Deal, seat: int) -> int:
    """The cards of the opponent's hand that ``seat`` knows (R23), read so
    that the answer is the same on a true deal, a sampled world and an
    observation's public state."""
    opp = seat ^ 1
    hand = deal.hand_mask(opp)
    if deal.stock_empty:
        return hand
    known = deal.exposed_mask(opp)
    if deal.seven_scored_by == opp and deal.exchanged:
        known |= 1 << deal.turned_up
    return hand & known


class HeuristicPolicy:
    """The heuristic as a function of a deal and the seat to act.

    :meth:`act` may be called on a true deal, a sampled world or a public
    deal built from an observation: it reads only what the seat may know.
    """

    __slots__ = ()

    def act(self, deal: Deal, legal: Sequence[int] | None = None) -> int:
        seat = deal.to_move
        if deal.in_window:
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
        trump = deal.trump
        tmask = SUIT_MASKS[trump]
        tricks = deal.tricks_played
        lead = _card_or_none(deal.lead)
        known = opponent_known(deal, seat)
        indicator = deal.indicator
        seen = hand | deal.won_mask(0) | deal.won_mask(1) | known | 1 << indicator
        if lead >= 0:
            seen |= 1 << lead
        unseen = ALL_CARDS & ~seen
        n_unseen = unseen.bit_count()
        hidden_stock = max(0, STOCK_CARDS - 2 * tricks)
        # chance that one given unseen card reaches this hand by a draw
        p_draw = (hidden_stock / 2) / n_unseen if n_unseen else 0.0
        seven = deal.seven
        can_dix = deal.seven_scored_by is None and indicator != seven
        p_indicator = INDICATOR_CHANCE
        if can_dix and hand >> seven & 1:
            p_indicator = INDICATOR_CHANCE_WITH_SEVEN
        q = realise_chance(tricks)
        keep_trump, keep_plain = KEEP_TRUMP, KEEP_PLAIN

        # meld potential, per meld, and which melds each card serves
        meld_cards = deal.meld_cards
        meld_values = deal.meld_values
        scored = deal.melds_mask(seat)
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
            dix_gain = (SEVEN_POINTS + keep_trump[indicator & 7] - keep_trump[0]) * realise
        seven_keep = (
            (SEVEN_POINTS + keep_trump[indicator & 7] - keep_trump[0]) * q if can_dix else 0.0
        )
        seven_bonus = SEVEN_POINTS if deal.seven_pending else 0
        last_stock_trick = tricks == PHASE1_TRICKS - 1
        # the loser of trick 10 takes the indicator and scores 10 (R15)
        lose_extra = (
            (LAST_CARD_POINTS + keep_trump[indicator & 7] * INDICATOR_KEEP_SHARE)
            if last_stock_trick
            else 0.0
        )
        win_extra = LAST_STOCK_WIN if last_stock_trick else 0.0
        win_base = LEAD_VALUE + win_extra
        lose_base = -OPPONENT_WINDOW - LEAD_VALUE + lose_extra

        leader = lead < 0
        if leader:
            # the leader's hand and the opponent's have the same size here
            opp_hidden = max(0, min(hand.bit_count() - known.bit_count(), n_unseen))
        else:
            lead_pts = CARD_POINTS[lead]
        # the tuning read once (locals: this loop is the policy's hot path)
        take_blank, take_points = TAKE_CHANCE
        discard_points, lost_lead_cost = DISCARD_POINTS, LOST_LEAD_COST
        beats_row = BEATS[trump]  # R8, tabulated: beats(lead, c, trump)
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
                p_take = p_can * (take_points if pts else take_blank)
                win = pts + discard_points + gain + win_base
                lose = lose_base - (pts + lost_lead_cost)
                v = (1 - p_take) * win + p_take * lose - keep
            else:  # follower (R7: any card)
                trick = lead_pts + pts
                wins = beats_row[lead << 5 | c]
                v = (trick + gain + win_base if wins else lose_base - trick) - keep
            if c == seven:
                v += seven_bonus
            if v > best_score or (v == best_score and rank < best_card & 7):
                best_card, best_score = c, v
        return best_card

    # -- tricks 11-16 --------------------------------------------------------------

    def ending_card(self, deal: Deal, seat: int, legal: int) -> int:
        """Greedy play of the ending with both hands known (R16, R23)."""
        if legal & (legal - 1) == 0:
            return legal.bit_length() - 1
        opp = seat ^ 1
        trump = deal.trump
        mine = deal.hand_mask(seat)
        theirs = deal.hand_mask(opp)
        lead = _card_or_none(deal.lead)
        seven_live = deal.seven_pending
        if lead >= 0:
            return _ending_answer(lead, legal, theirs, trump, deal.seven if seven_live else -1)
        # leader: follow each lead along one greedy line to the end of the
        # deal (no branching: every later card is the greedy rule's) and
        # take the lead whose line scores best
        line = _EndingLine(trump, deal.seven if seven_live else -1, deal.rules.all_tricks_bonus)
        sweep = (1 if deal.late_tricks(opp) == 0 else 0) | (2 if deal.late_tricks(seat) == 0 else 0)
        best_card = -1
        best_score = -1e9
        for c in mask_cards(mine):
            v = line.play_out(c, mine, theirs, sweep) + ENDING_LINE_TIEBREAK * line.lead_score(
                c, mine, theirs, sweep
            )
            if v > best_score or (v == best_score and c & 7 < best_card & 7):
                best_card, best_score = c, v
        return best_card


class _EndingLine:
    """One greedy line of the ending, for judging a lead without search."""

    __slots__ = ("beats", "bonus", "seven", "tmask", "trump")

    def __init__(self, trump: int, seven: int, bonus: int) -> None:
        self.trump = trump
        self.beats = BEATS[trump]  # R8, tabulated: beats(lead, answer, trump)
        self.tmask = SUIT_MASKS[trump]
        self.seven = seven  # -1 unless it still scores when played (R19)
        self.bonus = bonus

    def lead_score(self, c: int, mine: int, theirs: int, sweep: int) -> float:
        """The one-trick rule: the trick's points, the lead kept or lost,
        and what the led card would be worth later."""
        trump = self.trump
        answer = _ending_answer(
            c, follow_mask(c, theirs, trump), mine & ~(1 << c), trump, self.seven
        )
        wins = not self.beats[c << 5 | answer]
        trick = CARD_POINTS[c] + CARD_POINTS[answer]
        v = float(trick if wins else -trick)
        if wins:
            v += ENDING_LEAD_KEPT + (ENDING_SWEEP_LIVE if sweep & 1 else 0.0)
        else:
            v -= ENDING_LEAD_LOST
        v -= _ending_keep(c, trump, theirs) * (
            ENDING_KEEP_SHARE_WON if wins else ENDING_KEEP_SHARE_LOST
        )
        if c == self.seven:
            v += SEVEN_POINTS
        if (
            c >> 3 == trump
            and not wins
            and (mine & self.tmask).bit_count() <= (theirs & self.tmask).bit_count()
        ):
            v -= ENDING_TRUMP_LEAD_LOST
        return v

    def greedy_lead(self, mine: int, theirs: int, sweep: int) -> int:
        best_card, best_score = -1, -1e9
        for c in mask_cards(mine):
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
            ans = _ending_answer(lead, follow_mask(lead, b, trump), a, trump, seven)
            b ^= 1 << ans
            pts = CARD_POINTS[lead] + CARD_POINTS[ans]
            extra = (SEVEN_POINTS if lead == seven else 0) - (SEVEN_POINTS if ans == seven else 0)
            wins = not self.beats[lead << 5 | ans]
            if not a:
                pts += LAST_TRICK_POINTS
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


def _ending_keep(c: int, trump: int, theirs: int) -> float:
    """How much a card is worth keeping in the ending: trumps and aces win
    tricks; a ten is worth less while the opponent holds its ace."""
    r = c & 7
    v = (ENDING_TRUMP_BASE + r) if c >> 3 == trump else float(r) * ENDING_PLAIN_PER_RANK
    if r == 7:
        v += ENDING_ACE
    elif r == 6:
        v += ENDING_TEN_UNDER_ACE if theirs >> (c + 1) & 1 else ENDING_TEN
    return v


def _ending_answer(lead: int, legal: int, leader_rest: int, trump: int, seven: int) -> int:
    """The follower's greedy answer: win as cheaply as possible (a ten the
    leader's ace would catch counts as cheap), else throw the least."""
    beats_row = BEATS[trump]
    best_win, win_cost = -1, 1e9
    best_lose, lose_cost = -1, 1e9
    m = legal
    while m:
        b = m & -m
        m ^= b
        c = b.bit_length() - 1
        keep = _ending_keep(c, trump, leader_rest) - (SEVEN_POINTS if c == seven else 0)
        if beats_row[lead << 5 | c]:
            cost = keep - CARD_POINTS[c]
            if cost < win_cost or (cost == win_cost and c & 7 < best_win & 7):
                best_win, win_cost = c, cost
        else:
            cost = keep + CARD_POINTS[c] * ENDING_THROWN_POINTS
            if cost < lose_cost or (cost == lose_cost and c & 7 < best_lose & 7):
                best_lose, lose_cost = c, cost
    return best_win if best_win >= 0 else best_lose


def public_deal(obs: Observation) -> Deal:
    """A deal holding only what ``obs`` shows: the opponent's hand is the
    known part of it and the stock is unknown. Policies that read only their
    seat's knowledge play the same on it as on the true deal."""
    return Deal.from_state(
        obs.rules,
        obs.dealer,
        obs.turned_up,
        [-1] * STOCK_CARDS,
        obs.public_state,
        moves=obs.actions,
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
