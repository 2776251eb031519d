"""The OpenSpiel game ``python_marjolet``, registered when this module is imported.

>>> import pyspiel
>>> import marjolet.rl.openspiel
>>> game = pyspiel.load_game("python_marjolet", {"profile": "encyclopedia"})

One game is **one deal** (R4-R21), zero-sum: each player's return is its deal
score minus the opponent's (R21), given at the end (terminal reward model).

- **Chance.** The first 32 moves are chance nodes that deal the deck order
  (R4) one card at a time: outcome ``c`` (a card id 0-31, uniform over the
  cards not yet dealt) is the next card of the deck. Deck positions 0-11 are
  the hands, 12 the indicator, 13-31 the stock in drawing order (R5). A
  player sees a dealt card when it reaches its hand (a stock card when it
  draws it); the indicator is public.
- **Actions.** The engine's stable ids: 0-31 play a card, 32-43 declare meld
  ``id - 32``, 44 ``dix``, 45 ``draw`` (``num_distinct_actions() == 46``).
- **Parameters.** ``profile`` (``classic``/``encyclopedia``), the variations
  ``deal_pattern`` (``3x3``/``2x2x2``: OpenSpiel would read ``2-2-2`` as a
  number), ``all_tricks_bonus`` (-1: the profile's), ``dix_on_play``
  (``yes``/``no``, empty: the profile's),
  ``jack_queen`` (``trump-jack``/``same-suit``, empty: the profile's),
  ``one_meld_per_window``, and ``dealer`` (0 or 1; the other player leads
  trick 1; -1: a first chance node draws the dealer, 0 or 1 with equal
  chances, R3). A bad value is a :class:`~marjolet.errors.RulesError` naming
  the parameter and the value; a chance outcome not offered is an
  :class:`~marjolet.errors.IllegalActionError` naming the chance node. A
  whole match is left to the PettingZoo and Gymnasium adapters:
  its length has no bound (R22 plays on while totals tie), which OpenSpiel's
  fixed-size tensors cannot hold.
- **Observations.** The observation tensor is the shared encoder's
  (:mod:`marjolet.rl.encoder`, ``docs/rl.md``); the information state (perfect
  recall) adds the seat's dealt cards and the whole action history with the
  cards the seat drew. Both have string forms. Factored observers
  (``public_info=True`` with ``private_info=NONE``; ``public_info=False``
  with ``SINGLE_PLAYER``) give the public facts and the player's hand
  apart, so OpenSpiel's ``generate_playthrough`` runs.
- ``resample_from_infostate`` builds a full history consistent with what the
  player knows, from the engine's sampler (:mod:`marjolet.decks`), so
  OpenSpiel's Python IS-MCTS (``open_spiel.python.algorithms.ismcts``) plays
  the game.

States are small (the deck, a :class:`~marjolet.engine.Deal` and a move log)
and copy cheaply, since OpenSpiel clones a Python state by deep-copying its
attributes; they pickle as the deck and the moves, so ``serialize`` round-trips.
"""

from __future__ import annotations

import dataclasses
import random
import re
from collections.abc import Mapping
from typing import Any

import numpy as np
import pyspiel  # type: ignore[import-not-found,unused-ignore]

from marjolet.actions import ACTION_COUNT, ACTION_NAMES, DRAW
from marjolet.cards import CARD_NAMES, CardSet
from marjolet.decks import STOCK_START, dealt_positions
from marjolet.decks import deck_for as consistent_deck
from marjolet.engine import Deal
from marjolet.errors import DealError, IllegalActionError, MarjoletError, RulesError
from marjolet.history import STOCK_CARDS, draw_position
from marjolet.observation import Observation, observe
from marjolet.rl.encoder import FIELD, OBSERVATION_SIZE, FloatArray, encode, encode_dealing
from marjolet.rl.episode import max_deal_score
from marjolet.rules import Rules

