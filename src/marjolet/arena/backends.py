"""Where the matches of a run are played: in this process, in a local
process pool, or on a Ray cluster.

A backend takes batches of :class:`~marjolet.arena.tasks.MatchTask` and
yields the finished batches in whatever order they complete; the runner
sorts everything out. Since a task's result depends on the task alone, every
backend gives the same figures for the same run seed.

- ``serial``: one worker, no subprocess (also what ``workers=1`` means).
- ``local`` (default): a ``multiprocessing`` pool of ``workers`` processes.
  On POSIX it forks, so bots registered at run time (in a script or a test)
  are known to the workers.
- ``ray``: Ray tasks, on a local Ray started for the run (``num_cpus =
  workers``, bound to 127.0.0.1, usage statistics off unless the
  environment says otherwise) or on an existing cluster (``address``; the
  nodes need marjolet installed, at the same version, and any bots that the
  specs name).
"""

from __future__ import annotations

import contextlib
import importlib
import logging
import multiprocessing
import os
import signal
import socket
import sys
import threading
import time
import traceback
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from multiprocessing import connection
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from typing import Any, Protocol

from marjolet.arena.tasks import MatchOutcome, MatchTask, play_batch
from marjolet.errors import MarjoletError

BACKENDS = ("local", "ray")

Batch = Sequence[MatchTask]


class BackendError(MarjoletError):
    """A backend cannot start (Ray missing, cluster unreachable, ...)."""


class Backend(Protocol):
    """Plays batches of tasks; yields finished batches in any order."""

    name: str
    workers: int

    def run(self, batches: Iterable[Batch]) -> Iterator[list[MatchOutcome]]: ...

    def close(self, done: bool = False) -> None:
        """Stop every worker now (unfinished batches are dropped); with
        ``done`` (every batch was played) let them end by themselves."""


class SerialBackend:
    """Plays every batch in this process, in order."""

    name = "local"
    workers = 1

    def run(self, batches: Iterable[Batch]) -> Iterator[list[MatchOutcome]]:
        for batch in batches:
            yield play_batch(batch)

    def close(self, done: bool = False) -> None:
        pass


def _ignore_sigint() -> None:
    """Workers leave Ctrl-C to the parent, which saves and stops them, and
    die quietly when it terminates them (not by the parent's SIGTERM
    handler, which a fork inherits)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


#: Seconds between a worker's looks at whether the arena that started it still runs.
PARENT_CHECK_EVERY = 0.5


def _end_with_parent(parent: int) -> None:
    """End this worker as soon as the arena process ``parent`` is gone.

    A SIGKILL of the arena reaches none of its workers, and an orphan
    would play its batch to the end for nobody, on the cores of whatever
    runs next. A daemon thread watches the parent id (``prctl`` would be
    Linux only); the worker's ``exec:`` bots then read the end of their
    input and end too.
    """

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_CHECK_EVERY)
        os._exit(1)

    threading.Thread(target=watch, name="arena-parent-watch", daemon=True).start()


class RemoteTraceback(Exception):
    """The traceback of an exception raised in a worker, as text (the
    ``__cause__`` of the exception re-raised in the parent)."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


def _serve(conn: Connection, parent: int) -> None:
    """A worker's loop: play each batch received, send back ``(True,
    outcomes)`` or ``(False, (exception, traceback))``; end on ``None``,
    when the parent's end of the pipe is gone, or when the parent is."""
    _ignore_sigint()
    _end_with_parent(parent)
    while True:
        try:
            batch = conn.recv()
        except (EOFError, OSError):
            return
        if batch is None:
            return
        try:
            reply: tuple[bool, Any] = (True, play_batch(batch))
        except Exception as exc:
            reply = (False, (exc, traceback.format_exc()))
        try:
            conn.send(reply)
        except (BrokenPipeError, EOFError):
            return
        except Exception as exc:  # an exception that does not pickle
            text = f"{type(exc).__name__}: {exc}"
            conn.send((False, (BackendError(f"a worker's reply could not be sent: {text}"), "")))


@dataclass
class _Worker:
    process: BaseProcess
    conn: Connection


