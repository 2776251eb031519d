"""A bad record's fault in a player's words, from the error's
:attr:`~marjolet.errors.RecordError.kind` and ``detail``: the reason
``marjolet replay`` and ``marjolet review`` give (:mod:`marjolet.tui.record_errors`)
and the one the replay page shows for an uploaded file (the upload's
``worded``, :mod:`marjolet.web.routes.replay`), written once for both.

:func:`fault_reason` words a mistake of a record typed by hand
(:func:`marjolet.record.notation_mistake`) and how to write it, an action
or a deck that cannot be read, a fault of the deals (a deck's repeated or
missing cards, a ``deal`` line out of order or without its ``deck``, an
unfinished deal, a deal after the match was decided), JSON that does not
parse (by its line and column) and a fault of the
header (format, rules, ``first_dealer``, ``players``, a line given twice or
no header's), the file's words quoted as it writes them, on one line and
at most 40 characters long (a JSON action string may hold anything). The
sentences are the catalogues' ``replay.reason_*`` in the language asked,
with the catalogue's typography (a terminal respaces the whole line). A
move the rules refuse is worded from the engine's refusal by each front end
(it names the players as that front end does); any other fault has no
words here (``None``): the front end says it its own way.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from marjolet.cards import parse_card
from marjolet.errors import RecordError
from marjolet.i18n import card_label, number, translate
from marjolet.record import FORMAT, notation_mistake
from marjolet.rules import PROFILE_NAMES, SETTING_NAMES

#: The longest text of a record a sentence quotes; a longer one ends in "…".
_QUOTED = 40

#: The header's keywords, as a line that is no header's is told them.
_KEYWORDS = "format, rules, players, first_dealer"


def fault_reason(exc: RecordError, lang: str) -> str | None:
    """The reason a record is refused, in ``lang`` (one of
    :data:`marjolet.i18n.LANGS`), as a sentence of ``replay.bad_record``
    words it: « son paquet contient deux fois 7♣ »; ``None`` for a fault
    without words here (a move the rules refuse, a file that is no record,
    a rarer fault)."""
    if (mistake := notation_mistake(exc)) is not None:
        return _hand_typed(mistake, lang)
    if exc.kind == "bad_action":
        return translate("replay.reason_bad_action", lang, text=_written(exc.detail))
    if exc.kind == "bad_deck":
        return translate("replay.reason_bad_deck", lang)
    words = _FAULTS.get(exc.kind or "")
    return None if words is None else words(exc, lang)


def _hand_typed(mistake: dict[str, str], lang: str) -> str:
    """A mistake of a record typed by hand and how the notation writes it."""
    args: dict[str, Any] = {k: _written(v) for k, v in mistake.items() if k != "mistake"}
    if "fix" in mistake:
        args["rank"] = translate(f"rank.{mistake['fix']}", lang)
    return translate(f"replay.reason_{mistake['mistake']}", lang, **args)


def _written(detail: str | None) -> str:
    """An error's particular as its file writes it, on one line, at most
    :data:`_QUOTED` long."""
    text = " ".join("".join(c if c.isprintable() else " " for c in detail or "").split())
    return text if len(text) <= _QUOTED else text[: _QUOTED - 1] + "…"


def _cards(names: str, lang: str) -> str:
    """Card names of the notation (``"QS TD"``) as the table shows them."""
    return ", ".join(card_label(parse_card(name), lang) for name in names.split())


def _or_join(names: Sequence[str], lang: str) -> str:
    """Choices as a reader lists them: ``classic or encyclopedia``."""
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + translate("tui.or", lang) + names[-1]


def _deck_missing(exc: RecordError, lang: str) -> str:
    missing = exc.detail or ""
    n = 32 - len(missing.split())
    return translate("replay.reason_deck_missing", lang, n=n, cards=_cards(missing, lang))


def _match_decided(exc: RecordError, lang: str) -> str:
    """R22: a deal listed after the match was won, said with the deal that
    decided it counted from 1 (the refused deal's number, as the place
    counts it, less one) and the totals, the winner's first."""
    high, low = sorted((int(t) for t in (exc.detail or "0 0").split()), reverse=True)
    return translate(
        "replay.reason_match_decided",
        lang,
        n=exc.deal or 0,
        a=number(high, lang),
        b=number(low, lang),
    )


