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
``hello``), a line longer than 64 KiB, a line nobody asked for or the
program exiting: each kills the program (its whole process group), reaps it
and raises :class:`~marjolet.bots.base.BotFault` carrying the last lines of
its standard error. The host scores the match as lost by that bot; the next
match starts a fresh process.

Lines nobody asked for. The protocol has no request ids: an answer is the
first line after an ``act``, and one line per ``act`` is all a program may
write. The host tells a line nobody asked for from an answer by what it
can know for sure, whatever the thread scheduling or the load:

- it reads the program's standard output itself, in the thread that asks,
  never ahead of a request, and looks just before sending each ``act``:
  whatever is then in the pipe, or came with the last answer, was written
  while nothing was asked (:meth:`BotProcess.unexpected_line`);
- a line read while the program has not read a byte of the ``act`` yet
  (the pipe's count of unread bytes, which Linux gives) was written before
  it, whatever it says;
- a first line that is not a legal answer, followed by one that is within
  the program's ``budget_s``, came before the answer (a debug line, a copy
  of the last answer). So a wrong answer alone is reported after
  ``budget_s``, not at once: only a faulty program ever waits for this.

Each is reported as "wrote a line nobody asked for", quoting the line.
What no host can tell without request ids: a line written after the host
looked and sent the next ``act``, read after the program began to read
that ``act``, and that is a legal answer to it (a ``draw`` written in its
own write after ``meld X``), is taken as the answer; the real answer
behind it is then the line nobody asked for, one move later
(docs/bot-protocol.md, "Lines nobody asked for").

Process hygiene (:class:`BotProcess`): each program runs in a new session
(its own process group, no controlling terminal, so Ctrl-C in the host's
terminal does not reach it); its standard error is drained by a daemon
thread into a bounded buffer, its standard output read in bounded chunks;
every way out (``close()``, a fault, garbage collection, interpreter exit,
SIGTERM or SIGHUP of the host) kills the group and ``wait()``\\ s for the
child. A program that detaches itself into another session is beyond
reach; one that ignores end of input is killed. (POSIX only: process
groups and ``waitid``.)
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import select
import shutil
import signal
import subprocess
import sys
import termios
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
    parse_hello_answer,
    quit_message,
    result_message,
)
from marjolet.observation import Observation

#: Bytes of standard error kept for fault reports.
STDERR_TAIL_BYTES = 8 * 1024
#: Lines of standard error quoted in a fault.
STDERR_TAIL_LINES = 10
#: Seconds a bot gets to leave on its own after ``quit`` before it is killed.
QUIT_GRACE_S = 1.0
#: Most bytes taken from a program's standard output in one read (a pipe
#: holds 64 KiB), so what the host holds of it stays bounded.
READ_CHUNK_BYTES = MAX_LINE_BYTES + 1
#: Bytes at the start of a script the system reads for its ``#!`` line (Linux).
SHEBANG_BYTES = 256
#: Lines read past a first line that is not a legal answer, looking for the
#: answer behind it (a program writing more without answering is flooding).
MAX_LINES_BEFORE_ANSWER = 64


class ChannelError(Exception):
    """The conversation with a bot program broke down (time-out, exit, a
    line too long or nobody asked for); :class:`ExternalBot` turns it into a
    :class:`BotFault`."""


