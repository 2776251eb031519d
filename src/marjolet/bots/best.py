"""``best``: the strongest bot, a sampled-world search on the C kernel.

At each decision it deals the cards it cannot see many times, consistently
with its observation (the C sampler of ``_kernel/sample.c``, the twin of
:func:`~marjolet.observation.sample_world`), and scores **every** legal
action in each world as if all cards were known (``_kernel/search.c``):

* in the last ``exact`` tricks of phase 1: the exact perfect-information
  search of the world (its stock order is known);
* earlier: a playout to the last draw by the kernel's tuned policy (the
  heuristic plus a term learned from ``best``'s own decisions,
  ``_kernel/policy_weights.h``) with one card play in eight made at
  random (``eval=tuned``: the noise lets each world stand for the ways
  play can go), then the exact ending solver;
* tricks 11-16 (nothing is hidden, R23): the exact ending solver's move.

It plays the action with the best mean. The search runs in C calls of a
few milliseconds each, with the budget checked between calls, so it uses
its whole ``time=`` (``clock=wall|cpu``).

Inference (``infer=``): worlds that contradict what the opponent did are
dealt less often. A player who won a trick, declared nothing and still
holds the cards of a meld would probably have declared it; one who kept
the seven of trumps unexchanged in its window probably did not hold it.
Such worlds are kept only with probability ``infer`` (1 = no inference).
With ``recent=1`` a window speaks only of the cards held at it, allowing
for the opponent's draws since (better calibrated, not stronger: off).

Issue 25 (``declare=``, ``match=``, ``paired=``): the bot exchanges the
seven and declares every meld as soon as a window opens (in a sampled world
the search knows which later tricks it wins, so holding a meld back looks
free: strategy fusion); it maximises its chance of winning the match, read
from the match totals through :mod:`marjolet.bots.match_odds`, rather than
the deal margin; and the playouts of every action of a world share their
random numbers (common random numbers), so the actions' differences are
less noisy.

Without the kernel (``MARJOLET_KERNEL=0`` or no C build) the same search
runs in pure Python on :func:`~marjolet.observation.sample_world` and
:class:`~marjolet.bots.search.WorldEvaluator`, far fewer worlds a second.
"""

from __future__ import annotations

import dataclasses
import math
import random
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from marjolet.actions import DIX, DRAW, MELD_BASE
from marjolet.bots.base import Bot, BotSpecError, Param
from marjolet.bots.heuristic import POLICY, public_deal
from marjolet.bots.match_odds import final_points, outcome_utility, utility_of
from marjolet.bots.search import (
    CLOCK_PARAM,
    CLOCKS,
    TIME_PARAM,
    Budget,
    WorldEvaluator,
    check_budget,
    check_count,
)
from marjolet.bots.solver import EndingSolver, ending_move
from marjolet.cards import SEVEN, card
from marjolet.engine import PHASE1_TRICKS, STOCK_CARDS, Deal, draw_positions, public_turns
from marjolet.history import phase1_tricks_left
from marjolet.kernel import KERNEL, kernel_deal, supports
from marjolet.melds import MELD_CARDS
from marjolet.observation import Observation, observe, sample_world, world_deal
from marjolet.rules import CLASSIC, SAME_SUIT, Rules

#: Seconds of search per kernel call; the budget is checked between calls.
CALL_SECONDS = 0.002
#: From this budget a move on, worlds are solved exactly over the last three
#: phase-1 tricks (about 2 ms a world from trick 8), below it over two
#: (about 0.15 ms a world from trick 9).
EXACT3_SECONDS = 0.2
#: log2 of the kernel table sizes (entries of 32 bytes), see _table_for.
SMALL_TABLE = 11
LARGE_TABLE = 16
#: The kernel's scoring of a world before the exact horizon (search.h).
EVAL_MODES = {"solve": 0, "playout": 1, "random": 2, "fast": 3, "noisy": 4, "tuned": 5}
#: Meld windows: ``now`` declares everything at once (the heuristic's window
#: play; under ``one_meld_per_window`` the search picks the one meld, never
#: the draw), ``search`` lets the search hold melds back.
DECLARE_MODES = ("now", "search")
#: Play for the match (its winning chance) once a total reaches this.
MATCH_DEFAULT = 0
#: Common random numbers for the playouts of a world's actions.
PAIRED_DEFAULT = 1
#: ``infer``'s default: a world contradicting the opponent's windows is
#: kept one time in ten (0.3 until 2 December 2026, fourth session: 0.1
#: won 61.8% of 400 matches against the frozen ``best``, 0.3 57.8%; on
#: two more seeds 59.0%, 60.4% of 800 in all; docs/bots.md).
INFER_DEFAULT = 0.1
#: ``recent``'s default: whether the window inference allows for the
#: cards the opponent drew since its window.
RECENT_DEFAULT = 0

