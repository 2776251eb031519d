/* Dealing the unseen cards consistently with an observation (the C twin of
 * marjolet.observation.sample_world).
 *
 * The seat knows its own hand, everything played, the opponent's exposed
 * cards and the indicator it took by a dix, and where its own draws came
 * from. What it cannot place is the set of unseen cards: some are in the
 * opponent's hand (hand size minus known cards), the rest fill the hidden
 * stock positions not yet drawn, which are always the last ones
 * (first_slot..18). A uniform world is a random split and a random stock
 * order; with weights the hand is drawn in proportion to them. */
#include "sample.h"

int mj_sample_check(const mj_sample_spec *spec) {
    int n = __builtin_popcount(spec->unseen);
    int slots = MJ_STOCK - spec->first_slot;
    if (spec->opp_missing < 0 || slots < 0 || spec->first_slot > MJ_STOCK)
        return -1;
    if (spec->opp_missing + slots != n)
        return -1;
    if (spec->n_soft < 0 || spec->n_soft > MJ_MAX_SOFT)
        return -1;
    return 0;
}

/* The unseen cards as a list, in card order. */
static int unseen_cards(uint32_t mask, int8_t *out) {
    int n = 0;
    while (mask) {
        out[n++] = (int8_t)__builtin_ctz(mask);
        mask &= mask - 1;
    }
    return n;
}

static void deal_uniform(const mj_sample_spec *spec, mk_rng *rng, int8_t *cards, int n) {
    /* a partial Fisher-Yates: the first opp_missing cards form the hand */
    for (int i = 0; i < n - 1; i++) {
        int j = i + (int)mk_rng_below(rng, (uint32_t)(n - i));
        int8_t t = cards[i];
        cards[i] = cards[j];
        cards[j] = t;
    }
    (void)spec;
}

static void deal_weighted(const mj_sample_spec *spec, mk_rng *rng, int8_t *cards, int n) {
    /* the hand card by card, each in proportion to its weight among the
     * cards left; then the rest of the cards shuffled into the stock */
    double total = 0.0;
    for (int i = 0; i < n; i++)
        total += spec->weight[cards[i]];
    for (int i = 0; i < spec->opp_missing; i++) {
        int pick = n - 1;
        if (total > 0.0) {
            double x = mj_rng_unit(rng) * total;
            for (int j = i; j < n; j++) {
                x -= spec->weight[cards[j]];
                if (x < 0.0) {
                    pick = j;
                    break;
                }
            }
        } else {
            pick = i + (int)mk_rng_below(rng, (uint32_t)(n - i));
        }
        /* never pick a zero-weight card while a positive one is left */
        if (spec->weight[cards[pick]] <= 0.0 && total > 0.0) {
            for (int j = n - 1; j >= i; j--)
                if (spec->weight[cards[j]] > 0.0) {
                    pick = j;
                    break;
                }
        }
        total -= spec->weight[cards[pick]];
        if (total < 1e-12)
            total = 0.0;
        int8_t t = cards[i];
        cards[i] = cards[pick];
        cards[pick] = t;
    }
    for (int i = spec->opp_missing; i < n - 1; i++) {
        int j = i + (int)mk_rng_below(rng, (uint32_t)(n - i));
        int8_t t = cards[i];
        cards[i] = cards[j];
        cards[j] = t;
    }
}

/* Worlds are dealt again at most this many times when soft constraints
 * reject them; the last one dealt is kept whatever its fit, so a
 * contradictory set of constraints cannot stall the search. */
#define MAX_TRIES 64

int mj_sample(const mj_sample_spec *spec, mk_rng *rng, uint32_t *opp_hidden,
              int8_t stock[MJ_STOCK]) {
    int8_t cards[32];
    int tries = 0;
    for (;;) {
        int n = unseen_cards(spec->unseen, cards);
        tries++;
        if (spec->weighted)
            deal_weighted(spec, rng, cards, n);
        else
            deal_uniform(spec, rng, cards, n);
        uint32_t hand = 0;
        for (int i = 0; i < spec->opp_missing; i++)
            hand |= 1u << cards[i];
        int keep = 1;
        for (int k = 0; k < spec->n_soft && keep; k++)
            if ((hand & spec->soft[k]) == spec->soft[k] && mj_rng_unit(rng) >= spec->accept[k])
                keep = 0;
        if (keep || tries >= MAX_TRIES) {
            *opp_hidden = hand;
            for (int i = spec->opp_missing; i < n; i++)
                stock[spec->first_slot + (i - spec->opp_missing)] = cards[i];
            return tries;
        }
    }
}