GAME_NAME = "python_marjolet"
#: Chance nodes in one game: the 32 cards of the deck.
NUM_CHANCE_NODES = 32
#: Most player actions in one deal: 32 card plays, 10 draws, one dix and at
#: most 12 melds per player (each meld id scores once per player, R12).
MAX_MOVES = 32 + 10 + 1 + 2 * 12
#: Entries per history slot of the information-state tensor: who acted (me,
#: opponent), the action (46 ids), the card I drew by it (32).
HISTORY_SLOT = 2 + ACTION_COUNT + 32

_DEFAULTS: dict[str, Any] = {
    "profile": "classic",
    "deal_pattern": "",
    "all_tricks_bonus": -1,
    "dix_on_play": "",
    "jack_queen": "",
    "one_meld_per_window": False,
    "dealer": 0,
}

_GAME_TYPE = pyspiel.GameType(
    short_name=GAME_NAME,
    long_name="Python Marjolet (one deal)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=2,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=_DEFAULTS,
    provides_factored_observation_string=True,
)
#: ``dealer`` parameter value: the dealer is a chance outcome (R3).
CHANCE_DEALER = -1


def rules_from_params(params: Mapping[str, Any]) -> Rules:
    """The rule set named by the game parameters (see the module docstring);
    :class:`~marjolet.errors.RulesError` naming the game, the parameter and
    the value given for a bad one."""
    try:
        return _rules_from_params(params)
    except RulesError as exc:
        message = str(exc)
        if not message.startswith(GAME_NAME):
            message = f"{GAME_NAME}: {message}"
        raise RulesError(message) from None


def _int_param(params: Mapping[str, Any], name: str, default: int, must: str) -> int:
    """The integer parameter ``name``; :class:`RulesError` saying it ``must``
    be ... for a value that is not an integer."""
    value = params.get(name, default)
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        if isinstance(value, str) and re.fullmatch(r"\s*[+-]?[0-9]+\s*", value):
            return int(value)
        raise RulesError(f"{GAME_NAME}: {name} must be {must}, got {value!r}")
    return int(value)


def _bool_param(params: Mapping[str, Any], name: str, must: str) -> bool | None:
    """The yes/no parameter ``name`` (a bool, or ``yes``/``no``,
    ``true``/``false`` in a string, in any case); ``None`` when it is not
    given or empty (the profile's); :class:`RulesError` saying it ``must``
    be ... for anything else."""
    value = params.get(name, "")
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    word = value.strip().lower() if isinstance(value, str) else None
    if word == "":
        return None
    if word in ("true", "yes", "false", "no"):
        return word in ("true", "yes")
    raise RulesError(f"{GAME_NAME}: {name} must be {must}, got {value!r}")


def _rules_from_params(params: Mapping[str, Any]) -> Rules:
    profile = params.get("profile", "classic")
    if not isinstance(profile, str):
        raise RulesError(f"{GAME_NAME}: profile must be classic or encyclopedia, got {profile!r}")
    rules = Rules.profile_named(profile)
    changes: dict[str, Any] = {}
    given = params.get("deal_pattern", "")
    pattern = given.replace("-", "x") if isinstance(given, str) else None
    if pattern != "":
        if pattern not in ("3x3", "2x2x2"):
            raise RulesError(f"{GAME_NAME}: deal_pattern must be 3x3 or 2x2x2, got {given!r}")
        changes["deal_pattern"] = tuple(int(x) for x in pattern.split("x"))
    must = "-1 (the profile's) or 0 or more"
    bonus = _int_param(params, "all_tricks_bonus", -1, must)
    if bonus < -1:
        raise RulesError(f"{GAME_NAME}: all_tricks_bonus must be {must}, got {bonus}")
    if bonus >= 0:
        changes["all_tricks_bonus"] = bonus
    dix = _bool_param(params, "dix_on_play", "yes or no")
    if dix is not None:
        changes["dix_on_play"] = dix
    jack_queen = params.get("jack_queen", "")
    if jack_queen != "":
        changes["jack_queen"] = jack_queen
    if _bool_param(params, "one_meld_per_window", "true or false"):
        changes["one_meld_per_window"] = True
    return rules.replace(**changes) if changes else rules


