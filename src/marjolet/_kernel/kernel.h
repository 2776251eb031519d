/*
 * kernel.h -- the C API of marjolet._kernel, shared by every kernel file.
 *
 * Plain C11, no globals that change: every function works on structs the
 * caller owns, so the code is re-entrant (one mk_tt per thread / search).
 *
 * Files:
 *   state.c          deal state, legal actions, play, scoring (rules R4-R21)
 *   playout.c        RNG, random and heuristic playouts
 *   solver.c         exact ending solver (tricks 11-16) and exact
 *                    perfect-information search from late phase 1
 *   bench.c          timed loops behind `marjolet bench` (kernel figures)
 *   module.c         the CPython binding: types Deal, Table, core methods
 *   search_binding.c the search methods (filled by the best-bot work)
 *   binding.h        the Python object layouts shared by the binding files
 *
 * Conventions
 *   - Cards are 0-31 (suit*8 + rank, ranks 7 8 9 J Q K T A = 0..7), card
 *     sets are uint32_t masks, exactly as in marjolet/cards.py.
 *   - Action ids are those of marjolet/actions.py: 0-31 play a card,
 *     32-43 declare meld id (a-32) in MELD_NAMES order (4A 4T 4K 4Q KQC KQD
 *     KQH KQS JQC JQD JQH JQS), 44 dix, 45 draw.  A legal-action set is a
 *     uint64_t with bit a set for each legal action a.
 *   - mk_deal is a small flat struct: "undo" is a struct copy
 *     (mk_deal saved = *d; ... *d = saved;).
 *   - Values are final deal-score differences from the point of view of the
 *     player to move (points already scored included), as `marjolet solve`.
 *
 * Change log of this header (changes after the first published version are
 * additive, so code written against an earlier version keeps compiling):
 *   v1  first version.
 *   v1.1 MK_TT_DEFAULT_LOG2 16 (was 18): small tables stay in the cache and
 *        are faster for per-world searches; the exact phase-1 search uses
 *        principal-variation (null-window) probes.
 *   v1.2 mk_heuristic_action is now exactly bots/heuristic.py's policy
 *        (stronger, slower); the earlier cheap policy is mk_fast_action /
 *        mk_fast_playout.
 *   v1.3 mk_sizes_ok.
 *   v1.4 mk_tt caches the trick outcomes of each trump / seven context
 *        (fields trick_ready, trick; set up by mk_tt_init).
 *   v1.5 mk_tt_entry's unused byte is depth: ending entries in buckets of
 *        two, replaced by depth (see the table section).
 *   v1.6 mk_beats and mk_follow_mask: the trick rules (R8, R16) in one place.
 *   v1.7 mk_state_problem (a full consistency check with a message); the
 *        playouts stop after MK_MAX_ACTIONS and return -1 when a state
 *        cannot be played out; mk_tt.node_limit bounds the exact phase-1
 *        search (mk_tt_over_budget).
 *   v1.8 mk_tuned_action, the tuned policy (the heuristic plus a learned
 *        term, policy_weights.h), its features (MK_PF_*) and
 *        mk_policy_record for fitting it.
 *   v1.9 the rule values come from rules_constants.h (generated from the
 *        Python homes: MK_SEVEN_POINTS, MK_LAST_CARD_POINTS, ...); the
 *        unused mk_rules_encyclopedia is gone (the binding always passes
 *        the rules, and the classic profile is the only default).
 */
#ifndef MARJOLET_KERNEL_H
#define MARJOLET_KERNEL_H

#include <stdint.h>
#include <stddef.h>

/* the rule values (MK_STOCK_CARDS, MK_PHASE1_TRICKS, MK_LAST_TRICK, the
 * fixed scores, the classic profile, card points and meld values), written
 * from their Python homes by scripts/rules_header.py */
#include "rules_constants.h"

#define MK_API_VERSION 1

/* ---- action ids (marjolet/actions.py) ----------------------------------- */
#define MK_MELD_BASE 32
#define MK_MELD_COUNT 12
#define MK_DIX 44
#define MK_DRAW 45
#define MK_ACTION_COUNT 46
#define MK_CARD_ACTIONS 0xFFFFFFFFull               /* bits 0-31 */
#define MK_MELD_ACTIONS (0xFFFull << MK_MELD_BASE)  /* bits 32-43 */

