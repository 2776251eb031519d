"""The "opponent gone" countdowns of live games, shared by every process.

With one process a seat's countdown is its away clock in memory
(:mod:`marjolet.web.presence`). With several, the countdown of an away
seat is a job with one owner (:mod:`marjolet.web.leases`): the lease
``clock:GAME:SEAT``, whose note is the countdown's **deadline** (epoch
seconds, the moment the other player may claim the match). The first
process that finds the seat away (no process holds a connection of it,
:mod:`marjolet.web.beacons`) stores the deadline in one conditional write;
every other process reads it, shows it and checks claims against it; the
owner renews the lease at each sweep. When the owner dies its lease runs
out and another process showing the game takes it over with the *same*
deadline, read from the database, never from the dead process's memory;
so a countdown neither restarts nor stops with its process. A seat that
comes back deletes its countdown (whoever owns it): its next absence
starts a fresh one.

The deadline only says when a claim becomes possible. The claim itself is
one conditional write on the game's version (:meth:`Store.forfeit
<marjolet.web.store.Store.forfeit>`), so a game is ended once, whatever
processes accept a claim at the same moment or store a move meanwhile.
"""

from __future__ import annotations

import logging
import math

from marjolet.web.leases import Leases

log = logging.getLogger("marjolet.web")


def job_name(game_id: str, seat: int) -> str:
    """The lease of one seat's countdown."""
    return f"clock:{game_id}:{seat}"


def read_deadline(note: str | None) -> float | None:
    """The deadline a countdown's note holds (None: unreadable)."""
    try:
        value = float(note or "")
    except ValueError:
        return None
    return value if math.isfinite(value) else None


class Countdowns:
    """Start, follow, take over and stop the shared countdowns (blocking
    calls: the hub runs them in threads)."""

    def __init__(self, leases: Leases) -> None:
        self.leases = leases

    def hold(self, game_id: str, seat: int, deadline: float) -> float | None:
        """The seat is away as this process sees it: the deadline of its
        countdown. Started at ``deadline`` if none is stored; the stored one
        otherwise, whose lease we renew if it is ours, or take over if its
        owner died. None if the database holds no readable deadline (a
        moment's race with the seat coming back)."""
        job = job_name(game_id, seat)
        before = self.leases.lease_of(job)
        stored = None if before is None else read_deadline(before.note)
        wanted = deadline if stored is None else stored
        if self.leases.acquire(job, f"{wanted:.3f}"):
            if before is not None and not before.live and before.owner != self.leases.owner:
                left = max(0.0, wanted - self.leases.clock())
                log.info(
                    "game %s: the countdown of seat %d taken over (%.1f s left)",
                    game_id,
                    seat,
                    left,
                )
            return round(wanted, 3)
        return self.deadline(game_id, seat)  # another live process owns it

    def deadline(self, game_id: str, seat: int) -> float | None:
        """The stored deadline of the seat's countdown (None: none runs)."""
        lease = self.leases.lease_of(job_name(game_id, seat))
        return None if lease is None else read_deadline(lease.note)

    def stop(self, game_id: str, seat: int) -> None:
        """The seat came back (or the game ended): no countdown runs."""
        self.leases.forget(job_name(game_id, seat))
