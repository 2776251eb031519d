"""Computer players. Every bot implements :class:`~marjolet.bots.base.Bot`
and is built from a spec string by :func:`make_bot` (``"pimc:worlds=64"``).

The ladder, weakest first: ``random``, ``novice``, ``heuristic``, ``solver``,
``expert``, ``ismcts``, ``pimc``, ``best``; ``cheater`` sees the hidden cards
(a ceiling, not an opponent); ``sampler`` stands in for the outside bot of
issue 25. The four levels a player chooses from are in
:mod:`marjolet.bots.levels`.
See ``docs/bots.md``.
"""

from marjolet.bots.base import Bot, BotFault, BotSpecError, Param
from marjolet.bots.hint import Hint, hint
from marjolet.bots.registry import bot_names, make_bot, parse_spec, register

#: The spec front ends use as the default opponent and for hints: the
#: strongest bot, at half a second a move (quick in the browser and the
#: terminal).
STRONGEST = "best:time=0.5"

__all__ = [
    "STRONGEST",
    "Bot",
    "BotFault",
    "BotSpecError",
    "Hint",
    "Param",
    "bot_names",
    "hint",
    "make_bot",
    "parse_spec",
    "register",
]
