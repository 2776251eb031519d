/* playout.c -- the RNG, random playouts and the heuristic playout policy. */
#include "kernel.h"

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
    return mk_nth_bit(m, mk_rng_below(g, (uint32_t)__builtin_popcountll(m)));
}

int mk_random_playout(mk_deal *d, mk_rng *g) {
    int n = 0;
    for (;;) {
        uint64_t m = mk_legal(d);
        if (!m) return n;
        mk_play(d, mk_nth_bit(m, mk_rng_below(g, (uint32_t)__builtin_popcountll(m))));
        n++;
    }
}

/* ---- the heuristic policy ---------------------------------------------------
 * A fast, decent player for playouts (in the spirit of bots/heuristic.py,
 * simpler). Scores are in tenths of a point.
 *   window: the dix first, then the most valuable meld, then draw;
 *   tricks 1-10: every card has a keep value (rank, trumps, pieces of
 *     unscored melds held or one card short); the leader gives away its
 *     cheapest card, the follower wins a trick when the points and the
 *     melds it could then declare are worth more than the card spent;
 *   tricks 11-16 (both hands known, R23): lead a card the opponent cannot
 *     beat (points first), else the cheapest; follow by winning as cheaply
 *     as possible, else throwing the cheapest card.
 * In tricks 1-10 it reads only what the mover may know (own hand, cards
 * played, the opponent's exposed cards). */

static const int16_t KEEP_PLAIN[8] = {0, 3, 6, 10, 15, 20, 70, 100};
static const int16_t KEEP_TRUMP[8] = {40, 45, 50, 60, 70, 80, 140, 170};

static inline int h_keep_base(const mk_deal *d, int card) {
    return (card >> 3 == d->trump ? KEEP_TRUMP : KEEP_PLAIN)[card & 7];
}

static inline int h_beats(const mk_deal *d, int lead, int card) {
    return (card >> 3 == lead >> 3) ? card > lead : card >> 3 == d->trump;
}

/* keep values of the mover's cards in phase 1, and the meld points it
 * could declare in a window won with each card (gain[c]) */
static void h_phase1_values(const mk_deal *d, int keep[32], int gain[32]) {
    int p = d->turn;
    uint32_t hand = d->hand[p];
    uint32_t gone = d->won[0] | d->won[1] | d->exposed[p ^ 1];
    const uint32_t *need = mk_meld_cards[d->rules.same_suit][d->trump];
    const int16_t *val = mk_meld_values[d->trump];
    for (uint32_t m = hand; m; m &= m - 1) {
        int c = __builtin_ctz(m);
        keep[c] = h_keep_base(d, c);
        gain[c] = 0;
    }
    int later = 9 - d->tricks; /* windows still to come after this trick */
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
        } else if (!(miss & gone) && __builtin_popcount(miss) == 1 && later > 1) {
            piece = val[m] * 2;
        } else {
            continue;
        }
        for (; have; have &= have - 1) keep[__builtin_ctz(have)] += piece;
    }
    if (d->seven_by < 0 && (hand >> d->seven & 1) && d->indicator != d->seven)
        keep[d->seven] += 100; /* the exchange is worth 10 and a better trump */
}

static int h_stock_card(const mk_deal *d, uint32_t legal) {
    int keep[32], gain[32];
    h_phase1_values(d, keep, gain);
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
        if (h_beats(d, lead, c))
            s = trick + pts + gain[c] + 20 - keep[c];
        else
            s = -trick - pts - 50 - keep[c] + (last ? 100 + KEEP_TRUMP[d->indicator & 7] / 2 : 0);
        if (c == d->seven && seven_live) s += 100;
        if (s > best_score) best_score = s, best = c;
    }
    (void)p;
    return best;
}

static inline int h_ending_keep(const mk_deal *d, int c) {
    return (c >> 3 == d->trump ? 40 + 10 * (c & 7) : 5 * (c & 7)) + mk_card_points[c] * 6;
}

static int h_ending_card(const mk_deal *d, uint32_t legal) {
    int p = d->turn, best = -1, best_score = -1000000;
    uint32_t theirs = d->hand[p ^ 1];
    uint32_t tmask = MK_SUIT_MASK(d->trump);
    if (d->lead >= 0) {
        int lead = d->lead;
        for (uint32_t m = legal; m; m &= m - 1) {
            int c = __builtin_ctz(m), s;
            if (h_beats(d, lead, c))
                s = 1000 + mk_card_points[lead] * 20 - h_ending_keep(d, c) + mk_card_points[c] * 10;
            else
                s = -h_ending_keep(d, c) - mk_card_points[c] * 10;
            if (s > best_score) best_score = s, best = c;
        }
        return best;
    }
    for (uint32_t m = legal; m; m &= m - 1) {
        int c = __builtin_ctz(m);
        /* can the opponent beat this lead (R16)? */
        uint32_t suit = theirs & MK_SUIT_MASK(c >> 3), answers;
        if (suit) {
            uint32_t over = suit & ~((2u << c) - 1);
            answers = over ? over : suit;
        } else {
            answers = (theirs & tmask) ? (theirs & tmask) : theirs;
        }
        int beaten = 0;
        for (uint32_t a = answers; a; a &= a - 1)
            if (h_beats(d, c, __builtin_ctz(a))) beaten = 1;
        int s = beaten ? -h_ending_keep(d, c) : 500 + mk_card_points[c] * 20 - (c & 7);
        if (s > best_score) best_score = s, best = c;
    }
    return best;
}

int mk_heuristic_action(const mk_deal *d, mk_rng *g) {
    (void)g; /* deterministic; the generator is there for randomised variants */
    int p = d->turn;
    if (p < 0) return -1;
    if (d->window) {
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
    uint32_t legal = mk_legal_cards(d);
    if (!(legal & (legal - 1))) return __builtin_ctz(legal);
    return mk_stock_empty(d) ? h_ending_card(d, legal) : h_stock_card(d, legal);
}

int mk_heuristic_playout(mk_deal *d, mk_rng *g, int stop_at_ending) {
    int n = 0;
    while (d->turn >= 0 && !(stop_at_ending && mk_stock_empty(d))) {
        mk_play(d, mk_heuristic_action(d, g));
        n++;
    }
    return n;
}
