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
static void noisy_playout(mk_deal *w, mk_rng *g, int noise_in) {
    while (w->turn >= 0 && !mk_stock_empty(w)) {
        int random_card = noise_in > 0 && !w->window && mk_rng_below(g, (uint32_t)noise_in) == 0;
        mk_play(w, random_card ? mk_random_action(w, g) : mk_heuristic_action(w, g));
    }
}

int mj_world_value(const mk_deal *d, int seat, const mj_search_params *p, mk_rng *g, mk_tt *t) {
    if (mk_over(d))
        return mk_diff(d, seat);
    if (mk_stock_empty(d))
        return value_for(d, seat, mk_ending_value(d, t, -MK_INF, MK_INF));
    if (mj_tricks_left(d) <= p->exact_tricks)
        return value_for(d, seat, mk_exact_value(d, t, -MK_INF, MK_INF));
    mk_deal w = *d;
    switch (p->eval) {
    case MJ_EVAL_PLAYOUT:
        mk_heuristic_playout(&w, g, 0);
        return mk_diff(&w, seat);
    case MJ_EVAL_FAST:
        mk_heuristic_playout(&w, g, 1);
        mk_fast_playout(&w, g, 0);
        return mk_diff(&w, seat);
    case MJ_EVAL_NOISY:
        noisy_playout(&w, g, p->noise_in);
        break;
    case MJ_EVAL_RANDOM:
        while (!mk_stock_empty(&w))
            mk_play(&w, mk_random_action(&w, g));
        break;
    default:
        mk_heuristic_playout(&w, g, 1);
        break;
    }
    if (mk_over(&w))
        return mk_diff(&w, seat);
    return value_for(&w, seat, mk_ending_value(&w, t, -MK_INF, MK_INF));
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
        for (int i = 0; i < acc->n; i++) {
            mk_deal w = d;
            mk_play(&w, acc->actions[i]);
            double v = (double)mj_world_value(&w, p->seat, p, g, t);
            acc->sum[i] += v;
            acc->sumsq[i] += v * v;
        }
        acc->worlds++;
    }
    return 0;
}
