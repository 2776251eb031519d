/*
 * vecenv.h -- batched research environments in C (marjolet.rl.vector).
 *
 * A batch of independent episodes ("slots"), each exactly what
 * marjolet.rl.gym.SingleAgentEnv (one agent seat against the random or
 * heuristic bot) or marjolet.rl.marjolet_v0 (both seats are agents) plays:
 * the same seed stream (pyrand.h), decks, dealer, opponent moves, rewards
 * (marjolet.rl.episode), observation tensor (marjolet.rl.encoder) and
 * legal-action mask. Plain C, no Python: the binding (vecenv_binding.c)
 * hands in the caller's arrays in an mk_venv_out.
 *
 * One mk_venv_step advances every slot by one agent action, with the
 * autoreset mode of Gymnasium 1.x chosen in the config:
 *   NEXT_STEP  the step that ends an episode returns its last observation
 *              and an all-zero mask (nothing is legal); the next step of
 *              that slot ignores its action and starts a new episode
 *              (reward 0, not terminated);
 *   SAME_STEP  the step that ends an episode writes the last observation
 *              into final_obs and at once starts a new episode, whose
 *              first observation and mask it returns;
 *   DISABLED   stepping a finished slot is an error; mk_venv_reset_slot.
 */
#ifndef MARJOLET_VECENV_H
#define MARJOLET_VECENV_H

#include "kernel.h"
#include "pyrand.h"

#define MK_OBS_SIZE 335

enum { MK_REWARD_DEAL = 0, MK_REWARD_DENSE = 1, MK_REWARD_MATCH = 2 };
enum { MK_OPP_RANDOM = 0, MK_OPP_HEURISTIC = 1, MK_OPP_NONE = 2 /* both seats agents */ };
enum { MK_RESET_NEXT_STEP = 0, MK_RESET_SAME_STEP = 1, MK_RESET_DISABLED = 2 };

typedef struct mk_venv_config {
    mk_rules rules;
    int target;          /* match target (R22), > 0 */
    int reward;          /* MK_REWARD_* */
    int opponent;        /* MK_OPP_*; MK_OPP_NONE: two-seat self-play */
    int fixed_seat;      /* the agent's seat 0/1, or -1: drawn each episode */
    int autoreset;       /* MK_RESET_* */
    int illegal_raise;   /* 1: an illegal action is an error, 0: it loses */
    double worst;        /* the reward of an illegal action (lose mode) */
} mk_venv_config;

typedef struct mk_slot { /* what a step reads first, the generators' states last */
    mk_deal d;
    uint64_t match_seed;
    int32_t totals[2];   /* completed deals of the match (R21, R22) */
    int32_t paid;        /* dense: points difference already paid out */
    int32_t deal_index;
    double pending;      /* reward the opponent earned before the agent's first move */
    int8_t first_dealer, seat, winner, done, needs_reset, illegal, last_mover;
    mk_pyhead bot;       /* the random opponent's generator (Bot.rng) */
    mk_pyrand stream;    /* SeedStream: the seeds of successive episodes */
} mk_slot;

/* The caller's arrays, n slots (rows in slot order). reward has 2 entries
 * a slot in two-seat mode (player 0, player 1), else 1 (the agent's). */
typedef struct mk_venv_out {
    const int64_t *actions; /* n */
    float *obs;             /* n * MK_OBS_SIZE */
    int8_t *mask;           /* n * MK_ACTION_COUNT */
    double *reward;         /* n or 2n */
    uint8_t *terminated;    /* n */
    int8_t *seat;           /* n: the agent's seat / the seat of obs */
    float *final_obs;       /* n * MK_OBS_SIZE (SAME_STEP: the last observation) */
    int8_t *final_seat;     /* n */
    int32_t *deal_points;   /* 2n: at an episode's end (mine, other's / p0, p1) */
    int32_t *totals;        /* 2n: at an episode's end, the match totals */
    int8_t *winner;         /* n: at an episode's end (1 agent / 0 opponent / -1; two-seat: seat) */
    uint8_t *illegal;       /* n: the episode ended on an illegal action */
} mk_venv_out;

/* Episodes start in chunks of MK_VENV_CHUNK, their generators seeded
 * together (pyrand.h: mk_pyrand_heads). */
#define MK_VENV_CHUNK (MK_LANES * MK_HEAD_VECS)

/* The scratch memory of a batch (the caller's, one per batch: no globals). */
typedef struct mk_venv_work {
    mk_pyrand_work seeding;
    mk_pyhead dealer[MK_VENV_CHUNK], deck[MK_VENV_CHUNK];
    int pending[MK_VENV_CHUNK]; /* slots whose new episode waits for the chunk */
    int n_pending;
} mk_venv_work;

/* The observation tensor of `seat` (marjolet.rl.encoder.encode). */
void mk_encode(const mk_deal *d, int seat, const int32_t totals[2], int target, float *out);
/* Seed a slot's stream as random.Random(n), n given as words (pyrand.h). */
void mk_venv_seed(mk_slot *s, const uint32_t *key, size_t n_words);
/* A new episode in slot i (from its stream), written to row i of out. */
void mk_venv_reset_slot(const mk_venv_config *c, mk_slot *slots, int i, const mk_venv_out *out,
                        mk_venv_work *w);
/* The first slot whose action would be refused (illegal in raise mode, or a
 * finished slot in DISABLED mode), or -1: checked before any slot moves. */
int mk_venv_refused(const mk_venv_config *c, const mk_slot *slots, int n, const int64_t *actions);
/* One step of every slot (call mk_venv_refused first); returns the number
 * of episodes that ended in it. The episodes that start in the step start
 * together, after the other slots have moved (slots are independent: the
 * results are those of one slot at a time). */
int mk_venv_step(const mk_venv_config *c, mk_slot *slots, int n, const mk_venv_out *out,
                  mk_venv_work *w);

#endif