def params_from_rules(rules: Rules, dealer: int = 0) -> dict[str, Any]:
    """Game parameters that give ``rules`` and ``dealer`` (inverse of
    :func:`rules_from_params`)."""
    return {
        "profile": rules.profile,
        "deal_pattern": "x".join(str(n) for n in rules.deal_pattern),
        "all_tricks_bonus": rules.all_tricks_bonus,
        "dix_on_play": "yes" if rules.dix_on_play else "no",
        "jack_queen": rules.jack_queen,
        "one_meld_per_window": rules.one_meld_per_window,
        "dealer": dealer,
    }


class MarjoletGame(pyspiel.Game):  # type: ignore[misc]
    """One deal of Marjolet as an OpenSpiel game (see the module docstring)."""

    def __init__(self, params: Mapping[str, Any] | None = None) -> None:
        # Until OpenSpiel has built it, its repr of the game would crash the
        # process, and a debugger or a test runner showing a traceback's
        # ``self`` calls it (see __repr__): whatever stops the building here.
        self._refused = True
        if params is not None and not isinstance(params, Mapping):
            raise RulesError(f"{GAME_NAME}: the parameters must be a mapping, got {params!r}")
        full = dict(_DEFAULTS)
        full.update(params or {})
        self.rules = rules_from_params(full)
        must = "0, 1 or -1 (drawn by chance)"
        self.dealer = _int_param(full, "dealer", 0, must)
        if self.dealer not in (0, 1, CHANCE_DEALER):
            raise RulesError(f"{GAME_NAME}: dealer must be {must}, got {self.dealer}")
        bound = float(max_deal_score(self.rules))
        info = pyspiel.GameInfo(
            num_distinct_actions=ACTION_COUNT,
            max_chance_outcomes=32,
            num_players=2,
            min_utility=-bound,
            max_utility=bound,
            utility_sum=0.0,
            max_game_length=MAX_MOVES,
        )
        super().__init__(_GAME_TYPE, info, full)
        self._refused = False

    def __repr__(self) -> str:
        if getattr(self, "_refused", False):
            return f"<{GAME_NAME}: parameters refused, no game>"
        return str(super().__repr__())

    def __str__(self) -> str:
        if getattr(self, "_refused", False):
            return f"<{GAME_NAME}: parameters refused, no game>"
        return str(super().__str__())

    def new_initial_state(self) -> MarjoletState:
        return MarjoletState(self)

    def max_chance_nodes_in_history(self) -> int:
        return NUM_CHANCE_NODES + (self.dealer == CHANCE_DEALER)

    def make_py_observer(
        self, iig_obs_type: Any = None, params: Mapping[str, Any] | None = None
    ) -> MarjoletObserver:
        if iig_obs_type is None:
            iig_obs_type = pyspiel.IIGObservationType(perfect_recall=False)
        return MarjoletObserver(iig_obs_type, params)


