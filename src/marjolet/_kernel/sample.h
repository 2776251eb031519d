/* Dealing the unseen cards of one seat's observation: the worlds of a
 * sampled-world search (see sample.c). Re-entrant: all state is in the
 * caller's structs. */
#ifndef MARJOLET_SAMPLE_H
#define MARJOLET_SAMPLE_H

#include <stdint.h>

#include "kernel.h"

/* Uniform in [0, 1) from the kernel's generator (kernel.h). */
static inline double mj_rng_unit(mk_rng *r) {
    return (double)(mk_rng_next(r) >> 11) * (1.0 / 9007199254740992.0);
}

#define MJ_STOCK 19
#define MJ_MAX_SOFT 16

/* What the sampler must respect: the observation's unseen cards go into
 * the opponent's hidden hand (opp_missing of them) and the hidden stock
 * positions first_slot..18 (one card each); every other card is known and
 * stays where it is (in the caller's deal).
 *
 * Inference, both optional:
 * - weight[c] (when weighted): the relative odds that unseen card c sits
 *   in the opponent's hand rather than in the stock (1 = no information,
 *   0 = never in the opponent's hand). The hand is drawn card by card in
 *   proportion to the weights.
 * - soft[i] / accept[i]: a world whose opponent hand holds every card of
 *   soft[i] is kept only with probability accept[i] (e.g. "it won a trick
 *   and did not declare this marriage"); rejected worlds are dealt again,
 *   up to a bounded number of tries. */
typedef struct {
    uint32_t unseen;
    int opp_missing;
    int first_slot;
    int weighted;
    double weight[32];
    int n_soft;
    uint32_t soft[MJ_MAX_SOFT];
    double accept[MJ_MAX_SOFT];
} mj_sample_spec;

/* Check that the counts add up: 0 if consistent, -1 otherwise. */
int mj_sample_check(const mj_sample_spec *spec);

/* Deal one world: *opp_hidden receives the opponent's hidden cards (a mask
 * of opp_missing unseen cards) and stock[first_slot..18] the remaining
 * unseen cards in a random order. Returns the number of tries used. */
int mj_sample(const mj_sample_spec *spec, mk_rng *rng, uint32_t *opp_hidden,
              int8_t stock[MJ_STOCK]);

#endif
