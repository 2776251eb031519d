"""One deployment, one set of settings (marjolet.web.deployment, revision
0010): a process whose settings are not those of the other processes on
its database is refused at start, in one line with exit status 2; the
settings change when no other process runs."""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
import time
from dataclasses import replace
from pathlib import Path

import pytest
from sqlalchemy import insert, inspect, select

from marjolet.web.backends import broker_identity
from marjolet.web.config import WebConfig
from marjolet.web.db import (
    HEAD_REVISION,
    ServersRunning,
    current_revision,
    deployment,
    leases,
    make_engine,
    migrate,
)
from marjolet.web.deployment import (
    SETTINGS,
    Deployment,
    DeploymentError,
    settings_of,
)
from web_support import Clock, fast_config, live_server, move_schema, serve_process

BROKER = "redis://127.0.0.1:6379/0"


def stored(url: str) -> dict[str, str]:
    engine = make_engine(url)
    try:
        with engine.connect() as db:
            rows = db.execute(select(deployment.c.setting, deployment.c.value)).all()
    finally:
        engine.dispose()
    return {str(r.setting): str(r.value) for r in rows}


def stored_by(url: str) -> set[str]:
    """The processes that wrote the stored settings."""
    engine = make_engine(url)
    try:
        with engine.connect() as db:
            return set(db.execute(select(deployment.c.changed_by)).scalars())
    finally:
        engine.dispose()


def running(url: str) -> int:
    """How many processes hold a live server lease."""
    engine = make_engine(url)
    try:
        return len(Deployment(engine, {}).running())
    finally:
        engine.dispose()


# -- the revision -------------------------------------------------------------------


def test_revision_0010_adds_the_deployment_table_to_a_database_at_0009(
    database_url: str,
) -> None:
    engine = make_engine(database_url)
    move_schema(engine, "0009")
    assert "deployment" not in inspect(engine).get_table_names()
    assert migrate(engine) == HEAD_REVISION
    with engine.connect() as connection:
        assert current_revision(connection) == HEAD_REVISION
    columns = {c["name"] for c in inspect(engine).get_columns("deployment")}
    assert columns == {"setting", "value", "changed", "changed_by"}
    move_schema(engine, "0009", down=True)  # and back
    assert "deployment" not in inspect(engine).get_table_names()
    engine.dispose()


# -- the settings --------------------------------------------------------------------


def test_the_broker_is_known_by_its_server_and_database_number_never_its_password() -> None:
    assert broker_identity("redis://:s3cret@127.0.0.1:56379/1") == "redis://127.0.0.1:56379/1"
    assert broker_identity("redis://ann:s3cret@Redis.example/") == "redis://redis.example:6379/0"
    assert broker_identity("redis://127.0.0.1:6379") == "redis://127.0.0.1:6379/0"
    assert broker_identity("redis://127.0.0.1:6379/0?db=2") == "redis://127.0.0.1:6379/2"
    assert broker_identity("rediss://h:6380/3") == "rediss://h:6380/3"
    assert broker_identity("unix:///run/redis.sock?db=4") == "unix:///run/redis.sock?db=4"


def test_the_settings_of_a_deployment_are_the_options_that_decide_outcomes() -> None:
    config = WebConfig(
        broker="redis://:pw@127.0.0.1:6379/1", away_grace=10.0, rate_per_second=20.5,
        behind_proxy="Marjolet.example",
    )
    assert settings_of(config) == {
        "--broker": "redis://127.0.0.1:6379/1",
        "--away-grace": "10",
        "--move-limit": "300",
        "--abandon-after": "86400",
        "--rate-limit": "20.5",
        "--behind-proxy": "marjolet.example",
    }
    assert tuple(settings_of(config)) == SETTINGS


# -- joining ---------------------------------------------------------------------------


def member(url: str, clock: Clock, owner: str, **changes: object) -> Deployment:
    engine = make_engine(url)
    migrate(engine)
    config = WebConfig(broker=BROKER, **changes)  # type: ignore[arg-type]
    return Deployment(engine, settings_of(config), owner=owner, seconds=10, clock=clock)


def test_a_process_with_other_settings_is_refused_while_another_runs(postgres_url: str) -> None:
    clock = Clock()
    first = member(postgres_url, clock, "p1")
    assert first.join() == []
    assert member(postgres_url, clock, "p2").join() == []  # the same settings
    with pytest.raises(DeploymentError) as refused:
        member(postgres_url, clock, "p3", away_grace=10.0, move_limit=60.0).join()
    assert str(refused.value).startswith(
        "--away-grace 10, --move-limit 60: this database's other servers use "
        "--away-grace 90, --move-limit 300 (2 running, or stopped less than 10 s ago)"
    )
    assert first.running() == ["p1", "p2"]  # the refused one is not among them
    assert stored(postgres_url)["--away-grace"] == "90"


