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
    t->node_limit = 0;
    t->trick_ready = 0;
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

/* an ending position's entry in its bucket of two: the one holding it,
 * else the one to replace (an older generation first, then the lower
 * depth: positions of fewer cards are cheaper to search again) */
static inline mk_tt_entry *e_slot(mk_tt *t, uint64_t k1, uint64_t k2) {
    mk_tt_entry *b = &t->entries[tt_hash(k1, k2, 0) & t->mask & ~1ull];
    if (tt_match(t, b, k1, k2, 0)) return b;
    if (tt_match(t, b + 1, k1, k2, 0)) return b + 1;
    if (b[0].gen != t->gen) return b;
    if (b[1].gen != t->gen) return b + 1;
    return b[0].depth <= b[1].depth ? b : b + 1;
}

/* store the result `best` of a search of window (a0, b0) (fail-soft) */
static inline void tt_store(mk_tt *t, mk_tt_entry *e, uint64_t k1, uint64_t k2, uint64_t k3,
                            int had, int lo, int hi, int best, int a0, int b0, int move,
                            int depth) {
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
    e->depth = (uint8_t)depth;
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
    uint32_t seven_bit; /* 1 << seven, or 0 */
    int bonus;
    uint64_t k2base; /* MK_TAG_ENDING | trump | pending | bonus */
    const mk_trick *tricks; /* the table's trick outcomes for this context */
} ectx;

static inline int e_trick_gain(const ectx *c, int lead, int ans, int wins);

static void ectx_init(ectx *c, const mk_deal *d, mk_tt *t) {
    int pending = d->rules.dix_on_play && d->seven_by < 0;
    c->t = t;
    c->trump = d->trump;
    c->tmask = MK_SUIT_MASK(d->trump);
    c->seven = pending ? d->seven : -1;
    c->seven_bit = pending ? 1u << d->seven : 0;
    c->bonus = d->rules.all_tricks_bonus;
    c->k2base = MK_TAG_ENDING | (uint64_t)d->trump << 4 | (uint64_t)pending << 6 |
                (uint64_t)d->rules.all_tricks_bonus << 8;
    int ctx = d->trump | pending << 2;
    if (!(t->trick_ready >> ctx & 1)) { /* once per trump / seven context */
        for (int lead = 0; lead < 32; lead++)
            for (int ans = 0; ans < 32; ans++) {
                int w = !mk_beats(lead, ans, c->trump);
                t->trick[ctx][lead << 5 | ans].wins = (int8_t)w;
                t->trick[ctx][lead << 5 | ans].gain = (int8_t)e_trick_gain(c, lead, ans, w);
            }
        t->trick_ready |= (uint8_t)(1u << ctx);
    }
    c->tricks = t->trick[ctx];
}

/* the cards of `among` (a subset of own) left after merging runs of
 * equivalent cards of own: a card is dropped when the next card above it
 * in its suit among own | others is also own's and of the same point class
 * (only tens and aces score), unless it is the pending seven. Bit-parallel
 * (this runs at every node): a fill down through the absent cards finds,
 * for each position, whether the next present card above is own's. */
static inline uint32_t e_reps_of(const ectx *c, uint32_t own, uint32_t others, uint32_t among) {
    const uint32_t low = 0x3F3F3F3Fu;    /* ranks 7-K: no points */
    const uint32_t below_k = 0x1F1F1F1Fu; /* ranks 7-Q: a no-point card above in the suit */
    uint32_t gen = own & low, pro = ~(own | others) & below_k;
    /* occluded fill downwards: gen gains p when p is absent and p + 1 is in gen */
    gen |= pro & (gen >> 1);
    pro &= pro >> 1;
    gen |= pro & (gen >> 2);
    pro &= pro >> 2;
    gen |= pro & (gen >> 4);
    /* no-point cards whose next present card above is own's and scoreless,
     * and tens under an own ace */
    uint32_t dup = ((gen >> 1) & below_k) | ((own & MK_ACES) >> 1);
    return among & ~(dup & ~c->seven_bit);
}

static inline uint32_t e_reps(const ectx *c, uint32_t own, uint32_t others) {
    return e_reps_of(c, own, others, own);
}

/* the leader's cards that win the trick whatever the follower answers
 * (R16): above every follower's card of their suit when it has some (in
 * trumps: or no trump at all), or any card when it has neither the suit
 * nor a trump. Bit-parallel: f fills each suit of hf downwards. */
