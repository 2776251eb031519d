"""The lobby (marjolet.web.lobby): seeks, the accept race, seat ownership,
and the "Play now" pairing queue."""

from __future__ import annotations

import threading

import pytest
from argon2 import PasswordHasher
from sqlalchemy import insert

from marjolet.web.accounts import Account, AccountError, Accounts
from marjolet.web.db import game_players, make_engine, migrate
from marjolet.web.lobby import Lobby, LobbyError, Pairing, Seeker, Waiting
from web_support import Clock

FAST = PasswordHasher(time_cost=1, memory_cost=8, parallelism=1)
CLASSIC = {"profile": "classic"}


@pytest.fixture
def setup(database_url: str) -> tuple[Lobby, Accounts]:
    engine = make_engine(database_url)
    migrate(engine)
    return Lobby(engine), Accounts(engine, hasher=FAST)


def member(accounts: Accounts, name: str) -> Seeker:
    account: Account = accounts.create(name, "long enough")[0]
    return Seeker(account.name, account)


def test_a_posted_seek_is_listed_with_its_player_rating_and_rules(
    setup: tuple[Lobby, Accounts],
) -> None:
    lobby, accounts = setup
    alice = member(accounts, "Alice")
    seek, token = lobby.post(alice, CLASSIC, rated=True)
    listed = [s.to_json() for s in lobby.open_seeks()]
    assert listed == [{"id": seek.id, "player": "Alice", "rating": 1500, "rules": CLASSIC,
                       "rated": True, "days_per_move": None}]
    assert token and seek.status == "open"


def test_a_rated_seek_needs_a_login(setup: tuple[Lobby, Accounts]) -> None:
    lobby, _ = setup
    with pytest.raises(LobbyError) as error:
        lobby.post(Seeker("guest"), CLASSIC, rated=True)
    assert (error.value.code, error.value.status) == ("login_required", 401)


def test_a_guest_may_accept_an_unrated_seek_but_not_a_rated_one(
    setup: tuple[Lobby, Accounts],
) -> None:
    lobby, accounts = setup
    alice = member(accounts, "Alice")
    rated, _ = lobby.post(alice, CLASSIC, rated=True)
    casual, _ = lobby.post(alice, CLASSIC, rated=False)
    with pytest.raises(LobbyError) as error:
        lobby.accept(rated.id, Seeker("guest"))
    assert error.value.status == 401
    assert lobby.accept(casual.id, Seeker("guest")).status == "matched"


def test_nobody_accepts_their_own_seek(setup: tuple[Lobby, Accounts]) -> None:
    lobby, accounts = setup
    alice = member(accounts, "Alice")
    seek, _ = lobby.post(alice, CLASSIC, rated=True)
    with pytest.raises(LobbyError) as error:
        lobby.accept(seek.id, alice)
    assert error.value.code == "own_seek"


def test_exactly_one_of_many_simultaneous_acceptors_wins(setup: tuple[Lobby, Accounts]) -> None:
    lobby, accounts = setup
    seek, _ = lobby.post(member(accounts, "Alice"), CLASSIC, rated=True)
    rivals = [member(accounts, f"Rival{i}") for i in range(6)]
    wins: list[str] = []
    losses: list[str] = []

    def take(who: Seeker) -> None:
        try:
            lobby.accept(seek.id, who)
            wins.append(who.name)
        except LobbyError as exc:
            losses.append(exc.code)

    threads = [threading.Thread(target=take, args=(r,)) for r in rivals]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(wins) == 1 and losses == ["seek_gone"] * 5
    assert lobby.open_seeks() == []


def test_the_matched_game_is_found_by_both_accounts_with_their_seats(
    setup: tuple[Lobby, Accounts],
) -> None:
    lobby, accounts = setup
    alice, bruno = member(accounts, "Alice"), member(accounts, "Bruno")
    seek, _ = lobby.post(alice, CLASSIC, rated=True, days_per_move=3)
    lobby.accept(seek.id, bruno)
    lobby.attach(seek.id, "game-1", 1, bruno)
    assert alice.account and bruno.account
    assert lobby.games_of(alice.account.id) == [("game-1", 1, True)]
    assert lobby.games_of(bruno.account.id) == [("game-1", 0, True)]
    assert lobby.seat_of("game-1", bruno.account.id) == 0
    assert lobby.holders("game-1") == {1: alice.account.id, 0: bruno.account.id}
    after = lobby.get(seek.id)
    assert after is not None and (after.game_id, after.seat) == ("game-1", 1)