def test_the_settings_change_once_no_other_process_runs(postgres_url: str) -> None:
    clock = Clock()
    first = member(postgres_url, clock, "p1")
    first.join()
    second = member(postgres_url, clock, "p2")
    second.join()
    first.leave()  # a clean stop gives the lease back at once
    clock.now += 5
    assert second.renew() == []
    with pytest.raises(DeploymentError, match="1 running"):
        member(postgres_url, clock, "p3", away_grace=10.0).join()
    clock.now += 10.5  # the second died without a word: its lease ran out
    changed = member(postgres_url, clock, "p3", away_grace=10.0).join()
    assert [(d.setting, d.stored, d.ours) for d in changed] == [("--away-grace", "90", "10")]
    assert stored(postgres_url)["--away-grace"] == "10"
    with pytest.raises(DeploymentError, match="other servers use --away-grace 10 "):
        member(postgres_url, clock, "p4").join()
    # the process that came back late finds that its settings are no longer stored
    assert [(d.setting, d.ours, d.stored) for d in second.renew()] == [
        ("--away-grace", "90", "10")
    ]


def test_processes_starting_together_on_an_empty_database_agree_on_one_set(
    postgres_url: str,
) -> None:
    graces = [10.0, 20.0, 30.0, 40.0, 50.0]
    members = [member(postgres_url, Clock(), f"p{g:.0f}", away_grace=g) for g in graces]
    start = threading.Barrier(len(members))
    outcomes: dict[float, str] = {}

    def join(grace: float, one: Deployment) -> None:
        start.wait()
        try:
            one.join()
            outcomes[grace] = "joined"
        except DeploymentError as exc:
            outcomes[grace] = str(exc)

    pairs = zip(graces, members, strict=True)
    threads = [threading.Thread(target=join, args=pair) for pair in pairs]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    winners = [g for g, outcome in outcomes.items() if outcome == "joined"]
    assert len(winners) == 1 and len(outcomes) == len(graces)
    assert stored(postgres_url)["--away-grace"] == f"{winners[0]:.0f}"


def test_a_running_server_renews_its_lease_and_gives_it_back_when_it_stops(
    postgres_url: str, redis_url: str
) -> None:
    # renewed every 0.2 s, a lease of 2 s outlives a loaded machine's pauses
    # (with 1 s, a renewal 0.8 s late let it run out)
    config = fast_config(postgres_url, broker=redis_url, sync_interval=0.2, lease_seconds=2.0)
    with live_server(config) as server:
        time.sleep(4.5)  # past two lease times: renewed meanwhile
        assert running(postgres_url) == 1
        engine = make_engine(postgres_url)
        late = Deployment(engine, settings_of(replace(config, away_grace=10.0)), seconds=1.0)
        with pytest.raises(DeploymentError) as refused:
            late.join()
        assert str(refused.value).startswith(
            "--away-grace 10: this database's other servers use --away-grace 90 (1 running, or "
            "stopped less than 1 s ago)"
        )
        assert stored_by(postgres_url) == {server.app.state.hub.leases.owner}
    assert running(postgres_url) == 0
    assert [d.setting for d in late.join()] == ["--away-grace"]
    late.leave()
    engine.dispose()


def test_a_sqlite_file_gets_the_table_and_records_nothing(tmp_path: Path) -> None:
    from marjolet.web.app import create_app

    path = tmp_path / "web.sqlite3"
    create_app(WebConfig(db_path=path, away_grace=10.0)).state.hub.ledger.close()
    create_app(WebConfig(db_path=path)).state.hub.ledger.close()  # another setting: no check
    assert stored(str(path)) == {}


# -- marjolet serve ---------------------------------------------------------------------


def serve(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        # (serve_process's other options: the same --rate-limit)
        [sys.executable, "-m", "marjolet", "serve", "--port", "0", "--rate-limit", "1000",
         "--log-level", "warning", *args],
        capture_output=True, text=True, timeout=120,
    )


