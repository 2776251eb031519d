"""Accounts, sessions and rated results (marjolet.web.accounts) and the
database migrations under them (marjolet.web.db), on SQLite files."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any, Literal

import pytest
from alembic.config import Config
from argon2 import PasswordHasher
from sqlalchemy import inspect, select, text

from marjolet.web.accounts import AccountError, Accounts, mixed_scripts, name_look, token_digest
from marjolet.web.db import (
    HEAD_REVISION,
    MIGRATIONS,
    current_revision,
    make_engine,
    migrate,
    sessions,
)
from marjolet.web.ratings import Rating, RatingSystem
from web_support import Clock, move_schema

HEAD = HEAD_REVISION

#: The tables as marjolet created them by hand before the migrations
#: (schema version 2, SQLite's user_version).
LEGACY_SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id            TEXT PRIMARY KEY,
    created       REAL NOT NULL,
    updated       REAL NOT NULL,
    mode          TEXT NOT NULL,
    rules         TEXT NOT NULL,
    first_dealer  INTEGER NOT NULL,
    players       TEXT NOT NULL,
    seats         TEXT NOT NULL,
    token_hashes  TEXT NOT NULL,
    invite_hash   TEXT,
    status        TEXT NOT NULL,
    totals        TEXT NOT NULL,
    winner        INTEGER,
    deal_count    INTEGER NOT NULL DEFAULT 0,
    action_count  INTEGER NOT NULL DEFAULT 0,
    forfeit       TEXT
);
CREATE INDEX IF NOT EXISTS games_by_update ON games (updated);
CREATE TABLE IF NOT EXISTS deals (
    game_id  TEXT NOT NULL REFERENCES games (id),
    idx      INTEGER NOT NULL,
    deck     TEXT NOT NULL,
    PRIMARY KEY (game_id, idx)
);
CREATE TABLE IF NOT EXISTS actions (
    game_id  TEXT NOT NULL,
    deal     INTEGER NOT NULL,
    seq      INTEGER NOT NULL,
    action   TEXT NOT NULL,
    at       REAL NOT NULL,
    PRIMARY KEY (game_id, deal, seq),
    FOREIGN KEY (game_id, deal) REFERENCES deals (game_id, idx)
);
"""
#: A fast Argon2 for tests (the default costs ~50 ms a hash).
FAST = PasswordHasher(time_cost=1, memory_cost=8, parallelism=1)


@pytest.fixture
def accounts(database_url: str) -> Accounts:
    engine = make_engine(database_url)
    migrate(engine)
    return Accounts(engine, hasher=FAST, clock=Clock())


def test_a_new_database_gets_every_revision(database_url: str) -> None:
    engine = make_engine(database_url)
    assert migrate(engine) == HEAD
    tables = set(inspect(engine).get_table_names())
    assert {"games", "deals", "actions", "accounts", "sessions", "rating_changes"} <= tables


def test_the_head_revision_is_the_newest_migration() -> None:
    from alembic.script import ScriptDirectory

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    assert ScriptDirectory.from_config(config).get_current_head() == HEAD_REVISION


def test_migrating_twice_changes_nothing(database_url: str) -> None:
    engine = make_engine(database_url)
    migrate(engine)
    assert migrate(engine) == HEAD


def test_a_database_at_the_newest_revision_is_opened_without_loading_alembic(
    database_url: str,
) -> None:
    # each process that joins or restarts opens a database already migrated:
    # Alembic's imports (most of a second) are left for one that needs them
    migrate(make_engine(database_url))
    program = (
        "import sys\n"
        "from marjolet.web.db import make_engine, migrate\n"
        f"print(migrate(make_engine({database_url!r})), 'alembic' in sys.modules)\n"
    )
    opened = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, timeout=120, check=True
    )
    assert opened.stdout.split() == [HEAD, "False"], opened.stderr


