"""The store's own thread, with group commit.

Every store call of the web server runs here, one at a time, never on the
event loop. Calls that arrive while a transaction is being synced to disk
are run together in the next transaction (each in its own savepoint, so one
failing write undoes only itself) and committed with one ``fsync``: under
load many tables share each disk sync, yet a caller hears back only after
the transaction holding its write is committed. That keeps
``synchronous=FULL`` (a move survives a power cut, not only a killed server)
without making 50 tables wait in line for 50 syncs.

A batch stopped by a connection the database server dropped (a restart, an
administrator ending the sessions; the store's connection learns of it only
at its next statement) is run again, once, on a new connection: its
transaction was never committed, so nothing is applied twice, and the
first calls after a restart are stored instead of refused. A batch that
fails again, or fails at its commit (whose outcome is not known), is
reported to its callers. Every call submitted must therefore change
nothing but the database (the store's methods).
"""

from __future__ import annotations

import asyncio
import logging
import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, ParamSpec, TypeVar

from marjolet.web.db import connection_lost, database_unreachable, one_line_reason
from marjolet.web.store import Store

log = logging.getLogger("marjolet.web")

P = ParamSpec("P")
T = TypeVar("T")

#: Most calls committed together.
MAX_BATCH = 256

_Item = tuple[Callable[..., Any], tuple[Any, ...], dict[str, Any], "Future[Any]"]


class GroupWriter:
    """Runs store calls in a thread of its own, committing them in groups."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._queue: queue.SimpleQueue[_Item | None] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._run, name="marjolet-db", daemon=True)
        self._thread.start()
        self.batches = 0
        self.calls = 0

    def submit(self, fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> Future[T]:
        future: Future[T] = Future()
        self._queue.put((fn, args, kwargs, future))
        return future

    async def call(self, fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        """Await ``fn(*args, **kwargs)`` run in the store's thread and committed."""
        return await asyncio.wrap_future(self.submit(fn, *args, **kwargs))

    def _run(self) -> None:
        while True:
            item = self._queue.get()
            if item is None:
                return
            batch = [item]
            while len(batch) < MAX_BATCH:
                try:
                    more = self._queue.get_nowait()
                except queue.Empty:
                    break
                if more is None:
                    self._queue.put(None)  # stop after this batch
                    break
                batch.append(more)
            self._commit(batch)

    def _commit(self, batch: list[_Item]) -> None:
        # a call whose caller gave up (a cancelled task) is not run at all
        batch = [item for item in batch if item[3].set_running_or_notify_cancel()]
        if not batch:
            return
        outcomes, failure, lost = self._attempt(batch)
        if lost is not None and connection_lost(lost):
            # the database server dropped the store's connection (a restart,
            # an administrator): the transaction went with it, uncommitted,
            # so the same calls are run once more, on a new connection
            log.warning(
                "the database connection was lost (%s); %d call(s) run again on a new one",
                one_line_reason(lost),
                len(batch),
            )
            outcomes, failure, lost = self._attempt(batch)
        if failure is not None:  # the commit itself failed: nothing was saved
            log.error("database commit failed: %s", one_line_reason(failure))
            for *_, future in batch:
                future.set_exception(failure)
            return
        self.batches += 1
        self.calls += len(batch)
        for (ok, value), (*_, future) in zip(outcomes, batch, strict=True):
            if ok:
                future.set_result(value)
            else:
                future.set_exception(value)

    def _attempt(
        self, batch: list[_Item]
    ) -> tuple[list[tuple[bool, Any]], Exception | None, Exception | None]:
        """Run the batch in one transaction: (each call's outcome, the
        failure that undid the whole batch or None, and the lost connection
        that stopped it before its commit, if that is what happened)."""
        outcomes: list[tuple[bool, Any]] = []
        lost: Exception | None = None
        try:
            with self.store.batch():
                for fn, args, kwargs, _ in batch:
                    try:
                        outcomes.append((True, fn(*args, **kwargs)))
                    except Exception as exc:  # told to that caller only
                        outcomes.append((False, exc))
                        if database_unreachable(exc):
                            lost = exc  # the connection is gone: so is the batch
                            raise
        except Exception as exc:
            return outcomes, lost or exc, lost  # its cause, not the 'pending rollback'
        return outcomes, None, None

    def close(self) -> None:
        """Finish the queued calls, close the store and stop the thread."""
        self._queue.put(None)
        self._thread.join()
        self.store.close()
