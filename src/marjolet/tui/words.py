"""The terminal's words in the player's language (the :mod:`marjolet.i18n`
catalogues, the same as the web pages').

``marjolet play`` picks the language once (``--lang fr|en``, else ``LANG``)
with :func:`use`; the screens, the log and the help then call :func:`tr`
and :func:`card`. Until :func:`use` is called the words are English, so a
program (or a test) that builds the interface gets the same text whatever
its environment says.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from typing import Any

from marjolet.cards import SUIT_SYMBOLS, card_symbol
from marjolet.i18n import DEFAULT, LANGS, card_label, translate
from marjolet.i18n import number as written_number

_current = [DEFAULT]

#: The catalogue's narrow unbreakable space (U+202F, before ; ? ! % in
#: French) is written as a plain unbreakable one on a terminal: a cell is a
#: cell, and some terminal fonts lack the narrow one.
_TERMINAL_SPACES = str.maketrans({"\u202f": "\u00a0"})


def use(lang: str) -> None:
    """Speak ``lang`` (one of :data:`marjolet.i18n.LANGS`) from now on."""
    if lang not in LANGS:
        raise ValueError(f"no words for language {lang!r} (choices: {', '.join(LANGS)})")
    _current[0] = lang


def lang() -> str:
    """The language in use."""
    return _current[0]


@contextmanager
def speaking(language: str | None) -> Iterator[None]:
    """Speak ``language`` (``None``: the environment's, ``LANG``...) inside
    the block, then the language spoken before: a command that prints a
    player's text (``marjolet review``, ``replay``) leaves no trace."""
    from marjolet.i18n import from_environment

    previous = lang()
    use(language or from_environment())
    try:
        yield
    finally:
        use(previous)


def tr(key: str, /, **args: Any) -> str:
    """The catalogue text of ``key`` in the language in use, spaced for a
    terminal (:mod:`marjolet.tui.wrapping` keeps its unbreakable spaces)."""
    return translate(key, _current[0], **args).translate(_TERMINAL_SPACES)


def number(value: int) -> str:
    """A score or a target as the language in use writes it
    (:func:`marjolet.i18n.number`: « 1 000 » in French, 1000 in English),
    spaced for a terminal as :func:`tr` is."""
    return written_number(value, _current[0]).translate(_TERMINAL_SPACES)


def card(c: int) -> str:
    """A card as the players of the language write it: ``Q♠``, ``D♠``."""
    return card_symbol(c) if _current[0] == DEFAULT else card_label(c, _current[0])


def translate_bindings(bindings: Any) -> None:
    """Put the footer's key descriptions of a Textual ``BindingsMap`` into
    the language in use (``"Play card"`` is ``tui.key_play_card``)."""
    table = bindings.key_to_bindings
    for key, items in table.items():
        table[key] = [_described(b) for b in items]


def _described(binding: Any) -> Any:
    if not binding.description:
        return binding
    key = "tui.key_" + binding.description.lower().replace(" ", "_")
    text = tr(key)
    return binding if text == key else replace(binding, description=text)


def suit(s: int) -> str:
    """A suit's symbol and name: ``♠ spades``, ``♠ pique``."""
    return f"{SUIT_SYMBOLS[s]} {suit_name(s)}"


def suit_name(s: int) -> str:
    return tr(f"suit.{'CDHS'[s]}")


__all__ = ["card", "lang", "speaking", "suit", "suit_name", "tr", "translate_bindings", "use"]
