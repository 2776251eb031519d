"""The host side of marjolet-bot/1 (``exec:PATH``): well-behaved programs
play like any bot; misbehaving ones forfeit with a clear report and are
always killed and reaped, even when the host is interrupted."""

from __future__ import annotations

import json
import os
import pickle
import random
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import pytest

import marjolet.bots.external as external
from cli_support import gone
from marjolet import record
from marjolet.actions import ACTION_NAMES
from marjolet.bots import BotSpecError, make_bot
from marjolet.bots.base import Bot, BotFault
from marjolet.bots.external import ExternalBot, program_problem
from marjolet.cli import main
from marjolet.match import Match
from marjolet.observation import Observation
from marjolet.rules import CLASSIC
from marjolet.tui.session import GameSession, display_name
from marjolet.turns import play_match

#: One script, many behaviours: ``MODE`` is set per test bot.
BOT_TEMPLATE = r"""
import json, os, subprocess, sys, time

MODE = {mode!r}
PIDFILE = {pidfile!r}


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def write_lines(*lines):  # in one system call, whatever Python's buffering
    os.write(1, "".join(line + "\n" for line in lines).encode())


def wait_for_unread_input():  # however slow the host: Linux tells what the pipe holds
    import array, fcntl, termios
    unread = array.array("i", [0])
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        fcntl.ioctl(0, termios.FIONREAD, unread)
        if unread[0] > 0:
            return
        time.sleep(0.005)


with open(PIDFILE + ".self", "a") as f:
    f.write("%d\n" % os.getpid())
if MODE == "grandchild":
    child = subprocess.Popen(["sleep", "300"])
    with open(PIDFILE, "w") as f:
        f.write(str(child.pid))
if MODE == "exit_at_start":
    print("cannot find my weights", file=sys.stderr)
    sys.exit(4)

acts = 0
last = None
melded = False
for line in sys.stdin:
    message = json.loads(line)
    cmd = message["cmd"]
    if cmd == "hello":
        if MODE == "no_hello":
            continue
        if MODE == "bad_hello":
            send({{"protocol": "marjolet-bot/1"}})
            continue
        if MODE == "empty_name":
            send({{"name": " ", "protocol": "marjolet-bot/1"}})
            continue
        if MODE == "banner":
            print("MyBot v2 ready", flush=True)
        send({{"name": "test-" + MODE, "protocol": "marjolet-bot/1"}})
    elif cmd == "act":
        acts += 1
        legal = message["legal"]
        if MODE == "garbage":
            print("I think I will play the queen", flush=True)
        elif MODE == "no_action":
            send({{"move": legal[0]}})
        elif MODE == "illegal":
            send({{"action": "meld 4A" if "meld 4A" not in legal else "draw"}})
        elif MODE in ("sleep", "grandchild"):
            time.sleep(300)
        elif MODE == "exit" and acts == 3:
            print("giving up after three moves", file=sys.stderr, flush=True)
            sys.exit(3)
        elif MODE == "crash" and acts == 2:
            raise RuntimeError("boom")
        elif MODE == "flood_lines":
            for i in range(200000):
                sys.stdout.write("spam %d\n" % i)
            sys.stdout.flush()
        elif MODE == "flood_line":
            sys.stdout.write("x" * (10 * 1024 * 1024))
            sys.stdout.flush()
            time.sleep(300)
        elif MODE == "twice":
            answer = json.dumps({{"action": legal[0]}}) + "\n"
            sys.stdout.write(answer + answer)
            sys.stdout.flush()
        elif MODE in ("copy_after", "copy_later", "debug_after", "stray_then_signal") and acts == 1:
            answer = json.dumps({{"action": legal[0]}})
            write_lines(answer)
            if MODE == "copy_later":
                time.sleep(0.05)  # the host has sent the next act by now
            # then, in a write of its own, a line nobody asked for
            extra = {{"debug_after": "debug: played " + legal[0], "stray_then_signal": "late line"}}
            write_lines(extra.get(MODE, answer))
            if MODE == "stray_then_signal":
                open(PIDFILE + ".wrote", "w").close()
        elif MODE in ("copy_with_next", "debug_with_next") and acts == 2:
            first = last if MODE == "copy_with_next" else "debug: thinking"
            write_lines(first, json.dumps({{"action": legal[0]}}))  # in one write
        elif (MODE == "meld_then_draw" and not melded and "draw" in legal
              and any(a.startswith("meld") for a in legal)):
            melded = True
            meld = [a for a in legal if a.startswith("meld")][0]
            write_lines(json.dumps({{"action": meld}}))
            wait_for_unread_input()  # the host has asked for the next action
            # marked first: the host may stop this program as soon as it reads the line
            open(PIDFILE + ".melded", "w").close()
            write_lines(json.dumps({{"action": "draw"}}))  # written before reading that act
            time.sleep(0.3)
        else:
            if MODE == "flood_stderr":
                sys.stderr.write(("noise " * 20000 + "\n") * 10)
                sys.stderr.flush()
            send({{"action": legal[0]}})
        last = json.dumps({{"action": legal[0]}})
    elif cmd == "result":
        with open(PIDFILE + ".results", "a") as f:
            f.write(json.dumps(message) + "\n")
    elif cmd == "quit":
        if MODE == "ignore_quit":
            time.sleep(300)
        break
if MODE == "ignore_quit":
    time.sleep(300)
"""

