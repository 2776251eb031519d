"""The words of the front ends in French and English: one catalogue per language.

The web pages and the terminal read the same JSON catalogues
(``catalogues/fr.json`` and ``catalogues/en.json``), so a phrase is written
once per language. A catalogue maps a key (``"trump.word"``) to a text
with ``{name}`` placeholders, or to ``{"one": ..., "other": ...}`` for a
text that depends on a count ``n`` (French uses the singular for 0 and 1).

:func:`translate` fills a text; :func:`negotiate` reads an
``Accept-Language`` header; :func:`from_environment` reads ``LANG`` and its
relatives; :func:`card_name` and :func:`card_label` spell a card the way the
players of that language do ("dame de pique", "D♠"). The record notation
(R1) is never translated. Standard library only.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any, SupportsIndex

#: The languages with a catalogue, the default first.
LANGS = ("en", "fr")
DEFAULT = "en"
CATALOGUES = Path(__file__).resolve().parent / "catalogues"
_PLACEHOLDER = re.compile(r"\{([a-z_][a-z0-9_]*)\}")


class _Keep(dict[str, Any]):
    """Leaves an unknown placeholder as it is instead of failing."""

    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


@cache
def catalogue(lang: str) -> Mapping[str, Any]:
    """The catalogue of ``lang`` (one of :data:`LANGS`), read once."""
    if lang not in LANGS:
        raise ValueError(f"no catalogue for language {lang!r} (choices: {', '.join(LANGS)})")
    with open(CATALOGUES / f"{lang}.json", encoding="utf-8") as f:
        data: dict[str, Any] = json.load(f)
    return data


def plural_form(n: int, lang: str) -> str:
    """``one`` or ``other``: French counts 0 and 1 as singular, English only 1."""
    if lang == "fr":
        return "one" if abs(n) < 2 else "other"
    return "one" if abs(n) == 1 else "other"


def translate(key: str, lang: str, /, **args: Any) -> str:
    """The text of ``key`` in ``lang`` with its ``{placeholders}`` filled.

    A key missing from ``lang`` falls back to English, then to the key
    itself, so a front end never fails on a missing phrase (a test checks
    that none is missing).
    """
    lang = lang if lang in LANGS else DEFAULT
    entry = catalogue(lang).get(key)
    if entry is None:
        entry = catalogue(DEFAULT).get(key, key)
    if isinstance(entry, dict):
        entry = entry[plural_form(int(args.get("n", 0)), lang)]
    text = str(entry)
    if lang == "fr":
        text = elide(text, args)
    return text.format_map(_Keep(args))


#: French "de" and "que" before a filled-in word: elided before a vowel.
_ELIDED = re.compile(r"\b(de|que) \{([a-z_][a-z0-9_]*)\}")
_VOWELS = "aeiouyàâäéèêëîïôöùûüœæ"


def elide(text: str, args: Mapping[str, Any]) -> str:
    """French elision before a value that starts with a vowel: ``forfait de
    {name}`` reads ``forfait d’amelie_r`` (``de Bob`` stays). The catalogue
    writes every other elision itself."""

    def one(found: re.Match[str]) -> str:
        first = str(args.get(found[2], ""))[:1].lower()
        if first and first in _VOWELS:
            return f"{found[1][:-1]}\u2019{{{found[2]}}}"
        return found[0]

    return _ELIDED.sub(one, text)


#: French groups a number's digits by three with a narrow no-break space
#: (U+202F, as before ; ? ! %): « 1 000 ».
_THOUSANDS = {"fr": "\u202f"}


def number(value: int, lang: str) -> str:
    """An integer as ``lang`` writes it in a sentence: French groups the
    digits of 1000 and more by three (« 1\u202f000 », « 10\u202f000 »);
    English writes the digits alone, as the rest of its texts do (``1000``)."""
    sep = _THOUSANDS.get(lang)
    if sep is None or abs(value) < 1000:
        return str(value)
    return f"{value:,}".replace(",", sep)


def placeholders(text: str) -> set[str]:
    """The ``{names}`` a catalogue text expects."""
    return set(_PLACEHOLDER.findall(text))


def pick(lang: str | None) -> str | None:
    """``lang`` as a catalogue language (``fr-FR`` -> ``fr``), or None."""
    if not lang:
        return None
    base = lang.strip().lower().replace("_", "-").split("-")[0].split(".")[0]
    return base if base in LANGS else None


def negotiate(accept_language: str | None) -> str:
    """The best catalogue language for an ``Accept-Language`` header."""
    best: tuple[float, int, str] | None = None
    for i, part in enumerate((accept_language or "").split(",")):
        name, _, params = part.partition(";")
        quality = 1.0
        for param in params.split(";"):
            key, _, value = param.strip().partition("=")
            if key == "q":
                try:
                    quality = float(value)
                except ValueError:
                    quality = 0.0
        lang = pick(name)
        if lang is not None and quality > 0 and (best is None or (quality, -i) > best[:2]):
            best = (quality, -i, lang)
    return best[2] if best else DEFAULT


def from_environment(env: Mapping[str, str] | None = None) -> str:
    """The terminal's language from ``LANGUAGE``, ``LC_ALL``, ``LC_MESSAGES``
    or ``LANG`` (the first one set, as gettext does)."""
    env = os.environ if env is None else env
    for name in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        value = env.get(name)
        if value:
            for candidate in value.split(":"):
                lang = pick(candidate)
                if lang is not None:
                    return lang
            if value not in ("C", "POSIX"):
                return DEFAULT
    return DEFAULT


_RANKS = "789TJQKA"
_SUITS = "CDHS"
_SYMBOLS = {"C": "\u2663", "D": "\u2666", "H": "\u2665", "S": "\u2660"}


def _rank_suit(card: SupportsIndex | str) -> tuple[str, str]:
    if not isinstance(card, str):  # an id, of any integer type; one out of range is refused
        from marjolet.cards import card_name

        card = card_name(card)
    return card[:-1], card[-1]


def card_name(card: SupportsIndex | str, lang: str) -> str:
    """The full name of a card (``QS`` or its int): "dame de pique",
    "queen of spades"."""
    rank, suit = _rank_suit(card)
    return translate(
        "card.name",
        lang,
        rank=translate(f"rank.{rank}", lang),
        suit=translate(f"suit.{suit}", lang),
    )


def card_label(card: SupportsIndex | str, lang: str) -> str:
    """The short label of a card with its suit symbol: "D♠" in French
    (roi R, dame D, valet V), "Q♠" in English; the ten is "10"."""
    rank, suit = _rank_suit(card)
    return translate(f"rank_letter.{rank}", lang) + _SYMBOLS[suit]


__all__ = [
    "CATALOGUES",
    "DEFAULT",
    "LANGS",
    "card_label",
    "card_name",
    "catalogue",
    "from_environment",
    "negotiate",
    "number",
    "pick",
    "placeholders",
    "plural_form",
    "translate",
]
