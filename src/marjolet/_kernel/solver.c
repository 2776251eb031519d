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

/* ==== table probes ======================================================= */

static inline uint64_t tt_hash(uint64_t k1, uint64_t k2, uint64_t k3) {
    uint64_t h = k1 * 0x9E3779B97F4A7C15ull ^ (k2 + 0x632BE59BD9B4E019ull) * 0xC2B2AE3D27D4EB4Full;
    h ^= k3;
    h ^= h >> 29;
    h *= 0xBF58476D1CE4E5B9ull;
    return h ^ (h >> 32);
}

static inline mk_tt_entry *tt_slot(mk_tt *t, uint64_t k1, uint64_t k2, uint64_t k3) {
    return &t->entries[tt_hash(k1, k2, k3) & t->mask];
}

static inline int tt_match(const mk_tt *t, const mk_tt_entry *e, uint64_t k1, uint64_t k2,
                           uint64_t k3) {
    return e->gen == t->gen && e->k1 == k1 && e->k2 == k2 && e->k3 == k3;
}

/* store the result `best` of a search of window (a0, b0) (fail-soft) */
static inline void tt_store(mk_tt *t, mk_tt_entry *e, uint64_t k1, uint64_t k2, uint64_t k3,
                            int had, int lo, int hi, int best, int a0, int b0, int move) {
    if (!had) {
        lo = -MK_INF;
        hi = MK_INF;
    }
    if (best <= a0) {
        if (best < hi) hi = best;
    } else if (best >= b0) {
        if (best > lo) lo = best;
    } else {
        lo = hi = best;
    }
    e->k1 = k1;
    e->k2 = k2;
    e->k3 = k3;
    e->lo = (int16_t)lo;
    e->hi = (int16_t)hi;
    e->best = (uint8_t)move;
    e->gen = t->gen;
}

/* ==== the ending solver (tricks 11-16) =====================================
 * A position is the leader's hand hl, the follower's hand hf (equal sizes)
 * and the sweep code; values are the leader's future score minus the
 * follower's. Alpha-beta a trick at a time: the leader maximises over
 * leads, the follower minimises over its legal answers (R16). Equivalent
 * cards (two cards of one suit with nothing in play between them and the
 * same point class) give the same result, so only one of each run is
 * searched (as bots/solver.py does). */

typedef struct {
    mk_tt *t;
    uint32_t tmask;
    int trump;
    int seven;       /* the seven of trumps if it still scores when played, else -1 */
    int bonus;
    uint64_t k2base; /* MK_TAG_ENDING | trump | pending | bonus */
} ectx;

static void ectx_init(ectx *c, const mk_deal *d, mk_tt *t) {
    int pending = d->rules.dix_on_play && d->seven_by < 0;
    c->t = t;
    c->trump = d->trump;
    c->tmask = MK_SUIT_MASK(d->trump);
    c->seven = pending ? d->seven : -1;
    c->bonus = d->rules.all_tricks_bonus;
    c->k2base = MK_TAG_ENDING | (uint64_t)d->trump << 4 | (uint64_t)pending << 6 |
                (uint64_t)d->rules.all_tricks_bonus << 8;
}

/* point class of a card: 1 ace/ten, 2 a seven that still scores, else 0 */
static inline int e_class(const ectx *c, int card) {
    return (int)(MK_POINT_CARDS >> card & 1) | (card == c->seven) << 1;
}

/* the cards of own left after merging runs of equivalent cards */
static inline uint32_t e_reps(const ectx *c, uint32_t own, uint32_t others) {
    uint32_t both = own | others, out = 0, m = own;
    while (m) {
        int card = __builtin_ctz(m);
        m &= m - 1;
        uint32_t above = both & ~((2u << card) - 1) & MK_SUIT_MASK(card >> 3);
        if (above) {
            int a = __builtin_ctz(above);
            if ((own >> a & 1) && e_class(c, a) == e_class(c, card)) continue;
        }
        out |= 1u << card;
    }
    return out;
}

/* the follower's legal answers to lead (R16) */
static inline uint32_t e_follow(const ectx *c, int lead, uint32_t hf) {
    uint32_t suit = hf & MK_SUIT_MASK(lead >> 3);
    if (suit) {
        uint32_t over = suit & ~((2u << lead) - 1);
        return over ? over : suit;
    }
    uint32_t tr = hf & c->tmask;
    return tr ? tr : hf;
}

static inline int e_leader_wins(const ectx *c, int lead, int ans) {
    return (ans >> 3 == lead >> 3) ? ans < lead : (ans >> 3 != c->trump);
}

