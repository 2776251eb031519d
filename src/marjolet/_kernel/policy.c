/* The heuristic policy (marjolet/bots/heuristic.py) in C, the same choice
 * for every state: the tests compare it with HeuristicPolicy.act on random
 * positions. The arithmetic is done in the same order as in Python so that
 * ties between cards break the same way. See heuristic.py for the
 * reasoning behind each term; the constants are its tuning table. */
#include <math.h>

#include "policy.h"

static const double KEEP_PLAIN[8] = {0.0, 0.3, 0.6, 1.0, 1.5, 2.0, 7.0, 10.0};
static const double KEEP_TRUMP[8] = {4.0, 4.5, 5.0, 6.0, 7.0, 8.0, 14.0, 17.0};
#define OPPONENT_WINDOW 5.0
#define LEAD_VALUE 1.0
#define DISCARD_POINTS 1.5

static inline int popc(uint32_t m) { return __builtin_popcount(m); }

static inline int card_points(int c) { return (MK_POINT_CARDS >> c & 1) ? 10 : 0; }

/* x ** k as Python computes it (libm's pow, correctly rounded), without the
 * call for the exact cases k <= 2 */
static inline double int_pow(double x, int k) {
    if (k == 0)
        return 1.0;
    if (k == 1)
        return x;
    if (k == 2)
        return x * x;
    return pow(x, k);
}

/* chance that `drawn` cards dealt from `pool` include none of `good` */
static double p_none(int pool, int good, int drawn) {
    double p = 1.0;
    for (int i = 0; i < drawn; i++) {
        if (pool - i <= 0)
            break;
        double f = (double)(pool - good - i) / (double)(pool - i);
        p *= f > 0.0 ? f : 0.0;
    }
    return p;
}

static double realise_chance(int tricks_done) {
    int later = 9 - tricks_done;
    if (later <= 0)
        return 0.0;
    double q = 0.35 + 0.15 * later;
    return q < 0.85 ? q : 0.85;
}

/* the cards of the opponent's hand the player to act knows (R23) */
static uint32_t opponent_known(const mk_deal *d, int seat) {
    int opp = seat ^ 1;
    uint32_t hand = d->hand[opp];
    if (mk_stock_empty(d))
        return hand;
    uint32_t known = d->exposed[opp];
    if (d->seven_by == opp && d->indicator != d->turned_up)
        known |= 1u << d->turned_up;
    return hand & known;
}

/* ---- the meld window --------------------------------------------------- */

static int window_action(const mk_deal *d, int p) {
    uint32_t hand = d->hand[p];
    if (d->seven_by < 0 && (hand >> d->seven & 1))
        return MK_DIX;
    if (d->rules.one_meld && d->window_melds)
        return MK_DRAW;
    const uint32_t *need = mk_meld_cards[d->rules.same_suit ? 1 : 0][d->trump];
    const int16_t *value = mk_meld_values[d->trump];
    int best = MK_DRAW, best_value = 0;
    for (int m = 0; m < MK_MELD_COUNT; m++) {
        if ((hand & need[m]) == need[m] && !(d->melds[p] >> m & 1) && value[m] > best_value) {
            best = MK_MELD_BASE + m;
            best_value = value[m];
        }
    }
    return best;
}

/* ---- tricks 1-10 --------------------------------------------------------- */

