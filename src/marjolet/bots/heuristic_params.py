"""The heuristic's tuning, every constant named once.

The heuristic policy exists in two languages: :mod:`marjolet.bots.heuristic`
(the reference, and the fallback without the C kernel) and
``_kernel/playout.c`` (the playouts of the search bots, decision for
decision the same). Both read their numbers from one list of names: this
module and its twin ``_kernel/heuristic_params.h``, with the same names and
values; tests/test_kernel_twins.py reads the header and checks that they
agree, and the agreement tests check the two policies' choices.

Values are in deal points unless said otherwise. Changing one means
changing it in both files (the test says so) and measuring the change in
the arena (docs/bots.md).
"""

from __future__ import annotations

# the rule values the policy counts with (R15, R17, R18, R19): the rules' own
from marjolet.rules import LAST_CARD_POINTS as LAST_CARD_POINTS
from marjolet.rules import LAST_TRICK_POINTS as LAST_TRICK_POINTS
from marjolet.rules import SEVEN_POINTS as SEVEN_POINTS

# -- tricks 1-10 -------------------------------------------------------------------

#: Keep value of a card in tricks 1-10 by rank (7 8 9 J Q K T A): what the
#: card is worth to hold rather than to spend, melds apart.
KEEP_PLAIN = (0.0, 0.3, 0.6, 1.0, 1.5, 2.0, 7.0, 10.0)
KEEP_TRUMP = (4.0, 4.5, 5.0, 6.0, 7.0, 8.0, 14.0, 17.0)
#: What the opponent's meld window is worth to the opponent, on average.
OPPONENT_WINDOW = 5.0
#: Worth of holding the lead (the next trick's initiative).
LEAD_VALUE = 1.0
#: Points the cheap card thrown on a won lead is expected to carry.
DISCARD_POINTS = 1.5
#: What a lead taken by the opponent costs beyond its own points.
LOST_LEAD_COST = 3.0
#: Chance that an opponent able to beat a lead does: a lead without points
#: (index 0) and one with points (index 1).
TAKE_CHANCE = (0.35, 0.9)
#: Chance to declare later a meld held complete now: REALISE_BASE plus
#: REALISE_PER_TRICK for each phase-1 trick left after this one, at most
#: REALISE_MAX.
REALISE_BASE = 0.35
REALISE_PER_TRICK = 0.15
REALISE_MAX = 0.85
#: Chance that the indicator reaches this hand: by the last draw, or by a
#: dix when the hand holds the seven of trumps.
INDICATOR_CHANCE = 0.5
INDICATOR_CHANCE_WITH_SEVEN = 0.85
#: Trick 10 (R15): the part of the indicator's keep value the loser gains by
#: taking it, and the winner's extra for keeping the lead into the ending.
INDICATOR_KEEP_SHARE = 0.6
LAST_STOCK_WIN = 3.0

# -- tricks 11-16 ------------------------------------------------------------------

#: Keep value of a card in the ending: a trump ENDING_TRUMP_BASE plus its
#: rank, another card its rank times ENDING_PLAIN_PER_RANK; an ace adds
#: ENDING_ACE, a ten ENDING_TEN (ENDING_TEN_UNDER_ACE while the opponent
#: holds that suit's ace).
ENDING_TRUMP_BASE = 4.0
ENDING_PLAIN_PER_RANK = 0.5
ENDING_ACE = 6.0
ENDING_TEN = 5.0
ENDING_TEN_UNDER_ACE = 2.0
#: A lead's one-trick score: the lead kept is worth ENDING_LEAD_KEPT (and
#: ENDING_SWEEP_LIVE more while the leader may still win all six), the lead
#: lost costs ENDING_LEAD_LOST; the led card's keep value counts for
#: ENDING_KEEP_SHARE_WON of itself when the trick is won, fully when lost; a
#: losing trump lead without more trumps than the opponent costs
#: ENDING_TRUMP_LEAD_LOST.
ENDING_LEAD_KEPT = 2.0
ENDING_SWEEP_LIVE = 3.0
ENDING_LEAD_LOST = 2.0
ENDING_KEEP_SHARE_WON = 0.3
ENDING_KEEP_SHARE_LOST = 1.0
ENDING_TRUMP_LEAD_LOST = 4.0
#: Weight of the one-trick score beside the greedy line's, to break ties.
ENDING_LINE_TIEBREAK = 0.01
#: A losing answer costs its keep value plus its points times this.
ENDING_THROWN_POINTS = 2
