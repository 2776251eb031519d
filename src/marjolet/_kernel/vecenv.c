/* vecenv.c -- the batched research environments (see vecenv.h).
 * References, followed step for step: marjolet/rl/gym.py (SingleAgentEnv.
 * reset, step, _opponent_moves), marjolet/rl/episode.py (Episode.play,
 * SeedStream), marjolet/match.py (first dealer, seeded_deck, finish_deal),
 * marjolet/rl/encoder.py (encode), marjolet/bots/random_bot.py. */
#include <string.h>
#include "vecenv.h"

/* ---- the observation tensor (encoder.py's FIELDS, same offsets) --------- */
enum {
    O_HAND = 0, O_MY_EXPOSED = 32, O_OPP_EXPOSED = 64, O_OPP_KNOWN = 96, O_UNSEEN = 128,
    O_MY_WON = 160, O_OPP_WON = 192, O_LEAD = 224, O_INDICATOR = 256, O_TRUMP = 288,
    O_MY_MELDS = 292, O_OPP_MELDS = 304, O_MY_TURN = 316, O_IN_WINDOW, O_STOCK_EMPTY,
    O_DEALER, O_MY_SEVEN, O_OPP_SEVEN, O_STOCK_SIZE, O_TRICKS, O_MY_POINTS, O_OPP_POINTS,
    O_MY_LATE, O_OPP_LATE, O_OPP_HAND, O_MY_TOTAL, O_OPP_TOTAL, O_RULE_DIX, O_RULE_SAME_SUIT,
    O_RULE_BONUS, O_RULE_ONE_MELD, O_END
};
_Static_assert(O_END == MK_OBS_SIZE, "the tensor layout of encoder.py");

/* every entry of a 32-card plane (or a shorter bit field): 1.0 where the
 * bit is set; the loop compiles to a few vector instructions a plane */
#define B4(k) 1u << (k), 1u << (k + 1), 1u << (k + 2), 1u << (k + 3)
static const uint32_t BIT[32] = {B4(0), B4(4), B4(8), B4(12), B4(16), B4(20), B4(24), B4(28)};
#undef B4

static inline void put_bits(float *restrict o, uint32_t m, int n) {
    for (int k = 0; k < n; k++) o[k] = (float)((m & BIT[k]) != 0);
}

/* k / 20.0, k / 6.0 rounded to float as encoder.py does (the compiler
 * divides in the same IEEE double arithmetic) */
#define F(k, d) (float)((k) / (d))
#define SIX(k, d) F(k, d), F(k + 1, d), F(k + 2, d), F(k + 3, d), F(k + 4, d), F(k + 5, d)
static const float BY20[21] = {SIX(0, 20.0), SIX(6, 20.0), SIX(12, 20.0), F(18, 20.0),
                               F(19, 20.0), F(20, 20.0)};
static const float BY6[33] = {SIX(0, 6.0),  SIX(6, 6.0),  SIX(12, 6.0), SIX(18, 6.0),
                              SIX(24, 6.0), F(30, 6.0), F(31, 6.0), F(32, 6.0)};
static const float BY16[32] = {SIX(0, 16.0),  SIX(6, 16.0),  SIX(12, 16.0), SIX(18, 16.0),
                               SIX(24, 16.0), F(30, 16.0), F(31, 16.0)};
/* k / 100.0 for the points of a deal (0..640 in the classic profile) */
#define TEN(k) SIX(k, 100.0), F(k + 6, 100.0), F(k + 7, 100.0), F(k + 8, 100.0), F(k + 9, 100.0)
#define HUNDRED(k) TEN(k), TEN(k + 10), TEN(k + 20), TEN(k + 30), TEN(k + 40), TEN(k + 50), \
    TEN(k + 60), TEN(k + 70), TEN(k + 80), TEN(k + 90)
static const float BY100[800] = {HUNDRED(0),   HUNDRED(100), HUNDRED(200), HUNDRED(300),
                                 HUNDRED(400), HUNDRED(500), HUNDRED(600), HUNDRED(700)};
#undef HUNDRED
#undef TEN
#undef SIX
#undef F

static inline float by100(int32_t points) {
    return points >= 0 && points < 800 ? BY100[points] : (float)(points / 100.0);
}

