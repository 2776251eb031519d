"""The OpenSpiel game ``python_marjolet`` and the ``openspiel-ismcts`` bot."""

from __future__ import annotations

import pickle
import random
import subprocess
import sys
import textwrap

import numpy as np
import pyspiel  # type: ignore[import-not-found,unused-ignore]
import pytest
from open_spiel.python.algorithms import ismcts, mcts  # type: ignore[import-untyped]

from helpers import random_step
from marjolet.actions import ACTION_NAMES
from marjolet.bots import make_bot
from marjolet.bots.base import BotSpecError
from marjolet.engine import Deal
from marjolet.errors import DealError, IllegalActionError, MarjoletError, RulesError
from marjolet.match import Match
from marjolet.observation import observe
from marjolet.rl import openspiel as mo
from marjolet.rl.encoder import OBSERVATION_SIZE, encode
from marjolet.rules import CLASSIC, ENCYCLOPEDIA, Rules
from marjolet.turns import play_match


def play_random(state: mo.MarjoletState, rng: random.Random, stop: int | None = None) -> None:
    while not state.is_terminal():
        if stop is not None and len(state.history()) >= stop:
            return
        random_step(state, rng)


def test_random_sim_test_with_serialization_classic() -> None:
    game = pyspiel.load_game("python_marjolet")
    pyspiel.random_sim_test(game, num_sims=3, serialize=True, verbose=False)


def test_random_sim_test_with_serialization_variations() -> None:
    game = pyspiel.load_game(
        "python_marjolet(profile=encyclopedia,deal_pattern=2x2x2,jack_queen=same-suit,"
        "one_meld_per_window=true,dealer=1)"
    )
    assert game.rules == ENCYCLOPEDIA.replace(
        deal_pattern=(2, 2, 2), jack_queen="same-suit", one_meld_per_window=True
    )
    assert game.dealer == 1
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)


def test_game_parameters_round_trip_through_the_game_string() -> None:
    rules = CLASSIC.replace(all_tricks_bonus=70, dix_on_play=False, deal_pattern=(2, 2, 2))
    game = mo.load(rules, dealer=1)
    again = pyspiel.load_game(str(game))
    assert again.rules == rules and again.dealer == 1
    assert mo.rules_from_params(mo.params_from_rules(rules)) == rules


def test_bad_game_parameters_name_the_parameter() -> None:
    with pytest.raises(RulesError, match="deal_pattern"):
        mo.rules_from_params({"deal_pattern": "4x4"})
    with pytest.raises(RulesError, match="dix_on_play"):
        mo.rules_from_params({"dix_on_play": "maybe"})
    with pytest.raises(RulesError, match="profile"):
        mo.rules_from_params({"profile": "nope"})
    with pytest.raises(RulesError, match=r"all_tricks_bonus must be -1 .* got -5"):
        pyspiel.load_game("python_marjolet(all_tricks_bonus=-5)")
    with pytest.raises(MarjoletError, match="rules must be a Rules or a profile name"):
        mo.load(3)  # type: ignore[arg-type]
    assert mo.load("encyclopedia").get_parameters()["profile"] == "encyclopedia"


@pytest.mark.parametrize(
    ("game_string", "named"),
    [
        ("python_marjolet(dealer=5)", r"dealer must be 0, 1 or -1 \(drawn by chance\), got 5"),
        ("python_marjolet(dealer=-2)", r"dealer must be 0, 1 or -1 \(drawn by chance\), got -2"),
        ("python_marjolet(profile=nope)", "unknown profile 'nope'"),
        ("python_marjolet(deal_pattern=4x4)", "deal_pattern must be 3x3 or 2x2x2, got '4x4'"),
        ("python_marjolet(all_tricks_bonus=-5)", "all_tricks_bonus must be -1 .* got -5"),
        ("python_marjolet(dix_on_play=maybe)", "dix_on_play must be yes or no, got 'maybe'"),
        ("python_marjolet(jack_queen=king)", "jack_queen must be .* got 'king'"),
    ],
)
def test_every_bad_game_parameter_is_a_rules_error_naming_it(game_string: str, named: str) -> None:
    with pytest.raises(RulesError, match=f"^python_marjolet: {named}") as caught:
        pyspiel.load_game(game_string)
    assert isinstance(caught.value, MarjoletError) and isinstance(caught.value, ValueError)
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize(
    ("params", "named"),
    [
        ({"dealer": "east"}, r"dealer must be 0, 1 or -1 \(drawn by chance\), got 'east'"),
        ({"dealer": 1.5}, r"dealer must be 0, 1 or -1 \(drawn by chance\), got 1.5"),
        ({"dealer": "--1"}, r"dealer must be 0, 1 or -1 \(drawn by chance\), got '--1'"),
        ({"dealer": "\u00b2"}, r"dealer must be 0, 1 or -1 \(drawn by chance\), got '\u00b2'"),
        ({"all_tricks_bonus": "lots"}, "all_tricks_bonus must be -1 .* got 'lots'"),
        ({"profile": 3}, "profile must be classic or encyclopedia, got 3"),
        ({"deal_pattern": 33}, "deal_pattern must be 3x3 or 2x2x2, got 33"),
        ({"deal_pattern": "2-2"}, "deal_pattern must be 3x3 or 2x2x2, got '2-2'"),
        ({"dix_on_play": 1}, "dix_on_play must be yes or no, got 1"),
        ({"one_meld_per_window": "maybe"}, "one_meld_per_window must be true or false"),
        ({"jack_queen": 7}, "jack_queen must be .* got 7"),
    ],
)
def test_a_bad_parameter_given_to_the_game_class_is_a_rules_error_naming_it(
    params: dict[str, object], named: str
) -> None:
    with pytest.raises(RulesError, match=f"^python_marjolet: {named}"):
        mo.MarjoletGame(params)