#define MK_INF 30000        /* larger than any score difference */
/* more actions than any deal has (32 cards, 10 draws, 12 melds, a dix):
 * the bound of every playout loop */
#define MK_MAX_ACTIONS 64

/* masks of ranks across suits (marjolet/cards.py) */
#define MK_ACES 0x80808080u
#define MK_TENS 0x40404040u
#define MK_KINGS 0x20202020u
#define MK_QUEENS 0x10101010u
#define MK_JACKS 0x08080808u
#define MK_SEVENS 0x01010101u
#define MK_POINT_CARDS (MK_ACES | MK_TENS)
#define MK_SUIT_MASK(s) (0xFFu << (8 * (s)))

/* ---- the two rules of a trick, written once (the twins of marjolet/trick.py:
 * beats and follow_mask; tests/test_kernel_twins.py proves they agree) ---- */
/* R8: 1 if `answer`, played on `lead`, wins the trick: a higher card of the
 * suit led, or a trump on a lead of another suit. Branch-free: it sits in
 * the heuristic's card loops, where branches on the card were mispredicted. */
static inline int mk_beats(int lead, int answer, int trump) {
    int same = answer >> 3 == lead >> 3;
    return (same & (answer > lead)) | (!same & (answer >> 3 == trump));
}
/* R16: the cards of `hand` that may answer `lead` in tricks 11-16: a higher
 * card of the suit led if it has one, else any card of that suit, else a
 * trump, else any card. */
static inline uint32_t mk_follow_mask(int lead, uint32_t hand, int trump) {
    uint32_t suit = hand & MK_SUIT_MASK(lead >> 3);
    if (suit) {
        uint32_t over = suit & ~((2u << lead) - 1);
        return over ? over : suit;
    }
    uint32_t trumps = hand & MK_SUIT_MASK(trump);
    return trumps ? trumps : hand;
}

/* ---- bit counting: the popcnt instruction when the target has it, else
 * a branch-free SWAR count (a libgcc call would be far slower) ---------- */
static inline int mk_popcount32(uint32_t x) {
#if defined(__POPCNT__)
    return __builtin_popcount(x);
#else
    x = x - ((x >> 1) & 0x55555555u);
    x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
    return (int)((((x + (x >> 4)) & 0x0F0F0F0Fu) * 0x01010101u) >> 24);
#endif
}
static inline int mk_popcount64(uint64_t x) {
    return mk_popcount32((uint32_t)x) + mk_popcount32((uint32_t)(x >> 32));
}

/* ---- rules: every setting of rules.md that matters inside a deal -------- */
typedef struct mk_rules {
    uint8_t pattern_222;     /* 0: deal 3-3, 1: deal 2-2-2 (R4) */
    uint8_t dix_on_play;     /* 1: unexchanged seven scores 10 when played (R19) */
    uint8_t same_suit;       /* 1: jack_queen = same-suit, 0: trump-jack (R11) */
    uint8_t one_meld;        /* 1: one_meld_per_window */
    int16_t all_tricks_bonus;/* R17's bonus (rules.py); 0..MK_MAX_BONUS */
} mk_rules;

#define MK_MAX_BONUS 1000

/* ---- the deal: mirrors the 21-int state list of engine.py --------------- */
typedef struct mk_deal {
    uint32_t hand[2];       /* cards in hand, exposed ones included */
    uint32_t exposed[2];    /* shown by melds, still in hand (R13) */
    uint32_t won[2];        /* cards captured */
    int16_t points[2];      /* deal points so far (R21) */
    uint16_t melds[2];      /* bit m: meld id m scored (R12) */
    uint8_t late[2];        /* tricks 11-16 won (R17) */
    uint8_t tricks;         /* completed tricks 0-16 */
    int8_t lead;            /* card led to the current trick, or -1 */
    int8_t turn;            /* player to act, -1 once the deal is over */
    uint8_t window;         /* 1 while turn's meld window is open (R9) */
    uint8_t window_melds;   /* declarations made in the open window */
    uint8_t indicator;      /* face-up card (the seven after a dix) */
    int8_t seven_by;        /* who earned the seven of trumps' 10, or -1 */
    int8_t last_card_to;    /* who took the last stock card (R15), or -1 */
    int8_t last_winner;     /* winner of the latest trick, or -1 */
    uint8_t trump;          /* suit of turned_up */
    uint8_t seven;          /* the seven of trumps: trump*8 */
    uint8_t turned_up;      /* the card turned up at the deal (R5) */
    uint8_t dealer;
    int8_t stock[MK_STOCK_CARDS]; /* hidden stock in draw order, -1 unknown */
    mk_rules rules;
} mk_deal;