class _Core:
    """The whole Python-side state: cheap to deep-copy, pickled compactly."""

    __slots__ = ("chance_dealer", "deal", "dealer", "deck", "log", "rules")

    def __init__(self, rules: Rules, dealer: int) -> None:
        self.rules = rules
        #: Whether the dealer is a chance outcome; ``dealer`` is None until drawn.
        self.chance_dealer = dealer == CHANCE_DEALER
        self.dealer: int | None = None if self.chance_dealer else dealer
        self.deck: list[int] = []
        self.deal: Deal | None = None
        #: One entry per player action: (actor, card player 0 drew, card player 1
        #: drew), -1 where nobody drew.
        self.log: list[tuple[int, int, int]] = []

    def apply(self, action: int) -> None:
        deal = self.deal
        if self.dealer is None:
            if action not in (0, 1):
                raise IllegalActionError(
                    f"{GAME_NAME}: drawing the dealer (R3): chance outcome {action} "
                    "is not a dealer (0 or 1)",
                    action=action,
                    rule="R3",
                )
            self.dealer = action
            return
        if deal is None:
            if not 0 <= action < 32 or action in self.deck:
                why = (
                    f"({CARD_NAMES[action]}) is dealt already"
                    if 0 <= action < 32
                    else "is not a card id (0-31)"
                )
                raise IllegalActionError(
                    f"{GAME_NAME}: dealing deck position {len(self.deck)} (R4): "
                    f"chance outcome {action} {why}",
                    action=action,
                    rule="R4",
                )
            self.deck.append(action)
            if len(self.deck) == 32:
                self.deal = Deal(self.deck, self.dealer, self.rules)
            return
        p = deal.to_move
        drawn = [-1, -1]
        if action == DRAW and p >= 0 and deal.in_window:
            for who in (p, p ^ 1):
                pos = draw_position(deal.tricks_played, p, who)
                drawn[who] = deal.indicator if pos == STOCK_CARDS else self.deck[STOCK_START + pos]
        deal.play(action)  # checked: an illegal action raises, citing the rule
        self.log.append((p, drawn[0], drawn[1]))

    def __deepcopy__(self, memo: dict[int, Any]) -> _Core:
        new = _Core.__new__(_Core)
        new.rules = self.rules
        new.chance_dealer = self.chance_dealer
        new.dealer = self.dealer
        new.deck = self.deck.copy()
        new.deal = None if self.deal is None else self.deal.copy()
        new.log = self.log.copy()
        return new

    def __getstate__(self) -> dict[str, Any]:
        return {
            "rules": self.rules.to_json(),
            "dealer": self.dealer,
            "chance_dealer": self.chance_dealer,
            "deck": list(self.deck),
            "moves": [] if self.deal is None else self.deal.moves,
        }

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.rules = Rules.from_json(state["rules"])
        self.chance_dealer = bool(state.get("chance_dealer", False))
        dealer = state["dealer"]
        self.dealer = None if self.chance_dealer else int(dealer)
        self.deck = []
        self.deal = None
        self.log = []
        if self.chance_dealer and dealer is not None:
            self.apply(int(dealer))
        for c in state["deck"]:
            self.apply(int(c))
        for a in state["moves"]:
            self.apply(int(a))


