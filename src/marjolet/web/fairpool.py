"""The bot threads, shared fairly between the server's visitors (issue 21).

Every piece of work that costs bot time is submitted under a **key**: the
client address that asked for it (a table's bots think under the address
that created the table). The pool keeps one queue per key and serves the
keys least-recently-served first (round-robin, a new key first): so a
visitor who floods the server with rematches, new games, hints or uploads
only lengthens *their own* queue, and another key's job starts as soon as
one running job ends. Two kinds of work:

- a **move** (a bot's move at a table, one decision of a review): a
  budgeted job, never refused; a key's moves may use every free thread;
- an **extra** (a hint, a replay; :meth:`FairPool.submit` with
  ``refusable``): work a visitor asks for, which may be long. A key runs at
  most ``per_key`` extras at once, all keys together at most ``threads - 1``
  (a thread is always left for the tables' bots), and a key may have at
  most ``max_queued`` extras waiting; past that, :class:`PoolBusy`.

So a bot's move waits at most for one running move to end (another bot's
budget) before its own think: never behind another visitor's backlog. Each
job records how many jobs of *other* keys started between its submission
and its own start (:attr:`Job.overtaken`): the fairness the tests check
without timing anything.

>>> import asyncio
>>> pool = FairPool(threads=2, per_key=1)
>>> asyncio.run(pool.run("127.0.0.1", sum, [1, 2, 3]))
6
>>> pool.shutdown()
"""

from __future__ import annotations

import asyncio
import functools
import threading
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any, TypeVar

__all__ = ["FairPool", "Job", "PoolBusy"]

T = TypeVar("T")

#: Waiting jobs a key may hold of the kinds that can be refused (hints,
#: reviews, replays); a table's bot moves are never refused.
DEFAULT_MAX_QUEUED = 4


class PoolBusy(Exception):
    """``key`` already has ``max_queued`` jobs waiting."""


@dataclass(eq=False)
class Job:
    """One call waiting for (or running in) a bot thread."""

    key: str
    call: Callable[[], Any]
    extra: bool = False
    future: Future[Any] = field(default_factory=Future)
    #: Jobs of other keys started while this one waited.
    overtaken: int = 0


class FairPool:
    """``threads`` worker threads serving per-key queues round-robin."""

    def __init__(
        self,
        threads: int,
        per_key: int | None = None,
        max_queued: int = DEFAULT_MAX_QUEUED,
        name: str = "marjolet-bot",
    ) -> None:
        self.threads = max(1, threads)
        self.per_key = per_key if per_key is not None else max(1, self.threads // 2)
        self.max_queued = max_queued
        self._queues: dict[str, deque[Job]] = {}
        #: Extras running, per key and in all.
        self._extras: dict[str, int] = {}
        self._extras_total = 0
        #: When each key was last served (a counter), for the round-robin.
        self._served: dict[str, int] = {}
        self._clock = 0
        self._cond = threading.Condition()
        self._closed = False
        #: The last finished jobs (the tests read their ``overtaken``).
        self.finished: deque[Job] = deque(maxlen=1000)
        self._workers = [
            threading.Thread(target=self._work, name=f"{name}-{i}", daemon=True)
            for i in range(self.threads)
        ]
        for worker in self._workers:
            worker.start()

    # -- submitting ----------------------------------------------------------------------

    def submit(
        self, key: str, fn: Callable[..., T], *args: Any, refusable: bool = False
    ) -> Future[T]:
        """Queue ``fn(*args)`` under ``key``; :class:`PoolBusy` if it is
        ``refusable`` and ``key`` already has ``max_queued`` jobs waiting."""
        job = Job(key, functools.partial(fn, *args), extra=refusable)
        with self._cond:
            if self._closed:
                raise RuntimeError("the bot pool is shut down")
            queue = self._queues.setdefault(key, deque())
            if refusable and sum(j.extra for j in queue) >= self.max_queued:
                raise PoolBusy(key)
            queue.append(job)
            self._cond.notify()
        return job.future

    async def run(
        self, key: str, fn: Callable[..., T], *args: Any, refusable: bool = False
    ) -> T:
        """``fn(*args)`` in a bot thread under ``key``, awaited."""
        return await asyncio.wrap_future(self.submit(key, fn, *args, refusable=refusable))

    def waiting(self, key: str) -> int:
        with self._cond:
            return len(self._queues.get(key, ()))

    # -- serving -------------------------------------------------------------------------

    def _eligible(self, key: str) -> Job | None:
        """The first job of ``key`` that may start now (holds the lock)."""
        extras_full = (
            self._extras.get(key, 0) >= self.per_key
            or self._extras_total >= max(1, self.threads - 1)
        )
        for job in self._queues[key]:
            if not job.extra or not extras_full:
                return job
        return None

    def _next(self) -> Job | None:
        """The first job that may start, of the least recently served key
        that has one; counts it as served. Holds the lock."""
        order = sorted(self._queues, key=lambda k: self._served.get(k, -1))
        for key in order:
            job = self._eligible(key)
            if job is None:
                continue
            queue = self._queues[key]
            queue.remove(job)
            if not queue:
                del self._queues[key]
            self._clock += 1
            self._served[key] = self._clock
            if len(self._served) > 10_000:  # forget long-gone keys
                self._served = {k: self._served.get(k, 0) for k in self._queues}
            if job.extra:
                self._extras[key] = self._extras.get(key, 0) + 1
                self._extras_total += 1
            for other, waiting in self._queues.items():
                if other != key:
                    for queued in waiting:
                        queued.overtaken += 1
            return job
        return None

    def _work(self) -> None:
        while True:
            with self._cond:
                job = self._next()
                while job is None:
                    if self._closed:
                        return
                    self._cond.wait()
                    job = self._next()
            self._execute(job)
            with self._cond:
                if job.extra:
                    self._extras[job.key] -= 1
                    self._extras_total -= 1
                    if not self._extras[job.key]:
                        del self._extras[job.key]
                self.finished.append(job)
                self._cond.notify_all()

    @staticmethod
    def _execute(job: Job) -> None:
        if not job.future.set_running_or_notify_cancel():
            return
        try:
            result = job.call()
        except BaseException as exc:
            job.future.set_exception(exc)
        else:
            job.future.set_result(result)

    def shutdown(self, cancel_futures: bool = True) -> None:
        """Stop taking jobs; cancel the waiting ones (running ones finish)."""
        with self._cond:
            self._closed = True
            if cancel_futures:
                for queue in self._queues.values():
                    for job in queue:
                        job.future.cancel()
                self._queues.clear()
            self._cond.notify_all()
