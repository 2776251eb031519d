"""``exec:PATH``: a bot that is another program, speaking ``marjolet-bot/1``.

:class:`ExternalBot` is a :class:`~marjolet.bots.base.Bot` like any other,
so an external program plays wherever a bot spec is accepted. It starts the
program on its first move (building the bot starts nothing, so a spec can be
checked, copied to a worker or pickled freely), says ``hello``, sends one
``act`` per decision (built from the seat's observation alone, see
:func:`~marjolet.bots.protocol.act_message`) and reads the answer.

A bot that breaks the protocol never hangs or crashes the host. A line that
is not JSON, an answer without ``action`` or with an action not in
``legal``, no answer within ``max(10 * budget_s, 5)`` seconds (10 s for
``hello``), a line longer than 64 KiB, a flood of unrequested lines or the
program exiting: each kills the program (its whole process group), reaps it
and raises :class:`~marjolet.bots.base.BotFault` carrying the last lines of
its standard error. The host scores the match as lost by that bot; the next
match starts a fresh process.

Process hygiene (:class:`BotProcess`): each program runs in a new session
(its own process group, no controlling terminal, so Ctrl-C in the host's
terminal does not reach it); its standard output and error are read by two
daemon threads into bounded buffers; every way out (``close()``, a fault,
garbage collection, interpreter exit, SIGTERM or SIGHUP of the host) kills
the group and ``wait()``\\ s for the child. A program that detaches itself
into another session is beyond reach; one that ignores end of input is
killed. (POSIX only: process groups and ``waitid``.)
"""

from __future__ import annotations

import contextlib
import os
import queue
import select
import signal
import subprocess
import threading
import time
import weakref
from collections.abc import Sequence
from types import FrameType, TracebackType
from typing import IO, Any

from marjolet.bots.base import Bot, BotFault, BotSpecError, Param
from marjolet.bots.base import close_bots as close_bots  # re-exported for hosts
from marjolet.bots.base import end_match as end_match
from marjolet.bots.protocol import (
    HELLO_TIMEOUT_S,
    MAX_LINE_BYTES,
    SEED_ENV,
    BotIdentity,
    ProtocolError,
    act_message,
    answer_timeout,
    decode,
    encode,
    hello_message,
    parse_action_answer,
    parse_identity,
    quit_message,
    result_message,
)
from marjolet.observation import Observation

#: Unread lines a bot may have queued before it counts as flooding.
MAX_PENDING_LINES = 64
#: Bytes of standard error kept for fault reports.
STDERR_TAIL_BYTES = 8 * 1024
#: Lines of standard error quoted in a fault.
STDERR_TAIL_LINES = 10
#: Seconds a bot gets to leave on its own after ``quit`` before it is killed.
QUIT_GRACE_S = 1.0


class ChannelError(Exception):
    """The conversation with a bot program broke down (time-out, exit,
    flooding); :class:`ExternalBot` turns it into a :class:`BotFault`."""


class _Marker:
    """A sentinel the stdout reader leaves in the line queue."""

    def __init__(self, text: str) -> None:
        self.text = text


_EOF = _Marker("closed its standard output")
_TOO_LONG = _Marker(f"wrote a line longer than {MAX_LINE_BYTES} bytes")
_FLOOD = _Marker(f"flooded its output ({MAX_PENDING_LINES} lines nobody asked for)")


def _read_lines(stream: IO[bytes], lines: queue.Queue[bytes | _Marker]) -> None:
    """Reader thread: one queue item per line, bounded in length and count;
    stops reading at the first overflow (the program is then killed)."""
    try:
        while True:
            line = stream.readline(MAX_LINE_BYTES + 1)
            if not line:
                break
            if len(line) > MAX_LINE_BYTES:
                lines.put(_TOO_LONG)
                return
            if lines.qsize() >= MAX_PENDING_LINES:
                lines.put(_FLOOD)
                return
            lines.put(line)
    except (OSError, ValueError):
        pass
    lines.put(_EOF)


