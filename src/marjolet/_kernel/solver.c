/* solver.c -- the transposition table, the exact ending solver and the
 * exact perfect-information search from late phase 1. */
#include <stdlib.h>
#include <string.h>
#include "kernel.h"

int mk_tt_init(mk_tt *t, unsigned log2_entries) {
    if (log2_entries < MK_TT_MIN_LOG2) log2_entries = MK_TT_MIN_LOG2;
    if (log2_entries > MK_TT_MAX_LOG2) log2_entries = MK_TT_MAX_LOG2;
    size_t n = (size_t)1 << log2_entries;
    t->entries = calloc(n, sizeof(mk_tt_entry));
    if (!t->entries) return -1;
    t->mask = n - 1;
    t->gen = 1;
    t->nodes = 0;
    return 0;
}

void mk_tt_free(mk_tt *t) {
    free(t->entries);
    t->entries = NULL;
    t->mask = 0;
}

void mk_tt_clear(mk_tt *t) {
    if (++t->gen == 0) {
        memset(t->entries, 0, (t->mask + 1) * sizeof(mk_tt_entry));
        t->gen = 1;
    }
}

int mk_stock_known(const mk_deal *d) {
    int start = 2 * d->tricks - (d->window ? 2 : 0);
    if (start < 0) start = 0;
    for (int i = start; i < MK_STOCK_CARDS; i++)
        if (d->stock[i] < 0) return 0;
    return 1;
}

/* placeholders until the searches land */
int mk_solve_ending(const mk_deal *d, mk_tt *t, uint32_t *best) {
    (void)d; (void)t;
    if (best) *best = 0;
    return 0;
}
int mk_ending_action_value(const mk_deal *d, mk_tt *t, int c) { (void)d; (void)t; (void)c; return 0; }
int mk_ending_value(const mk_deal *d, mk_tt *t, int alpha, int beta) {
    (void)d; (void)t; (void)alpha; (void)beta; return 0;
}
int mk_search_exact(const mk_deal *d, mk_tt *t, uint64_t *best) {
    (void)d; (void)t;
    if (best) *best = 0;
    return 0;
}
int mk_exact_action_value(const mk_deal *d, mk_tt *t, int a) { (void)d; (void)t; (void)a; return 0; }
int mk_exact_value(const mk_deal *d, mk_tt *t, int alpha, int beta) {
    (void)d; (void)t; (void)alpha; (void)beta; return 0;
}