BotFactory = Callable[..., ExternalBot]


@pytest.fixture
def bot_program(tmp_path: Path) -> Iterator[BotFactory]:
    """Build an ``exec:`` bot running the template in a given mode; every
    bot built is closed at the end of the test."""
    made: list[ExternalBot] = []

    def build(mode: str, **options: object) -> ExternalBot:
        path = tmp_path / f"bot_{mode}.py"
        pidfile = str(tmp_path / f"{mode}.pid")
        path.write_text(f"#!{sys.executable}\n" + BOT_TEMPLATE.format(mode=mode, pidfile=pidfile))
        path.chmod(0o755)
        spec = f"exec:{path}"
        if options:
            spec = f"exec:path={path}," + ",".join(f"{k}={v}" for k, v in options.items())
        bot = make_bot(spec, seed=1)
        assert isinstance(bot, ExternalBot)
        made.append(bot)
        return bot

    yield build
    for bot in made:
        bot.close()


def reaped(pid: int) -> bool:
    """Whether our child ``pid`` has been waited for (no zombie)."""
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return True
    return False


def started_pids(bot_program: BotFactory, mode: str) -> list[int]:
    """The processes started for the test bot ``mode`` (each logs its pid)."""
    pidfile = Path(bot_program(mode).path).with_name(f"{mode}.pid.self")
    return [int(line) for line in pidfile.read_text().split()]


def pid_of(bot: ExternalBot) -> int:
    process = bot._process
    assert process is not None
    return process.pid


def play(bot: ExternalBot, seed: int = 3) -> Match:
    match = Match(seed=seed)
    play_match(match, [bot, make_bot("random", seed=2)])
    return match


# -- well-behaved programs ------------------------------------------------------


def test_exec_bot_plays_a_match_and_close_reaps_it(bot_program: BotFactory) -> None:
    bot = bot_program("good")
    match = play(bot)
    assert match.is_over
    assert bot.identity is not None and bot.identity.name == "test-good"
    assert bot.display_name == "test-good"
    pid = pid_of(bot)
    bot.close()
    assert reaped(pid) and gone(pid)
    bot.close()  # idempotent


def test_result_ends_a_match_and_the_next_match_reuses_the_process(
    bot_program: BotFactory, tmp_path: Path
) -> None:
    bot = bot_program("good")
    first = play(bot, seed=3)
    pid = pid_of(bot)
    assert first.winner is not None
    bot.end_match(first.totals, first.winner)
    bot.new_match()
    play(bot, seed=4)
    assert pid_of(bot) == pid
    bot.close()
    results = (tmp_path / "good.pid.results").read_text().splitlines()
    assert results[0] == (
        f'{{"cmd": "result", "totals": [{first.totals[0]}, {first.totals[1]}], '
        f'"winner": {first.winner}}}'
    )