class _Tail:
    """The last bytes a program wrote to its standard error."""

    def __init__(self) -> None:
        self._buf = bytearray()
        self._lock = threading.Lock()

    def add(self, chunk: bytes) -> None:
        with self._lock:
            self._buf += chunk
            if len(self._buf) > 2 * STDERR_TAIL_BYTES:
                del self._buf[: len(self._buf) - STDERR_TAIL_BYTES]

    def lines(self, count: int = STDERR_TAIL_LINES) -> list[str]:
        with self._lock:
            data = bytes(self._buf[-STDERR_TAIL_BYTES:])
        text = data.decode("utf-8", "replace")
        out = [line.rstrip()[:300] for line in text.splitlines() if line.strip()]
        return out[-count:]


def _read_tail(stream: IO[bytes], tail: _Tail) -> None:
    """Reader thread: keeps draining standard error so the program never
    blocks on it, remembering only the tail."""
    read = getattr(stream, "read1", stream.read)
    try:
        while True:
            chunk = read(4096)
            if not chunk:
                return
            tail.add(chunk)
    except (OSError, ValueError):
        return


# -- every live child, for the exit and signal safety nets ---------------------

_HAS_WAITID = hasattr(os, "waitid")

_LIVE: set[_Child] = set()
_LIVE_LOCK = threading.Lock()
_handlers_installed = False


class _Child:
    """The OS side of one program: the Popen object and its reader threads.
    Kept apart from :class:`BotProcess` so that a ``weakref.finalize`` can
    reap it without keeping the owner alive."""

    def __init__(self, popen: subprocess.Popen[bytes], threads: list[threading.Thread]) -> None:
        self.popen = popen
        self.threads = threads
        self.owner = os.getpid()
        self.lock = threading.Lock()
        self.stopped = False

    def exited(self) -> bool:
        """Whether the program has ended, without reaping it (so its
        process group id cannot be reused before the group is killed)."""
        if self.popen.returncode is not None:
            return True
        if not _HAS_WAITID:  # e.g. macOS: poll() reaps, a tiny pid-reuse window
            return self.popen.poll() is not None
        try:
            info = os.waitid(os.P_PID, self.popen.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
        except ChildProcessError:
            return True
        return info is not None

    def exit_status(self) -> int | None:
        """The exit status (negative: killed by that signal) once the program
        has ended, else ``None``; does not reap it."""
        if self.popen.returncode is not None or not _HAS_WAITID:
            return self.popen.poll()
        try:
            info = os.waitid(os.P_PID, self.popen.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
        except ChildProcessError:
            return None
        if info is None:
            return None
        return info.si_status if info.si_code == os.CLD_EXITED else -info.si_status

    def stop(self, grace: float) -> int | None:
        """Ask the program to leave (``quit`` and end of input), give it
        ``grace`` seconds, then kill its process group and reap it.
        Idempotent; a no-op in a forked copy of the host."""
        if os.getpid() != self.owner:
            return None
        with self.lock:
            if self.stopped:
                return self.popen.returncode
            self.stopped = True
        stdin = self.popen.stdin
        if grace > 0 and stdin is not None and not self.exited():
            try:  # best effort: the input pipe is non-blocking
                os.write(stdin.fileno(), encode(quit_message()))
            except (OSError, ValueError):
                pass
        if stdin is not None:
            with contextlib.suppress(OSError, ValueError):
                stdin.close()
        deadline = time.monotonic() + grace
        while grace > 0 and not self.exited() and time.monotonic() < deadline:
            time.sleep(0.005)
        # the group leader is not reaped yet, so the group id is still ours
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.popen.pid, signal.SIGKILL)
        code = self.popen.wait()
        for t in self.threads:
            t.join(timeout=1.0)
        for stream in (self.popen.stdout, self.popen.stderr):
            if stream is not None:
                with contextlib.suppress(OSError, ValueError):
                    stream.close()
        with _LIVE_LOCK:
            _LIVE.discard(self)
        return code


def _on_fatal_signal(signum: int, frame: FrameType | None) -> None:
    """SIGTERM/SIGHUP while bots run: kill their process groups, then die as
    the signal would (init reaps them). No locks and no waiting here: the
    interrupted code may hold any lock."""
    for child in tuple(_LIVE):
        if child.owner == os.getpid() and child.popen.returncode is None:
            with contextlib.suppress(OSError):
                os.killpg(child.popen.pid, signal.SIGKILL)
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)


