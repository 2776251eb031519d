/* The sampled-world search of the best bot (search.c). Re-entrant: the
 * caller owns every struct (one mk_tt per search). */
#ifndef MARJOLET_SEARCH_H
#define MARJOLET_SEARCH_H

#include "kernel.h"
#include "sample.h"

/* How a world is scored after a candidate action, before the stock is
 * empty and above the exact horizon. */
enum mj_eval {
    MJ_EVAL_SOLVE = 0,   /* heuristic playout to the last draw, exact ending */
    MJ_EVAL_PLAYOUT = 1, /* heuristic playout to the end of the deal */
    MJ_EVAL_RANDOM = 2,  /* random playout to the last draw, exact ending */
    MJ_EVAL_FAST = 3,    /* heuristic playout to the last draw, then the
                            kernel's cheap fast policy to the end */
    MJ_EVAL_NOISY = 4,   /* as SOLVE, but one card play in noise_in is a
                            random legal card (the playouts explore) */
    MJ_EVAL_TUNED = 5,   /* as NOISY, with the tuned policy (the heuristic
                            with a learned term) instead of the heuristic */
};
#define MJ_EVAL_LAST MJ_EVAL_TUNED
#define MJ_NOISE_IN 8 /* the default noise_in */

typedef struct mj_search_params {
    int seat;         /* the deciding player (to act in the base deal) */
    int exact_tricks; /* solve worlds exactly when this many phase-1 tricks
                         (the current one included) are left; 0 = never */
    int eval;         /* enum mj_eval */
    int noise_in;     /* MJ_EVAL_NOISY: one card play in noise_in is random
                         (0 = none) */
    const double *util; /* NULL, or the utility of a world's outcome:
                           util[mine * MJ_UTIL_SIZE + theirs], final deal
                           points in units of MJ_UTIL_STEP (clamped), e.g.
                           the chance of winning the match from them */
    int paired;       /* 1: the playouts of every action of a world draw the
                         same random numbers (common random numbers: the
                         actions' differences are less noisy) */
} mj_search_params;

#define MJ_UTIL_STEP 10
#define MJ_UTIL_SIZE 64

/* Per-action sums over the worlds, from the seat's point of view: the
 * final deal-score difference (seat minus opponent). */
typedef struct mj_search_acc {
    int n;
    int actions[MK_ACTION_COUNT];
    double sum[MK_ACTION_COUNT];
    double sumsq[MK_ACTION_COUNT];
    double usum[MK_ACTION_COUNT]; /* sums of the utility (with util) */
    long worlds;
} mj_search_acc;

/* Phase-1 tricks still to play in d, the current one included (a trick
 * whose window is open counts: its draw is still to come). */
static inline int mj_tricks_left(const mk_deal *d) {
    return MK_PHASE1_TRICKS - d->tricks + (d->window ? 1 : 0);
}

/* The value for `seat` of a fully known world d (left unchanged). */
int mj_world_value(const mk_deal *d, int seat, const mj_search_params *p, mk_rng *g, mk_tt *t);

/* The final deal points {seat, opponent} of a world valued diff (seat minus
 * opponent at the end) from position `from`: exact when from is over, else
 * from the points still to score (cards not won, last trick, last card, an
 * unplayed seven, the all-six bonus when diff shows a sweep); melds still
 * to be declared are not counted. */
void mj_final_points(const mk_deal *from, int seat, int diff, int out[2]);

/* Fill acc->actions/n from the legal set of base (sums cleared). */
void mj_acc_init(mj_search_acc *acc, uint64_t legal);

/* `worlds` worlds: deal the unseen cards of base (spec), score every
 * action of acc in each and add to the sums. base holds everything the
 * seat knows (opponent hand = its known cards, unknown stock = -1).
 * Returns 0, or -1 if the spec does not fit base. */
int mj_pimc(const mk_deal *base, const mj_sample_spec *spec, const mj_search_params *p,
            mk_rng *g, mk_tt *t, long worlds, mj_search_acc *acc);

#endif
