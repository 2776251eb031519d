/* Weightings of the tuned policy played against a base weighting on the
 * same decks (duel.c): the fitness of a self-play tuning of the policy's
 * weights (benchmarks/tune_policy.py). Re-entrant: the caller owns the
 * table. */
#ifndef MARJOLET_DUEL_H
#define MARJOLET_DUEL_H

#include "kernel.h"

/* k candidate weightings (cand[j], MK_PF_COUNT weights each) each play
 * `decks` random decks against `base` (NULL: the plain heuristic), every
 * deck twice with the seats swapped (duplicate): tricks 1-10 and the meld
 * windows by the policies (one card play in noise_in a random legal card,
 * the same draws for every candidate; 0: none), tricks 11-16 solved exactly for both. The same
 * decks for every candidate (seeded). sum[j] and sumsq[j] receive the sums
 * over the decks of the candidate's mean deal margin of the pair (its deal
 * points minus the base's). Returns 0, or -1 when the table cannot serve. */
int mj_policy_duel(const double *const *cand, int k, const double *base, const mk_rules *r,
                   uint64_t seed, int decks, int noise_in, mk_tt *t, double *sum,
                   double *sumsq);

#endif