static int stock_card(const mk_deal *d, int seat, uint32_t hand) {
    int trump = d->trump;
    uint32_t tmask = MK_SUIT_MASK(trump);
    int tricks = d->tricks;
    int lead = d->lead;
    uint32_t known = opponent_known(d, seat);
    int indicator = d->indicator;
    uint32_t seen = hand | d->won[0] | d->won[1] | known | 1u << indicator;
    if (lead >= 0)
        seen |= 1u << lead;
    uint32_t unseen = ~seen;
    int n_unseen = popc(unseen);
    int hidden_stock = 19 - 2 * tricks;
    if (hidden_stock < 0)
        hidden_stock = 0;
    double p_draw = n_unseen ? ((double)hidden_stock / 2) / n_unseen : 0.0;
    int seven = d->seven;
    int can_dix = d->seven_by < 0 && indicator != seven;
    int hold_seven = (hand >> seven & 1) != 0;
    double p_indicator = (can_dix && hold_seven) ? 0.85 : 0.5;
    double q = realise_chance(tricks);

    const uint32_t *need = mk_meld_cards[d->rules.same_suit ? 1 : 0][trump];
    const int16_t *value = mk_meld_values[trump];
    unsigned scored = d->melds[seat];
    int one_meld = d->rules.one_meld;
    double loss[32] = {0};
    int complete[MK_MELD_COUNT];
    int n_complete = 0;
    uint32_t not_here = seen & ~(1u << indicator);
    double p_draw3 = -1.0; /* p_draw ** 3, computed once when needed */
    for (int m = 0; m < MK_MELD_COUNT; m++) {
        if (scored >> m & 1)
            continue;
        uint32_t have = need[m] & hand;
        if (!have)
            continue;
        uint32_t miss = need[m] & ~hand;
        double contrib;
        if (miss == 0) {
            complete[n_complete++] = m;
            contrib = value[m] * q;
        } else {
            if (miss & not_here)
                continue;
            double prob = q;
            if (miss >> indicator & 1) {
                prob *= p_indicator;
                miss ^= 1u << indicator;
            }
            int k = popc(miss);
            if (k == 3) {
                if (p_draw3 < 0.0)
                    p_draw3 = pow(p_draw, 3);
                prob *= p_draw3;
            } else {
                prob *= int_pow(p_draw, k);
            }
            contrib = value[m] * prob;
        }
        while (have) {
            loss[__builtin_ctz(have)] += contrib;
            have &= have - 1;
        }
    }

    double realise = 1 - q;
    double dix_gain = 0.0;
    if (can_dix && hold_seven)
        dix_gain = (10 + KEEP_TRUMP[indicator & 7] - KEEP_TRUMP[0]) * realise;
    double seven_keep = can_dix ? (10 + KEEP_TRUMP[indicator & 7] - KEEP_TRUMP[0]) * q : 0.0;
    int seven_bonus = (d->rules.dix_on_play && d->seven_by < 0) ? 10 : 0;
    int last_stock_trick = tricks == 9;
    double lose_extra = last_stock_trick ? (10 + KEEP_TRUMP[indicator & 7] * 0.6) : 0.0;
    double win_extra = last_stock_trick ? 3.0 : 0.0;
    double win_base = LEAD_VALUE + win_extra;
    double lose_base = -OPPONENT_WINDOW - LEAD_VALUE + lose_extra;

    int leader = lead < 0;
    int opp_hidden = 0, lsuit = 0, lead_pts = 0;
    if (leader) {
        opp_hidden = popc(hand) - popc(known);
        if (opp_hidden > n_unseen)
            opp_hidden = n_unseen;
        if (opp_hidden < 0)
            opp_hidden = 0;
    } else {
        lsuit = lead >> 3;
        lead_pts = card_points(lead);
    }
    int best_card = -1;
    double best_score = -1e9;
    for (uint32_t mh = hand; mh; mh &= mh - 1) {
        int c = __builtin_ctz(mh);
        int csuit = c >> 3, rank = c & 7;
        double keep = (csuit == trump ? KEEP_TRUMP[rank] : KEEP_PLAIN[rank]) + loss[c];
        if (c == seven)
            keep += seven_keep;
        double gain = 0.0;
        for (int i = 0; i < n_complete; i++) {
            int m = complete[i];
            if (!(need[m] >> c & 1)) {
                double extra = value[m] * realise;
                if (one_meld) {
                    if (extra > gain)
                        gain = extra;
                } else {
                    gain += extra;
                }
            }
        }
        if (c != seven)
            gain += dix_gain;
        int pts = card_points(c);
        double v;
        if (leader) {
            uint32_t higher = MK_SUIT_MASK(csuit) & ~((2u << c) - 1);
            uint32_t beaters = csuit == trump ? higher : (higher | tmask);
            double p_can;
            if (known & beaters)
                p_can = 1.0;
            else
                p_can = 1.0 - p_none(n_unseen, popc(unseen & beaters), opp_hidden);
            double p_take = p_can * (pts ? 0.9 : 0.35);
            double win = pts + DISCARD_POINTS + gain + win_base;
            double lose = lose_base - (pts + 3.0);
            v = (1 - p_take) * win + p_take * lose - keep;
        } else {
            int trick = lead_pts + pts;
            int wins = csuit == lsuit ? c > lead : csuit == trump;
            v = (wins ? trick + gain + win_base : lose_base - trick) - keep;
        }
        if (c == seven)
            v += seven_bonus;
        if (v > best_score || (v == best_score && rank < (best_card & 7))) {
            best_card = c;
            best_score = v;
        }
    }
    return best_card;
}