static inline uint32_t e_sure_winners(const ectx *c, uint32_t hl, uint32_t hf) {
    uint32_t f = hf;
    f |= (f >> 1) & 0x7F7F7F7Fu;
    f |= (f >> 2) & 0x3F3F3F3Fu;
    f |= (f >> 4) & 0x0F0F0F0Fu;
    uint32_t held = (f & 0x01010101u) * 0xFFu; /* the suits the follower holds */
    uint32_t out = hl & ~f & (held | c->tmask);
    if (!(hf & c->tmask)) out |= hl & ~held;
    return out;
}


/* the trick lead-ans from the table: the leader's gain (cards and the
 * seven), *wins = whether the leader takes it */
static inline int e_trick(const ectx *c, int lead, int ans, int *wins) {
    const mk_trick *t = &c->tricks[lead << 5 | ans];
    *wins = t->wins;
    return t->gain;
}

/* the trick's value to the leader before what follows: cards and the seven */
static inline int e_trick_gain(const ectx *c, int lead, int ans, int wins) {
    int pts = mk_card_points[lead] + mk_card_points[ans];
    int diff = (lead == c->seven) ? MK_SEVEN_POINTS : (ans == c->seven) ? -MK_SEVEN_POINTS : 0;
    return diff + (wins ? pts : -pts);
}

/* trick 16, one card each (forced) */
static inline int e_last(const ectx *c, uint32_t hl, uint32_t hf, int code) {
    int lead = __builtin_ctz(hl), ans = __builtin_ctz(hf);
    int wins, g = e_trick(c, lead, ans, &wins);
    if (wins) return g + MK_LAST_TRICK_POINTS + ((code & 1) ? c->bonus : 0);
    return g - MK_LAST_TRICK_POINTS - ((code & 2) ? c->bonus : 0);
}

/* Bounds of the value of (hl, hf, code): every card point still in play,
 * the last trick's 10, the sweep bonus and the seven's 10 can go to one
 * side at most. Returns 1 when they settle a search of (alpha, beta):
 * *v is then a fail-soft result (the bound on the side it fails). */
static inline int e_bounded(const ectx *c, uint32_t hl, uint32_t hf, int code, int alpha, int beta,
                            int *v) {
    uint32_t both = hl | hf;
    uint32_t tens = (both >> 6) & 0x01010101u, aces = (both >> 7) & 0x01010101u;
    int pts = MK_POINT_CARD_POINTS * (int)(((tens + aces) * 0x01010101u) >> 24) +
              MK_LAST_TRICK_POINTS;
    int hi = pts + ((code & 1) ? c->bonus : 0) + ((hl & c->seven_bit) ? MK_SEVEN_POINTS : 0);
    if (hi <= alpha) {
        *v = hi;
        return 1;
    }
    int lo = -pts - ((code & 2) ? c->bonus : 0) - ((hf & c->seven_bit) ? MK_SEVEN_POINTS : 0);
    if (lo >= beta) {
        *v = lo;
        return 1;
    }
    return 0;
}

/* append the cards of `cards` to order[n..], highest first; returns the new n */
static inline int e_push_high_first(uint32_t cards, int *order, int n) {
    for (; cards; n++) {
        order[n] = 31 - __builtin_clz(cards);
        cards &= ~(1u << order[n]);
    }
    return n;
}

/* the search order of the leads (cards of hl): those that surely win the
 * trick, then the others, each from the highest card down; appended to
 * order[n..], returns the new n */
static inline int e_lead_order(const ectx *c, uint32_t hl, uint32_t hf, uint32_t leads, int *order,
                               int n) {
    uint32_t sure = leads & e_sure_winners(c, hl, hf);
    n = e_push_high_first(sure, order, n);
    return e_push_high_first(leads & ~sure, order, n);
}

