"""The shared observation tensor: layout, documentation, values, and R23
(a seat's tensor never depends on cards hidden from it)."""

from __future__ import annotations

import random
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from helpers import random_deal, walk
from marjolet.actions import DIX, DRAW, MELD_BASE
from marjolet.bots import make_bot
from marjolet.cards import ALL_CARDS, mask_cards
from marjolet.decks import STOCK_START, dealt_positions
from marjolet.engine import MELDS, Deal
from marjolet.errors import MarjoletError
from marjolet.match import Match
from marjolet.observation import observe, sample_world
from marjolet.rl.encoder import (
    FIELD,
    FIELDS,
    NUM_ACTIONS,
    OBSERVATION_SIZE,
    action_mask,
    describe,
    encode,
    encode_dealing,
    field_table,
    observation_high,
)
from marjolet.rules import CLASSIC, ENCYCLOPEDIA, Rules

DOCS = Path(__file__).resolve().parent.parent / "docs" / "rl.md"


def plane(tensor: np.ndarray, name: str) -> int:
    """A card plane of the tensor back as a card mask."""
    f = FIELD[name]
    bits = tensor[f.offset : f.offset + f.size]
    return sum(1 << i for i in range(32) if bits[i])


def test_fields_tile_the_tensor_without_gaps() -> None:
    offset = 0
    for f in FIELDS:
        assert f.offset == offset, f.name
        offset += f.size
    assert offset == OBSERVATION_SIZE
    assert NUM_ACTIONS == 46
    assert len({f.name for f in FIELDS}) == len(FIELDS)


def test_docs_table_matches_the_encoder_layout() -> None:
    text = DOCS.read_text(encoding="utf-8")
    assert field_table() in text, "docs/rl.md's table is out of date: paste field_table()"
    assert f"{OBSERVATION_SIZE} entries" in text


def test_card_planes_hold_what_the_observation_says() -> None:
    for deal in walk(11):
        for seat in (0, 1):
            obs = observe(deal, seat)
            x = encode(obs)
            opp = seat ^ 1
            assert plane(x, "hand") == obs.hand.mask
            assert plane(x, "my_exposed") == obs.exposed[seat].mask
            assert plane(x, "opp_exposed") == obs.exposed[opp].mask
            assert plane(x, "opp_known") == obs.opponent_known.mask
            assert plane(x, "unseen") == obs.unseen.mask
            assert plane(x, "my_won") == obs.won[seat].mask
            assert plane(x, "opp_won") == obs.won[opp].mask
            assert plane(x, "lead") == (0 if obs.lead is None else 1 << obs.lead)
            assert plane(x, "indicator") == (0 if obs.indicator is None else 1 << obs.indicator)
            assert x[FIELD["trump"].offset + obs.trump] == 1.0
            assert x[FIELD["my_turn"].offset] == (deal.to_move == seat)
            assert x[FIELD["my_points"].offset] == pytest.approx(deal.points[seat] / 100)
            assert x[FIELD["opp_points"].offset] == pytest.approx(deal.points[opp] / 100)
            assert np.all(x >= 0) and np.all(x <= observation_high(CLASSIC))


def test_melds_and_seven_flags_follow_the_scoring_seat() -> None:
    seen_meld = seen_seven = False
    for seed in range(40):
        for deal in walk(seed):
            for seat in (0, 1):
                x = encode(observe(deal, seat))
                mine = FIELD["my_melds"].offset
                theirs = FIELD["opp_melds"].offset
                s = deal.state
                for m in range(12):
                    assert x[mine + m] == (s[MELDS + seat] >> m & 1)
                    assert x[theirs + m] == (s[MELDS + (seat ^ 1)] >> m & 1)
                seven = deal.seven_scored_by
                assert x[FIELD["my_seven"].offset] == (seven == seat)
                assert x[FIELD["opp_seven"].offset] == (seven == seat ^ 1)
                seen_meld |= bool(s[MELDS] | s[MELDS + 1])
                seen_seven |= seven is not None
    assert seen_meld and seen_seven


