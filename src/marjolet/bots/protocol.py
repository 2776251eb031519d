"""The ``marjolet-bot/1`` messages, both ways (``shared/spec/bot-protocol.md``).

A bot in any language plays through one JSON object per line on its
standard input and output. This module is the part both sides share:

- host side: :func:`act_message` builds an ``act`` from a seat's
  :class:`~marjolet.observation.Observation` *only*, so the bot learns what
  rule R23 lets the seat know and nothing more; :func:`parse_identity` and
  :func:`parse_action_answer` check the bot's answers exactly as the spec
  demands;
- bot side: :func:`parse_act` validates an ``act`` and
  :func:`observation_from_act` turns it back into the very
  :class:`~marjolet.observation.Observation` the host had, so that any of
  our in-process bots can answer it (``marjolet bot-serve``).

Rebuilding the observation needs a deal to replay the public actions on.
:func:`rebuild_deal` deals a world consistent with what the seat knows
(:func:`marjolet.decks.consistent_deck`: its dealt hand and its own draws
at their places, every card the opponent played or declared in the
opponent's hand, or drawn by it, before it was used; the rest at random).
Every consistent world gives the same observation, since an observation
holds nothing hidden.

Everything here is standard library only; process handling lives in
:mod:`marjolet.bots.external` (host) and :mod:`marjolet.bots.serve`
(bot).
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from marjolet.actions import ACTION_NAMES, parse_action
from marjolet.cards import CARD_NAMES, display_order, parse_card
from marjolet.decks import consistent_deck
from marjolet.engine import Deal
from marjolet.errors import DealError, MarjoletError
from marjolet.match import dealer_of
from marjolet.observation import Observation, observe
from marjolet.record import printable_name
from marjolet.rules import Rules, match_decided

PROTOCOL = "marjolet-bot/1"
#: Seconds a bot has to answer ``hello`` with its name.
HELLO_TIMEOUT_S = 10.0
#: Longest line either side accepts (an answer is a few dozen bytes, an
#: ``act`` under 2 KiB): a bot that writes more is flooding.
MAX_LINE_BYTES = 64 * 1024
#: Environment variable through which a host may pass its seed for the bot
#: (an optional courtesy: the messages never depend on it).
SEED_ENV = "MARJOLET_BOT_SEED"

class ProtocolError(MarjoletError):
    """A message that breaks ``marjolet-bot/1``: not JSON, a missing or
    malformed field, an action that is not legal, an inconsistent ``act``."""


def answer_timeout(budget_s: float) -> float:
    """How long the host waits for an answer to ``act``: ``max(10 * budget_s, 5)``."""
    return max(10.0 * budget_s, 5.0)


# -- encoding ---------------------------------------------------------------


def encode(message: Mapping[str, Any]) -> bytes:
    """One message as a line: compact JSON, UTF-8, a final newline."""
    return (json.dumps(message, separators=(", ", ": "), ensure_ascii=False) + "\n").encode()


def decode(line: bytes | str, what: str = "message") -> dict[str, Any]:
    """Parse one line into a JSON object, or raise :class:`ProtocolError`
    quoting the start of the line."""
    text = line.decode("utf-8", "replace") if isinstance(line, bytes) else line
    text = text.strip()
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):  # RecursionError: nested too deeply
        raise ProtocolError(f"{what} is not JSON: {_quote(text)}") from None
    if not isinstance(value, dict):
        raise ProtocolError(f"{what} is not a JSON object: {_quote(text)}")
    return value


def _quote(text: str, limit: int = 80) -> str:
    """The start of a bad line for an error message: quoted text, but binary
    input (control bytes, bytes that are not UTF-8) is described, never echoed."""
    if any(ch == "\ufffd" or not (ch.isprintable() or ch == "\t") for ch in text):
        return "binary data, not a line of text"
    return repr(text if len(text) <= limit else text[:limit] + "...")


# -- host -> bot ------------------------------------------------------------


def hello_message() -> dict[str, Any]:
    return {"cmd": "hello", "protocol": PROTOCOL}


def act_message(obs: Observation, legal: Sequence[int], budget_s: float) -> dict[str, Any]:
    """The ``act`` for the seat of ``obs``, built from the observation alone
    (R23): the dealt hand, the indicator turned up, the public actions and
    the seat's own draws, plus the match context."""
    if obs.dealt.mask.bit_count() != 6:
        raise ValueError("act_message needs the seat's dealt hand (an observation of a real deal)")
    return {
        "cmd": "act",
        "seat": obs.seat,
        "first_dealer": dealer_of(obs.dealer, obs.deal_index),  # R3, read backwards
        "deal_index": obs.deal_index,
        "rules": obs.rules.to_json(),
        "totals": list(obs.totals),
        "deal": {
            "dealer": obs.dealer,
            "hand": [CARD_NAMES[c] for c in display_order(obs.dealt.mask)],
            "indicator": CARD_NAMES[obs.turned_up],
            "actions": [ACTION_NAMES[a] for a in obs.actions],
            "draws": [CARD_NAMES[c] for c in obs.draws],
        },
        "legal": [ACTION_NAMES[a] for a in legal],
        "budget_s": budget_s,
    }