/* ---- tricks 11-16: greedy play with both hands known ----------------------- */

typedef struct {
    int trump;
    uint32_t tmask;
    int seven; /* -1 unless it still scores when played (R19) */
    int bonus;
} ending_line;

static uint32_t follow_mask(int lead, uint32_t hand, uint32_t tmask) {
    uint32_t suit = hand & MK_SUIT_MASK(lead >> 3);
    if (suit) {
        uint32_t over = suit & ~((2u << lead) - 1);
        return over ? over : suit;
    }
    return (hand & tmask) ? (hand & tmask) : hand;
}

static double ending_keep(int c, int trump, uint32_t theirs) {
    int r = c & 7;
    double v = (c >> 3) == trump ? (4.0 + r) : (double)r * 0.5;
    if (r == 7)
        v += 6.0;
    else if (r == 6)
        v += (theirs >> (c + 1) & 1) ? 2.0 : 5.0;
    return v;
}

static int ending_answer(int lead, uint32_t legal, uint32_t leader_rest, int trump, int seven) {
    int lsuit = lead >> 3;
    int best_win = -1, best_lose = -1;
    double win_cost = 1e9, lose_cost = 1e9;
    for (uint32_t m = legal; m; m &= m - 1) {
        int c = __builtin_ctz(m);
        int csuit = c >> 3;
        double keep = ending_keep(c, trump, leader_rest) - (c == seven ? 10 : 0);
        int wins = csuit == lsuit ? c > lead : csuit == trump;
        if (wins) {
            double cost = keep - card_points(c);
            if (cost < win_cost || (cost == win_cost && (c & 7) < (best_win & 7))) {
                best_win = c;
                win_cost = cost;
            }
        } else {
            double cost = keep + card_points(c) * 2;
            if (cost < lose_cost || (cost == lose_cost && (c & 7) < (best_lose & 7))) {
                best_lose = c;
                lose_cost = cost;
            }
        }
    }
    return best_win >= 0 ? best_win : best_lose;
}

static double lead_score(const ending_line *L, int c, uint32_t mine, uint32_t theirs, int sweep) {
    int trump = L->trump;
    int answer = ending_answer(c, follow_mask(c, theirs, L->tmask), mine & ~(1u << c), trump,
                               L->seven);
    int csuit = c >> 3, a_suit = answer >> 3;
    int wins = a_suit == csuit ? answer < c : a_suit != trump;
    int trick = card_points(c) + card_points(answer);
    double v = (double)(wins ? trick : -trick);
    if (wins)
        v += 2.0 + ((sweep & 1) ? 3.0 : 0.0);
    else
        v -= 2.0;
    v -= ending_keep(c, trump, theirs) * (wins ? 0.3 : 1.0);
    if (c == L->seven)
        v += 10;
    if (csuit == trump && !wins && popc(mine & L->tmask) <= popc(theirs & L->tmask))
        v -= 4.0;
    return v;
}

static int greedy_lead(const ending_line *L, uint32_t mine, uint32_t theirs, int sweep) {
    int best_card = -1;
    double best_score = -1e9;
    for (uint32_t m = mine; m; m &= m - 1) {
        int c = __builtin_ctz(m);
        double v = lead_score(L, c, mine, theirs, sweep);
        if (v > best_score || (v == best_score && (c & 7) < (best_card & 7))) {
            best_card = c;
            best_score = v;
        }
    }
    return best_card;
}

