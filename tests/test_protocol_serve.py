"""The bot side of marjolet-bot/1: ``marjolet bot-serve SPEC`` plays exactly
like the in-process bot, answers the protocol strictly, and plugs into the
arena like any bot."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from marjolet.bots import make_bot, register
from marjolet.bots.base import Bot
from marjolet.bots.external import ExternalBot, close_bots, end_match
from marjolet.bots.protocol import PROTOCOL
from marjolet.cli import main
from marjolet.match import Match
from marjolet.observation import Observation
from marjolet.record import Record
from marjolet.turns import play_match
from test_protocol_messages import SPEC_ACT

REPO = Path(__file__).resolve().parents[1]
EXAMPLE_BOT = REPO / "examples" / "protocol_bot.py"


def serve_script(tmp_path: Path, spec: str, *options: str) -> Path:
    """A wrapper script: ``exec:PATH`` takes no arguments, so they go here."""
    path = tmp_path / f"serve-{abs(hash((spec, options)))}.sh"
    args = " ".join(f"'{a}'" for a in (spec, *options))
    path.write_text(f"#!/bin/sh\nexec '{sys.executable}' -m marjolet bot-serve {args}\n")
    path.chmod(0o755)
    return path


def run_serve(
    lines: Sequence[str | dict[str, Any]], *args: str
) -> subprocess.CompletedProcess[str]:
    text = "".join((line if isinstance(line, str) else json.dumps(line)) + "\n" for line in lines)
    return subprocess.run(
        [sys.executable, "-m", "marjolet", "bot-serve", *args],
        input=text,
        capture_output=True,
        text=True,
        timeout=60,
    )


def play_records(seats: Sequence[Bot], seeds: Sequence[int]) -> list[str]:
    """Matches in a row with the same bot objects (``result`` between them)."""
    out = []
    for seed in seeds:
        match = Match(seed=seed)
        play_match(match, seats)
        assert match.winner is not None
        end_match(seats, match.totals, match.winner)
        for bot in seats:
            bot.new_match()
        out.append(Record.from_match(match).dumps())
    return out


@pytest.mark.parametrize(
    ("spec", "seeds"),
    [
        ("random", [11, 12, 13]),
        ("heuristic", [11, 12]),
        ("solver", [11, 12]),
        ("pimc:worlds=3", [11]),
        ("ismcts:iterations=10", [11]),
    ],
)
def test_bot_serve_plays_exactly_like_the_bot_in_process(
    tmp_path: Path, spec: str, seeds: list[int]
) -> None:
    """Same seed, same choices, match after match: the rebuilt observation
    is the host's one."""
    in_process = play_records([make_bot(spec, seed=5), make_bot("random", seed=9)], seeds)
    served = make_bot(f"exec:{serve_script(tmp_path, spec, '--seed', '5')}")
    try:
        through_protocol = play_records([served, make_bot("random", seed=9)], seeds)
    finally:
        close_bots([served])
    assert through_protocol == in_process


def test_two_served_bots_play_each_other_like_in_process(tmp_path: Path) -> None:
    a = make_bot(f"exec:{serve_script(tmp_path, 'heuristic', '--seed', '1')}")
    b = make_bot(f"exec:{serve_script(tmp_path, 'random', '--seed', '2')}")
    try:
        served = play_records([a, b], [21])
    finally:
        close_bots([a, b])
    assert served == play_records([make_bot("heuristic", seed=1), make_bot("random", seed=2)], [21])


def test_bot_serve_session(tmp_path: Path) -> None:
    done = run_serve(
        [
            {"cmd": "hello", "protocol": PROTOCOL},
            SPEC_ACT,
            {"cmd": "result", "totals": [520, 301], "winner": 0},
            {"cmd": "future-extension"},
            SPEC_ACT,
            {"cmd": "quit"},
            "this line is never read",
        ],
        "heuristic",
        "--seed",
        "1",
    )
    assert done.returncode == 0, done.stderr
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert answers[0] == {
        "name": "marjolet heuristic",
        "author": answers[0]["author"],
        "protocol": PROTOCOL,
    }
    assert answers[1] == answers[2] and answers[1]["action"] in SPEC_ACT["legal"]
    assert len(answers) == 3
    assert "ignoring unknown command 'future-extension'" in done.stderr


def test_bot_serve_ends_quietly_at_end_of_input() -> None:
    done = run_serve([{"cmd": "hello", "protocol": PROTOCOL}], "random", "--name", "R")
    assert done.returncode == 0
    assert json.loads(done.stdout)["name"] == "R"


