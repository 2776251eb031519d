/* state.c -- deal state, legal actions, play and scoring (rules R4-R21).
 * The reference is marjolet/engine.py (Deal.push, legal_mask, legal_actions,
 * _window_actions); this file follows it field for field. */
#include "kernel.h"

#define KQ(s) (0x30u << (8 * (s)))
#define JQ_SAME(s) (0x18u << (8 * (s)))
#define JQ_TRUMP(t, s) ((1u << (8 * (t) + 3)) | (1u << (8 * (s) + 4)))
#define FOURS MK_ACES, MK_TENS, MK_KINGS, MK_QUEENS
#define ROW_TRUMP_JACK(t) \
    { FOURS, KQ(0), KQ(1), KQ(2), KQ(3), \
      JQ_TRUMP(t, 0), JQ_TRUMP(t, 1), JQ_TRUMP(t, 2), JQ_TRUMP(t, 3) }
#define ROW_SAME_SUIT \
    { FOURS, KQ(0), KQ(1), KQ(2), KQ(3), JQ_SAME(0), JQ_SAME(1), JQ_SAME(2), JQ_SAME(3) }

const uint32_t mk_meld_cards[2][4][MK_MELD_COUNT] = {
    {ROW_TRUMP_JACK(0), ROW_TRUMP_JACK(1), ROW_TRUMP_JACK(2), ROW_TRUMP_JACK(3)},
    {ROW_SAME_SUIT, ROW_SAME_SUIT, ROW_SAME_SUIT, ROW_SAME_SUIT},
};

/* the values from melds.py and cards.py (rules_constants.h) */
const int16_t mk_meld_values[4][MK_MELD_COUNT] = MK_MELD_VALUES_INIT;
const int8_t mk_card_points[32] = MK_CARD_POINTS_INIT;

void mk_rules_classic(mk_rules *r) {
    r->pattern_222 = MK_CLASSIC_PATTERN_222;
    r->dix_on_play = MK_CLASSIC_DIX_ON_PLAY;
    r->same_suit = MK_CLASSIC_SAME_SUIT;
    r->one_meld = MK_CLASSIC_ONE_MELD;
    r->all_tricks_bonus = MK_CLASSIC_ALL_TRICKS_BONUS;
}

int mk_deal_init(mk_deal *d, const uint8_t deck[32], int dealer, const mk_rules *r) {
    uint32_t seen = 0;
    for (int i = 0; i < 32; i++) {
        if (deck[i] >= 32 || (seen >> deck[i] & 1)) return -1;
        seen |= 1u << deck[i];
    }
    if (dealer != 0 && dealer != 1) return -1;
    uint32_t elder = 0, dealt = 0;
    int batch = r->pattern_222 ? 2 : 3, pos = 0;
    for (int b = 0; b < 12 / (2 * batch); b++) {
        for (int i = 0; i < batch; i++) elder |= 1u << deck[pos++];
        for (int i = 0; i < batch; i++) dealt |= 1u << deck[pos++];
    }
    *d = (mk_deal){0};
    d->rules = *r;
    d->dealer = (uint8_t)dealer;
    d->hand[dealer ^ 1] = elder;
    d->hand[dealer] = dealt;
    d->turned_up = d->indicator = deck[12];
    d->trump = deck[12] >> 3;
    d->seven = (uint8_t)(d->trump * 8);
    for (int i = 0; i < MK_STOCK_CARDS; i++) d->stock[i] = (int8_t)deck[13 + i];
    d->turn = (int8_t)(dealer ^ 1);
    d->lead = -1;
    d->seven_by = d->last_card_to = d->last_winner = -1;
    if (d->turned_up == d->seven) { /* R18: the dealer scores 10 at once */
        d->seven_by = (int8_t)dealer;
        d->points[dealer] = MK_SEVEN_POINTS;
    }
    return 0;
}

uint32_t mk_legal_cards(const mk_deal *d) {
    int p = d->turn;
    if (p < 0 || d->window) return 0;
    uint32_t hand = d->hand[p];
    int lead = d->lead;
    if (lead < 0 || d->tricks < MK_PHASE1_TRICKS) return hand; /* R7 */
    return mk_follow_mask(lead, hand, d->trump); /* R16 */
}

