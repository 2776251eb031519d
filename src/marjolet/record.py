"""Game records: the JSON form of record.md, a text notation, and replay.

A :class:`Record` holds a match or any prefix of one: the rules, the first
dealer, optional player names and, per deal, the deck order and the actions.
:func:`loads` reads either form (JSON starts with ``{``); :meth:`Record.dumps`
and :meth:`Record.to_text` write them. :func:`replay` checks a record against
the rules and scores it exactly as ``marjolet replay`` prints it. Every
reading or rule error is a :class:`~marjolet.errors.RecordError` carrying the
position of record.md (``deal``, ``action``) and a message citing the rule.

Text notation (``marjolet-record/1`` text form), one item a line::

    format marjolet-record/1
    rules classic all_tricks_bonus=40
    players "Alice" "random"
    first_dealer 0
    deal 0
    deck AS TS KS AD TD KD QS JS 9S QD JD 9D 8H 8S ...
      1. AS AD meld KQS draw
      2. TS TD draw

``rules`` is a profile name followed by ``key=value`` overrides
(``deal_pattern=2-2-2``, booleans ``true``/``false``). After a ``deck`` line
come the deal's actions, written a trick a line: ``N.`` (the trick number) is
only a reading aid, ``meld ID`` is one action, ``#`` starts a comment. The
conversion is lossless both ways: ``loads(r.to_text()) == r``.

Comments after a deal's ``deck`` line are kept (:class:`Comment`: the deal,
how many of its actions come before the comment, the text) and written back
at the same place; the JSON form holds them in a top-level ``comments``
list, which other readers ignore (record.md: unknown top-level keys). A
trick whose line is cut by a comment goes on in an unnumbered line::

      3. KS       # best was AS: -20 (exact)
         AS draw

Comments elsewhere (before the first deck, on ``deal`` lines) are dropped.
``marjolet review --out`` writes its annotations this way.
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from marjolet import outputs
from marjolet.actions import ACTION_NAMES, MELD_BASE, parse_action
from marjolet.cards import CARD_NAMES, SUITS, card_fix, parse_card
from marjolet.engine import Breakdown, Deal
from marjolet.errors import (
    ActionError,
    CardError,
    IllegalActionError,
    MarjoletError,
    MatchOverError,
    RecordError,
    RulesError,
)
from marjolet.match import Match
from marjolet.melds import MELD_INDEX
from marjolet.rules import CLASSIC, Rules, text_settings

FORMAT = "marjolet-record/1"


@dataclass(frozen=True, slots=True)
class DealRecord:
    """One deal of a record: its deck order (R4) and its actions (ids)."""

    deck: tuple[int, ...]
    actions: tuple[int, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "deck": [CARD_NAMES[c] for c in self.deck],
            "actions": [ACTION_NAMES[a] for a in self.actions],
        }


@dataclass(frozen=True, slots=True)
class Comment:
    """A comment inside a deal: after its first ``after`` actions (0: just
    after the deck line). ``text`` is one line."""

    deal: int
    after: int
    text: str

    def to_json(self) -> dict[str, Any]:
        return {"deal": self.deal, "after": self.after, "text": self.text}


#: Characters that end a line for ``str.splitlines`` and that JSON leaves
#: as they are: a name holding one is written escaped, on its one line.
_LINE_BREAKS = {"\x85": "\\u0085", "\u2028": "\\u2028", "\u2029": "\\u2029"}


def _quoted(name: str) -> str:
    """A name as the text form's ``players`` line writes it: a JSON string
    that keeps to one line."""
    text = json.dumps(name, ensure_ascii=False)
    for char, escaped in _LINE_BREAKS.items():
        text = text.replace(char, escaped)
    return text


def _one_line(text: str) -> str:
    return " ".join(text.split())


@dataclass(frozen=True, slots=True)
class Record:
    """A whole match or a prefix of one (record.md)."""

    rules: Rules = CLASSIC
    first_dealer: int = 0
    players: tuple[str, str] | None = None
    deals: tuple[DealRecord, ...] = ()
    #: comments inside deals, in reading order (see the module docstring)
    comments: tuple[Comment, ...] = ()
    #: where a text record's deals were read, for its errors: per deal, the
    #: line of its ``deck`` and the line of each action (from 1); ``None``
    #: for a record not read from text. Neither compared nor written.
    source_lines: tuple[tuple[int, tuple[int, ...]], ...] | None = field(
        default=None, compare=False, repr=False
    )

    @classmethod
    def from_match(cls, match: Match) -> Record:
        return cls(
            rules=match.rules,
            first_dealer=match.first_dealer,
            players=match.players,
            deals=tuple(
                DealRecord(d.deck if d.deck is not None else (), tuple(d.moves))
                for d in match.deals
            ),
        )

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"format": FORMAT, "rules": self.rules.to_record()}
        if self.players is not None:
            out["players"] = list(self.players)
        out["first_dealer"] = self.first_dealer
        out["deals"] = [d.to_json() for d in self.deals]
        if self.comments:
            out["comments"] = [c.to_json() for c in self.comments]
        return out

    def dumps(self) -> str:
        """The JSON form: one line per deal (and per comment), readable and
        diffable."""
        head = self.to_json()
        deals = head.pop("deals")
        comments = head.pop("comments", [])
        if not deals:
            return json.dumps({**head, "deals": []}, ensure_ascii=False) + "\n"
        body = ",\n".join("  " + json.dumps(d, ensure_ascii=False) for d in deals)
        top = json.dumps(head, ensure_ascii=False)[:-1]
        tail = ""
        if comments:
            notes = ",\n".join("  " + json.dumps(c, ensure_ascii=False) for c in comments)
            tail = f', "comments": [\n{notes}\n]'
        return f'{top}, "deals": [\n{body}\n]{tail}}}\n'

    def to_text(self) -> str:
        """The text notation (see the module docstring)."""
        lines = [f"format {FORMAT}", "rules " + _rules_text(self.rules)]
        if self.players is not None:
            lines.append("players " + " ".join(_quoted(n) for n in self.players))
        lines.append(f"first_dealer {self.first_dealer}")
        for i, deal in enumerate(self.deals):
            lines.append(f"deal {i}")
            lines.append("deck " + " ".join(CARD_NAMES[c] for c in deal.deck))
            notes = [(c.after, c.text) for c in self.comments if c.deal == i]
            lines.extend(_action_lines(deal.actions, notes))
        return "\n".join(lines) + "\n"

    def with_action(self, action: int) -> Record:
        """This record with one more action in its last deal."""
        last = self.deals[-1]
        return Record(
            self.rules,
            self.first_dealer,
            self.players,
            (*self.deals[:-1], DealRecord(last.deck, (*last.actions, action))),
            self.comments,
        )

    def with_comments(self, comments: Sequence[Comment]) -> Record:
        """This record with ``comments`` (replacing any it had), sorted into
        reading order; texts are made one line."""
        ordered = sorted(
            (Comment(c.deal, c.after, _one_line(c.text)) for c in comments),
            key=lambda c: (c.deal, c.after),
        )
        return Record(self.rules, self.first_dealer, self.players, self.deals, tuple(ordered))


#: The names the web server writes in a record's ``players`` for what is
#: not a name a person chose: a player who gave none, the guest of a
#: friend's table not seated yet, the seat of an account deleted since.
#: The pages and ``marjolet review``/``replay`` read them in the player's
#: language.
UNNAMED_PLAYER = "you"
UNSEATED_FRIEND = "friend"
DELETED_PLAYER = "deleted player"


def printable_name(name: object, limit: int = 100) -> str:
    """A player's or a program's name as a screen shows it: its printable
    characters only (no control character or escape sequence reaches a
    terminal), trimmed, at most ``limit`` long; ``""`` for a non-string.
    Records keep names as given: only what is shown is cleaned.

    >>> printable_name("Al\\x00ice\\x1b[31m ")
    'Alice[31m'
    """
    if not isinstance(name, str):
        return ""
    return "".join(c for c in name if c.isprintable()).strip()[:limit]


def name_column(names: Sequence[object], least: int = 12, most: int = 32) -> list[str]:
    """Players' names as a table's name column shows them (``marjolet
    replay``, ``marjolet review``): cleaned by :func:`printable_name` and
    padded to the longest, at least ``least`` wide. A name longer than
    ``most`` keeps its end after "…": bots named by their program
    (``exec:bots/my_bot_v2.py``) differ there, not at the start. Should
    shortening make two names alike, they are shown in full.

    >>> name_column(["exec:bots/my_bot_v1.py", "exec:bots/my_bot_v2.py"], 4, 13)
    ['…my_bot_v1.py', '…my_bot_v2.py']
    """
    full = [printable_name(n) for n in names]
    short = [n if len(n) <= most else "…" + n[len(n) - most + 1 :] for n in full]
    shown = short if len(set(short)) == len(set(full)) else full
    width = max([least, *(len(n) for n in shown)])
    return [n.ljust(width) for n in shown]


def _rules_text(rules: Rules) -> str:
    return rules.to_text()


def _action_lines(actions: Sequence[int], notes: Sequence[tuple[int, str]] = ()) -> list[str]:
    """A trick a line: two cards and the window actions after them. Each
    note ``(after, text)`` becomes a ``#`` comment right after action number
    ``after``, the rest of its trick going on in an unnumbered line."""
    at: dict[int, list[str]] = {}
    for after, text in notes:
        at.setdefault(after, []).append(text)
    lines = [f"{' ' * 6}# {text}" for text in at.get(0, [])]
    current: list[str] = []
    cards = 0
    trick = 0
    started = False  # whether the current trick already has a line

    def flush(comment: list[str]) -> None:
        nonlocal current, started
        head = f"{' ' * 6}" if started else f"  {trick:2d}. "
        line = head + " ".join(current)
        if comment:
            line += f"  # {comment[0]}"
        lines.append(line)
        lines.extend(f"{' ' * 6}# {text}" for text in comment[1:])
        current, started = [], True

    for i, a in enumerate(actions, 1):
        if a < MELD_BASE:
            if cards == 2:
                if current:
                    flush([])
                cards, started = 0, False
            if cards == 0:
                trick += 1
            cards += 1
        current.append(ACTION_NAMES[a])
        if i in at:
            flush(at[i])
    if current:
        flush([])
    return lines


# -- reading -------------------------------------------------------------------


def loads(text: str, *, check: bool = True) -> Record:
    """Read a record in either form. With ``check`` (the default) it is also
    replayed, so any rule violation raises :class:`RecordError`."""
    if text[:1] == "\ufeff":
        raise RecordError(
            "the record starts with a byte-order mark (U+FEFF); marjolet records are "
            "UTF-8 without one: save the file again without the mark",
            kind="bom",
        )
    if not text.strip():
        raise RecordError("empty file: there is no record in it", readable=False, kind="empty")
    if text.lstrip()[:1] in ("{", "[") or _json_scalar(text):
        return _loads_json(text, check)
    return _loads_text(text, check)


def _json_scalar(text: str) -> bool:
    """Whether ``text`` is JSON but neither an object nor a list (``42``,
    ``"a game"``, ``null``): JSON, told as such, never read as the text
    notation (no text record is valid JSON)."""
    try:
        json.loads(text)
    except ValueError:  # (JSONDecodeError, and a number too large to read)
        return False
    return True


#: The top-level keys of a JSON record: an object with none of them is not one.
RECORD_KEYS = frozenset({"format", "rules", "players", "first_dealer", "deals", "comments"})


def load(path: str | os.PathLike[str], *, check: bool = True) -> Record:
    """Read a record file (JSON or text form)."""
    return loads(read_text(path), check=check)


def read_text(path: str | os.PathLike[str]) -> str:
    """The text of a record file, ``-`` meaning standard input; a file that is
    not UTF-8 gets a :class:`RecordError` that says so."""
    name = os.fspath(path)
    try:
        if name == "-":
            data = sys.stdin.buffer.read()
        else:
            data = Path(path).read_bytes()
    except OSError as exc:
        where = source_name(name)
        reason = _os_reason(exc)
        raise RecordError(
            f"cannot read record {where!r}: {reason}",
            source=where,
            kind=_os_kind(exc),
            detail=reason,
        ) from None
    return decode(data)


def source_name(path: str | os.PathLike[str]) -> str:
    """How an error names a record's source: its path, or "standard input"
    for ``-``."""
    name = os.fspath(path)
    return "standard input" if name == "-" else name


def located(path: str | os.PathLike[str], exc: Exception) -> str:
    """A record's error as a command reports it: ``FILE: message``, the
    source named once (a :class:`RecordError` whose message names it
    already, such as a file that cannot be read, is left as it is)."""
    if isinstance(exc, RecordError) and exc.source is not None:
        return str(exc)
    return f"{source_name(path)}: {exc}"


def decode(data: bytes) -> str:
    """Record bytes as text: UTF-8, or a :class:`RecordError` saying what
    the bytes look like instead (UTF-16, another encoding)."""
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        raise RecordError(
            "the record is UTF-16 text (it starts with a UTF-16 byte-order mark); "
            "marjolet records are UTF-8: save the file as UTF-8",
            kind="utf16",
        )
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise RecordError(
            f"the record is not UTF-8 text (byte 0x{data[exc.start]:02x} at offset "
            f"{exc.start}); marjolet records are UTF-8: save the file as UTF-8",
            kind="not_utf8",
        ) from None


#: Deepest nesting of arrays and objects a JSON record may have (a record
#: needs 4); deeper input is refused before the parser sees it, so that it
#: cannot exhaust the recursion limit of :mod:`json`.
MAX_JSON_DEPTH = 32
_JSON_TOKENS = re.compile(r'"(?:[^"\\]++|\\.)*+"?|[\[\]{}]')


def json_depth(text: str) -> int:
    """The deepest nesting of ``[``/``{`` in JSON ``text`` (strings skipped)."""
    depth = deepest = 0
    for m in _JSON_TOKENS.finditer(text):
        ch = m.group()
        if ch in "[{":
            depth += 1
            if depth > deepest:
                deepest = depth
        elif ch in "]}":
            depth -= 1
    return deepest


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object whose keys are each given once: a record that says
    two things of one key (two ``deals``) has no one meaning."""
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise RecordError(
                f"key {key!r} given twice in one JSON object", kind="key_twice", detail=key
            )
        out[key] = value
    return out


def parse_json(text: str, *, what: str = "JSON") -> Any:
    """``json.loads`` with a nesting limit (:data:`MAX_JSON_DEPTH`) and each
    key once in an object: every fault is a one-line :class:`RecordError`,
    never a ``RecursionError``."""
    depth = json_depth(text)
    if depth > MAX_JSON_DEPTH:
        raise RecordError(
            f"{what} nested {depth} levels deep; the limit is {MAX_JSON_DEPTH}", readable=False
        )
    try:
        return json.loads(text, object_pairs_hook=_unique_keys)
    except json.JSONDecodeError as exc:
        raise RecordError(
            f"malformed {what} at line {exc.lineno} column {exc.colno}: {exc.msg}",
            readable=False,
            kind="bad_json",
            detail=f"{exc.lineno} {exc.colno}",
        ) from None
    except RecordError:  # a key given twice
        raise
    except ValueError:  # an integer longer than Python converts (sys.get_int_max_str_digits)
        raise RecordError(
            f"{what} holds a number of more than {sys.get_int_max_str_digits()} digits",
            readable=False,
        ) from None
    except RecursionError:  # pragma: no cover - the depth check comes first
        raise RecordError(f"{what} nested too deeply", readable=False) from None


def _os_kind(exc: OSError) -> str:
    """The :attr:`RecordError.kind` of a file that cannot be read."""
    if isinstance(exc, FileNotFoundError):
        return "missing_file"
    if isinstance(exc, PermissionError):
        return "no_permission"
    if isinstance(exc, IsADirectoryError):
        return "folder"
    return "unreadable"


def _os_reason(exc: Exception) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return str(exc)


class _Builder:
    """Builds a record deal by deal, optionally replaying it as it goes, so
    that the first fault in reading order is the one reported."""

    def __init__(
        self, rules: Rules, first_dealer: int, players: tuple[str, str] | None, check: bool
    ) -> None:
        self.rules = rules
        self.first_dealer = first_dealer
        self.players = players
        self.check = check
        self.match = Match(rules, first_dealer=first_dealer, players=players)
        self.deals: list[DealRecord] = []
        self.deal: Deal | None = None
        self.current_deck: tuple[int, ...] | None = None
        self.actions: list[int] = []
        self.comments: list[Comment] = []

    def start_deal(self, deck_texts: object, d: int) -> None:
        self._close_deal()
        if self.check and self.deal is not None and not self.deal.is_over:
            raise RecordError(
                f"R22: deal {d - 1} is unfinished but is not the last deal "
                "(deals are always finished)",
                deal=d - 1,
            )
        if self.check and self.match.winner is not None:
            t = list(self.match.totals)
            raise RecordError(
                f"R22: the match was decided after deal {d - 1} (totals {t}); "
                "no further deal is allowed",
                deal=d,
                kind="match_decided",
                detail=f"{t[0]} {t[1]}",
            )
        deck = _parse_deck(deck_texts, d)
        self.actions = []
        self.current_deck = deck
        self.deal = self.match.start_deal(deck) if self.check else None

    def action(self, text: object, d: int, a: int) -> None:
        try:
            action = parse_action(text)  # type: ignore[arg-type]
        except ActionError as exc:
            shown = text if isinstance(text, str) else json.dumps(text, default=str)
            mistake = _case_mistake(shown, d, a) if isinstance(text, str) else None
            raise mistake or RecordError(
                str(exc), deal=d, action=a, kind="bad_action", detail=shown
            ) from None
        if self.deal is not None:
            try:
                self.match.play(action)
            except IllegalActionError as exc:
                trick = _trick(self.match, action)
                raise RecordError(str(exc), deal=d, action=a, trick=trick, why=exc.why) from None
        self.actions.append(action)

    def _close_deal(self) -> None:
        if self.current_deck is not None:
            self.deals.append(DealRecord(self.current_deck, tuple(self.actions)))
            self.current_deck = None

    def comment(self, d: int, text: str) -> None:
        """A comment after the actions read so far in deal ``d``."""
        self.comments.append(Comment(d, len(self.actions), _one_line(text)))

    def finish(self) -> Record:
        self._close_deal()
        return Record(
            self.rules, self.first_dealer, self.players, tuple(self.deals), tuple(self.comments)
        )


def _parse_deck(value: object, d: int) -> tuple[int, ...]:
    if not isinstance(value, list | tuple):
        raise RecordError("R4: 'deck' must be a list of 32 cards", deal=d, kind="bad_deck")
    deck: list[int] = []
    seen = 0
    for text in value:
        try:
            c = parse_card(text)
        except CardError as exc:
            shown = text if isinstance(text, str) else None
            raise RecordError(f"R1: {exc}", deal=d, kind="bad_deck", detail=shown) from None
        if seen >> c & 1:
            raise RecordError(
                f"R4: card {CARD_NAMES[c]} appears twice in the deck",
                deal=d,
                kind="deck_repeats",
                detail=CARD_NAMES[c],
            )
        seen |= 1 << c
        deck.append(c)
    if len(deck) != 32:
        missing = " ".join(CARD_NAMES[c] for c in range(32) if not seen >> c & 1)
        raise RecordError(
            f"R4: the deck has {len(deck)} card{'' if len(deck) == 1 else 's'}, not 32 "
            f"(missing: {missing})",
            deal=d,
            kind="deck_missing",
            detail=missing,
        )
    return tuple(deck)


def _header(rules_value: object, first_dealer: object, players: object, check: bool) -> _Builder:
    rules = _header_rules(rules_value)
    dealer = _header_first_dealer(first_dealer)
    return _Builder(rules, dealer, _header_players(players), check)


def _header_rules(value: object, text: str | None = None) -> Rules:
    """The header's rules from their record form (``value``), read from the
    text form's ``rules`` line ``text`` if it was one."""
    try:
        return Rules.from_json(value)
    except RulesError as exc:
        raise _rules_fault(f"rules: {exc}", exc, value, text) from None


def _rules_fault(message: str, exc: RulesError, value: object, text: str | None) -> RecordError:
    """A record's bad ``rules`` (``value`` in the record form, from the
    text form's line ``text`` if it was one): its :attr:`RecordError.kind`
    is the :class:`RulesError`'s after ``rules_``, its detail what the file
    writes: the profile, the key, or ``setting=value`` for a bad value (a
    JSON record's value in JSON: ``deal_pattern="3-3"``)."""
    detail = exc.detail
    if exc.kind == "unknown_profile":
        if text is not None:
            detail = text.split()[0]
        else:
            detail = _as_written(value.get("profile") if isinstance(value, dict) else value)
    elif exc.kind == "bad_value" and exc.detail is not None:
        written = _text_setting(text, exc.detail) if text is not None else None
        if written is None and isinstance(value, dict) and exc.detail in value:
            written = _json_text(value[exc.detail])
        detail = f"{exc.detail}={written or ''}"
    kind = None if exc.kind is None else f"rules_{exc.kind}"
    return RecordError(message, kind=kind, detail=detail)


def _text_setting(text: str, setting: str) -> str | None:
    """The value a ``rules`` line gives ``setting``, as written (``4-4``)."""
    for part in text.split()[1:]:
        key, _, value = part.partition("=")
        if key == setting:
            return value
    return None


def _as_written(value: object) -> str:
    """A name of a record (a format, a profile) as its file writes it: a
    text as it is (the text form's, a JSON string's), else its JSON."""
    return value if isinstance(value, str) else _json_text(value)


def _json_text(value: object) -> str:
    """A value of a JSON record as the file writes it: ``[4, 4]``,
    ``true``, ``"0"`` (a string in its quotes, not to be taken for 0)."""
    return json.dumps(value, ensure_ascii=False, default=str)


def _header_first_dealer(value: object, written: str | None = None) -> int:
    """The first dealer, 0 or 1 (``written``: the text form's line's value)."""
    if not isinstance(value, int) or isinstance(value, bool) or value not in (0, 1):
        shown = _json_text(value)  # true, as written
        raise RecordError(
            f"'first_dealer' must be 0 or 1, got {shown}",
            kind="bad_first_dealer",
            detail=shown if written is None else written,
        )
    return value


def _header_players(players: object) -> tuple[str, str] | None:
    if players is None:
        return None
    if (
        not isinstance(players, list | tuple)
        or len(players) != 2
        or not all(isinstance(n, str) for n in players)
    ):
        count = None  # how many names it gives, when it is a list of names
        if isinstance(players, list | tuple) and all(isinstance(n, str) for n in players):
            count = str(len(players))
        raise RecordError(
            f"'players' must be a list of two names, got {players!r}",
            kind="bad_players",
            detail=count,
        )
    for i, name in enumerate(players):
        _check_unicode(name, f"players: name {i}")
    return (players[0], players[1])


def _check_unicode(text: str, where: str) -> None:
    """Refuse a string no file can hold: a lone UTF-16 surrogate, which a
    JSON escape (``"\\ud800"``) can write but UTF-8 cannot."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        code = f"\\u{ord(text[exc.start]):04x}"
        raise RecordError(f"{where} is not Unicode text (a lone surrogate {code})") from None


def _loads_json(text: str, check: bool) -> Record:
    obj = parse_json(text)
    if not isinstance(obj, dict):
        kind = _json_kind(obj)
        raise RecordError(
            f"not a marjolet record: a record is a JSON object, not a {kind}",
            readable=False,
            kind="json_not_record",
        )
    if not RECORD_KEYS & obj.keys():
        raise RecordError(
            "not a marjolet record: a JSON object without any of a record's fields",
            readable=False,
            kind="json_not_record",
        )
    if "format" in obj and obj["format"] != FORMAT:
        raise RecordError(
            f"unknown format {obj['format']!r} (expected {FORMAT!r})",
            kind="unknown_format",
            detail=_as_written(obj["format"]),
        )
    if "first_dealer" not in obj:
        raise RecordError("'first_dealer' is required", kind="no_first_dealer")
    builder = _header(obj.get("rules"), obj["first_dealer"], obj.get("players"), check)
    deals = obj.get("deals", [])
    if not isinstance(deals, list):
        raise RecordError("'deals' must be a list")
    for d, deal in enumerate(deals):
        if not isinstance(deal, dict) or "deck" not in deal:
            raise RecordError("a deal must be an object with a 'deck'", deal=d)
        builder.start_deal(deal["deck"], d)
        actions = deal.get("actions", [])
        if not isinstance(actions, list):
            raise RecordError("'actions' must be a list of action strings", deal=d)
        for a, action in enumerate(actions):
            builder.action(action, d, a)
    record = builder.finish()
    if "comments" in obj:
        record = record.with_comments(_parse_comments(obj["comments"], record))
    return record


def _parse_comments(value: object, record: Record) -> list[Comment]:
    """The JSON form's ``comments``: objects ``{"deal", "after", "text"}``
    placed inside an existing deal."""
    if not isinstance(value, list):
        raise RecordError("'comments' must be a list of {deal, after, text} objects")
    out = []
    for i, item in enumerate(value):
        where = f"comment {i}"
        if not isinstance(item, dict) or set(item) - {"deal", "after", "text"}:
            raise RecordError(f"{where}: expected an object with keys deal, after, text")
        d, after, text = item.get("deal"), item.get("after"), item.get("text")
        if not isinstance(text, str):
            raise RecordError(f"{where}: 'text' must be a string")
        _check_unicode(text, f"{where}: 'text'")
        if not isinstance(d, int) or isinstance(d, bool) or not 0 <= d < len(record.deals):
            raise RecordError(f"{where}: 'deal' must be the index of a deal, got {d!r}")
        n = len(record.deals[d].actions)
        if not isinstance(after, int) or isinstance(after, bool) or not 0 <= after <= n:
            raise RecordError(
                f"{where}: 'after' must be 0-{n} (actions of deal {d}), got {after!r}", deal=d
            )
        out.append(Comment(d, after, _one_line(text)))
    return out


def _json_kind(obj: object) -> str:
    """What a JSON value is, in words: ``list``, ``number``..."""
    return "list" if isinstance(obj, list) else "JSON " + type(obj).__name__


def _loads_text(text: str, check: bool) -> Record:
    """Read the text form line by line, so that the first fault in reading
    order is the one reported, with its line number
    (:attr:`RecordError.line`)."""
    reader = _TextReader(check)
    for lineno, raw in enumerate(text.splitlines(), 1):
        try:
            reader.read_line(raw, lineno)
        except RecordError as exc:
            if exc.line is None and exc.readable:  # no record at all: no line is at fault
                exc.line = lineno
            raise
    return reader.finish()


class _TextReader:
    """Where a text record's reading is: the header lines seen so far, then
    (from the first line that is not a header) the builder, the current
    deal's number and action count, and whether its ``deck`` line was read."""

    def __init__(self, check: bool) -> None:
        self.check = check
        self.header: dict[str, Any] = {
            "format": None,
            "rules": None,
            "players": None,
            "first_dealer": None,
        }
        self.builder: _Builder | None = None
        self.deal = -1
        self.actions_read = 0
        self.in_deal = False
        #: the line of the last ``deal`` line read, for a deal without its deck
        self.deal_line: int | None = None
        #: the line of each deal's deck and of each of its actions
        self.lines: list[tuple[int, list[int]]] = []

    def read_line(self, raw: str, lineno: int) -> None:
        """One line: a header, a ``deal`` or ``deck`` line, or actions; a
        line with only a comment is kept as the current deal's comment."""
        line, note = _split_comment(raw)
        line = line.strip()
        if not line:
            if note is not None and self.in_deal and self.builder is not None:
                self.builder.comment(self.deal, note)
            return
        key, _, rest = _KEY_SPACE.sub(" ", line, count=1).partition(" ")
        rest = rest.strip()
        if key != key.lower() and key.lower() in (*self.header, "deal", "deck"):
            deal = {"deal": self.deal + 1, "deck": max(self.deal, 0)}.get(key.lower())
            raise _keyword_case(key, deal, None)
        if key in self.header and self.builder is None:
            self._header_line(key, rest)
            return
        builder = self.builder if self.builder is not None else self._end_header(key, line, lineno)
        if key == "deal":
            self._deal_line(rest, line)
            self.deal_line = lineno
        elif key == "deck":
            self._deck_line(builder, rest, note)
            self.lines.append((lineno, []))
        else:
            self._actions_line(builder, line, note, lineno)

    def _header_line(self, key: str, value: str) -> None:
        """A header line (``format``, ``rules``, ``players``,
        ``first_dealer``): each at most once, the format only ours, each
        value checked on its own line."""
        if self.header[key] is not None:
            raise RecordError(
                f"{key!r} given twice", line_in_json=True, kind="header_twice", detail=key
            )
        self.header[key] = value
        if key == "format" and value != FORMAT:
            raise RecordError(
                f"unknown format {value!r} (expected {FORMAT!r})",
                line_in_json=True,
                kind="unknown_format",
                detail=value,
            )
        if key == "rules":
            _header_rules(_rules_from_text(value), value)
        elif key == "first_dealer":
            _header_first_dealer(_int_or_text(value), value)
        elif key == "players":
            _header_players(_players_from_text(value))

    def _end_header(self, key: str, line: str, lineno: int) -> _Builder:
        """The first line past the header: refuse a text that is no record
        at all, or a header without its ``first_dealer`` (told, for a line
        that is neither a header's nor a ``deal`` line, as that line:
        ``rule classic`` for ``rules classic``); then start the builder
        from the header."""
        if key != "deal" and all(v is None for v in self.header.values()):
            raise RecordError(
                f"not a marjolet record: line {lineno} starts with {key[:40]!r}",
                readable=False,
                kind="not_record",
            )
        if self.header["first_dealer"] is None:
            raise RecordError(
                "'first_dealer' is required before the deals",
                line_in_json=True,
                kind="no_first_dealer" if key == "deal" else "not_header",
                detail=None if key == "deal" else line,
            )
        self.builder = self._builder_from_header()
        return self.builder

    def _builder_from_header(self) -> _Builder:
        """The builder for the header's rules, first dealer and players."""
        return _header(
            _rules_from_text(self.header["rules"]),
            _int_or_text(self.header["first_dealer"]),
            _players_from_text(self.header["players"]),
            self.check,
        )

    def _deal_line(self, number: str, line: str) -> None:
        """A ``deal N`` line: the deals are numbered in order from 0."""
        if number != str(self.deal + 1):
            raise RecordError(
                f"expected 'deal {self.deal + 1}', got {line!r}",
                deal=self.deal + 1,
                line_in_json=True,
                kind="deal_number",
                detail=line,
            )
        self.deal += 1
        self.in_deal = False

    def _deck_line(self, builder: _Builder, cards: str, note: str | None) -> None:
        """A ``deck`` line: one right after each ``deal`` line; it starts
        the deal."""
        if self.deal < 0 or self.in_deal:
            raise RecordError(
                "a 'deck' line must follow a 'deal' line", deal=max(self.deal, 0), line_in_json=True
            )
        builder.start_deal(cards.split(), self.deal)
        self.in_deal, self.actions_read = True, 0
        if note is not None:
            builder.comment(self.deal, note)

    def _actions_line(self, builder: _Builder, line: str, note: str | None, lineno: int) -> None:
        """A line of actions, which only a deal's ``deck`` line may come
        before; its comment follows its last action. A trick's number
        without its dot and a ``meld`` without its id are told as such."""
        if not self.in_deal:
            raise _out_of_place(line, self.deal)
        for action in _action_texts(line):
            _check_notation(action, self.deal, self.actions_read)
            builder.action(action, self.deal, self.actions_read)
            self.lines[-1][1].append(lineno)
            self.actions_read += 1
        if note is not None:
            builder.comment(self.deal, note)

    def finish(self) -> Record:
        """The record read: a header alone is a record with no deals, but
        a ``deal`` line without its ``deck`` is unfinished."""
        if self.builder is None:
            if self.header["first_dealer"] is None:
                raise RecordError("'first_dealer' is required", kind="no_first_dealer")
            self.builder = self._builder_from_header()
        if self.deal >= 0 and not self.in_deal:
            raise RecordError(
                f"deal {self.deal} has no 'deck' line",
                deal=self.deal,
                line=self.deal_line,
                kind="no_deck",
            )
        lines = tuple((deck, tuple(actions)) for deck, actions in self.lines)
        return replace(self.builder.finish(), source_lines=lines)


def _action_texts(line: str) -> Iterator[str]:
    """An actions line's actions, in order: move numbers (``12.``) are
    skipped, and ``meld`` is joined to the word after it (``meld tierce``)."""
    tokens = line.split()
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        if tok[:-1].isdigit() and tok.endswith("."):
            i += 1
            continue
        if tok == "meld":
            tok = "meld " + (tokens[i + 1] if i + 1 < len(tokens) else "")
            i += 1
        yield tok
        i += 1


def _rules_from_text(text: str | None) -> object:
    if text is None:
        return None
    try:
        return text_settings(text)
    except RulesError as exc:
        message = "rules: empty 'rules' line" if not text.split() else str(exc)
        raise _rules_fault(message, exc, None, text) from None


#: The words of the text form's lines of actions, written in small letters.
_ACTION_WORDS = ("meld", "dix", "draw")

#: A trick's number followed by another mark than its dot: ``1)``, ``1:``.
_NUMBER_MARK = re.compile(r"\d+[):]")


def _check_notation(text: str, d: int, a: int) -> None:
    """Refuse, saying how to write it, what a person typing the text
    notation often writes for an action: a trick's number without its dot
    (``1 9C AC``) or with another mark (``1)``, ``1:``), ``meld`` with its
    id on the next line. A keyword in capitals and a meld id in small
    letters are told by :func:`_case_mistake`, for the JSON form too."""
    if text.isdigit() or _NUMBER_MARK.fullmatch(text):
        raise RecordError(
            f"unknown action {text!r}: a trick's number is written with a dot, "
            f"like '{text.rstrip('):')}.'",
            deal=d,
            action=a,
            kind="trick_number",
            detail=text,
        )
    if text == "meld ":
        raise RecordError(
            "'meld' without its id: the id goes on the same line, like 'meld KQS'",
            deal=d,
            action=a,
            kind="meld_alone",
        )


def _case_mistake(text: str, d: int, a: int) -> RecordError | None:
    """An action the notation refused, typed in the wrong letters, with how
    to write it: a keyword in capitals (``Draw``, ``MELD KQS``:
    ``keyword_case``), a meld id in small letters (``meld kqs``:
    ``meld_case``); else ``None``. Only asked of an action already refused,
    so it never narrows what is read."""
    word, space, rest = text.partition(" ")
    if word != word.lower() and word.lower() in _ACTION_WORDS:
        return _keyword_case(word, d, a)
    ident = rest.strip()
    if word == "meld" and space and ident != ident.upper() and ident.upper() in MELD_INDEX:
        return RecordError(
            f"unknown meld id {ident!r}: meld ids are written in capitals, "
            f"like 'meld {ident.upper()}'",
            deal=d,
            action=a,
            kind="meld_case",
            detail=ident,
        )
    return None


def _keyword_case(text: str, deal: int | None, action: int | None) -> RecordError:
    """A keyword of the text form typed with capitals (``Draw``, ``DECK``):
    the notation's words are written in small letters, as the spec has them."""
    return RecordError(
        f"unknown word {text!r}: the notation's words are written in small letters, "
        f"like {text.lower()!r}",
        deal=deal,
        action=action,
        line_in_json=action is None,
        kind="keyword_case",
        detail=text,
    )


def notation_mistake(exc: RecordError) -> dict[str, str] | None:
    """A mistake of a record typed by hand, for a front end to word it
    (``replay.reason_`` and the ``mistake``, its other keys the sentence's
    particulars): ``{"mistake": "trick_number", "text": "1)", "number": "1"}``,
    ``{"mistake": "meld_alone"}``, ``{"mistake": "keyword_case", "text":
    "Draw", "keyword": "draw"}``, ``{"mistake": "meld_case", "text": "kqs",
    "meld": "KQS"}``, ``{"mistake": "card_capitals", "text":
    "qs", "card": "QS"}``, ``{"mistake": "card_french", "text": "RC",
    "fix": "K", "letter": "R"}``; ``None`` for any other error."""
    if exc.kind == "trick_number":
        text = exc.detail or ""
        return {"mistake": "trick_number", "text": text, "number": text.rstrip("):")}
    if exc.kind == "keyword_case":
        text = exc.detail or ""
        return {"mistake": "keyword_case", "text": text, "keyword": text.lower()}
    if exc.kind == "meld_alone":
        return {"mistake": "meld_alone"}
    if exc.kind == "meld_case":
        text = exc.detail or ""
        return {"mistake": "meld_case", "text": text, "meld": text.upper()}
    fix = card_fix(exc.detail) if exc.kind in ("bad_action", "bad_deck") else None
    if fix is None or exc.detail is None:
        return None
    if fix[0] == "capitals":
        return {"mistake": "card_capitals", "text": exc.detail, "card": fix[1]}
    letter = exc.detail.strip()[:-1].upper()
    return {"mistake": "card_french", "text": exc.detail, "fix": fix[1], "letter": letter}


def error_place(exc: RecordError) -> list[tuple[str, int]]:
    """Where a record's fault is, as a player counts and a front end words
    it (``replay.at_`` and the first item): the line of a text record, the
    deal counted from 1, then the trick of a move the rules refuse (1-16,
    :func:`_trick`), else the action counted from 1; ``[("line", 7), ("deal",
    1), ("trick", 2)]``, ``[]`` for a fault of the whole file."""
    where = [] if exc.line is None else [("line", exc.line)]
    if exc.deal is not None:
        where.append(("deal", exc.deal + 1))
        if exc.trick is not None:
            where.append(("trick", exc.trick))
        elif exc.action is not None:
            where.append(("action", exc.action + 1))
    return where


def _out_of_place(line: str, deal: int) -> RecordError:
    """A text record's line that is neither a header nor in a deal: before
    the first ``deal`` line, or between a ``deal`` line and its ``deck``."""
    if deal < 0:
        return RecordError(
            f"unexpected {line!r} before the first 'deal' line",
            line_in_json=True,
            kind="not_header",
            detail=line,
        )
    return RecordError(
        f"the deal's 'deck' line must come before its actions, got {line!r}",
        deal=deal,
        line_in_json=True,
        kind="no_deck",
    )


def _int_or_text(text: str) -> object:
    return int(text) if text.lstrip("-").isdigit() else text


#: A header line's key and its value: the first space or tab between them.
_KEY_SPACE = re.compile(r"[ \t]+")
#: Between two quoted names: white space, or a comma with white space around.
_NAME_GAP = re.compile(r"\s*,\s*|\s+")


def _split_comment(raw: str) -> tuple[str, str | None]:
    """A text line's content and its ``#`` comment (``None`` without one;
    ``""`` for a bare ``#``). A ``#`` inside a double-quoted name (the
    ``players`` line, JSON strings) belongs to the name."""
    quoted = escaped = False
    for i, char in enumerate(raw):
        if escaped:
            escaped = False
        elif quoted and char == "\\":
            escaped = True
        elif char == '"':
            quoted = not quoted
        elif char == "#" and not quoted:
            return raw[:i], raw[i + 1 :].strip()
    return raw, None


def _players_from_text(text: str | None) -> object:
    """The ``players`` line's quoted names: JSON strings one after the
    other, apart by white space or a comma."""
    if text is None:
        return None
    text = text.strip()
    decoder = json.JSONDecoder()
    names: list[object] = []
    at = 0
    try:
        while True:
            if not text.startswith('"', at):  # strings only: nothing to nest
                raise ValueError("not a quoted name")
            name, at = decoder.raw_decode(text, at)
            names.append(name)
            gap = _NAME_GAP.match(text, at)
            if gap is None or at == len(text):
                break
            at = gap.end()
    except ValueError:
        at = -1
    if at != len(text):
        raise RecordError(
            f"players: expected two quoted names, got {text[:80]!r}", kind="bad_players"
        )
    return names


# -- writing -------------------------------------------------------------------


def write_atomic(path: str | os.PathLike[str], text: str) -> None:
    """Write ``text`` atomically (:func:`marjolet.outputs.write_atomic`)."""
    outputs.write_atomic(path, text)


def saved_text(record: Record, path: str | os.PathLike[str], *, form: str | None = None) -> str:
    """What :func:`save` writes: the form follows ``form`` or the file
    suffix (``.json`` or anything else for text)."""
    if form is None:
        form = "json" if str(path).endswith(".json") else "text"
    return record.dumps() if form == "json" else record.to_text()


def save(record: Record, path: str | os.PathLike[str], *, form: str | None = None) -> None:
    """Save atomically (:func:`saved_text`)."""
    write_atomic(path, saved_text(record, path, form=form))


# -- replay --------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class DealResult:
    dealer: int
    trump: int
    complete: bool
    score: tuple[int, int]
    breakdown: tuple[Breakdown, Breakdown]

    def to_json(self) -> dict[str, Any]:
        return {
            "dealer": self.dealer,
            "trump": SUITS[self.trump],
            "complete": self.complete,
            "score": list(self.score),
            "breakdown": [b.to_json() for b in self.breakdown],
        }


@dataclass(frozen=True, slots=True)
class ReplayResult:
    """What ``marjolet replay --json`` prints (record.md, "Replay result")."""

    deals: tuple[DealResult, ...]
    totals: tuple[int, int]
    winner: int | None

    def to_json(self) -> dict[str, Any]:
        return {
            "deals": [d.to_json() for d in self.deals],
            "totals": list(self.totals),
            "winner": self.winner,
        }


def to_match(record: Record) -> Match:
    """Replay a record into a :class:`Match` (raises :class:`RecordError`,
    with the line of a text record's fault)."""
    match = Match(record.rules, first_dealer=record.first_dealer, players=record.players)
    for d, deal_record in enumerate(record.deals):
        if match.deal is not None and not match.deal.is_over:
            raise RecordError(
                f"R22: deal {d - 1} is unfinished but is not the last deal",
                deal=d - 1,
                line=_source_line(record, d),  # where the next deal starts, as read
                kind="unfinished_deal",
            )
        try:
            match.start_deal(deal_record.deck)
        except MatchOverError as exc:
            totals = " ".join(str(t) for t in match.totals)
            raise RecordError(
                str(exc),
                deal=d,
                line=_source_line(record, d),
                kind="match_decided",
                detail=totals,
            ) from None
        except MarjoletError as exc:
            raise RecordError(str(exc), deal=d, line=_source_line(record, d)) from None
        for a, action in enumerate(deal_record.actions):
            try:
                match.play(action)
            except IllegalActionError as exc:
                raise RecordError(
                    str(exc),
                    deal=d,
                    action=a,
                    trick=_trick(match, action),
                    line=_source_line(record, d, a),
                    why=exc.why,
                ) from None
    return match


def _source_line(record: Record, d: int, a: int | None = None) -> int | None:
    """The line of a text record's deal ``d`` (its ``deck``) or of its
    action ``a``; ``None`` when the record was not read from text."""
    lines = record.source_lines
    if lines is None or not 0 <= d < len(lines):
        return None
    deck, actions = lines[d]
    if a is None:
        return deck
    return actions[a] if 0 <= a < len(actions) else None


def _trick(match: Match, action: int) -> int | None:
    """The trick a refused action belongs to, for an error's reader: the
    trick being played, but for a meld, ``dix`` or ``draw`` refused
    between two tricks (no window open, no card led) the trick just
    played, after which the record writes it (``12. JH AH draw``)."""
    deal = match.deal
    if deal is None:
        return None
    between = not deal.in_window and deal.lead is None and not deal.is_over
    if action >= MELD_BASE and between and deal.tricks_played > 0:
        return deal.tricks_played
    return deal.trick_number


def result_of(match: Match) -> ReplayResult:
    """The scores of a match so far, by deal and source."""
    deals = []
    for d in match.deals:
        deals.append(
            DealResult(
                dealer=d.dealer,
                trump=d.trump,
                complete=d.is_over,
                score=d.points,
                breakdown=(d.breakdown(0), d.breakdown(1)),
            )
        )
    return ReplayResult(tuple(deals), match.running_totals, match.winner)


def replay(record: Record) -> ReplayResult:
    """Check a record against the rules and score it (record.md)."""
    return result_of(to_match(record))


def format_result_table(record: Record, result: ReplayResult) -> str:
    """The readable per-deal score table of ``marjolet replay``."""
    players = record.players or ("player 0", "player 1")
    column = name_column(players)
    head = (
        f"{'deal':>4} {'dealer':>6} {'trump':>5}  {'player':<{len(column[0])}} "
        f"{'cards':>5} {'melds':>5} "
        f"{'dix':>3} {'last card':>9} {'last trick':>10} {'all six':>7} {'score':>5} {'total':>5}"
    )
    lines = [f"rules: {_rules_text(record.rules)}", head, "-" * len(head)]
    totals = [0, 0]
    for i, deal in enumerate(result.deals):
        for p in (0, 1):
            b = deal.breakdown[p]
            totals[p] += deal.score[p]
            prefix = f"{i:>4} {deal.dealer:>6} {SUITS[deal.trump]:>5}" if p == 0 else " " * 17
            lines.append(
                f"{prefix}  {column[p]} {b.cards:>5} {b.melds:>5} {b.dix:>3} "
                f"{b.last_card:>9} {b.last_trick:>10} {b.all_tricks:>7} {deal.score[p]:>5} "
                f"{totals[p]:>5}"
            )
        if not deal.complete:
            lines.append(" " * 19 + "(deal in progress)")
    if result.winner is None:
        outcome = "match not decided"
    elif record.players is None:
        outcome = f"winner: player {result.winner}"
    else:  # the seat too: two players may bear one name ("random" against "random")
        outcome = f"winner: player {result.winner} ({printable_name(players[result.winner])})"
    lines.append(f"totals {result.totals[0]} - {result.totals[1]}; {outcome}")
    return "\n".join(lines)
