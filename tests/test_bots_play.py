"""The bots: legal, reproducible, honest (observation only), budgets, hints."""

from __future__ import annotations

import json
import random
import re
from collections.abc import Sequence

import pytest

from helpers import minimax_action_values, new_deal, play
from marjolet.actions import DIX, DRAW, MELD_BASE, parse_action
from marjolet.bots import STRONGEST, Bot, BotSpecError, Hint, hint, make_bot, registry
from marjolet.bots.best import BestBot
from marjolet.bots.catalogue import check_spec
from marjolet.bots.heuristic import POLICY, public_deal
from marjolet.bots.levels import LEVELS
from marjolet.bots.solver import solve
from marjolet.cards import parse_card
from marjolet.cli import main
from marjolet.engine import Deal
from marjolet.match import Match
from marjolet.melds import MELD_INDEX
from marjolet.observation import Observation, observe
from marjolet.rules import CLASSIC, Rules
from marjolet.turns import play_deal, play_match

# small budgets: these tests check behaviour, never strength or speed
FAST = {
    "random": "random",
    "heuristic": "heuristic",
    "solver": "solver",
    "pimc": "pimc:worlds=2",
    "ismcts": "ismcts:iterations=8",
    "cheater": "cheater",
    "best": "best:worlds=4,time=0",
}


def position_after(deal: Deal, rng: random.Random, steps: int) -> Deal:
    for _ in range(steps):
        if deal.is_over:
            break
        actions = deal.legal_actions()
        deal.push(actions[rng.randrange(len(actions))])
    return deal


@pytest.mark.parametrize("name", list(FAST))
def test_every_bot_plays_a_whole_match_with_legal_actions_only(name: str) -> None:
    bot = make_bot(FAST[name], seed=1)
    other = make_bot("random", seed=2)
    match = Match(CLASSIC.replace(target=150), seed=3)
    # Match.play checks every action (IllegalActionError otherwise)
    play_match(match, [bot, other])
    assert match.is_over


@pytest.mark.parametrize("name", ["pimc", "ismcts", "heuristic", "solver"])
def test_search_bots_are_reproducible_under_a_seed_and_an_iteration_budget(name: str) -> None:
    spec = {"pimc": "pimc:worlds=6", "ismcts": "ismcts:iterations=40"}.get(name, name)
    rng = random.Random(5)
    for _ in range(6):
        deck = list(range(32))
        rng.shuffle(deck)
        deal = position_after(Deal(deck, 0), rng, rng.randrange(0, 40))
        if deal.is_over:
            continue
        obs = observe(deal, deal.to_move)
        legal = deal.legal_actions()
        first = make_bot(spec, seed=9).choose(obs, legal)
        again = make_bot(spec, seed=9).choose(obs, legal)
        assert first == again


def _same_observation_other_hidden_cards(seed: int) -> tuple[Deal, Deal]:
    """Two deals that seat 0 (the elder, dealer 1) cannot tell apart: the
    dealer's hand and the stock are shuffled differently."""
    rng = random.Random(seed)
    deck = list(range(32))
    rng.shuffle(deck)
    hidden = [3, 4, 5, 9, 10, 11, *range(13, 32)]
    cards = [deck[i] for i in hidden]
    rng.shuffle(cards)
    other = deck.copy()
    for i, c in zip(hidden, cards, strict=True):
        other[i] = c
    return Deal(deck, 1), Deal(other, 1)


@pytest.mark.parametrize("name", ["heuristic", "solver", "pimc", "ismcts"])
def test_bots_see_only_their_observation(name: str) -> None:
    spec = {"pimc": "pimc:worlds=4", "ismcts": "ismcts:iterations=30"}.get(name, name)
    for seed in range(4):
        a, b = _same_observation_other_hidden_cards(seed)
        obs_a, obs_b = observe(a, 0), observe(b, 0)
        assert obs_a == obs_b
        legal = a.legal_actions()
        assert make_bot(spec, seed=1).choose(obs_a, legal) == make_bot(spec, seed=1).choose(
            obs_b, legal
        )


def test_cheater_is_told_the_deal_by_play_deal_and_refuses_to_play_blind() -> None:
    cheater = make_bot("cheater", seed=1)
    assert cheater.sees_hidden_cards
    deal = Deal(list(range(32)), 0)
    with pytest.raises(RuntimeError, match="see_deal"):
        cheater.choose(observe(deal, 1), deal.legal_actions())
    match = Match(CLASSIC, seed=4)
    match.start_deal()
    play_deal(match, [cheater, make_bot("random", seed=2)])  # hosts call see_deal
    assert match.deal is not None and match.deal.is_over


