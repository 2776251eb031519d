"""Computer players. Every bot implements :class:`~marjolet.bots.base.Bot`
and is built from a spec string by :func:`make_bot` (``"pimc:worlds=64"``)."""

from marjolet.bots.base import Bot, BotFault, BotSpecError, Param
from marjolet.bots.registry import bot_names, make_bot, parse_spec, register

__all__ = ["Bot", "BotFault", "BotSpecError", "Param", "bot_names", "make_bot", "parse_spec", "register"]