#: Why a program's standard output is done with: it closed it (the fault
#: then says how the program ended), or wrote a line too long to take.
_EOF = "closed its standard output"
_TOO_LONG = f"wrote a line longer than {MAX_LINE_BYTES} bytes"


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
    """One running bot program and its line channel.

    Its standard output is read here, by the thread that talks to it, never
    ahead of a request (no reader thread racing the host decides what counts
    as an answer): every byte the program wrote before a request is still in
    the pipe, or among the bytes read with the last answer, when the host
    looks for lines nobody asked for (:meth:`unexpected_line`) just before
    it."""

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
        # reads never block either: they follow a poll, and a time limit
        self._stdout_fd = popen.stdout.fileno()
        os.set_blocking(self._stdout_fd, False)
        self._readable = select.poll()
        self._readable.register(self._stdout_fd, select.POLLIN)
        #: Bytes read from standard output and not yet taken as lines.
        self._inbox = bytearray()
        #: Set once standard output is done with (:data:`_EOF`, :data:`_TOO_LONG`).
        self._broken: str | None = None
        self._tail = _Tail()
        reader = threading.Thread(
            target=_read_tail,
            args=(popen.stderr, self._tail),
            daemon=True,
            name=f"bot-{popen.pid}-stderr",
        )
        reader.start()
        self._child = _Child(popen, [reader])
        with _LIVE_LOCK:
            _LIVE.add(self._child)
        _install_signal_handlers()
        # garbage collection and interpreter exit both end the program
        self._finalizer = weakref.finalize(self, self._child.stop, 0.2)

    @property
    def alive(self) -> bool:
        return not self._child.stopped and not self._child.exited()

    @property
    def returncode(self) -> int | None:
        return self._child.popen.returncode

    def stderr_tail(self, count: int = STDERR_TAIL_LINES) -> list[str]:
        return self._tail.lines(count)

    def send(self, message: dict[str, Any], timeout: float = HELLO_TIMEOUT_S) -> int:
        """Write one message and return its size in bytes; :class:`ChannelError`
        if the program is gone, or has not read its input for ``timeout``
        seconds with the pipe full."""
        data = encode(message)
        view = memoryview(data)
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
        return len(data)

    def unread_input(self) -> int:
        """How many bytes sent to the program it has not read yet (0 where
        the system cannot tell: Linux tells, through either end of a pipe)."""
        try:
            count = fcntl.ioctl(self._stdin_fd, termios.FIONREAD, b"\0\0\0\0")
        except (OSError, ValueError):
            return 0
        return int.from_bytes(count, sys.byteorder, signed=True)

    def unexpected_line(self) -> str | None:
        """What the program wrote while nothing was asked (the first such
        line, or the start of one), if anything; :class:`ChannelError` if
        its output is closed. Called just before a request: all it finds
        was written before the request, so it cannot be the answer."""
        if not self._inbox:
            self._read(0.0)
        if self._inbox:
            return bytes(self._inbox.split(b"\n", 1)[0]).decode("utf-8", "replace").strip()
        if self._broken is not None:
            raise ChannelError(self._broken_reason())
        return None

    def receive(self, timeout: float) -> bytes:
        """The next line, within ``timeout`` seconds, else :class:`ChannelError`.
        Reading stops at the first line: what came with it stays unread."""
        deadline = time.monotonic() + timeout
        while True:
            line = self._take_line()
            if line is not None:
                return line
            if self._broken is not None:
                raise ChannelError(self._broken_reason())
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise ChannelError(f"no answer within {timeout:g} s")
            self._read(remaining)

    def _take_line(self) -> bytes | None:
        """The first whole line read (or the last, unended one once the
        output is closed), removed from the inbox; ``None`` if there is none."""
        end = self._inbox.find(b"\n")
        if end < 0 and (self._broken != _EOF or not self._inbox):
            if len(self._inbox) > MAX_LINE_BYTES:
                self._broken = _TOO_LONG
            return None
        size = end + 1 if end >= 0 else len(self._inbox)
        if size > MAX_LINE_BYTES:
            self._broken = _TOO_LONG
            return None
        line = bytes(self._inbox[:size])
        del self._inbox[:size]
        return line

    def _read(self, timeout: float) -> None:
        """Wait up to ``timeout`` seconds for output, then take what the
        pipe holds (one chunk at most); notes the end of the output."""
        if self._broken is not None or not self._readable.poll(timeout * 1000):
            return
        try:
            chunk = os.read(self._stdout_fd, READ_CHUNK_BYTES)
        except BlockingIOError:
            return
        except (OSError, ValueError):
            chunk = b""
        if chunk:
            self._inbox += chunk
        else:
            self._broken = _EOF

    def _broken_reason(self) -> str:
        return self._gone_reason() if self._broken == _EOF else str(self._broken)

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
    ``#!`` line, or whose ``#!`` line names a missing interpreter, would
    fail then with "Exec format error" or "No such file or directory")."""
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
            head = f.read(SHEBANG_BYTES)
    except OSError:  # executable but unreadable: only the system can tell
        return None
    if head.startswith(b"#!"):
        return _interpreter_problem(head)
    if not _looks_like_text(head[:64]):
        return None  # a compiled program (ELF, Mach-O, ...): the system's to judge
    return (
        "the file is a script without a '#!' line (such as '#!/usr/bin/env python3'"
        " as its first line), which the system cannot start"
    )


def _interpreter_problem(head: bytes) -> str | None:
    """What is wrong with the interpreter the ``#!`` line at the start of
    ``head`` names, read as the system reads it (the interpreter up to the
    first space or tab, then at most one argument: the rest of the line);
    ``None`` when nothing is, or when only the system can tell."""
    line, ended, _ = head[2:].partition(b"\n")
    if not ended and len(head) >= SHEBANG_BYTES:
        return None  # a line this long is the system's to judge
    text = line.decode("utf-8", "surrogateescape").strip(" \t")
    interpreter, _, argument = text.replace("\t", " ").partition(" ")
    if not interpreter:
        return "its '#!' line names no interpreter (such as '#!/usr/bin/env python3')"
    missing = _not_runnable(interpreter)
    if missing is not None:
        if "/" not in interpreter:
            missing += " (a '#!' line needs a full path, such as '#!/usr/bin/env NAME')"
        return f"its first line names the interpreter {interpreter!r}, which {missing}"
    if os.path.basename(interpreter) == "env":
        return _env_problem(interpreter, argument.strip(" "))
    return None


def _env_problem(env: str, argument: str) -> str | None:
    """What is wrong with the program ``#!/usr/bin/env NAME`` runs, when the
    host can tell: NAME must be a program on PATH (the bot gets the host's
    environment). Options other than ``-S`` and several words without it
    (which systems pass differently) are left to the system."""
    words = [word for word in argument.split(" ") if word]
    if words[:1] == ["-S"]:
        words = words[1:]
    elif len(words) > 1:
        return None
    words = [w for w in words if "=" not in w]  # NAME=value settings
    if not words:
        return f"its first line runs {env} with no program for it to run"
    name = words[0]
    if name.startswith("-"):
        return None
    if "/" in name:
        missing = _not_runnable(name)
    else:
        missing = None if shutil.which(name) else "is not found on PATH" + _crlf_hint(name)
    if missing is None:
        return None
    return f"its first line names the interpreter {name!r} (through {env}), which {missing}"


def _not_runnable(program: str) -> str | None:
    """Why the system could not run ``program`` (an interpreter), or ``None``."""
    if not os.path.exists(program):
        return "does not exist" + _crlf_hint(program)
    if os.path.isdir(program) or not os.access(program, os.X_OK):
        return "is not an executable program"
    return None


def _crlf_hint(name: str) -> str:
    """The likely cause of a name ending with a carriage return."""
    if name.endswith("\r"):
        return " (the file has Windows line ends: convert it with dos2unix)"
    return ""


def _start_problem(program: str, error: OSError) -> str:
    """Why the system refused to start ``program``, in words that say what
    is missing (the file may have changed since its spec was checked): the
    system's bare "No such file or directory" may mean the interpreter."""
    problem = program_problem(program)
    if problem is not None:
        return problem
    reason = error.strerror or str(error)
    if error.errno == errno.ENOENT:
        return (
            f"{reason}, yet the file exists: something it needs to start is missing"
            " (the interpreter its '#!' line names, or the loader of a compiled program)"
        )
    return reason