static float capped_total(int32_t total, int target) {
    if (total == 0) return 0.0f; /* deal and dense episodes: no division */
    double v = (double)total / (double)target;
    return (float)(v < 2.0 ? v : 2.0); /* TOTAL_CAP */
}

MK_VEC_CLONES void mk_encode(const mk_deal *d, int me, const int32_t totals[2], int target,
                            float *o) {
    int opp = me ^ 1;
    /* Deal.stock_size: the hidden stock and the face-up card */
    int stock_size = MK_STOCK_CARDS + 1 - 2 * (d->tricks - d->window);
    if (stock_size < 0) stock_size = 0;
    uint32_t known; /* observation.opponent_known_mask */
    if (mk_stock_empty(d)) {
        known = d->hand[opp];
    } else {
        known = d->exposed[opp];
        if (d->seven_by == opp && d->indicator != d->turned_up)
            known |= d->hand[opp] & 1u << d->turned_up;
    }
    uint32_t lead = d->lead >= 0 ? 1u << d->lead : 0;
    uint32_t indicator = stock_size > 0 ? 1u << d->indicator : 0;
    uint32_t seen = d->hand[me] | d->won[0] | d->won[1] | known | lead | indicator;
    put_bits(o + O_HAND, d->hand[me], 32);
    put_bits(o + O_MY_EXPOSED, d->exposed[me], 32);
    put_bits(o + O_OPP_EXPOSED, d->exposed[opp], 32);
    put_bits(o + O_OPP_KNOWN, known, 32);
    put_bits(o + O_UNSEEN, ~seen, 32);
    put_bits(o + O_MY_WON, d->won[me], 32);
    put_bits(o + O_OPP_WON, d->won[opp], 32);
    put_bits(o + O_LEAD, lead, 32);
    put_bits(o + O_INDICATOR, indicator, 32);
    put_bits(o + O_TRUMP, 1u << d->trump, 4);
    put_bits(o + O_MY_MELDS, d->melds[me], 12);
    put_bits(o + O_OPP_MELDS, d->melds[opp], 12);
    o[O_MY_TURN] = d->turn == me;
    o[O_IN_WINDOW] = d->window != 0;
    o[O_STOCK_EMPTY] = stock_size == 0;
    o[O_DEALER] = d->dealer == me;
    o[O_MY_SEVEN] = d->seven_by == me;
    o[O_OPP_SEVEN] = d->seven_by == opp;
    o[O_STOCK_SIZE] = BY20[stock_size];
    o[O_TRICKS] = BY16[d->tricks & 31];
    o[O_MY_POINTS] = by100(d->points[me]);
    o[O_OPP_POINTS] = by100(d->points[opp]);
    o[O_MY_LATE] = BY6[d->late[me] & 31];
    o[O_OPP_LATE] = BY6[d->late[opp] & 31];
    o[O_OPP_HAND] = BY6[mk_popcount32(d->hand[opp])];
    o[O_MY_TOTAL] = capped_total(totals[me], target);
    o[O_OPP_TOTAL] = capped_total(totals[opp], target);
    o[O_RULE_DIX] = d->rules.dix_on_play != 0;
    o[O_RULE_SAME_SUIT] = d->rules.same_suit != 0;
    o[O_RULE_BONUS] = by100(2 * d->rules.all_tricks_bonus); /* 2b / 100.0 == b / 50.0 */
    o[O_RULE_ONE_MELD] = d->rules.one_meld != 0;
}

/* ---- one episode (episode.py, match.py) ----------------------------------- */

/* the generator random.Random(f"marjolet/{seed}{tail}") (match.py), tail
 * "/first-dealer" or "/deal/{index}", to be seeded */
static void text_generator(mk_pyhead *g, uint64_t seed, int deal_index) {
    char text[96] = "marjolet/", digits[24];
    size_t len = 9, k = 0;
    do digits[k++] = (char)('0' + seed % 10); while (seed /= 10);
    while (k) text[len++] = digits[--k];
    const char *tail = deal_index < 0 ? "/first-dealer" : "/deal/";
    size_t t = strlen(tail);
    memcpy(text + len, tail, t);
    len += t;
    if (deal_index >= 0) {
        unsigned v = (unsigned)deal_index;
        do digits[k++] = (char)('0' + v % 10); while (v /= 10);
        while (k) text[len++] = digits[--k];
    }
    mk_pyhead_init_text(g, text, len);
}

