/* bench.h -- timed loops behind the kernel figures of `marjolet bench`. */
#ifndef MARJOLET_BENCH_H
#define MARJOLET_BENCH_H
#include "kernel.h"

/* Uniform random legal actions through `deals` whole deals (decks shuffled
 * before the clock starts, as in the engine benchmark; the deal set-up, the
 * legal-move generation and the RNG are timed). Returns seconds (-1: no
 * memory) and the number of actions in *actions. */
double mk_bench_random(const mk_rules *r, int deals, uint64_t seed, long long *actions);
/* `count` random deals played at random to the start of trick 11; each
 * six-card ending solved exactly (value and every optimal card) with a
 * table of 2^MK_BENCH_SOLVE_LOG2 entries (512 KB: a six-card ending has a
 * few hundred positions) cleared before each solve. times[i] = seconds of solve i.
 * Returns 0, or -1 when out of memory. */
#define MK_BENCH_SOLVE_LOG2 14
int mk_bench_solve(const mk_rules *r, int count, uint64_t seed, double *times);
/* Seconds of a monotonic clock. */
double mk_now(void);
#endif
