"""The frozen rule set: profiles ``classic`` and ``encyclopedia`` and every
variation of rules.md as a field that combines freely with the others.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from marjolet.errors import RulesError

TRUMP_JACK = "trump-jack"
SAME_SUIT = "same-suit"
JACK_QUEEN_MODES = (TRUMP_JACK, SAME_SUIT)
DEAL_PATTERNS = ((3, 3), (2, 2, 2))


@dataclass(frozen=True, slots=True)
class Rules:
    """One complete rule set (rules.md, "Profiles and variations").

    ``profile`` names the profile the settings started from; the other fields
    may override it. Build one with :meth:`profile_named`, :meth:`from_json`
    or :meth:`replace`.
    """

    profile: str = "classic"
    #: Batches of the deal, elder first (R4): ``(3, 3)`` or ``(2, 2, 2)``.
    deal_pattern: tuple[int, ...] = (3, 3)
    #: Bonus for winning all six tricks 11-16 (R17): 50 classic, 40 encyclopedia.
    all_tricks_bonus: int = 50
    #: Whether an unexchanged seven of trumps scores 10 when played (R19).
    dix_on_play: bool = True
    #: ``trump-jack`` (R11) or ``same-suit`` (variation of seed 001).
    jack_queen: str = TRUMP_JACK
    #: Match target (R22).
    target: int = 500
    #: At most one declaration per meld window (the dix does not count).
    one_meld_per_window: bool = False

    def __post_init__(self) -> None:
        if self.profile not in PROFILE_NAMES:
            raise RulesError(
                f"unknown profile {self.profile!r} (known: {', '.join(PROFILE_NAMES)})",
                kind="unknown_profile",
            )
        if tuple(self.deal_pattern) not in DEAL_PATTERNS:
            raise _bad_value(
                "deal_pattern", f"must be [3, 3] or [2, 2, 2], got {self.deal_pattern!r}"
            )
        object.__setattr__(self, "deal_pattern", tuple(self.deal_pattern))
        if not _is_int(self.all_tricks_bonus) or self.all_tricks_bonus < 0:
            raise _bad_value(
                "all_tricks_bonus", f"must be an integer >= 0, got {self.all_tricks_bonus!r}"
            )
        if not _is_int(self.target) or self.target <= 0:
            raise _bad_value("target", f"must be an integer > 0, got {self.target!r}")
        if not isinstance(self.dix_on_play, bool):
            raise _bad_value("dix_on_play", f"must be true or false, got {self.dix_on_play!r}")
        if not isinstance(self.one_meld_per_window, bool):
            raise _bad_value(
                "one_meld_per_window", f"must be true or false, got {self.one_meld_per_window!r}"
            )
        if self.jack_queen not in JACK_QUEEN_MODES:
            raise _bad_value(
                "jack_queen", f"must be 'trump-jack' or 'same-suit', got {self.jack_queen!r}"
            )

    @classmethod
    def profile_named(cls, name: str) -> Rules:
        """The rule set of a named profile (``classic`` or ``encyclopedia``)."""
        try:
            return PROFILES[name]
        except (KeyError, TypeError):
            raise RulesError(
                f"unknown profile {name!r} (known: {', '.join(PROFILE_NAMES)})",
                kind="unknown_profile",
            ) from None

    def replace(self, **changes: Any) -> Rules:
        """A copy with some settings changed (validated)."""
        unknown = set(changes) - set(SETTING_NAMES) - {"profile"}
        if unknown:
            key = sorted(unknown)[0]
            raise RulesError(f"unknown rule setting {key!r}", kind="unknown_key", detail=key)
        return dataclasses.replace(self, **changes)

    @classmethod
    def from_json(cls, value: object) -> Rules:
        """Read the ``rules`` value of a record (record.md): a profile name or
        an object with ``profile`` and optional overrides, validated strictly."""
        if value is None:
            return CLASSIC
        if isinstance(value, str):
            return cls.profile_named(value)
        if not isinstance(value, Mapping):
            raise RulesError(
                f"rules must be a profile name or an object, got {value!r}", kind="not_rules"
            )
        if "profile" not in value:
            raise RulesError("rules object needs a 'profile' key", kind="no_profile")
        base = cls.profile_named(value["profile"])
        changes: dict[str, Any] = {}
        for key, raw in value.items():
            if key == "profile":
                continue
            if key not in SETTING_NAMES:
                raise RulesError(f"unknown rule key {key!r}", kind="unknown_key", detail=str(key))
            if key == "deal_pattern":
                if not isinstance(raw, list | tuple) or not all(_is_int(x) for x in raw):
                    raise _bad_value("deal_pattern", f"must be [3, 3] or [2, 2, 2], got {raw!r}")
                raw = tuple(raw)
            changes[key] = raw
        return dataclasses.replace(base, **changes)

    def to_json(self) -> dict[str, Any]:
        """Every setting, as the bot protocol's ``rules`` object."""
        return {
            "profile": self.profile,
            "all_tricks_bonus": self.all_tricks_bonus,
            "dix_on_play": self.dix_on_play,
            "jack_queen": self.jack_queen,
            "deal_pattern": list(self.deal_pattern),
            "target": self.target,
            "one_meld_per_window": self.one_meld_per_window,
        }

    def to_record(self) -> str | dict[str, Any]:
        """The shortest record form: the profile name, or the profile and the
        settings that differ from it."""
        base = PROFILES[self.profile]
        if self == base:
            return self.profile
        out: dict[str, Any] = {"profile": self.profile}
        for key in SETTING_NAMES:
            if getattr(self, key) != getattr(base, key):
                value = getattr(self, key)
                out[key] = list(value) if isinstance(value, tuple) else value
        return out

    def to_text(self) -> str:
        """The text form of a record's ``rules`` line: the profile name, then
        ``key=value`` for each setting that differs from it
        (``encyclopedia deal_pattern=2-2-2``); :meth:`parse` reads it back."""
        form = self.to_record()
        if isinstance(form, str):
            return form
        parts = [form["profile"]]
        for key in SETTING_NAMES:
            if key in form:
                value = form[key]
                if isinstance(value, bool):
                    text = "true" if value else "false"
                elif isinstance(value, list):
                    text = "-".join(str(x) for x in value)
                else:
                    text = str(value)
                parts.append(f"{key}={text}")
        return " ".join(parts)

    @classmethod
    def parse(cls, text: str) -> Rules:
        """Read :meth:`to_text`'s form (``classic``, ``classic target=1000``)."""
        return cls.from_json(text_settings(text))

    def describe(self) -> str:
        """A human-readable summary, one setting a line."""
        pattern = "-".join(str(n) for n in self.deal_pattern)
        lines = [
            f"profile              {self.profile}",
            f"deal_pattern         {pattern}",
            f"all_tricks_bonus     {self.all_tricks_bonus}",
            f"dix_on_play          {str(self.dix_on_play).lower()}",
            f"jack_queen           {self.jack_queen}",
            f"target               {self.target}",
            f"one_meld_per_window  {str(self.one_meld_per_window).lower()}",
        ]
        return "\n".join(lines)