#define FIRST_DEALER (-1)

/* Match.start_deal with the deck's generator seeded (seeded_deck) */
static void deal_from(const mk_venv_config *c, mk_slot *s, mk_pyhead *g) {
    uint8_t deck[32];
    mk_pyhead_deck(g, deck);
    mk_deal_init(&s->d, deck, s->first_dealer ^ (s->deal_index & 1), &c->rules);
}

/* Match.start_deal: the deck of seeded_deck(match_seed, deal_index) */
static void start_deal(const mk_venv_config *c, mk_slot *s) {
    mk_pyhead g; /* seeded on its own at its first draw */
    text_generator(&g, s->match_seed, s->deal_index);
    deal_from(c, s, &g);
}

/* Match.finish_deal: the totals, and R22 */
static void finish_deal(const mk_venv_config *c, mk_slot *s) {
    int32_t t0 = s->totals[0] += s->d.points[0];
    int32_t t1 = s->totals[1] += s->d.points[1];
    if ((t0 >= c->target || t1 >= c->target) && t0 != t1) s->winner = t0 > t1 ? 0 : 1;
}

/* Episode.play: apply a legal action; player 0's reward */
static double play(const mk_venv_config *c, mk_slot *s, int a) {
    mk_deal *d = &s->d;
    s->last_mover = d->turn;
    mk_play(d, a);
    int diff = d->points[0] - d->points[1];
    double r = 0.0;
    if (c->reward == MK_REWARD_DENSE) {
        r = (double)(diff - s->paid);
        s->paid = diff;
    }
    if (mk_over(d)) {
        finish_deal(c, s);
        if (c->reward == MK_REWARD_DEAL) {
            r = (double)diff;
            s->done = 1;
        } else if (c->reward == MK_REWARD_DENSE) {
            s->done = 1;
        } else if (s->winner >= 0) {
            r = s->winner == 0 ? 1.0 : -1.0;
            s->done = 1;
        } else {
            s->deal_index++;
            start_deal(c, s);
        }
    }
    return r;
}

static double for_seat(double r0, int seat) { return seat == 0 ? r0 : (r0 != 0.0 ? -r0 : 0.0); }

/* SingleAgentEnv._opponent_moves: the bot acts until the agent's turn */
static double opponent_moves(const mk_venv_config *c, mk_slot *s) {
    double total = 0.0;
    mk_rng unused = {{1, 2, 3, 4}};
    while (!s->done && s->d.turn != s->seat) {
        int a;
        if (c->opponent == MK_OPP_RANDOM) { /* legal[rng.randrange(len(legal))] */
            uint64_t m = mk_legal(&s->d);
            a = mk_nth_bit(m, mk_pyhead_below(&s->bot, (uint32_t)mk_popcount64(m)));
        } else {
            a = mk_heuristic_action(&s->d, &unused);
        }
        total += for_seat(play(c, s, a), s->seat);
    }
    return total;
}

/* the seat whose view row i shows: the agent's, or in two-seat mode the
 * player to act (the last one to act once the episode is over) */
static int view_seat(const mk_venv_config *c, const mk_slot *s) {
    if (c->opponent != MK_OPP_NONE) return s->seat;
    return s->done || s->d.turn < 0 ? s->last_mover : s->d.turn;
}

