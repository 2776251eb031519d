"""``sampler``: a stand-in for the outside bot of issue 25, in plain Python.

Issue 25 measured ``best`` against a sampled-world bot written outside this
project, in standard-library Python: about 700 worlds a move at 0.25 s,
heuristic playouts, exact endings from trick 8, every world enumerated at
trick 10, every meld and the seven declared at once. This module rebuilds
that bot from its description, apart from ``best``'s code and the C kernel
(the project's Python ending solver and exact phase-1 search are reused,
forced onto their pure-Python paths even when the kernel is built):

* **Meld window**: no search; the seven is exchanged, every meld declared
  (the most valuable first), then the draw.
* **Card plays of tricks 1-9**: worlds dealt uniformly
  (:func:`~marjolet.observation.sample_world`) until the time budget is
  spent; in each world every legal card is played and the world played out
  by the sampler's own short policy (:func:`playout_card`: lead low, take
  led points cheaply, win low tricks with low cards, throw the least;
  :func:`ending_card` after the last draw). From trick ``endings`` (8) on,
  the playout stops at the last draw and the ending is solved exactly.
* **Trick 10**: one hidden stock card is left: every world (each unseen
  card in the stock, the rest in the opponent's hand) is searched exactly
  (the last phase-1 trick by alpha-beta, windows declared at once, then the
  ending solver).
* **Tricks 11-16**: the exact ending solver's move.

The card with the best total over the worlds is played; the playout
policy's own choice breaks ties. At ``time=0.25,clock=cpu`` it evaluates
about 470-830 worlds a move in tricks 1-7 (every legal card in each),
1,200-2,000 in tricks 8-9 (docs/bots.md).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from marjolet.actions import DIX, DRAW, MELD_BASE
from marjolet.bots.base import Bot, BotSpecError, Param
from marjolet.bots.heuristic import public_deal
from marjolet.bots.search import CLOCK_PARAM, Budget, WorldEvaluator, check_budget, check_count
from marjolet.bots.solver import EndingSolver, ending_move
from marjolet.cards import ACES, CARD_POINTS, POINT_CARDS, SUIT_MASKS, mask_cards
from marjolet.engine import HAND, LEAD, POINTS, STOCK_CARDS, TURN, WINDOW, Deal
from marjolet.history import draw_positions
from marjolet.observation import Observation, sample_world, world_deal


class PythonEndingSolver(EndingSolver):
    """The ending solver on its pure-Python path, kernel or not (the
    outside bot has no C kernel)."""

    __slots__ = ()

    def _kernel_deal(self, deal: Deal) -> Any:
        return None


def _lowest(mask: int) -> int:
    """The lowest-ranked card of ``mask`` (any suit), -1 if empty."""
    best = -1
    while mask:
        b = mask & -mask
        mask ^= b
        c = b.bit_length() - 1
        if best < 0 or c & 7 < best & 7:
            best = c
    return best


def playout_card(world: Deal) -> int:
    """The playout policy's card in tricks 1-10 (the world's player to move).

    Leader: the lowest plain card without points, else the lowest plain
    card, else the lowest trump. Follower: an ace or ten led is taken with
    a higher card of its suit, else the lowest trump; a low card led is
    beaten with a higher low card of its suit; otherwise the lowest plain
    card without points is thrown."""
    s = world.state
    hand = s[HAND + s[TURN]]
    tmask = SUIT_MASKS[world.trump]
    plain = hand & ~tmask
    lead = s[LEAD]
    if lead >= 0:
        suit = SUIT_MASKS[lead >> 3]
        higher = hand & suit & ~((2 << lead) - 1)
        if lead >> 3 != world.trump:
            if CARD_POINTS[lead]:
                if higher:
                    return _lowest(higher)
                if hand & tmask:
                    return _lowest(hand & tmask)
            else:
                cheap = higher & ~POINT_CARDS
                if cheap:
                    return _lowest(cheap)
    cheap = plain & ~POINT_CARDS
    if cheap:
        return _lowest(cheap)
    if plain:
        return _lowest(plain)
    return _lowest(hand)


def window_choice(deal: Deal, legal: Sequence[int]) -> int:
    """Dix, then the most valuable meld, then draw: everything at once."""
    if DIX in legal:
        return DIX
    melds = [a for a in legal if MELD_BASE <= a < DIX]
    if melds:
        values = deal.meld_values
        return max(melds, key=lambda a: (values[a - MELD_BASE], -a))
    return DRAW


def ending_card(world: Deal) -> int:
    """The playout policy's card in tricks 11-16 (R16 legal): the follower
    wins with its lowest winning card, else throws its lowest; the leader
    cashes a plain ace, else leads its lowest plain card without points."""
    s = world.state
    legal = world.legal_mask()
    lead = s[LEAD]
    trump = world.trump
    if lead >= 0:
        suit = SUIT_MASKS[lead >> 3]
        higher = legal & suit & ~((2 << lead) - 1)
        if lead >> 3 != trump and not legal & suit:
            higher = legal & SUIT_MASKS[trump]
        if higher:
            return _lowest(higher)
        return _lowest(legal & ~POINT_CARDS) if legal & ~POINT_CARDS else _lowest(legal)
    plain = legal & ~SUIT_MASKS[trump]
    aces = plain & ACES
    if aces:
        return aces.bit_length() - 1
    cheap = plain & ~POINT_CARDS
    return _lowest(cheap) if cheap else _lowest(legal)


class SamplerEvaluator(WorldEvaluator):
    """:class:`WorldEvaluator` with the Python ending solver and the
    sampler's own playout policy. ``solve_endings`` (set per decision):
    playouts stop at the last draw and the ending is solved exactly;
    otherwise they go on to the end of the deal with :func:`ending_card`."""

    def __init__(self, exact_tricks: int = 1) -> None:
        super().__init__(exact_tricks)
        self.solve_endings = True

    def solver_for(self, deal: Deal) -> EndingSolver:
        key = (deal.trump, deal.seven_pending, deal.rules.all_tricks_bonus)
        solver = self._solvers.get(key)
        if solver is None or len(solver.table) > 400_000:
            solver = PythonEndingSolver.for_deal(deal)
            self._solvers[key] = solver
        return solver

    def playout_value(self, world: Deal, player: int) -> int:
        """One playout of the sampler's policy to the last draw, then the
        exact ending (or the policy to the end: see ``solve_endings``)."""
        pushed = 0
        try:
            while not world.stock_empty:
                if world.state[WINDOW]:
                    world.push(window_choice(world, world.legal_actions()))
                else:
                    world.push(playout_card(world))
                pushed += 1
            s = world.state
            if self.solve_endings and s[TURN] >= 0:
                v = self.ending_value(world)
                return v if s[TURN] == player else -v
            while world.state[TURN] >= 0:
                world.push(ending_card(world))
                pushed += 1
            s = world.state
            return s[POINTS + player] - s[POINTS + (player ^ 1)]
        finally:
            for _ in range(pushed):
                world.pop()


def every_world(obs: Observation) -> Iterator[Deal] | None:
    """Every world consistent with ``obs`` when at most one hidden stock
    card is left (trick 10), else ``None``."""
    hidden_stock = max(0, obs.stock_size - 1)
    if hidden_stock > 1:
        return None
    opp = obs.seat ^ 1
    unseen = mask_cards(obs.unseen.mask)
    missing = obs.hand_sizes[opp] - obs.opponent_known.mask.bit_count()
    if missing + hidden_stock != len(unseen):
        return None
    positions = draw_positions(obs.actions, obs.dealer, obs.trump, obs.seat)

    def worlds() -> Iterator[Deal]:
        choices = unseen if hidden_stock else [-1]
        for stock_card in choices:
            hidden = 0
            for c in unseen:
                if c != stock_card:
                    hidden |= 1 << c
            stock = [-1] * STOCK_CARDS
            if hidden_stock:
                stock[STOCK_CARDS - 1] = stock_card
            for idx, c in zip(positions, obs.draws, strict=False):
                if idx < STOCK_CARDS:
                    stock[idx] = c
            yield world_deal(obs, hidden, stock)

    return worlds()

#: The most ``worlds=`` a decision: about an hour at the slowest measured
#: rate, some 900-1,100 worlds a second (docs/bots.md).
MAX_WORLDS = 10**7


class SamplerBot(Bot):
    name = "sampler"
    description = (
        "plain-Python sampled-world player (the outside bot of issue 25): its own playouts, "
        "exact endings from trick 8, every world searched at trick 10, declares at once"
    )
    params = (
        Param("worlds", int, 100_000, "at most this many worlds per decision"),
        Param("time", float, 0.25, "seconds per decision (0 = no limit: worlds= decides)"),
        Param("endings", int, 8, "from this trick on, playouts end in the exact ending solver"),
        CLOCK_PARAM,
    )

    def __init__(self, *, seed: int | None = None, **options: object) -> None:
        super().__init__(seed=seed, **options)
        check_count(self.name, self.options, "worlds", 1, MAX_WORLDS)
        check_budget(self.name, self.options)
        if not 1 <= self.options["endings"] <= 11:
            raise BotSpecError(f"bot {self.name!r}: endings must be 1-11")
        self.evaluator = SamplerEvaluator(1)  # trick 10: exact (every world)
        self._ending: EndingSolver | None = None
        #: worlds evaluated at the last decision
        self.last_worlds = 0

    def new_match(self, seed: int | None = None) -> None:
        super().new_match(seed)
        self.evaluator.reset_tables()
        self._ending = None

    def choose(self, obs: Observation, legal: Sequence[int]) -> int:
        self.last_worlds = 0
        if len(legal) == 1:
            return legal[0]
        deal = public_deal(obs)
        if obs.in_window:
            return window_choice(deal, legal)
        if obs.stock_empty:
            if self._ending is None or not self._ending.matches(deal):
                self._ending = PythonEndingSolver.for_deal(deal)
            self._ending, action, _ = ending_move(self._ending, deal)
            return action
        totals = self._search(obs, legal)
        preferred = playout_card(deal)
        return max(legal, key=lambda a: (totals[a], a == preferred))

    def _search(self, obs: Observation, legal: Sequence[int]) -> dict[int, int]:
        """Each card's total value over the worlds of this decision."""
        me = obs.seat
        totals = dict.fromkeys(legal, 0)
        value = self.evaluator.value
        self.evaluator.reset_tables()
        self.evaluator.solve_endings = obs.tricks_played + 1 >= self.options["endings"]
        enumerated = every_world(obs)
        if enumerated is not None:
            worlds: Iterator[Deal] = enumerated
            budget = Budget(0.0)  # every world, whatever the time
            limit = 10**9
        else:
            worlds = (sample_world(obs, self.rng) for _ in iter(int, 1))
            budget = Budget(self.options["time"], self.options["clock"])
            limit = int(self.options["worlds"])
        count = 0
        for world in worlds:
            for a in legal:
                world.push(a)
                totals[a] += value(world, me)
                world.pop()
            count += 1
            if count >= limit or budget.spent():
                break
        self.last_worlds = count
        return totals


__all__ = [
    "PythonEndingSolver",
    "SamplerBot",
    "SamplerEvaluator",
    "every_world",
    "playout_card",
    "window_choice",
]