/* ---- state.c ------------------------------------------------------------ */
/* meld_cards[same_suit][trump][m], meld_values[trump][m] (melds.py; the
 * values and the card points from rules_constants.h) */
extern const uint32_t mk_meld_cards[2][4][MK_MELD_COUNT];
extern const int16_t mk_meld_values[4][MK_MELD_COUNT];
extern const int8_t mk_card_points[32];

/* The classic profile (rules.CLASSIC): the rules when none are given. */
void mk_rules_classic(mk_rules *r);
/* Deal from a deck order (R4, R5). Returns 0, or -1 if deck is not a
 * permutation of 0..31 or dealer not 0/1 (d is then unspecified). */
int mk_deal_init(mk_deal *d, const uint8_t deck[32], int dealer, const mk_rules *r);
/* Legal actions of the player to act as a bit set (0 once over). */
uint64_t mk_legal(const mk_deal *d);
/* The cards the player to act may play (0 in a window or at the end). */
uint32_t mk_legal_cards(const mk_deal *d);
/* 1 if action is legal here (any int accepted). */
int mk_is_legal(const mk_deal *d, int action);
/* Apply a LEGAL action (unchecked, like Deal.push). */
void mk_play(mk_deal *d, int action);
/* 1 in phase 2 (stock empty: after the draw of trick 10). */
static inline int mk_stock_empty(const mk_deal *d) {
    return d->tricks > MK_PHASE1_TRICKS || (d->tricks == MK_PHASE1_TRICKS && !d->window);
}
static inline int mk_over(const mk_deal *d) { return d->turn < 0; }
static inline int mk_turn(const mk_deal *d) { return d->turn; }
/* points[player] - points[other] */
static inline int mk_diff(const mk_deal *d, int player) {
    return d->points[player] - d->points[player ^ 1];
}
/* The meld ids the player to act could declare now (window open), bit m. */
unsigned mk_meld_options(const mk_deal *d);
/* Internal consistency check (tests / debug): 0 ok, else a code > 0. */
int mk_deal_check(const mk_deal *d);
/* The full check of a state built from its parts (v1.7): NULL when it is
 * consistent, else what is wrong (a static string). Beyond mk_deal_check:
 * no card in two places (hands, tricks won, the lead, the indicator while
 * the stock lasts, the known stock cards still to draw), no known stock
 * card twice, the turn and the trick count in step, the seven's status
 * matching an exchanged indicator. Hands may be short and stock cards
 * unknown (-1): a sampled or public deal; the searches and playouts check
 * completeness themselves (mk_sizes_ok, mk_stock_known). */
const char *mk_state_problem(const mk_deal *d);
/* 1 if both hands have the sizes the trick count implies (every card of
 * both hands known): required by the searches and playouts (v1.3). */
int mk_sizes_ok(const mk_deal *d);

/* ---- playout.c ---------------------------------------------------------- */
typedef struct mk_rng { uint64_t s[4]; } mk_rng;   /* xoshiro256** */
void mk_rng_seed(mk_rng *g, uint64_t seed);
static inline uint64_t mk_rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
static inline uint64_t mk_rng_next(mk_rng *g) {
    uint64_t *s = g->s;
    uint64_t r = mk_rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0]; s[3] ^= s[1]; s[1] ^= s[2]; s[0] ^= s[3]; s[2] ^= t;
    s[3] = mk_rotl(s[3], 45);
    return r;
}
/* uniform in [0, n), n >= 1 (Lemire's multiply-shift, negligible bias) */
static inline uint32_t mk_rng_below(mk_rng *g, uint32_t n) {
    return (uint32_t)(((mk_rng_next(g) >> 32) * (uint64_t)n) >> 32);
}
/* the index of the k-th set bit of m (k < popcount(m)) */
static inline int mk_nth_bit(uint64_t m, unsigned k) {
    while (k--) m &= m - 1;
    return __builtin_ctzll(m);
}
/* A uniformly random legal action (-1 if the deal is over). */
int mk_random_action(const mk_deal *d, mk_rng *g);
/* Play uniform random legal actions to the end; returns actions played.
 * Every playout stops after MK_MAX_ACTIONS actions or when no action is
 * possible, and then returns -1 (an inconsistent state, v1.7). */