def result_message(totals: Sequence[int], winner: int) -> dict[str, Any]:
    """The end of a match (after a forfeit ``winner`` is the other seat)."""
    return {"cmd": "result", "totals": [int(totals[0]), int(totals[1])], "winner": int(winner)}


def quit_message() -> dict[str, Any]:
    return {"cmd": "quit"}


# -- bot -> host ------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class BotIdentity:
    """What a bot says about itself in answer to ``hello``."""

    name: str
    author: str = ""


def identity_message(name: str, author: str = "") -> dict[str, Any]:
    return {"name": name, "author": author, "protocol": PROTOCOL}


def parse_identity(answer: Mapping[str, Any]) -> BotIdentity:
    """Check the answer to ``hello``: a ``name``, and the right protocol if
    one is named."""
    name = printable_name(answer.get("name"))
    if not name:
        given = answer.get("name")
        if "name" not in answer and "action" in answer:  # an answer to an act, early
            problem = "no 'name' (it answers an act: a line written before hello was read?)"
        elif "name" not in answer:
            problem = "no 'name'"
        elif not isinstance(given, str):
            problem = f"a 'name' that is not a string ({json.dumps(given)})"
        else:
            problem = "an empty 'name'"
        raise ProtocolError(f"answer to hello has {problem}: {_quote(json.dumps(answer))}")
    protocol = answer.get("protocol", PROTOCOL)
    if protocol != PROTOCOL:
        raise ProtocolError(f"bot speaks protocol {protocol!r}, not {PROTOCOL!r}")
    return BotIdentity(name, printable_name(answer.get("author", "")))


def parse_hello_answer(line: bytes | str) -> BotIdentity:
    """The program's first line, its answer to ``hello``. A line that is
    not JSON here is most often a banner or a log line printed first, so
    the error says where such lines belong."""
    try:
        answer = decode(line, "answer to hello")
    except ProtocolError as exc:
        raise ProtocolError(
            f"{exc} (a program's first line must be its answer to hello;"
            " write anything else to standard error)"
        ) from None
    return parse_identity(answer)


def action_message(action: int) -> dict[str, Any]:
    return {"action": ACTION_NAMES[action]}


def parse_action_answer(answer: Mapping[str, Any], legal: Sequence[int]) -> int:
    """The action of an answer to ``act``, spelled exactly as one of the
    ``legal`` strings; anything else is a fault."""
    if "action" not in answer:
        raise ProtocolError(f"answer has no 'action' key: {_quote(json.dumps(answer))}")
    text = answer["action"]
    for a in legal:
        if ACTION_NAMES[a] == text:
            return a
    names = " ".join(ACTION_NAMES[a] for a in legal)
    if not isinstance(text, str):
        raise ProtocolError(
            f"action {_quote(json.dumps(text))} is a JSON {_json_type(text)}, not a string:"
            f" answer one of the legal strings [{names}]"
        )
    raise ProtocolError(f"action {_quote(text)} is not one of the legal actions [{names}]")


