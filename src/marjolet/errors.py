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
    """An unknown profile or a bad rule setting."""


class ActionError(MarjoletError):
    """Text that is not an action (card, ``meld ID``, ``dix``, ``draw``)."""


class IllegalActionError(MarjoletError):
    """A well-formed action that the rules forbid in the current position.

    ``rule`` names the broken rule id (``"R16"``) and ``action`` is the id of
    the refused action.
    """

    def __init__(self, message: str, *, action: int | None = None, rule: str = "") -> None:
        super().__init__(message)
        self.action = action
        self.rule = rule


class RecordError(MarjoletError):
    """A game record that cannot be read or breaks a rule.

    ``deal`` and ``action`` are the 0-based position of the fault, or ``None``
    where they do not apply (record.md, "Error positions").
    """

    def __init__(self, message: str, *, deal: int | None = None, action: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.deal = deal
        self.action = action

    def to_json(self) -> dict[str, object]:
        return {"deal": self.deal, "action": self.action, "message": self.message}

    def __str__(self) -> str:
        where = []
        if self.deal is not None:
            where.append(f"deal {self.deal}")
        if self.action is not None:
            where.append(f"action {self.action}")
        return f"{', '.join(where)}: {self.message}" if where else self.message
