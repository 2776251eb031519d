"""``marjolet bot-serve SPEC``: one of our bots as a ``marjolet-bot/1`` program.

Reads the host's messages on standard input, answers on standard output
(nothing else is ever written there: anything the bot prints goes to
standard error) and logs to standard error. Each ``act`` is turned back into
the observation the host had (:func:`marjolet.bots.protocol.observation_from_act`)
and given to the bot, so a bot plays exactly as it would in-process: with
the same ``--seed`` it makes the same choices.

- ``hello``: answers with the bot's name.
- ``act``: answers with the bot's action.
- ``result``: the match is over; the bot forgets it and is reseeded with
  the same seed (``Bot.new_match``), ready for the next one.
- ``quit`` or end of input: exits with status 0.
- An unknown ``cmd`` is ignored (with a note on standard error), so hosts
  can extend the protocol. A line that is not JSON, or an ``act`` that is
  malformed or contradicts the rules, ends the program with status 2 and
  one line on standard error saying what is wrong: the host reports it.

The seed is ``--seed N``, else the host's ``MARJOLET_BOT_SEED`` if set, else
fresh randomness.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
from typing import IO, TYPE_CHECKING, Any

from marjolet.errors import MarjoletError

if TYPE_CHECKING:
    from marjolet.bots.base import Bot


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("spec", metavar="SPEC", help="the bot to serve, e.g. 'pimc:worlds=64'")
    parser.add_argument(
        "--seed",
        type=int,
        help="the bot's seed (default: $MARJOLET_BOT_SEED from the host, else random)",
    )
    parser.add_argument(
        "--name", help="the name to give the host (default: 'marjolet SPEC')"
    )
    parser.add_argument(
        "--follow-budget",
        action="store_true",
        help="set the bot's 'time' parameter to 80%% of each act's budget_s",
    )


def _seed(args: argparse.Namespace) -> int | None:
    if args.seed is not None:
        return int(args.seed)
    from marjolet.bots.protocol import SEED_ENV

    text = os.environ.get(SEED_ENV, "").strip()
    if not text:
        return None
    try:
        return int(text)
    except ValueError:
        raise MarjoletError(f"{SEED_ENV} must be an integer, got {text!r}") from None


def run(args: argparse.Namespace) -> int:
    from marjolet import __version__
    from marjolet.bots import make_bot

    bot = make_bot(args.spec, seed=_seed(args))
    if bot.sees_hidden_cards:
        raise MarjoletError(
            f"bot {args.spec!r} needs the hidden cards (a measuring ceiling); it cannot play "
            "through the protocol, which tells a seat only what it may know (R23)"
        )
    name = args.name or f"marjolet {bot.spec}"
    server = BotServer(bot, name, f"marjolet {__version__}", follow_budget=args.follow_budget)
    out = sys.stdout
    sys.stdout = sys.stderr  # a stray print can never corrupt the channel
    try:
        return server.serve(sys.stdin.buffer, out)
    finally:
        sys.stdout = out


class BotServer:
    """The bot side of the protocol around one in-process bot."""

    def __init__(self, bot: Bot, name: str, author: str, *, follow_budget: bool = False) -> None:
        self.bot = bot
        self.name = name
        self.author = author
        self.follow_budget = follow_budget and "time" in bot.options
        self._world_rng = random.Random(0)

    def serve(self, source: IO[bytes], out: IO[str]) -> int:
        """Answer messages until ``quit`` or end of input; the exit status."""
        from marjolet.bots.protocol import MAX_LINE_BYTES, decode, encode

        number = 0
        while True:
            raw = source.readline(MAX_LINE_BYTES + 1)
            if not raw:
                return 0
            number += 1
            if len(raw) > MAX_LINE_BYTES:
                raise MarjoletError(
                    f"bot-serve: line {number} is longer than {MAX_LINE_BYTES} bytes"
                )
            if not raw.strip():
                continue
            try:
                message = decode(raw, f"line {number}")
                answer = self.handle(message)
            except MarjoletError as exc:
                raise MarjoletError(f"bot-serve: {exc}") from None
            if answer is _QUIT:
                return 0
            if answer is not None:
                out.write(encode(answer).decode())
                out.flush()

    def handle(self, message: dict[str, Any]) -> dict[str, Any] | None:
        """The answer to one message (``None``: no answer)."""
        from marjolet.bots.protocol import PROTOCOL, action_message, identity_message

        cmd = message.get("cmd")
        if cmd == "hello":
            if message.get("protocol", PROTOCOL) != PROTOCOL:
                print(
                    f"bot-serve: note: the host speaks {message.get('protocol')!r}; "
                    f"this bot speaks {PROTOCOL!r}",
                    file=sys.stderr,
                )
            return identity_message(self.name, self.author)
        if cmd == "act":
            return action_message(self.act(message))
        if cmd == "result":
            self.bot.new_match()
            return None
        if cmd == "quit":
            return _QUIT
        print(f"bot-serve: note: ignoring unknown command {cmd!r}", file=sys.stderr)
        return None

    def act(self, message: dict[str, Any]) -> int:
        """The bot's choice for an ``act`` message."""
        from marjolet.actions import ACTION_NAMES
        from marjolet.bots.protocol import ProtocolError, observation_from_act, parse_act

        request = parse_act(message)
        obs, legal = observation_from_act(request, self._world_rng)
        if self.follow_budget and request.budget_s > 0:
            self.bot.options["time"] = 0.8 * request.budget_s
        action = self.bot.choose(obs, legal)
        if action not in legal:
            raise ProtocolError(
                f"bot {self.bot.spec!r} chose {action!r}, which is not legal here "
                f"({' '.join(ACTION_NAMES[a] for a in legal)})"
            )
        return int(action)


#: The answer that ends :meth:`BotServer.serve`.
_QUIT: dict[str, Any] = {}