def one_line(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 2, result.stdout + result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("marjolet: "), result.stderr
    return lines[0]


def test_serve_on_another_redis_database_than_the_other_processes_is_refused(
    postgres_url: str, redis_url: str
) -> None:
    # the operator's trial: /1 beside /0 saw nobody of the others, and a
    # connected player lost a rated game by forfeit
    other = redis_url.rsplit("/", 1)[0] + "/1"
    with serve_process(postgres_url, "--broker", redis_url):
        line = one_line(serve("--db", postgres_url, "--broker", other))
    assert line.startswith(
        f"marjolet: error: --broker {other}: this database's other servers use "
        f"--broker {redis_url} (1 running, or stopped less than 10 s ago)"
    ), line
    assert "docs/deploy.md" in line


def test_serve_with_another_away_grace_is_refused_and_the_same_settings_are_accepted(
    postgres_url: str, redis_url: str
) -> None:
    with serve_process(postgres_url, "--broker", redis_url, "--away-grace", "30"):
        line = one_line(serve("--db", postgres_url, "--broker", redis_url))
        assert line.startswith(
            "marjolet: error: --away-grace 90: this database's other servers use --away-grace 30"
        ), line
        assert "give this one theirs, or stop every process and start them all" in line
        with serve_process(postgres_url, "--broker", redis_url, "--away-grace", "30") as (
            second, _
        ):
            assert second.poll() is None


def test_a_setting_changes_when_every_process_is_stopped_and_started_with_it(
    postgres_url: str, redis_url: str
) -> None:
    out: list[str] = []
    with serve_process(postgres_url, "--broker", redis_url) as (first, _):
        first.send_signal(signal.SIGTERM)  # a clean stop (systemctl stop)
        first.wait(30)  # (uvicorn stops cleanly, then dies of the signal it caught)
        assert running(postgres_url) == 0  # it gave its lease back
    with serve_process(
        postgres_url, "--broker", redis_url, "--away-grace", "30", "--log-level", "info",
        output=out,
    ):
        assert stored(postgres_url)["--away-grace"] == "30"
        line = one_line(serve("--db", postgres_url, "--broker", redis_url))  # the old value
        assert "other servers use --away-grace 30" in line
    assert any(
        "the database's settings are now this process's: --away-grace 90 -> --away-grace 30"
        in x for x in out
    ), out


# -- upgrading ----------------------------------------------------------------------------


def serving_lease(url: str, expires: float) -> None:
    """An older marjolet process's ``server:`` lease (revision 0010 on)."""
    engine = make_engine(url)
    try:
        with engine.begin() as db:
            db.execute(insert(leases).values(job="server:oldprocess", owner="oldprocess",
                                             expires=expires))
    finally:
        engine.dispose()


def revision_of(url: str) -> str:
    engine = make_engine(url)
    try:
        with engine.connect() as db:
            return current_revision(db)
    finally:
        engine.dispose()


def test_a_database_is_not_upgraded_while_an_older_process_serves_it(database_url: str) -> None:
    # the operator's trial: a rolling upgrade's new process upgraded the schema
    # under the old one, which went on storing names' looks by the old fold
    # and live offers without their sign of life
    engine = make_engine(database_url)
    move_schema(engine, "0011")
    serving_lease(database_url, time.time() + 10)
    with pytest.raises(ServersRunning) as refused:
        migrate(engine)
    assert str(refused.value).startswith(
        f"it is at schema revision 0011 and 1 older marjolet server(s) still run on it "
        f"(or stopped less than 10 s ago): stop every process before upgrading it to "
        f"revision {HEAD_REVISION}"
    )
    engine.dispose()
    assert revision_of(database_url) == "0011"  # untouched


def test_a_database_is_upgraded_once_the_older_processes_lease_ran_out(database_url: str) -> None:
    engine = make_engine(database_url)
    move_schema(engine, "0011")
    serving_lease(database_url, time.time() - 1)  # it crashed more than 10 s ago
    assert migrate(engine) == HEAD_REVISION
    engine.dispose()


def test_serve_refuses_to_upgrade_under_an_older_process_in_one_line(
    postgres_url: str, redis_url: str
) -> None:
    engine = make_engine(postgres_url)
    move_schema(engine, "0011")
    engine.dispose()
    serving_lease(postgres_url, time.time() + 60)
    line = one_line(serve("--db", postgres_url, "--broker", redis_url))
    assert line.startswith("marjolet: error: database ") and line.endswith(
        "it is at schema revision 0011 and 1 older marjolet server(s) still run on it "
        f"(or stopped less than 10 s ago): stop every process before upgrading it to revision "
        f"{HEAD_REVISION}, then start them all with the new marjolet (docs/deploy.md, step 6)"
    ), line
    assert revision_of(postgres_url) == "0011"


def test_a_process_of_the_newest_revision_joins_the_running_ones(
    postgres_url: str, redis_url: str
) -> None:
    # a rolling restart of one version: nothing to upgrade, nothing refused
    with (
        serve_process(postgres_url, "--broker", redis_url),
        serve_process(postgres_url, "--broker", redis_url) as (second, _),
    ):
        assert second.poll() is None
        assert running(postgres_url) == 2