#: The kernel's limit on ``noise`` (one random card play in ``noise``).
MAX_NOISE = 1000


@dataclass(frozen=True, slots=True)
class WorldSpec:
    """What a world must respect, from one observation: the unseen cards
    (``opp_missing`` of them in the opponent's hand, the rest in stock
    positions ``first_slot``..18), the known stock cards (the seat's own
    draws, -1 elsewhere) and the inference constraints (``soft``: a world
    whose opponent holds all of ``mask`` is kept with probability ``p``)."""

    unseen: int
    opp_missing: int
    first_slot: int
    stock: tuple[int, ...]
    soft: tuple[tuple[int, float], ...] = ()


def world_spec(obs: Observation, accept: float = 1.0, recent: bool = False) -> WorldSpec:
    """The sampling problem of ``obs`` (see :func:`sample_world`)."""
    opp = obs.seat ^ 1
    missing = obs.hand_sizes[opp] - obs.opponent_known.mask.bit_count()
    hidden_stock = max(0, obs.stock_size - 1)
    stock = [-1] * STOCK_CARDS
    positions = draw_positions(obs.actions, obs.dealer, obs.trump, obs.seat)
    for idx, c in zip(positions, obs.draws, strict=False):
        if idx < STOCK_CARDS - hidden_stock:
            stock[idx] = c
    soft = inference_constraints(obs, accept, recent) if accept < 1.0 else ()
    return WorldSpec(obs.unseen.mask, missing, STOCK_CARDS - hidden_stock, tuple(stock), soft)


def inference_constraints(
    obs: Observation, accept: float, recent: bool = False
) -> tuple[tuple[int, float], ...]:
    """Card sets the opponent probably does not hold whole, from its meld
    windows (R9-R14): a meld it never declared although it closed a window
    in which it could have (under ``one_meld_per_window``: a window in which
    it declared nothing), and the seven of trumps it did not exchange while
    the exchange was open. Only cards still unseen are constrained.

    With ``recent``, a world is held against the opponent only as far as it
    says the opponent held those cards *at* its last such window: the cards
    it drew since (one a trick) may have completed the meld, so a world is
    kept with probability ``1 - (1 - accept) * p``, ``p`` the chance that
    none of the constrained cards is among its recent draws
    (:func:`held_since_window`)."""
    opp = obs.seat ^ 1
    trump = obs.trump
    seven = card(SEVEN, trump)
    one_meld = obs.rules.one_meld_per_window
    meld_window = -1  # the opponent's last window closed with every declaration possible
    seven_window = -1  # its last window closed while it could have exchanged
    seven_open = obs.turned_up != seven
    declared_here = False
    for i, (a, (actor, _tricks)) in enumerate(
        zip(obs.actions, public_turns(obs.actions, obs.dealer, trump), strict=True)
    ):
        if a in (seven, DIX):
            seven_open = False  # exchanged, or played: no exchange any more
        if actor != opp or a < MELD_BASE:
            continue
        if a == DRAW:
            if not (one_meld and declared_here):
                meld_window = i
            if seven_open:
                seven_window = i
            declared_here = False
        elif a < DIX:
            declared_here = True
    unseen = obs.unseen.mask

    def keep(mask: int, window: int) -> float:
        if not recent:
            return accept
        held = held_since_window(obs, window, mask.bit_count())
        return 1.0 - (1.0 - accept) * held

    possible = unseen | obs.opponent_known.mask
    out: list[tuple[int, float]] = []
    if meld_window >= 0:
        scored = obs.melds[opp]
        for m, need in enumerate(MELD_CARDS[obs.rules.jack_queen == SAME_SUIT][trump]):
            if scored >> m & 1 or need & ~possible or not need & unseen:
                continue
            out.append((need & unseen, keep(need & unseen, meld_window)))
    if seven_window >= 0 and unseen >> seven & 1:
        out.append((1 << seven, keep(1 << seven, seven_window)))
    return tuple(out)


