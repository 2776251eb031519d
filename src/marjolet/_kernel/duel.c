/* duel.c -- weightings of the tuned policy against a base weighting on
 * the same decks, duplicate (see duel.h). */
#include "duel.h"

static void shuffle_deck(uint8_t deck[32], mk_rng *g) {
    for (int i = 0; i < 32; i++) deck[i] = (uint8_t)i;
    for (int i = 31; i > 0; i--) {
        int j = (int)mk_rng_below(g, (uint32_t)i + 1);
        uint8_t tmp = deck[i];
        deck[i] = deck[j];
        deck[j] = tmp;
    }
}

/* One deal of the deck: seat `mine` plays w_mine, the other w_other; the
 * final deal-score difference for seat `mine`. */
static int duel_deal(const uint8_t deck[32], int dealer, int mine, const double *w_mine,
                     const double *w_other, const mk_rules *r, mk_tt *t, int noise_in,
                     uint64_t stream) {
    mk_deal d;
    mk_rng g;
    mk_rng_seed(&g, stream);
    mk_deal_init(&d, deck, dealer, r);
    while (!mk_over(&d) && !mk_stock_empty(&d)) {
        int random_card = noise_in > 0 && !d.window && mk_rng_below(&g, (uint32_t)noise_in) == 0;
        mk_play(&d, random_card ? mk_random_action(&d, &g)
                                : mk_weighted_action(&d, d.turn == mine ? w_mine : w_other));
    }
    if (mk_over(&d))
        return mk_diff(&d, mine);
    int v = mk_ending_value(&d, t, -MK_INF, MK_INF);
    return d.turn == mine ? v : -v;
}

int mj_policy_duel(const double *const *cand, int k, const double *base, const mk_rules *r,
                   uint64_t seed, int decks, int noise_in, mk_tt *t, double *sum,
                   double *sumsq) {
    mk_rng g;
    mk_rng_seed(&g, seed);
    for (int j = 0; j < k; j++)
        sum[j] = sumsq[j] = 0.0;
    for (int i = 0; i < decks; i++) {
        uint8_t deck[32];
        shuffle_deck(deck, &g);
        uint64_t stream = mk_rng_next(&g);
        for (int j = 0; j < k; j++) {
            int a = duel_deal(deck, i & 1, 0, cand[j], base, r, t, noise_in, stream);
            int b = duel_deal(deck, i & 1, 1, cand[j], base, r, t, noise_in, stream ^ 1);
            double m = (a + b) / 2.0;
            sum[j] += m;
            sumsq[j] += m * m;
        }
    }
    return 0;
}
