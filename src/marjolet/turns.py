"""THE turn driver: whose turn it is, what that seat may know and may do,
and the one checked path by which an answer changes the match.

Every front end drives a :class:`TurnDriver` and differs only in its seats
and in how it waits: the arena and :func:`play_match` call it in a plain
loop, the web server from asyncio tasks, the terminal from Textual events,
the research adapters from ``step``. The driver owns no thread and never
waits: it answers at once.

1. :meth:`TurnDriver.turn` gives the pending :class:`Turn`: the seat to act,
   its observation (R23), the legal actions and a *version* that changes with
   every action, every new deal and a forfeit.
2. Whoever chooses for that seat (a bot, a person, a program, an agent)
   answers with :meth:`TurnDriver.submit`, quoting the version. A stale
   answer (the version moved on), an answer for the wrong seat or an illegal
   action is refused with a :class:`~marjolet.errors.TurnError` saying why
   (``code`` and, for a broken rule, ``rule``); nothing changes.
   ``submit`` is :meth:`TurnDriver.check` then :meth:`TurnDriver.push`: a
   front end that must check an answer at its edge (before it takes a lock,
   stores the move, ...) checks it once into a :class:`Move` and pushes that
   later unchecked (only the version is compared), as python-chess pushes a
   move that ``parse_uci`` checked.
3. :meth:`TurnDriver.brief` is the cheater hand-off: the one place where a
   bot that declares ``sees_hidden_cards`` is handed (a copy of) the true
   deal. No front end calls ``see_deal`` itself.
4. :meth:`TurnDriver.forfeit` ends the match for a seat that broke down;
   :attr:`TurnDriver.outcome` then says so, like a finished match.

Pacing (a bot's pause so a person can follow) and waiting for a person stay
in the front ends.

>>> from marjolet import Match
>>> driver = TurnDriver(Match(seed=1))
>>> driver.start_deal().to_move == driver.turn().seat
True
>>> turn = driver.turn()
>>> driver.submit(turn.legal[0], turn.version).version == turn.version + 1
True
>>> driver.submit(turn.legal[0], turn.version)
Traceback (most recent call last):
 ...
marjolet.errors.TurnError: stale answer: it was for version 1, the position is at version 2
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Protocol

from marjolet.actions import ACTION_NAMES
from marjolet.engine import Deal, LegalActions, Outcome
from marjolet.errors import IllegalTurnError, MarjoletError, TurnError
from marjolet.match import Match
from marjolet.observation import Observation


class Seat(Protocol):
    """Anything that chooses actions for one player: a bot, a terminal
    player, a browser connection. It sees only its observation (R23)."""

    def choose(self, obs: Observation, legal: Sequence[int]) -> int: ...


@dataclass(frozen=True, slots=True)
class Move:
    """An answer checked once: ``action`` is legal for ``seat`` in the
    position of ``version``. Made by :meth:`TurnDriver.check` or
    :meth:`Turn.move`; :meth:`TurnDriver.push` applies it without checking
    the rules again (the version names the position it was checked in)."""

    seat: int
    action: int
    version: int


@dataclass(frozen=True, slots=True)
class Turn:
    """A pending decision: ``seat`` must choose one of ``legal`` seeing
    ``observation``; the answer quotes ``version``."""

    seat: int
    observation: Observation
    legal: LegalActions
    version: int

    def move(self, action: int) -> Move:
        """``action`` as this turn's checked :class:`Move`: one of ``legal``,
        else an :class:`~marjolet.errors.IllegalTurnError` (for an answer
        chosen away from the driver: a bot thread, a program)."""
        if action not in self.legal:
            shown = ACTION_NAMES[action] if isinstance(action, int) and 0 <= action < 46 else action
            raise IllegalTurnError(
                f"seat {self.seat} chose {shown!r}, which is not one of its legal actions "
                f"({self.legal})",
                action=action,
                rule="",
            )
        return Move(self.seat, int(action), self.version)


@dataclass(frozen=True, slots=True)
class Played:
    """An accepted answer: who played what, and the version after it."""

    seat: int
    action: int
    version: int
    #: True when the action ended the deal (trick 16).
    deal_over: bool


ActionHook = Callable[["Match", int, int], None]


def match_version(match: Match) -> int:
    """The version of a match that was just loaded: one per deal started and
    one per action, so it is the same before and after a reload."""
    return len(match.deals) + sum(len(d.moves) for d in match.deals)


class TurnDriver:
    """The turns of one :class:`~marjolet.match.Match` (see the module
    docstring). ``version`` starts from :func:`match_version`."""

    def __init__(self, match: Match, *, forfeit: Outcome | None = None) -> None:
        """``forfeit`` restores the outcome of a match forfeited earlier (a
        game loaded from a store); it does not count as a new version."""
        self.match = match
        self.version = match_version(match)
        self._forfeit: Outcome | None = forfeit

    # -- where the match stands ----------------------------------------------------

    @property
    def outcome(self) -> Outcome | None:
        """How the match ended: R22 decided it, or a seat forfeited."""
        return self._forfeit if self._forfeit is not None else self.match.outcome()

    @property
    def is_over(self) -> bool:
        return self._forfeit is not None or self.match.is_over

    @property
    def needs_deal(self) -> bool:
        """The match goes on and no deal is in progress."""
        return self._forfeit is None and self.match.needs_deal

    @property
    def to_move(self) -> int | None:
        """The seat to act, or ``None`` when nobody is (no deal in progress,
        the match over or forfeited)."""
        deal = self.match.deal
        if self._forfeit is not None or deal is None or deal.is_over:
            return None
        return deal.to_move

    def turn(self) -> Turn | None:
        """The pending turn, or ``None`` when nobody is to act."""
        seat = self.to_move
        if seat is None:
            return None
        deal = self.match.deal
        assert deal is not None
        return Turn(seat, self.match.observation(seat), deal.legal, self.version)

    # -- changing it ------------------------------------------------------------------

    def start_deal(self, deck: Sequence[int] | None = None) -> Deal:
        """Start the next deal (from ``deck`` or the match's shuffle)."""
        self._refuse_if_over()
        deal = self.match.start_deal(deck)
        self.version += 1
        return deal

    def brief(self, player: object, turn: Turn) -> None:
        """Before ``player`` chooses for ``turn``: a bot that declares
        ``sees_hidden_cards`` (the cheater, a measuring ceiling) is handed a
        copy of the true deal; any other player is told nothing. This is the
        only place that hands a deal to a bot."""
        if not getattr(player, "sees_hidden_cards", False):
            return
        self._refuse_if_stale(turn.version)
        deal = self.match.deal
        assert deal is not None
        player.see_deal(deal.copy())  # type: ignore[attr-defined]

    def refusal(self, action: int, version: int, seat: int | None = None) -> TurnError | None:
        """Why :meth:`submit` would refuse this answer, or ``None``."""
        try:
            self._refuse_if_over()
        except TurnError as exc:
            return exc
        to_move = self.to_move
        if to_move is None:
            return TurnError("no deal is in progress: start the next deal first", code="no_turn")
        if seat is not None and seat != to_move:
            return TurnError(f"it is not seat {seat}'s turn", code="not_your_turn")
        if version != self.version:
            return _stale(version, self.version)
        deal = self.match.deal
        assert deal is not None
        reason = deal.illegal_reason(action)
        if reason is not None:
            name = ACTION_NAMES[action] if reason.rule else repr(action)
            return IllegalTurnError(
                f"illegal action {name}: {reason}",
                action=action,
                rule=reason.rule,
                why=reason.why(),
            )
        return None

    def check(self, action: int, version: int, seat: int | None = None) -> Move:
        """``action`` for the turn of ``version`` (and ``seat``, when given)
        as a checked :class:`Move`; raise :class:`~marjolet.errors.TurnError`
        if it would be refused. Changes nothing."""
        refused = self.refusal(action, version, seat)
        if refused is not None:
            raise refused
        to_move = self.to_move
        assert to_move is not None
        return Move(to_move, action, version)

    def push(self, move: Move) -> Played:
        """Apply a :class:`Move` checked in this position: the rules are not
        checked again, only that the position is still the one of
        ``move.version`` (else a ``stale`` :class:`~marjolet.errors.TurnError`)."""
        self._refuse_if_stale(move.version)
        deal = self.match.deal
        assert deal is not None
        self.match.push(move.action)
        self.version += 1
        return Played(move.seat, move.action, self.version, deal.is_over)

    def submit(self, action: int, version: int, seat: int | None = None) -> Played:
        """Play ``action`` for the turn of ``version`` (and ``seat``, when
        given), checked; raise :class:`~marjolet.errors.TurnError` and change
        nothing if it is refused (:meth:`check`, then :meth:`push`)."""
        return self.push(self.check(action, version, seat))

    def forfeit(self, seat: int, reason: str) -> Outcome:
        """``seat`` broke down: it loses the match, whatever the cards say."""
        self._refuse_if_over()
        self._forfeit = Outcome("forfeit", seat ^ 1, self.match.running_totals, reason)
        self.version += 1
        return self._forfeit

    def abort(self, reason: str) -> Outcome:
        """The match stops with no result at all (``"aborted"``, no winner):
        the web's game that ended before a player's first move."""
        self._refuse_if_over()
        self._forfeit = Outcome("aborted", None, self.match.running_totals, reason)
        self.version += 1
        return self._forfeit

    # -- the synchronous loop ------------------------------------------------------------

    def play_turn(self, seats: Sequence[Seat]) -> Played:
        """Ask the seat to act for the pending turn and submit its answer
        (an illegal answer raises; the arena and ``play_match`` use this)."""
        turn = self.turn()
        if turn is None:
            raise TurnError("nobody is to act: no deal is in progress", code="no_turn")
        player = seats[turn.seat]
        self.brief(player, turn)
        action = player.choose(turn.observation, list(turn.legal))
        return self.submit(action, turn.version, turn.seat)

    def _refuse_if_over(self) -> None:
        if self._forfeit is not None:
            raise TurnError(f"the match is over: {self._forfeit.reason}", code="match_over")
        if self.match.is_over:
            raise TurnError("the match is over (R22)", code="match_over")

    def _refuse_if_stale(self, version: int) -> None:
        if version != self.version:
            raise _stale(version, self.version)


def checked_choice(player: Seat, turn: Turn) -> int:
    """``player``'s answer to ``turn``, checked to be one of its legal
    actions (an :class:`~marjolet.errors.IllegalTurnError` otherwise). For a
    front end that lets a bot think away from the driver (a worker thread, a
    program over the bot protocol) and wants the answer checked there."""
    return turn.move(player.choose(turn.observation, list(turn.legal))).action


def _stale(sent: int, now: int) -> TurnError:
    return TurnError(
        f"stale answer: it was for version {sent}, the position is at version {now}",
        code="stale",
    )


def _check_seats(seats: Sequence[Seat]) -> None:
    """Refuse, before anything is dealt or played, a list that is not one
    seat for each player (it would fail at the missing seat's first turn)."""
    if len(seats) != 2:
        raise MarjoletError(
            f"play_deal and play_match take two seats (player 0's, player 1's), got {len(seats)}"
        )


def play_deal(match: Match, seats: Sequence[Seat], on_action: ActionHook | None = None) -> None:
    """Play the current deal to its end: ask the seat to act for each
    action, check it, apply it (the one data path of every front end)."""
    _check_seats(seats)
    if match.deal is None:
        raise TurnError("no deal in progress", code="no_turn")
    driver = TurnDriver(match)
    while driver.to_move is not None:
        played = driver.play_turn(seats)
        if on_action is not None:
            on_action(match, played.seat, played.action)


def faulty_seat(fault_seat: int | None, match: Match) -> int:
    """The seat a bot's fault is charged to: the one the fault names, else
    the one to act in the deal in progress (0 between deals)."""
    if fault_seat in (0, 1):
        return fault_seat
    deal = match.deal
    seat = deal.to_move if deal is not None and not deal.is_over else None
    return seat if seat is not None else 0


def position_text(match: Match) -> str:
    """Where a match stands, in its record's 0-based terms (record.md,
    "Error positions"): the deal and the action its record would hold
    next, with the trick; what a fault's message names."""
    deal = match.deal
    if deal is None or deal.is_over:
        return f"before deal {len(match.deals)}"
    trick = min(deal.tricks_played + 1, 16)
    return f"deal {len(match.deals) - 1}, action {len(deal.moves)} (trick {trick})"


def play_match(
    match: Match,
    seats: Sequence[Seat],
    on_action: ActionHook | None = None,
    decks: Iterator[Sequence[int]] | None = None,
) -> Match:
    """Play deals until R22 decides the match (resuming an unfinished deal
    first). ``decks`` supplies deck orders; by default the match shuffles."""
    _check_seats(seats)
    if match.deal is not None and not match.deal.is_over:
        play_deal(match, seats, on_action)
    while not match.is_over:
        match.start_deal(next(decks) if decks is not None else None)
        play_deal(match, seats, on_action)
    return match