unsigned mk_meld_options(const mk_deal *d) {
    int p = d->turn;
    if (p < 0 || !d->window) return 0;
    if (d->rules.one_meld && d->window_melds) return 0;
    uint32_t hand = d->hand[p];
    /* every meld of mk_meld_cards at once: one bit per suit byte, gathered */
#define GATHER(x) (((x) | (x) >> 7 | (x) >> 14 | (x) >> 21) & 0xFu)
    unsigned out = ((hand & MK_ACES) == MK_ACES) | ((hand & MK_TENS) == MK_TENS) << 1 |
                   ((hand & MK_KINGS) == MK_KINGS) << 2 | ((hand & MK_QUEENS) == MK_QUEENS) << 3;
    uint32_t kq = (hand >> 4) & (hand >> 5) & 0x01010101u;
    out |= GATHER(kq) << 4;
    uint32_t jq = d->rules.same_suit ? (hand >> 3) & (hand >> 4) & 0x01010101u
                  : (hand >> (8 * d->trump + 3) & 1) ? (hand >> 4) & 0x01010101u : 0;
    out |= GATHER(jq) << 8;
#undef GATHER
    return out & ~(unsigned)d->melds[p];
}

uint64_t mk_legal(const mk_deal *d) {
    int p = d->turn;
    if (p < 0) return 0;
    if (!d->window) return mk_legal_cards(d);
    uint64_t out = (uint64_t)mk_meld_options(d) << MK_MELD_BASE;
    if (d->seven_by < 0 && (d->hand[p] >> d->seven & 1)) out |= 1ull << MK_DIX;
    return out | 1ull << MK_DRAW;
}

int mk_is_legal(const mk_deal *d, int action) {
    if (action < 0 || action >= MK_ACTION_COUNT) return 0;
    return (int)(mk_legal(d) >> action & 1);
}

void mk_play(mk_deal *d, int action) {
    int p = d->turn;
    if (action < 32) { /* play a card (R7, R8, R16) */
        uint32_t bit = 1u << action;
        d->hand[p] ^= bit;
        d->exposed[p] &= ~bit;
        if (action == d->seven && d->seven_by < 0 && d->rules.dix_on_play) {
            d->seven_by = (int8_t)p; /* R19, at most once (R20) */
            d->points[p] += MK_SEVEN_POINTS;
        }
        int lead = d->lead;
        if (lead < 0) {
            d->lead = (int8_t)action;
            d->turn = (int8_t)(p ^ 1);
            return;
        }
        int w = mk_beats(lead, action, d->trump) ? p : p ^ 1; /* the follower completes it (R8) */
        d->won[w] |= bit | 1u << lead;
        d->points[w] += mk_card_points[action] + mk_card_points[lead];
        d->lead = -1;
        d->last_winner = (int8_t)w;
        int t = ++d->tricks;
        d->turn = (int8_t)w;
        if (t <= MK_PHASE1_TRICKS) {
            d->window = 1; /* R9: the winner's meld window */
            d->window_melds = 0;
            return;
        }
        d->late[w]++;
        if (t == MK_LAST_TRICK) { /* R17 */
            d->points[w] += MK_LAST_TRICK_POINTS;
            if (d->late[w] == MK_LAST_TRICK - MK_PHASE1_TRICKS)
                d->points[w] += d->rules.all_tricks_bonus;
            d->turn = -1;
        }
    } else if (action == MK_DRAW) { /* R9, R15 */
        int t = d->tricks, i = 2 * t - 2;
        int c = d->stock[i];
        if (c >= 0) d->hand[p] |= 1u << c;
        if (t < MK_PHASE1_TRICKS) {
            c = d->stock[i + 1];
            if (c >= 0) d->hand[p ^ 1] |= 1u << c;
        } else {
            d->hand[p ^ 1] |= 1u << d->indicator;
            d->points[p ^ 1] += MK_LAST_CARD_POINTS;
            d->last_card_to = (int8_t)(p ^ 1);
            d->exposed[0] = d->exposed[1] = 0;
        }
        d->window = 0;
    } else if (action == MK_DIX) { /* R18 */
        d->hand[p] ^= 1u << d->seven | 1u << d->indicator;
        d->indicator = d->seven;
        d->seven_by = (int8_t)p;
        d->points[p] += MK_SEVEN_POINTS;
    } else { /* declare a meld (R11-R13) */
        int m = action - MK_MELD_BASE;
        d->melds[p] |= (uint16_t)(1u << m);
        d->points[p] += mk_meld_values[d->trump][m];
        d->exposed[p] |= mk_meld_cards[d->rules.same_suit][d->trump][m];
        d->window_melds++;
    }
}