@pytest.mark.parametrize(
    ("lines", "error"),
    [
        (["{not json"], "bot-serve: line 1 is not JSON: '{not json'"),
        (["[1, 2]"], "bot-serve: line 1 is not a JSON object"),
        ([{**SPEC_ACT, "seat": 1}], "bot-serve: act: actions[1]: the opponent uses 7S"),
        ([{**SPEC_ACT, "legal": ["9S"]}], "bot-serve: act: 'legal' does not match the rules"),
    ],
)
def test_bot_serve_rejects_bad_input_in_one_line(lines: list[Any], error: str) -> None:
    done = run_serve(lines, "random")
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.startswith(f"marjolet: error: {error}")
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr


@pytest.mark.parametrize(
    ("spec", "error"),
    [("cheater", "needs the hidden cards"), ("nonsense", "unknown bot 'nonsense'")],
)
def test_bot_serve_refuses_bots_it_cannot_serve(spec: str, error: str) -> None:
    done = run_serve([], spec)
    assert done.returncode == 2 and error in done.stderr


def test_seed_comes_from_the_host_when_not_given() -> None:
    lines = [SPEC_ACT] * 5

    def actions(*args: str, env_seed: str | None = None) -> list[str]:
        env = dict(os.environ)
        env.pop("MARJOLET_BOT_SEED", None)
        if env_seed is not None:
            env["MARJOLET_BOT_SEED"] = env_seed
        text = "".join(json.dumps(m) + "\n" for m in lines)
        done = subprocess.run(
            [sys.executable, "-m", "marjolet", "bot-serve", "random", *args],
            input=text,
            capture_output=True,
            text=True,
            env=env,
            timeout=60,
            check=True,
        )
        return [json.loads(line)["action"] for line in done.stdout.splitlines()]

    for seed in ("3", "4"):
        assert actions(env_seed=seed) == actions("--seed", seed)
    assert actions("--seed", "3", env_seed="4") == actions("--seed", "3")


class _Chatty(Bot):
    name = "chatty"

    def choose(self, obs: Observation, legal: Sequence[int]) -> int:
        print("thinking out loud")  # must not reach the protocol channel
        return legal[0]


def test_stray_prints_of_a_bot_go_to_standard_error(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from marjolet.bots import registry

    monkeypatch.setattr(registry, "_BOTS", dict(registry._BOTS))  # registered for this test only
    monkeypatch.setattr(registry, "_LOADED", dict(registry._LOADED))
    register("chatty", _Chatty)
    text = json.dumps(SPEC_ACT) + "\n"
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(text.encode())))
    assert main(["bot-serve", "chatty"]) == 0
    out, err = capsys.readouterr()
    # legal[0] of the engine's order (ascending ids): 8D
    assert [json.loads(line) for line in out.splitlines()] == [{"action": "8D"}]
    assert "thinking out loud" in err


def test_follow_budget_sets_the_time_parameter() -> None:
    from marjolet.commands.bot_serve import BotServer

    bot = make_bot("pimc:worlds=2", seed=1)
    BotServer(bot, "p", "", follow_budget=True).act(SPEC_ACT)
    assert bot.options["time"] == pytest.approx(0.8 * SPEC_ACT["budget_s"])
    bot = make_bot("pimc:worlds=2", seed=1)
    BotServer(bot, "p", "").act(SPEC_ACT)
    assert bot.options["time"] == 0.0


def test_example_bot_is_standalone_and_plays_a_match() -> None:
    source = EXAMPLE_BOT.read_text()
    assert "marjolet" not in "".join(
        line for line in source.splitlines() if line.startswith(("import", "from"))
    )
    assert os.access(EXAMPLE_BOT, os.X_OK)
    bot = make_bot(f"exec:{EXAMPLE_BOT}")
    assert isinstance(bot, ExternalBot)
    with bot:
        match = Match(seed=5)
        play_match(match, [bot, make_bot("random", seed=1)])
        assert match.is_over
        assert bot.display_name == "protocol-example"


def test_arena_between_two_exec_bots_with_two_workers(tmp_path: Path) -> None:
    heuristic = serve_script(tmp_path, "heuristic")
    done = subprocess.run(
        [
            sys.executable, "-m", "marjolet", "arena",
            f"exec:{heuristic}", f"exec:{EXAMPLE_BOT}",
            "--matches", "4", "--workers", "2", "--seed", "3", "--no-db", "--json", "--quiet",
        ],
        capture_output=True, text=True, timeout=300, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    (pairing,) = result["pairings"]
    assert pairing["bots"] == [f"exec:{heuristic}", f"exec:{EXAMPLE_BOT}"]
    assert pairing["matches"] == 4 and sum(pairing["wins"]) == 4
    assert pairing.get("forfeits", [0, 0]) == [0, 0]
