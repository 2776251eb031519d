"""Issue 15, OpenSpiel: factored (public / private) observers, a kept
``generate_playthrough`` file, and the dealer as an optional chance node."""

from __future__ import annotations

import pickle
import random
from pathlib import Path

import numpy as np
import pyspiel  # type: ignore[import-not-found,unused-ignore]
import pytest
from absl import flags
from open_spiel.python.algorithms import generate_playthrough  # type: ignore[import-untyped]
from open_spiel.python.observation import make_observation  # type: ignore[import-untyped]

from helpers import random_step
from marjolet.cards import CARD_NAMES
from marjolet.errors import MarjoletError
from marjolet.observation import observe
from marjolet.rl import openspiel as mo
from marjolet.rl.encoder import FIELD

PLAYTHROUGH = Path(__file__).parent / "playthroughs" / "python_marjolet.txt"

PUBLIC = pyspiel.IIGObservationType(
    public_info=True, perfect_recall=False, private_info=pyspiel.PrivateInfoType.NONE
)
PRIVATE = pyspiel.IIGObservationType(
    public_info=False, perfect_recall=False, private_info=pyspiel.PrivateInfoType.SINGLE_PLAYER
)


def advance(state: mo.MarjoletState, rng: random.Random, steps: int) -> None:
    for _ in range(steps):
        if state.is_terminal():
            return
        random_step(state, rng)


def test_public_and_private_observers_split_what_a_player_knows() -> None:
    game = pyspiel.load_game("python_marjolet")
    public = make_observation(game, PUBLIC)
    private = make_observation(game, PRIVATE)
    state = game.new_initial_state()
    advance(state, random.Random(3), 32 + 9)
    assert not state.is_chance_node()
    core = state._core
    assert core.deal is not None
    texts = {public.string_from(state, p) for p in (0, 1)}
    assert len(texts) == 1  # the same for both players
    (text,) = texts
    for p in (0, 1):
        hand = core.deal.hand_mask(p) & ~observe(core.deal, p).exposed[p].mask
        hidden = [CARD_NAMES[c] for c in range(32) if hand >> c & 1]
        assert not any(f" {name} " in f" {text.replace('[', ' ').replace(']', ' ')} "
                       for name in hidden)
        private.set_from(state, p)
        assert np.flatnonzero(private.tensor).tolist() == [
            c for c in range(32) if core.deal.hand_mask(p) >> c & 1
        ]
        assert private.string_from(state, p).startswith(f"p{p} hand [")
        public.set_from(state, p)
        for name in mo.PRIVATE_FIELDS:
            f = FIELD[name]
            assert not public.tensor[f.offset : f.offset + f.size].any()
    with pytest.raises(MarjoletError, match="public observation"):
        game.make_py_observer(
            pyspiel.IIGObservationType(
                public_info=False, perfect_recall=True,
                private_info=pyspiel.PrivateInfoType.SINGLE_PLAYER,
            )
        )


def test_an_observer_refused_names_the_observation_type_or_parameters_given() -> None:
    game = mo.load(dealer=0)
    asked = pyspiel.IIGObservationType(
        public_info=False, perfect_recall=True, private_info=pyspiel.PrivateInfoType.NONE
    )
    with pytest.raises(MarjoletError, match=r"^python_marjolet: no observer for "
                       r"public_info=False, private_info=NONE, perfect_recall=True; it offers "):
        game.make_py_observer(asked)
    with pytest.raises(MarjoletError, match=r"^python_marjolet: observation parameters are "
                       r"not supported, got \{'shown': 'all'\}$"):
        game.make_py_observer(None, {"shown": "all"})


def test_generate_playthrough_replays_the_kept_file() -> None:
    if not flags.FLAGS.is_parsed():
        flags.FLAGS.mark_as_parsed()
    original, again = generate_playthrough.replay(str(PLAYTHROUGH))
    assert "PublicObservationString()" in original and "dealer -1" in original.replace(
        "dealer=-1", "dealer -1"
    )
    assert again == original


def test_the_dealer_can_be_a_chance_node() -> None:
    game = pyspiel.load_game("python_marjolet(dealer=-1)")
    state = game.new_initial_state()
    assert state.is_chance_node() and state.chance_outcomes() == [(0, 0.5), (1, 0.5)]
    assert game.max_chance_nodes_in_history() == 33
    dealers = set()
    for seed in range(8):
        s = game.new_initial_state()
        advance(s, random.Random(seed), 1)
        dealers.add(s._core.dealer)
        advance(s, random.Random(seed), 32 + 20)
        assert s.history()[0] == s._core.dealer
        copy = pickle.loads(pickle.dumps(s))
        assert copy.history() == s.history() and str(copy) == str(s)
        world = s.resample(0, random.Random(seed))
        assert world._core.dealer == s._core.dealer
        assert world.information_state_string(0) == s.information_state_string(0)
    assert dealers == {0, 1}
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)
    with pytest.raises(ValueError, match="dealer"):
        pyspiel.load_game("python_marjolet(dealer=2)")