static int play_out(const ending_line *L, int lead, uint32_t mine, uint32_t theirs, int sweep) {
    int trump = L->trump, seven = L->seven;
    int diff = 0, sign = 1;
    uint32_t a = mine, b = theirs;
    for (;;) {
        a ^= 1u << lead;
        int ans = ending_answer(lead, follow_mask(lead, b, L->tmask), a, trump, seven);
        b ^= 1u << ans;
        int pts = card_points(lead) + card_points(ans);
        int extra = (lead == seven ? 10 : 0) - (ans == seven ? 10 : 0);
        int wins = (ans >> 3) == (lead >> 3) ? ans < lead : (ans >> 3) != trump;
        if (!a) {
            pts += 10;
            if ((wins && (sweep & 1)) || (!wins && (sweep & 2)))
                pts += L->bonus;
        }
        diff += sign * (extra + (wins ? pts : -pts));
        if (!wins) {
            uint32_t t = a;
            a = b;
            b = t;
            sign = -sign;
            sweep = (sweep & 2) ? 1 : 0;
        } else {
            sweep = (sweep & 1) ? 1 : 0;
        }
        if (!a)
            return diff;
        lead = greedy_lead(L, a, b, sweep);
    }
}

static int ending_card(const mk_deal *d, int seat, uint32_t legal) {
    if ((legal & (legal - 1)) == 0)
        return __builtin_ctz(legal);
    int opp = seat ^ 1;
    uint32_t mine = d->hand[seat], theirs = d->hand[opp];
    int seven_live = d->rules.dix_on_play && d->seven_by < 0;
    ending_line L = {d->trump, MK_SUIT_MASK(d->trump), seven_live ? d->seven : -1,
                     d->rules.all_tricks_bonus};
    if (d->lead >= 0)
        return ending_answer(d->lead, legal, theirs, d->trump, L.seven);
    int sweep = (d->late[opp] == 0 ? 1 : 0) | (d->late[seat] == 0 ? 2 : 0);
    int best_card = -1;
    double best_score = -1e9;
    for (uint32_t m = mine; m; m &= m - 1) {
        int c = __builtin_ctz(m);
        double v = play_out(&L, c, mine, theirs, sweep) + 0.01 * lead_score(&L, c, mine, theirs, sweep);
        if (v > best_score || (v == best_score && (c & 7) < (best_card & 7))) {
            best_card = c;
            best_score = v;
        }
    }
    return best_card;
}

int mj_policy_action(const mk_deal *d) {
    int seat = d->turn;
    if (d->window)
        return window_action(d, seat);
    if (mk_stock_empty(d))
        return ending_card(d, seat, mk_legal_cards(d));
    return stock_card(d, seat, mk_legal_cards(d));
}

void mj_policy_playout(mk_deal *d, int stop_at_ending) {
    while (d->turn >= 0 && !(stop_at_ending && mk_stock_empty(d)))
        mk_play(d, mj_policy_action(d));
}

void mj_fast_ending(mk_deal *d) {
    int seven_live = d->rules.dix_on_play && d->seven_by < 0;
    ending_line L = {d->trump, MK_SUIT_MASK(d->trump), seven_live ? d->seven : -1,
                     d->rules.all_tricks_bonus};
    while (d->turn >= 0) {
        int seat = d->turn, opp = seat ^ 1;
        uint32_t legal = mk_legal_cards(d);
        int c;
        if ((legal & (legal - 1)) == 0)
            c = __builtin_ctz(legal);
        else if (d->lead >= 0)
            c = ending_answer(d->lead, legal, d->hand[opp], d->trump, L.seven);
        else
            c = greedy_lead(&L, d->hand[seat], d->hand[opp],
                            (d->late[opp] == 0 ? 1 : 0) | (d->late[seat] == 0 ? 2 : 0));
        mk_play(d, c);
    }
}