def _install_signal_handlers() -> None:
    """Replace the *default* SIGTERM/SIGHUP action (which would exit without
    any cleanup, e.g. a pool worker being terminated) by one that first
    kills the bot programs. Handlers set by the application are left alone.
    Only possible from the main thread; elsewhere the exit hook suffices."""
    global _handlers_installed
    if _handlers_installed or threading.current_thread() is not threading.main_thread():
        return
    _handlers_installed = True
    for sig in (signal.SIGTERM, signal.SIGHUP):
        if signal.getsignal(sig) == signal.SIG_DFL:
            signal.signal(sig, _on_fatal_signal)


class BotProcess:
    """One running bot program and its line channel."""

    def __init__(self, argv: Sequence[str], env: dict[str, str] | None = None) -> None:
        popen = subprocess.Popen(
            list(argv),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            close_fds=True,
            start_new_session=True,
        )
        assert popen.stdin is not None and popen.stdout is not None and popen.stderr is not None
        self.pid = popen.pid
        # writes never block: a program that stops reading is a fault, not a hang
        self._stdin_fd = popen.stdin.fileno()
        os.set_blocking(self._stdin_fd, False)
        self._lines: queue.Queue[bytes | _Marker] = queue.Queue()
        self._tail = _Tail()
        threads = [
            threading.Thread(
                target=_read_lines, args=(popen.stdout, self._lines), daemon=True,
                name=f"bot-{popen.pid}-stdout",
            ),
            threading.Thread(
                target=_read_tail, args=(popen.stderr, self._tail), daemon=True,
                name=f"bot-{popen.pid}-stderr",
            ),
        ]
        for t in threads:
            t.start()
        self._child = _Child(popen, threads)
        with _LIVE_LOCK:
            _LIVE.add(self._child)
        _install_signal_handlers()
        # garbage collection and interpreter exit both end the program
        self._finalizer = weakref.finalize(self, self._child.stop, 0.2)
        self._broken: _Marker | None = None

    @property
    def alive(self) -> bool:
        return not self._child.stopped and not self._child.exited()

    @property
    def returncode(self) -> int | None:
        return self._child.popen.returncode

    def stderr_tail(self, count: int = STDERR_TAIL_LINES) -> list[str]:
        return self._tail.lines(count)

    def send(self, message: dict[str, Any], timeout: float = HELLO_TIMEOUT_S) -> None:
        """Write one message; :class:`ChannelError` if the program is gone,
        or has not read its input for ``timeout`` seconds with the pipe full."""
        view = memoryview(encode(message))
        deadline = time.monotonic() + timeout
        poller = select.poll()
        poller.register(self._stdin_fd, select.POLLOUT)
        while view:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise ChannelError(f"has not read its standard input for {timeout:g} s")
            if not poller.poll(remaining * 1000):
                continue
            try:
                view = view[os.write(self._stdin_fd, view) :]
            except BlockingIOError:
                continue
            except (OSError, ValueError):
                raise ChannelError(self._gone_reason()) from None

    def unexpected_line(self) -> str | None:
        """A line the program wrote when nothing was asked, if any."""
        try:
            item = self._lines.get_nowait()
        except queue.Empty:
            return None
        if isinstance(item, _Marker):
            self._broken = item
            raise ChannelError(self._gone_reason() if item is _EOF else item.text)
        return item.decode("utf-8", "replace").strip()

    def receive(self, timeout: float) -> bytes:
        """The next line, within ``timeout`` seconds, else :class:`ChannelError`."""
        if self._broken is not None:
            raise ChannelError(
                self._gone_reason() if self._broken is _EOF else self._broken.text
            )
        try:
            item = self._lines.get(timeout=timeout)
        except queue.Empty:
            raise ChannelError(f"no answer within {timeout:g} s") from None
        if isinstance(item, _Marker):
            self._broken = item
            raise ChannelError(self._gone_reason() if item is _EOF else item.text)
        return item

    def _gone_reason(self) -> str:
        """Why the channel closed: the exit status if the program ended
        (waited for briefly, without reaping it: :meth:`stop` does that)."""
        deadline = time.monotonic() + 0.5
        while not self._child.exited() and time.monotonic() < deadline:
            time.sleep(0.005)
        code = self._child.exit_status()
        if code is None:
            return "closed its standard output"
        if code < 0:
            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = f"signal {-code}"
            return f"was killed by {name}"
        return f"exited with status {code}"

    def stop(self, grace: float = QUIT_GRACE_S) -> int | None:
        """End the program (``quit``, then kill after ``grace`` seconds) and reap it."""
        self._finalizer.detach()
        return self._child.stop(grace)


