"""One episode of the PettingZoo and Gymnasium adapters: what ends it and
what it pays (standard library only).

``reward`` chooses both:

========  ===========================  =====================================================
mode      episode                      rewards
========  ===========================  =====================================================
deal      one deal (R4-R21)            at the end, each player gets its deal score minus the
                                       opponent's (R21); zero-sum
dense     one deal                     after every action, each player gets the change of
                                       (own points - opponent's points); the sum over the
                                       episode equals the ``deal`` reward
match     a whole match to the target  at the end, +1 to the winner and -1 to the loser
          (R22), deals alternating     (R22 always decides a match)
          the dealer
========  ===========================  =====================================================

Each episode is a :class:`~marjolet.match.Match` seeded from the adapter's
generator, so a seeded ``reset`` replays exactly (R6); without a seed the
shuffles come from a cryptographically strong source.
"""

from __future__ import annotations

import operator
import random
import secrets
from collections.abc import Mapping
from typing import Any

from marjolet.cards import CARD_POINTS
from marjolet.engine import Deal
from marjolet.errors import MarjoletError
from marjolet.match import Match
from marjolet.melds import MELD_VALUES
from marjolet.rules import (
    CLASSIC,
    LAST_CARD_POINTS,
    LAST_TRICK_POINTS,
    SEVEN_POINTS,
    Rules,
)
from marjolet.turns import Turn, TurnDriver

REWARD_MODES = ("deal", "dense", "match")


def rules_arg(rules: Rules | str | Mapping[str, Any] | None) -> Rules:
    """Rules from a :class:`Rules`, a profile name or a record.md rules object."""
    if rules is None:
        return CLASSIC
    if isinstance(rules, Rules):
        return rules
    return Rules.from_json(rules)


def max_deal_score(rules: Rules) -> int:
    """An upper bound of one player's deal score (R21): all card points (80),
    every meld id once (480), the seven, the last card, the last trick (10
    each) and the all-six bonus. Deal-score differences lie within +-this."""
    melds = max(sum(values) for values in MELD_VALUES)
    fixed = SEVEN_POINTS + LAST_CARD_POINTS + LAST_TRICK_POINTS
    return sum(CARD_POINTS) + melds + fixed + rules.all_tricks_bonus


def reward_arg(reward: str) -> str:
    if reward not in REWARD_MODES:
        raise MarjoletError(f"reward must be one of {', '.join(REWARD_MODES)}, got {reward!r}")
    return reward


def action_id(action: Any) -> int:
    """An action given to an adapter as its integer id: an ``int`` or a numpy
    integer (a 0-d integer array too); raise :class:`MarjoletError` quoting
    anything else (a float is not rounded, ``True`` is not action 1)."""
    if isinstance(action, bool):
        raise MarjoletError(f"an action is an integer id (0-45), got the boolean {action!r}")
    try:
        return operator.index(action)
    except TypeError:
        kind = type(action).__name__
        raise MarjoletError(
            f"an action is an integer id (0-45), got {action!r} ({kind})"
        ) from None


def seed_value(seed: Any) -> int:
    """``seed`` as a non-negative ``int`` (ints and numpy integers), or a
    clear error. A negative seed is refused: ``random.Random(-s)`` is
    ``random.Random(s)``, so it would silently replay its positive twin
    (and Gymnasium refuses it too)."""
    try:
        if isinstance(seed, bool):
            raise TypeError
        value = operator.index(seed)
    except TypeError:
        raise MarjoletError(f"seed must be an integer, got {seed!r}") from None
    if value < 0:
        raise MarjoletError(
            f"seed must be 0 or more, got {value} (a negative seed would replay seed {-value})"
        )
    return value


class SeedStream:
    """Seeds for successive episodes: from ``reseed(seed)`` on, reproducible;
    before any seed, cryptographically strong (R6).

    It pickles and deep-copies (so do the environments that hold it): a
    seeded stream with its state, an unseeded one as "unseeded" (the copy
    draws from its own strong source: there is nothing to reproduce)."""

    def __init__(self) -> None:
        self._rng: random.Random = secrets.SystemRandom()

    def __getstate__(self) -> dict[str, Any]:
        seeded = not isinstance(self._rng, secrets.SystemRandom)
        return {"state": self._rng.getstate() if seeded else None}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self._rng = secrets.SystemRandom()
        if state["state"] is not None:
            self._rng = random.Random()
            self._rng.setstate(state["state"])

    def reseed(self, seed: int | None) -> None:
        if seed is not None:
            self._rng = random.Random(seed_value(seed))

    def next(self) -> int:
        return self._rng.getrandbits(63)


class Episode:
    """The match behind one episode, driven by the core's
    :class:`~marjolet.turns.TurnDriver`, and the rewards of each action."""

    def __init__(self, rules: Rules, reward: str, seed: int) -> None:
        self.reward = reward
        self.match = Match(rules, seed=seed)
        self.driver = TurnDriver(self.match)
        self.driver.start_deal()
        self.done = False
        #: The points difference (player 0 minus player 1) already paid out as
        #: dense rewards: 0 at the start of the deal, so the dealer's 10 for a
        #: seven turned up (R18), scored before any action, is paid with the
        #: first action's reward and the rewards add up to the deal margin.
        self._paid = 0

    def turn(self) -> Turn | None:
        """The pending turn (``None`` once the episode is done); it holds the
        mover's observation: :attr:`to_move` and :meth:`legal` are cheaper
        when only whose turn it is, or its legal actions, are wanted."""
        return None if self.done else self.driver.turn()

    @property
    def to_move(self) -> int | None:
        """The seat to act, or ``None`` once the episode is done."""
        return None if self.done else self.driver.to_move

    def legal(self, seat: int) -> list[int]:
        """``seat``'s legal actions: none unless it is to act."""
        return list(self.deal.legal) if self.to_move == seat else []

    @property
    def deal(self) -> Deal:
        deal = self.match.deal
        assert deal is not None
        return deal

    def play(self, action: int) -> tuple[float, float]:
        """Play a checked action; return the rewards of player 0 and player 1.

        Raises :class:`~marjolet.errors.IllegalActionError` (citing the rule)
        for an illegal action, leaving the episode unchanged.
        """
        deal = self.deal
        self.driver.submit(action, self.driver.version)
        q0, q1 = deal.points
        r = 0.0
        if self.reward == "dense":
            r = float((q0 - q1) - self._paid)
            self._paid = q0 - q1
        if deal.is_over:
            if self.reward == "deal":
                r = float(q0 - q1)
                self.done = True
            elif self.reward == "dense":
                self.done = True
            elif self.match.is_over:
                r = 1.0 if self.match.winner == 0 else -1.0
                self.done = True
            else:
                self.driver.start_deal()
        return (r, -r if r else 0.0)