@pytest.mark.parametrize("legacy_version", [1, 2])
def test_a_database_of_the_hand_made_schema_is_migrated_in_place_with_nothing_lost(
    tmp_path: Path, legacy_version: int
) -> None:
    path = tmp_path / "old.sqlite3"
    schema = LEGACY_SCHEMA
    if legacy_version == 1:  # the first schema had no forfeit column
        schema = schema.replace(",\n    forfeit       TEXT\n", "\n")
    db = sqlite3.connect(path)
    db.executescript(schema)
    db.execute(f"PRAGMA user_version = {legacy_version}")
    db.execute(
        "INSERT INTO games (id, created, updated, mode, rules, first_dealer, players, seats,"
        " token_hashes, status, totals) VALUES ('g1', 1, 2, 'bot', '{}', 0, '[]', '[]', '[]',"
        " 'playing', '[0, 0]')"
    )
    db.commit()
    db.close()
    engine = make_engine(path)
    assert migrate(engine) == HEAD
    with engine.connect() as connection:
        assert current_revision(connection) == HEAD
        row = connection.exec_driver_sql("SELECT id, status, forfeit FROM games").one()
    assert tuple(row) == ("g1", "playing", None)


def test_an_account_is_created_with_the_initial_rating_and_a_session(accounts: Accounts) -> None:
    account, token = accounts.create("Camille_75", "correct horse")
    assert account.name == "Camille_75"
    assert account.rating == RatingSystem().initial
    assert accounts.for_token(token) == account


@pytest.mark.parametrize(
    "name", ["ab", "a" * 21, "has space", "semi;colon", "Аmélie", "名前です", "é" * 21, 42, None]
)
def test_names_are_3_to_20_letters_digits_underscore_or_dash(
    accounts: Accounts, name: object
) -> None:
    with pytest.raises(AccountError) as error:
        accounts.create(name, "long enough")
    assert error.value.code == "bad_name"


def test_a_name_may_have_accented_latin_letters_and_is_found_however_it_was_typed(
    accounts: Accounts,
) -> None:
    """A French player is "Amélie" or "Françoise"; the "é" typed as "e" and a
    combining accent is the same name, in one form; another script's
    look-alike letters are refused (the first letter of "Аmélie" above is
    Cyrillic)."""
    amelie, _ = accounts.create("Amélie", "long enough")
    assert amelie.name == "Amélie"
    decomposed = "Ame\u0301lie"
    assert accounts.by_name(decomposed) == accounts.by_name("AMÉLIE") == amelie
    assert accounts.login(decomposed, "long enough")[0] == amelie
    with pytest.raises(AccountError) as taken:
        accounts.create("ame\u0301lie", "long enough")  # amélie again, decomposed
    assert taken.value.code == "name_taken"
    assert accounts.create("Œdipe-Françoise", "long enough")[0].name == "Œdipe-Françoise"
    assert accounts.by_name("Amelie") is None  # without the accent: another name


def test_names_are_unique_regardless_of_case(accounts: Accounts) -> None:
    accounts.create("Dominique", "long enough")
    with pytest.raises(AccountError) as error:
        accounts.create("DOMINIQUE", "long enough")
    assert error.value.code == "name_taken"


@pytest.mark.parametrize("password", ["short", "", "x" * 257, None])
def test_a_password_has_8_to_256_characters(accounts: Accounts, password: object) -> None:
    with pytest.raises(AccountError) as error:
        accounts.create("Sacha", password)
    assert error.value.code == "weak_password"


def test_the_password_is_stored_only_as_an_argon2id_hash(accounts: Accounts) -> None:
    accounts.create("Sacha", "my secret words")
    with accounts.engine.connect() as db:
        stored = db.exec_driver_sql("SELECT password_hash FROM accounts").scalar_one()
    assert stored.startswith("$argon2id$")
    assert "my secret words" not in stored


def test_a_session_token_is_stored_only_as_its_digest(accounts: Accounts) -> None:
    _, token = accounts.create("Sacha", "my secret words")
    with accounts.engine.connect() as db:
        kept = db.execute(select(sessions.c.token_hash)).scalars().all()
    assert kept == [token_digest(token)]


def test_login_with_any_case_of_the_name_opens_a_new_session(accounts: Accounts) -> None:
    account, first = accounts.create("Sacha", "my secret words")
    again, second = accounts.login("sACHA", "my secret words")
    assert again == account and second != first
    assert accounts.for_token(first) == accounts.for_token(second) == account


