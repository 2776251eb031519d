"""What the server tells a browser reaches it in the page's language: every
refusal and notice carries a stable ``code`` and the catalogue ``key`` (with
its ``params``) of its text, which the page shows in French or English; the
server's English ``message`` is only the fallback for a key the page lacks."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from marjolet.bots import register
from marjolet.bots.base import Bot
from marjolet.i18n import catalogue, translate
from marjolet.observation import Observation
from marjolet.web.errors import ENGLISH_ONLY
from web_support import Browser, LiveServer, fast_config, live_server

WEB = Path(__file__).resolve().parent.parent / "src" / "marjolet" / "web"


@pytest.fixture
def server(tmp_path: Path) -> Any:
    with live_server(fast_config(tmp_path / "g.sqlite3", first_dealer=1)) as srv:
        yield srv


def friend_game(server: LiveServer) -> tuple[dict[str, Any], dict[str, Any], str]:
    game = server.new_game(mode="friend", name="Hôte")
    invite = game["invite_url"].split("#invite=")[1]
    with server.http() as client:
        joined = client.post(f"/api/games/{game['id']}/join", json={"invite": invite}).json()
    return game, joined, invite


def test_a_hint_asked_out_of_turn_is_refused_in_words_of_the_french_catalogue(
    server: LiveServer,
) -> None:
    game, joined, _ = friend_game(server)
    with Browser.open(server, game["id"], {"type": "hello", "token": joined["token"]}) as guest:
        assert guest.next_state()["to_move"] == 0  # seat 1 dealt: the host leads
        guest.send({"type": "hint"})
        err = guest.error()
    assert err["code"] == "not_your_turn"  # the code programs read is unchanged
    assert err["message"] == "a hint is for your own turn"  # the English fallback too
    assert err["key"] == "error.hint_not_your_turn"
    french = translate(err["key"], "fr", **err["params"])
    assert french == "un conseil ne se demande que lorsque c’est à vous de jouer"
    assert translate(err["key"], "en", **err["params"]) == "a hint is only for your own turn"


def test_stale_and_illegal_moves_name_their_catalogue_text_and_its_values(
    server: LiveServer,
) -> None:
    game, _, _ = friend_game(server)
    with Browser.open(server, game["id"], {"type": "hello", "token": game["token"]}) as host:
        state = host.next_state()
        host.send({"type": "act", "action": state["legal"][0]["action"], "version": 0})
        err = host.error()
        mine = set(state["hands"][0]["cards"])
        host.act(next(c for c in ("AS", "TS", "KS", "QS", "JS", "9S", "8S", "7S") if c not in mine))
        illegal = host.error()
    assert (err["code"], err["key"]) == ("stale", "error.stale")
    assert err["params"] == {"sent": 0, "now": state["version"]}
    assert translate(err["key"], "fr").startswith("la position a changé")
    assert (illegal["code"], illegal["key"], illegal["params"]) == (
        "illegal",
        "error.illegal_not_held",
        {"rule": "R7", "refusal": "not_held"},  # for programs; the player reads words
    )
    assert translate(illegal["key"], "fr", **illegal["params"]) == "vous n’avez pas cette carte"


def test_a_refused_move_is_told_in_words_without_the_rule_s_id() -> None:
    from marjolet.web.errors import ILLEGAL_KEYS

    for key in [*ILLEGAL_KEYS.values(), "error.illegal"]:
        for lang in ("en", "fr"):
            text = translate(key, lang, rule="R16")
            assert text != key and not re.search(r"\bR\d", text), (key, lang, text)


def test_every_refusal_code_of_the_engine_has_the_player_s_words() -> None:
    from marjolet.engine import REFUSAL_CODES
    from marjolet.web.errors import ILLEGAL_KEYS

    assert set(ILLEGAL_KEYS) == set(REFUSAL_CODES)


def test_a_refused_seven_exchange_is_worded_by_its_refusal_code() -> None:
    from marjolet.errors import IllegalTurnError
    from marjolet.web.errors import from_turn

    refused = IllegalTurnError(
        "illegal action dix: R18: ...", action=0, rule="R18", why={"code": "no_seven"}
    )
    err = from_turn(refused, 3, 3)
    assert err.key == "error.illegal_no_seven"
    assert err.params == {"rule": "R18", "refusal": "no_seven"}
    assert translate(err.key, "fr") == "vous n’avez pas le sept d’atout"


def test_api_refusals_carry_their_catalogue_text(server: LiveServer) -> None:
    game, _, invite = friend_game(server)
    with server.http() as client:
        again = client.post(f"/api/games/{game['id']}/join", json={"invite": invite})
        rematch = client.post(f"/api/games/{game['id']}/rematch", json={"token": "nobody"})
        missing = client.post("/api/games/nothing-here/join", json={"invite": "x"})
    assert again.status_code == 403
    error = again.json()["error"]
    assert (error["code"], error["key"]) == ("invite_used", "error.invite_used")
    assert "already used" in error["message"]
    assert translate(error["key"], "fr") == "ce lien d’invitation a déjà servi"
    assert rematch.status_code == 403 and rematch.json()["error"]["key"] == "error.bad_token"
    assert missing.status_code == 404 and missing.json()["error"]["key"] == "error.not_found"


class BrokenBot(Bot):
    name = "test-broken-i18n"
    description = "always fails (tests only)"

    def choose(self, obs: Observation, legal: Sequence[int]) -> int:
        raise RuntimeError("this bot is broken")


def test_the_notice_of_a_failed_bot_move_is_a_catalogue_text_with_the_bot_name(
    tmp_path: Path,
) -> None:
    register("test-broken-i18n", BrokenBot)
    config = fast_config(
        tmp_path / "g.sqlite3", allowed_bots={"broken": "test-broken-i18n"}, first_dealer=0
    )
    with live_server(config) as server:
        game = server.new_game(mode="bot", bot="broken")  # the bot (seat 1) leads at once
        with Browser.open(server, game["id"], {"type": "hello", "token": game["token"]}) as me:
            notice = None
            for _ in range(40):  # play on until a failed bot move is told
                if me.my_turn():
                    assert me.state is not None
                    me.act(me.state["legal"][0]["action"])
                    me.state = None
                msg = me.recv()
                if msg["type"] == "notice":
                    notice = msg
                    break
    assert notice is not None
    assert notice["key"] == "notice.bot_replaced"
    name = notice["params"]["name"]
    assert name.startswith("broken")
    assert translate(notice["key"], "fr", **notice["params"]) == (
        f"{name} n’a pas su répondre\u00a0: un coup légal tiré au hasard a été joué à sa place"
    )


# A refusal in the server's code: WebError("code", ...), in any module of marjolet.web.
CODE = re.compile(r"""WebError\(\s*"([a-z_]+)",""")


def test_every_refusal_code_of_the_server_has_a_text_in_both_languages() -> None:
    codes = set()
    for path in WEB.rglob("*.py"):
        codes |= set(CODE.findall(path.read_text(encoding="utf-8")))
    assert {"hint", "not_your_turn", "stale", "invite_used", "rate_limited"} <= codes
    assert {"too_many_games", "not_over", "bad_token", "not_finished"} <= codes  # HTTP ones
    codes -= ENGLISH_ONLY
    for lang in ("fr", "en"):
        missing = sorted(c for c in codes if f"error.{c}" not in catalogue(lang))
        assert not missing, (lang, missing)
    # the driver's refusals passed on as they are (errors.from_turn's last line)
    for code in ("match_over", "illegal", "stale", "not_your_turn"):
        assert f"error.{code}" in catalogue("fr")


def test_every_bot_of_the_lobby_is_described_in_both_languages() -> None:
    from marjolet.bots.catalogue import BotCatalogue
    from marjolet.bots.registry import bot_class

    families = {c.family for c in BotCatalogue.build().choices.values()}
    # the bots marjolet ships (tests register others)
    families = {f for f in families if bot_class(f).__module__.startswith("marjolet.")}
    assert {"random", "heuristic", "pimc", "best"} <= families
    for lang in ("fr", "en"):
        missing = sorted(f for f in families if f"bot.{f}" not in catalogue(lang))
        assert not missing, (lang, missing)