int mk_random_playout(mk_deal *d, mk_rng *g);
/* The heuristic policy of bots/heuristic.py, decision for decision (the
 * agreement tests check it): melds and dix at once, keep values, lead and
 * follow by expected value, greedy ending lines. It reads only what the
 * mover may know (R23), so it plays the same on a world as on the truth. */
int mk_heuristic_action(const mk_deal *d, mk_rng *g);
/* Heuristic actions until the deal is over (stop_at_ending = 0) or the
 * stock is empty (stop_at_ending = 1); returns actions played. */
int mk_heuristic_playout(mk_deal *d, mk_rng *g, int stop_at_ending);

/* The tuned policy: the heuristic with a learned term added to each card's
 * value in tricks 1-10 (playout.c; the weights: policy_weights.h). */
int mk_tuned_action(const mk_deal *d, mk_rng *g);

/* The feature offsets of the tuned policy's learned term (playout.c's
 * h_features documents each block); MK_PF_COUNT weights in all. */
#define MK_PF_CARD 0     /* leader x trump x rank: 32 */
#define MK_PF_TRICK 32   /* leader x trick (0-9) x class (trump, ten/ace, low): 60 */
#define MK_PF_MASTER 92  /* master of its suit x leader x trump: 8 */
#define MK_PF_LENGTH 100 /* its suit's length in hand (1-4+) x trump x leader: 16 */
#define MK_PF_LOSS 116   /* meld pieces it breaks (4 buckets) x leader: 8 */
#define MK_PF_TRUMPS 124 /* trumps in hand (0-5+) x trump x leader: 24 */
#define MK_PF_TAKE 148   /* leader: chance the lead is taken (5 buckets) x class: 15 */
#define MK_PF_GAIN 163   /* window gain (3 buckets) x (lose, win, lead): 9 */
#define MK_PF_WIN 172    /* follower: wins x trump x rank: 32 */
#define MK_PF_LED 204    /* follower: wins x led card trump x led rank: 32 */
#define MK_PF_LAST 236   /* follower, trick 10: wins x indicator a ten or ace: 4 */
#define MK_PF_COUNT 240
#define MK_PF_MAX 10     /* features of one card at most */

/* One decision's record for fitting the learned term: every card of the
 * hand, its heuristic value and its feature indices. */
typedef struct {
    int card, n;
    double value;
    int idx[MK_PF_MAX];
} mk_pfcard;
typedef struct {
    int n;
    mk_pfcard cards[8];
} mk_pfrecord;

/* Fill rec for the mover of d in tricks 1-10 (the heuristic's values and
 * the features; no learned term): the heuristic's card, or -1 elsewhere. */
int mk_policy_record(const mk_deal *d, mk_pfrecord *rec);
/* A cheaper, weaker policy (v1.2): integer keep values, no probabilities;
 * several times faster than the heuristic, about 8 points a deal weaker. */
int mk_fast_action(const mk_deal *d, mk_rng *g);
int mk_fast_playout(mk_deal *d, mk_rng *g, int stop_at_ending);

/* ---- solver.c: transposition table -------------------------------------- */
/*
 * One entry is 32 bytes. Keys (k1, k2, k3) identify a position exactly:
 *   ending entries (phase 2, at a trick boundary):
 *     k1 = leader's hand | follower's hand << 32
 *     k2 = MK_TAG_ENDING | sweep code << 2 | trump << 4 | seven pending << 6
 *          | all_tricks_bonus << 8
 *     k3 = 0
 *     (sweep code: bit 0 = the leader has won every trick 11-16 so far,
 *      bit 1 = the follower has; value stored = leader's future score minus
 *      follower's, points already scored excluded)
 *   phase-1 entries (a lead to trick t+1 <= 10, window closed):
 *     k1 = leader's hand | follower's hand << 32
 *     k2 = MK_TAG_PHASE1 | tricks << 2 | seven pending << 6 | exchanged << 7
 *          | rules bits << 8 | bonus << 12 | trump << 24
 *          | leader's melds << 26 | follower's melds << 38
 *     k3 = 64-bit hash of the stock order and turned-up card (the world)
 *     (exact unless two different worlds' hashes collide: 2^-64)
 * Lo/hi are bounds on that value (lo == hi: exact); best is the best first
 * action found (a card), tried first on the next visit.
 * Ending entries live in buckets of two (an even index and the next one,
 * v1.5): a probe looks at both; a new entry replaces an entry of an older
 * generation first, else the one of lower depth (fewer cards: cheaper to
 * search again). Phase-1 entries keep one slot each (any index).
 * Clearing is O(1): entries carry the generation they were written in.
 */