def test_a_wrong_password_and_an_unknown_name_get_the_same_error(accounts: Accounts) -> None:
    accounts.create("Sacha", "my secret words")
    errors = []
    for name, password in [("Sacha", "wrong words!"), ("Nobody", "my secret words"),
                           ("bad name", "x"), ("Sacha", None)]:
        with pytest.raises(AccountError) as error:
            accounts.login(name, password)
        errors.append((error.value.code, str(error.value)))
    assert len(set(errors)) == 1
    assert errors[0][0] == "bad_credentials"


class CountingHasher(PasswordHasher):
    """FAST's hasher, counting the hashes it makes and the hashes it checks."""

    def __init__(self) -> None:
        super().__init__(time_cost=1, memory_cost=8, parallelism=1)
        self.made: list[str] = []
        self.checked: list[str] = []

    def hash(self, password: str | bytes, *, salt: bytes | None = None) -> str:
        made = super().hash(password, salt=salt)
        self.made.append(made)
        return made

    def verify(self, hash: str | bytes, password: str | bytes) -> Literal[True]:
        self.checked.append(str(hash))
        return super().verify(hash, password)


def test_a_server_starts_without_hashing_and_an_unknown_name_is_checked_against_a_hash(
    database_url: str,
) -> None:
    # An Argon2 hash takes a quarter of a second at the default cost: none is
    # made when the accounts open (each server start, each test's server), and
    # the first password check makes the stand-in hash an unknown name is
    # checked against, before it looks the name up, whatever the name.
    engine = make_engine(database_url)
    migrate(engine)
    hasher = CountingHasher()
    accounts = Accounts(engine, hasher=hasher, clock=Clock())
    assert hasher.made == []
    with pytest.raises(AccountError):
        accounts.login("Nobody", "my secret words")
    assert len(hasher.made) == 1 and hasher.checked == hasher.made  # the stand-in, checked
    accounts.create("Sacha", "my secret words")
    with pytest.raises(AccountError):
        accounts.login("Nobody", "my secret words")
    with pytest.raises(AccountError):
        accounts.login("Sacha", "wrong words!")
    stand_in, sachas = hasher.made[0], hasher.made[1]
    assert len(hasher.made) == 2  # the stand-in is made once
    assert hasher.checked[1:] == [stand_in, sachas]
    # a server started again: its first check, of a name that exists, makes
    # the stand-in too (else only an unknown name's first check would)
    again = CountingHasher()
    restarted = Accounts(engine, hasher=again, clock=Clock())
    with pytest.raises(AccountError):
        restarted.login("Sacha", "wrong words!")
    assert len(again.made) == 1 and again.checked == [sachas]
    restarted.login("Sacha", "my secret words")
    assert len(again.made) == 1


def test_logout_revokes_that_session_only(accounts: Accounts) -> None:
    account, phone = accounts.create("Sacha", "my secret words")
    _, laptop = accounts.login("Sacha", "my secret words")
    accounts.logout(phone)
    assert accounts.for_token(phone) is None
    assert accounts.for_token(laptop) == account
    assert accounts.logout_everywhere(account.id) == 1
    assert accounts.for_token(laptop) is None


@pytest.mark.parametrize("token", [None, "", "not-a-token", "x" * 5000])
def test_an_unknown_or_absurd_token_is_nobody(accounts: Accounts, token: str | None) -> None:
    assert accounts.for_token(token) is None


def test_a_rated_game_moves_both_ratings_as_glicko2_says(accounts: Accounts) -> None:
    a, _ = accounts.create("Alice", "long enough")
    b, _ = accounts.create("Bruno", "long enough")
    assert accounts.record_result("game-1", a.id, b.id, 1.0)
    expected_a, expected_b = RatingSystem().rate_game(a.rating, b.rating, 1.0)
    after_a, after_b = accounts.by_id(a.id), accounts.by_id(b.id)
    assert after_a is not None and after_b is not None
    assert after_a.rating == expected_a and after_b.rating == expected_b
    assert (after_a.games, after_a.wins, after_a.losses) == (1, 1, 0)
    assert (after_b.games, after_b.wins, after_b.losses) == (1, 0, 1)
    assert [h["game"] for h in accounts.history(a.id)] == ["game-1"]


