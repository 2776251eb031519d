"""The bot side of the ``marjolet-bot/1`` protocol around one in-process bot
(``marjolet bot-serve`` runs it on standard input and output).

Each ``act`` is turned back into the observation the host had
(:func:`marjolet.bots.protocol.observation_from_act`) and given to the bot
as a :class:`~marjolet.turns.Turn`, so a bot plays exactly as it would
in-process: with the same seed it makes the same choices. The bot's answer
is checked like any seat's (:func:`marjolet.turns.checked_choice`).
"""

from __future__ import annotations

import random
import sys
from typing import IO, Any

from marjolet.actions import ACTION_NAMES
from marjolet.bots.base import Bot
from marjolet.bots.protocol import (
    MAX_LINE_BYTES,
    PROTOCOL,
    ProtocolError,
    action_message,
    decode,
    encode,
    identity_message,
    observation_from_act,
    parse_act,
)
from marjolet.engine import LegalActions
from marjolet.errors import IllegalTurnError, MarjoletError
from marjolet.turns import Turn, checked_choice


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
        request = parse_act(message)
        obs, legal = observation_from_act(request, self._world_rng)
        if self.follow_budget and request.budget_s > 0:
            self.bot.options["time"] = 0.8 * request.budget_s
        turn = Turn(obs.seat, obs, LegalActions(legal), 0)
        try:
            return checked_choice(self.bot, turn)
        except IllegalTurnError as exc:
            raise ProtocolError(
                f"bot {self.bot.spec!r} chose {exc.action!r}, which is not legal here "
                f"({' '.join(ACTION_NAMES[a] for a in legal)})"
            ) from None


#: The answer that ends :meth:`BotServer.serve`.
_QUIT: dict[str, Any] = {}
