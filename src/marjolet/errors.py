"""The exception family: every error the library raises for bad input.

All subclass :class:`MarjoletError`, itself a :class:`ValueError`, and their
messages quote the input and, where there is one, the position (deal and
action index) and the rule id that was broken.
"""

from __future__ import annotations


class MarjoletError(ValueError):
    """Base class of every input error raised by marjolet."""


class CardError(MarjoletError):
    """Text or a value that is not a card or a set of cards."""


class RulesError(MarjoletError):
    """An unknown profile or a bad rule setting.

    ``kind``, for a front end that words the error for a player (a
    record's bad ``rules``, :class:`RecordError`), says what is wrong
    where the message alone would have to be parsed: ``unknown_profile``,
    ``unknown_key`` (``detail``: the key), ``bad_value`` (``detail``: the
    setting), ``not_rules``, a value neither a profile name nor an object,
    ``no_profile``, an object without its ``profile``, and in a rules text
    (``classic target=1000``) ``empty``, ``not_key_value`` (``detail``:
    the word without its ``=``), ``profile_not_first`` (``detail``: the
    ``profile=...`` word) and ``key_twice`` (``detail``: the key); else
    ``None``. ``detail`` is ``None`` for a kind without one.
    """

    def __init__(self, message: str, *, kind: str | None = None, detail: str | None = None) -> None:
        super().__init__(message)
        self.kind = kind
        self.detail = detail


class ActionError(MarjoletError):
    """Text that is not an action (card, ``meld ID``, ``dix``, ``draw``)."""


class IllegalActionError(MarjoletError):
    """A well-formed action that the rules forbid in the current position.

    ``rule`` names the broken rule id (``"R16"``) and ``action`` is the id of
    the refused action; ``why`` is the refusal for programs, a code and its
    particulars (:meth:`marjolet.engine.Reason.why`), or ``None``.
    """

    def __init__(
        self,
        message: str,
        *,
        action: int | None = None,
        rule: str = "",
        why: dict[str, object] | None = None,
    ) -> None:
        super().__init__(message)
        self.action = action
        self.rule = rule
        self.why = why


class DealError(MarjoletError):
    """A deal built from bad parts (a dealer that is not 0 or 1, a state
    list of the wrong size) or an observation that no deal can match."""


class MatchOverError(MarjoletError):
    """A deal was started after R22 decided the match."""


class TurnError(MarjoletError):
    """An answer the turn driver refuses (:mod:`marjolet.turns`); nothing
    changed. ``code`` says why in one word, for programs:

    - ``stale``: the answer was for an earlier position (its version is old);
    - ``not_your_turn``: the seat that answered is not the one to act;
    - ``no_turn``: no deal is in progress (it is over, or not started);
    - ``match_over``: the match is decided (R22) or was forfeited;
    - ``illegal``: the action breaks a rule; ``rule`` names it (``"R16"``).
    """

    def __init__(self, message: str, *, code: str, rule: str = "") -> None:
        super().__init__(message)
        self.code = code
        self.rule = rule


class IllegalTurnError(TurnError, IllegalActionError):
    """An illegal answer refused by the turn driver: both a
    :class:`TurnError` (``code`` ``"illegal"``) and an
    :class:`IllegalActionError` (``rule``, ``action`` and, when the rules
    refuse it, ``why``: the engine's refusal code and particulars)."""

    def __init__(
        self,
        message: str,
        *,
        action: int | None = None,
        rule: str = "",
        why: dict[str, object] | None = None,
    ) -> None:
        IllegalActionError.__init__(self, message, action=action, rule=rule, why=why)
        self.code = "illegal"