def test_a_player_back_after_a_year_is_shown_and_rated_with_a_grown_deviation(
    database_url: str,
) -> None:
    clock = Clock()
    accounts = Accounts(make_engine(database_url), hasher=FAST, clock=clock)
    migrate(accounts.engine)
    a, _ = accounts.create("Alice", "long enough")
    b, _ = accounts.create("Bruno", "long enough")
    for game in range(20):  # a settled rating: no longer provisional
        accounts.record_result(f"g{game}", a.id, b.id, float(game % 2))
    settled = accounts.by_id(a.id)
    assert settled is not None and not settled.rating.provisional
    clock.now += 365 * 86_400.0
    back = accounts.by_id(a.id)
    assert back is not None and back.rating.value == settled.rating.value
    assert back.rating.rd == pytest.approx(RatingSystem().idle(settled.rating, 365).rd)
    assert back.rating.rd > settled.rating.rd + 20
    other = accounts.by_id(b.id)
    assert other is not None
    expected, _ = RatingSystem().rate_game(back.rating, other.rating, 1.0)
    assert accounts.record_result("back", a.id, b.id, 1.0)
    after = accounts.by_id(a.id)
    assert after is not None and after.rating.value == pytest.approx(expected.value)
    assert after.rating.rd == pytest.approx(expected.rd)


def test_a_result_counts_once_even_when_it_arrives_twice(accounts: Accounts) -> None:
    a, _ = accounts.create("Alice", "long enough")
    b, _ = accounts.create("Bruno", "long enough")
    assert accounts.record_result("game-1", a.id, b.id, 0.0)
    once = accounts.by_id(a.id)
    assert not accounts.record_result("game-1", a.id, b.id, 0.0)
    assert not accounts.record_result("game-1", b.id, a.id, 1.0)
    assert accounts.by_id(a.id) == once