def test_only_the_owner_token_or_account_owns_a_seek(setup: tuple[Lobby, Accounts]) -> None:
    lobby, accounts = setup
    guest = Seeker("Zoé")
    seek, token = lobby.post(guest, CLASSIC, rated=False, owner_key="127.0.0.9")
    assert lobby.owns(seek, token, guest, "127.0.0.9")
    assert not lobby.owns(seek, "forged", guest, "127.0.0.9")
    assert not lobby.owns(seek, None, guest, "127.0.0.9")
    alice = member(accounts, "Alice")
    mine, _ = lobby.post(alice, CLASSIC, rated=False)
    assert lobby.owns(mine, None, alice)
    assert not lobby.owns(mine, None, member(accounts, "Bruno"))


def test_a_cancelled_seek_leaves_the_lobby_and_cannot_be_accepted(
    setup: tuple[Lobby, Accounts],
) -> None:
    lobby, accounts = setup
    seek, _ = lobby.post(member(accounts, "Alice"), CLASSIC, rated=False)
    assert lobby.cancel(seek.id)
    assert not lobby.cancel(seek.id)
    with pytest.raises(LobbyError) as error:
        lobby.accept(seek.id, Seeker("guest"))
    assert error.value.code == "seek_gone"


def test_an_owner_has_at_most_three_open_seeks(setup: tuple[Lobby, Accounts]) -> None:
    lobby, accounts = setup
    alice = member(accounts, "Alice")
    for _ in range(3):
        lobby.post(alice, CLASSIC, rated=False)
    with pytest.raises(LobbyError) as error:
        lobby.post(alice, CLASSIC, rated=False)
    assert error.value.status == 429


@pytest.mark.parametrize("days", [0, 15, -1, 2.5, "3", True])
def test_days_per_move_is_a_whole_number_from_1_to_14(
    setup: tuple[Lobby, Accounts], days: object
) -> None:
    lobby, _ = setup
    with pytest.raises(LobbyError) as error:
        lobby.post(Seeker("guest"), CLASSIC, rated=False, days_per_move=days)  # type: ignore[arg-type]
    assert error.value.code == "bad_days"


def test_an_unknown_seek_is_404(setup: tuple[Lobby, Accounts]) -> None:
    lobby, _ = setup
    with pytest.raises(LobbyError) as error:
        lobby.accept("nope", Seeker("guest"))
    assert error.value.status == 404


def test_play_now_pairs_close_ratings_under_the_same_rules_first() -> None:
    pairing = Pairing(base_gap=100, widen_per_s=10)
    for key, rating, rules in [("a", 1500, "c"), ("b", 1580, "c"), ("c", 1510, "c"),
                               ("d", 1505, "e")]:
        pairing.join(Waiting(key, rating, rules, since=0.0))
    pairs = pairing.pairs(now=0.0)
    assert [(a.key, b.key) for a, b in pairs] == [("a", "c")]
    assert set(pairing.queue) == {"b", "d"}


def test_play_now_widens_the_accepted_gap_with_the_wait() -> None:
    pairing = Pairing(base_gap=100, widen_per_s=10, max_gap=600)
    pairing.join(Waiting("a", 1500, "c", since=0.0))
    pairing.join(Waiting("b", 1800, "c", since=5.0))
    assert pairing.pairs(now=10.0) == []  # gap 200 after 10 s
    assert len(pairing.pairs(now=20.0)) == 1  # gap 300 after 20 s


def test_play_now_offers_the_computer_after_the_chosen_wait() -> None:
    pairing = Pairing()
    pairing.join(Waiting("a", 1500, "c", since=0.0, bot_after=30.0))
    pairing.join(Waiting("b", 2400, "e", since=0.0))
    assert pairing.due_for_bot(now=29.0) == []
    assert [w.key for w in pairing.due_for_bot(now=30.0)] == ["a"]
    assert set(pairing.queue) == {"b"}