def test_a_new_match_without_result_gets_a_fresh_process(bot_program: BotFactory) -> None:
    bot = bot_program("good")
    match = Match(seed=3)
    match.start_deal()
    deal = match.deal
    assert deal is not None
    while deal.to_move != 0:
        deal.play(deal.legal_actions()[0])
    bot.choose(match.observation(0), deal.legal_actions())
    pid = pid_of(bot)
    bot.new_match(seed=9)  # abandons the match in progress
    assert reaped(pid)
    play(bot)
    assert pid_of(bot) != pid


def test_a_bot_that_floods_standard_error_is_not_blocked(bot_program: BotFactory) -> None:
    bot = bot_program("flood_stderr")
    assert play(bot).is_over  # ~1 MB of stderr per move, drained, only the tail kept
    process = bot._process
    assert process is not None
    assert len("\n".join(process.stderr_tail())) <= external.STDERR_TAIL_BYTES


def test_an_exec_bot_pickles_without_its_process(bot_program: BotFactory) -> None:
    bot = bot_program("good")
    bot.start()
    copy = pickle.loads(pickle.dumps(bot))
    assert isinstance(copy, ExternalBot) and copy._process is None
    assert copy.spec == bot.spec
    assert play(copy).is_over
    assert pid_of(copy) != pid_of(bot)
    copy.close()


def test_the_host_passes_its_seed_in_the_environment(tmp_path: Path) -> None:
    script = tmp_path / "seed.sh"
    out = tmp_path / "seed.txt"
    script.write_text(
        f'#!/bin/sh\necho "$MARJOLET_BOT_SEED" > {out}\n'
        f"exec {sys.executable} -m marjolet bot-serve random\n"
    )
    script.chmod(0o755)
    bot = make_bot(f"exec:{script}", seed=1234)
    assert isinstance(bot, ExternalBot)
    with bot:
        bot.start()
    assert out.read_text().strip() == "1234"


# -- faults: each forfeits, is reported, and leaves no process behind -------------


@pytest.mark.parametrize(
    ("mode", "reason"),
    [
        ("garbage", "answer is not JSON: 'I think I will play the queen'"),
        ("no_action", "answer has no 'action' key"),
        ("illegal", "action 'meld 4A' is not one of the legal actions"),
        ("sleep", "no answer within 1.5 s"),
        ("exit", "exited with status 3"),
        ("crash", "exited with status 1"),
        ("flood_lines", "answer is not JSON: 'spam 0'"),
        ("flood_line", "wrote a line longer than 65536 bytes"),
        ("twice", "wrote a line nobody asked for"),
        ("no_hello", "hello: no answer within 1.5 s"),
        ("bad_hello", "hello: answer to hello has no 'name'"),
        ("empty_name", "hello: answer to hello has an empty 'name'"),
        (
            "banner",
            "hello: answer to hello is not JSON: 'MyBot v2 ready' (a program's first"
            " line must be its answer to hello; write anything else to standard error)",
        ),
        ("exit_at_start", "hello: exited with status 4"),
    ],
)
def test_misbehaving_bot_forfeits_and_is_reaped(
    bot_program: BotFactory, monkeypatch: pytest.MonkeyPatch, mode: str, reason: str
) -> None:
    budgets: list[float] = []

    def quick_timeout(budget_s: float) -> float:
        budgets.append(budget_s)
        return 1.5  # short, yet ample for a good answer on a busy machine

    monkeypatch.setattr(external, "answer_timeout", quick_timeout)
    monkeypatch.setattr(external, "HELLO_TIMEOUT_S", 1.5)
    bot = bot_program(mode, budget_s=0.3)
    t0 = time.monotonic()
    with pytest.raises(BotFault) as info:
        play(bot)
    assert time.monotonic() - t0 < 20
    fault = info.value
    assert fault.seat == 0
    assert reason in str(fault)
    assert str(fault).startswith(reason.split(":")[0])  # the host names the bot and seat
    assert all(b == 0.3 for b in budgets)
    assert bot._process is None
    (pid,) = started_pids(bot_program, mode)
    assert reaped(pid) and gone(pid)


# -- lines nobody asked for: each is named as such, never taken for an answer ------