def held_since_window(obs: Observation, window: int, cards: int) -> float:
    """The chance that ``cards`` given hidden cards of the opponent's hand
    were all in its hand already at its window closed by action ``window``
    (rather than drawn since), were each card it played since as likely to
    be any card of its hand. A small dynamic programme over the number of
    hidden cards drawn since that are still in its hand."""
    events = _draws_and_plays_since(obs, window)
    size = obs.hand_sizes[obs.seat ^ 1] - sum(1 if e >= 0 else -1 for e in events)
    recent = {0: 1.0}  # hidden cards drawn since the window, still held: chance
    for e in events:
        if e >= 0:
            size += 1
            if e:
                recent = {r + 1: p for r, p in recent.items()}
            continue
        after: dict[int, float] = {}
        for r, p in recent.items():
            gone = r / size if size else 0.0
            after[r] = after.get(r, 0.0) + p * (1.0 - gone)
            if r:
                after[r - 1] = after.get(r - 1, 0.0) + p * gone
        recent = after
        size -= 1
    hidden = obs.hand_sizes[obs.seat ^ 1] - obs.opponent_known.mask.bit_count()
    if hidden < cards:
        return 0.0
    total = math.comb(hidden, cards)
    return sum(p * math.comb(max(0, hidden - r), cards) / total for r, p in recent.items())


def _draws_and_plays_since(obs: Observation, window: int) -> list[int]:
    """The opponent's hand changes from action ``window`` on: 1 a hidden
    card drawn, 0 a known one (the indicator, taken by the loser of trick
    10), -1 a card played."""
    opp = obs.seat ^ 1
    turns = list(public_turns(obs.actions, obs.dealer, obs.trump))
    events = []
    for a, (actor, tricks) in zip(obs.actions[window:], turns[window:], strict=True):
        if a == DRAW:
            events.append(0 if tricks == PHASE1_TRICKS and actor != opp else 1)
        elif actor == opp and a < MELD_BASE:
            events.append(-1)
    return events


def base_deal(obs: Observation, spec: WorldSpec) -> Deal:
    """The deal holding what ``obs`` shows: the opponent's hand is its known
    part, the stock holds only the seat's own draws."""
    return Deal.from_state(
        obs.rules, obs.dealer, obs.turned_up, spec.stock, obs.public_state, moves=obs.actions
    )


def worlds_from_kernel(obs: Observation, n: int, seed: int, accept: float = 1.0) -> list[Deal]:
    """``n`` worlds dealt by the kernel's sampler for ``obs`` (for tests and
    analysis); raises ``RuntimeError`` without the kernel."""
    if KERNEL is None:
        raise RuntimeError("the C kernel is not available")
    spec = world_spec(obs, accept)
    kdeal = kernel_deal(base_deal(obs, spec))
    out = []
    for hidden, stock in KERNEL.sample(
        kdeal, obs.seat, spec.unseen, spec.opp_missing, spec.first_slot, n, seed, None, spec.soft
    ):
        out.append(world_deal(obs, hidden, stock))
    return out


class Estimates:
    """Per-action sums over worlds: the mean and its standard error."""

    __slots__ = ("sums", "sumsqs", "usums", "worlds")

    def __init__(self, legal: Sequence[int]) -> None:
        self.sums = dict.fromkeys(legal, 0.0)
        self.sumsqs = dict.fromkeys(legal, 0.0)
        #: sums of the match utility (the chance of winning the match), when used
        self.usums: dict[int, float] | None = None
        self.worlds = 0

    def key(self, a: int) -> tuple[float, float]:
        """What the bot maximises: the mean match utility when it was used
        (ties, e.g. a match won or lost in every world, go to the deal
        margin), else the mean deal margin."""
        u = self.usums[a] / self.worlds if self.usums is not None and self.worlds else 0.0
        return (u, self.mean(a))

    def mean(self, a: int) -> float:
        return self.sums[a] / self.worlds if self.worlds else 0.0

    def stderr(self, a: int) -> float:
        n = self.worlds
        if n < 2:
            return math.inf if n == 0 else 0.0
        mean = self.sums[a] / n
        var = max(0.0, (self.sumsqs[a] - n * mean * mean) / (n - 1))
        return math.sqrt(var / n)