/* the trick's value to the leader before what follows: cards and the seven */
static inline int e_trick_gain(const ectx *c, int lead, int ans, int wins) {
    int pts = mk_card_points[lead] + mk_card_points[ans];
    int diff = (lead == c->seven) ? 10 : (ans == c->seven) ? -10 : 0;
    return diff + (wins ? pts : -pts);
}

/* trick 16, one card each (forced) */
static inline int e_last(const ectx *c, uint32_t hl, uint32_t hf, int code) {
    int lead = __builtin_ctz(hl), ans = __builtin_ctz(hf);
    int wins = e_leader_wins(c, lead, ans);
    int g = e_trick_gain(c, lead, ans, wins);
    if (wins) return g + 10 + ((code & 1) ? c->bonus : 0);
    return g - 10 - ((code & 2) ? c->bonus : 0);
}

/* tricks 15-16, two cards each, exactly */
static int e_two(const ectx *c, uint32_t hl, uint32_t hf, int code) {
    int best = -MK_INF;
    for (uint32_t m = hl; m; m &= m - 1) {
        int lead = __builtin_ctz(m);
        uint32_t hl2 = hl & ~(1u << lead);
        int worst = MK_INF;
        for (uint32_t a = e_follow(c, lead, hf); a; a &= a - 1) {
            int ans = __builtin_ctz(a);
            uint32_t hf2 = hf & ~(1u << ans);
            int wins = e_leader_wins(c, lead, ans);
            int g = e_trick_gain(c, lead, ans, wins);
            int v = wins ? g + e_last(c, hl2, hf2, code & 1) : g - e_last(c, hf2, hl2, code >> 1);
            if (v < worst) worst = v;
        }
        if (worst > best) best = worst;
    }
    return best;
}

static int e_value(const ectx *c, uint32_t hl, uint32_t hf, int code, int alpha, int beta);

/* the leader's value after lead is answered by ans (hands without them) */
static inline int e_after(const ectx *c, int lead, int ans, uint32_t hl, uint32_t hf, int code,
                          int alpha, int beta) {
    int wins = e_leader_wins(c, lead, ans);
    int g = e_trick_gain(c, lead, ans, wins);
    if (!hl) { /* that was trick 16 */
        if (wins) return g + 10 + ((code & 1) ? c->bonus : 0);
        return g - 10 - ((code & 2) ? c->bonus : 0);
    }
    if (wins) return g + e_value(c, hl, hf, code & 1, alpha - g, beta - g);
    return g - e_value(c, hf, hl, code >> 1, g - beta, g - alpha);
}

static int e_value(const ectx *c, uint32_t hl, uint32_t hf, int code, int alpha, int beta) {
    c->t->nodes++;
    uint32_t rest = hl & (hl - 1);
    if (!rest) return e_last(c, hl, hf, code);
    if (!(rest & (rest - 1))) return e_two(c, hl, hf, code);
    uint64_t k1 = (uint64_t)hl | (uint64_t)hf << 32;
    uint64_t k2 = c->k2base | (uint64_t)code << 2;
    mk_tt_entry *e = tt_slot(c->t, k1, k2, 0);
    int had = tt_match(c->t, e, k1, k2, 0), lo = 0, hi = 0, first = -1;
    if (had) {
        lo = e->lo;
        hi = e->hi;
        first = e->best;
        if (lo >= beta) return lo;
        if (hi <= alpha) return hi;
        if (lo == hi) return lo;
        if (lo > alpha) alpha = lo;
        if (hi < beta) beta = hi;
    }
    int a0 = alpha, b0 = beta;
    int best = -MK_INF, best_lead = 0;
    uint32_t leads = e_reps(c, hl, hf);
    int order[8], n = 0;
    if (first >= 0 && (leads >> first & 1)) {
        order[n++] = first;
        leads &= ~(1u << first);
    }
    while (leads) { /* then from the highest card down */
        int card = 31 - __builtin_clz(leads);
        leads &= ~(1u << card);
        order[n++] = card;
    }
    for (int i = 0; i < n; i++) {
        int lead = order[i];
        uint32_t hl2 = hl & ~(1u << lead);
        uint32_t answers = e_follow(c, lead, hf);
        if (answers & (answers - 1)) answers &= e_reps(c, hf, hl2 | 1u << lead);
        int floor = best > alpha ? best : alpha;
        int worst = MK_INF;
        for (; answers; answers &= answers - 1) {
            int ans = __builtin_ctz(answers);
            int ceiling = worst < beta ? worst : beta;
            int v = e_after(c, lead, ans, hl2, hf & ~(1u << ans), code, floor, ceiling);
            if (v < worst) {
                worst = v;
                if (worst <= floor) break;
            }
        }
        if (worst > best) {
            best = worst;
            best_lead = lead;
            if (best >= beta) break;
        }
    }
    tt_store(c->t, e, k1, k2, 0, had, lo, hi, best, a0, b0, best_lead);
    return best;
}

