"""Exact solver of the ending: tricks 11-16, once the stock is empty (R16, R17).

After the last draw both hands are known to both players (R23), so the rest
of the deal is a two-player game of perfect information. :func:`solve`
returns its exact value and the optimal actions from any such position, at a
trick boundary or in the middle of a trick.

The *value* is the final deal-score difference, player to move minus
opponent, counting the points already scored in the deal (R21): card points,
the last trick's 10, the all-six bonus (R17) and the seven of trumps when it
is played unexchanged (R19), under the deal's rules.

How it is fast in pure Python: the search never touches a
:class:`~marjolet.engine.Deal`. A position is two hand masks (the leader's
and the follower's) and a 2-bit *sweep code* saying who can still win all
six tricks; its value is stored relative to the leader, so a position seen
with either player leading is the same table entry. Alpha-beta works a trick
at a time (the leader maximises over leads, the follower minimises over
legal answers, R16), with a transposition table of bounds, the table's best
lead tried first, and *equivalent cards* collapsed: two cards of one suit
with nothing left between them in either hand and the same point value (an
ace and a ten, or a king and a jack once the queen is gone) always give the
same result, so only one of them is searched.

:func:`minimax_value` is the plain reference: minimax over the
:class:`~marjolet.engine.Deal` API (``legal_actions``, ``push``, ``pop``)
with no pruning at all. The tests and ``benchmarks/bench_solver.py`` check
that both agree.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from marjolet import kernel
from marjolet.cards import CARD_POINTS
from marjolet.engine import Deal
from marjolet.rules import LAST_TRICK_POINTS, SEVEN_POINTS
from marjolet.solution import NotAnEndingError, Solution, cheapness, check_ending
from marjolet.trick import BEATS, beats, follow_mask

__all__ = [
    "ENDING_TABLE_LIMIT",
    "INF",
    "EndingSolver",
    "NotAnEndingError",
    "Solution",
    "ending_move",
    "minimax_value",
    "representatives",
    "solve",
]

INF = 1 << 20

# Sweep codes, relative to the player to lead: bit 0 = the leader has won
# every trick 11-16 so far, bit 1 = the follower has. Both bits are set only
# before trick 11 is decided.
_LEADER_SWEEP = 1
_FOLLOWER_SWEEP = 2


# -- equivalent cards ------------------------------------------------------------

# Point class of each rank within a suit byte (7 8 9 J Q K T A): tens and aces
# score 10, the others nothing. A pending seven of trumps (R19) is a class of
# its own, so it is never merged with the eight.
_RANK_CLASS = (0, 0, 0, 0, 0, 0, 1, 1)
_RANK_CLASS_SEVEN = (2, 0, 0, 0, 0, 0, 1, 1)
_REPS: dict[int, int] = {}


def _suit_reps(key: int) -> int:
    """Representatives of one suit byte: ``key`` = own byte | others << 8 |
    seven-pending << 16. A card is dropped when the next higher card still in
    play in its suit is also one's own and has the same point class; the
    highest card of each run stays."""
    own = key & 255
    both = own | (key >> 8 & 255)
    classes = _RANK_CLASS_SEVEN if key >> 16 else _RANK_CLASS
    out = 0
    above = -1  # next higher card in play: rank, or -1
    for r in range(7, -1, -1):
        if not both >> r & 1:
            continue
        if own >> r & 1 and not (above >= 0 and own >> above & 1 and classes[above] == classes[r]):
            out |= 1 << r
        above = r
    _REPS[key] = out
    return out


def representatives(own: int, others: int, trump: int, seven_pending: bool) -> int:
    """The cards of ``own`` left after merging equivalent cards (see the
    module docstring); ``others`` are the other cards still in play."""
    reps = _REPS
    out = 0
    for s in range(4):
        shift = 8 * s
        key = (own >> shift & 255) | (others >> shift & 255) << 8
        if seven_pending and s == trump:
            key |= 1 << 16
        r = reps.get(key)
        if r is None:
            r = _suit_reps(key)
        out |= r << shift
    return out


# -- the solver --------------------------------------------------------------------


class EndingSolver:
    """Alpha-beta over endings for one context: the trump suit, whether the
    seven of trumps still scores when played, and the all-six bonus.

    The transposition table lives as long as the solver, so one solver can
    answer many positions of the same deal (or of sampled worlds sharing the
    trump and the seven's status) and reuse what it learnt. ``nodes`` counts
    the positions searched.
    """

    __slots__ = (
        "_ktable",
        "_pending_key",
        "bonus",
        "nodes",
        "seven",
        "seven_pending",
        "small",
        "table",
        "trump",
    )

    def __init__(self, trump: int, *, seven_pending: bool, all_tricks_bonus: int) -> None:
        self.trump = trump
        self.seven = trump * 8
        self.seven_pending = seven_pending
        self._pending_key = 1 << 16 if seven_pending else 0
        self.bonus = all_tricks_bonus
        self.table: dict[int, tuple[int, int, int]] = {}
        #: exact values of the positions with two cards each
        self.small: dict[int, int] = {}
        self.nodes = 0
        #: the C kernel's table when the kernel answers (see _kernel_deal)
        self._ktable: Any = None

    @classmethod
    def for_deal(cls, deal: Deal) -> EndingSolver:
        """A solver for the context of ``deal`` in its current state."""
        return cls(
            deal.trump,
            seven_pending=deal.seven_pending,
            all_tricks_bonus=deal.rules.all_tricks_bonus,
        )

    def matches(self, deal: Deal) -> bool:
        """Whether this solver's context is that of ``deal``."""
        return (
            self.trump == deal.trump
            and self.seven_pending == deal.seven_pending
            and self.bonus == deal.rules.all_tricks_bonus
        )

    # -- the search ----------------------------------------------------------

    def _leads(self, hl: int, hf: int) -> int:
        """The leader's leads worth searching (one card per equivalent run)."""
        reps = _REPS
        out = 0
        pk = self._pending_key
        t = self.trump
        for s in (0, 1, 2, 3):
            shift = 8 * s
            key = (hl >> shift & 255) | (hf >> shift & 255) << 8
            if pk and s == t:
                key |= pk
            r = reps.get(key)
            if r is None:
                r = _suit_reps(key)
            out |= r << shift
        return out

    def _answers(self, lead: int, hl: int, hf: int) -> int:
        """The follower's legal answers to ``lead`` (R16) worth searching;
        ``hl`` is the leader's hand after leading."""
        legal = follow_mask(lead, hf, self.trump)
        if legal & (legal - 1) == 0:
            return legal
        # equivalence relative to everything else in play, the led card included
        return self._leads(hf, hl | 1 << lead) & legal

    def value(self, hl: int, hf: int, code: int, alpha: int = -INF, beta: int = INF) -> int:
        """The leader's future score minus the follower's from a trick
        boundary, leader holding ``hl`` and follower ``hf`` (equal sizes),
        with sweep code ``code``. Fail-soft alpha-beta: exact when the result
        is strictly inside (alpha, beta), else a bound on the right side."""
        self.nodes += 1
        rest = hl & (hl - 1)
        if rest & (rest - 1) == 0:  # two cards each, or one: no table needed
            if rest == 0:
                return self._last_trick(hl, hf, code)
            key = (hl << 32 | hf) << 2 | code
            v = self.small.get(key)
            if v is None:
                v = self.small[key] = self._two_tricks(hl, hf, code)
            return v
        key = (hl << 32 | hf) << 2 | code
        entry = self.table.get(key)
        first = -1
        if entry is not None:
            lo, hi, first = entry
            if lo >= beta:
                return lo
            if hi <= alpha:
                return hi
            if lo == hi:
                return lo
            if lo > alpha:
                alpha = lo
            if hi < beta:
                beta = hi
        a0, b0 = alpha, beta
        pending = self.seven_pending
        seven = self.seven
        trump = self.trump
        beats_row = BEATS[trump]
        pk = self._pending_key
        reps = _REPS
        points = CARD_POINTS
        seven_points = SEVEN_POINTS
        best = -INF
        best_lead = 0
        # the leads worth searching: one card per run of equivalent cards
        leads = 0
        for s in (0, 1, 2, 3):
            shift = 8 * s
            k = (hl >> shift & 255) | (hf >> shift & 255) << 8
            if pk and s == trump:
                k |= pk
            r = reps.get(k)
            if r is None:
                r = _suit_reps(k)
            leads |= r << shift
        order = []
        if first >= 0 and leads >> first & 1:
            order.append(first)
            leads ^= 1 << first
        while leads:  # then from the highest card down
            c = leads.bit_length() - 1
            leads ^= 1 << c
            order.append(c)
        for lead in order:
            hl2 = hl ^ 1 << lead
            lead_pts = points[lead]
            lead_bonus = seven_points if pending and lead == seven else 0
            # the follower's legal answers (R16), equivalent ones merged
            answers = follow_mask(lead, hf, trump)
            if answers & (answers - 1):
                answers &= self._leads(hf, hl2 | 1 << lead)
            worst = INF
            floor = best if best > alpha else alpha
            while answers:
                b = answers & -answers
                answers ^= b
                ans = b.bit_length() - 1
                hf2 = hf ^ b
                pts = lead_pts + points[ans]
                ans_bonus = seven_points if pending and ans == seven else 0
                # window for the child, in this node's terms: (floor, worst)
                ceiling = worst if worst < beta else beta
                if not beats_row[lead << 5 | ans]:  # the leader wins (R8)
                    g = pts + lead_bonus - ans_bonus
                    v = g + self.value(hl2, hf2, code & 1, floor - g, ceiling - g)
                else:
                    g = lead_bonus - pts - ans_bonus
                    v = g - self.value(hf2, hl2, code >> 1, g - ceiling, g - floor)
                if v < worst:
                    worst = v
                    if worst <= floor:
                        break
            if worst > best:
                best = worst
                best_lead = lead
                if best >= beta:
                    break
        lo, hi = -INF, INF
        if entry is not None:
            lo, hi = entry[0], entry[1]
        if best <= a0:
            hi = best if best < hi else hi
        elif best >= b0:
            lo = best if best > lo else lo
        else:
            lo = hi = best
        self.table[key] = (lo, hi, best_lead)
        return best

    def _two_tricks(self, hl: int, hf: int, code: int) -> int:
        """Tricks 15 and 16 (two cards each), exactly, without the table."""
        pending = self.seven_pending
        seven = self.seven
        trump = self.trump
        beats_row = BEATS[trump]
        points = CARD_POINTS
        seven_points, last_trick = SEVEN_POINTS, LAST_TRICK_POINTS
        bonus = self.bonus
        best = -INF
        m = hl
        while m:
            lbit = m & -m
            m ^= lbit
            lead = lbit.bit_length() - 1
            last_l = hl ^ lbit
            answers = follow_mask(lead, hf, trump)
            worst = INF
            while answers:
                b = answers & -answers
                answers ^= b
                ans = b.bit_length() - 1
                last_f = hf ^ b
                diff = 0
                if pending:
                    if lead == seven:
                        diff = seven_points
                    elif ans == seven:
                        diff = -seven_points
                pts = points[lead] + points[ans]
                wins = not beats_row[lead << 5 | ans]
                # the last trick, led by this trick's winner
                if wins:
                    v = diff + pts
                    c1, c2 = last_l.bit_length() - 1, last_f.bit_length() - 1
                    sweep_first = code & 1
                else:
                    v = diff - pts
                    c1, c2 = last_f.bit_length() - 1, last_l.bit_length() - 1
                    sweep_first = code & 2
                d2 = 0
                if pending:
                    if c1 == seven:
                        d2 = seven_points
                    elif c2 == seven:
                        d2 = -seven_points
                p2 = points[c1] + points[c2] + last_trick
                first_wins = not beats_row[c1 << 5 | c2]
                # only the winner of trick 15 may still have won all six
                if first_wins:
                    d2 += p2 + (bonus if sweep_first else 0)
                else:
                    d2 -= p2
                v += d2 if wins else -d2
                if v < worst:
                    worst = v
            if worst > best:
                best = worst
        return best

    def _last_trick(self, hl: int, hf: int, code: int) -> int:
        """Trick 16: one card each, forced (R16, R17)."""
        return self.answer_value(hl.bit_length() - 1, hf.bit_length() - 1, 0, 0, code)

    def answer_value(
        self, lead: int, ans: int, hl: int, hf: int, code: int, alpha: int = -INF, beta: int = INF
    ) -> int:
        """The leader's future score minus the follower's after ``lead`` is
        answered by ``ans``; ``hl``/``hf`` are the hands after both cards left
        them. Exact inside (alpha, beta), a bound outside."""
        pts = CARD_POINTS[lead] + CARD_POINTS[ans]
        diff = 0
        if self.seven_pending:
            if lead == self.seven:
                diff += SEVEN_POINTS
            elif ans == self.seven:
                diff -= SEVEN_POINTS
        leader_wins = not beats(lead, ans, self.trump)
        if hl == 0:  # that was trick 16
            if leader_wins:
                return diff + pts + LAST_TRICK_POINTS + (self.bonus if code & _LEADER_SWEEP else 0)
            return diff - pts - LAST_TRICK_POINTS - (self.bonus if code & _FOLLOWER_SWEEP else 0)
        if leader_wins:
            g = diff + pts
            return g + self.value(hl, hf, 1 if code & _LEADER_SWEEP else 0, alpha - g, beta - g)
        g = diff - pts
        return g - self.value(hf, hl, 1 if code & _FOLLOWER_SWEEP else 0, g - beta, g - alpha)

    # -- positions of a Deal ---------------------------------------------------

    def _root(self, deal: Deal) -> tuple[int, int, int, int, int, int]:
        """(mover, hl, hf, lead, code, base): the position of ``deal`` in the
        solver's terms; ``base`` is the mover's points minus the opponent's."""
        check_ending(deal)
        p = deal.to_move
        lead_card = deal.lead
        lead = -1 if lead_card is None else lead_card
        leader = p if lead < 0 else p ^ 1
        won_l, won_f = deal.late_tricks(leader), deal.late_tricks(leader ^ 1)
        code = (_LEADER_SWEEP if won_f == 0 else 0) | (_FOLLOWER_SWEEP if won_l == 0 else 0)
        points = deal.points
        base = points[p] - points[p ^ 1]
        return p, deal.hand_mask(leader), deal.hand_mask(leader ^ 1), lead, code, base

    def action_value(self, deal: Deal, action: int, alpha: int = -INF, beta: int = INF) -> int:
        """The value (see :class:`Solution`) of playing card ``action`` in
        ``deal`` (exact inside (alpha, beta), a bound outside)."""
        _, hl, hf, lead, code, base = self._root(deal)
        if lead < 0:
            # the mover leads; the opponent answers and the mover's value is
            # the minimum over the answers
            hl2 = hl & ~(1 << action)
            worst = INF
            a, b = alpha - base, beta - base
            m = self._answers(action, hl2, hf)
            while m:
                bit = m & -m
                m ^= bit
                v = self.answer_value(
                    action, bit.bit_length() - 1, hl2, hf ^ bit, code, a, worst if worst < b else b
                )
                if v < worst:
                    worst = v
                    if worst <= a:
                        break
            return base + worst
        # the mover completes the trick: values are the leader's, negate
        a, b = alpha - base, beta - base
        v = self.answer_value(lead, action, hl, hf & ~(1 << action), code, -b, -a)
        return base - v

    # -- the C kernel's fast path --------------------------------------------

    def _kernel_deal(self, deal: Deal) -> Any:
        """The kernel copy of ``deal`` when the C kernel can answer for this
        solver (kernel built and enabled, same context), else ``None``.
        The kernel returns the same values and optimal sets (tests prove
        it); its table lives as long as this solver."""
        if not kernel.usable(deal) or not self.matches(deal):
            return None
        self._root(deal)  # the same errors as the Python path
        if self._ktable is None:
            self._ktable = kernel.new_table(14)
        return kernel.kernel_deal(deal)

    def _count_kernel_nodes(self) -> None:
        self.nodes += self._ktable.nodes
        self._ktable.nodes = 0

    def solve(self, deal: Deal) -> Solution:
        """The exact value of ``deal`` and its optimal actions."""
        kd = self._kernel_deal(deal)
        if kd is not None:
            value, mask = kd.solve(self._ktable)
            optimal = [c for c in range(32) if mask >> c & 1]
            order = kernel.preferred(deal, kd, optimal, self._ktable)
            self._count_kernel_nodes()
            return Solution(deal.to_move, value, tuple(order))
        p = deal.to_move
        legal = deal.legal_actions()
        self._root(deal)  # checks the position
        # the best value first, then which other actions reach it (null window)
        values: dict[int, int] = {}
        best = -INF
        for a in sorted(legal, reverse=True):
            v = self.action_value(deal, a, best - 1 if best > -INF else -INF, INF)
            values[a] = v
            if v > best:
                best = v
        optimal = [a for a in legal if values[a] >= best]
        return Solution(p, best, tuple(self.preferred(deal, optimal)))

    def exact_values(self, deal: Deal) -> dict[int, int]:
        """The exact value of every legal action (for hints and analysis)."""
        kd = self._kernel_deal(deal)
        if kd is not None:
            values: dict[int, int] = kd.ending_action_values(self._ktable)
            self._count_kernel_nodes()
            return values
        self._root(deal)
        return {a: self.action_value(deal, a) for a in deal.legal_actions()}

    def preferred(self, deal: Deal, optimal: Sequence[int]) -> list[int]:
        """Order equally optimal actions, the preferred first: the one that
        leaves the opponent most ways to go wrong (the highest mean value
        over the opponent's next legal answers, each then played optimally),
        then the lowest card (by rank, a non-trump before a trump)."""
        if len(optimal) <= 1:
            return list(optimal)
        scored = []
        for a in optimal:
            scored.append((-self._margin(deal, a), cheapness(a, self.trump), a))
        scored.sort()
        return [a for _, _, a in scored]

    def _margin(self, deal: Deal, action: int) -> float:
        """The mean value of ``action`` over the opponent's next decision."""
        p = deal.to_move
        deal.push(action)
        try:
            # the opponent's next decision: skip our own forced follow-ups
            if deal.is_over:
                return float(deal.points[p] - deal.points[p ^ 1])
            if deal.to_move == p:
                # we won the trick and lead again: the margin is our value
                return float(self.solve_value(deal))
            total = 0
            legal = deal.legal_actions()
            for a in legal:
                total -= self.action_value(deal, a)
            return total / len(legal)
        finally:
            deal.pop()

    def solve_value(self, deal: Deal) -> int:
        """The exact value of ``deal`` (see :class:`Solution`) without the
        optimal actions."""
        kd = self._kernel_deal(deal)
        if kd is not None:
            value: int = kd.ending_value(self._ktable)
            self._count_kernel_nodes()
            return value
        _, hl, hf, lead, code, base = self._root(deal)
        if lead < 0:
            return base + self.value(hl, hf, code)
        best = -INF
        for a in deal.legal_actions():
            v = self.action_value(deal, a, best, INF)
            if v > best:
                best = v
        return best


def solve(deal: Deal, solver: EndingSolver | None = None) -> Solution:
    """Solve the ending of ``deal`` (phase 2, at a trick boundary or in the
    middle of a trick). Raises :class:`NotAnEndingError` before trick 11."""
    if solver is None or not solver.matches(deal):
        solver = EndingSolver.for_deal(deal)
    return solver.solve(deal)


#: A reused ending table is dropped past this many entries (memory bound).
ENDING_TABLE_LIMIT = 200_000


def ending_move(
    solver: EndingSolver | None, deal: Deal
) -> tuple[EndingSolver, int, dict[int, int]]:
    """The exact ending's move for the search bots: the solver to keep (``solver``
    itself while it fits ``deal`` and its table is not too big, else a new
    one), the preferred optimal action and every legal action's value."""
    if solver is None or not solver.matches(deal) or len(solver.table) > ENDING_TABLE_LIMIT:
        solver = EndingSolver.for_deal(deal)
    values = solver.exact_values(deal)
    best = max(values.values())
    optimal = [a for a in deal.legal_actions() if values[a] == best]
    return solver, solver.preferred(deal, optimal)[0], values


def minimax_value(deal: Deal) -> int:
    """The reference: plain minimax over the Deal API, no pruning, no table.

    Returns the final deal-score difference for the player to move (the
    same quantity as :attr:`Solution.value`). Exponential: use it to check
    :func:`solve`, never to play.
    """
    if deal.stock_empty is False or deal.in_window:
        raise NotAnEndingError("minimax_value works on endings (tricks 11-16) only")
    me = deal.to_move
    if me < 0:
        raise NotAnEndingError("the deal is over: there is nothing to solve")

    def search() -> int:
        if deal.is_over:
            points = deal.points
            return points[me] - points[me ^ 1]
        maximise = deal.to_move == me
        best = -INF if maximise else INF
        for a in deal.legal_actions():
            deal.push(a)
            v = search()
            deal.pop()
            if (v > best) if maximise else (v < best):
                best = v
        return best

    return search()
