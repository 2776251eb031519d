"""The arena: measure bots against each other honestly, in parallel.

Duplicate play (every deck sequence twice, seats swapped, fresh bots), Wilson
and t intervals, Elo, a Bradley-Terry rating table, an SPRT, a SQLite store
of every match, local process pools or Ray. See ``docs/arena.md``.

>>> from marjolet.arena import run_arena
>>> result = run_arena(["random", "random"], matches=4, seed=1)
>>> result.pairings[0].matches
4
"""

from marjolet.arena.results import ArenaResult, PairingResult, Rating, SprtResult, aggregate
from marjolet.arena.runner import (
    ArenaError,
    ArenaInterrupted,
    bot_labels,
    resume_arena,
    run_arena,
    stored_result,
)
from marjolet.arena.store import DEFAULT_DB, ArenaStore, StoreError
from marjolet.arena.tasks import BotFailure, MatchOutcome, MatchTask, play_task

__all__ = [
    "DEFAULT_DB",
    "ArenaError",
    "ArenaInterrupted",
    "ArenaResult",
    "ArenaStore",
    "BotFailure",
    "MatchOutcome",
    "MatchTask",
    "PairingResult",
    "Rating",
    "SprtResult",
    "StoreError",
    "aggregate",
    "bot_labels",
    "play_task",
    "resume_arena",
    "run_arena",
    "stored_result",
]