def test_cheater_plays_the_true_world_best_move_when_it_is_clear() -> None:
    """With three tricks left every card is known, so the true world's best
    value is a fact: the cheater's card must reach it, in every position, and
    some positions punish a wrong card (so a legal-but-poor choice fails)."""
    punished = 0
    for seed in range(40):
        rng = random.Random(seed)
        deck = list(range(32))
        rng.shuffle(deck)
        deal = Deal(deck, seed & 1)
        while deal.tricks_played < 13 or deal.lead is not None:
            deal.push(deal.legal_actions()[rng.randrange(len(deal.legal_actions()))])
        me = deal.to_move
        values = minimax_action_values(deal)
        cheater = make_bot("cheater", seed=1)
        cheater.see_deal(deal.copy())
        choice = cheater.choose(observe(deal, me), deal.legal_actions())
        assert values[choice] == max(values.values()), (seed, values, choice)
        punished += len(set(values.values())) > 1
    assert punished >= 5


@pytest.mark.parametrize(
    "spec",
    [
        "pimc:worlds=0",
        "pimc:time=-1",
        "pimc:exact=11",
        "ismcts:iterations=0",
        "ismcts:rollout=greedy",
        "ismcts:scale=0",
        "pimc:depth=3",
        "pimc:worlds=many",
        "pimc:clock=sundial",
        "ismcts:clock=sundial",
    ],
)
def test_bad_bot_parameters_are_refused_with_a_clear_error(spec: str) -> None:
    with pytest.raises(BotSpecError):
        make_bot(spec)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("best:time=nan", "parameter time='nan' is not a finite number"),
        ("pimc:time=inf", "parameter time='inf' is not a finite number"),
        ("sampler:time=-inf", "parameter time='-inf' is not a finite number"),
        ("ismcts:c=nan", "parameter c='nan' is not a finite number"),
        ("ismcts:c=-1", "c must be >= 0"),
        ("novice:mistakes=NaN", "parameter mistakes='NaN' is not a finite number"),
        ("best:time=1e300", "time must be 0-3600 seconds, got 1e+300"),
        ("cheater:time=3600.5", "time must be 0-3600 seconds, got 3600.5"),
    ],
)
def test_a_budget_that_would_never_run_out_is_refused(spec: str, message: str) -> None:
    """A NaN or endless time budget never expires: the bot would hang its
    host (an arena run, a web table), so the spec is refused in one line."""
    with pytest.raises(BotSpecError, match=re.escape(message)):
        make_bot(spec)


@pytest.mark.parametrize(
    ("bot", "count", "low", "high"),
    [
        ("pimc", "worlds", 1, 10**6),
        ("ismcts", "iterations", 1, 10**7),
        ("sampler", "worlds", 1, 10**7),
        ("best", "worlds", 0, 10**7),
        ("cheater", "worlds", 0, 10**8),
    ],
)
def test_a_count_of_work_a_move_beyond_about_an_hour_is_refused_naming_its_bound(
    bot: str, count: str, low: int, high: int
) -> None:
    """With time=0 the count alone ends a move: worlds=999999999999999
    would never end one, so each count has a bound (docs/bots.md)."""
    for value in (high + 1, 999999999999999, low - 1):
        spec = f"{bot}:{count}={value},time=0"
        with pytest.raises(BotSpecError) as refused:
            make_bot(spec)
        assert str(refused.value) == (
            f"bot spec {spec!r}: {count} must be {low}-{high} (about an hour a move at most), "
            f"got {value}"
        )
    assert make_bot(f"{bot}:{count}={high},time=0").options[count] == high


@pytest.mark.parametrize(
    "spec",
    ["exec:path=./no-such-bot,budget_s=2", "pimc:worlds=0", "best:time=1e300", "exec:it's"],
)
def test_a_refused_spec_is_quoted_as_typed(spec: str) -> None:
    with pytest.raises(BotSpecError) as refused:
        make_bot(spec)
    assert str(refused.value).startswith(f"bot spec {spec!r}: ")
    assert str(refused.value).count("bot spec") == 1


def test_a_bot_built_in_python_refuses_a_nan_budget() -> None:
    from marjolet.bots.best import BestBot

    with pytest.raises(BotSpecError, match=r"time=nan is not a finite number"):
        BestBot(time=float("nan"))


def test_time_budget_stops_a_search_early() -> None:
    deal = new_deal("AS TS KS QS JS 9S", "7C 8C 9C 7D 8D 9D", "8S")
    bot = make_bot("pimc:worlds=100000,time=0.05", seed=1)
    bot.choose(observe(deal, 1), deal.legal_actions())
    assert 1 <= bot.last_worlds < 100000  # type: ignore[attr-defined]


# -- the heuristic's meld window ------------------------------------------------------


