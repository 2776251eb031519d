"""A match: deals to the target with dealer alternation and the R22 finish.

Who plays it is the business of :mod:`marjolet.turns` (the turn driver,
``play_deal``, ``play_match``), which sits above this module.
"""

from __future__ import annotations

import random
import secrets
from collections.abc import Sequence

from marjolet.cards import shuffled_deck
from marjolet.engine import Deal, Outcome
from marjolet.errors import DealError, MarjoletError, MatchOverError
from marjolet.observation import Observation, observe
from marjolet.rules import CLASSIC, Rules, match_decided, require_rules

__all__ = ["Match", "MatchOverError", "new_rng", "seeded_deck", "shuffled_deck"]


def new_rng(seed: int | str | None) -> random.Random:
    """A seeded generator, or a cryptographically strong one without a seed (R6)."""
    if seed is None:
        return secrets.SystemRandom()
    return random.Random(seed)


def seeded_deck(seed: int, deal_index: int) -> list[int]:
    """The deck order of deal ``deal_index`` of a match seeded with ``seed``.

    Each deal's deck depends only on the seed and the deal's number, so a
    resumed match deals exactly as the uninterrupted one would have.
    """
    return shuffled_deck(random.Random(f"marjolet/{seed}/deal/{deal_index}"))


def dealer_of(first_dealer: int, index: int) -> int:
    """The dealer of deal ``index`` (0-based) of a match: the dealers
    alternate from the first (R3)."""
    return first_dealer ^ (index & 1)

class Match:
    """Deals to ``rules.target``; the first dealer, then alternation (R3, R22).

    With a ``seed`` the first dealer and every shuffle are reproducible (R6),
    each deal's deck depending only on the seed and the deal's number; without
    one they come from a cryptographically strong source.
    """

    def __init__(
        self,
        rules: Rules = CLASSIC,
        *,
        first_dealer: int | None = None,
        seed: int | None = None,
        players: Sequence[str] | None = None,
    ) -> None:
        self.rules = require_rules(rules)
        self.seed = seed
        self.rng = new_rng(seed)
        if first_dealer is None:
            first_dealer = new_rng(
                None if seed is None else f"marjolet/{seed}/first-dealer"
            ).randrange(2)
        if first_dealer not in (0, 1):
            raise DealError(f"first_dealer must be 0 or 1, got {first_dealer!r}")
        self.first_dealer = first_dealer
        self.players: tuple[str, str] | None = (
            (str(players[0]), str(players[1])) if players is not None else None
        )
        self.deals: list[Deal] = []
        self._completed_totals = (0, 0)
        self._winner: int | None = None
        self._counted = 0  # deals already added to the totals

    @property
    def deal(self) -> Deal | None:
        """The current (latest) deal."""
        return self.deals[-1] if self.deals else None

    @property
    def deal_index(self) -> int:
        return len(self.deals) - 1

    def dealer_of(self, index: int) -> int:
        return dealer_of(self.first_dealer, index)

    @property
    def totals(self) -> tuple[int, int]:
        """Totals of the completed deals (R21)."""
        self.finish_deal()
        return self._completed_totals

    @property
    def running_totals(self) -> tuple[int, int]:
        """Totals including the points earned so far in an unfinished deal."""
        t0, t1 = self.totals
        d = self.deal
        if d is not None and not d.is_over:
            p0, p1 = d.points
            return (t0 + p0, t1 + p1)
        return (t0, t1)

    @property
    def winner(self) -> int | None:
        """0 or 1 once R22 decides the match, else ``None``."""
        self.finish_deal()
        return self._winner

    @property
    def is_over(self) -> bool:
        return self.winner is not None

    @property
    def needs_deal(self) -> bool:
        """True when the match goes on and the current deal (if any) is over."""
        d = self.deal
        return self.winner is None and (d is None or d.is_over)

    def start_deal(self, deck: Sequence[int] | None = None) -> Deal:
        """Start the next deal from ``deck`` or from a fresh shuffle."""
        self.finish_deal()
        if self._winner is not None:
            raise MatchOverError(
                f"R22: the match was decided after deal {len(self.deals) - 1} "
                f"(totals {list(self._completed_totals)}); no further deal is allowed"
            )
        if self.deals and not self.deals[-1].is_over:
            raise MarjoletError(
                f"deal {len(self.deals) - 1} is not finished (R22: deals are always finished)"
            )
        if deck is None:
            deck = (
                shuffled_deck(self.rng)
                if self.seed is None
                else seeded_deck(self.seed, len(self.deals))
            )
        deal = Deal(deck, self.dealer_of(len(self.deals)), self.rules)
        self.deals.append(deal)
        return deal

    def finish_deal(self) -> None:
        """Add the finished current deal to the totals and apply R22.

        Idempotent, and called by every accessor that depends on it, so a
        deal driven directly through ``match.deal.push`` is counted too.
        """
        d = self.deal
        if d is None or not d.is_over or len(self.deals) == self._counted:
            return
        p0, p1 = d.points
        t0, t1 = self._completed_totals
        t0, t1 = t0 + p0, t1 + p1
        self._completed_totals = (t0, t1)
        self._counted = len(self.deals)
        if match_decided((t0, t1), self.rules.target):
            self._winner = 0 if t0 > t1 else 1

    def play(self, action: int) -> None:
        """Play a checked action in the current deal; finish it when over."""
        d = self.deal
        if d is None:
            raise MarjoletError("no deal in progress: call start_deal() first")
        d.play(action)
        if d.is_over:
            self.finish_deal()

    def push(self, action: int) -> None:
        """Apply an action already known to be legal, unchecked (like
        :meth:`Deal.push`); finish the deal when over. For a caller that has
        checked it once already (:meth:`marjolet.turns.TurnDriver.push`)."""
        d = self.deal
        if d is None:
            raise MarjoletError("no deal in progress: call start_deal() first")
        d.push(action)
        if d.is_over:
            self.finish_deal()

    def outcome(self) -> Outcome | None:
        """How the match ended (R22), or ``None`` while it goes on."""
        winner = self.winner
        if winner is None:
            return None
        return Outcome("target", winner, self._completed_totals)

    def __repr__(self) -> str:
        t0, t1 = self.running_totals
        seed = "" if self.seed is None else f" seed={self.seed}"
        return (
            f"<Match {self.rules.to_text()}{seed} first_dealer={self.first_dealer} "
            f"deals={len(self.deals)} totals={t0}-{t1}>"
        )

    def observation(self, seat: int) -> Observation:
        """The current deal as ``seat`` sees it, with the match context."""
        d = self.deal
        if d is None:
            raise MarjoletError("no deal in progress")
        totals = self._completed_totals
        if self._counted == len(self.deals):  # this deal is over and already counted
            totals = (totals[0] - d.points[0], totals[1] - d.points[1])
        return observe(d, seat, deal_index=len(self.deals) - 1, totals=totals)