class RecordError(MarjoletError):
    """A game record that cannot be read or breaks a rule.

    ``deal`` and ``action`` are the 0-based position of the fault, or ``None``
    where they do not apply (record.md, "Error positions"). ``trick``, the
    trick being played then (1-16), and ``line``, the line of a text record
    the fault is on (from 1; ``None`` for a JSON record or a fault of no one
    line), only help a reader find the place: they are shown by ``str()``
    and left out of :meth:`to_json`'s keys, which the record format fixes
    (``line_in_json``: see :meth:`to_json`).
    ``readable`` is false when no record could be read at all (not JSON,
    not the text notation, or neither's fields): a front end says "no game
    in this file" rather than what is wrong in one.
    ``why``, for an action the rules refuse, is the engine's refusal for
    programs (:attr:`IllegalActionError.why`), else ``None``. ``source``
    is the file the message already names (a file that cannot be read), so
    a command does not name it twice; ``None`` when the message names none.
    ``kind``, for a front end that words the error for a player, says what
    kind of fault it is where the message alone would have to be parsed
    (``missing_file``, ``no_permission``, ``folder``, ``unreadable``,
    ``bom``, ``utf16``, ``not_utf8``, ``empty``, ``not_record``,
    ``json_not_record`` (JSON, but not a record's object),
    ``bad_json``, JSON that does not parse (``detail``: its line and
    column, ``"1 3"``), ``bad_action``, ``bad_deck``, ``deck_repeats`` (``detail``: the card),
    ``deck_missing`` (``detail``: the cards missing), ``unfinished_deal``,
    ``match_decided``, a deal after R22 decided the match (``detail``: the
    two totals, ``"530 520"``);
    in a text record ``deal_number`` (``detail``: the line), ``no_deck``, a
    deal without its ``deck`` line, ``trick_number``, a
    trick's number without its dot or with another mark (``1)``, ``1:``),
    ``meld_alone``, ``meld`` with no id after it on its line; in either
    form ``keyword_case``, a keyword typed with capitals (``Draw``), and
    ``meld_case``, a meld id in small letters (``meld kqs``));
    a fault of the header: ``unknown_format`` (``detail``: the format),
    ``no_first_dealer``, ``bad_first_dealer`` (``detail``: the value),
    ``bad_players`` (``detail``: how many names a list of names gives, else
    ``None``), a bad ``rules`` as ``rules_`` and the :class:`RulesError`'s
    kind (``rules_unknown_profile``, ``detail``: the profile;
    ``rules_unknown_key``, ``rules_key_twice``, ``detail``: the key;
    ``rules_bad_value``, ``detail``: the setting and its value,
    ``target=abc``; ``rules_not_key_value`` and ``rules_profile_not_first``,
    ``detail``: the word; ``rules_empty``, ``rules_not_rules`` and
    ``rules_no_profile``), in a text record
    ``header_twice`` (``detail``: the keyword) and ``not_header``, a line
    before the first ``deal`` that is not a header's (``detail``: the line),
    and in a JSON record (in its header or anywhere else) ``key_twice``,
    a key given twice in one object (``detail``: the key); else ``None``.
    ``detail`` is its particular (the text of the action or of the deck's
    card, the system's reason a file cannot be read), as the file writes
    it (a JSON record's value as JSON writes it, ``"0"``, ``[4, 4]``; a
    format or a profile without its quotes), else ``None``. Neither is in :meth:`to_json`.
    """

    def __init__(
        self,
        message: str,
        *,
        deal: int | None = None,
        action: int | None = None,
        trick: int | None = None,
        line: int | None = None,
        readable: bool = True,
        why: dict[str, object] | None = None,
        source: str | None = None,
        kind: str | None = None,
        detail: str | None = None,
        line_in_json: bool = False,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.source = source
        self.kind = kind
        self.detail = detail
        self.deal = deal
        self.action = action
        self.trick = trick
        self.line = line
        #: Whether :meth:`to_json`'s message starts with the line: a fault
        #: of a text record's layout (a header line given twice, a ``deal``
        #: or ``deck`` line out of place), whose message has always named
        #: it, the one exact place it has.
        self.line_in_json = line_in_json
        self.readable = readable
        self.why = why

    def to_json(self) -> dict[str, object]:
        """The record format's error object: ``deal``, ``action`` and
        ``message``. The message of a fault in a text record's layout
        starts with its line (``line 3: 'rules' given twice``), the one
        exact place a program has for it, as it always has
        (:attr:`line_in_json`)."""
        message = self.message
        if self.line is not None and self.line_in_json:
            message = f"line {self.line}: {message}"
        return {"deal": self.deal, "action": self.action, "message": message}

    def __str__(self) -> str:
        where = [] if self.line is None else [f"line {self.line}"]
        if self.deal is not None:
            where.append(f"deal {self.deal}")
        if self.action is not None:
            where.append(f"action {self.action}")
        if self.trick is not None and (self.deal is not None or self.action is not None):
            where[-1] += f" (trick {self.trick})"
        return f"{', '.join(where)}: {self.message}" if where else self.message
