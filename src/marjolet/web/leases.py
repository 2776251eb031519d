"""Jobs with one owner at a time, among any number of server processes.

A game's bot moves, a countdown and its claim, the quick pairing, a
review: each such job must run in exactly one process. A process *owns* a
job while it holds its lease, a row of ``leases`` with an expiry time, and
renews it by a heartbeat well before it expires. When the owner dies its
lease runs out and another process takes the job over within one lease
time. Each step is one conditional write, so two processes never both
succeed and the database decides: a renewal updates the lease where it is
ours; a new job is an insert (a second insert fails on the key); a
takeover updates it where it still has the owner just read and has
expired (on PostgreSQL a second taker waits on the row and then finds
another owner; on SQLite the transaction holds the write lock).

A lease is not what prevents a job from being done twice: every effect of
a job is also keyed in the database (a move by its (game, sequence) key, a
rating by its (game, account) key), so a process that lost its lease
without knowing it has its late write refused. The lease only makes that
rare and keeps the work in one place.
"""

from __future__ import annotations

import logging
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, Engine, and_, delete, insert, select, update
from sqlalchemy.exc import IntegrityError

from marjolet.web.db import leases, reader

log = logging.getLogger("marjolet.web")

#: Seconds a lease lasts without a heartbeat.
LEASE_SECONDS = 10.0
#: The longest note a lease keeps (the column's width).
NOTE_LENGTH = 64


@dataclass(frozen=True, slots=True)
class Lease:
    """A job's lease: its owner, whether it still runs, and the owner's note."""

    owner: str
    live: bool
    note: str | None = None


def process_id() -> str:
    """A name for this process, unique among every process that ever ran."""
    return secrets.token_hex(8)


class Leases:
    """Take, renew and give back leases on jobs in the shared database."""

    def __init__(
        self,
        engine: Engine,
        owner: str | None = None,
        *,
        seconds: float = LEASE_SECONDS,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.engine = engine
        self.reader = reader(engine)
        self.owner = owner or process_id()
        self.seconds = seconds
        self.clock = clock

    def acquire(self, job: str, note: str | None = None) -> bool:
        """Own ``job`` (or renew our lease on it), saying ``note`` of its
        progress to the other processes; False if another live process
        owns it. Taking over a dead owner's job is logged with both
        processes' ids, so that an operator can follow a job across them."""
        now = self.clock()
        expires = now + self.seconds
        try:
            with self.engine.begin() as db:
                if self._set(db, job, leases.c.owner == self.owner, expires, note):
                    return True  # renewed: the heartbeat's usual case
                held = db.execute(
                    select(leases.c.owner, leases.c.expires).where(leases.c.job == job)
                ).first()
                if held is None:
                    db.execute(
                        insert(leases).values(job=job, owner=self.owner, expires=expires, note=note)
                    )
                    return True
                dead = and_(leases.c.owner == held.owner, leases.c.expires < now)
                if held.expires >= now or not self._set(db, job, dead, expires, note):
                    return False  # alive, or another process took it over first
        except IntegrityError:  # another process inserted it first
            return False
        log.info("process %s took over %s from process %s (its lease ran out or was given up)",
                 self.owner, job, held.owner)
        return True

    def _set(
        self, db: Connection, job: str, condition: Any, expires: float, note: str | None
    ) -> bool:
        """Make the lease of ``job`` ours if ``condition`` holds; whether it did."""
        changed = db.execute(
            update(leases)
            .where(and_(leases.c.job == job, condition))
            .values(owner=self.owner, expires=expires, note=note)
        ).rowcount
        return bool(changed == 1)

    def release(self, job: str) -> None:
        """Give a job back at once (a clean shutdown), if we own it."""
        with self.engine.begin() as db:
            db.execute(delete(leases).where(leases.c.job == job, leases.c.owner == self.owner))

    def forget(self, job: str) -> None:
        """Delete a job's lease whoever owns it: the job has no reason to be
        any more (a countdown whose seat came back)."""
        with self.engine.begin() as db:
            db.execute(delete(leases).where(leases.c.job == job))

    def settle(self, job: str, note: str) -> bool:
        """Leave our lease on ``job`` expired now, with ``note`` saying how
        the job ended (a review that failed) or how far it went (a review
        this process stopped at): every process reads it with
        :meth:`lease_of`, and any may take the job again as if its owner
        had died. False if we no longer owned it."""
        with self.engine.begin() as db:
            changed = db.execute(
                update(leases)
                .where(leases.c.job == job, leases.c.owner == self.owner)
                .values(expires=self.clock() - 1.0, note=note[:NOTE_LENGTH])
            ).rowcount
        return bool(changed == 1)

    def owner_of(self, job: str) -> str | None:
        """The live owner of a job, or None (free, or its lease expired)."""
        held = self.lease_of(job)
        return None if held is None or not held.live else held.owner

    def lease_of(self, job: str) -> Lease | None:
        """The lease on a job as it stands (None: nobody took it, or it was
        given back); an expired one is a job whose owner died at it."""
        with self.reader.connect() as db:
            row = db.execute(
                select(leases.c.owner, leases.c.expires, leases.c.note).where(leases.c.job == job)
            ).first()
        if row is None:
            return None
        return Lease(str(row.owner), row.expires >= self.clock(), row.note)

    def owned(self) -> list[str]:
        """The jobs this process holds live leases on."""
        with self.reader.connect() as db:
            rows = db.execute(
                select(leases.c.job).where(
                    leases.c.owner == self.owner, leases.c.expires >= self.clock()
                )
            ).all()
        return [str(r.job) for r in rows]