class ProcessPoolBackend:
    """A local pool of worker processes, each with a pipe of its own.

    Nothing but its pipe is shared between a worker and the parent: no
    queue lock that a worker stopped mid-write could die holding.
    (``multiprocessing.Pool`` has one: its ``terminate()`` deadlocked when
    it killed a worker that was sending a result, which hung runs stopped
    by a failing bot or by Ctrl-C.) A worker that dies is reported as a
    :class:`BackendError`, never waited for.
    """

    name = "local"

    #: Seconds a stopped worker is given to die of SIGTERM before SIGKILL.
    STOP_GRACE = 5.0

    def __init__(self, workers: int) -> None:
        self.workers = workers
        method = "fork" if "fork" in multiprocessing.get_all_start_methods() else None
        # typeshed's BaseContext lacks Process, which every real context has
        context: Any = multiprocessing.get_context(method)
        self._workers: list[_Worker] = []
        for _ in range(workers):
            ours, theirs = context.Pipe()
            process = context.Process(target=_serve, args=(theirs, os.getpid()), daemon=True)
            process.start()
            theirs.close()  # so that a dead worker reads as end of file here
            self._workers.append(_Worker(process, ours))

    def run(self, batches: Iterable[Batch]) -> Iterator[list[MatchOutcome]]:
        source = iter(batches)
        idle = list(self._workers)
        busy: dict[Connection, _Worker] = {}
        while True:
            while idle:
                batch = next(source, None)
                if batch is None:
                    break
                worker = idle.pop()
                try:
                    worker.conn.send(list(batch))
                except OSError:  # it died while idle
                    raise self._died(worker) from None
                busy[worker.conn] = worker
            if not busy:
                return
            for conn in connection.wait(list(busy)):
                assert isinstance(conn, Connection)
                worker = busy.pop(conn)
                yield self._receive(worker)
                idle.append(worker)

    @staticmethod
    def _died(worker: _Worker) -> BackendError:
        worker.process.join(1.0)
        code = worker.process.exitcode
        return BackendError(
            f"an arena worker process (pid {worker.process.pid}) died"
            + (f" with exit code {code}" if code is not None else "")
        )

    @staticmethod
    def _receive(worker: _Worker) -> list[MatchOutcome]:
        try:
            ok, payload = worker.conn.recv()
        except (EOFError, OSError):
            raise ProcessPoolBackend._died(worker) from None
        except Exception as exc:  # an exception that does not unpickle here
            raise BackendError(
                f"the reply of an arena worker (pid {worker.process.pid}) could not be read: "
                f"{type(exc).__name__}: {exc}"
            ) from None
        if ok:
            outcomes: list[MatchOutcome] = payload
            return outcomes
        error, text = payload
        raise error from (RemoteTraceback(text) if text else None)

    def close(self, done: bool = False) -> None:
        for worker in self._workers:
            if done and worker.process.is_alive():
                try:
                    worker.conn.send(None)  # idle workers end by themselves
                except OSError:
                    pass
            else:
                worker.process.terminate()
        for worker in self._workers:
            worker.process.join(self.STOP_GRACE)
            if worker.process.is_alive():
                worker.process.kill()
                worker.process.join()
            worker.conn.close()
        self._workers = []


#: Seconds a Ray cluster's address has to accept a connection.
REACH_TIMEOUT_S = 5.0


def check_reachable(address: str, timeout: float = REACH_TIMEOUT_S) -> None:
    """Refuse at once a cluster address that accepts no connection within
    ``timeout`` seconds of its host name being resolved: Ray itself retries
    such an address for minutes, printing its own log lines. ``auto``,
    ``local`` and the other schemes are Ray's to resolve."""
    host_port = address.removeprefix("ray://")
    if address in ("auto", "local") or "://" in host_port:
        return
    host, colon, port = host_port.rpartition(":")
    if not colon or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise BackendError(f"--address {address!r} is not HOST:PORT, ray://HOST:PORT or auto")
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=timeout):
            pass
    except OSError as exc:
        reason = exc.strerror or str(exc) or type(exc).__name__
        raise BackendError(f"cannot reach the Ray cluster at {address!r}: {reason}") from None


