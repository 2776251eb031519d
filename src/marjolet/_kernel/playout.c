/* playout.c -- the RNG, random playouts and the heuristic playout policy. */
#include <math.h>
#include "kernel.h"
#include "heuristic_params.h"
#include "policy_weights.h"

static uint64_t splitmix(uint64_t *x) {
    uint64_t z = (*x += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

void mk_rng_seed(mk_rng *g, uint64_t seed) {
    for (int i = 0; i < 4; i++) g->s[i] = splitmix(&seed);
}

int mk_random_action(const mk_deal *d, mk_rng *g) {
    uint64_t m = mk_legal(d);
    if (!m) return -1;
    return mk_nth_bit(m, mk_rng_below(g, (uint32_t)mk_popcount64(m)));
}

int mk_random_playout(mk_deal *d, mk_rng *g) {
    for (int n = 0; n < MK_MAX_ACTIONS; n++) {
        uint64_t m = mk_legal(d);
        if (!m) return d->turn < 0 ? n : -1; /* nothing to play before the end */
        mk_play(d, mk_nth_bit(m, mk_rng_below(g, (uint32_t)mk_popcount64(m))));
    }
    return -1;
}

/* play `act`'s actions to the end (or the last draw): the actions played,
 * or -1 when the policy finds no action or the bound is reached */
static int policy_playout(mk_deal *d, mk_rng *g, int stop_at_ending,
                          int (*act)(const mk_deal *, mk_rng *)) {
    for (int n = 0; n < MK_MAX_ACTIONS; n++) {
        if (d->turn < 0 || (stop_at_ending && mk_stock_empty(d))) return n;
        int a = act(d, g);
        if (a < 0) return -1;
        mk_play(d, a);
    }
    return -1;
}

/* ---- the heuristic policy ---------------------------------------------------
 * The policy of bots/heuristic.py (HeuristicPolicy.act) in C, decision for
 * decision: the same formulas in the same floating-point order, so that it
 * chooses the same action as the Python policy in every position (the
 * agreement tests check it). It reads only what the mover may know before
 * the stock is empty (own hand, cards played, the opponent's exposed cards
 * and the indicator it took by a dix), and both hands after (R23).
 *   window: the dix first, then the most valuable meld, then draw;
 *   tricks 1-10: keep values (rank, trumps, meld potential weighted by the
 *     chance of drawing the missing cards and winning a trick to declare),
 *     the chance that the opponent beats a lead, what winning or losing the
 *     trick is worth;
 *   tricks 11-16: each lead judged by one greedy line to the end of the
 *     deal; answers win as cheaply as possible, else throw the least. */

/* the tuning: heuristic_params.h (named once, the twin of heuristic_params.py) */

/* chance that `drawn` cards dealt from `pool` include none of `good` */
static double h_p_none(int pool, int good, int drawn) {
    /* exact shortcuts of the product below: every factor is 1 (x / x) when
     * nothing is good, and once a factor is 0 the product stays 0 */
    if (good == 0) return 1.0;
    double p = 1.0;
    int n = drawn < pool ? drawn : pool; /* the factors with pool - i > 0 */
    for (int i = 0; i < n; i++) {
        double x = (double)(pool - good - i) / (double)(pool - i);
        if (!(x > 0.0)) return 0.0;
        p *= x;
    }
    return p;
}

static double h_realise_chance(int tricks_done) {
    int later = MK_PHASE1_TRICKS - 1 - tricks_done; /* phase-1 tricks after this one */
    if (later <= 0) return 0.0;
    double v = REALISE_BASE + REALISE_PER_TRICK * later;
    return v < REALISE_MAX ? v : REALISE_MAX;
}

/* the cards of the opponent's hand the mover knows (R23) */
static uint32_t h_opponent_known(const mk_deal *d, int seat) {
    int opp = seat ^ 1;
    uint32_t hand = d->hand[opp];
    if (mk_stock_empty(d)) return hand;
    uint32_t known = d->exposed[opp];
    if (d->seven_by == opp && d->indicator != d->turned_up) known |= 1u << d->turned_up;
    return hand & known;
}

/* what winning the trick with card c adds through the window: the melds
 * held complete that c is no part of (the biggest one with one_meld) */
static inline double h_window_gain(const uint32_t *need, const int16_t *val, const int *complete,
                                   int n_complete, int one_meld, double realise, int c) {
    double gain = 0.0;
    for (int i = 0; i < n_complete; i++) {
        int m = complete[i];
        if (!(need[m] >> c & 1)) {
            double extra = val[m] * realise;
            if (one_meld) {
                if (extra > gain) gain = extra;
            } else {
                gain += extra;
            }
        }
    }
    return gain;
}

/* what the heuristic weighs for a card c, lead or answer alike: *keep,
 * what keeping it is worth (rank, trumps, the melds it is a piece of, the
 * seven), and *gain, what winning the trick with it adds through the
 * window. Inline: the two card loops of h_stock_card_w are the hot path. */
typedef struct {
    const double *keep_row[4]; /* each suit's keep values */
    const double *loss;        /* meld pieces, by card */
    const uint32_t *need;
    const int16_t *val;
    const int *complete;
    int n_complete, one_meld, seven;
    double seven_keep, dix_gain, realise;
} hterms;

static inline void h_card_terms(const hterms *h, int c, double *keep, double *gain) {
    double k = h->keep_row[c >> 3][c & 7] + h->loss[c];
    if (c == h->seven) k += h->seven_keep;
    double g = h_window_gain(h->need, h->val, h->complete, h->n_complete, h->one_meld, h->realise, c);
    if (c != h->seven) g += h->dix_gain;
    *keep = k;
    *gain = g;
}

/* the choice among a hand's cards: the highest value, on a tie the lower
 * rank (as the Python policy). Values are kept in an array so that the
 * choice is a conditional move on an index, not a branch on doubles (they
 * were mispredicted a third of the time). Index NO_CARD (rank bits 7, like
 * -1) stands for "none yet", with a value below any card's. */
#define NO_CARD 39
typedef struct {
    double value[NO_CARD + 1];
    int best;
} hpick;

static inline void h_pick_init(hpick *k) {
    k->value[NO_CARD] = -1e9;
    k->best = NO_CARD;
}

static inline void h_pick(hpick *k, int c, double v) {
    double best = k->value[k->best];
    int better = (v > best) | ((v == best) & ((c & 7) < (k->best & 7)));
    k->value[c] = v;
    k->best ^= (k->best ^ c) & -better; /* better ? c : best, as arithmetic */
}

static inline int h_picked(const hpick *k) { return k->best == NO_CARD ? -1 : k->best; }

/* ---- the tuned policy's corrections ------------------------------------------
 * The tuned policy (mk_tuned_action) is the heuristic with a learned term
 * added to each card's value: the sum of the weights of the card's
 * categorical features below (policy_weights.h, fitted by
 * benchmarks/fit_policy.py on the decisions of `best` in self-play). The
 * features read only what the heuristic reads (R23). */
typedef struct {
    int leader, trump, lead, last_stock_trick, n_trumps, indicator_high;
    uint32_t hand, live; /* live: not yet played and not in this hand */
} hfeat;

static int h_class(int c, int trump) {
    if (c >> 3 == trump) return 0;
    return (c & 7) >= 6 ? 1 : 2; /* a ten or an ace : a low card */
}

/* the feature indices of card c (MK_PF_MAX at most): see the offsets */
static int h_features(const hfeat *x, int c, int tricks, double p_take, double loss, double gain,
                      int *idx) {
    int r = c & 7, t = c >> 3 == x->trump, role = x->leader, n = 0, cls = h_class(c, x->trump);
    uint32_t suit = MK_SUIT_MASK(c >> 3), higher = suit & ~((2u << c) - 1);
    int len = mk_popcount32(x->hand & suit);
    int nt = x->n_trumps < 5 ? x->n_trumps : 5;
    int lb = loss <= 0 ? 0 : loss <= 5 ? 1 : loss <= 15 ? 2 : 3;
    int gb = gain <= 0 ? 0 : gain <= 10 ? 1 : 2;
    idx[n++] = MK_PF_CARD + role * 16 + t * 8 + r;
    idx[n++] = MK_PF_TRICK + (role * 10 + tricks) * 3 + cls;
    idx[n++] = MK_PF_MASTER + (!(x->live & higher)) * 4 + role * 2 + t;
    idx[n++] = MK_PF_LENGTH + ((len < 4 ? len : 4) - 1) * 4 + t * 2 + role;
    idx[n++] = MK_PF_LOSS + lb * 2 + role;
    idx[n++] = MK_PF_TRUMPS + nt * 4 + t * 2 + role;
    if (role) {
        int pb = p_take < 0.1 ? 0 : p_take < 0.3 ? 1 : p_take < 0.5 ? 2 : p_take < 0.7 ? 3 : 4;
        idx[n++] = MK_PF_TAKE + pb * 3 + cls;
        idx[n++] = MK_PF_GAIN + gb * 3 + 2;
    } else {
        int wins = mk_beats(x->lead, c, x->trump);
        idx[n++] = MK_PF_WIN + wins * 16 + t * 8 + r;
        idx[n++] = MK_PF_LED + wins * 16 + (x->lead >> 3 == x->trump) * 8 + (x->lead & 7);
        idx[n++] = MK_PF_GAIN + gb * 3 + wins;
        if (x->last_stock_trick) idx[n++] = MK_PF_LAST + wins * 2 + x->indicator_high;
    }
    return n;
}

_Static_assert(sizeof MK_POLICY_WEIGHTS / sizeof MK_POLICY_WEIGHTS[0] == MK_PF_COUNT,
               "policy_weights.h holds one weight per feature (MK_PF_COUNT)");

/* the learned term of a card's value */
static double h_correction(const double *w, const int *idx, int n) {
    double s = 0.0;
    for (int i = 0; i < n; i++) s += w[idx[i]];
    return s;
}

/* h_stock_card_w's per-card hook, called only with weights or a record (or
 * both): with weights, the value gains the learned term; with a record, the
 * card, its heuristic value and its features are written there */
static inline double h_tuned(const double *w, mk_pfrecord *rec, const hfeat *x, int c, int tricks,
                             double p_take, double loss, double gain, double v) {
    int idx[MK_PF_MAX];
    int n = h_features(x, c, tricks, p_take, loss, gain, idx);
    if (rec) {
        mk_pfcard *k = &rec->cards[rec->n++];
        k->card = c;
        k->value = v;
        k->n = n;
        for (int i = 0; i < n; i++) k->idx[i] = idx[i];
    }
    return w ? v + h_correction(w, idx, n) : v;
}

static int h_stock_card_w(const mk_deal *d, int seat, uint32_t hand, const double *w,
                          mk_pfrecord *rec) {
    int trump = d->trump, tricks = d->tricks, lead = d->lead, indicator = d->indicator;
    uint32_t tmask = MK_SUIT_MASK(trump);
    uint32_t known = h_opponent_known(d, seat);
    uint32_t seen = hand | d->won[0] | d->won[1] | known | 1u << indicator;
    if (lead >= 0) seen |= 1u << lead;
    uint32_t unseen = ~seen;
    int n_unseen = mk_popcount32(unseen);
    int hidden_stock = MK_STOCK_CARDS - 2 * tricks > 0 ? MK_STOCK_CARDS - 2 * tricks : 0;
    double p_draw = n_unseen ? ((double)hidden_stock / 2) / n_unseen : 0.0;
    int seven = d->seven;
    int can_dix = d->seven_by < 0 && indicator != seven;
    double p_indicator = INDICATOR_CHANCE;
    if (can_dix && (hand >> seven & 1)) p_indicator = INDICATOR_CHANCE_WITH_SEVEN;
    double q = h_realise_chance(tricks);
    const uint32_t *need = mk_meld_cards[d->rules.same_suit][trump];
    const int16_t *val = mk_meld_values[trump];
    unsigned scored = d->melds[seat];
    double loss[32]; /* read and written for the cards of hand only */
    for (uint32_t mh = hand; mh; mh &= mh - 1) loss[__builtin_ctz(mh)] = 0.0;
    double powers[5] = {-1, -1, -1, -1, -1}; /* pow(p_draw, k), computed once */
    int complete[MK_MELD_COUNT], n_complete = 0;
    uint32_t not_here = seen & ~(1u << indicator);
    /* the melds that count: unscored, partly held, none of the missing cards
     * seen elsewhere (found without branches: the loop below then visits
     * those few only, in the same ascending order) */
    unsigned counted = 0;
    for (int m = 0; m < MK_MELD_COUNT; m++) {
        uint32_t have = need[m] & hand, miss = need[m] & ~hand;
        counted |= (unsigned)((have != 0) & ((miss & not_here) == 0)) << m;
    }
    counted &= ~scored;
    for (; counted; counted &= counted - 1) {
        int m = __builtin_ctz(counted);
        uint32_t have = need[m] & hand;
        uint32_t miss = need[m] & ~hand;
        double contrib;
        if (!miss) {
            complete[n_complete++] = m;
            contrib = val[m] * q;
        } else {
            double prob = q;
            if (miss >> indicator & 1) {
                prob *= p_indicator;
                miss ^= 1u << indicator;
            }
            int k = mk_popcount32(miss);
            if (k > 1 && powers[k] < 0) powers[k] = pow(p_draw, (double)k);
            prob *= k == 0 ? 1.0 : k == 1 ? p_draw : powers[k]; /* = pow(p_draw, k) */
            contrib = val[m] * prob;
        }
        for (; have; have &= have - 1) loss[__builtin_ctz(have)] += contrib;
    }
    double realise = 1 - q, dix_gain = 0.0;
    double seven_value = SEVEN_POINTS + KEEP_TRUMP[indicator & 7] - KEEP_TRUMP[0];
    if (can_dix && (hand >> seven & 1)) dix_gain = seven_value * realise;
    double seven_keep = can_dix ? seven_value * q : 0.0;
    int seven_bonus = d->rules.dix_on_play && d->seven_by < 0 ? SEVEN_POINTS : 0;
    int last_stock_trick = tricks == MK_PHASE1_TRICKS - 1;
    double lose_extra =
        last_stock_trick ? LAST_CARD_POINTS + KEEP_TRUMP[indicator & 7] * INDICATOR_KEEP_SHARE : 0.0;
    double win_extra = last_stock_trick ? LAST_STOCK_WIN : 0.0;
    double win_base = LEAD_VALUE + win_extra;
    double lose_base = -OPPONENT_WINDOW - LEAD_VALUE + lose_extra;
    int leader = lead < 0, opp_hidden = 0, lead_pts = 0;
    if (leader) {
        int h = mk_popcount32(hand) - mk_popcount32(known);
        if (h > n_unseen) h = n_unseen;
        opp_hidden = h > 0 ? h : 0;
    } else {
        lead_pts = mk_card_points[lead];
    }
    hterms terms = {{KEEP_PLAIN, KEEP_PLAIN, KEEP_PLAIN, KEEP_PLAIN}, loss, need, val, complete,
                    n_complete, d->rules.one_meld, seven, seven_keep, dix_gain, realise};
    terms.keep_row[trump] = KEEP_TRUMP;
    hfeat fx = {leader, trump, lead, last_stock_trick, mk_popcount32(hand & tmask),
                (indicator & 7) >= 6, hand, ~(d->won[0] | d->won[1] | hand) & ~(lead >= 0 ? 1u << lead : 0u)};
    int tuned = w != NULL || rec != NULL;
    hpick pick;
    h_pick_init(&pick);
    /* the two loops differ only in the value of a card; each is kept free
     * of branches on the card where the data allow (they were the cost) */
    if (leader) {
        double p_none[33]; /* h_p_none(n_unseen, good, opp_hidden) by good, computed once */
        uint64_t p_none_ready = 0; /* bit good: p_none[good] is set */
        for (uint32_t mh = hand; mh; mh &= mh - 1) {
            int c = __builtin_ctz(mh), csuit = c >> 3;
            double keep, gain;
            h_card_terms(&terms, c, &keep, &gain);
            int pts = mk_card_points[c];
            uint32_t higher = MK_SUIT_MASK(csuit) & ~((2u << c) - 1);
            uint32_t beaters = csuit == trump ? higher : higher | tmask;
            double p_can;
            if (known & beaters) {
                p_can = 1.0;
            } else {
                int good = mk_popcount32(unseen & beaters);
                if (!(p_none_ready >> good & 1)) {
                    p_none[good] = h_p_none(n_unseen, good, opp_hidden);
                    p_none_ready |= 1ull << good;
                }
                p_can = 1.0 - p_none[good];
            }
            double p_take = p_can * TAKE_CHANCE[pts != 0];
            double win = pts + DISCARD_POINTS + gain + win_base;
            double lose = lose_base - (pts + LOST_LEAD_COST);
            double v = (1 - p_take) * win + p_take * lose - keep;
            if (c == seven) v += seven_bonus;
            if (tuned) v = h_tuned(w, rec, &fx, c, tricks, p_take, loss[c], gain, v);
            h_pick(&pick, c, v);
        }
    } else {
        for (uint32_t mh = hand; mh; mh &= mh - 1) {
            int c = __builtin_ctz(mh);
            double keep, gain;
            h_card_terms(&terms, c, &keep, &gain);
            int trick = lead_pts + mk_card_points[c];
            int wins = mk_beats(lead, c, trump);
            double outcome[2] = {lose_base - trick, trick + gain + win_base}; /* lose, win */
            double v = outcome[wins] - keep;
            if (c == seven) v += seven_bonus;
            if (tuned) v = h_tuned(w, rec, &fx, c, tricks, 0.0, loss[c], gain, v);
            h_pick(&pick, c, v);
        }
    }
    return h_picked(&pick);
}

/* -- tricks 11-16 -- */

typedef struct {
    int trump, seven, bonus; /* seven: -1 unless it still scores when played */
    uint32_t tmask;
} hline;

static double h_ending_keep(int c, int trump, uint32_t theirs) {
    int r = c & 7;
    double v = c >> 3 == trump ? ENDING_TRUMP_BASE + r : (double)r * ENDING_PLAIN_PER_RANK;
    if (r == 7)
        v += ENDING_ACE;
    else if (r == 6)
        v += (theirs >> (c + 1) & 1) ? ENDING_TEN_UNDER_ACE : ENDING_TEN;
    return v;
}

static int h_ending_answer(int lead, uint32_t legal, uint32_t leader_rest, int trump, int seven) {
    int best_win = -1, best_lose = -1;
    double win_cost = 1e9, lose_cost = 1e9;
    for (uint32_t m = legal; m; m &= m - 1) {
        int c = __builtin_ctz(m);
        double keep = h_ending_keep(c, trump, leader_rest) - (c == seven ? SEVEN_POINTS : 0);
        if (mk_beats(lead, c, trump)) {
            double cost = keep - mk_card_points[c];
            if (cost < win_cost || (cost == win_cost && (c & 7) < (best_win & 7))) {
                best_win = c;
                win_cost = cost;
            }
        } else {
            double cost = keep + mk_card_points[c] * ENDING_THROWN_POINTS;
            if (cost < lose_cost || (cost == lose_cost && (c & 7) < (best_lose & 7))) {
                best_lose = c;
                lose_cost = cost;
            }
        }
    }
    return best_win >= 0 ? best_win : best_lose;
}

static double h_lead_score(const hline *L, int c, uint32_t mine, uint32_t theirs, int sweep) {
    int trump = L->trump;
    int answer = h_ending_answer(c, mk_follow_mask(c, theirs, trump), mine & ~(1u << c), trump,
                                 L->seven);
    int wins = !mk_beats(c, answer, trump);
    int trick = mk_card_points[c] + mk_card_points[answer];
    double v = (double)(wins ? trick : -trick);
    if (wins)
        v += ENDING_LEAD_KEPT + ((sweep & 1) ? ENDING_SWEEP_LIVE : 0.0);
    else
        v -= ENDING_LEAD_LOST;
    v -= h_ending_keep(c, trump, theirs) * (wins ? ENDING_KEEP_SHARE_WON : ENDING_KEEP_SHARE_LOST);
    if (c == L->seven) v += SEVEN_POINTS;
    if (c >> 3 == trump && !wins &&
        mk_popcount32(mine & L->tmask) <= mk_popcount32(theirs & L->tmask))
        v -= ENDING_TRUMP_LEAD_LOST;
    return v;
}

static int h_greedy_lead(const hline *L, uint32_t mine, uint32_t theirs, int sweep) {
    int best_card = -1;
    double best_score = -1e9;
    for (uint32_t m = mine; m; m &= m - 1) {
        int c = __builtin_ctz(m);
        double v = h_lead_score(L, c, mine, theirs, sweep);
        if (v > best_score || (v == best_score && (c & 7) < (best_card & 7))) {
            best_card = c;
            best_score = v;
        }
    }
    return best_card;
}

/* leader's score minus follower's for the rest of the deal when `lead` is
 * led and both then follow the greedy rules */
static int h_play_out(const hline *L, int lead, uint32_t mine, uint32_t theirs, int sweep) {
    int trump = L->trump, seven = L->seven, diff = 0, sign = 1;
    uint32_t a = mine, b = theirs;
    for (;;) {
        a ^= 1u << lead;
        int ans = h_ending_answer(lead, mk_follow_mask(lead, b, trump), a, trump, seven);
        b ^= 1u << ans;
        int pts = mk_card_points[lead] + mk_card_points[ans];
        int extra = (lead == seven ? SEVEN_POINTS : 0) - (ans == seven ? SEVEN_POINTS : 0);
        int wins = !mk_beats(lead, ans, trump);
        if (!a) {
            pts += LAST_TRICK_POINTS;
            if ((wins && (sweep & 1)) || (!wins && (sweep & 2))) pts += L->bonus;
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
        if (!a) return diff;
        lead = h_greedy_lead(L, a, b, sweep);
    }
}

static int h_ending_card(const mk_deal *d, int seat, uint32_t legal) {
    if (!(legal & (legal - 1))) return __builtin_ctz(legal);
    int opp = seat ^ 1;
    uint32_t mine = d->hand[seat], theirs = d->hand[opp];
    int seven_live = d->rules.dix_on_play && d->seven_by < 0;
    hline L = {d->trump, seven_live ? d->seven : -1, d->rules.all_tricks_bonus,
               MK_SUIT_MASK(d->trump)};
    if (d->lead >= 0) return h_ending_answer(d->lead, legal, theirs, d->trump, L.seven);
    int sweep = (d->late[opp] == 0 ? 1 : 0) | (d->late[seat] == 0 ? 2 : 0);
    int best_card = -1;
    double best_score = -1e9;
    for (uint32_t m = mine; m; m &= m - 1) {
        int c = __builtin_ctz(m);
        double v = h_play_out(&L, c, mine, theirs, sweep) +
                   ENDING_LINE_TIEBREAK * h_lead_score(&L, c, mine, theirs, sweep);
        if (v > best_score || (v == best_score && (c & 7) < (best_card & 7))) {
            best_card = c;
            best_score = v;
        }
    }
    return best_card;
}

/* the window rule of both policies: the dix first, then the most valuable
 * meld, then draw */
static int window_action(const mk_deal *d, int p) {
    if (d->seven_by < 0 && (d->hand[p] >> d->seven & 1)) return MK_DIX;
    unsigned melds = mk_meld_options(d);
    int best = -1, best_value = 0;
    for (; melds; melds &= melds - 1) {
        int m = __builtin_ctz(melds);
        if (mk_meld_values[d->trump][m] > best_value) {
            best_value = mk_meld_values[d->trump][m];
            best = m;
        }
    }
    return best >= 0 ? MK_MELD_BASE + best : MK_DRAW;
}

/* the heuristic's action, its card values in tricks 1-10 corrected by the
 * learned weights w (NULL: none) */
static int heuristic_with(const mk_deal *d, const double *w) {
    int p = d->turn;
    if (p < 0) return -1;
    if (d->window) return window_action(d, p);
    uint32_t legal = mk_legal_cards(d);
    if (mk_stock_empty(d)) return h_ending_card(d, p, legal);
    return h_stock_card_w(d, p, legal, w, NULL);
}

int mk_heuristic_action(const mk_deal *d, mk_rng *g) {
    (void)g; /* deterministic, as the Python policy; kept for randomised variants */
    return heuristic_with(d, NULL);
}

int mk_tuned_action(const mk_deal *d, mk_rng *g) {
    (void)g;
    return heuristic_with(d, MK_POLICY_WEIGHTS);
}

int mk_policy_record(const mk_deal *d, mk_pfrecord *rec) {
    rec->n = 0;
    if (d->turn < 0 || d->window || mk_stock_empty(d)) return -1;
    return h_stock_card_w(d, d->turn, mk_legal_cards(d), NULL, rec);
}

int mk_heuristic_playout(mk_deal *d, mk_rng *g, int stop_at_ending) {
    return policy_playout(d, g, stop_at_ending, mk_heuristic_action);
}

/* ---- the fast policy ------------------------------------------------------------
 * A cheaper, weaker player than the heuristic (integer scores in tenths of
 * a point, no probabilities): about -8 points a deal against it, several
 * times faster. For playouts where speed matters more than their quality.
 *   window: the dix first, then the most valuable meld, then draw;
 *   tricks 1-10: keep values (rank, trumps, pieces of unscored melds held
 *     or one card short); the leader gives away its cheapest card, the
 *     follower wins when the trick and the melds it could then declare are
 *     worth more than the card spent;
 *   tricks 11-16: lead a card the opponent cannot beat (points first), else
 *     the cheapest; win as cheaply as possible, else throw the cheapest. */

static const int16_t F_KEEP_PLAIN[8] = {0, 3, 6, 10, 15, 20, 70, 100};
static const int16_t F_KEEP_TRUMP[8] = {40, 45, 50, 60, 70, 80, 140, 170};

static inline int f_keep_base(const mk_deal *d, int card) {
    return (card >> 3 == d->trump ? F_KEEP_TRUMP : F_KEEP_PLAIN)[card & 7];
}

/* keep values of the mover's cards in phase 1, and the meld points it
 * could declare in a window won with each card (gain[c]) */
static void f_phase1_values(const mk_deal *d, int keep[32], int gain[32]) {
    int p = d->turn;
    uint32_t hand = d->hand[p];
    uint32_t gone = d->won[0] | d->won[1] | d->exposed[p ^ 1];
    const uint32_t *need = mk_meld_cards[d->rules.same_suit][d->trump];
    const int16_t *val = mk_meld_values[d->trump];
    for (uint32_t m = hand; m; m &= m - 1) {
        int c = __builtin_ctz(m);
        keep[c] = f_keep_base(d, c);
        gain[c] = 0;
    }
    int later = MK_PHASE1_TRICKS - 1 - d->tricks; /* windows still to come after this trick */
    for (int m = 0; m < MK_MELD_COUNT; m++) {
        if (d->melds[p] >> m & 1) continue;
        uint32_t have = need[m] & hand, miss = need[m] & ~hand;
        if (!have) continue;
        int piece;
        if (!miss) {
            piece = later > 0 ? val[m] * 6 : 0; /* tenths: 0.6 of the value */
            for (uint32_t x = hand & ~need[m]; x; x &= x - 1) {
                int c = __builtin_ctz(x);
                if (d->rules.one_meld) {
                    if (val[m] * 10 > gain[c]) gain[c] = val[m] * 10;
                } else {
                    gain[c] += val[m] * 10;
                }
            }
        } else if (!(miss & gone) && mk_popcount32(miss) == 1 && later > 1) {
            piece = val[m] * 2;
        } else {
            continue;
        }
        for (; have; have &= have - 1) keep[__builtin_ctz(have)] += piece;
    }
    if (d->seven_by < 0 && (hand >> d->seven & 1) && d->indicator != d->seven)
        keep[d->seven] += 100; /* the exchange is worth 10 and a better trump */
}

static int f_stock_card(const mk_deal *d, uint32_t legal) {
    int keep[32], gain[32];
    f_phase1_values(d, keep, gain);
    int p = d->turn, best = -1, best_score = -1000000;
    int seven_live = d->rules.dix_on_play && d->seven_by < 0;
    if (d->lead < 0) {
        for (uint32_t m = legal; m; m &= m - 1) {
            int c = __builtin_ctz(m);
            int s = -keep[c] - mk_card_points[c] * 6 + (c == d->seven && seven_live ? 100 : 0);
            if (s > best_score) best_score = s, best = c;
        }
        return best;
    }
    int lead = d->lead, trick = mk_card_points[lead] * 10;
    int last = d->tricks == MK_PHASE1_TRICKS - 1; /* the loser of trick 10 takes the indicator */
    for (uint32_t m = legal; m; m &= m - 1) {
        int c = __builtin_ctz(m), pts = mk_card_points[c] * 10, s;
        if (mk_beats(lead, c, d->trump))
            s = trick + pts + gain[c] + 20 - keep[c];
        else
            s = -trick - pts - 50 - keep[c] + (last ? 100 + F_KEEP_TRUMP[d->indicator & 7] / 2 : 0);
        if (c == d->seven && seven_live) s += 100;
        if (s > best_score) best_score = s, best = c;
    }
    (void)p;
    return best;
}

static inline int f_ending_keep(const mk_deal *d, int c) {
    return (c >> 3 == d->trump ? 40 + 10 * (c & 7) : 5 * (c & 7)) + mk_card_points[c] * 6;
}

static int f_ending_card(const mk_deal *d, uint32_t legal) {
    int p = d->turn, best = -1, best_score = -1000000;
    uint32_t theirs = d->hand[p ^ 1];
    if (d->lead >= 0) {
        int lead = d->lead;
        for (uint32_t m = legal; m; m &= m - 1) {
            int c = __builtin_ctz(m), s;
            if (mk_beats(lead, c, d->trump))
                s = 1000 + mk_card_points[lead] * 20 - f_ending_keep(d, c) + mk_card_points[c] * 10;
            else
                s = -f_ending_keep(d, c) - mk_card_points[c] * 10;
            if (s > best_score) best_score = s, best = c;
        }
        return best;
    }
    for (uint32_t m = legal; m; m &= m - 1) {
        int c = __builtin_ctz(m);
        /* can the opponent beat this lead (R16)? */
        uint32_t answers = mk_follow_mask(c, theirs, d->trump);
        int beaten = 0;
        for (uint32_t a = answers; a; a &= a - 1)
            if (mk_beats(c, __builtin_ctz(a), d->trump)) beaten = 1;
        int s = beaten ? -f_ending_keep(d, c) : 500 + mk_card_points[c] * 20 - (c & 7);
        if (s > best_score) best_score = s, best = c;
    }
    return best;
}

int mk_fast_action(const mk_deal *d, mk_rng *g) {
    (void)g;
    int p = d->turn;
    if (p < 0) return -1;
    if (d->window) return window_action(d, p);
    uint32_t legal = mk_legal_cards(d);
    if (!(legal & (legal - 1))) return __builtin_ctz(legal);
    return mk_stock_empty(d) ? f_ending_card(d, legal) : f_stock_card(d, legal);
}


int mk_fast_playout(mk_deal *d, mk_rng *g, int stop_at_ending) {
    return policy_playout(d, g, stop_at_ending, mk_fast_action);
}