/* tricks 15-16, two cards each (fail-soft: exact inside (alpha, beta)) */
static int e_two(const ectx *c, uint32_t hl, uint32_t hf, int code, int alpha, int beta) {
    int best = -MK_INF;
    for (uint32_t m = hl; m; m &= m - 1) {
        int lead = __builtin_ctz(m);
        uint32_t hl2 = hl & ~(1u << lead);
        int worst = MK_INF, floor = best > alpha ? best : alpha;
        for (uint32_t a = mk_follow_mask(lead, hf, c->trump); a; a &= a - 1) {
            int ans = __builtin_ctz(a);
            uint32_t hf2 = hf & ~(1u << ans);
            int wins, g = e_trick(c, lead, ans, &wins);
            int v = wins ? g + e_last(c, hl2, hf2, code & 1) : g - e_last(c, hf2, hl2, code >> 1);
            if (v < worst) {
                worst = v;
                if (worst <= floor) break;
            }
        }
        if (worst > best) {
            best = worst;
            if (best >= beta) break;
        }
    }
    return best;
}

static int e_value(const ectx *c, uint32_t hl, uint32_t hf, int code, int alpha, int beta);

/* tricks 14-16, three cards each: searched without the table */
static int e_three(const ectx *c, uint32_t hl, uint32_t hf, int code, int alpha, int beta) {
    int best = -MK_INF;
    /* the order of e_lead_order, without its array (this level is hot) */
    uint32_t leads = e_reps(c, hl, hf), sure = leads & e_sure_winners(c, hl, hf);
    uint32_t part = sure, rest = leads & ~sure;
    for (;;) {
        if (!part) {
            if (!rest) break;
            part = rest;
            rest = 0;
        }
        int lead = 31 - __builtin_clz(part);
        part &= ~(1u << lead);
        uint32_t hl2 = hl & ~(1u << lead);
        uint32_t answers = mk_follow_mask(lead, hf, c->trump);
        if (answers & (answers - 1)) answers = e_reps_of(c, hf, hl, answers);
        int floor = best > alpha ? best : alpha;
        int worst = MK_INF;
        for (; answers; answers &= answers - 1) {
            int ans = __builtin_ctz(answers);
            int ceiling = worst < beta ? worst : beta;
            uint32_t hf2 = hf & ~(1u << ans);
            int wins, g = e_trick(c, lead, ans, &wins), v;
            if (wins)
                v = g + e_two(c, hl2, hf2, code & 1, floor - g, ceiling - g);
            else
                v = g - e_two(c, hf2, hl2, code >> 1, g - ceiling, g - floor);
            if (v < worst) {
                worst = v;
                if (worst <= floor) break;
            }
        }
        if (worst > best) {
            best = worst;
            if (best >= beta) break;
        }
    }
    return best;
}

/* the leader's value after lead is answered by ans (hands without them) */
static inline int e_after(const ectx *c, int lead, int ans, uint32_t hl, uint32_t hf, int code,
                          int alpha, int beta) {
    int wins, g = e_trick(c, lead, ans, &wins);
    if (!hl) { /* that was trick 16 */
        if (wins) return g + MK_LAST_TRICK_POINTS + ((code & 1) ? c->bonus : 0);
        return g - MK_LAST_TRICK_POINTS - ((code & 2) ? c->bonus : 0);
    }
    if (wins) return g + e_value(c, hl, hf, code & 1, alpha - g, beta - g);
    return g - e_value(c, hf, hl, code >> 1, g - beta, g - alpha);
}

