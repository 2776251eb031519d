"""``marjolet bot-serve SPEC``: one of our bots as a ``marjolet-bot/1`` program.

The command parses its arguments and runs
:class:`marjolet.bots.serve.BotServer`, the bot side of the protocol. It
reads the host's messages on standard input, answers on standard output
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
import sys

from marjolet.bots.serve import BotServer
from marjolet.commands.common import plain_int
from marjolet.errors import MarjoletError

__all__ = ["BotServer", "add_arguments", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("spec", metavar="SPEC", help="the bot to serve, e.g. 'pimc:worlds=64'")
    parser.add_argument(
        "--seed",
        type=plain_int,
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