class MarjoletState(pyspiel.State):  # type: ignore[misc]
    """A state of ``python_marjolet``: the deal in progress (see the module docstring)."""

    def __init__(self, game: MarjoletGame) -> None:
        super().__init__(game)
        self._core = _Core(game.rules, game.dealer)

    # -- the OpenSpiel API -------------------------------------------------------

    def current_player(self) -> int:
        deal = self._core.deal
        if deal is None:
            return int(pyspiel.PlayerId.CHANCE)
        if deal.is_over:
            return int(pyspiel.PlayerId.TERMINAL)
        return deal.to_move

    def _legal_actions(self, player: int) -> list[int]:
        deal = self._core.deal
        if deal is None or deal.to_move != player:
            return []
        return deal.legal_actions()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        if self._core.dealer is None:
            return [(0, 0.5), (1, 0.5)]
        dealt = set(self._core.deck)
        left = [c for c in range(32) if c not in dealt]
        p = 1.0 / len(left)
        return [(c, p) for c in left]

    def _apply_action(self, action: int) -> None:
        self._core.apply(int(action))

    def _action_to_string(self, player: int, action: int) -> str:
        chance = player == pyspiel.PlayerId.CHANCE
        limit = (2 if self._core.dealer is None else 32) if chance else len(ACTION_NAMES)
        if not 0 <= action < limit:
            raise MarjoletError(f"{GAME_NAME}: {action} is not an action id (0 to {limit - 1})")
        if chance:
            if self._core.dealer is None:
                return f"dealer {action}"
            return f"deal {CARD_NAMES[action]}"
        return ACTION_NAMES[action]

    def is_terminal(self) -> bool:
        deal = self._core.deal
        return deal is not None and deal.is_over

    def returns(self) -> list[float]:
        deal = self._core.deal
        if deal is None or not deal.is_over:
            return [0.0, 0.0]
        p0, p1 = deal.points
        return [float(p0 - p1), float(p1 - p0)]

    def __str__(self) -> str:
        core = self._core
        if core.dealer is None:
            return "drawing the dealer"
        if core.deal is None:
            return f"dealer {core.dealer}; dealing: {' '.join(CARD_NAMES[c] for c in core.deck)}"
        moves = " ".join(ACTION_NAMES[a] for a in core.deal.moves)
        return f"{core.deal}\nmoves: {moves}"

    # -- resampling (IS-MCTS) ----------------------------------------------------

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> MarjoletState:
        """A state ``player_id`` cannot tell from this one, hidden cards
        resampled (see :mod:`marjolet.decks`). ``probability_sampler`` is
        OpenSpiel's callable returning floats in [0, 1); it seeds the draw."""
        a, b = float(probability_sampler()), float(probability_sampler())
        seed = int(a * (1 << 32)) << 32 | int(b * (1 << 32))
        return self.resample(player_id, random.Random(seed))

    def resample(self, player: int, rng: random.Random) -> MarjoletState:
        """:meth:`resample_from_infostate` with a Python generator."""
        core = self._core
        game = self.get_game()
        if core.dealer is None:
            clone: MarjoletState = self.clone()  # nothing dealt, nothing hidden
            return clone
        if core.deal is None:
            deck = _resample_partial_deck(core, player, rng)
            moves: list[int] = []
        else:
            mine = dealt_positions(core.rules.deal_pattern, core.dealer)[player]
            obs = observe(core.deal, player)
            deck = consistent_deck(obs, rng, [core.deck[pos] for pos in mine])
            moves = core.deal.moves
        state: MarjoletState = game.new_initial_state()
        if core.chance_dealer:
            state.apply_action(core.dealer)
        for c in deck:
            state.apply_action(c)
        for m in moves:
            state.apply_action(m)
        return state

    # -- views for the observers -------------------------------------------------

    def observation_of(self, player: int) -> Observation | None:
        """What ``player`` knows (R23), or ``None`` while the deck is being dealt."""
        deal = self._core.deal
        return None if deal is None else observe(deal, player)


def _resample_partial_deck(core: _Core, player: int, rng: random.Random) -> list[int]:
    """During the deal: keep the player's own cards and the indicator, redraw the rest."""
    assert core.dealer is not None
    mine = set(dealt_positions(core.rules.deal_pattern, core.dealer)[player])
    keep = {pos for pos in mine if pos < len(core.deck)}
    if len(core.deck) > STOCK_START - 1:
        keep.add(STOCK_START - 1)  # the indicator is public
    fixed = {core.deck[pos] for pos in keep}
    pool = [c for c in range(32) if c not in fixed]
    rng.shuffle(pool)
    return [core.deck[pos] if pos in keep else pool.pop() for pos in range(len(core.deck))]


def state_from_observation(
    game: MarjoletGame, obs: Observation, rng: random.Random
) -> MarjoletState:
    """A state of ``game`` in which ``obs.seat`` knows exactly ``obs``: the
    hidden cards drawn by :func:`~marjolet.decks.deck_for`. This is
    how a bot that sees only its observation enters OpenSpiel. A game of
    other rules or another dealer is refused: :class:`RulesError` naming
    the rules that differ, :class:`DealError` the two dealers."""
    _check_game_fits(game, obs)
    state: MarjoletState = game.new_initial_state()
    for c in consistent_deck(obs, rng):
        state.apply_action(c)
    for a in obs.actions:
        state.apply_action(a)
    return state


