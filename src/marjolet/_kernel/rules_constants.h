/* rules_constants.h -- the rule values the kernel counts with, each read
 * from its Python home (marjolet/cards.py, melds.py, rules.py, history.py).
 * Written by scripts/rules_header.py: do not edit by hand. After a change
 * to a rule value run `PYTHONPATH=src python scripts/rules_header.py` and
 * rebuild the kernel; tests/test_kernel_rules_constants.py fails until the
 * header agrees. Included by kernel.h. */
#ifndef MARJOLET_RULES_CONSTANTS_H
#define MARJOLET_RULES_CONSTANTS_H

/* the deal's structure (history.py) */
#define MK_STOCK_CARDS 19       /* hidden stock: deck[13..31] (R5) */
#define MK_PHASE1_TRICKS 10     /* tricks with a meld window (R9) */
#define MK_LAST_TRICK 16        /* the last trick (R17) */

/* the fixed scores (rules.py, cards.py) */
#define MK_SEVEN_POINTS 10      /* the seven of trumps (R18, R19) */
#define MK_LAST_CARD_POINTS 10  /* the last stock card (R15) */
#define MK_LAST_TRICK_POINTS 10 /* the last trick (R17) */
#define MK_POINT_CARD_POINTS 10 /* an ace or a ten captured (R2) */

/* the classic profile: the kernel's rules when none are given (rules.CLASSIC) */
#define MK_CLASSIC_PATTERN_222 0
#define MK_CLASSIC_DIX_ON_PLAY 1
#define MK_CLASSIC_SAME_SUIT 0
#define MK_CLASSIC_ONE_MELD 0
#define MK_CLASSIC_ALL_TRICKS_BONUS 50

/* card points by card 0-31 (cards.CARD_POINTS, R2) */
#define MK_CARD_POINTS_INIT { \
    0, 0, 0, 0, 0, 0, 10, 10, \
    0, 0, 0, 0, 0, 0, 10, 10, \
    0, 0, 0, 0, 0, 0, 10, 10, \
    0, 0, 0, 0, 0, 0, 10, 10 \
}

/* meld values [trump][meld id] (melds.MELD_VALUES, R11) */
#define MK_MELD_VALUES_INIT { \
    {100, 80, 60, 40, 40, 20, 20, 20, 40, 20, 20, 20}, \
    {100, 80, 60, 40, 20, 40, 20, 20, 20, 40, 20, 20}, \
    {100, 80, 60, 40, 20, 20, 40, 20, 20, 20, 40, 20}, \
    {100, 80, 60, 40, 20, 20, 20, 40, 20, 20, 20, 40} \
}

#endif
