/* The heuristic policy of marjolet.bots.heuristic, ported to C action for
 * action (policy.c): the playout policy of the best bot's search. */
#ifndef MARJOLET_POLICY_H
#define MARJOLET_POLICY_H

#include "kernel.h"

/* The action HeuristicPolicy.act would choose in d (not over). Reads only
 * what the player to act may know (R23), like the Python policy. */
int mj_policy_action(const mk_deal *d);

/* Policy actions until the deal is over, or (stop_at_ending) until the
 * stock is empty. */
void mj_policy_playout(mk_deal *d, int stop_at_ending);

/* The cheap greedy ending: the one-trick rules of heuristic.py (a lead by
 * its lead score, no line played out; the follower's cheapest win), to the
 * end of the deal. d must be in phase 2 or over. */
void mj_fast_ending(mk_deal *d);

#endif