int mk_deal_check(const mk_deal *d) {
    if (d->hand[0] & d->hand[1]) return 1;
    if ((d->exposed[0] & ~d->hand[0]) || (d->exposed[1] & ~d->hand[1])) return 2;
    if (d->won[0] & d->won[1]) return 3;
    if ((d->hand[0] | d->hand[1]) & (d->won[0] | d->won[1])) return 4;
    if (d->tricks > MK_LAST_TRICK) return 5;
    if (d->turn < -1 || d->turn > 1) return 6;
    if (d->lead >= 32 || d->lead < -1) return 7;
    if (d->indicator >= 32 || d->turned_up >= 32 || d->trump != d->turned_up >> 3) return 8;
    if (d->window && (d->tricks == 0 || d->tricks > MK_PHASE1_TRICKS || d->lead >= 0)) return 9;
    if (d->lead >= 0 && (((d->hand[0] | d->hand[1] | d->won[0] | d->won[1]) >> d->lead) & 1))
        return 10;
    return 0;
}

int mk_sizes_ok(const mk_deal *d) {
    if (d->turn < 0) return 1;
    int base;
    if (d->window) base = 5;
    else if (d->tricks < MK_PHASE1_TRICKS) base = 6;
    else base = MK_LAST_TRICK - d->tricks;
    int nm = mk_popcount32(d->hand[d->turn]), no = mk_popcount32(d->hand[d->turn ^ 1]);
    if (d->lead >= 0) return nm == base && no == base - 1;
    return base > 0 && nm == base && no == base;
}

/* stock entries already drawn: two a draw after tricks 1-9, the last one
 * (index 18) with the indicator after trick 10 */
static int drawn_entries(const mk_deal *d) {
    int draws = d->tricks - (d->window ? 1 : 0);
    if (draws < 0) draws = 0;
    if (draws > MK_PHASE1_TRICKS) draws = MK_PHASE1_TRICKS;
    return 2 * draws > MK_STOCK_CARDS ? MK_STOCK_CARDS : 2 * draws;
}

static const char *const CHECK_MESSAGES[] = {
    NULL,
    "a card is in both hands",
    "an exposed card is not in its owner's hand",
    "a card is in both players' tricks",
    "a card is both in a hand and in a trick won",
    "more than 16 tricks",
    "the player to act must be -1, 0 or 1",
    "the card led must be -1 or a card 0-31",
    "the indicator or the turned-up card is not a card of the trump suit",
    "a meld window is open outside tricks 1-10 or with a card led",
    "the card led is also in a hand or a trick won",
};

const char *mk_state_problem(const mk_deal *d) {
    int code = mk_deal_check(d);
    if (code) return CHECK_MESSAGES[code];
    if ((d->turn < 0) != (d->tricks == MK_LAST_TRICK))
        return "the player to act must be -1 exactly when 16 tricks are complete";
    if (d->turn < 0 && d->lead >= 0) return "a card is led after the last trick";
    if (d->window_melds > MK_MELD_COUNT) return "more declarations in one window than melds";
    int late = d->tricks > MK_PHASE1_TRICKS ? d->tricks - MK_PHASE1_TRICKS : 0;
    if (d->late[0] + d->late[1] != late)
        return "the tricks 11-16 won do not add up to the tricks played";
    if (d->seven != d->trump * 8) return "the seven of trumps does not match the trump suit";
    if (d->indicator != d->turned_up && (d->indicator != d->seven || d->seven_by < 0))
        return "the indicator differs from the turned-up card without an exchange of the seven";
    uint32_t placed = d->hand[0] | d->hand[1] | d->won[0] | d->won[1];
    if (d->lead >= 0) placed |= 1u << d->lead;
    if (!mk_stock_empty(d) && (placed >> d->indicator & 1))
        return "the indicator is also in a hand, a trick won or the lead";
    uint32_t stock = 0;
    int drawn = drawn_entries(d);
    for (int i = 0; i < MK_STOCK_CARDS; i++) {
        int c = d->stock[i];
        if (c < 0) continue;
        if (c > 31) return "a stock card is not a card 0-31";
        if (stock >> c & 1) return "a card appears twice in the stock";
        stock |= 1u << c;
        if (i >= drawn && ((placed >> c & 1) || c == d->indicator))
            return "a stock card still to draw is also in a hand, a trick won, the lead or "
                   "the indicator";
    }
    return NULL;
}