def _json_type(value: object) -> str:
    """The JSON name of a decoded value's type ("number", "array", ...)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, dict):
        return "object"
    return "array" if isinstance(value, list) else type(value).__name__


# -- bot side: reading an act -------------------------------------------------


@dataclass(frozen=True, slots=True)
class ActRequest:
    """A validated ``act`` message, cards and actions as ids."""

    seat: int
    first_dealer: int
    deal_index: int
    rules: Rules
    totals: tuple[int, int]
    dealer: int
    #: The six cards dealt to the seat, in message order.
    hand: tuple[int, ...]
    #: The card turned up at the start of the deal.
    indicator: int
    actions: tuple[int, ...]
    draws: tuple[int, ...]
    legal: tuple[int, ...]
    budget_s: float


def _get(obj: Mapping[str, Any], key: str, where: str) -> Any:
    if key not in obj:
        raise ProtocolError(f"{where} has no {key!r}")
    return obj[key]


def _int(obj: Mapping[str, Any], key: str, where: str, choices: range | None = None) -> int:
    value = _get(obj, key, where)
    if not isinstance(value, int) or isinstance(value, bool):
        raise ProtocolError(f"{where}: {key!r} must be an integer, got {value!r}")
    if choices is not None and value not in choices:
        raise ProtocolError(
            f"{where}: {key!r} must be {choices.start}-{choices.stop - 1}, got {value!r}"
        )
    return value


def _list(obj: Mapping[str, Any], key: str, where: str) -> list[Any]:
    value = _get(obj, key, where)
    if not isinstance(value, list):
        raise ProtocolError(f"{where}: {key!r} must be a list, got {value!r}")
    return value


def _cards(values: list[Any], key: str, *, distinct: bool = True) -> tuple[int, ...]:
    out = []
    for i, text in enumerate(values):
        try:
            out.append(parse_card(text))
        except (MarjoletError, TypeError):
            raise ProtocolError(f"act: {key}[{i}] is not a card: {text!r}") from None
    if distinct and len(set(out)) != len(out):
        raise ProtocolError(f"act: {key!r} lists a card twice")
    return tuple(out)


def _actions(values: list[Any], key: str) -> tuple[int, ...]:
    out = []
    for i, text in enumerate(values):
        try:
            out.append(parse_action(text))
        except MarjoletError as exc:
            raise ProtocolError(f"act: {key}[{i}]: {exc}") from None
    return tuple(out)


def _rules(value: object) -> Rules:
    """An ``act``'s rules: an object, a profile and its settings (never a
    bare profile name, which a record may hold but a host never sends)."""
    if not isinstance(value, dict):
        shown = f"got {value!r}"
        raise ProtocolError(f"act: 'rules' must be an object (a profile and its settings), {shown}")
    try:
        return Rules.from_json(value)
    except MarjoletError as exc:
        raise ProtocolError(f"act: rules: {exc}") from None


def parse_act(message: Mapping[str, Any]) -> ActRequest:
    """Validate an ``act`` message (every field, with a clear message naming
    the bad one) and convert its cards and actions to ids."""
    where = "act"
    seat = _int(message, "seat", where, range(2))
    first_dealer = _int(message, "first_dealer", where, range(2))
    deal_index = _int(message, "deal_index", where, range(1 << 31))
    rules = _rules(_get(message, "rules", where))
    totals = _totals(message, deal_index, rules)
    deal = _deal_object(message)
    dealer = _dealer(deal, first_dealer, deal_index)
    hand, indicator = _hand_and_indicator(deal)
    actions = _actions(_list(deal, "actions", "act deal"), "actions")
    # a seven drawn, exchanged (R18), then drawn again as the last card
    # appears twice
    draws = _cards(_list(deal, "draws", "act deal"), "draws", distinct=False)
    return ActRequest(
        seat=seat,
        first_dealer=first_dealer,
        deal_index=deal_index,
        rules=rules,
        totals=totals,
        dealer=dealer,
        hand=hand,
        indicator=indicator,
        actions=actions,
        draws=draws,
        legal=_legal(message),
        budget_s=_budget(message),
    )


def _totals(message: Mapping[str, Any], deal_index: int, rules: Rules) -> tuple[int, int]:
    """An ``act``'s match totals: two scores of at least 0, both 0 before
    the first deal, and not yet deciding the match (R22)."""
    totals = _list(message, "totals", "act")
    if len(totals) != 2 or not all(
        isinstance(t, int) and not isinstance(t, bool) and t >= 0 for t in totals
    ):
        raise ProtocolError(f"act: 'totals' must be two integers of at least 0, got {totals!r}")
    if deal_index == 0 and totals != [0, 0]:
        raise ProtocolError(f"act: 'totals' before deal 0 must be [0, 0], got {totals!r}")
    if match_decided((totals[0], totals[1]), rules.target):
        raise ProtocolError(
            f"act: 'totals' {totals!r} already decided a match to {rules.target} (R22)"
        )
    return (totals[0], totals[1])


def _deal_object(message: Mapping[str, Any]) -> dict[str, Any]:
    """An ``act``'s ``deal``, which must be an object."""
    deal = _get(message, "deal", "act")
    if not isinstance(deal, dict):
        raise ProtocolError(f"act: 'deal' must be an object, got {deal!r}")
    return deal


