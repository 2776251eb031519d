"""One arena match as a self-contained task, and its deterministic seeds.

A run is a list of :class:`MatchTask` values that any process (a local
worker, a Ray node) turns into a :class:`MatchOutcome` with
:func:`play_task`. Every random choice of a match derives from the run seed
and the task's coordinates only, never from the worker or the order of
execution, so a run gives the same results on 1, 2 or 100 workers:

- the deck sequence and the first dealer of a duplicate pair come from
  (run seed, the two bot specs, pair index);
- each bot's seed comes from (run seed, the two bot specs, pair index, game,
  seat).

Duplicate play: game 0 of a pair seats the first bot of the pairing at seat
0, game 1 swaps the seats; both games use the same first dealer and the same
deck sequence, so each bot plays each hand once. Every match gets freshly
built bots.

A bot that raises :class:`~marjolet.bots.base.BotFault` (an external bot's
garbled answer or time-out) forfeits the match: the other seat wins, the
totals and deal points are those of the completed deals, and the record
ends where the fault happened. Any other exception is a bug in a bot and
stops the run (:class:`BotFailure`), since quietly scoring it would bias the
measurement.
"""

from __future__ import annotations

import hashlib
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass

from marjolet.bots import make_bot
from marjolet.bots.base import Bot, BotFault, close_bots, end_match
from marjolet.cards import deck_stream
from marjolet.errors import MarjoletError
from marjolet.match import Match
from marjolet.record import Record
from marjolet.rules import Rules
from marjolet.turns import TurnDriver, faulty_seat, position_text

#: Changing this string changes every seeded result; bump it only with care.
SEED_DOMAIN = "marjolet-arena/1"


def derive_seed(*parts: object) -> int:
    """A 63-bit seed from the run seed and a task's coordinates (BLAKE2b),
    stable across Python versions and processes (unlike ``hash``)."""
    text = "\x1f".join([SEED_DOMAIN, *(repr(p) for p in parts)])
    digest = hashlib.blake2b(text.encode("utf-8"), digest_size=8).digest()
    return int.from_bytes(digest, "big") >> 1


@dataclass(frozen=True, slots=True)
class MatchTask:
    """One match of a run: where it sits in the run and what it needs."""

    #: Index of the pairing in the run (bots i < j in the order given).
    pairing: int
    #: Index of the duplicate pair within the pairing.
    pair: int
    #: 0: the pairing's first bot sits at seat 0; 1: seats swapped.
    game: int
    #: The pairing's two bot specs, first bot first.
    specs: tuple[str, str]
    run_seed: int
    rules: Rules

    @property
    def key(self) -> tuple[int, int, int]:
        return (self.pairing, self.pair, self.game)

    @property
    def seat_specs(self) -> tuple[str, str]:
        """The bot specs in seat order (seat 0 first)."""
        a, b = self.specs
        return (a, b) if self.game == 0 else (b, a)

    @property
    def deck_seed(self) -> int:
        return derive_seed(self.run_seed, self.specs, self.pair, "decks")

    def bot_seed(self, seat: int) -> int:
        return derive_seed(self.run_seed, self.specs, self.pair, self.game, seat, "bot")


@dataclass(frozen=True, slots=True)
class MatchOutcome:
    """The result of one match, everything the statistics and the store need."""

    pairing: int
    pair: int
    game: int
    #: Bot specs in seat order.
    seat_specs: tuple[str, str]
    bot_seeds: tuple[int, int]
    #: Seat of the winner (R22).
    winner: int
    #: Final totals by seat.
    totals: tuple[int, int]
    #: Points of each deal by seat.
    deal_points: tuple[tuple[int, int], ...]
    #: The match as a replayable record (record.md JSON form).
    record: str
    #: Wall-clock seconds the match took (not part of any result).
    seconds: float
    #: Why the loser forfeited (a :class:`BotFault`), ``None`` normally.
    forfeit: str | None = None

    @property
    def key(self) -> tuple[int, int, int]:
        return (self.pairing, self.pair, self.game)

    @property
    def first_seat(self) -> int:
        """The seat of the pairing's first bot."""
        return self.game

    @property
    def first_won(self) -> bool:
        return self.winner == self.first_seat

    @property
    def first_margin(self) -> int:
        """Final total difference from the pairing's first bot's side."""
        s = self.first_seat
        return self.totals[s] - self.totals[1 - s]

    @property
    def first_deal_margins(self) -> list[int]:
        """Each deal's point difference from the first bot's side."""
        s = self.first_seat
        return [p[s] - p[1 - s] for p in self.deal_points]