def _looks_like_text(head: bytes) -> bool:
    """Whether the first bytes of a file read as text (a script): no byte
    that text never holds (NUL and the other control bytes but tab and the
    line ends)."""
    return all(b >= 0x20 or b in b"\t\n\r\f" for b in head)


def _stray(line: bytes | str) -> str:
    """The fault of a line written when nothing was asked."""
    text = line.decode("utf-8", "replace").strip() if isinstance(line, bytes) else line
    return f"wrote a line nobody asked for: {text[:80]!r}"


def _answer(process: BotProcess, legal: Sequence[int], act_size: int, budget_s: float) -> int:
    """The action the program answers to the ``act`` of ``act_size`` bytes
    just sent: its first line, unless that line cannot be the answer.

    - The program had not read a byte of the ``act`` yet when its line was
      read: the line was written before, so nobody asked for it (a second
      line written just after the last answer, which the host overtook).
    - The line is not a legal answer but a legal answer follows it within
      the program's budget: the line came first (a debug line, a copy of
      the last answer), so nobody asked for it either. Only a program whose
      first line is wrong waits for this, and no longer than the time it
      aims to answer in; past that the line is reported as the answer.
    """
    sent = time.monotonic()
    timeout = answer_timeout(budget_s)
    line = process.receive(timeout)
    if process.unread_input() >= act_size:
        raise ChannelError(_stray(line))
    try:
        return parse_action_answer(decode(line, "answer"), legal)
    except ProtocolError:
        if _answer_follows(process, legal, sent + min(budget_s, timeout)):
            raise ChannelError(_stray(line)) from None
        raise


def _answer_follows(process: BotProcess, legal: Sequence[int], deadline: float) -> bool:
    """Whether one of the next lines (at most :data:`MAX_LINES_BEFORE_ANSWER`,
    until ``deadline``) is a legal answer."""
    for _ in range(MAX_LINES_BEFORE_ANSWER):
        try:
            line = process.receive(deadline - time.monotonic())
        except ChannelError:
            return False
        if _is_answer(line, legal):
            return True
    return False


def _is_answer(line: bytes, legal: Sequence[int]) -> bool:
    """Whether ``line`` is a legal answer to the ``act`` with ``legal``."""
    try:
        parse_action_answer(decode(line, "answer"), legal)
    except ProtocolError:
        return False
    return True


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
                raise ChannelError(_stray(stray))
            size = process.send(act_message(obs, legal, self.budget_s))
            return _answer(process, legal, size, self.budget_s)
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
        except OSError as exc:  # the reason alone: hosts name the bot
            problem = _start_problem(self.program, exc)
            raise BotFault(f"cannot start: {problem}", seat=seat) from None
        self._process = process
        self._in_match = False
        try:
            process.send(hello_message())
            line = process.receive(HELLO_TIMEOUT_S)
            self.identity = parse_hello_answer(line)
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