/* the root of a phase-2 position in the solver's terms */
typedef struct {
    int p, leader, lead, code, base;
    uint32_t hl, hf;
} eroot;

static void eroot_init(eroot *r, const mk_deal *d) {
    r->p = d->turn;
    r->lead = d->lead;
    r->leader = r->lead < 0 ? r->p : r->p ^ 1;
    int wl = d->late[r->leader], wf = d->late[r->leader ^ 1];
    r->code = (wf == 0 ? 1 : 0) | (wl == 0 ? 2 : 0);
    r->base = d->points[r->p] - d->points[r->p ^ 1];
    r->hl = d->hand[r->leader];
    r->hf = d->hand[r->leader ^ 1];
}

/* the mover's future value (points so far excluded) of card a */
static int e_action(const ectx *c, const eroot *r, int a, int alpha, int beta) {
    if (r->lead < 0) {
        uint32_t hl2 = r->hl & ~(1u << a);
        uint32_t answers = e_follow(c, a, r->hf);
        if (answers & (answers - 1)) answers &= e_reps(c, r->hf, hl2 | 1u << a);
        int worst = MK_INF;
        for (; answers; answers &= answers - 1) {
            int ans = __builtin_ctz(answers);
            int v = e_after(c, a, ans, hl2, r->hf & ~(1u << ans), r->code, alpha,
                            worst < beta ? worst : beta);
            if (v < worst) {
                worst = v;
                if (worst <= alpha) break;
            }
        }
        return worst;
    }
    return -e_after(c, r->lead, a, r->hl, r->hf & ~(1u << a), r->code, -beta, -alpha);
}

int mk_ending_action_value(const mk_deal *d, mk_tt *t, int a) {
    ectx c;
    eroot r;
    ectx_init(&c, d, t);
    eroot_init(&r, d);
    return r.base + e_action(&c, &r, a, -MK_INF, MK_INF);
}

int mk_ending_value(const mk_deal *d, mk_tt *t, int alpha, int beta) {
    ectx c;
    eroot r;
    ectx_init(&c, d, t);
    eroot_init(&r, d);
    alpha -= r.base;
    beta -= r.base;
    if (r.lead < 0) return r.base + e_value(&c, r.hl, r.hf, r.code, alpha, beta);
    int best = -MK_INF;
    for (uint32_t m = mk_legal_cards(d); m; m &= m - 1) {
        int v = e_action(&c, &r, __builtin_ctz(m), best > alpha ? best : alpha, beta);
        if (v > best) {
            best = v;
            if (best >= beta) break;
        }
    }
    return r.base + best;
}

int mk_solve_ending(const mk_deal *d, mk_tt *t, uint32_t *best_out) {
    ectx c;
    eroot r;
    ectx_init(&c, d, t);
    eroot_init(&r, d);
    uint32_t legal = mk_legal_cards(d);
    if (!best_out) {
        if (r.lead < 0) return r.base + e_value(&c, r.hl, r.hf, r.code, -MK_INF, MK_INF);
        return mk_ending_value(d, t, -MK_INF, MK_INF);
    }
    /* the best value first (highest card down), then which other cards
     * reach it (null windows), as bots/solver.py's solve does */
    int values[32], best = -MK_INF;
    for (uint32_t m = legal; m;) {
        int a = 31 - __builtin_clz(m);
        m &= ~(1u << a);
        int v = e_action(&c, &r, a, best > -MK_INF ? best - 1 : -MK_INF, MK_INF);
        values[a] = v;
        if (v > best) best = v;
    }
    uint32_t opt = 0;
    for (uint32_t m = legal; m; m &= m - 1) {
        int a = __builtin_ctz(m);
        if (values[a] >= best) opt |= 1u << a;
    }
    *best_out = opt;
    return r.base + best;
}

/* temporary until the phase-1 search lands */
int mk_search_exact(const mk_deal *d, mk_tt *t, uint64_t *best) {
    if (mk_stock_empty(d)) {
        uint32_t b = 0;
        int v = mk_solve_ending(d, t, &b);
        if (best) *best = b;
        return v;
    }
    if (best) *best = 0;
    return 0;
}
int mk_exact_action_value(const mk_deal *d, mk_tt *t, int a) { (void)d; (void)t; (void)a; return 0; }
int mk_exact_value(const mk_deal *d, mk_tt *t, int alpha, int beta) {
    (void)d; (void)t; (void)alpha; (void)beta; return 0;
}