def _window_deal(rules: Rules = CLASSIC) -> Deal:
    """Seat 1 (elder) wins trick 1 holding K-Q of spades, K-Q of hearts and
    the seven of trumps (spades trumps, the indicator the ace of spades)."""
    deal = new_deal("7S KS QS KH QH 9C", "8C 8D 9D 7D TD JD", "AS", rules=rules)
    play(deal, "9C 8C")
    assert deal.in_window and deal.to_move == 1
    return deal


def test_heuristic_exchanges_the_seven_first_then_declares_the_best_meld_then_draws() -> None:
    deal = _window_deal()
    bot = make_bot("heuristic")
    seen = []
    while deal.in_window:
        action = bot.choose(observe(deal, 1), deal.legal_actions())
        seen.append(action)
        deal.play(action)
    assert seen[0] == DIX
    assert seen[1] == MELD_BASE + MELD_INDEX["KQS"]  # the trump marriage, 40
    assert set(seen[2:-1]) == {MELD_BASE + MELD_INDEX["KQH"]}
    assert seen[-1] == DRAW


def test_heuristic_declares_only_the_most_valuable_meld_with_one_meld_per_window() -> None:
    deal = _window_deal(CLASSIC.replace(one_meld_per_window=True))
    bot = make_bot("heuristic")
    deal.play(bot.choose(observe(deal, 1), deal.legal_actions()))  # dix
    action = bot.choose(observe(deal, 1), deal.legal_actions())
    assert action == MELD_BASE + MELD_INDEX["KQS"]


def test_heuristic_takes_a_led_ten_with_its_ace_when_it_holds_no_trump() -> None:
    deal = new_deal("TC 8H 9H 7D 8D 9D", "AC 7C JH QD KD TH", "7S")
    play(deal, "TC")
    action = make_bot("heuristic").choose(observe(deal, 0), deal.legal_actions())
    assert action == parse_card("AC")


def test_heuristic_throws_a_low_card_under_a_worthless_lead() -> None:
    deal = new_deal("7C 8H 9H 7D 8D 9D", "AC TC JH QD KD 8C", "7S")
    play(deal, "7C")
    action = make_bot("heuristic").choose(observe(deal, 0), deal.legal_actions())
    assert action == parse_card("8C")


# -- the ending --------------------------------------------------------------------------


def _ending(seed: int) -> Deal:
    rng = random.Random(seed)
    deck = list(range(32))
    rng.shuffle(deck)
    deal = Deal(deck, 0)
    while not deal.stock_empty:
        deal.push(POLICY.act(deal))
    return deal


@pytest.mark.parametrize("name", ["solver", "pimc", "ismcts"])
def test_search_bots_play_an_optimal_card_once_the_stock_is_empty(name: str) -> None:
    bot = make_bot(FAST[name], seed=1)
    for seed in range(5):
        deal = _ending(seed)
        while not deal.is_over:
            action = bot.choose(observe(deal, deal.to_move), deal.legal_actions())
            assert action in solve(deal).best
            deal.push(action)


# -- hints -------------------------------------------------------------------------------


def test_hint_is_exact_in_the_ending_and_names_an_optimal_card() -> None:
    deal = _ending(3)
    obs = observe(deal, deal.to_move)
    h = hint(obs, deal.legal_actions())
    assert isinstance(h, Hint) and h.exact
    solution = solve(deal)
    assert h.action in solution.best and h.value == solution.value
    action, value = h
    assert (action, value) == (h.action, h.value)


def test_hint_in_phase_one_estimates_every_legal_action() -> None:
    deal = new_deal("AS TS KS QS JS 9S", "7C 8C 9C 7D 8D 9D", "8S")
    legal = deal.legal_actions()
    h = hint(observe(deal, 1), legal, spec="pimc:worlds=3")
    assert not h.exact and h.action in legal
    assert set(h.values) == set(legal) and h.value == max(h.values.values())


def test_hint_for_a_meld_declared_at_once_gives_the_searched_margin_not_level() -> None:
    # The strongest bot declares a meld without searching (declare=now): the
    # hint must still give the deal margin the search expects after the
    # declaration, not a made-up 0 ("you should finish this deal level").
    deal = new_deal("KH QH AS 7C 8C 9C", "7D 8D 9D JD QD KD", "8H")
    play(deal, "AS 7D")
    obs = observe(deal, 1)
    legal = deal.legal_actions()
    spec = "best:time=0,worlds=40"
    h = hint(obs, legal, spec=spec, seed=0)
    assert h.action == parse_action("meld KQH") and not h.forced
    bot = make_bot(spec, seed=0)
    assert isinstance(bot, BestBot)
    estimated = bot.estimate(obs, [h.action])[h.action][0]
    assert h.values == {h.action: pytest.approx(estimated)}
    assert h.value == pytest.approx(estimated) and h.value > 40


