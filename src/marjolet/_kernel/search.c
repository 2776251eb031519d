/* The best bot's search: perfect-information Monte Carlo over worlds
 * dealt consistently with the seat's observation.
 *
 * Each world is scored for every legal action, so the actions are compared
 * on the same cards (their differences are not drowned by card luck):
 *  - once the stock is empty: the exact ending solver;
 *  - in the last exact_tricks tricks of phase 1: the exact
 *    perfect-information search (the world's stock order is known);
 *  - earlier: a playout of the heuristic policy (the kernel's port of
 *    bots/heuristic.py, playout.c) to the last draw, one card play in
 *    noise_in a random legal card (the default; without the noise, or
 *    another playout: enum mj_eval), and the exact ending.
 * One transposition table serves every world of a decision: ending
 * positions recur across worlds; phase-1 entries are keyed by the world. */
#include "search.h"

static int value_for(const mk_deal *d, int seat, int v) {
    return d->turn == seat ? v : -v;
}

/* the heuristic to the last draw, a random card one play in noise_in */
static void noisy_playout(mk_deal *w, mk_rng *g, int noise_in,
                          int (*act)(const mk_deal *, mk_rng *)) {
    while (w->turn >= 0 && !mk_stock_empty(w)) {
        int random_card = noise_in > 0 && !w->window && mk_rng_below(g, (uint32_t)noise_in) == 0;
        mk_play(w, random_card ? mk_random_action(w, g) : act(w, g));
    }
}

/* The value for seat of d (see mj_world_value); *from receives the
 * position whose exact value (or final score) the result is. */
static int world_value(const mk_deal *d, int seat, const mj_search_params *p, mk_rng *g,
                       mk_tt *t, mk_deal *from) {
    *from = *d;
    if (mk_over(d))
        return mk_diff(d, seat);
    if (mk_stock_empty(d))
        return value_for(d, seat, mk_ending_value(d, t, -MK_INF, MK_INF));
    if (mj_tricks_left(d) <= p->exact_tricks)
        return value_for(d, seat, mk_exact_value(d, t, -MK_INF, MK_INF));
    mk_deal *w = from;
    switch (p->eval) {
    case MJ_EVAL_PLAYOUT:
        mk_heuristic_playout(w, g, 0);
        return mk_diff(w, seat);
    case MJ_EVAL_FAST:
        mk_heuristic_playout(w, g, 1);
        mk_fast_playout(w, g, 0);
        return mk_diff(w, seat);
    case MJ_EVAL_NOISY:
        noisy_playout(w, g, p->noise_in, mk_heuristic_action);
        break;
    case MJ_EVAL_TUNED:
        noisy_playout(w, g, p->noise_in, mk_tuned_action);
        break;
    case MJ_EVAL_RANDOM:
        while (!mk_stock_empty(w))
            mk_play(w, mk_random_action(w, g));
        break;
    default:
        mk_heuristic_playout(w, g, 1);
        break;
    }
    if (mk_over(w))
        return mk_diff(w, seat);
    return value_for(w, seat, mk_ending_value(w, t, -MK_INF, MK_INF));
}

int mj_world_value(const mk_deal *d, int seat, const mj_search_params *p, mk_rng *g, mk_tt *t) {
    mk_deal from;
    return world_value(d, seat, p, g, t, &from);
}

void mj_final_points(const mk_deal *from, int seat, int diff, int out[2]) {
    int sum = from->points[0] + from->points[1];
    if (!mk_over(from)) {
        uint32_t loose = ~(from->won[0] | from->won[1]);
        int rest = MK_LAST_TRICK_POINTS; /* the last trick (R17) */
        for (int c = 0; c < 32; c++)
            if (loose >> c & 1)
                rest += mk_card_points[c];
        if (from->last_card_to < 0)
            rest += MK_LAST_CARD_POINTS; /* the last stock card (R15) */
        if (from->seven_by < 0 && from->rules.dix_on_play)
            rest += MK_SEVEN_POINTS; /* the seven, still to be played (R19) */
        int now = mk_diff(from, seat);
        int gained = diff > now ? diff - now : now - diff;
        if (gained > rest) /* phase 2: only a sweep gains more (R17); phase 1: melds */
            rest = mk_stock_empty(from) ? rest + from->rules.all_tricks_bonus : gained;
        sum += rest;
    }
    int mine = (sum + diff) / 2;
    out[0] = mine < 0 ? 0 : mine;
    out[1] = sum - mine < 0 ? 0 : sum - mine;
}

/* The utility of a world's outcome: util[mine/10][theirs/10], clamped. */
static double utility(const double *util, const int pts[2]) {
    int a = (pts[0] + 5) / MJ_UTIL_STEP, b = (pts[1] + 5) / MJ_UTIL_STEP;
    a = a < MJ_UTIL_SIZE ? a : MJ_UTIL_SIZE - 1;
    b = b < MJ_UTIL_SIZE ? b : MJ_UTIL_SIZE - 1;
    return util[a * MJ_UTIL_SIZE + b];
}

void mj_acc_init(mj_search_acc *acc, uint64_t legal) {
    acc->n = 0;
    acc->worlds = 0;
    while (legal) {
        int a = __builtin_ctzll(legal);
        legal &= legal - 1;
        acc->actions[acc->n] = a;
        acc->sum[acc->n] = 0.0;
        acc->sumsq[acc->n] = 0.0;
        acc->usum[acc->n] = 0.0;
        acc->n++;
    }
}

int mj_pimc(const mk_deal *base, const mj_sample_spec *spec, const mj_search_params *p,
            mk_rng *g, mk_tt *t, long worlds, mj_search_acc *acc) {
    if (mj_sample_check(spec) != 0)
        return -1;
    int opp = p->seat ^ 1;
    for (long k = 0; k < worlds; k++) {
        mk_deal d = *base;
        uint32_t hidden = 0;
        mj_sample(spec, g, &hidden, d.stock);
        d.hand[opp] |= hidden;
        uint64_t stream = p->paired ? mk_rng_next(g) : 0;
        for (int i = 0; i < acc->n; i++) {
            mk_deal w = d, from;
            mk_rng own, *r = g;
            if (p->paired) { /* every action's playout draws the same numbers */
                mk_rng_seed(&own, stream);
                r = &own;
            }
            mk_play(&w, acc->actions[i]);
            int diff = world_value(&w, p->seat, p, r, t, &from);
            double v = (double)diff;
            acc->sum[i] += v;
            acc->sumsq[i] += v * v;
            if (p->util != NULL) {
                int pts[2];
                mj_final_points(&from, p->seat, diff, pts);
                acc->usum[i] += utility(p->util, pts);
            }
        }
        acc->worlds++;
    }
    return 0;
}