def test_rules_fields_describe_the_variations() -> None:
    deal = Deal(list(range(32)), 0, ENCYCLOPEDIA.replace(jack_queen="same-suit"))
    d = describe(encode(observe(deal, 1)))
    assert "rule_dix_on_play" not in d
    assert d["rule_same_suit"] == [1.0]
    assert d["rule_all_tricks_bonus"] == [pytest.approx(40 / 50)]


def test_describe_reads_any_one_tensor_and_refuses_other_shapes() -> None:
    tensor = encode(observe(Deal(list(range(32)), 0), 1))
    expected = describe(tensor)
    assert describe(tensor.tolist()) == expected  # a list, as from JSON
    assert describe(tensor[np.newaxis, :]) == expected  # a batch of one row
    for bad, shape in [
        (tensor[:10], "(10,)"),
        (np.stack([tensor, tensor]), "(2, 335)"),
        ({"observation": tensor}, "dict"),
        (None, "got None"),
    ]:
        says = rf"one observation tensor of 335 .*{re.escape(shape)}"
        with pytest.raises(MarjoletError, match=says):
            describe(bad)  # type: ignore[arg-type]
    with pytest.raises(MarjoletError) as refused:
        describe(tensor[:10])
    assert "batch" not in str(refused.value)  # a short tensor is no batch


def _swap_hidden(deal: Deal, seat: int, rng: random.Random) -> Deal | None:
    """The same actions from a deck where two cards hidden from ``seat`` (one
    in the opponent's untouched hand, one in the undrawn stock) trade places;
    ``None`` when no such pair exists."""
    assert deal.deck is not None
    obs = observe(deal, seat)
    opp = seat ^ 1
    hidden_in_hand = mask_cards(deal.hand_mask(opp) & obs.unseen.mask)
    drawn = 2 * (deal.tricks_played - (1 if deal.in_window else 0))
    undrawn = [deal.deck[STOCK_START + i] for i in range(drawn, 19)]
    hidden_in_stock = [c for c in undrawn if obs.unseen.mask >> c & 1]
    # the card must have sat in the opponent's hand since the deal (never used)
    dealt_opp = {deal.deck[p] for p in dealt_positions(deal.rules.deal_pattern, deal.dealer)[opp]}
    candidates = [c for c in hidden_in_hand if c in dealt_opp]
    if not candidates or not hidden_in_stock:
        return None
    a, b = rng.choice(candidates), rng.choice(hidden_in_stock)
    deck = [b if c == a else a if c == b else c for c in deal.deck]
    other = Deal(deck, deal.dealer, deal.rules)
    for move in deal.moves:
        other.play(move)  # checked: the same history stays legal
    assert other.hand_mask(opp) != deal.hand_mask(opp)
    return other


@pytest.mark.parametrize("rules", [CLASSIC, ENCYCLOPEDIA.replace(deal_pattern=(2, 2, 2))])
def test_r23_tensor_is_identical_across_worlds_differing_only_in_hidden_cards(
    rules: Rules,
) -> None:
    rng = random.Random(7)
    swapped = 0
    for seed in range(60):
        deal = random_deal(seed, rules, stop=rng.randrange(1, 60))
        if deal.is_over:
            continue
        for seat in (0, 1):
            mine = encode(observe(deal, seat))
            other = _swap_hidden(deal, seat, rng)
            if other is not None:
                swapped += 1
                assert np.array_equal(encode(observe(other, seat)), mine)
            # the engine's sampler: any world consistent with the observation
            obs = observe(deal, seat)
            for _ in range(3):
                world = sample_world(obs, rng)
                assert np.array_equal(encode(observe(world, seat)), mine)
    assert swapped > 20


