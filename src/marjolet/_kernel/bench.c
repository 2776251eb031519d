/* bench.c -- the timed loops of the kernel benchmark (see bench.h). */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <time.h>
#include "bench.h"

double mk_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void shuffle_deck(uint8_t deck[32], mk_rng *g) {
    for (int i = 0; i < 32; i++) deck[i] = (uint8_t)i;
    for (int i = 31; i > 0; i--) {
        int j = (int)mk_rng_below(g, (uint32_t)i + 1);
        uint8_t tmp = deck[i];
        deck[i] = deck[j];
        deck[j] = tmp;
    }
}

double mk_bench_random(const mk_rules *r, int deals, uint64_t seed, long long *actions) {
    mk_rng g;
    mk_rng_seed(&g, seed);
    uint8_t *decks = malloc((size_t)deals * 32);
    if (!decks) return -1;
    for (int i = 0; i < deals; i++) shuffle_deck(decks + 32 * (size_t)i, &g);
    long long n = 0;
    volatile int sink = 0;
    double start = mk_now();
    for (int i = 0; i < deals; i++) {
        mk_deal d;
        mk_deal_init(&d, decks + 32 * (size_t)i, i & 1, r);
        n += mk_random_playout(&d, &g);
        sink += d.points[0];
    }
    double secs = mk_now() - start;
    (void)sink;
    free(decks);
    *actions = n;
    return secs;
}

int mk_bench_solve(const mk_rules *r, int count, uint64_t seed, double *times) {
    mk_rng g;
    mk_rng_seed(&g, seed);
    mk_tt t;
    if (mk_tt_init(&t, MK_BENCH_SOLVE_LOG2) < 0) return -1;
    volatile int sink = 0;
    for (int i = 0; i < count; i++) {
        uint8_t deck[32];
        shuffle_deck(deck, &g);
        mk_deal d;
        mk_deal_init(&d, deck, (int)mk_rng_below(&g, 2), r);
        while (!mk_stock_empty(&d)) {
            uint64_t m = mk_legal(&d);
            mk_play(&d, mk_nth_bit(m, mk_rng_below(&g, (uint32_t)mk_popcount64(m))));
        }
        mk_tt_clear(&t);
        uint32_t best;
        double start = mk_now();
        sink += mk_solve_ending(&d, &t, &best);
        times[i] = mk_now() - start;
    }
    (void)sink;
    mk_tt_free(&t);
    return 0;
}
