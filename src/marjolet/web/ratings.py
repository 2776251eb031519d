"""Glicko-2 player ratings (Glickman, *Example of the Glicko-2 system*, 2012).

A rating is three numbers: the rating itself (``value``, 1500 for a new
player), its deviation (``rd``: how unsure the system is) and its
volatility (how erratic the player's results are). This module is the
whole rating system of the online server and nothing else: pure
arithmetic on frozen values, the standard library only.

As lichess does, every finished rated game is one rating period of one
game for each player, so a rating moves after every game; and time away
counts too, as lichess counts it (0.21436 rating periods a day): the
deviation of a player who has not played for a while grows back
(:meth:`RatingSystem.idle`, step 6 of Glickman's procedure for the
periods elapsed), so a player back after a year is provisional again and
their first results move their rating more:

>>> system = RatingSystem()
>>> a = b = system.initial
>>> a2, b2 = system.rate_game(a, b, 1.0)
>>> round(a2.value), round(b2.value)
(1662, 1338)
>>> a2.provisional
True

Glickman's worked example (a 1500/200/0.06 player who beats a 1400/30
player and loses to 1550/100 and 1700/300 players, with tau 0.5):

>>> player = Rating(1500, 200, 0.06)
>>> games = [(Rating(1400, 30), 1.0), (Rating(1550, 100), 0.0), (Rating(1700, 300), 0.0)]
>>> new = RatingSystem(tau=0.5).rate(player, games)
>>> round(new.value, 2), round(new.rd, 2), round(new.volatility, 6)
(1464.05, 151.52, 0.059996)

(The paper prints 1464.06 and 0.05999: it rounds mu' to four decimals
before converting back, and truncates sigma'.)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

#: Glickman's conversion factor between the Glicko and Glicko-2 scales.
SCALE = 173.7178
#: The centre of the Glicko scale.
CENTRE = 1500.0
#: Convergence tolerance of the volatility iteration (Glickman's epsilon).
EPSILON = 1e-6


@dataclass(frozen=True, slots=True)
class Rating:
    """One player's rating on the Glicko scale."""

    value: float = CENTRE
    rd: float = 350.0
    volatility: float = 0.06
    #: A rating is provisional while its deviation is above this.
    provisional_rd: float = field(default=110.0, compare=False)

    @property
    def provisional(self) -> bool:
        """True while the system is still unsure of this player (high RD)."""
        return self.rd > self.provisional_rd

    def to_json(self) -> dict[str, Any]:
        """The rating as the API serves it."""
        return {
            "value": round(self.value, 2),
            "rd": round(self.rd, 2),
            "volatility": round(self.volatility, 6),
            "provisional": self.provisional,
        }