def test_r23_the_opponents_hidden_cards_never_reach_the_tensor() -> None:
    for deal in walk(3):
        if deal.stock_empty:
            break
        for seat in (0, 1):
            obs = observe(deal, seat)
            x = encode(obs)
            hidden = deal.hand_mask(seat ^ 1) & ~obs.opponent_known.mask & ALL_CARDS
            for name in ("hand", "opp_known", "opp_exposed", "my_won", "opp_won", "lead"):
                assert plane(x, name) & hidden == 0, name


def test_action_mask_marks_exactly_the_legal_ids() -> None:
    legal = [3, 17, MELD_BASE + 4, DIX, DRAW]
    mask = action_mask(legal)
    assert mask.dtype == np.int8 and mask.shape == (46,)
    assert [i for i in range(46) if mask[i]] == legal
    assert not action_mask([]).any()


def test_dealing_tensor_shows_only_the_cards_received() -> None:
    x = encode_dealing(1, 0, (1 << 3) | (1 << 30), 12, CLASSIC)
    assert plane(x, "hand") == (1 << 3) | (1 << 30)
    assert plane(x, "indicator") == 1 << 12
    assert x[FIELD["trump"].offset + 1] == 1.0
    assert x[FIELD["i_am_dealer"].offset] == 0.0
    y = encode_dealing(0, 0, 0, None, CLASSIC)
    assert plane(y, "indicator") == 0 and y[FIELD["i_am_dealer"].offset] == 1.0


def test_encode_writes_into_a_given_buffer() -> None:
    deal = random_deal(5, stop=20)
    out = np.full(OBSERVATION_SIZE, 9.0, dtype=np.float32)
    got = encode(observe(deal, 0), out)
    assert got is out
    assert np.array_equal(out, encode(observe(deal, 0)))


def test_importing_marjolet_rl_and_listing_its_bots_loads_no_third_party_library() -> None:
    code = (
        "import sys, marjolet.rl, marjolet.decks, marjolet.rl.episode\n"
        "from marjolet.bots.registry import bot_class\n"
        "bot_class('linear'), bot_class('openspiel-ismcts')\n"
        "bad = [m for m in ('numpy', 'pettingzoo', 'pyspiel', 'open_spiel', 'gymnasium') "
        "if m in sys.modules]\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_core_modules_never_import_the_adapters() -> None:
    src = Path(__file__).resolve().parent.parent / "src" / "marjolet"
    for path in src.glob("*.py"):
        text = path.read_text(encoding="utf-8")
        assert not re.search(r"^\s*(from|import) marjolet\.rl", text, re.M), path.name


def test_rl_bots_without_the_rl_extra_fail_with_a_clear_bot_spec_error() -> None:
    code = (
        "import sys\n"
        "for m in ('numpy', 'pyspiel', 'open_spiel'): sys.modules[m] = None\n"
        "from marjolet.bots import BotSpecError, make_bot\n"
        "for spec in ('openspiel-ismcts', 'linear:weights=x.npz'):\n"
        "    try:\n"
        "        make_bot(spec)\n"
        "    except BotSpecError as exc:\n"
        "        print(exc)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    lines = out.stdout.splitlines()
    assert len(lines) == 2 and all("pip install 'marjolet[rl]'" in line for line in lines)


def test_the_match_totals_fields_are_those_before_the_deal_even_once_it_is_over() -> None:
    """``my_total``/``opp_total`` are the totals before this deal (docs/rl.md):
    the final observation of a deal does not count the deal twice."""
    match = Match(CLASSIC.replace(target=300), seed=4)
    before = (0, 0)
    bots = [make_bot("random", seed=1), make_bot("random", seed=2)]
    while not match.is_over:
        deal = match.start_deal()
        while not deal.is_over:
            mover = deal.to_move
            match.play(bots[mover].choose(match.observation(mover), deal.legal_actions()))
        for seat in (0, 1):
            obs = match.observation(seat)
            assert obs.totals == before
            tensor = encode(obs)
            assert tensor[FIELD["my_total"].offset] == pytest.approx(before[seat] / 300)
            assert tensor[FIELD["opp_total"].offset] == pytest.approx(before[1 - seat] / 300)
        before = match.totals