#: The fixed scores every profile shares: the seven of trumps, turned up
#: by the dealer, exchanged for the face-up card or (``dix_on_play``) played
#: (R18, R19); the last card of the stock, the face-up card, to whoever
#: takes it (R15); the last trick of the deal (R17).
SEVEN_POINTS = 10
LAST_CARD_POINTS = 10
LAST_TRICK_POINTS = 10


def require_rules(rules: object) -> Rules:
    """``rules`` itself when it is a :class:`Rules`, else a :class:`RulesError`
    saying how to make one (a profile name or a record's rules object is
    read by ``Rules.profile_named`` and ``Rules.from_json``, not taken as is)."""
    if isinstance(rules, Rules):
        return rules
    if isinstance(rules, str):
        how = f"Rules.profile_named({rules!r})"
    elif isinstance(rules, dict):
        how = "Rules.from_json(...) for a rules object"
    else:
        how = "Rules.profile_named('classic')"
    raise RulesError(f"rules must be a Rules such as {how}, got {rules!r}")


def match_decided(totals: tuple[int, int], target: int) -> bool:
    """Whether a match with these totals after a deal is over (R22): a
    total has reached the target and the two differ (level totals at or
    above the target play one more deal)."""
    return (totals[0] >= target or totals[1] >= target) and totals[0] != totals[1]


