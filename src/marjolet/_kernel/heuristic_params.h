/* heuristic_params.h -- the heuristic's tuning, every constant named once.
 *
 * The twin of marjolet/bots/heuristic_params.py: the same names, the same
 * values (tests/test_kernel_twins.py reads this file and checks), and the
 * meaning of each is documented there. Only playout.c's heuristic policy
 * includes it. Scalars are `#define NAME value`, tables
 * `static const double NAME[n] = {...};`, one per line. */
#ifndef MARJOLET_HEURISTIC_PARAMS_H
#define MARJOLET_HEURISTIC_PARAMS_H

/* -- tricks 1-10 -- */
static const double KEEP_PLAIN[8] = {0.0, 0.3, 0.6, 1.0, 1.5, 2.0, 7.0, 10.0};
static const double KEEP_TRUMP[8] = {4.0, 4.5, 5.0, 6.0, 7.0, 8.0, 14.0, 17.0};
#define OPPONENT_WINDOW 5.0
#define LEAD_VALUE 1.0
#define DISCARD_POINTS 1.5
#define LOST_LEAD_COST 3.0
static const double TAKE_CHANCE[2] = {0.35, 0.9};
#define REALISE_BASE 0.35
#define REALISE_PER_TRICK 0.15
#define REALISE_MAX 0.85
#define INDICATOR_CHANCE 0.5
#define INDICATOR_CHANCE_WITH_SEVEN 0.85
#define INDICATOR_KEEP_SHARE 0.6
#define LAST_STOCK_WIN 3.0

/* -- tricks 11-16 -- */
#define ENDING_TRUMP_BASE 4.0
#define ENDING_PLAIN_PER_RANK 0.5
#define ENDING_ACE 6.0
#define ENDING_TEN 5.0
#define ENDING_TEN_UNDER_ACE 2.0
#define ENDING_LEAD_KEPT 2.0
#define ENDING_SWEEP_LIVE 3.0
#define ENDING_LEAD_LOST 2.0
#define ENDING_KEEP_SHARE_WON 0.3
#define ENDING_KEEP_SHARE_LOST 1.0
#define ENDING_TRUMP_LEAD_LOST 4.0
#define ENDING_LINE_TIEBREAK 0.01
#define ENDING_THROWN_POINTS 2

/* -- rule values the policy counts with (R15, R17, R18, R19) -- */
#define SEVEN_POINTS 10
#define LAST_CARD_POINTS 10
#define LAST_TRICK_POINTS 10

#endif
