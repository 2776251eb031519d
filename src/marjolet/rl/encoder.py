"""The observation tensor and the action mask shared by every adapter.

:func:`encode` turns an :class:`~marjolet.observation.Observation` (what one
seat knows, R23) into a flat ``float32`` vector of :data:`OBSERVATION_SIZE`
entries. It reads the observation only, never a :class:`~marjolet.engine.Deal`,
so no hidden card can leak into it: two deals that differ only in cards
hidden from a seat give that seat the same tensor (tested).

Everything is *relative to the observing seat*: "my" fields come before the
opponent's, so one policy can play either seat. The layout is the table
:data:`FIELDS` (name, size, meaning, bound); ``docs/rl.md`` prints the same
table with offsets, and a test keeps the two in step.

Actions are the engine's stable ids (:mod:`marjolet.actions`): 0-31 play a
card, 32-43 declare meld ``id - 32``, 44 ``dix``, 45 ``draw``, so every
adapter's action space is ``Discrete(46)``; :func:`action_mask` marks the
legal ones.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from marjolet.actions import ACTION_COUNT
from marjolet.engine import LATE_TRICKS
from marjolet.errors import MarjoletError
from marjolet.observation import Observation
from marjolet.rules import SAME_SUIT, Rules

FloatArray = npt.NDArray[np.float32]
MaskArray = npt.NDArray[np.int8]

#: Scale of the point fields: points are divided by this (so 1.0 = 100 points).
POINT_SCALE = 100.0
#: Match totals are divided by the target and capped here.
TOTAL_CAP = 2.0
#: Marks a field whose bound follows from the rules (see :func:`observation_high`).
_RULES_BOUND = -1.0


@dataclass(frozen=True, slots=True)
class Field:
    """One block of the observation tensor."""

    name: str
    offset: int
    size: int
    #: Largest value an entry can take (-1: it follows from the rules, see
    #: :func:`observation_high`).
    high: float
    meaning: str


_CARD_PLANES = (
    ("hand", "my hand, exposed cards included (one bit per card id 0-31)"),
    ("my_exposed", "my exposed cards: declared in a meld and still in hand (R13)"),
    ("opp_exposed", "the opponent's exposed cards (R13)"),
    ("opp_known", "cards known to be in the opponent's hand: exposed ones, the indicator "
                  "the opponent took by a dix exchange, the whole hand once the stock is "
                  "empty (R23)"),
    ("unseen", "cards whose place I cannot know: in the opponent's hand or in the stock"),
    ("my_won", "cards I captured in tricks"),
    ("opp_won", "cards the opponent captured in tricks"),
    ("lead", "the card led to the current trick (all zero until one is led)"),
    ("indicator", "the face-up card under the stock (the seven after an exchange); "
                  "all zero once taken"),
)

_SPECS: tuple[tuple[str, int, float, str], ...] = (
    *((name, 32, 1.0, meaning) for name, meaning in _CARD_PLANES),
    ("trump", 4, 1.0, "trump suit, one-hot in the order C D H S"),
    ("my_melds", 12, 1.0, "meld ids I scored this deal, in the order "
                          "4A 4T 4K 4Q KQC KQD KQH KQS JQC JQD JQH JQS (R11, R12)"),
    ("opp_melds", 12, 1.0, "meld ids the opponent scored this deal, same order"),
    ("my_turn", 1, 1.0, "1 if I am the player to act"),
    ("in_window", 1, 1.0, "1 while the player to act is in the meld window of a won trick "
                          "(R9, R10)"),
    ("stock_empty", 1, 1.0, "1 in phase 2, tricks 11-16 (R16)"),
    ("i_am_dealer", 1, 1.0, "1 if I dealt this deal (the opponent leads trick 1)"),
    ("my_seven", 1, 1.0, "1 if I earned the seven of trumps' 10 (R18-R20)"),
    ("opp_seven", 1, 1.0, "1 if the opponent earned the seven of trumps' 10"),
    ("stock_size", 1, 1.0, "cards left to draw, indicator included, / 20"),
    ("tricks_played", 1, 1.0, "completed tricks / 16"),
    ("my_points", 1, _RULES_BOUND, "my deal points so far / 100 (R21)"),
    ("opp_points", 1, _RULES_BOUND, "the opponent's deal points so far / 100"),
    ("my_late_tricks", 1, 1.0, "tricks 11-16 I won / 6 (R17)"),
    ("opp_late_tricks", 1, 1.0, "tricks 11-16 the opponent won / 6"),
    ("opp_hand_size", 1, 1.0, "cards in the opponent's hand / 6"),
    ("my_total", 1, TOTAL_CAP, "my match total before this deal / target (R22), at most 2 "
                               "(only endless ties at the target could pass it); "
                               "0 in deal episodes"),
    ("opp_total", 1, TOTAL_CAP, "the opponent's match total before this deal / target, at most 2"),
    ("rule_dix_on_play", 1, 1.0, "rules: an unexchanged seven scores when played (R19)"),
    ("rule_same_suit", 1, 1.0, "rules: JQs is jack + queen of the same suit (variation)"),
    ("rule_all_tricks_bonus", 1, _RULES_BOUND, "rules: the all-six-tricks bonus / 50 (R17)"),
    ("rule_one_meld", 1, 1.0, "rules: at most one declaration per window (variation)"),
)


def _build_fields() -> tuple[Field, ...]:
    fields = []
    offset = 0
    for name, size, high, meaning in _SPECS:
        fields.append(Field(name, offset, size, float(high), meaning))
        offset += size
    return tuple(fields)


#: The layout of the observation tensor, in order.
FIELDS = _build_fields()
#: Field by name.
FIELD = {f.name: f for f in FIELDS}
#: Number of entries of the observation tensor.
OBSERVATION_SIZE = FIELDS[-1].offset + FIELDS[-1].size
#: Number of actions (the engine's stable ids 0-45).
NUM_ACTIONS = ACTION_COUNT

_PLANES = len(_CARD_PLANES) * 32
_O = {f.name: f.offset for f in FIELDS}
_TRUMP = _O["trump"]
_MY_MELDS = _O["my_melds"]
_OPP_MELDS = _O["opp_melds"]
_MELD_BITS = np.arange(12, dtype=np.uint32)


def observation_high(rules: Rules) -> FloatArray:
    """The upper bound of every entry under ``rules`` (the lower bound is 0
    everywhere): the observation space of an adapter."""
    from marjolet.rl.episode import max_deal_score

    high = np.empty(OBSERVATION_SIZE, dtype=np.float32)
    for f in FIELDS:
        high[f.offset : f.offset + f.size] = f.high
    high[_O["my_points"]] = high[_O["opp_points"]] = max_deal_score(rules) / POINT_SCALE
    high[_O["rule_all_tricks_bonus"]] = max(1.0, rules.all_tricks_bonus / 50.0)
    return high


def encode(obs: Observation, out: FloatArray | None = None) -> FloatArray:
    """The observation tensor of ``obs`` (see :data:`FIELDS`).

    Writes into ``out`` when given (it must have :data:`OBSERVATION_SIZE`
    ``float32`` entries) and returns it; otherwise returns a new array.
    """
    if out is None:
        out = np.zeros(OBSERVATION_SIZE, dtype=np.float32)
    else:
        out.fill(0.0)
    me = obs.seat
    opp = me ^ 1
    lead = obs.lead
    indicator = obs.indicator
    masks = np.array(
        (
            obs.hand.mask,
            obs.exposed[me].mask,
            obs.exposed[opp].mask,
            obs.opponent_known.mask,
            obs.unseen.mask,
            obs.won[me].mask,
            obs.won[opp].mask,
            0 if lead is None else 1 << lead,
            0 if indicator is None else 1 << indicator,
        ),
        dtype="<u4",
    )
    out[:_PLANES] = np.unpackbits(masks.view(np.uint8), bitorder="little")
    out[_TRUMP + obs.trump] = 1.0
    out[_MY_MELDS : _MY_MELDS + 12] = (obs.melds[me] >> _MELD_BITS) & 1
    out[_OPP_MELDS : _OPP_MELDS + 12] = (obs.melds[opp] >> _MELD_BITS) & 1
    o = _O
    out[o["my_turn"]] = obs.to_move == me
    out[o["in_window"]] = obs.in_window
    out[o["stock_empty"]] = obs.stock_size == 0
    out[o["i_am_dealer"]] = obs.dealer == me
    seven = obs.seven_scored_by
    out[o["my_seven"]] = seven == me
    out[o["opp_seven"]] = seven == opp
    out[o["stock_size"]] = obs.stock_size / 20.0
    out[o["tricks_played"]] = obs.tricks_played / 16.0
    out[o["my_points"]] = obs.points[me] / POINT_SCALE
    out[o["opp_points"]] = obs.points[opp] / POINT_SCALE
    public = obs.public_state
    if public:
        out[o["my_late_tricks"]] = public[LATE_TRICKS + me] / 6.0
        out[o["opp_late_tricks"]] = public[LATE_TRICKS + opp] / 6.0
    out[o["opp_hand_size"]] = obs.hand_sizes[opp] / 6.0
    rules = obs.rules
    out[o["my_total"]] = min(obs.totals[me] / rules.target, TOTAL_CAP)
    out[o["opp_total"]] = min(obs.totals[opp] / rules.target, TOTAL_CAP)
    _encode_rules(rules, out)
    return out


def encode_dealing(
    seat: int,
    dealer: int,
    hand: int,
    indicator: int | None,
    rules: Rules,
    out: FloatArray | None = None,
) -> FloatArray:
    """The tensor of a seat while the deck is still being dealt, before any
    :class:`Observation` exists (OpenSpiel's chance nodes): the cards the
    seat received so far (mask ``hand``), the indicator once turned up, and
    the seat's role and the rules; every other field is zero."""
    if out is None:
        out = np.zeros(OBSERVATION_SIZE, dtype=np.float32)
    else:
        out.fill(0.0)
    o = _O
    hand_bits = np.array([hand], dtype="<u4").view(np.uint8)
    out[o["hand"] : o["hand"] + 32] = np.unpackbits(hand_bits, bitorder="little")
    if indicator is not None:
        out[o["indicator"] + indicator] = 1.0
        out[_TRUMP + (indicator >> 3)] = 1.0
        out[o["stock_size"]] = 1.0
    out[o["i_am_dealer"]] = dealer == seat
    _encode_rules(rules, out)
    return out


def _encode_rules(rules: Rules, out: FloatArray) -> None:
    o = _O
    out[o["rule_dix_on_play"]] = rules.dix_on_play
    out[o["rule_same_suit"]] = rules.jack_queen == SAME_SUIT
    out[o["rule_all_tricks_bonus"]] = rules.all_tricks_bonus / 50.0
    out[o["rule_one_meld"]] = rules.one_meld_per_window


def action_mask(legal: Sequence[int]) -> MaskArray:
    """An ``int8`` vector of :data:`NUM_ACTIONS` entries, 1 for each legal id."""
    mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
    if legal:
        mask[np.asarray(legal, dtype=np.intp)] = 1
    return mask


def describe(tensor: npt.ArrayLike) -> dict[str, list[float]]:
    """The tensor split by field name (non-zero fields only), for debugging.

    ``tensor`` is one observation (an array or a list of its numbers; a
    batch of one row will do); anything else is a one-line
    :class:`~marjolet.errors.MarjoletError` naming its shape.
    """
    wanted = f"describe takes one observation tensor of {OBSERVATION_SIZE} numbers"
    if isinstance(tensor, dict):
        raise MarjoletError(f"{wanted}, got a dict (PettingZoo's: pass its 'observation')")
    try:
        array = np.asarray(tensor, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise MarjoletError(f"{wanted}, got {type(tensor).__name__}: {exc}") from None
    if array.ndim == 0:  # None, a number: no tensor at all
        raise MarjoletError(f"{wanted}, got {tensor!r}"[:200])
    if array.shape not in ((OBSERVATION_SIZE,), (1, OBSERVATION_SIZE)):
        batch = " (describe a batch's rows one at a time)" if array.ndim == 2 else ""
        raise MarjoletError(
            f"{wanted} (shape ({OBSERVATION_SIZE},)), got shape {array.shape}{batch}"
        )
    flat = array.reshape(OBSERVATION_SIZE)
    out: dict[str, list[float]] = {}
    for f in FIELDS:
        values = flat[f.offset : f.offset + f.size]
        if values.any():
            out[f.name] = [float(v) for v in values]
    return out


def field_table() -> str:
    """The layout as a Markdown table (offset, size, name, meaning), as in ``docs/rl.md``."""
    lines = ["| offset | size | field | meaning |", "|---:|---:|---|---|"]
    for f in FIELDS:
        lines.append(f"| {f.offset} | {f.size} | `{f.name}` | {f.meaning} |")
    return "\n".join(lines)