def _bad_json(exc: RecordError, lang: str) -> str:
    """JSON that does not parse, by its line and column (``detail``: "1 3")."""
    line, column = (exc.detail or "? ?").split()
    return translate("replay.reason_bad_json", lang, line=line, column=column)


def _players(exc: RecordError, lang: str) -> str:
    if exc.detail is not None and exc.detail.isdigit():
        return translate("replay.reason_players_count", lang, n=int(exc.detail))
    return translate("replay.reason_bad_players", lang)


def _rule_value(exc: RecordError, lang: str) -> str | None:
    """A rule setting's value out of its range (``detail``:
    ``target=abc``), said with what the setting may be; the deal's
    batches as the record's form writes them (a JSON record's fault has no
    line: ``[3, 3]``, not ``3-3``)."""
    setting, _, value = (exc.detail or "").partition("=")
    if setting not in SETTING_NAMES:
        return None
    json_form = setting == "deal_pattern" and exc.line is None
    key = f"replay.reason_rules_value_{setting}{'_json' if json_form else ''}"
    return translate(key, lang, value=_written(value))


def _quoting(key: str, name: str) -> Callable[[RecordError, str], str]:
    """A fault told with its particular, as the file writes it, as ``name``."""
    return lambda exc, lang: translate(key, lang, **{name: _written(exc.detail)})


def _listing(key: str) -> Callable[[RecordError, str], str]:
    """A rules fault told with the profiles a record may name, as choices."""
    return lambda exc, lang: translate(key, lang, known=_or_join(PROFILE_NAMES, lang))


#: The faults of a record's deals and of its header told with their
#: particulars, by kind.
_FAULTS: dict[str, Callable[[RecordError, str], str | None]] = {
    # the deals
    "deck_repeats": lambda exc, lang: translate(
        "replay.reason_deck_repeats", lang, card=_cards(exc.detail or "", lang)
    ),
    "deck_missing": _deck_missing,
    "deal_number": lambda exc, lang: translate(
        "replay.reason_deal_number", lang, expected=f"deal {exc.deal}", got=_written(exc.detail)
    ),
    "unfinished_deal": lambda exc, lang: translate(
        "replay.reason_unfinished_deal", lang, n=(exc.deal or 0) + 1
    ),
    "no_deck": lambda exc, lang: translate(
        "replay.reason_no_deck", lang, n=(exc.deal or 0) + 1, deal=f"deal {exc.deal or 0}"
    ),
    "match_decided": _match_decided,
    "bad_json": _bad_json,
    # the header: the notation's words (a profile, a key, a value) quoted as written
    "unknown_format": lambda exc, lang: translate(
        "replay.reason_unknown_format", lang, format=_written(exc.detail), known=FORMAT
    ),
    "header_twice": _quoting("replay.reason_header_twice", "key"),
    "key_twice": _quoting("replay.reason_key_twice", "key"),
    "not_header": lambda exc, lang: translate(
        "replay.reason_not_header", lang, text=_written(exc.detail), keywords=_KEYWORDS
    ),
    "no_first_dealer": lambda exc, lang: translate("replay.reason_no_first_dealer", lang),
    "bad_first_dealer": _quoting("replay.reason_bad_first_dealer", "value"),
    "bad_players": _players,
    "rules_unknown_profile": lambda exc, lang: translate(
        "replay.reason_rules_unknown_profile",
        lang,
        profile=_written(exc.detail),
        known=", ".join(PROFILE_NAMES),
    ),
    "rules_empty": _listing("replay.reason_rules_empty"),
    "rules_not_rules": _listing("replay.reason_rules_not_rules"),
    "rules_no_profile": _listing("replay.reason_rules_no_profile"),
    "rules_unknown_key": lambda exc, lang: translate(
        "replay.reason_rules_unknown_key",
        lang,
        key=_written(exc.detail),
        known=", ".join(SETTING_NAMES),
    ),
    "rules_key_twice": _quoting("replay.reason_rules_key_twice", "key"),
    "rules_not_key_value": _quoting("replay.reason_rules_not_key_value", "text"),
    "rules_profile_not_first": _quoting("replay.reason_rules_profile_not_first", "text"),
    "rules_bad_value": _rule_value,
}

__all__ = ["fault_reason"]