#: The match targets offered by the front ends (R22; any positive target is valid).
TARGETS = (500, 1000)


def setting_choices() -> dict[str, list[Any]]:
    """The choices a front end offers for the settings that have a few
    values (the web lobby's option lists)."""
    return {
        "deal_pattern": [list(p) for p in DEAL_PATTERNS],
        "jack_queen": list(JACK_QUEEN_MODES),
        "target": list(TARGETS),
    }


def text_settings(text: str) -> str | dict[str, Any]:
    """The record form (:meth:`Rules.to_record`) of a rules text, unchecked
    beyond its syntax: a profile name, or the profile and its overrides."""
    parts = text.split()
    if not parts:
        raise RulesError("empty rules text (expected a profile name, e.g. 'classic')", kind="empty")
    out: dict[str, Any] = {"profile": parts[0]}
    for part in parts[1:]:
        key, eq, value = part.partition("=")
        if not eq:
            raise RulesError(
                f"rules: expected key=value, got {part!r}", kind="not_key_value", detail=part
            )
        if key == "profile":
            raise RulesError(
                f"rules: the profile is the first word, got {part!r}",
                kind="profile_not_first",
                detail=part,
            )
        if key in out:
            raise RulesError(
                f"rules: {key!r} is given twice, got {part!r}", kind="key_twice", detail=key
            )
        parsed: object
        if value in ("true", "false"):
            parsed = value == "true"
        elif key == "deal_pattern":
            parsed = [_int_or_text(x) for x in value.split("-")]
        else:
            parsed = _int_or_text(value)
        out[key] = parsed
    return out if len(out) > 1 else parts[0]


def _int_or_text(text: str) -> object:
    return int(text) if text.lstrip("-").isdigit() else text


def _bad_value(setting: str, must: str) -> RulesError:
    """A setting's value out of its range: ``"target must be ..."``."""
    return RulesError(f"{setting} {must}", kind="bad_value", detail=setting)


def _is_int(x: object) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


SETTING_NAMES = (
    "deal_pattern",
    "all_tricks_bonus",
    "dix_on_play",
    "jack_queen",
    "target",
    "one_meld_per_window",
)
PROFILE_NAMES = ("classic", "encyclopedia")

#: The settings a *new* match may take, the same on the command line and in
#: the web API (inclusive bounds). A record with other values still replays:
#: these bound what a person or a page can ask the program to play, so that
#: no match is decided in one deal by mistake or runs on for ever.
NEW_MATCH_LIMITS: dict[str, tuple[int, int]] = {
    "target": (100, 10_000),
    "all_tricks_bonus": (0, 1_000),
}


def beyond_new_match_limits(values: Mapping[str, int | None]) -> tuple[str, int, int, int] | None:
    """The first setting of ``values`` outside :data:`NEW_MATCH_LIMITS`, as
    ``(setting, low, high, value)``, or ``None``; a setting missing or
    ``None`` is not checked. Each caller words the refusal its own way."""
    for key, (low, high) in NEW_MATCH_LIMITS.items():
        value = values.get(key)
        if value is not None and not low <= value <= high:
            return key, low, high, value
    return None


def check_new_match(rules: Rules) -> Rules:
    """``rules`` if a new match may be played with them, else a
    :class:`RulesError` naming the setting and its limits."""
    beyond = beyond_new_match_limits({key: getattr(rules, key) for key in NEW_MATCH_LIMITS})
    if beyond is not None:
        key, low, high, value = beyond
        raise RulesError(f"{key} must be {low}-{high} for a new match, got {value}")
    return rules


CLASSIC = Rules()
ENCYCLOPEDIA = Rules(profile="encyclopedia", all_tricks_bonus=40, dix_on_play=False)
PROFILES = {"classic": CLASSIC, "encyclopedia": ENCYCLOPEDIA}