def test_play_now_never_pairs_two_places_of_one_browser() -> None:
    pairing = Pairing()
    pairing.join(Waiting("tab1", 1500, "c", since=0.0, browser="b1"))
    pairing.join(Waiting("tab2", 1500, "c", since=0.0, browser="b1"))
    assert pairing.pairs(100.0) == []
    pairing.join(Waiting("other", 1500, "c", since=0.0, browser="b2"))
    assert len(pairing.pairs(100.0)) == 1


def test_play_now_never_pairs_an_account_with_itself() -> None:
    pairing = Pairing()
    pairing.join(Waiting("tab1", 1500, "c", since=0.0, account_id=7))
    pairing.join(Waiting("tab2", 1500, "c", since=0.0, account_id=7))
    assert pairing.pairs(now=100.0) == []
    pairing.join(Waiting("guest", 1500, "c", since=0.0))
    assert len(pairing.pairs(now=100.0)) == 1


def test_a_reopened_seek_is_back_in_the_lobby(setup: tuple[Lobby, Accounts]) -> None:
    lobby, accounts = setup
    seek, _ = lobby.post(member(accounts, "Alice"), CLASSIC, rated=False)
    lobby.accept(seek.id, Seeker("guest"))
    lobby.reopen(seek.id)
    assert [s.id for s in lobby.open_seeks()] == [seek.id]


def test_a_live_seek_whose_owner_gave_no_sign_of_life_leaves_the_lobby_and_cannot_be_accepted(
    database_url: str,
) -> None:
    engine = make_engine(database_url)
    migrate(engine)
    clock = Clock()
    lobby, accounts = Lobby(engine, clock=clock, timeout=90.0), Accounts(engine, hasher=FAST)
    alice = member(accounts, "Alice")
    seek, _ = lobby.post(alice, CLASSIC, rated=True)
    clock.now += 91.0  # the tab was closed: no follow since
    assert lobby.open_seeks() == []
    with pytest.raises(LobbyError) as error:
        lobby.accept(seek.id, member(accounts, "Bob"))
    assert error.value.code == "seek_gone"
    assert lobby.cancel(seek.id)  # its owner may still withdraw it


def test_each_sign_of_life_keeps_a_live_seek_listed_and_a_correspondence_seek_needs_none(
    database_url: str,
) -> None:
    engine = make_engine(database_url)
    migrate(engine)
    clock = Clock()
    lobby, accounts = Lobby(engine, clock=clock, timeout=90.0), Accounts(engine, hasher=FAST)
    alice = member(accounts, "Alice")
    live, _ = lobby.post(alice, CLASSIC, rated=False)
    slow, _ = lobby.post(alice, CLASSIC, rated=False, days_per_move=3)
    for _ in range(5):
        clock.now += 60.0
        assert lobby.touch([live.id]) == 1
    assert {s.id for s in lobby.open_seeks()} == {live.id, slow.id}
    assert lobby.accept(live.id, Seeker("guest")).status == "matched"


@pytest.mark.parametrize("address", ["", "address:a"])  # counted by name, or by address
def test_live_seeks_left_by_their_owner_do_not_count_against_the_three_open_ones(
    database_url: str, address: str
) -> None:
    engine = make_engine(database_url)
    migrate(engine)
    clock = Clock()
    lobby = Lobby(engine, clock=clock, timeout=90.0)
    for _ in range(3):
        lobby.post(Seeker("Guest"), CLASSIC, rated=False, guest_key=address)
    with pytest.raises(LobbyError):
        lobby.post(Seeker("Guest"), CLASSIC, rated=False, guest_key=address)
    clock.now += 91.0  # the page was closed, then opened again
    again = lobby.post(Seeker("Guest"), CLASSIC, rated=False, guest_key=address)[0]
    assert again.status == "open"