def test_strongest_spec_builds_a_bot() -> None:
    assert make_bot(STRONGEST, seed=0).name in ("pimc", "ismcts", "best")


def test_public_deal_hides_the_opponents_unexposed_cards() -> None:
    deal = new_deal("AS TS KS QS JS 9S", "7C 8C 9C 7D 8D 9D", "8S")
    obs: Observation = observe(deal, 1)
    public = public_deal(obs)
    assert public.hand_mask(1) == deal.hand_mask(1)
    assert public.hand_mask(0) == 0


# -- marjolet bots -----------------------------------------------------------------------


def test_bots_command_lists_every_bot_with_its_parameters_and_defaults(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["bots", "--json"]) == 0
    listing = json.loads(capsys.readouterr().out)
    names = {row["name"]: row for row in listing["bots"]}
    for name in FAST:
        assert name in names
    params = {p["name"]: p["default"] for p in names["pimc"]["params"]}
    assert {"worlds", "time"} <= set(params)
    assert names["cheater"]["sees_hidden_cards"] is True
    assert listing["strongest"] == STRONGEST
    assert main(["bots"]) == 0
    assert "pimc" in capsys.readouterr().out


def test_bots_command_names_the_exec_form_and_the_player_levels(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["bots", "--json"]) == 0
    listing = json.loads(capsys.readouterr().out)
    assert "exec" not in {row["name"] for row in listing["bots"]}  # each of those builds
    (form,) = listing["forms"]
    assert {p["name"] for p in form["params"]} == {"path", "budget_s"}
    assert [lv["spec"] for lv in listing["levels"]] == [f"level:{lv.key}" for lv in LEVELS]
    assert main(["bots"]) == 0
    text = capsys.readouterr().out
    assert "exec:PATH or exec:path=PATH,budget_s=S: " in text and "level:expert = " in text


def test_a_player_level_is_a_bot_spec_built_as_the_bot_behind_it() -> None:
    for lv in LEVELS:
        assert make_bot(f"level:{lv.key}", seed=1).spec == make_bot(lv.spec, seed=1).spec
        assert check_spec(f"level:{lv.key}") is type(make_bot(lv.spec))  # serve --allow-bot
    with pytest.raises(BotSpecError, match=r"'level:god': no such level \(levels: level:beginner"):
        make_bot("level:god")
    with pytest.raises(BotSpecError, match=r"also exec:PATH, .* and level:KEY, a player level"):
        make_bot("beginner")


def test_parse_action_round_trip_for_window_actions() -> None:
    assert parse_action("dix") == DIX and parse_action("draw") == DRAW


class _Named(Bot):
    name = "test-named"

    def choose(self, obs: Observation, legal: Sequence[int]) -> int:
        return legal[0]


class _Misnamed(Bot):
    name = "test-other"

    def choose(self, obs: Observation, legal: Sequence[int]) -> int:
        return legal[0]


def test_register_refuses_what_no_spec_could_rebuild(monkeypatch: pytest.MonkeyPatch) -> None:
    # a class named otherwise built bots whose spec named an unknown bot (the
    # arena then failed with "unknown bot 'test-other'"), a spec-breaking name
    # was taken, and 'random', the arena's anchor, could be replaced unseen
    monkeypatch.setattr(registry, "_BOTS", dict(registry._BOTS))
    monkeypatch.setattr(registry, "_LOADED", dict(registry._LOADED))
    refused = {
        ("mine", _Misnamed): "the class's name is 'test-other'; set name = 'mine'",
        ("random", _Named): "the name is taken by marjolet.bots.random_bot:RandomBot",
        ("a:b", _Named): "a bot's name is letters, digits",
        ("", _Named): "a bot's name is letters, digits",
        ("x,y", _Named): "a bot's name is letters, digits",
        ("exec", _Named): "not 'exec' or 'level'",
        ("test-named", object): "give a Bot subclass",
    }
    for (name, target), message in refused.items():
        with pytest.raises(BotSpecError, match=re.escape(message)):
            registry.register(name, target)  # type: ignore[arg-type]
    assert "mine" not in registry.bot_names() and "a:b" not in registry.bot_names()
    assert registry.bot_class("random").__name__ == "RandomBot"
    registry.register("test-named", _Named)
    registry.register("test-named", _Named)  # again: nothing changes
    assert make_bot("test-named", seed=1).spec == "test-named"
    registry.register("test-lazy", f"{__name__}:_Misnamed")
    with pytest.raises(BotSpecError, match="whose name is 'test-other'"):
        make_bot("test-lazy")
