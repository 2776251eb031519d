"""Who is at the table: connections per seat, and the "opponent gone" clock.

When the last connection of a seat drops in a live game, that seat is
*away*: the other player sees a countdown of the game's grace period
(:func:`grace_seconds`). Coming back within it resumes the game as if
nothing happened; once it has run out the other player may claim the match
(a win, rated if the game was) or keep waiting. A correspondence game
(``days_per_move``) has no countdown for being away, only the time to
move: the player to move has ``days_per_move`` days from the moment the
move came to them, and a move is never lost because the other seat was
away.

:class:`Presence` is pure bookkeeping (no I/O, an injected clock), so one
process can keep it in memory and several can keep the same facts in a
shared store.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

#: Grace periods of a live game, in seconds, by speed.
GRACE_LIVE = 90.0
#: A correspondence game's clock: seconds in a day.
DAY = 86_400.0


def grace_seconds(days_per_move: int | None, grace_live: float = GRACE_LIVE) -> float:
    """How long an away seat of a live game keeps its place; a
    correspondence game's seat keeps it for its days per move."""
    return grace_live if days_per_move is None else days_per_move * DAY


@dataclass(slots=True)
class SeatPresence:
    """The live connections of one seat and since when it has had none."""

    connections: int = 0
    away_since: float | None = None


@dataclass(slots=True)
class GamePresence:
    """Both seats of one game."""

    days_per_move: int | None = None
    seats: tuple[SeatPresence, SeatPresence] = field(
        default_factory=lambda: (SeatPresence(), SeatPresence())
    )


class Presence:
    """Connections and away clocks of every game a process serves."""

    def __init__(
        self, clock: Callable[[], float] = time.monotonic, *, grace_live: float = GRACE_LIVE
    ) -> None:
        self.clock = clock
        self.grace_live = grace_live
        self.games: dict[str, GamePresence] = {}

    def track(self, game_id: str, days_per_move: int | None = None) -> GamePresence:
        """The presence record of a game (created on first use)."""
        game = self.games.get(game_id)
        if game is None:
            game = self.games[game_id] = GamePresence(days_per_move)
        return game

    def connected(self, game_id: str, seat: int) -> None:
        """A connection of ``seat`` opened: the seat is back."""
        state = self.track(game_id).seats[seat]
        state.connections += 1
        state.away_since = None

    def disconnected(self, game_id: str, seat: int) -> None:
        """A connection of ``seat`` closed; the last one starts its clock."""
        state = self.track(game_id).seats[seat]
        state.connections = max(0, state.connections - 1)
        if state.connections == 0 and state.away_since is None:
            state.away_since = self.clock()

    def seen_elsewhere(self, game_id: str, seat: int) -> None:
        """Another server process holds a connection of ``seat``: if this
        one has none, its away clock starts again from now (it runs only
        once no process holds the seat)."""
        state = self.track(game_id).seats[seat]
        if state.connections == 0:
            state.away_since = self.clock()

    def absent(self, game_id: str, seat: int) -> None:
        """A seat nobody has opened since the table was loaded (after a
        restart, say): its clock starts now, as if it had just left."""
        state = self.track(game_id).seats[seat]
        if state.connections == 0 and state.away_since is None:
            state.away_since = self.clock()

    def away_left(self, game_id: str, seat: int) -> float | None:
        """Seconds left before the other player may claim, or None while
        the seat is connected (0 once the grace has run out)."""
        game = self.games.get(game_id)
        if game is None or game.seats[seat].away_since is None:
            return None
        away_since = game.seats[seat].away_since
        assert away_since is not None
        elapsed = self.clock() - away_since
        return max(0.0, grace_seconds(game.days_per_move, self.grace_live) - elapsed)

    def may_claim(self, game_id: str, claimant: int) -> bool:
        """Whether ``claimant`` may claim the match: the other seat is
        away and its grace has run out."""
        left = self.away_left(game_id, 1 - claimant)
        return left is not None and left <= 0.0

    def forget(self, game_id: str) -> None:
        """Drop a finished game."""
        self.games.pop(game_id, None)


def move_deadline(turn_started: float, days_per_move: int) -> float:
    """When the player to move in a correspondence game runs out of time
    (a timestamp on the same clock as ``turn_started``)."""
    return turn_started + days_per_move * DAY