_TIME = dataclasses.replace(TIME_PARAM, default=0.5)


class BestBot(Bot):
    name = "best"
    #: The most ``worlds=`` a decision: about an hour at the slowest
    #: measured rate, some 1,600-2,700 worlds a second (docs/bots.md).
    max_worlds = 10**7
    description = (
        "the strongest: sampled-world search in C (exact late phase 1 and ending, noisy "
        "playouts of a learned policy before, inference from the opponent's windows, plays "
        "for the match)"
        + ("" if KERNEL is not None else " [C kernel unavailable: pure-Python search, slow]")
    )
    params: ClassVar[tuple[Param, ...]] = (
        _TIME,
        CLOCK_PARAM,
        Param("worlds", int, 0, "at most this many worlds per decision (0 = no cap)"),
        Param(
            "exact",
            int,
            -1,
            "solve worlds exactly when this many phase-1 tricks remain (-1 = by budget: "
            f"3 from {EXACT3_SECONDS} s a move, else 2)",
        ),
        Param(
            "eval",
            str,
            "tuned",
            "scoring before the exact horizon: tuned (playout of the tuned policy, one card "
            "in 8 random, + exact ending), noisy (the same with the heuristic), solve "
            "(heuristic playout + exact ending), playout, random, fast (playout + the "
            "kernel's fast ending policy)",
        ),
        Param(
            "noise",
            int,
            8,
            "with eval=tuned or noisy: one card play in this many of each playout is random "
            "(0 = none)",
        ),
        Param(
            "infer",
            float,
            INFER_DEFAULT,
            "keep-probability of worlds contradicting the opponent's windows (1 = no inference)",
        ),
        Param(
            "recent",
            int,
            RECENT_DEFAULT,
            "1: a window only speaks of the cards held then (the opponent's draws since "
            "may complete a meld), 0: of its whole hand now",
        ),
        Param(
            "paired",
            int,
            PAIRED_DEFAULT,
            "1: in each world every action's playout draws the same random numbers "
            "(common random numbers), 0: independent playouts",
        ),
        Param(
            "match",
            int,
            MATCH_DEFAULT,
            "maximise the chance of winning the match (not the deal margin) once a "
            "total reaches this many points (0 = always, -1 = never)",
        ),
        Param(
            "declare",
            str,
            "now",
            "meld windows: now (exchange the seven and declare every meld at once, as "
            "strong players do) or search (the search may hold them back)",
        ),
    )

    def __init__(self, *, seed: int | None = None, **options: object) -> None:
        super().__init__(seed=seed, **options)
        check_budget(self.name, self.options)
        check_count(self.name, self.options, "worlds", 0, self.max_worlds)
        if self.options["time"] == 0 and self.options["worlds"] == 0:
            raise BotSpecError(f"bot {self.name!r}: give time > 0 or worlds > 0 (or both)")
        if not -1 <= self.options["exact"] <= 10:
            raise BotSpecError(f"bot {self.name!r}: exact must be 0-10, or -1 (by budget)")
        if self.options["eval"] not in EVAL_MODES:
            raise BotSpecError(f"bot {self.name!r}: eval must be one of {', '.join(EVAL_MODES)}")
        if not 0 <= self.options["noise"] <= MAX_NOISE:
            raise BotSpecError(f"bot {self.name!r}: noise must be 0-{MAX_NOISE}")
        if not 0.0 <= self.options.get("infer", 1.0) <= 1.0:
            raise BotSpecError(f"bot {self.name!r}: infer must be in [0, 1]")
        if self.options["recent"] not in (0, 1):
            raise BotSpecError(f"bot {self.name!r}: recent must be 0 or 1")
        if self.options["paired"] not in (0, 1):
            raise BotSpecError(f"bot {self.name!r}: paired must be 0 or 1")
        if self.options["match"] < -1:
            raise BotSpecError(f"bot {self.name!r}: match must be >= 0, or -1 (never)")
        if self.options["declare"] not in DECLARE_MODES:
            raise BotSpecError(
                f"bot {self.name!r}: declare must be one of {', '.join(DECLARE_MODES)}"
            )
        #: kernel tables: a small one (cache-friendly) when every world is
        #: scored by playouts and six-card endings, a large one when the
        #: exact phase-1 search runs
        self._tables: dict[bool, Any] = {}
        self._evaluator: WorldEvaluator | None = None
        self._ending: EndingSolver | None = None
        #: worlds evaluated at the last decision (benchmarks, hints)
        self.last_worlds = 0
        #: mean value of each action at the last decision (hints)
        self.last_values: dict[int, float] = {}

    def exact_tricks(self) -> int:
        """The exact horizon in phase-1 tricks (``exact``, or by budget)."""
        exact = int(self.options["exact"])
        if exact >= 0:
            return exact
        return 3 if self.options["time"] >= EXACT3_SECONDS else 2

    @property
    def uses_kernel(self) -> bool:
        return KERNEL is not None

    def new_match(self, seed: int | None = None) -> None:
        super().new_match(seed)
        self._ending = None
        for table in self._tables.values():
            table.clear()
        self._evaluator = None

    # -- the decision ----------------------------------------------------------------

    def choose(self, obs: Observation, legal: Sequence[int]) -> int:
        if len(legal) == 1:
            self.last_values = {legal[0]: 0.0}
            return legal[0]
        if obs.stock_empty:
            return self._ending_move(obs)[0]
        preferred = POLICY.act(public_deal(obs), legal)
        if obs.in_window and self.options["declare"] == "now" and preferred != DRAW:
            # declare at once: in a sampled world the search knows which later
            # tricks it wins, so holding a meld back looks free (strategy fusion)
            legal = [a for a in legal if a != DRAW]
            if not obs.rules.one_meld_per_window or len(legal) == 1:
                self.last_values = {}  # nothing searched: no value to give
                return preferred
        est = self._search(obs, legal)
        return max(legal, key=lambda a: (est.key(a), a == preferred))

    def estimate(self, obs: Observation, legal: Sequence[int]) -> dict[int, tuple[float, float]]:
        """The mean final deal-score difference (the seat minus its
        opponent, points already scored included) of each legal action and
        its standard error, within the bot's budget. Exact (error 0) once
        the stock is empty."""
        if not legal:
            raise ValueError("estimate: there is no legal action")
        if obs.stock_empty:
            values = self._ending_move(obs)[1]
            return {a: (float(values[a]), 0.0) for a in legal}
        est = self._search(obs, legal)
        return {a: (est.mean(a), est.stderr(a)) for a in legal}

    def _search(self, obs: Observation, legal: Sequence[int]) -> Estimates:
        budget = Budget(self.options["time"], self.options["clock"])
        if supports(obs.rules):
            est = self._kernel_search(obs, legal, budget)
        else:
            est = self._python_search(obs, legal, budget)
        self.last_worlds = est.worlds
        self.last_values = {a: est.mean(a) for a in legal}
        return est

    # -- where the worlds come from (the cheater overrides these) ---------------------

    def _world_source(self, obs: Observation) -> tuple[Any, WorldSpec]:
        """The kernel deal holding what ``obs`` shows and what the sampler
        must fill in (the unseen cards, the inference constraints)."""
        spec = world_spec(obs, self.options["infer"], bool(self.options["recent"]))
        return kernel_deal(base_deal(obs, spec)), spec

    def _world_cap(self, obs: Observation) -> float:
        """At most this many worlds for the decision at ``obs``."""
        return float(self.options["worlds"] or math.inf)

    def _python_world(self, obs: Observation) -> Deal:
        """One world for the pure-Python search."""
        return sample_world(obs, self.rng)

    def _kernel_search(self, obs: Observation, legal: Sequence[int], budget: Budget) -> Estimates:
        kdeal, spec = self._world_source(obs)
        exact = self.exact_tricks()
        table = self._table_for(obs, exact)
        est = Estimates(legal)
        cap = self._world_cap(obs)
        timed = self.options["time"] > 0
        clock = CLOCKS[self.options["clock"]]
        chunk = 2
        mode = EVAL_MODES[self.options["eval"]]
        seat = obs.seat
        utility = self._utility(obs)
        if utility is not None:
            est.usums = dict.fromkeys(legal, 0.0)
        while est.worlds < cap:
            n = int(min(chunk, cap - est.worlds))
            start = clock()
            done, actions, sums, sumsqs, usums = KERNEL.pimc(
                kdeal,
                table,
                seat,
                spec.unseen,
                spec.opp_missing,
                spec.first_slot,
                n,
                self.rng.getrandbits(64),
                exact,
                mode,
                None,
                spec.soft,
                self.options["noise"],
                utility,
                bool(self.options["paired"]),
            )
            spent = clock() - start
            for a, s, q, u in zip(actions, sums, sumsqs, usums, strict=True):
                if a in est.sums:
                    est.sums[a] += s
                    est.sumsqs[a] += q
                    if est.usums is not None:
                        est.usums[a] += u
            est.worlds += done
            if budget.spent():
                break
            if timed and spent > 0:
                chunk = max(1, min(chunk * 4, int(n * CALL_SECONDS / spent)))
            else:
                chunk = min(chunk * 2, 256)
        return est

    def _utility(self, obs: Observation) -> bytes | None:
        """The kernel's match-utility grid when the bot plays for the match
        here (a total has reached ``match``), else None (deal margin)."""
        threshold = self.options["match"]
        if threshold < 0 or max(obs.totals) < threshold:
            return None
        seat = obs.seat
        totals = (obs.totals[seat], obs.totals[seat ^ 1])
        return outcome_utility(totals, obs.dealer == seat, obs.rules.target)

    def _table_for(self, obs: Observation, exact: int) -> Any:
        """A cleared kernel table for this decision: small (2^11 entries,
        the fastest for the endings of playouts, which rarely recur across
        worlds) unless the exact search may run within the next action."""
        tricks_left = phase1_tricks_left(obs)
        large = tricks_left - 1 <= exact
        table = self._tables.get(large)
        if table is None:
            table = self._tables[large] = KERNEL.Table(LARGE_TABLE if large else SMALL_TABLE)
        table.clear()
        return table

    def _python_search(self, obs: Observation, legal: Sequence[int], budget: Budget) -> Estimates:
        if self._evaluator is None:
            self._evaluator = WorldEvaluator(min(1, self.exact_tricks()))
        evaluator = self._evaluator
        evaluator.reset_tables()
        est = Estimates(legal)
        cap = self._world_cap(obs)
        me = obs.seat
        while est.worlds < cap:
            world = self._python_world(obs)
            for a in legal:
                world.push(a)
                v = float(evaluator.value(world, me))
                world.pop()
                est.sums[a] += v
                est.sumsqs[a] += v * v
            est.worlds += 1
            if budget.spent():
                break
        return est

    def _ending_move(self, obs: Observation) -> tuple[int, dict[int, int]]:
        """The exact ending: the preferred optimal card and every value."""
        deal = public_deal(obs)  # phase 2: both hands are public (R23)
        self._ending, action, values = ending_move(self._ending, deal)
        self.last_values = {a: float(v) for a, v in values.items()}
        return action, values

    # -- paired values, one world at a time (the game review) --------------------------

    def world_values(self, obs: Observation, legal: Sequence[int]) -> Iterator[dict[int, float]]:
        """Every legal action's value in one more sampled world, endlessly:
        the worlds, their scoring (``exact``, ``eval``, ``noise``, ``infer``)
        and the values are those of :meth:`estimate`, but each world comes
        alone, so that a caller can pair two actions over the same worlds
        (the standard error of a difference) and decide itself when to stop
        (``time=`` and ``worlds=`` are not applied). Phase 1 only."""
        for values, _ in self._world_samples(obs, legal, None):
            yield values

    def world_chances(
        self, obs: Observation, legal: Sequence[int]
    ) -> Iterator[tuple[dict[int, float], dict[int, float]]]:
        """As :meth:`world_values`, with each action's chance of winning the
        match in the same world: the match table's value of the final deal
        points the world leads to, from the totals of ``obs``
        (:func:`~marjolet.bots.match_odds.outcome_utility`, what the search
        maximises when it plays for the match). Phase 1 only."""
        seat = obs.seat
        totals = (obs.totals[seat], obs.totals[seat ^ 1])
        grid = outcome_utility(totals, obs.dealer == seat, obs.rules.target)
        for values, chances in self._world_samples(obs, legal, grid):
            assert chances is not None
            yield values, chances

    def plays_for_match(self, obs: Observation) -> bool:
        """Whether the bot maximises its chance of winning the match at
        ``obs`` (``match=``), rather than the deal margin."""
        return self._utility(obs) is not None

    def _world_samples(
        self, obs: Observation, legal: Sequence[int], grid: bytes | None
    ) -> Iterator[tuple[dict[int, float], dict[int, float] | None]]:
        if not legal or obs.stock_empty:
            raise ValueError("world_values: a phase-1 decision with legal actions is needed")
        if not supports(obs.rules):
            yield from self._python_world_samples(obs, legal, grid)
            return
        kdeal, spec = self._world_source(obs)
        exact = self.exact_tricks()
        table = self._table_for(obs, exact)
        args = (obs.seat, spec.unseen, spec.opp_missing, spec.first_slot, 1)
        mode, noise = EVAL_MODES[self.options["eval"]], self.options["noise"]
        paired = bool(self.options["paired"])
        while True:
            seed = self.rng.getrandbits(64)
            _, actions, sums, _, usums = KERNEL.pimc(
                kdeal, table, *args, seed, exact, mode, None, spec.soft, noise, grid, paired
            )
            values = dict(zip(actions, sums, strict=True))
            chances = dict(zip(actions, usums, strict=True)) if grid is not None else None
            yield (
                {a: float(values[a]) for a in legal},
                None if chances is None else {a: float(chances[a]) for a in legal},
            )

    def _python_world_samples(
        self, obs: Observation, legal: Sequence[int], grid: bytes | None
    ) -> Iterator[tuple[dict[int, float], dict[int, float] | None]]:
        """The pure-Python worlds; the chances from each action's final deal
        points (:func:`~marjolet.bots.match_odds.final_points` of the position
        after the action and its value), read in ``grid`` as the kernel does."""
        evaluator = WorldEvaluator(min(1, self.exact_tricks()))
        while True:
            world = self._python_world(obs)
            values: dict[int, float] = {}
            chances: dict[int, float] = {}
            for a in legal:
                world.push(a)
                v = evaluator.value(world, obs.seat)
                if grid is not None:
                    chances[a] = utility_of(grid, final_points(world, obs.seat, v))
                world.pop()
                values[a] = float(v)
            yield values, (chances if grid is not None else None)