def _check_game_fits(game: MarjoletGame, obs: Observation) -> None:
    """Raise unless ``game`` deals under ``obs``'s rules (the match target
    aside) with ``obs``'s dealer, naming what differs and both values."""
    wanted = _deal_rules(obs.rules)
    if game.rules != wanted:
        differ = [
            f"{f.name} {getattr(game.rules, f.name)!r} in the game, "
            f"{getattr(wanted, f.name)!r} in the observation"
            for f in dataclasses.fields(Rules)
            if getattr(game.rules, f.name) != getattr(wanted, f.name)
        ]
        raise RulesError(
            f"{GAME_NAME}: the game's rules are not the observation's: {'; '.join(differ)}"
        )
    if game.dealer != obs.dealer:
        raise DealError(
            f"{GAME_NAME}: the game's dealer is {game.dealer}, the observation's "
            f"{obs.dealer}: load the game with dealer={obs.dealer}"
        )


# -- observers -------------------------------------------------------------------


#: Fields of the observation tensor that only the observing player knows;
#: the public observer leaves them zero (the others are public, R23).
PRIVATE_FIELDS = ("hand", "opp_known", "unseen")


def _observation_type(iig_obs_type: Any) -> str:
    """The observation type asked for, as OpenSpiel's arguments write it."""
    private = iig_obs_type.private_info
    return (
        f"public_info={bool(iig_obs_type.public_info)}, "
        f"private_info={getattr(private, 'name', private)}, "
        f"perfect_recall={bool(iig_obs_type.perfect_recall)}"
    )


class MarjoletObserver:
    """OpenSpiel's PyObserver for ``python_marjolet``: the shared observation
    tensor, or (perfect recall) the information state; or one factor of the
    observation, the public facts (``public_info=True``, ``private_info=NONE``:
    the tensor with :data:`PRIVATE_FIELDS` zero) or the player's private ones
    (``public_info=False``, ``SINGLE_PLAYER``: its hand)."""

    def __init__(self, iig_obs_type: Any, params: Mapping[str, Any] | None) -> None:
        if params:
            raise MarjoletError(
                f"{GAME_NAME}: observation parameters are not supported, got {dict(params)!r}"
            )
        single = iig_obs_type.private_info == pyspiel.PrivateInfoType.SINGLE_PLAYER
        none = iig_obs_type.private_info == pyspiel.PrivateInfoType.NONE
        self.perfect_recall = bool(iig_obs_type.perfect_recall)
        self.kind = "full"
        if iig_obs_type.public_info and none and not self.perfect_recall:
            self.kind = "public"
        elif not iig_obs_type.public_info and single and not self.perfect_recall:
            self.kind = "private"
        elif not (iig_obs_type.public_info and single):
            raise MarjoletError(
                f"{GAME_NAME}: no observer for {_observation_type(iig_obs_type)}; it offers the "
                "player's observation and information state (public_info=True, "
                "private_info=SINGLE_PLAYER), the public observation (private_info=NONE) and "
                "the private one (public_info=False), the last two without perfect recall"
            )
        pieces: list[tuple[str, int, tuple[int, ...]]] = [
            ("observation", OBSERVATION_SIZE, (OBSERVATION_SIZE,))
        ]
        if self.kind == "private":
            pieces = [("hand", 32, (32,))]
        if self.perfect_recall:
            pieces.append(("dealt", 32, (32,)))
            pieces.append(("history", MAX_MOVES * HISTORY_SLOT, (MAX_MOVES, HISTORY_SLOT)))
        size = sum(n for _, n, _ in pieces)
        self.tensor: FloatArray = np.zeros(size, np.float32)
        self.dict: dict[str, FloatArray] = {}
        index = 0
        for name, n, shape in pieces:
            self.dict[name] = self.tensor[index : index + n].reshape(shape)
            index += n

    def set_from(self, state: MarjoletState, player: int) -> None:
        core = state._core
        if self.kind == "private":
            self._set_private(state, player)
            return
        obs_view = self.dict["observation"]
        obs = state.observation_of(player)
        if obs is None:
            hand, indicator = _dealing_view(core, player)
            dealer = -1 if core.dealer is None else core.dealer
            encode_dealing(player, dealer, hand, indicator, core.rules, obs_view)
        else:
            encode(obs, obs_view)
        if self.kind == "public":
            for name in PRIVATE_FIELDS:
                field = FIELD[name]
                obs_view[field.offset : field.offset + field.size] = 0.0
        if not self.perfect_recall:
            return
        dealt = self.dict["dealt"]
        dealt.fill(0.0)
        for c in _own_dealt(core, player):
            dealt[c] = 1.0
        history = self.dict["history"]
        history.fill(0.0)
        if core.deal is None:
            return
        for k, (a, (actor, d0, d1)) in enumerate(zip(core.deal.moves, core.log, strict=True)):
            row = history[k]
            row[0 if actor == player else 1] = 1.0
            row[2 + a] = 1.0
            drew = d0 if player == 0 else d1
            if drew >= 0:
                row[2 + ACTION_COUNT + drew] = 1.0

    def _set_private(self, state: MarjoletState, player: int) -> None:
        view = self.dict["hand"]
        view.fill(0.0)
        for c in CardSet(_hand_of(state, player)):
            view[c] = 1.0

    def string_from(self, state: MarjoletState, player: int) -> str:
        if self.kind == "public":
            return public_observation_string(state)
        if self.kind == "private":
            return f"p{player} hand [{CardSet(_hand_of(state, player))}]"
        if self.perfect_recall:
            return information_state_string(state, player)
        obs = state.observation_of(player)
        if obs is None:
            hand, indicator = _dealing_view(state._core, player)
            ind = "?" if indicator is None else CARD_NAMES[indicator]
            return f"p{player} dealing: hand [{CardSet(hand)}] indicator {ind}"
        return observation_string(obs)


