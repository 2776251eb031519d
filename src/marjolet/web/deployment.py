"""One deployment, one set of settings: the processes sharing a database
must agree on every setting that decides what happens to a game.

Processes of one deployment (the same PostgreSQL ``--db``) started with
different settings would each apply their own: a process on another Redis
database than the others sees none of their players (a player connected
elsewhere is shown as away, and claimed), and with two values of
``--away-grace`` which rule ends a game depends on the process a claim
reaches. So the settings of :data:`SETTINGS` are rows of the ``deployment``
table (revision 0010), written by the first process; every later process
compares its own with them at its start and is refused, in one line naming
each setting that differs with both values, while another process runs.

*Running* means holding a live ``server:PROCESS`` lease (the ``leases``
table), taken at the start, renewed every sweep and given back by a clean
stop; a process that died lets it run out (``lease_seconds``). When no
other process runs, a process whose settings differ replaces the stored
ones (logged): that is how a deployment changes a setting, all its
processes stopped and started again with the new value. A rolling restart
(one process at a time) keeps the settings.

The check and the write are one transaction under an advisory lock on
PostgreSQL: processes starting together on an empty database are taken one
after the other, and the first one's settings are the deployment's. A
SQLite file has one process (its lock file): it is not checked.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from sqlalchemy import Connection, Engine, and_, delete, insert, select, text, update
from sqlalchemy.exc import SQLAlchemyError

from marjolet.errors import MarjoletError
from marjolet.web.config import WebConfig
from marjolet.web.db import MIGRATE_LOCK, SERVER_JOB_PREFIX, deployment, leases
from marjolet.web.leases import LEASE_SECONDS, Leases

log = logging.getLogger("marjolet.web")

#: The options every process of a deployment must give alike, in the order
#: a refusal names them (the broker first: another Redis database hides
#: every player of the other processes).
SETTINGS = (
    "--broker",
    "--away-grace",
    "--move-limit",
    "--abandon-after",
    "--rate-limit",
    "--behind-proxy",
)
#: The lease of a running process (``server:`` and its id).
JOB_PREFIX = SERVER_JOB_PREFIX
#: The PostgreSQL advisory lock held while a process checks and joins.
DEPLOYMENT_LOCK = MIGRATE_LOCK + 1
#: Seconds between two error lines of a process that finds the stored
#: settings changed under it.
WARN_EVERY = 60.0


class DeploymentError(MarjoletError):
    """A process whose settings are not those of its deployment (one line)."""


def settings_of(config: WebConfig) -> dict[str, str]:
    """The deployment's settings as ``config`` gives them, option -> value
    as text ('' for an option not given). The broker is its identity, the
    Redis server and database number the client would use, never a
    password."""
    from marjolet.web.backends import broker_identity

    return {
        "--broker": broker_identity(config.broker) if config.broker else "",
        "--away-grace": _number(config.away_grace),
        "--move-limit": _number(config.move_limit),
        "--abandon-after": _number(config.abandon_after),
        "--rate-limit": _number(config.rate_per_second),
        "--behind-proxy": (config.behind_proxy or "").lower(),
    }


def _number(value: float) -> str:
    """A number as an operator writes it: 90, not 90.0; every digit kept."""
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def shown(setting: str, value: str) -> str:
    """``--away-grace 90``, or ``no --behind-proxy`` for one not given."""
    return f"{setting} {value}" if value else f"no {setting}"


@dataclass(frozen=True, slots=True)
class Difference:
    """A setting whose stored value is not this process's."""

    setting: str
    ours: str
    stored: str


def refusal(differences: list[Difference], running: int, lease: float = LEASE_SECONDS) -> str:
    """The one line refusing a process whose settings differ. A process
    that crashed counts as running until its lease runs out (``lease``
    seconds): the line says so, for the operator restarting it at once."""
    ours = ", ".join(shown(d.setting, d.ours) for d in differences)
    theirs = ", ".join(shown(d.setting, d.stored) for d in differences)
    values = "value" if len(differences) == 1 else "values"
    return (
        f"{ours}: this database's other servers use {theirs} ({running} running, or "
        f"stopped less than {_number(lease)} s ago); every "
        f"process of one database must be started with the same settings: give this one "
        f"theirs, or stop every process and start them all with the new {values} "
        "(docs/deploy.md, step 3)"
    )