def test_a_refused_game_can_be_shown_without_crashing_the_process() -> None:
    """A game whose parameters are refused is never built; its ``self``, in
    the traceback, is shown by test runners and debuggers: OpenSpiel's repr
    of it crashed Python (a segmentation fault), so it is run apart."""
    code = textwrap.dedent(
        """
        import marjolet.rl.openspiel as mo
        from marjolet.errors import RulesError
        try:
            mo.MarjoletGame({"dealer": 5})
        except RulesError as exc:
            frame = exc.__traceback__.tb_next.tb_frame
            print(repr(frame.f_locals["self"]), str(frame.f_locals["self"]))
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr[-500:]
    refused = "<python_marjolet: parameters refused, no game>"
    assert done.stdout.strip() == f"{refused} {refused}"
    built = mo.load(dealer=1)
    assert repr(built) == str(built) and str(built).startswith("python_marjolet(")
    assert "dealer=1" in str(built)


def test_a_string_switch_parameter_means_what_it_says() -> None:
    """``one_meld_per_window`` given as text ("no") is not read as true."""
    assert not mo.MarjoletGame({"one_meld_per_window": "no"}).rules.one_meld_per_window
    assert mo.MarjoletGame({"one_meld_per_window": "true"}).rules.one_meld_per_window
    assert not mo.MarjoletGame({"dix_on_play": False}).rules.dix_on_play
    # the yes/no parameters read their words alike, in any case
    assert not mo.MarjoletGame({"dix_on_play": "No"}).rules.dix_on_play
    assert mo.MarjoletGame({"one_meld_per_window": " YES "}).rules.one_meld_per_window


def test_a_bad_chance_outcome_is_an_illegal_action_naming_the_state() -> None:
    state = mo.load(dealer=mo.CHANCE_DEALER).new_initial_state()
    with pytest.raises(IllegalActionError, match=r"^python_marjolet: drawing the dealer \(R3\): "
                       r"chance outcome 5 is not a dealer \(0 or 1\)$") as caught:
        state.apply_action(5)
    assert caught.value.rule == "R3" and caught.value.action == 5
    state.apply_action(1)
    state.apply_action(0)
    with pytest.raises(IllegalActionError, match=r"^python_marjolet: dealing deck position 1 "
                       r"\(R4\): chance outcome 0 \(7C\) is dealt already$") as caught:
        state.apply_action(0)
    assert caught.value.rule == "R4" and caught.value.action == 0
    with pytest.raises(IllegalActionError, match=r"deck position 1 \(R4\): chance outcome 40 "
                       r"is not a card id \(0-31\)$"):
        state._core.apply(40)
    assert state.history() == [1, 0]


def test_an_action_id_out_of_range_is_named_not_an_index_error() -> None:
    state = mo.load().new_initial_state()
    with pytest.raises(MarjoletError, match="46 is not an action id"):
        state.action_to_string(0, 46)
    with pytest.raises(MarjoletError, match="32 is not an action id"):
        state.action_to_string(pyspiel.PlayerId.CHANCE, 32)
    drawing_the_dealer = mo.load(dealer=mo.CHANCE_DEALER).new_initial_state()
    assert drawing_the_dealer.action_to_string(pyspiel.PlayerId.CHANCE, 1) == "dealer 1"
    with pytest.raises(MarjoletError, match=r"5 is not an action id \(0 to 1\)"):
        drawing_the_dealer.action_to_string(pyspiel.PlayerId.CHANCE, 5)


def test_game_info_matches_the_engine() -> None:
    game = mo.load()
    assert game.num_distinct_actions() == 46
    assert game.max_chance_outcomes() == 32
    assert game.num_players() == 2
    assert game.max_game_length() == mo.MAX_MOVES
    assert game.observation_tensor_size() == OBSERVATION_SIZE
    assert game.information_state_tensor_size() == (
        OBSERVATION_SIZE + 32 + mo.MAX_MOVES * mo.HISTORY_SLOT
    )
    assert game.max_utility() == -game.min_utility() == 640.0


def test_chance_deals_the_deck_then_the_engine_plays_the_same_deal() -> None:
    rng = random.Random(3)
    game = mo.load(dealer=1)
    state = game.new_initial_state()
    play_random(state, rng)
    history = state.history()
    deck, moves = history[:32], history[32:]
    deal = Deal(deck, 1, CLASSIC)
    for a in moves:
        deal.play(a)
    assert deal.is_over
    p0, p1 = deal.points
    assert state.returns() == [p0 - p1, p1 - p0]
    assert state.action_to_string(pyspiel.PlayerId.CHANCE, deck[0]).startswith("deal ")
    assert [state.action_to_string(0, a) for a in moves[:1]] == [ACTION_NAMES[moves[0]]]


def test_observation_tensor_is_the_shared_encoder() -> None:
    rng = random.Random(4)
    game = mo.load()
    state = game.new_initial_state()
    play_random(state, rng, stop=60)
    deal = state._core.deal
    assert deal is not None
    for player in (0, 1):
        expected = encode(observe(deal, player))
        assert np.array_equal(np.asarray(state.observation_tensor(player)), expected)


def test_information_state_holds_own_draws_but_not_the_opponents() -> None:
    rng = random.Random(6)
    game = mo.load()
    state = game.new_initial_state()
    play_random(state, rng, stop=32 + 12)
    text = state.information_state_string(0)
    assert "draw+" in text
    deal = state._core.deal
    assert deal is not None
    for card in deal.draws(1):
        assert f"draw+{ACTION_NAMES[card]}" not in text or card in deal.draws(0)


def test_illegal_action_is_refused_citing_the_rule() -> None:
    game = mo.load()
    state = game.new_initial_state()
    for c in range(32):
        state.apply_action(c)
    with pytest.raises(Exception, match="R9"):
        state.apply_action(45)  # 'draw' with no window open


def test_clone_is_independent_and_serialization_round_trips() -> None:
    rng = random.Random(8)
    game = mo.load()
    state = game.new_initial_state()
    play_random(state, rng, stop=50)
    clone = state.clone()
    play_random(clone, rng)
    assert len(state.history()) == 50 and clone.is_terminal()
    text = pyspiel.serialize_game_and_state(game, state)
    _game2, state2 = pyspiel.deserialize_game_and_state(text)
    assert state2.history() == state.history()
    assert str(state2) == str(state)
    assert state2.information_state_string(1) == state.information_state_string(1)
    again = pickle.loads(pickle.dumps(state))
    assert again.history() == state.history()


@pytest.mark.parametrize("dealer", [0, 1])
def test_resample_from_infostate_keeps_the_players_information(dealer: int) -> None:
    rng = random.Random(dealer)
    game = mo.load(ENCYCLOPEDIA, dealer=dealer)
    sampler = pyspiel.UniformProbabilitySampler(7, 0.0, 1.0)
    differs = 0
    for _ in range(4):
        state = game.new_initial_state()
        while not state.is_terminal():
            for player in (0, 1):
                other = state.resample_from_infostate(player, sampler)
                assert other.information_state_string(player) == (
                    state.information_state_string(player)
                )
                assert np.array_equal(
                    other.information_state_tensor(player), state.information_state_tensor(player)
                )
                assert other.current_player() == state.current_player()
                if not state.is_chance_node() and player == state.current_player():
                    assert other.legal_actions() == state.legal_actions()
                differs += other.history() != state.history()
            play_random(state, rng, stop=len(state.history()) + 1)
    assert differs > 100


def test_openspiel_python_ismcts_plays_the_game() -> None:
    game = mo.load()
    rs = np.random.RandomState(1)
    bot = ismcts.ISMCTSBot(
        game, mcts.RandomRolloutEvaluator(1, rs), uct_c=150.0, max_simulations=20, random_state=rs
    )
    rng = random.Random(2)
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            play_random(state, rng, stop=len(state.history()) + 1)
        elif state.current_player() == 0:
            state.apply_action(bot.step(state))
        else:
            play_random(state, rng, stop=len(state.history()) + 1)
    assert sum(state.returns()) == 0


def test_ismcts_bot_from_a_spec_is_reproducible_and_legal() -> None:
    def run(seed: int) -> list[int]:
        seats = [make_bot("openspiel-ismcts:sims=8", seed=seed), make_bot("random", seed=1)]
        match = Match(CLASSIC.replace(target=150), seed=3)
        play_match(match, seats)
        return [a for d in match.deals for a in d.moves]

    first = run(5)
    assert run(5) == first


def test_ismcts_bot_spec_errors_are_clear() -> None:
    with pytest.raises(BotSpecError, match="sims"):
        make_bot("openspiel-ismcts:sims=0")
    with pytest.raises(BotSpecError, match="final"):
        make_bot("openspiel-ismcts:final=best")


@pytest.mark.parametrize("uct_c", ["1e22", "1e300", "-1"])
def test_ismcts_bot_refuses_an_exploration_constant_out_of_range(uct_c: str) -> None:
    with pytest.raises(BotSpecError, match="uct_c must be 0-1000000 "):
        make_bot(f"openspiel-ismcts:uct_c={uct_c}")


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        ("sims=1000001", "sims must be 1-1000000 (about an hour a move at most), got 1000001"),
        ("sims=999999999999999", "sims must be 1-1000000 (about an hour a move at most)"),
        ("rollouts=999999999999999", "sims x rollouts must be at most 1000000 (about an hour"),
        ("sims=1000,rollouts=1001", "sims x rollouts must be at most 1000000 (about an hour"),
    ],
)
def test_ismcts_bot_refuses_a_move_of_more_than_about_an_hour(spec: str, words: str) -> None:
    # some 600 simulations a second with one rollout each (docs/bots.md):
    # without a bound, sims=999999999999999 never ended a move
    with pytest.raises(BotSpecError) as refused:
        make_bot(f"openspiel-ismcts:{spec}")
    assert words in str(refused.value)
    assert make_bot("openspiel-ismcts:sims=1000,rollouts=1000").options["rollouts"] == 1000


def test_state_from_observation_puts_the_bot_in_its_information_state() -> None:
    rng = random.Random(10)
    game = mo.load(dealer=0)
    state = game.new_initial_state()
    play_random(state, rng, stop=70)
    deal = state._core.deal
    assert deal is not None and not deal.is_over
    seat = deal.to_move
    rebuilt = mo.state_from_observation(game, observe(deal, seat), rng)
    assert rebuilt.observation_string(seat) == state.observation_string(seat)
    assert rebuilt.legal_actions() == state.legal_actions()
    with pytest.raises(DealError, match="dealer"):
        mo.state_from_observation(mo.load(dealer=1), observe(deal, seat), rng)


def test_state_from_observation_names_what_the_game_does_not_share_with_it() -> None:
    """A game of other rules or another dealer than the observation's is a
    one-line family error naming the rule or the dealers that differ."""
    deal = Deal(list(range(32)), dealer=0, rules=Rules.profile_named("encyclopedia"))
    obs = observe(deal, 1)
    rng = random.Random(1)
    with pytest.raises(DealError, match=r"^python_marjolet: the game's dealer is 1, the "
                       r"observation's 0: load the game with dealer=0$"):
        mo.state_from_observation(mo.load("encyclopedia", dealer=1), obs, rng)
    with pytest.raises(RulesError, match=r"^python_marjolet: the game's rules are not the "
                       r"observation's: profile 'classic' in the game, 'encyclopedia' in the "
                       r"observation; all_tricks_bonus 50 in the game, 40 in the observation"):
        mo.state_from_observation(mo.load("classic", dealer=0), obs, rng)
    other = Rules.profile_named("encyclopedia").replace(deal_pattern=(2, 2, 2))
    with pytest.raises(RulesError, match=r"observation's: deal_pattern \(2, 2, 2\) in the game, "
                       r"\(3, 3\) in the observation$"):
        mo.state_from_observation(mo.load(other, dealer=0), obs, rng)
    target = Rules.profile_named("encyclopedia").replace(target=1000)
    assert mo.state_from_observation(mo.load(target, dealer=0), obs, rng).history()
