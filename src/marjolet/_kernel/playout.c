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

int mk_heuristic_action(const mk_deal *d, mk_rng *g) {
    return mk_random_action(d, g); /* placeholder until the policy lands */
}

int mk_heuristic_playout(mk_deal *d, mk_rng *g, int stop_at_ending) {
    int n = 0;
    while (d->turn >= 0 && !(stop_at_ending && mk_stock_empty(d))) {
        mk_play(d, mk_heuristic_action(d, g));
        n++;
    }
    return n;
}