class BotFailure(MarjoletError):
    """A bot raised an exception or chose an illegal action during a match."""


def _play(driver: TurnDriver, seats: Sequence[Bot], deck_seed: int) -> int:
    """Play the match to its R22 end (each deal's deck from the run's
    stream) and tell the seats the result."""
    decks = deck_stream(random.Random(deck_seed))
    while not driver.is_over:
        if driver.needs_deal:
            driver.start_deal(next(decks))
        driver.play_turn(seats)
    match = driver.match
    winner = match.winner
    assert winner is not None  # the loop ends only when R22 decided
    end_match(seats, match.totals, winner)
    return winner


def play_task(task: MatchTask) -> MatchOutcome:
    """Play one match of a run with fresh bots; pure function of ``task``."""
    start = time.perf_counter()
    specs = task.seat_specs
    seeds = (task.bot_seed(0), task.bot_seed(1))
    seats = [make_bot(spec, seed=seed) for spec, seed in zip(specs, seeds, strict=True)]
    deck_seed = task.deck_seed
    first_dealer = deck_seed & 1
    match = Match(task.rules, first_dealer=first_dealer, seed=deck_seed, players=list(specs))
    driver = TurnDriver(match)
    forfeit: str | None = None
    try:
        winner = _play(driver, seats, deck_seed)
    except BotFault as fault:
        seat = faulty_seat(fault.seat, match)
        where = f"pair {task.pair} game {task.game}, {position_text(match)}"
        forfeit = f"bot {specs[seat]!r} (seat {seat}) forfeited in {where}: {fault}"
        winner = 1 - seat
        if not driver.is_over:
            driver.forfeit(seat, forfeit)
        end_match(seats, match.totals, winner)
    except Exception as exc:
        deal = match.deal
        seat = deal.to_move if deal is not None and not deal.is_over else -1
        who = f"bot {specs[seat]!r} (seat {seat})" if seat in (0, 1) else "a bot"
        raise BotFailure(
            f"{who} failed in pairing {task.pairing} pair {task.pair} game {task.game} "
            f"(bots {specs[0]!r} vs {specs[1]!r}, seeds {seeds[0]} {seeds[1]}, "
            f"deal {len(match.deals) - 1}): {type(exc).__name__}: {exc}"
        ) from None
    finally:
        close_bots(seats)  # external bots: quit, kill and reap now, not at garbage collection
    return MatchOutcome(
        pairing=task.pairing,
        pair=task.pair,
        game=task.game,
        seat_specs=specs,
        bot_seeds=seeds,
        winner=winner,
        totals=match.totals,
        deal_points=tuple(d.points for d in match.deals if d.is_over),
        record=Record.from_match(match).dumps(),
        seconds=time.perf_counter() - start,
        forfeit=forfeit,
    )


def play_batch(tasks: Sequence[MatchTask]) -> list[MatchOutcome]:
    """Play several tasks in one go (the unit sent to a worker)."""
    return [play_task(t) for t in tasks]


def plan_tasks(
    specs: Sequence[str], matches: int, run_seed: int, rules: Rules
) -> list[MatchTask]:
    """Every task of a run in its canonical order: pair by pair, each pair
    for every pairing, game 0 then 1, so that an interrupted or sequential
    run has advanced all pairings evenly."""
    pairings = [
        (specs[i], specs[j]) for i in range(len(specs)) for j in range(i + 1, len(specs))
    ]
    return [
        MatchTask(p, k, g, pairing, run_seed, rules)
        for k in range(matches // 2)
        for p, pairing in enumerate(pairings)
        for g in (0, 1)
    ]