def program_problem(path: str) -> str | None:
    """Why ``path`` cannot be started as a bot program, or ``None``: checked
    when the spec is given, not at the first move (a script without its
    ``#!`` line would fail then with "Exec format error")."""
    if not os.path.exists(path):
        return "no such file"
    if os.path.isdir(path):
        return "it is a directory, not a program"
    if not os.path.isfile(path):
        return "it is not a regular file (a pipe or a device), not a program"
    if not os.access(path, os.X_OK):
        return f"the file is not executable (chmod +x {path})"
    try:
        with open(path, "rb") as f:
            head = f.read(64)
    except OSError:  # executable but unreadable: only the system can tell
        return None
    if head.startswith(b"#!") or not _looks_like_text(head):
        return None  # a script, or a compiled program (ELF, Mach-O, ...)
    return (
        "the file is a script without a '#!' line (such as '#!/usr/bin/env python3'"
        " as its first line), which the system cannot start"
    )


def _looks_like_text(head: bytes) -> bool:
    """Whether the first bytes of a file read as text (a script): no byte
    that text never holds (NUL and the other control bytes but tab and the
    line ends)."""
    return all(b >= 0x20 or b in b"\t\n\r\f" for b in head)


class ExternalBot(Bot):
    """A bot program speaking ``marjolet-bot/1`` (spec ``exec:PATH``)."""

    name = "exec"
    description = "an external program speaking the marjolet-bot/1 protocol"
    params = (
        Param("path", str, "", "the program to run (an executable; arguments go in a wrapper)"),
        Param(
            "budget_s",
            float,
            1.0,
            "seconds the bot should aim to answer within; it forfeits after max(10x, 5 s)",
        ),
    )

    def __init__(self, *, seed: int | None = None, **options: Any) -> None:
        super().__init__(seed=seed, **options)
        path = str(self.options["path"])
        if not path:
            raise BotSpecError("bot spec 'exec:PATH' needs the path of a program")
        problem = program_problem(path)
        if problem is not None:
            raise BotSpecError(f"bot spec 'exec:{path}': {problem}")
        budget = float(self.options["budget_s"])
        if not 0 < budget < 3600:
            raise BotSpecError(f"bot spec 'exec:{path}': budget_s must be in (0, 3600)")
        self.path = path
        self.program = os.path.abspath(path)
        self.budget_s = budget
        #: What the program said about itself, once started.
        self.identity: BotIdentity | None = None
        self._process: BotProcess | None = None
        #: True between the first ``act`` of a match and its ``result``.
        self._in_match = False

    # -- the Bot interface ------------------------------------------------------

    @property
    def spec(self) -> str:
        if self.budget_s == 1.0:
            return f"exec:{self.path}"
        return f"exec:path={self.path},budget_s={self.budget_s:g}"

    @property
    def display_name(self) -> str:
        """The name the program gave, else the file name."""
        return self.identity.name if self.identity else os.path.basename(self.path)

    def choose(self, obs: Observation, legal: Sequence[int]) -> int:
        process = self._ready(obs.seat)
        self._in_match = True
        try:
            stray = process.unexpected_line()
            if stray is not None:
                raise ChannelError(f"wrote a line nobody asked for: {stray[:80]!r}")
            process.send(act_message(obs, legal, self.budget_s))
            line = process.receive(answer_timeout(self.budget_s))
            return parse_action_answer(decode(line, "answer"), legal)
        except (ChannelError, ProtocolError) as exc:
            raise self._fault(str(exc), obs.seat) from None

    def end_match(self, totals: Sequence[int], winner: int) -> None:
        """Send ``result``: the match is over (after a forfeit, ``winner`` is
        the other seat). The program stays up for the next match."""
        process = self._process
        if process is None or not self._in_match:
            return
        self._in_match = False
        try:
            process.send(result_message(totals, winner))
        except ChannelError:
            self._discard(grace=0.0)

    def new_match(self, seed: int | None = None) -> None:
        """Forget the last match. A program still in the middle of one (no
        ``result`` was sent) is replaced by a fresh process."""
        super().new_match(seed)
        if self._in_match:
            self._discard(grace=0.0)

    def close(self) -> None:
        """Say ``quit``, wait up to a second, kill what is left and reap it."""
        self._discard(grace=QUIT_GRACE_S)

    def __enter__(self) -> ExternalBot:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def __getstate__(self) -> dict[str, Any]:
        """Pickle the spec, not the process (a copy starts its own)."""
        state = self.__dict__.copy()
        state["_process"] = None
        state["_in_match"] = False
        return state

    # -- the process --------------------------------------------------------------

    def start(self) -> BotIdentity:
        """Start the program (if it is not running) and exchange ``hello``;
        raises :class:`BotFault` if it cannot start or answers wrongly."""
        self._ready(None)
        assert self.identity is not None
        return self.identity

    def _ready(self, seat: int | None) -> BotProcess:
        process = self._process
        if process is not None and process.alive:
            return process
        if process is not None:  # ended between matches: not a fault
            self._discard(grace=0.0)
        env = dict(os.environ)
        if self.seed is not None:
            env[SEED_ENV] = str(self.seed)
        try:
            process = BotProcess([self.program], env)
        except OSError as exc:
            raise BotFault(
                f"bot {self.spec!r} cannot start: {exc.strerror or exc}", seat=seat
            ) from None
        self._process = process
        self._in_match = False
        try:
            process.send(hello_message())
            line = process.receive(HELLO_TIMEOUT_S)
            self.identity = parse_identity(decode(line, "answer to hello"))
        except (ChannelError, ProtocolError) as exc:
            raise self._fault(f"hello: {exc}", seat) from None
        return process

    def _discard(self, grace: float) -> list[str]:
        """Stop the current process (if any); return its standard error tail."""
        process, self._process = self._process, None
        self._in_match = False
        if process is None:
            return []
        process.stop(grace)
        return process.stderr_tail()

    def _fault(self, reason: str, seat: int | None) -> BotFault:
        """Kill the program and describe why it forfeits. The message is the
        reason alone (the host says which bot and seat), followed by the end
        of the program's standard error when it wrote any."""
        tail = self._discard(grace=0.0)
        message = reason
        if tail:
            quoted = " | ".join(tail[-3:])
            message += f"; its standard error ends: {quoted[-400:]}"
        return BotFault(message, seat=seat, stderr_tail="\n".join(tail))