static void write_view(const mk_venv_config *c, const mk_slot *s, float *obs, int8_t *mask,
                       int8_t *seat) {
    int v = view_seat(c, s);
    int32_t before[2] = {s->totals[0], s->totals[1]}; /* the totals before this deal */
    if (mk_over(&s->d)) { /* over: finish_deal counted it already */
        before[0] -= s->d.points[0];
        before[1] -= s->d.points[1];
    }
    mk_encode(&s->d, v, before, c->target, obs);
    *seat = (int8_t)v;
    if (!mask) return;
    uint64_t legal = !s->done && s->d.turn == v ? mk_legal(&s->d) : 0;
    /* 8 entries at a time: byte k of `spread` is bit k of the legal byte */
    for (int k = 0; k < MK_ACTION_COUNT; k += 8) {
        uint64_t x = ((legal >> k & 0xFF) * 0x0101010101010101ull) & 0x8040201008040201ull;
        uint64_t spread = ((x + 0x7F7F7F7F7F7F7F7Full) & 0x8080808080808080ull) >> 7;
        uint8_t bytes[8];
        for (int b = 0; b < 8; b++) bytes[b] = (uint8_t)(spread >> (8 * b)); /* any byte order */
        memcpy(mask + k, bytes, k + 8 <= MK_ACTION_COUNT ? 8 : MK_ACTION_COUNT - k);
    }
}

static void write_row(const mk_venv_config *c, const mk_slot *s, int i, const mk_venv_out *out) {
    write_view(c, s, out->obs + (size_t)i * MK_OBS_SIZE, out->mask + (size_t)i * MK_ACTION_COUNT,
               out->seat + i);
}

/* the info of an episode that ended (SingleAgentEnv._info at the end) */
static void write_end(const mk_venv_config *c, const mk_slot *s, int i, const mk_venv_out *out) {
    int me = c->opponent == MK_OPP_NONE ? 0 : s->seat;
    out->deal_points[2 * i] = s->d.points[me];
    out->deal_points[2 * i + 1] = s->d.points[me ^ 1];
    out->totals[2 * i] = s->totals[me];
    out->totals[2 * i + 1] = s->totals[me ^ 1];
    out->winner[i] = (int8_t)(s->winner < 0 ? -1 : c->opponent == MK_OPP_NONE ? s->winner
                                                                           : s->winner == me);
    out->illegal[i] = (uint8_t)s->illegal;
}

void mk_venv_seed(mk_slot *s, const uint32_t *key, size_t n_words) {
    mk_pyrand_seed_words(&s->stream, key, n_words);
}

/* SingleAgentEnv.reset / Episode: the seeds of a new episode from the
 * slot's stream, and the keys of its generators (seeded by the caller:
 * the first dealer's, the first deck's and the random bot's) */
static void begin_episode(const mk_venv_config *c, mk_slot *s, mk_pyhead *dealer,
                          mk_pyhead *deck) {
    s->match_seed = mk_pyrand_bits(&s->stream, 63);
    if (c->opponent != MK_OPP_NONE) { /* SingleAgentEnv.reset */
        uint64_t bot_seed = mk_pyrand_bits(&s->stream, 63);
        uint64_t seat_draw = mk_pyrand_bits(&s->stream, 63);
        s->seat = (int8_t)(c->fixed_seat >= 0 ? c->fixed_seat : (int)(seat_draw & 1));
        uint32_t k_bot[2] = {(uint32_t)bot_seed, (uint32_t)(bot_seed >> 32)}; /* Bot.new_match */
        mk_pyhead_init(&s->bot, k_bot, k_bot[1] ? 2 : 1);
    }
    text_generator(dealer, s->match_seed, FIRST_DEALER);
    text_generator(deck, s->match_seed, 0);
}

/* the episode's first deal, once its generators are seeded (Match(seed=...)) */
static void finish_episode(const mk_venv_config *c, mk_slot *s, mk_pyhead *dealer,
                           mk_pyhead *deck) {
    s->first_dealer = (int8_t)mk_pyhead_below(dealer, 2);
    s->deal_index = 0;
    s->totals[0] = s->totals[1] = 0;
    s->paid = 0;
    s->pending = 0.0;
    s->winner = -1;
    s->done = s->needs_reset = s->illegal = 0;
    s->last_mover = -1;
    deal_from(c, s, deck);
    if (c->opponent != MK_OPP_NONE) s->pending = opponent_moves(c, s);
}