static int e_value(const ectx *c, uint32_t hl, uint32_t hf, int code, int alpha, int beta) {
    c->t->nodes++;
    uint32_t rest = hl & (hl - 1);
    if (!rest) return e_last(c, hl, hf, code);
    if (!(rest & (rest - 1))) return e_two(c, hl, hf, code, alpha, beta);
    int bound;
    if (e_bounded(c, hl, hf, code, alpha, beta, &bound)) return bound;
    uint32_t rest2 = rest & (rest - 1);
    if (!(rest2 & (rest2 - 1))) return e_three(c, hl, hf, code, alpha, beta);
    uint64_t k1 = (uint64_t)hl | (uint64_t)hf << 32;
    uint64_t k2 = c->k2base | (uint64_t)code << 2;
    mk_tt_entry *e = e_slot(c->t, k1, k2);
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
    n = e_lead_order(c, hl, hf, leads, order, n);
    for (int i = 0; i < n; i++) {
        int lead = order[i];
        uint32_t hl2 = hl & ~(1u << lead);
        uint32_t answers = mk_follow_mask(lead, hf, c->trump);
        if (answers & (answers - 1)) answers = e_reps_of(c, hf, hl2 | 1u << lead, answers);
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
    tt_store(c->t, e, k1, k2, 0, had, lo, hi, best, a0, b0, best_lead, mk_popcount32(hl));
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
        uint32_t answers = mk_follow_mask(a, r->hf, c->trump);
        if (answers & (answers - 1)) answers = e_reps_of(c, r->hf, hl2 | 1u << a, answers);
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

/* ==== exact perfect-information search from phase 1 =========================
 * Negamax alpha-beta over mk_deal copies; values are the mover's future
 * score minus the opponent's (points so far excluded). Meld windows are
 * searched as whole plans: every point of a meld is the same whenever it is
 * declared and exposing cards changes nothing when every card is known, so
 * declaring every available meld at once is never worse than holding one
 * back (with one_meld_per_window: one meld, each available one tried). The
 * dix exchange changes the hands, so both "exchange first" and "do not
 * exchange" are searched (the seven is in no meld: exchanging first loses
 * no meld). At the last draw the ending solver takes over. A table entry is
 * kept at each lead of phase 1 (key: see kernel.h). */

typedef struct {
    mk_tt *t;
    uint64_t world;   /* k3: hash of the stock order and the turned-up card */
    uint64_t k2rules; /* rules, bonus and trump bits of the phase-1 key */
    uint32_t stock_rest[MK_PHASE1_TRICKS + 1]; /* [t]: stock cards still to draw after t tricks */
} xctx;

static uint64_t world_hash(const mk_deal *d) {
    uint64_t h = 0xCBF29CE484222325ull ^ d->turned_up;
    for (int i = 0; i < MK_STOCK_CARDS; i++) {
        h ^= (uint8_t)d->stock[i];
        h *= 0x100000001B3ull;
        h ^= h >> 31;
    }
    return h * 0x9E3779B97F4A7C15ull | 1;
}

static void xctx_init(xctx *c, const mk_deal *d, mk_tt *t) {
    c->t = t;
    c->world = world_hash(d);
    c->k2rules = (uint64_t)(d->rules.dix_on_play | d->rules.one_meld << 1 |
                            d->rules.same_suit << 2) << 8 |
                 (uint64_t)d->rules.all_tricks_bonus << 12 | (uint64_t)d->trump << 24;
    uint32_t rest = 0;
    c->stock_rest[MK_PHASE1_TRICKS] = 0;
    for (int t = MK_PHASE1_TRICKS - 1; t >= 0; t--) {
        for (int i = 2 * t; i < 2 * t + 2 && i < MK_STOCK_CARDS; i++)
            if (d->stock[i] >= 0) rest |= 1u << d->stock[i];
        c->stock_rest[t] = rest;
    }
}

/* Equivalent cards in phase 1: two cards of the mover's suit with no live
 * card between them (live: in a hand, in the stock still to draw, the
 * indicator, the card led), the same point class, and no part in any meld
 * either player could still score (nor the seven of trumps) play the same
 * in every line, as in the ending. Returns the cards of `among` to search. */
static uint32_t x_reps(const xctx *c, const mk_deal *d, uint32_t own, uint32_t among) {
    uint32_t live = d->hand[0] | d->hand[1] | c->stock_rest[d->tricks] | 1u << d->indicator;
    if (d->lead >= 0) live |= 1u << d->lead;
    uint32_t dead = d->won[0] | d->won[1], fixed = 1u << d->seven;
    const uint32_t *need = mk_meld_cards[d->rules.same_suit][d->trump];
    unsigned open0 = ~(unsigned)d->melds[0], open1 = ~(unsigned)d->melds[1];
    for (int m = 0; m < MK_MELD_COUNT; m++)
        if (((open0 | open1) >> m & 1) && !(need[m] & dead)) fixed |= need[m];
    uint32_t out = 0;
    for (uint32_t m = among; m; m &= m - 1) {
        int card = __builtin_ctz(m);
        if (!(fixed >> card & 1)) {
            uint32_t above = live & ~((2u << card) - 1) & MK_SUIT_MASK(card >> 3);
            if (above) {
                int a = __builtin_ctz(above);
                if ((own >> a & 1) && !(fixed >> a & 1) &&
                    (MK_POINT_CARDS >> a & 1) == (MK_POINT_CARDS >> card & 1))
                    continue;
            }
        }
        out |= 1u << card;
    }
    return out;
}

/* the gain of the mover p from before to after */
static inline int x_gain(const mk_deal *before, const mk_deal *after, int p) {
    return (after->points[p] - before->points[p]) - (after->points[p ^ 1] - before->points[p ^ 1]);
}

static int x_value(const xctx *c, const mk_deal *d, int alpha, int beta);

/* the future value of a phase-2 position for its mover */
static inline int x_ending(const xctx *c, const mk_deal *d, int alpha, int beta) {
    int base = d->points[d->turn] - d->points[d->turn ^ 1];
    return mk_ending_value(d, c->t, alpha + base, beta + base) - base;
}

/* the value for p of a child position (whoever moves in it) */
static inline int x_child(const xctx *c, const mk_deal *d, const mk_deal *n, int p, int alpha,
                          int beta) {
    int g = x_gain(d, n, p);
    if (n->turn < 0) return g;
    if (n->turn == p) return g + x_value(c, n, alpha - g, beta - g);
    return g - x_value(c, n, g - beta, g - alpha);
}

/* a meld window: every plan (dix or not, then the melds), then the draw */
static int x_window(const xctx *c, const mk_deal *d, int alpha, int beta) {
    int p = d->turn, best = -MK_INF;
    int dix_options = (d->seven_by < 0 && (d->hand[p] >> d->seven & 1)) ? 2 : 1;
    for (int dix = dix_options - 1; dix >= 0; dix--) { /* exchanging first: usually best */
        mk_deal n = *d;
        if (dix) mk_play(&n, MK_DIX);
        unsigned melds = mk_meld_options(&n);
        if (!d->rules.one_meld) {
            for (unsigned m = melds; m; m &= m - 1) mk_play(&n, MK_MELD_BASE + __builtin_ctz(m));
            melds = 0;
        }
        /* one_meld: one plan per available meld (the most valuable first) */
        int order[MK_MELD_COUNT], k = 0;
        for (int m = MK_MELD_COUNT - 1; m >= 0; m--)
            if (melds >> m & 1) order[k++] = m;
        for (int i = 1; i < k; i++) { /* by value, descending (stable) */
            int m = order[i], j = i;
            while (j > 0 && mk_meld_values[d->trump][order[j - 1]] < mk_meld_values[d->trump][m]) {
                order[j] = order[j - 1];
                j--;
            }
            order[j] = m;
        }
        for (int i = 0; i < (k ? k : 1); i++) {
            mk_deal w = n;
            if (k) mk_play(&w, MK_MELD_BASE + order[i]);
            mk_play(&w, MK_DRAW);
            int v = x_child(c, d, &w, p, best > alpha ? best : alpha, beta);
            if (v > best) {
                best = v;
                if (best >= beta) return best;
            }
        }
    }
    return best;
}

/* how much a card is worth keeping in phase 1 (move ordering only) */
static inline int x_keep(const mk_deal *d, int card) {
    static const int8_t plain[8] = {0, 1, 2, 3, 4, 5, 14, 18};
    int v = plain[card & 7];
    if (card >> 3 == d->trump) v += 10;
    return v;
}

static int x_value(const xctx *c, const mk_deal *d, int alpha, int beta) {
    if (d->turn < 0) return 0;
    if (mk_tt_over_budget(c->t)) return alpha; /* given up: the caller says so */
    if (mk_stock_empty(d)) return x_ending(c, d, alpha, beta);
    c->t->nodes++;
    if (d->window) return x_window(c, d, alpha, beta);
    int p = d->turn, q = p ^ 1;
    uint32_t cards = x_reps(c, d, d->hand[p], d->hand[p]);
    int order[16], n = 0;
    mk_tt_entry *e = NULL;
    uint64_t k1 = 0, k2 = 0;
    int had = 0, lo = 0, hi = 0, a0 = alpha, b0 = beta;
    if (d->lead < 0) { /* a lead: the table's node */
        k1 = (uint64_t)d->hand[p] | (uint64_t)d->hand[q] << 32;
        k2 = MK_TAG_PHASE1 | (uint64_t)d->tricks << 2 | (uint64_t)(d->seven_by < 0) << 6 |
             (uint64_t)(d->indicator != d->turned_up) << 7 | c->k2rules |
             (uint64_t)d->melds[p] << 26 | (uint64_t)d->melds[q] << 38;
        e = tt_slot(c->t, k1, k2, c->world);
        had = tt_match(c->t, e, k1, k2, c->world);
        if (had) {
            lo = e->lo;
            hi = e->hi;
            if (lo >= beta) return lo;
            if (hi <= alpha) return hi;
            if (lo == hi) return lo;
            if (lo > alpha) alpha = lo;
            if (hi < beta) beta = hi;
            if (cards >> e->best & 1) {
                order[n++] = e->best;
                cards &= ~(1u << e->best);
            }
        }
        /* then the cheapest cards to give away first */
        int start = n;
        for (uint32_t m = cards; m; m &= m - 1) {
            int card = __builtin_ctz(m), key = x_keep(d, card), j = n++;
            while (j > start && x_keep(d, order[j - 1]) > key) {
                order[j] = order[j - 1];
                j--;
            }
            order[j] = card;
        }
    } else { /* the follower: cheap winners first, then cheap losers */
        int lead = d->lead, score[16];
        for (uint32_t m = cards; m; m &= m - 1) {
            int card = __builtin_ctz(m);
            int wins = mk_beats(lead, card, d->trump);
            int s = (wins ? 100 : 0) - x_keep(d, card), j = n++;
            while (j > 0 && score[j - 1] < s) {
                order[j] = order[j - 1];
                score[j] = score[j - 1];
                j--;
            }
            order[j] = card;
            score[j] = s;
        }
    }
    if (n > 1 && !had) { /* no table move: the heuristic policy's card first */
        int h = mk_heuristic_action(d, NULL);
        for (int i = 1; i < n; i++)
            if (order[i] == h) {
                for (int j = i; j > 0; j--) order[j] = order[j - 1];
                order[0] = h;
                break;
            }
    }
    int best = -MK_INF, best_card = order[0];
    for (int i = 0; i < n; i++) {
        mk_deal child = *d;
        mk_play(&child, order[i]);
        int floor = best > alpha ? best : alpha, v;
        if (i == 0 || floor + 1 >= beta) {
            v = x_child(c, d, &child, p, floor, beta);
        } else { /* principal variation: prove the others no better first */
            v = x_child(c, d, &child, p, floor, floor + 1);
            if (v > floor && v < beta) v = x_child(c, d, &child, p, v - 1, beta);
        }
        if (v > best) {
            best = v;
            best_card = order[i];
            if (best >= beta) break;
        }
    }
    if (e) tt_store(c->t, e, k1, k2, c->world, had, lo, hi, best, a0, b0, best_card, 16);
    return best;
}

int mk_exact_value(const mk_deal *d, mk_tt *t, int alpha, int beta) {
    if (d->turn < 0) return 0;
    if (mk_stock_empty(d)) return mk_ending_value(d, t, alpha, beta);
    xctx c;
    xctx_init(&c, d, t);
    int base = d->points[d->turn] - d->points[d->turn ^ 1];
    return base + x_value(&c, d, alpha - base, beta - base);
}

/* the value for d's mover of playing a, in a window (alpha, beta) */
static int x_action(const mk_deal *d, mk_tt *t, int a, int alpha, int beta) {
    int p = d->turn;
    mk_deal n = *d;
    mk_play(&n, a);
    if (n.turn < 0) return n.points[p] - n.points[p ^ 1];
    if (n.turn == p) return mk_exact_value(&n, t, alpha, beta);
    return -mk_exact_value(&n, t, -beta, -alpha);
}

int mk_exact_action_value(const mk_deal *d, mk_tt *t, int a) {
    return x_action(d, t, a, -MK_INF, MK_INF);
}

int mk_search_exact(const mk_deal *d, mk_tt *t, uint64_t *best_out) {
    if (mk_stock_empty(d)) {
        uint32_t b = 0;
        int v = mk_solve_ending(d, t, best_out ? &b : NULL);
        if (best_out) *best_out = b;
        return v;
    }
    if (!best_out) return mk_exact_value(d, t, -MK_INF, MK_INF);
    uint64_t legal = mk_legal(d);
    int values[MK_ACTION_COUNT], best = -MK_INF;
    for (uint64_t m = legal; m;) {
        int a = 63 - __builtin_clzll(m);
        m &= ~(1ull << a);
        int v = x_action(d, t, a, best > -MK_INF ? best - 1 : -MK_INF, MK_INF);
        values[a] = v;
        if (v > best) best = v;
    }
    uint64_t opt = 0;
    for (uint64_t m = legal; m; m &= m - 1) {
        int a = __builtin_ctzll(m);
        if (values[a] >= best) opt |= 1ull << a;
    }
    *best_out = opt;
    return best;
}