class Deployment:
    """This process's membership of its database's deployment."""

    def __init__(
        self,
        engine: Engine,
        settings: Mapping[str, str],
        *,
        owner: str | None = None,
        seconds: float = LEASE_SECONDS,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.engine = engine
        self.settings = dict(settings)
        self.leases = Leases(engine, owner, seconds=seconds, clock=clock)
        self.clock = clock
        self._warned = -WARN_EVERY
        #: A renewal and the stop, one at a time: a renewal still on its way
        #: when the process stops never takes the lease again after it.
        self._turn = threading.Lock()
        self._left = False

    @property
    def owner(self) -> str:
        """This process's id (its leases' owner)."""
        return self.leases.owner

    @property
    def job(self) -> str:
        return JOB_PREFIX + self.owner

    def join(self) -> list[Difference]:
        """Check this process's settings against the stored ones and take
        its ``server:`` lease, in one transaction; raise
        :class:`DeploymentError` if any differs while another process runs.
        Returns the stored settings it replaced (none ran)."""
        try:
            differences = self._join()
        except SQLAlchemyError as exc:
            reason = " ".join(str(getattr(exc, "orig", None) or exc).split())[:300]
            raise DeploymentError(
                f"the settings of the database's servers could not be checked: {reason}"
            ) from None
        if differences:
            log.warning(
                "no other process was running: the database's settings are now this "
                "process's: %s",
                ", ".join(
                    f"{shown(d.setting, d.stored)} -> {shown(d.setting, d.ours)}"
                    for d in differences
                ),
            )
        return differences

    def _join(self) -> list[Difference]:
        with self.engine.begin() as db:
            if db.dialect.name == "postgresql":  # processes starting together
                db.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": DEPLOYMENT_LOCK})
            now = self.clock()
            servers = leases.c.job.startswith(JOB_PREFIX, autoescape=True)
            running = db.execute(
                select(leases.c.owner).where(servers, leases.c.expires >= now)
            ).all()
            db.execute(delete(leases).where(servers, leases.c.expires < now))  # the dead ones
            differences = self._differences(db)
            if differences and running:
                raise DeploymentError(refusal(differences, len(running), self.leases.seconds))
            self._record(db, now)
            db.execute(
                insert(leases).values(
                    job=self.job, owner=self.owner, expires=now + self.leases.seconds
                )
            )
        return differences

    def _differences(self, db: Connection) -> list[Difference]:
        stored = {
            str(row.setting): str(row.value)
            for row in db.execute(select(deployment.c.setting, deployment.c.value))
        }
        return [
            Difference(setting, value, stored[setting])
            for setting, value in self.settings.items()
            if setting in stored and stored[setting] != value
        ]

    def _record(self, db: Connection, now: float) -> None:
        """Store this process's settings (those unchanged stay as they were)."""
        stored = {
            str(row.setting): str(row.value)
            for row in db.execute(select(deployment.c.setting, deployment.c.value))
        }
        for setting, value in self.settings.items():
            values = {"value": value, "changed": now, "changed_by": self.owner}
            if setting not in stored:
                db.execute(insert(deployment).values(setting=setting, **values))
            elif stored[setting] != value:
                db.execute(
                    update(deployment).where(deployment.c.setting == setting).values(**values)
                )

    def renew(self) -> list[Difference]:
        """Renew this process's lease; the stored settings that are no longer
        its own (empty: all is well)."""
        with self._turn:
            if self._left:
                return []
            self.leases.acquire(self.job)
        with self.leases.reader.connect() as db:
            return self._differences(db)

    def leave(self) -> None:
        """A clean stop: another process may change the settings at once."""
        with self._turn:
            self._left = True
            self.leases.release(self.job)

    def running(self) -> list[str]:
        """The ids of the processes running now (this one included)."""
        with self.leases.reader.connect() as db:
            rows = db.execute(
                select(leases.c.owner).where(
                    and_(
                        leases.c.job.startswith(JOB_PREFIX, autoescape=True),
                        leases.c.expires >= self.clock(),
                    )
                )
            ).all()
        return sorted(str(r.owner) for r in rows)

    async def keep(self, interval: float) -> None:
        """Renew the lease every ``interval`` seconds until cancelled. A
        process that finds the stored settings changed under it (its lease
        ran out while the database did not answer, and another process
        replaced them) says so in an error line each minute."""
        while True:
            await asyncio.sleep(interval)
            try:
                differences = await asyncio.to_thread(self.renew)
            except Exception as exc:  # the database away: the next round tries again
                log.warning("could not renew this process's server lease: %s", exc)
                continue
            now = time.monotonic()
            if differences and now - self._warned >= WARN_EVERY:
                self._warned = now
                log.error(
                    "this process's settings are no longer the database's (%s); restart it "
                    "with theirs (docs/deploy.md, step 3)",
                    ", ".join(
                        f"{shown(d.setting, d.ours)} here, {shown(d.setting, d.stored)} stored"
                        for d in differences
                    ),
                )

    async def close(self) -> None:
        """Give the lease back (a clean stop); a failure lets it run out."""
        try:
            await asyncio.to_thread(self.leave)
        except Exception as exc:
            log.warning("could not give back this process's server lease: %s", exc)