def test_a_result_sent_by_two_threads_at_once_counts_once(accounts: Accounts) -> None:
    a, _ = accounts.create("Alice", "long enough")
    b, _ = accounts.create("Bruno", "long enough")
    outcomes: list[bool] = []
    threads = [
        threading.Thread(target=lambda: outcomes.append(
            accounts.record_result("game-9", a.id, b.id, 1.0)))
        for _ in range(4)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert outcomes.count(True) == 1
    after = accounts.by_id(a.id)
    assert after is not None and after.games == 1


def test_a_rating_survives_a_restart(database_url: str) -> None:
    path = database_url
    first = Accounts(make_engine(path), hasher=FAST)
    migrate(first.engine)
    a, _ = first.create("Alice", "long enough")
    b, _ = first.create("Bruno", "long enough")
    first.record_result("g", a.id, b.id, 1.0)
    first.engine.dispose()
    second = Accounts(make_engine(path), hasher=FAST)
    migrate(second.engine)
    again = second.by_name("alice")
    assert again is not None and again.rating.value > 1500
    assert not second.record_result("g", a.id, b.id, 1.0)


def test_a_game_against_oneself_is_not_rated(accounts: Accounts) -> None:
    a, _ = accounts.create("Alice", "long enough")
    with pytest.raises(AccountError):
        accounts.record_result("g", a.id, a.id, 1.0)


def test_the_profile_json_never_shows_the_password_hash(accounts: Accounts) -> None:
    a, _ = accounts.create("Alice", "long enough")
    shown = a.to_json()
    assert set(shown) == {"name", "rating", "games", "wins", "losses"}
    assert shown["rating"] == Rating().to_json()


def test_a_session_unused_for_thirty_days_is_over(database_url: str) -> None:
    now = [1000.0]
    engine = make_engine(database_url)
    migrate(engine)
    accounts = Accounts(engine, hasher=FAST, clock=lambda: now[0])
    account, token = accounts.create("Sacha", "my secret words")
    now[0] += 29 * 86_400
    assert accounts.for_token(token) == account  # used: its clock restarts
    now[0] += 30 * 86_400 + 1
    assert accounts.for_token(token) is None
    with engine.connect() as db:
        assert db.execute(select(sessions.c.token_hash)).all() == []


def test_reads_do_not_wait_for_a_writer_on_sqlite(tmp_path: Path) -> None:
    from sqlalchemy import event, text

    from marjolet.web.db import reader

    engine = make_engine(tmp_path / "r.sqlite3")
    migrate(engine)
    begins: list[str] = []
    event.listen(engine, "before_cursor_execute",
                 lambda _c, _cur, statement, *_: begins.append(statement))
    with reader(engine).connect() as db:
        db.execute(text("SELECT 1"))
    with engine.begin() as db:
        db.execute(text("SELECT 2"))
    assert [s for s in begins if s.startswith("BEGIN")] == ["BEGIN DEFERRED", "BEGIN IMMEDIATE"]


def test_a_name_that_looks_like_an_account_s_is_taken_whatever_its_accents_and_case(
    database_url: str,
) -> None:
    engine = make_engine(database_url)
    migrate(engine)
    book = Accounts(engine, hasher=FAST)
    first, _ = book.create("Amélie", "correct horse")
    book.create("Ørjan", "correct horse")
    for lookalike in ("amelie", "AMELIE", "Amélie", "ámelie", "Orjan", "ØRJAN"):
        with pytest.raises(AccountError) as caught:
            book.create(lookalike, "correct horse")
        assert caught.value.code == "name_taken", lookalike
    assert book.looking_like("AMÉLIE") == first
    assert book.create("Amelia", "correct horse")[0].name == "Amelia"
    engine.dispose()


def test_revision_0011_keeps_older_lookalike_accounts_and_refuses_new_ones(
    database_url: str,
) -> None:
    """Accounts made before the revision keep their names; the later of two
    that already looked alike gets no look, and logs in as before."""
    engine = make_engine(database_url)
    move_schema(engine, "0010")
    old = Accounts(engine, hasher=FAST)
    with engine.begin() as db:
        for name in ("Amélie", "amelie", "Bob"):
            db.execute(
                text(
                    "INSERT INTO accounts (name, name_key, password_hash, created, rating, "
                    "rd, volatility) VALUES (:n, :k, :h, 0, 1500, 350, 0.06)"
                ),
                {"n": name, "k": name.lower(), "h": FAST.hash("correct horse")},
            )
    assert migrate(engine) == HEAD
    with engine.connect() as db:
        rows = db.execute(text("SELECT name, name_look FROM accounts")).all()
    looks: dict[str, str | None] = {str(r[0]): r[1] for r in rows}
    assert looks == {"Amélie": "amelie", "amelie": None, "Bob": "bob"}
    assert old.login("amelie", "correct horse")[0].name == "amelie"
    with pytest.raises(AccountError):
        old.create("AMELIE", "correct horse")
    engine.dispose()


def revision_module(file: str) -> Any:
    """A revision's file as a module (its frozen fold)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(file, MIGRATIONS / "versions" / file)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(
    "name", ["Amélie", "ÉLODIE", "Straße", "ﬁlou", "Zoë-3", "Ørjan", "аlice", "ΑLΙCΕ", "aIice",
             "b0b", "Arnaud", "ВОВ"]
)  # fmt: skip
def test_the_migration_s_fold_is_the_server_s(name: str) -> None:
    assert revision_module("0013_name_skeleton.py")._look(name) == name_look(name)


@pytest.mark.parametrize(
    ("name", "lookalike"),
    [("alice", "аlice"), ("alice", "АLICE"), ("alice", "ΑLΙCΕ"), ("alice", "aIice"),
     ("alice", "a1ice"), ("bob", "ВОВ"), ("bob", "b0b"), ("Amaury", "Arnaury"),
     ("Hélène", "НЕLЕNЕ"), ("Paco", "Расо")],
)  # fmt: skip
def test_a_name_with_look_alike_letters_of_another_alphabet_looks_like_the_latin_one(
    name: str, lookalike: str
) -> None:
    assert name_look(lookalike) == name_look(name)


@pytest.mark.parametrize(
    ("name", "other"), [("Bill", "Bili"), ("Ilona", "Lona"), ("Marc", "Mare"), ("Léa", "Lee")]
)
def test_names_that_only_share_letters_do_not_look_alike(name: str, other: str) -> None:
    assert name_look(name) != name_look(other)


def test_only_a_name_mixing_latin_greek_or_cyrillic_letters_is_mixed() -> None:
    assert mixed_scripts("аlice") and mixed_scripts("Alicε")
    assert not any(map(mixed_scripts, ["Amélie", "Иван", "Ελένη", "Invité 371", "李-3"]))


def test_revision_0013_recomputes_the_looks_and_keeps_older_lookalike_accounts(
    database_url: str,
) -> None:
    """Two accounts that look alike only by the new fold ("Arnaud" and
    "Amaud") keep their names: the later one gets no look, logs in as
    before, and no new account may look like either; going back gives
    both their looks of revision 0011."""
    engine = make_engine(database_url)
    move_schema(engine, "0012")
    book = Accounts(engine, hasher=FAST)
    with engine.begin() as db:  # as a server of revision 0012 made them
        for name in ("Amaud", "Bob", "Arnaud"):
            db.execute(
                text(
                    "INSERT INTO accounts (name, name_key, name_look, password_hash, created, "
                    "rating, rd, volatility) VALUES (:n, :k, :k, :h, 0, 1500, 350, 0.06)"
                ),
                {"n": name, "k": name.lower(), "h": FAST.hash("correct horse")},
            )
    assert migrate(engine) == HEAD
    with engine.connect() as db:
        rows = db.execute(text("SELECT name, name_look FROM accounts")).all()
    assert {str(r[0]): r[1] for r in rows} == {"Amaud": "amaud", "Bob": "bob", "Arnaud": None}
    assert book.login("arnaud", "correct horse")[0].name == "Arnaud"
    for lookalike in ("ARNAUD", "Arnaüd", "B0b"):
        with pytest.raises(AccountError) as caught:
            book.create(lookalike, "correct horse")
        assert caught.value.code == "name_taken", lookalike
    move_schema(engine, "0012", down=True)
    with engine.connect() as db:
        rows = db.execute(text("SELECT name, name_look FROM accounts")).all()
    assert {str(r[0]): r[1] for r in rows} == {"Amaud": "amaud", "Bob": "bob", "Arnaud": "arnaud"}
    assert migrate(engine) == HEAD
    engine.dispose()


def test_revision_0011_goes_back_with_accounts_in_session(database_url: str) -> None:
    engine = make_engine(database_url)
    migrate(engine)
    Accounts(engine, hasher=FAST).create("Amélie", "correct horse")  # logged in: a session
    move_schema(engine, "0010", down=True)
    assert "name_look" not in {c["name"] for c in inspect(engine).get_columns("accounts")}
    assert migrate(engine) == HEAD  # and up again
    engine.dispose()


def test_a_deleted_account_hands_its_look_to_the_account_that_looked_like_it(
    database_url: str,
) -> None:
    """Two accounts that came to look alike by a revision ("Amaud", then
    "Arnaud", whose look is left empty): once "Amaud" is deleted, "Arnaud"
    holds the look, so no guest may play as "Arnaud" and no new account
    may be called "Arnaüd"."""
    engine = make_engine(database_url)
    migrate(engine)
    book = Accounts(engine, hasher=FAST)
    amaud = book.create("Amaud", "correct horse")[0]
    with engine.begin() as db:  # as revision 0013 leaves the later one
        db.execute(
            text(
                "INSERT INTO accounts (name, name_key, name_look, password_hash, created, "
                "rating, rd, volatility) VALUES ('Arnaud', 'arnaud', NULL, :h, 0, 1500, 350, 0.06)"
            ),
            {"h": FAST.hash("correct horse")},
        )
    book.delete(amaud.id, "correct horse")
    held = book.looking_like("Arnaud")
    assert held is not None and held.name == "Arnaud"
    with pytest.raises(AccountError) as caught:
        book.create("Arnaüd", "correct horse")
    assert caught.value.code == "name_taken"
    engine.dispose()