# -- the speed figure -------------------------------------------------------------------


def early_positions(n: int, seed: int = 1, rules: Rules = CLASSIC) -> list[Observation]:
    """Observations of the player to act in tricks 1-3 of random deals,
    reached by heuristic play (a spread of leads, follows and windows)."""
    rng = random.Random(seed)
    out: list[Observation] = []
    while len(out) < n:
        deck = list(range(32))
        rng.shuffle(deck)
        deal = Deal(deck, rng.randrange(2), rules)
        for _ in range(rng.randrange(0, 12)):
            deal.push(POLICY.act(deal))
        if deal.tricks_played < 3 and len(deal.legal_actions()) > 1:
            out.append(observe(deal, deal.to_move))
    return out


def measure_worlds_per_s(
    positions: int = 20, worlds: int = 1000, seed: int = 1, spec: str = "best"
) -> float:
    """Sampled worlds a second (CPU time, this process, one core) of the
    best bot's phase-1 search on early-phase-1 positions of random deals; a
    world is one consistent deal of the unseen cards with every legal
    action scored in it. Runs the kernel search when it is available, else
    the pure-Python one (use fewer ``worlds`` then)."""
    from marjolet.bots.registry import make_bot

    bot = make_bot(f"{spec}{':' if ':' not in spec else ','}worlds={worlds},time=0", seed=seed)
    assert isinstance(bot, BestBot)
    done = 0
    seconds = 0.0
    for obs in early_positions(positions, seed):
        legal = public_deal(obs).legal_actions()
        start = time.process_time()
        bot.estimate(obs, legal)
        seconds += time.process_time() - start
        done += bot.last_worlds
    return done / seconds if seconds > 0 else 0.0


__all__ = [
    "KERNEL",
    "BestBot",
    "WorldSpec",
    "base_deal",
    "early_positions",
    "inference_constraints",
    "measure_worlds_per_s",
    "world_spec",
    "worlds_from_kernel",
]
