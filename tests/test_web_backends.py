"""``marjolet serve --db URL --broker URL`` (marjolet.web.backends): every
bad value is one line naming the option and what is wrong, exit status 2,
never a traceback."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from marjolet.web.backends import (
    BackendError,
    broker_url,
    check_broker,
    check_database,
    database_target,
    hidden,
)
from services import Postgres, redis_server, refused_port
from web_support import Browser, fast_config, live_server


def serve(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "marjolet", "serve", "--port", "0", *args],
        capture_output=True,
        text=True,
        timeout=120,
    )


def one_line(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("marjolet: ") and "Traceback" not in result.stderr
    return lines[0]


def test_a_path_is_a_sqlite_file_and_a_postgresql_url_gets_the_psycopg_driver() -> None:
    assert database_target("games.sqlite3") == Path("games.sqlite3")
    assert database_target("postgresql://ann@db.example:5432/games") == (
        "postgresql+psycopg://ann@db.example:5432/games"
    )
    assert database_target("postgres://ann:pw@h/g") == "postgresql+psycopg://ann:pw@h/g"


@pytest.mark.parametrize(
    ("value", "says"),
    [
        ("mysql://ann@h:3306/games", "the scheme 'mysql' is not served"),
        ("sqlite:///x.db", "the scheme 'sqlite' is not served"),
        ("postgresql://ann@h:port/games", "not a valid URL .the port 'port' is not a number"),
        ("postgresql://ann@h:99999/games", "port 99999 is not 1-65535"),
        ("postgresql://ann@h:5432", "names no database"),
        ("postgresql:///games", "names no host"),
    ],
)
def test_a_bad_database_url_says_what_is_wrong(value: str, says: str) -> None:
    with pytest.raises(BackendError, match=says) as refused:
        database_target(value)
    assert str(refused.value).startswith("--db ")


def test_a_password_never_appears_in_a_message() -> None:
    assert hidden("postgresql://ann:s3cret@h/g") == "postgresql://ann:***@h/g"
    with pytest.raises(BackendError) as refused:
        database_target("mysql://ann:s3cret@h/g")
    assert "s3cret" not in str(refused.value)
    with refused_port() as port, pytest.raises(BackendError) as refused:
        check_database(f"postgresql+psycopg://ann:s3cret@127.0.0.1:{port}/g")
    assert "s3cret" not in str(refused.value) and "cannot connect" in str(refused.value)


def test_the_broker_must_be_a_reachable_redis() -> None:
    with pytest.raises(BackendError, match="expected a Redis URL"):
        broker_url("http://127.0.0.1:6379/0")
    with pytest.raises(BackendError, match="the database number 'abc' is not a number"):
        broker_url("redis://:pw@127.0.0.1:6379/abc")  # redis-py would take database 0
    assert broker_url("redis://127.0.0.1:6379/0") == "redis://127.0.0.1:6379/0"
    with refused_port() as port, pytest.raises(BackendError, match="cannot reach Redis"):
        check_broker(f"redis://127.0.0.1:{port}/0")


def test_serve_on_an_unreachable_database_server_is_one_line_and_exit_2() -> None:
    with refused_port() as db_port, refused_port() as broker_port:
        broker = f"redis://127.0.0.1:{broker_port}/0"  # the database is checked first
        line = one_line(
            serve("--db", f"postgresql://ann:pw@127.0.0.1:{db_port}/games", "--broker", broker)
        )
    assert "--db postgresql://ann:***@127.0.0.1:" in line and "cannot connect" in line


def test_serve_with_a_database_of_another_kind_is_one_line_and_exit_2() -> None:
    line = one_line(serve("--db", "mysql://ann@127.0.0.1/games"))
    assert "--db mysql://ann@127.0.0.1/games: the scheme 'mysql' is not served" in line


def test_serve_with_a_broker_but_a_sqlite_file_is_one_line_and_exit_2(tmp_path: Path) -> None:
    line = one_line(
        serve("--db", str(tmp_path / "g.sqlite3"), "--broker", "redis://127.0.0.1:6379/0")
    )
    assert "--broker" in line and "postgresql://" in line
    assert not (tmp_path / "g.sqlite3").exists()


def test_serve_with_a_broker_that_is_not_redis_is_one_line_and_exit_2() -> None:
    line = one_line(serve("--db", "postgresql://a@127.0.0.1/g", "--broker", "amqp://h/"))
    assert "--broker amqp://h/: expected a Redis URL" in line


def test_serve_with_an_unreachable_broker_is_one_line_and_exit_2(postgres_url: str) -> None:
    with refused_port() as port:
        line = one_line(serve("--db", postgres_url, "--broker", f"redis://127.0.0.1:{port}/0"))
    assert "--broker redis://127.0.0.1:" in line and "cannot reach Redis" in line


def test_serve_on_a_database_server_without_a_broker_is_one_line_and_exit_2(
    postgres_url: str,
) -> None:
    # processes that share a database must hear each other: without the bus a
    # player still at the table looks gone to another process, and is claimed
    line = one_line(serve("--db", postgres_url))
    assert "--broker redis://" in line and "claimed as gone" in line


def test_health_says_so_while_the_database_server_does_not_answer(
    postgres_server: Postgres,
) -> None:
    # what a proxy or a monitor checks: a process whose database is gone
    # cannot store a move, and must not be reported healthy
    url = postgres_server.new_database()
    with live_server(fast_config(url)) as server, server.http() as client:
        assert client.get("/api/health").text == "ok"
        game = server.new_game(mode="bot", bot="random")
        postgres_server.pause()
        try:
            deadline = time.monotonic() + 10  # an answer serves for a second
            while (down := client.get("/api/health")).status_code == 200:
                assert time.monotonic() < deadline, "health still says ok"
                time.sleep(0.2)
            assert down.status_code == 503 and "database" in down.text, down.text
            lobby = client.get("/api/lobby")  # a page's read: "try again", not an internal error
            assert lobby.status_code == 503, lobby.text
            assert lobby.json()["error"]["code"] == "database_down"
            replay = client.get(f"/api/games/{game['id']}/replay")  # not "corrupt"
            assert replay.status_code == 503, replay.text
            assert replay.json()["error"]["code"] == "database_down"
            assert "127.0.0.1" not in replay.text  # nothing of the driver's text
        finally:
            postgres_server.resume()
        deadline = time.monotonic() + 20
        while client.get("/api/health").status_code != 200:
            assert time.monotonic() < deadline, "health did not come back"
            time.sleep(0.2)


def test_after_a_database_restart_the_next_new_game_and_move_are_stored(
    postgres_server: Postgres,
) -> None:
    # trial-ops-run: after a PostgreSQL restart the first new game on each
    # idle process was refused (400 'storage') and a move 5 s after the
    # server was back was refused 'database_down'. The process's connection
    # is dropped by the restart; the next requests reconnect.
    url = postgres_server.new_database()
    with live_server(fast_config(url, first_dealer=1)) as server, server.http() as client:
        game = server.new_game(mode="bot", bot="random")
        hello = {"type": "hello", "token": game["token"]}
        with Browser.open(server, game["id"], hello) as me:
            state = me.next_state()
            assert state["legal"], state  # seat 1 deals: the person leads
            for _ in range(2):  # twice: each restart drops every connection
                postgres_server.pause()
                postgres_server.resume()
                created = client.post("/api/games", json={"mode": "bot", "bot": "random"})
                assert created.status_code == 200, created.text
                state = me.state or me.next_state()
                while not state["legal"]:
                    state = me.next_state()
                me.act(state["legal"][0]["action"])
                me.state = None
                after = me.recv_until(lambda m: m["type"] in ("state", "error"))
                assert after["type"] == "state", after
                assert after["version"] > state["version"], after
                me.state = None
        assert client.get("/api/health").text == "ok"


def test_a_change_not_saved_for_want_of_the_database_server_is_503_try_again() -> None:
    from sqlalchemy.exc import OperationalError, ProgrammingError

    from marjolet.web.errors import storage_failure

    down = OperationalError("SELECT 1", {}, Exception("connection refused"))
    error = storage_failure(down, "the new game", key="error.storage_game")
    assert (error.code, error.status) == ("database_down", 503), error.to_json()
    assert "try again" in error.message
    other = storage_failure(ProgrammingError("SELECT 1", {}, Exception("bug")), "the new game")
    assert (other.code, other.status) == ("storage", 503)  # never a 400: not the client's fault


def test_a_database_failure_logged_by_the_web_server_is_one_line(
    caplog: pytest.LogCaptureFixture,
) -> None:
    # trial-ops-run: "database commit failed: (psycopg.errors.AdminShutdown)
    # ..." was followed by untimed lines [SQL: ...], [parameters: ...] and
    # SQLAlchemy's background link: the log's one line per record was broken
    import logging

    from sqlalchemy.exc import OperationalError

    from marjolet.web import logguard

    log = logging.getLogger("marjolet.web")
    logguard.keep_one_line(log)
    logguard.keep_one_line(log)  # once
    cut = OperationalError(
        "SELECT games.version\nFROM games\nWHERE games.id = %(id_1)s",
        {"id_1": "g1"},
        Exception("terminating connection due to administrator command\nSSL closed"),
    )
    assert "\n" in str(cut) and "[SQL" in str(cut)
    with caplog.at_level(logging.WARNING, logger="marjolet.web"):
        log.warning("lease %s: the database did not answer: %s", "pairing", cut)
        log.warning("the bus failed (%s)", ValueError("two\nlines"))
    lines = [r.getMessage() for r in caplog.records]
    assert lines == [
        "lease pairing: the database did not answer: terminating connection due to "
        "administrator command SSL closed",
        "the bus failed (two lines)",
    ]
    assert log.filters.count(logguard._ONE_LINE) == 1


TROUBADOR = "postgresql://marjolet:Tr0ub@dor&3@127.0.0.1:55432/marjolet"


def test_an_at_sign_in_a_password_is_refused_without_showing_the_password() -> None:
    # trial-ops-run: the masking split at the last '@', the driver at the
    # first: "--db postgresql://marjolet:***@127.0.0.1:55432/marjolet:
    # cannot connect: failed to resolve host 'dor&3@127.0.0.1'"
    with pytest.raises(BackendError) as refused:
        database_target(TROUBADOR)
    assert str(refused.value) == "the password in --db contains '@': write it as %40"
    with pytest.raises(BackendError, match="the user name in --db contains '@'"):
        database_target("postgresql://ann@corp@127.0.0.1/games")
    with pytest.raises(BackendError, match="the password in --db contains '@'"):
        database_target("postgresql://ann:a/b@c@127.0.0.1/games")  # a '/' in it too
    with pytest.raises(BackendError) as refused:
        broker_url("redis://:Tr0ub@dor&3@127.0.0.1:6379/0")
    assert str(refused.value) == "the password in --broker contains '@': write it as %40"
    from sqlalchemy.engine import make_url

    written = database_target(TROUBADOR.replace("Tr0ub@dor&3", "Tr0ub%40dor%263"))
    assert isinstance(written, str)
    url = make_url(written)
    assert (url.password, url.host) == ("Tr0ub@dor&3", "127.0.0.1")
    assert broker_url("redis://:Tr0ub%40dor@127.0.0.1:6379/0")
    # an '@' after the host is no credential's
    assert database_target("postgresql://ann@/games?host=/run/pg@1")


def test_serve_with_an_at_sign_in_the_password_is_one_line_without_it() -> None:
    line = one_line(serve("--db", TROUBADOR, "--broker", "redis://127.0.0.1:6379/0"))
    assert line.endswith(": the password in --db contains '@': write it as %40"), line
    assert "Tr0ub" not in line and "dor" not in line
    line = one_line(
        serve("--db", "postgresql://a@127.0.0.1/g", "--broker", "redis://:p@ss@127.0.0.1/0")
    )
    assert line.endswith(": the password in --broker contains '@': write it as %40"), line


def test_serve_with_an_empty_db_or_broker_says_which_is_empty() -> None:
    line = one_line(serve("--db", "", "--broker", "redis://127.0.0.1:6379/0"))
    assert "--db is empty" in line and "--broker" not in line.split("--db is empty")[0], line
    line = one_line(serve("--db", "postgresql://a@127.0.0.1/g", "--broker", " "))
    assert "--broker is empty" in line, line


def test_a_redis_that_asks_a_password_or_lacks_the_database_number_says_so(
    redis_url: str,
) -> None:
    with pytest.raises(BackendError) as refused:
        check_broker(redis_url.rsplit("/", 1)[0] + "/99")
    message = str(refused.value)
    assert "the database number 99 is out of range for that Redis server" in message, message
    with redis_server(password="s3cret") as (url, _):
        port = int(url.rsplit(":", 1)[1].split("/")[0])
        with pytest.raises(BackendError) as refused:
            check_broker(f"redis://127.0.0.1:{port}/0")
        assert str(refused.value) == (
            f"--broker redis://127.0.0.1:{port}/0: Redis asks for a password: "
            "redis://:PASSWORD@HOST:PORT/N"
        )
        with pytest.raises(BackendError) as refused:
            check_broker(f"redis://:wrong@127.0.0.1:{port}/0")
        assert "refused the user name or password" in str(refused.value)
        assert "wrong" not in str(refused.value)
        check_broker(f"redis://:s3cret@127.0.0.1:{port}/0")