def test_a_taken_live_seek_withdraws_the_other_live_seeks_of_both_players(
    setup: tuple[Lobby, Accounts],
) -> None:
    lobby, accounts = setup
    alice, bob, carol = (member(accounts, name) for name in ("Alice", "Bob", "Carol"))
    first, _ = lobby.post(alice, CLASSIC, rated=True)
    second, _ = lobby.post(alice, CLASSIC, rated=False)
    slow, _ = lobby.post(alice, CLASSIC, rated=True, days_per_move=3)
    bobs, _ = lobby.post(bob, CLASSIC, rated=True)
    carols, _ = lobby.post(carol, CLASSIC, rated=True)
    lobby.accept(first.id, bob)
    assert {s.id for s in lobby.open_seeks()} == {slow.id, carols.id}
    for gone in (second, bobs):
        with pytest.raises(LobbyError) as error:
            lobby.accept(gone.id, carol)
        assert error.value.code == "seek_gone"


def test_two_guests_of_one_name_at_two_addresses_do_not_share_their_limit(
    setup: tuple[Lobby, Accounts],
) -> None:
    lobby, _ = setup
    for address in ("address:a", "address:b"):
        for _ in range(3):
            lobby.post(Seeker("Invité 371"), CLASSIC, rated=False, guest_key=address)
    with pytest.raises(LobbyError) as error:
        lobby.post(Seeker("another name"), CLASSIC, rated=False, guest_key="address:a")
    assert error.value.status == 429


@pytest.mark.parametrize("address", ["", "address:a", "account"])
def test_live_seeks_left_silent_cannot_be_revived_past_the_three_open_ones(
    database_url: str, address: str
) -> None:
    """Three live seeks left without a sign of life, three new ones posted
    (the silent ones do not count): following the old ones again must not
    put six in the lobby. A new offer withdraws its owner's silent ones."""
    engine = make_engine(database_url)
    migrate(engine)
    clock = Clock()
    lobby = Lobby(engine, clock=clock, timeout=90.0)
    who = member(Accounts(engine, hasher=FAST), "Alice") if address == "account" else Seeker("G")
    key = "" if address == "account" else address
    old = [lobby.post(who, CLASSIC, rated=False, guest_key=key)[0].id for _ in range(3)]
    clock.now += 91.0
    new = [lobby.post(who, CLASSIC, rated=False, guest_key=key)[0].id for _ in range(3)]
    lobby.touch(old + new)  # the owner's page follows all six
    assert {s.id for s in lobby.open_seeks()} == set(new)
    assert {lobby.get(i).status for i in old} == {"cancelled"}  # type: ignore[union-attr]


def test_an_account_whose_offer_was_just_taken_is_not_deleted_before_its_game_is_made(
    setup: tuple[Lobby, Accounts],
) -> None:
    """Between the accept (the offer matched) and the game made from it
    (its seats attached) the poster is being seated: deleting the account
    then would seat the acceptor against nobody, under the erased name."""
    lobby, accounts = setup
    alice, bob = member(accounts, "Alice"), member(accounts, "Bob")
    seek, _ = lobby.post(alice, CLASSIC, rated=True)
    lobby.accept(seek.id, bob)
    for who in (alice, bob):
        assert who.account is not None
        with pytest.raises(AccountError) as error:
            accounts.delete(who.account.id, "long enough")
        assert error.value.code == "games_in_progress"
    lobby.attach(seek.id, "G1", 0, bob)
    assert lobby.seat_of("G1", alice.account.id) == 0  # type: ignore[union-attr]


def test_an_account_seated_by_play_now_is_not_deleted_before_its_game_is_made(
    setup: tuple[Lobby, Accounts],
) -> None:
    """A "Play now" pair holds its seats (game_players) before its game
    row exists: that is a game in progress too."""
    lobby, accounts = setup
    alice = member(accounts, "Alice")
    assert alice.account is not None
    with lobby.engine.begin() as db:
        db.execute(
            insert(game_players).values(
                game_id="being-made", seat=0, account_id=alice.account.id, rated=False
            )
        )
    with pytest.raises(AccountError) as error:
        accounts.delete(alice.account.id, "long enough")
    assert error.value.code == "games_in_progress"
