"""A bad record as ``marjolet replay`` and ``marjolet review`` tell a player:
one line in the player's language naming what is wrong and where (the
file, the deal and trick counted from 1, the player by the record's name);
never a rule id, a record code or the library's English (docs/replay.md).

The sentences are the replay page's (``replay.*`` of the catalogues): a
move the rules refuse is worded from the engine's refusal
(:attr:`marjolet.errors.RecordError.why`), a file that is no record, not
UTF-8 or unreadable from the error's :attr:`~marjolet.errors.RecordError.kind`;
a mistake of a record typed by hand, a fault of its deals or of its header
by :func:`marjolet.i18n.record_faults.fault_reason`, the words the replay
page shows for an uploaded file; a rarer fault keeps the library's English
detail, without its rule id, inside the sentence of the player's language.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from marjolet.cards import SUITS, parse_card, suit_of
from marjolet.engine import REFUSAL_CODES
from marjolet.errors import RecordError
from marjolet.i18n import DEFAULT
from marjolet.i18n.record_faults import fault_reason
from marjolet.melds import MELD_INDEX
from marjolet.record import Record, error_place
from marjolet.rules import Rules
from marjolet.tui import describe
from marjolet.tui.words import card, lang, tr

#: A rule id at the head of a library message (``R16: ``, ``R9/R10: ``).
_RULE_ID = re.compile(r"\bR\d+(?:/R\d+)*(?:, \w+)?:\s*")

#: What a file that cannot be read is, by :attr:`RecordError.kind`.
_UNREADABLE = {
    "missing_file": "replay.no_such_file",
    "no_permission": "replay.no_permission",
    "folder": "replay.is_folder",
}


def record_error_line(file: str, exc: RecordError, record: Record | None = None) -> str:
    """The line ``marjolet replay``/``review`` print for a bad record
    (``marjolet: error: FILE: ...``), in the language in use; ``record``
    is the record as read, without its check, when it could be read (its
    players' names and rules word a refused move)."""
    return tr("replay.error_line", message=record_error_text(file, exc, record))


def record_error_text(file: str, exc: RecordError, record: Record | None = None) -> str:
    """The error of :func:`record_error_line` without its ``marjolet: error:``."""
    shown = tr("replay.stdin") if file == "-" else file
    if cannot_be_read(exc):
        key = _UNREADABLE.get(exc.kind or "")
        reason = tr(key) if key else tr("replay.reason_english", detail=exc.detail or exc.message)
        return tr("replay.cannot_read", file=shown, reason=reason)
    return tr("replay.file_error", file=shown, error=record_fault(exc, record))


def cannot_be_read(exc: RecordError) -> bool:
    """Whether ``exc`` says the file could not be read at all (missing, a
    folder, not allowed), rather than what it holds is wrong."""
    return exc.kind in _UNREADABLE or exc.kind == "unreadable"


def record_fault(exc: RecordError, record: Record | None = None) -> str:
    """What is wrong with a file that was read but holds no valid record,
    as one sentence of the player's language without the file's name (``ce
    fichier n'est pas une partie valable (ligne 2) : ...``): the words of
    :func:`record_error_text`, which ``marjolet play --resume`` says too."""
    if exc.kind == "bom":
        return tr("replay.bom")
    if exc.kind in ("not_utf8", "utf16"):
        return tr(f"replay.{exc.kind}")
    return _bad_record(exc, record)


def _bad_record(exc: RecordError, record: Record | None) -> str:
    where = [tr(f"replay.at_{what}", n=n) for what, n in error_place(exc)]
    reason = _reason(exc, record)
    if where:
        return tr("replay.bad_record", where=", ".join(where), reason=reason)
    return tr("replay.bad_record_nowhere", reason=reason)


def _reason(exc: RecordError, record: Record | None) -> str:
    refused = refusal_reason(exc.why, record) if exc.why else None
    if refused is not None:
        return refused
    if exc.kind == "empty":
        return tr("error.empty_file")
    if exc.kind in ("not_record", "json_not_record"):
        return tr(f"replay.reason_{exc.kind}")
    worded = fault_reason(exc, lang())
    if worded is not None:  # respaced for the terminal by the line's tr()
        return worded
    detail = _RULE_ID.sub("", exc.message).rstrip(".")
    return detail if lang() == DEFAULT else tr("replay.reason_english", detail=detail)


def refusal_reason(why: dict[str, object], record: Record | None) -> str | None:
    """A move the rules refuse (the engine's code and particulars,
    docs/engine.md "Refusals") as the replay page words it, the player
    named as the record names them; ``None`` for a code without words."""
    code = why.get("code")
    if not isinstance(code, str) or code not in REFUSAL_CODES or code == "unknown_action":
        return None
    args: dict[str, object] = {}
    player = why.get("player")
    if isinstance(player, int) and player in (0, 1):
        names = refusal_names(record.players if record else None)
        args["name"], args["other"] = names[player], names[player ^ 1]
    for field in ("card", "lead"):
        if isinstance(value := why.get(field), str):
            args[field] = card(parse_card(value))
    for field in ("legal", "missing"):
        if isinstance(value := why.get(field), (list, tuple)):
            args[field] = describe.or_join([card(parse_card(str(c))) for c in value])
    meld, trump = why.get("meld"), why.get("trump")
    if isinstance(meld, str) and meld in MELD_INDEX:
        rules = record.rules if record else Rules()
        args["meld"] = describe.meld_name(MELD_INDEX[meld], _suit(trump), rules)
    return tr(f"replay.why_{code}{_variant(why)}", **args)


def _variant(why: dict[str, object]) -> str:
    """The suffix of a refusal's sentence when its particulars change what
    it is: an exchange of the seven (``_dix``) rather than a meld, a draw
    from the empty stock of tricks 11-16 (``_stock_empty``), a meld the
    other player holds, written after a trick they lost (``_other_holds``)."""
    if why.get("what") == "dix":
        return "_dix"
    if why.get("stock_empty") is True:
        return "_stock_empty"
    return "_other_holds" if why.get("other_holds") is True else ""


def _suit(trump: object) -> int:
    """A suit given as its letter (``"H"``) or a card of it, else spades."""
    if isinstance(trump, int) and 0 <= trump < 4:
        return trump
    if isinstance(trump, str) and trump in SUITS:
        return SUITS.index(trump)
    if isinstance(trump, str):
        try:
            return suit_of(parse_card(trump))
        except ValueError:
            pass
    return 3


def refusal_names(players: Sequence[str] | None) -> list[str]:
    """The record's players as a refusal names them: as the replay's text
    names them (:func:`marjolet.tui.reports.record_names`), but a seat of
    the default name ("You") by its number, which a sentence in the third
    person can say ("Player 1 plays...")."""
    from marjolet.tui.reports import record_names
    from marjolet.tui.session import DEFAULT_NAMES

    names = record_names(players)
    if players is not None:
        for seat, recorded in enumerate(players):
            if recorded in DEFAULT_NAMES:
                names[seat] = f"{tr('player.default_name')} {seat + 1}"
    return names


__all__ = [
    "cannot_be_read",
    "record_error_line",
    "record_error_text",
    "record_fault",
    "refusal_names",
    "refusal_reason",
]