@dataclass(frozen=True, slots=True)
class RatingSystem:
    """The system's constants: a new player's rating and tau.

    ``tau`` limits how fast volatility changes (Glickman suggests 0.3 to
    1.2); ``max_rd`` caps a deviation that grows while a player is away,
    by ``periods_per_day`` rating periods a day (lichess's figure).
    """

    initial_value: float = CENTRE
    initial_rd: float = 350.0
    initial_volatility: float = 0.06
    tau: float = 0.5
    provisional_rd: float = 110.0
    max_rd: float = 350.0
    periods_per_day: float = 0.21436

    @property
    def initial(self) -> Rating:
        """The rating of a player who has never played a rated game."""
        return Rating(
            self.initial_value, self.initial_rd, self.initial_volatility, self.provisional_rd
        )

    def to_json(self) -> dict[str, Any]:
        """The parameters, as ``GET /api/rating-system`` serves them."""
        return {
            "initial": {
                "rating": self.initial_value,
                "rd": self.initial_rd,
                "volatility": self.initial_volatility,
            },
            "tau": self.tau,
            "provisional_rd": self.provisional_rd,
            "periods_per_day": self.periods_per_day,
        }

    def idle(self, player: Rating, days: float) -> Rating:
        """The player's rating after ``days`` without a rated game: the
        same value, its deviation grown by as many rating periods (step 6
        of Glickman's procedure, for a fraction of a period too), capped."""
        if days <= 0:
            return player
        _, phi = _to_glicko2(player)
        periods = days * self.periods_per_day
        grown = math.sqrt(phi * phi + periods * player.volatility**2) * SCALE
        return Rating(
            player.value, min(max(grown, player.rd), self.max_rd), player.volatility,
            self.provisional_rd,
        )

    def rate(self, player: Rating, games: Sequence[tuple[Rating, float]]) -> Rating:
        """The player's rating after one rating period of ``games``.

        Each game is (the opponent's rating before the period, the
        player's score: 1 win, 0.5 draw, 0 loss). With no games only the
        deviation grows (step 6 of Glickman's procedure).
        """
        for _, score in games:
            if score not in (0.0, 0.5, 1.0):
                raise ValueError(f"a game score must be 0, 0.5 or 1, not {score!r}")
        mu, phi = _to_glicko2(player)
        if not games:
            return self._rating(mu, math.sqrt(phi * phi + player.volatility**2), player.volatility)
        terms = [(_g(_to_glicko2(opp)[1]), _expected(mu, opp), score) for opp, score in games]
        v = 1.0 / sum(g * g * e * (1.0 - e) for g, e, _ in terms)
        gain = sum(g * (s - e) for g, e, s in terms)
        sigma = self._volatility(player.volatility, phi, v, v * gain)
        phi_star = math.sqrt(phi * phi + sigma * sigma)
        new_phi = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)
        return self._rating(mu + new_phi * new_phi * gain, new_phi, sigma)

    def rate_game(self, a: Rating, b: Rating, score_a: float) -> tuple[Rating, Rating]:
        """Both players' ratings after one game (a rating period each)."""
        return self.rate(a, [(b, score_a)]), self.rate(b, [(a, 1.0 - score_a)])

    def _rating(self, mu: float, phi: float, sigma: float) -> Rating:
        rd = min(phi * SCALE, self.max_rd)
        return Rating(mu * SCALE + CENTRE, rd, sigma, self.provisional_rd)

    def _volatility(self, sigma: float, phi: float, v: float, delta: float) -> float:
        """Step 5: the new volatility, by the Illinois variant of regula falsi."""
        a = math.log(sigma * sigma)
        tau = self.tau

        def f(x: float) -> float:
            ex = math.exp(x)
            d = phi * phi + v + ex
            return ex * (delta * delta - phi * phi - v - ex) / (2.0 * d * d) - (x - a) / (tau * tau)

        lo = a
        if delta * delta > phi * phi + v:
            hi = math.log(delta * delta - phi * phi - v)
        else:
            k = 1
            while f(a - k * tau) < 0:
                k += 1
            hi = a - k * tau
        f_lo, f_hi = f(lo), f(hi)
        while abs(hi - lo) > EPSILON:
            mid = lo + (lo - hi) * f_lo / (f_hi - f_lo)
            f_mid = f(mid)
            if f_mid * f_hi <= 0:
                lo, f_lo = hi, f_hi
            else:
                f_lo /= 2.0
            hi, f_hi = mid, f_mid
        return math.exp(lo / 2.0)


def _to_glicko2(rating: Rating) -> tuple[float, float]:
    """(mu, phi): the rating and deviation on the Glicko-2 scale."""
    return (rating.value - CENTRE) / SCALE, rating.rd / SCALE


def _g(phi: float) -> float:
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / (math.pi * math.pi))


def _expected(mu: float, opponent: Rating) -> float:
    """The expected score against the opponent (Glickman's E)."""
    mu_j, phi_j = _to_glicko2(opponent)
    return 1.0 / (1.0 + math.exp(-_g(phi_j) * (mu - mu_j)))