def _hand_of(state: MarjoletState, player: int) -> int:
    """The player's hand (mask), during the deal too."""
    deal = state._core.deal
    return _dealing_view(state._core, player)[0] if deal is None else deal.hand_mask(player)


def public_observation_string(state: MarjoletState) -> str:
    """What both players know (R23), in absolute seats: no hidden card."""
    core = state._core
    if core.dealer is None:
        return "drawing the dealer"
    deal = core.deal
    if deal is None:
        up = CARD_NAMES[core.deck[STOCK_START - 1]] if len(core.deck) >= STOCK_START else "?"
        return f"dealer {core.dealer} dealing: {len(core.deck)} cards dealt, turned up {up}"
    obs = observe(deal, 0)
    lead = "-" if obs.lead is None else CARD_NAMES[obs.lead]
    ind = "-" if obs.indicator is None else CARD_NAMES[obs.indicator]
    return (
        f"dealer {core.dealer} to_move {obs.to_move} window {int(obs.in_window)} "
        f"trumps {'CDHS'[obs.trump]} indicator {ind} stock {obs.stock_size} "
        f"tricks {obs.tricks_played} lead {lead} | exposed [{obs.exposed[0]}] "
        f"[{obs.exposed[1]}] won [{obs.won[0]}] [{obs.won[1]}] hands {obs.hand_sizes[0]} "
        f"{obs.hand_sizes[1]} | points {obs.points[0]}-{obs.points[1]} "
        f"melds {' '.join(obs.melds_of(0)) or '-'} / {' '.join(obs.melds_of(1)) or '-'} "
        f"seven {'-' if obs.seven_scored_by is None else obs.seven_scored_by}"
    )


def _own_dealt(core: _Core, player: int) -> list[int]:
    if core.dealer is None:
        return []
    mine = dealt_positions(core.rules.deal_pattern, core.dealer)[player]
    return [core.deck[pos] for pos in mine if pos < len(core.deck)]