def _dealer(deal: Mapping[str, Any], first_dealer: int, deal_index: int) -> int:
    """The deal's dealer: the one the first dealer and the deal's number
    give (R3)."""
    dealer = _int(deal, "dealer", "act deal", range(2))
    if dealer != dealer_of(first_dealer, deal_index):
        raise ProtocolError(
            f"act: deal {deal_index} of a match whose first dealer is {first_dealer} is dealt "
            f"by {dealer_of(first_dealer, deal_index)}, not {dealer} (R3)"
        )
    return dealer


def _hand_and_indicator(deal: Mapping[str, Any]) -> tuple[tuple[int, ...], int]:
    """The seat's six dealt cards and the card turned up, which is not one
    of them."""
    hand = _cards(_list(deal, "hand", "act deal"), "hand")
    if len(hand) != 6:
        raise ProtocolError(f"act: 'hand' must hold the six dealt cards, got {len(hand)}")
    indicator_text = _get(deal, "indicator", "act deal")
    (indicator,) = _cards([indicator_text], "indicator")
    if indicator in hand:
        raise ProtocolError(f"act: the indicator {CARD_NAMES[indicator]} is also in 'hand'")
    return hand, indicator


def _legal(message: Mapping[str, Any]) -> tuple[int, ...]:
    """The actions the seat may take: at least one, none twice."""
    legal = _actions(_list(message, "legal", "act"), "legal")
    if not legal:
        raise ProtocolError("act: 'legal' is empty")
    if len(set(legal)) != len(legal):
        raise ProtocolError("act: 'legal' lists an action twice")
    return legal


def _budget(message: Mapping[str, Any]) -> float:
    """The seconds the bot may think: a finite number of at least 0."""
    budget = _get(message, "budget_s", "act")
    if (
        not isinstance(budget, int | float)
        or isinstance(budget, bool)
        or not math.isfinite(budget)
        or budget < 0
    ):
        raise ProtocolError(f"act: 'budget_s' must be a number of seconds, got {budget!r}")
    return float(budget)


# -- bot side: the world behind an act -----------------------------------------


def rebuild_deal(req: ActRequest, rng: random.Random) -> Deal:
    """A deal consistent with everything ``req`` tells the seat (the core's
    :func:`marjolet.decks.consistent_deck`), with its public actions
    replayed (checked: an ``act`` that breaks a rule raises
    :class:`ProtocolError`)."""
    try:
        deck = consistent_deck(
            req.rules, req.dealer, req.seat, req.indicator, req.hand, req.draws, req.actions, rng
        )
    except DealError as exc:
        raise ProtocolError(f"act: {exc}") from None
    world = Deal(deck, req.dealer, req.rules)
    for i, a in enumerate(req.actions):
        reason = world.illegal_reason(a)
        if reason is not None:
            raise ProtocolError(f"act: actions[{i}] {ACTION_NAMES[a]!r} is illegal: {reason}")
        world.push(a)
    return world


def observation_from_act(
    req: ActRequest, rng: random.Random | None = None
) -> tuple[Observation, list[int]]:
    """The observation the host had when it wrote ``req``, and the legal
    actions in the engine's order (ascending ids, as in-process bots get
    them). Raises :class:`ProtocolError` when the message contradicts itself
    or the rules (not this seat's turn, wrong draws, wrong ``legal``)."""
    world = rebuild_deal(req, rng if rng is not None else random.Random(0))
    if world.to_move != req.seat:
        who = "nobody (the deal is over)" if world.to_move < 0 else f"seat {world.to_move}"
        raise ProtocolError(f"act: after these actions {who} is to act, not seat {req.seat}")
    if tuple(world.draws(req.seat)) != req.draws:
        shown = " ".join(CARD_NAMES[c] for c in world.draws(req.seat))
        raise ProtocolError(f"act: 'draws' does not match the deal (the last draw gives {shown})")
    legal = world.legal_actions()
    if set(legal) != set(req.legal):
        expected = " ".join(ACTION_NAMES[a] for a in legal)
        raise ProtocolError(f"act: 'legal' does not match the rules (expected [{expected}])")
    obs = observe(world, req.seat, deal_index=req.deal_index, totals=req.totals)
    return obs, legal