/* start the episodes of the pending slots, their generators seeded together */
static void start_pending(const mk_venv_config *c, mk_slot *slots, const mk_venv_out *out,
                          mk_venv_work *w) {
    mk_pyhead *heads[3 * MK_VENV_CHUNK] = {0};
    int count = 0, n = w->n_pending;
    if (n == 0) return;
    for (int e = 0; e < n; e++) {
        mk_slot *s = &slots[w->pending[e]];
        begin_episode(c, s, &w->dealer[e], &w->deck[e]);
        heads[count++] = &w->dealer[e];
        heads[count++] = &w->deck[e];
        if (c->opponent == MK_OPP_RANDOM) heads[count++] = &s->bot;
    }
    mk_pyrand_heads(heads, count, &w->seeding);
    for (int e = 0; e < n; e++) {
        int i = w->pending[e];
        finish_episode(c, &slots[i], &w->dealer[e], &w->deck[e]);
        write_row(c, &slots[i], i, out);
    }
    w->n_pending = 0;
}

/* a new episode for slot i: now, or with the chunk when it is full */
static void queue_episode(const mk_venv_config *c, mk_slot *slots, int i, const mk_venv_out *out,
                          mk_venv_work *w) {
    w->pending[w->n_pending++] = i;
    if (w->n_pending == MK_VENV_CHUNK) start_pending(c, slots, out, w);
}

void mk_venv_reset_slot(const mk_venv_config *c, mk_slot *slots, int i, const mk_venv_out *out,
                        mk_venv_work *w) {
    w->n_pending = 0;
    queue_episode(c, slots, i, out, w);
    start_pending(c, slots, out, w);
}

static int legal_action(const mk_slot *s, int64_t a) {
    return a >= 0 && a < MK_ACTION_COUNT && mk_is_legal(&s->d, (int)a);
}

int mk_venv_refused(const mk_venv_config *c, const mk_slot *slots, int n, const int64_t *actions) {
    for (int i = 0; i < n; i++) {
        const mk_slot *s = &slots[i];
        if (s->needs_reset) continue;
        if (s->done) return i;
        if (c->illegal_raise && !legal_action(s, actions[i])) return i;
    }
    return -1;
}

/* the agent's action (or the player's to act) in slot i; rewards */
static void act(const mk_venv_config *c, mk_slot *s, int i, const mk_venv_out *out) {
    int64_t a = out->actions[i];
    int two = c->opponent == MK_OPP_NONE;
    if (!legal_action(s, a)) { /* illegal_action="lose" */
        s->done = s->illegal = 1;
        s->last_mover = s->d.turn;
        if (two) {
            out->reward[2 * i + s->d.turn] = c->worst;
            out->reward[2 * i + (s->d.turn ^ 1)] = -c->worst;
        } else {
            out->reward[i] = c->worst;
        }
        return;
    }
    if (two) {
        double r = play(c, s, (int)a);
        out->reward[2 * i] = r;
        out->reward[2 * i + 1] = for_seat(r, 1);
        return;
    }
    double r = s->pending + for_seat(play(c, s, (int)a), s->seat);
    s->pending = 0.0;
    if (!s->done) r += opponent_moves(c, s);
    out->reward[i] = r;
}

int mk_venv_step(const mk_venv_config *c, mk_slot *slots, int n, const mk_venv_out *out,
                 mk_venv_work *w) {
    int width = c->opponent == MK_OPP_NONE ? 2 : 1, ended = 0;
    w->n_pending = 0;
    for (int i = 0; i < n; i++) {
        mk_slot *s = &slots[i];
        for (int k = 0; k < width; k++) out->reward[width * i + k] = 0.0;
        out->terminated[i] = 0;
        out->illegal[i] = 0;
        if (s->needs_reset) { /* NEXT_STEP: this step starts the next episode */
            queue_episode(c, slots, i, out, w);
            continue;
        }
        act(c, s, i, out);
        if (!s->done) {
            write_row(c, s, i, out);
            continue;
        }
        out->terminated[i] = 1;
        ended++;
        write_end(c, s, i, out);
        if (c->autoreset == MK_RESET_SAME_STEP) {
            write_view(c, s, out->final_obs + (size_t)i * MK_OBS_SIZE, NULL, out->final_seat + i);
            queue_episode(c, slots, i, out, w);
        } else {
            write_row(c, s, i, out);
            s->needs_reset = c->autoreset == MK_RESET_NEXT_STEP;
        }
    }
    start_pending(c, slots, out, w);
    return ended;
}
