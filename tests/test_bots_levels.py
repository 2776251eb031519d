"""The four player levels: ordered, named in both languages in plain words,
each backed by a bot that builds; an unknown level is one clear error."""

from __future__ import annotations

import re

import pytest

from marjolet.bots import STRONGEST, make_bot
from marjolet.bots.levels import DEFAULT_LEVEL, LEVELS, LevelError, level
from marjolet.i18n import catalogue

#: Words a player must not see in a level's name or sentence.
JARGON = re.compile(
    r"monte|carlo|mcts|pimc|heuristi|algorithm|algorithme|search|recherche|solver|"
    r"kernel|noyau|spec|worlds|R\d", re.IGNORECASE,
)


def test_four_levels_from_beginner_to_expert() -> None:
    assert [lv.key for lv in LEVELS] == ["beginner", "amateur", "skilled", "expert"]
    assert level("expert").spec == STRONGEST
    assert level(DEFAULT_LEVEL) in LEVELS


@pytest.mark.parametrize("lang", ["fr", "en"])
def test_every_level_has_a_name_and_a_plain_sentence_in_both_languages(lang: str) -> None:
    names = set()
    for lv in LEVELS:
        assert f"player_level.{lv.key}" in catalogue(lang)
        assert f"player_level.{lv.key}.about" in catalogue(lang)
        name, about = lv.name(lang), lv.about(lang)
        names.add(name)
        assert about.endswith(".") and len(about.split()) >= 5
        assert not JARGON.search(name) and not JARGON.search(about), (lv.key, lang)
    assert len(names) == len(LEVELS)
    assert level("beginner").name("fr") == "Débutant"
    assert level("skilled").name("fr") == "Confirmé"


def test_every_level_builds_its_bot_and_shows_no_spec() -> None:
    for lv in LEVELS:
        assert lv.bot(seed=1).spec == make_bot(lv.spec).spec
        public = lv.public("fr")
        assert set(public) == {"key", "name", "about"}
        assert lv.spec not in public.values()


@pytest.mark.parametrize("key", ["master", "", "Expert", None, 3])
def test_an_unknown_level_is_one_clear_error(key: object) -> None:
    with pytest.raises(LevelError) as caught:
        level(key)  # type: ignore[arg-type]
    message = str(caught.value)
    assert "\n" not in message and "beginner" in message