def _dealing_view(core: _Core, player: int) -> tuple[int, int | None]:
    hand = 0
    for c in _own_dealt(core, player):
        hand |= 1 << c
    indicator = core.deck[STOCK_START - 1] if len(core.deck) >= STOCK_START else None
    return hand, indicator


def information_state_string(state: MarjoletState, player: int) -> str:
    """The player's perfect-recall view: its seat, its dealt cards in deal
    order, the turned-up card and every action, with the cards it drew."""
    core = state._core
    own = " ".join(CARD_NAMES[c] for c in _own_dealt(core, player))
    if core.dealer is None:
        return f"p{player} dealer ?"
    head = f"p{player} dealer {core.dealer} dealt [{own}]"
    if len(core.deck) < STOCK_START:
        return head
    head += f" up {CARD_NAMES[core.deck[STOCK_START - 1]]}"
    if core.deal is None:
        return head
    parts = [head, "|"]
    for a, (_, d0, d1) in zip(core.deal.moves, core.log, strict=True):
        drew = d0 if player == 0 else d1
        parts.append(f"draw+{CARD_NAMES[drew]}" if drew >= 0 else ACTION_NAMES[a])
    return " ".join(parts)


def observation_string(obs: Observation) -> str:
    """The current position as ``obs.seat`` sees it (no history)."""
    me, opp = obs.seat, obs.seat ^ 1
    lead = "-" if obs.lead is None else CARD_NAMES[obs.lead]
    ind = "-" if obs.indicator is None else CARD_NAMES[obs.indicator]
    melds = " ".join(obs.melds_of(me)) or "-"
    opp_melds = " ".join(obs.melds_of(opp)) or "-"
    return (
        f"p{me} to_move {obs.to_move} window {int(obs.in_window)} trumps {'CDHS'[obs.trump]} "
        f"indicator {ind} stock {obs.stock_size} tricks {obs.tricks_played} lead {lead} | "
        f"hand [{obs.hand}] exposed [{obs.exposed[me]}] opp_exposed [{obs.exposed[opp]}] "
        f"opp_known [{obs.opponent_known}] won [{obs.won[me]}] opp_won [{obs.won[opp]}] | "
        f"points {obs.points[me]}-{obs.points[opp]} melds {melds} opp_melds {opp_melds} "
        f"seven {'-' if obs.seven_scored_by is None else obs.seven_scored_by}"
    )


# -- registration and helpers ----------------------------------------------------

pyspiel.register_game(_GAME_TYPE, MarjoletGame)

_GAMES: dict[tuple[Rules, int], MarjoletGame] = {}


def _deal_rules(rules: Rules) -> Rules:
    """``rules`` without the match target, which a one-deal game ignores."""
    return rules if rules.target == Rules().target else rules.replace(target=Rules().target)


def game_for(rules: Rules, dealer: int) -> MarjoletGame:
    """The (cached) game for ``rules`` (the match target aside) with ``dealer`` dealing."""
    rules = _deal_rules(rules)
    key = (rules, dealer)
    game = _GAMES.get(key)
    if game is None:
        game = MarjoletGame(params_from_rules(rules, dealer))
        _GAMES[key] = game
    return game


def load(rules: Rules | str | None = None, dealer: int = 0) -> Any:
    """``pyspiel.load_game`` of ``python_marjolet`` for ``rules`` (a rule set
    or a profile's name; default classic)."""
    if isinstance(rules, str):
        rules = Rules.profile_named(rules)
    elif rules is not None and not isinstance(rules, Rules):
        raise MarjoletError(f"{GAME_NAME}: rules must be a Rules or a profile name, got {rules!r}")
    return pyspiel.load_game(GAME_NAME, params_from_rules(rules or Rules(), dealer))


__all__ = [
    "GAME_NAME",
    "MAX_MOVES",
    "MarjoletGame",
    "MarjoletObserver",
    "MarjoletState",
    "game_for",
    "information_state_string",
    "load",
    "observation_string",
    "params_from_rules",
    "rules_from_params",
    "state_from_observation",
]