#define MK_TAG_ENDING 1ull
#define MK_TAG_PHASE1 2ull
typedef struct mk_tt_entry {
    uint64_t k1, k2, k3;
    int16_t lo, hi;
    uint8_t best;
    uint8_t depth;          /* replacement priority (v1.5): cards a hand of an
                               ending entry, 16 for a phase-1 entry */
    uint16_t gen;
} mk_tt_entry;

/* the outcome of one trick for the ending solver: the leader's gain and
 * whether the leader wins (a cache kept in the table, per context) */
typedef struct mk_trick { int8_t gain, wins; } mk_trick;

typedef struct mk_tt {
    mk_tt_entry *entries;
    uint64_t mask;          /* entries - 1 (a power of two) */
    uint16_t gen;           /* current generation (entries of others: empty) */
    uint64_t nodes;         /* positions searched (statistics) */
    uint64_t node_limit;    /* v1.7: the exact phase-1 search gives up once nodes
                               passes this (0 = no limit; mk_tt_init sets 0) */
    uint8_t trick_ready;    /* bit trump | seven pending << 2: trick[] filled (v1.4) */
    mk_trick trick[8][32 * 32]; /* [context][lead << 5 | answer] */
} mk_tt;

#define MK_TT_MIN_LOG2 10
#define MK_TT_MAX_LOG2 26
#define MK_TT_DEFAULT_LOG2 16
/* Allocate 2^log2_entries entries (clamped to the limits); 0 ok, -1 no memory. */
int mk_tt_init(mk_tt *t, unsigned log2_entries);
void mk_tt_free(mk_tt *t);
/* Forget every entry (O(1) except once every 65535 clears). */
void mk_tt_clear(mk_tt *t);

/* ---- solver.c: exact searches ------------------------------------------- */
/* Ending solver: d must be in phase 2 (mk_stock_empty) and not over, at a
 * trick boundary or mid-trick.  Returns the exact value; if best != NULL
 * it receives the mask of every optimal card. */
int mk_solve_ending(const mk_deal *d, mk_tt *t, uint32_t *best);
/* Exact value of playing card c (legal) in the phase-2 position d. */
int mk_ending_action_value(const mk_deal *d, mk_tt *t, int c);
/* Fail-soft alpha-beta value of a phase-2 position: exact when strictly
 * inside (alpha, beta), else a bound on that side. */
int mk_ending_value(const mk_deal *d, mk_tt *t, int alpha, int beta);

/* Exact perfect-information search of any position that is not over (phase
 * 1 with the whole stock known, windows included, or phase 2): the value;
 * if best != NULL it receives the set of every optimal action.  The stock
 * entries still to be drawn must all be known (>= 0). Cost grows quickly
 * with the phase-1 tricks left: meant for the last 2-4 tricks of phase 1. */
int mk_search_exact(const mk_deal *d, mk_tt *t, uint64_t *best);
/* Exact value of the legal action a in d (same conditions). */
int mk_exact_action_value(const mk_deal *d, mk_tt *t, int a);
/* Fail-soft alpha-beta value of d (same conditions). */
int mk_exact_value(const mk_deal *d, mk_tt *t, int alpha, int beta);
/* 1 if every stock card still to be drawn in d is known. */
int mk_stock_known(const mk_deal *d);
/* 1 once a search with a node_limit has passed it: its results are then
 * meaningless and the caller reports the budget as spent (v1.7). */
static inline int mk_tt_over_budget(const mk_tt *t) {
    return t->node_limit && t->nodes > t->node_limit;
}

#endif