def count_moves(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Count the moves asked of exec bots (``len`` of the returned list)."""
    asked: list[int] = []
    choose = ExternalBot.choose

    def counted(self: ExternalBot, obs: Observation, legal: Sequence[int]) -> int:
        asked.append(len(asked) + 1)
        return choose(self, obs, legal)

    monkeypatch.setattr(ExternalBot, "choose", counted)
    return asked


@pytest.mark.parametrize(
    "mode",
    [
        "twice",  # the answer twice in one write
        "copy_after",  # the answer, then at once a copy in a write of its own
        "copy_later",  # the copy a moment later, once the next act is sent
        "copy_with_next",  # the copy goes out late, in one write with the next answer
    ],
)
def test_a_second_line_written_with_the_answer_is_a_stray_line_not_an_illegal_action(
    bot_program: BotFactory, monkeypatch: pytest.MonkeyPatch, mode: str
) -> None:
    asked = count_moves(monkeypatch)
    bot = bot_program(mode, budget_s=2)  # the time a legal answer has to follow a stray line
    with pytest.raises(BotFault) as info:
        play(bot)
    assert str(info.value).startswith("wrote a line nobody asked for: '{\"action\": ")
    assert len(asked) == 2  # at the next move, whichever way the line came


@pytest.mark.parametrize(
    ("mode", "line"),
    [
        ("debug_after", "debug: played "),  # in a write of its own, just after the answer
        ("debug_with_next", "debug: thinking"),  # in one write with the next answer
    ],
)
def test_a_debug_line_written_after_the_answer_is_a_stray_line_not_a_bad_answer(
    bot_program: BotFactory, monkeypatch: pytest.MonkeyPatch, mode: str, line: str
) -> None:
    asked = count_moves(monkeypatch)
    bot = bot_program(mode, budget_s=2)
    with pytest.raises(BotFault) as info:
        play(bot)
    assert str(info.value).startswith("wrote a line nobody asked for: '" + line)
    assert "JSON" not in str(info.value)
    assert len(asked) == 2


@pytest.mark.skipif(sys.platform != "linux", reason="Linux tells how much of a pipe is unread")
def test_a_legal_line_written_before_the_bot_read_the_act_is_a_stray_line_not_its_answer(
    bot_program: BotFactory, tmp_path: Path
) -> None:
    bot = bot_program("meld_then_draw")  # 'meld X', then 'draw' while the next act waits unread
    match = Match(seed=3)
    stray = re.escape("""wrote a line nobody asked for: '{"action": "draw"}'""")
    with pytest.raises(BotFault, match=f"^{stray}"):
        play_match(match, [bot, make_bot("random", seed=2)])
    assert (tmp_path / "meld_then_draw.pid.melded").exists()
    deal = match.deal
    assert deal is not None
    assert ACTION_NAMES[deal.moves[-1]].startswith("meld")  # the stray 'draw' was not played


def test_a_line_written_before_the_next_act_is_found_before_that_act_is_sent(
    bot_program: BotFactory, tmp_path: Path
) -> None:
    bot = bot_program("stray_then_signal")
    match = Match(seed=3)
    match.start_deal()
    deal = match.deal
    assert deal is not None
    other = make_bot("random", seed=2)
    deal.play(bot.choose(*_next_turn(match, 0, other)))
    wrote = tmp_path / "stray_then_signal.pid.wrote"
    deadline = time.monotonic() + 20
    while not wrote.exists():  # the bot has written its stray line: whatever the
        assert time.monotonic() < deadline  # host's threads do, it is found now
        time.sleep(0.01)
    position = _next_turn(match, 0, other)
    with pytest.raises(BotFault, match=r"^wrote a line nobody asked for: 'late line'$"):
        bot.choose(*position)


def _next_turn(match: Match, seat: int, other: Bot) -> tuple[Observation, list[int]]:
    """Play ``other``'s moves until ``seat`` is to move; its position then."""
    deal = match.deal
    assert deal is not None
    while deal.to_move != seat:
        deal.play(other.choose(match.observation(1 - seat), deal.legal_actions()))
    return match.observation(seat), deal.legal_actions()


def test_a_bot_whose_only_line_is_wrong_is_reported_after_its_budget_not_the_time_limit(
    bot_program: BotFactory,
) -> None:
    bot = bot_program("garbage", budget_s=0.2)  # the time limit is 5 s
    bot.start()
    t0 = time.monotonic()
    with pytest.raises(BotFault, match="answer is not JSON: 'I think I will play the queen'"):
        play(bot)
    assert time.monotonic() - t0 < 4


def test_fault_report_quotes_the_end_of_standard_error(bot_program: BotFactory) -> None:
    bot = bot_program("crash")
    with pytest.raises(BotFault) as info:
        play(bot)
    assert "RuntimeError: boom" in info.value.stderr_tail
    assert "its standard error ends:" in str(info.value)
    assert "RuntimeError: boom" in str(info.value)
    bot = bot_program("exit")
    with pytest.raises(BotFault, match="giving up after three moves"):
        play(bot)


def test_a_silent_bot_forfeits_after_max_10_budgets_5_seconds(bot_program: BotFactory) -> None:
    bot = bot_program("sleep", budget_s=0.1)  # 10 x 0.1 = 1 s, so 5 s
    bot.start()
    t0 = time.monotonic()
    with pytest.raises(BotFault, match="no answer within 5 s"):
        play(bot)
    assert 4.9 <= time.monotonic() - t0 < 30


def test_after_a_forfeit_the_next_match_gets_a_fresh_process(
    bot_program: BotFactory, tmp_path: Path
) -> None:
    bot = bot_program("exit")
    with pytest.raises(BotFault):
        play(bot)
    bot.new_match()
    with pytest.raises(BotFault, match="exited with status 3"):
        play(bot)  # a fresh process, which again gives up at its third move


def test_close_kills_the_whole_process_group(bot_program: BotFactory, tmp_path: Path) -> None:
    bot = bot_program("grandchild")
    bot.start()
    grandchild = int((tmp_path / "grandchild.pid").read_text())
    pid = pid_of(bot)
    bot.close()
    assert reaped(pid) and gone(grandchild)


def test_a_bot_that_ignores_quit_is_killed_after_the_grace(bot_program: BotFactory) -> None:
    bot = bot_program("ignore_quit")
    bot.start()
    pid = pid_of(bot)
    t0 = time.monotonic()
    bot.close()
    assert time.monotonic() - t0 < external.QUIT_GRACE_S + 5
    assert reaped(pid)


def test_a_dropped_bot_is_reaped_by_garbage_collection(bot_program: BotFactory) -> None:
    path = bot_program("good").path
    bot = make_bot(f"exec:{path}")
    assert isinstance(bot, ExternalBot)
    bot.start()
    pid = pid_of(bot)
    del bot
    assert reaped(pid)


HOST = r"""
import sys
from marjolet.bots import make_bot
from marjolet.match import Match
from marjolet.turns import play_match

bot = make_bot("exec:" + sys.argv[1])
bot.start()
print(bot._process.pid, flush=True)
play_match(Match(seed=1), [bot, make_bot("random", seed=1)])
"""


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP])
def test_no_orphans_when_the_host_is_interrupted(
    bot_program: BotFactory, tmp_path: Path, sig: signal.Signals
) -> None:
    path = bot_program("grandchild").path
    host = subprocess.Popen(
        [sys.executable, "-c", HOST, path], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert host.stdout is not None
    pid = int(host.stdout.readline())
    grandchild = int((tmp_path / "grandchild.pid").read_text())
    time.sleep(0.3)  # the host is now waiting for an answer
    host.send_signal(sig)
    host.communicate(timeout=20)
    assert gone(pid), "the bot outlived its host"
    assert gone(grandchild), "the bot's own child outlived the host"


# -- the spec string --------------------------------------------------------------


def test_exec_spec_forms(bot_program: BotFactory, tmp_path: Path) -> None:
    path = bot_program("good").path
    bot = make_bot(f"exec:{path}")
    assert isinstance(bot, ExternalBot)
    assert (bot.path, bot.budget_s, bot.spec) == (path, 1.0, f"exec:{path}")
    bot = make_bot(f"exec:path={path},budget_s=0.25")
    assert isinstance(bot, ExternalBot)
    assert bot.budget_s == 0.25 and make_bot(bot.spec).spec == bot.spec
    odd = tmp_path / "odd: name, with=signs"
    odd.write_text(Path(path).read_text())
    odd.chmod(0o755)
    bot = make_bot(f"exec:{odd}")
    assert isinstance(bot, ExternalBot) and bot.path == str(odd)


@pytest.mark.parametrize(
    ("spec", "error"),
    [
        ("exec", "needs the path of a program"),
        ("exec:/no/such/bot", "no such file"),
        ("exec:path=/bin/sh,budget_s=0", r"budget_s must be in \(0, 3600\)"),
        ("exec:path=/bin/sh,budget_s=fast", "not a finite number"),
        ("exec:path=/bin/sh,depth=3", "exec has no parameter 'depth'"),
    ],
)
def test_bad_exec_specs_are_input_errors(spec: str, error: str) -> None:
    with pytest.raises(BotSpecError, match=error):
        make_bot(spec)


def test_exec_spec_needs_an_executable_file(tmp_path: Path) -> None:
    script = tmp_path / "bot.py"
    script.write_text("print('hi')\n")
    chmod = re.escape(f"not executable (chmod +x {script})")
    with pytest.raises(BotSpecError, match=chmod):
        make_bot(f"exec:{script}")
    script.chmod(0o755)  # executable, but no #! line: the kernel would refuse it
    with pytest.raises(BotSpecError, match="a script without a '#!' line"):
        make_bot(f"exec:{script}")  # refused at once, not at its first move
    assert program_problem("/bin/sh") is None  # a compiled program
    compiled = tmp_path / "compiled"
    compiled.write_bytes(b"\xcf\xfa\xed\xfe\x07\x00\x00\x01")  # Mach-O's first bytes
    compiled.chmod(0o755)
    assert program_problem(str(compiled)) is None  # any compiled format is the system's to judge
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    fifo.chmod(0o755)
    assert "not a regular file" in (program_problem(str(fifo)) or "")  # never opened: no hang
    script.write_text("#!/no/such/interpreter\nprint('hi')\n")
    with pytest.raises(BotSpecError, match="names the interpreter '/no/such/interpreter'"):
        make_bot(f"exec:{script}")  # refused at once too, not at its first move


MISSING_PATH = "which is not found on PATH"


@pytest.mark.parametrize(
    ("first_line", "problem"),
    [
        (
            "#!/nonexistent/python3",
            "its first line names the interpreter '/nonexistent/python3', which does not exist",
        ),
        (
            "#!/usr/bin/env nosuchpython-marjolet",
            f"its first line names the interpreter 'nosuchpython-marjolet' (through /usr/bin/env),"
            f" {MISSING_PATH}",
        ),
        (
            "#!/usr/bin/env -S nosuchpython-marjolet -u",
            f"its first line names the interpreter 'nosuchpython-marjolet' (through /usr/bin/env),"
            f" {MISSING_PATH}",
        ),
        (
            "#!/usr/bin/env python3\r",
            f"its first line names the interpreter 'python3\\r' (through /usr/bin/env),"
            f" {MISSING_PATH} (the file has Windows line ends: convert it with dos2unix)",
        ),
        (
            "#!python3",
            "its first line names the interpreter 'python3', which does not exist"
            " (a '#!' line needs a full path, such as '#!/usr/bin/env NAME')",
        ),
        ("#!", "its '#!' line names no interpreter (such as '#!/usr/bin/env python3')"),
    ],
)
def test_a_script_whose_interpreter_is_missing_is_refused_when_its_spec_is_given(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, first_line: str, problem: str
) -> None:
    monkeypatch.chdir(tmp_path)  # where a relative interpreter would be looked for
    script = tmp_path / "badinterp"
    script.write_bytes(first_line.encode() + b"\nprint('hi')\n")
    script.chmod(0o755)
    assert program_problem(str(script)) == problem
    with pytest.raises(BotSpecError) as info:
        make_bot(f"exec:{script}")
    assert str(info.value) == f"bot spec 'exec:{script}': {problem}"


@pytest.mark.parametrize(
    "first_line",
    [
        f"#!{sys.executable}",
        f"#! {sys.executable} -u  ",  # spaces around, one argument
        "#!/usr/bin/env sh",
        "#!/usr/bin/env -S sh -e",
        "#!/usr/bin/env python3 -u",  # one argument "python3 -u" on Linux: left to the system
    ],
)
def test_a_script_whose_interpreter_is_there_is_accepted(tmp_path: Path, first_line: str) -> None:
    script = tmp_path / "bot"
    script.write_text(first_line + "\nprint('hi')\n")
    script.chmod(0o755)
    assert program_problem(str(script)) is None


def test_an_interpreter_gone_when_the_bot_starts_is_named_once_in_one_line(tmp_path: Path) -> None:
    interpreter = tmp_path / "python"
    interpreter.symlink_to(sys.executable)
    script = tmp_path / "bot.py"
    script.write_text(f"#!{interpreter}\nprint('hi')\n")
    script.chmod(0o755)
    bot = make_bot(f"exec:{script}")  # accepted: its interpreter is there
    interpreter.unlink()  # and gone by its first move
    with pytest.raises(BotFault) as info:
        bot.choose(*_first_position())
    assert str(info.value) == (  # the host names the bot: the reason alone, no "No such file"
        f"cannot start: its first line names the interpreter '{interpreter}', which does not exist"
    )


def test_the_arena_refuses_a_script_whose_interpreter_is_missing_before_any_match(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bots").mkdir()
    script = tmp_path / "bots" / "badinterp"
    script.write_text("#!/nonexistent/python3\nprint('hi')\n")
    script.chmod(0o755)
    argv = ["arena", "exec:bots/badinterp", "random", "--matches", "2", "--no-db"]
    with pytest.raises(SystemExit) as info:
        main(argv)
    out, err = capsys.readouterr()
    assert info.value.code == 2 and out == ""  # no match played
    assert err.splitlines() == [
        "marjolet: error: bot spec 'exec:bots/badinterp': its first line names the"
        " interpreter '/nonexistent/python3', which does not exist"
    ]


def _first_position() -> tuple[Observation, list[int]]:
    match = Match(seed=1)
    match.start_deal()
    deal = match.deal
    assert deal is not None
    return match.observation(deal.to_move), deal.legal_actions()


def test_a_program_that_never_reads_cannot_block_the_host() -> None:
    process = external.BotProcess(["sleep", "60"])
    try:
        with pytest.raises(external.ChannelError, match="has not read its standard input"):
            for _ in range(1000):  # ~64 KiB fill the pipe, then the write times out
                process.send({"cmd": "noise", "padding": "x" * 1000}, timeout=0.5)
    finally:
        process.stop(0.0)
    assert reaped(process.pid)


def test_selfplay_tells_each_program_the_result_at_the_end_of_the_match(
    bot_program: BotFactory, tmp_path: Path
) -> None:
    """docs/bot-protocol.md: at the end of a match the host writes `result`;
    `marjolet selfplay` is a host as the arena is."""
    program = bot_program("good").path
    out = tmp_path / "m.json"
    rules = ["--rules", "classic", "--target", "100"]
    assert main(["selfplay", "--seed", "2", "--out", str(out), *rules,
                 "--bots", f"exec:{program}", "random"]) == 0  # fmt: skip
    [line] = (tmp_path / "good.pid.results").read_text().splitlines()
    told = json.loads(line)
    match = record.replay(record.load(out))
    assert told == {"cmd": "result", "totals": list(match.totals), "winner": match.winner}


def test_the_player_s_session_tells_the_program_the_result_at_the_end_of_the_match(
    bot_program: BotFactory, tmp_path: Path
) -> None:
    program = bot_program("good").path
    match = Match(CLASSIC.replace(target=100), seed=5, players=("You", "them"))
    session = GameSession(match, opponent=f"exec:{program}", save_path=None)
    rng = random.Random(1)
    while not match.is_over:
        if match.needs_deal:
            session.start_deal()
        elif session.bot_to_move:
            turn = session.bot_request()
            session.bot_play(turn, session.bot_choose(turn))
        else:
            session.play(rng.choice(session.legal()))
    session.bot.close()
    [line] = (tmp_path / "good.pid.results").read_text().splitlines()
    assert json.loads(line)["winner"] == match.winner


def test_an_outside_program_is_named_by_its_file_when_it_gives_no_name() -> None:
    assert display_name("exec:./bots/mine.py") == "mine.py"
    assert display_name("exec:path=/x/y/bot.sh,budget_s=0.2") == "bot.sh"
    assert display_name("pimc:worlds=64") == "pimc"