class RayBackend:
    """Ray tasks on a local Ray or on a cluster at ``address``."""

    name = "ray"

    def __init__(self, workers: int, address: str | None = None) -> None:
        # (an unreachable address was refused by the runner before any run was stored)
        try:
            # Imported by name so that type checking works without the extra.
            ray: Any = importlib.import_module("ray")
        except ImportError:
            raise BackendError(
                "--backend ray needs Ray: pip install 'marjolet[ray]'"
            ) from None
        self._ray: Any = ray
        self._started = False
        if not ray.is_initialized():
            os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
            options: dict[str, Any] = {
                "include_dashboard": False,
                "logging_level": logging.WARNING,
                "log_to_driver": False,
            }
            if address is None:
                options["num_cpus"] = workers
            try:
                with _loopback_only(ray, address is None):
                    ray.init(address=address, **options)
            except Exception as exc:
                where = f"the Ray cluster at {address!r}" if address else "a local Ray"
                raise BackendError(f"cannot start {where}: {type(exc).__name__}: {exc}") from None
            self._started = True
        cpus = int(ray.cluster_resources().get("CPU", workers))
        self.workers = max(1, cpus if address is not None else workers)
        self._remote = ray.remote(num_cpus=1)(play_batch)
        self._pending: list[Any] = []

    def run(self, batches: Iterable[Batch]) -> Iterator[list[MatchOutcome]]:
        ray = self._ray
        in_flight = 2 * self.workers
        source = iter(batches)
        exhausted = False
        while True:
            while not exhausted and len(self._pending) < in_flight:
                try:
                    batch = next(source)
                except StopIteration:
                    exhausted = True
                    break
                self._pending.append(self._remote.remote(list(batch)))
            if not self._pending:
                return
            done, self._pending = ray.wait(self._pending, num_returns=1)
            try:
                result: list[MatchOutcome] = ray.get(done[0])
            except ray.exceptions.RayTaskError as exc:
                cause = exc.cause if getattr(exc, "cause", None) is not None else exc
                if isinstance(cause, MarjoletError):
                    raise cause from None
                raise BackendError(f"a Ray task failed: {type(cause).__name__}: {cause}") from None
            yield result

    def close(self, done: bool = False) -> None:
        ray = self._ray
        for ref in self._pending:
            try:
                ray.cancel(ref, force=True)
            except Exception:
                pass  # best effort on the way out
        self._pending = []
        if self._started:
            ray.shutdown()
            self._started = False


@contextlib.contextmanager
def _loopback_only(ray: Any, enabled: bool) -> Iterator[None]:
    """Make a private local Ray listen on 127.0.0.1 only.

    Ray binds its servers to the loopback interface when its node address is
    127.0.0.1, which it picks when "clusters" are disabled (its own switch,
    ``RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0``, read when Ray is imported); so
    the switch is turned off around ``ray.init`` and restored afterwards.
    """
    constants = getattr(getattr(ray, "_private", None), "ray_constants", None)
    if not enabled or constants is None or not hasattr(constants, "ENABLE_RAY_CLUSTER"):
        yield
        return
    saved = constants.ENABLE_RAY_CLUSTER
    constants.ENABLE_RAY_CLUSTER = False
    try:
        yield
    finally:
        constants.ENABLE_RAY_CLUSTER = saved


def make_backend(name: str, workers: int, address: str | None = None) -> Backend:
    """Build a backend by name (``local`` or ``ray``)."""
    if name == "local":
        if address is not None:
            raise BackendError("--address is for --backend ray")
        if workers == 1:
            return SerialBackend()
        return ProcessPoolBackend(workers)
    if name == "ray":
        return RayBackend(workers, address)
    raise BackendError(f"unknown backend {name!r} (known: {', '.join(BACKENDS)})")


def default_workers() -> int:
    """The CPUs this process may use."""
    if sys.platform.startswith("linux"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)


#: Workers per available CPU a local pool may have (matches are CPU-bound:
#: more only add memory and contention).
WORKERS_PER_CPU = 4


def max_workers(backend: str, address: str | None = None) -> int | None:
    """The most workers ``backend`` can run on this machine, checked before
    any process starts (``None``: a Ray cluster at ``address`` decides)."""
    if backend == "local" or address is None:
        return max(8, WORKERS_PER_CPU * default_workers())
    return None
