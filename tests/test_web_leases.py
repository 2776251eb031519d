"""Jobs with one owner (marjolet.web.leases), on SQLite and PostgreSQL."""

from __future__ import annotations

import logging
import threading

import pytest

from marjolet.web.db import make_engine, migrate
from marjolet.web.leases import Leases
from web_support import Clock


@pytest.fixture
def two(database_url: str) -> tuple[Leases, Leases, Clock]:
    engine = make_engine(database_url)
    migrate(engine)
    clock = Clock()
    return (Leases(engine, "p1", seconds=10, clock=clock),
            Leases(engine, "p2", seconds=10, clock=clock), clock)


def test_a_free_job_is_taken_and_then_held_against_another_process(
    two: tuple[Leases, Leases, Clock],
) -> None:
    p1, p2, _ = two
    assert p1.acquire("bot:g1")
    assert not p2.acquire("bot:g1")
    assert p1.owner_of("bot:g1") == "p1"
    assert p1.acquire("bot:g1")  # the heartbeat renews it


def test_a_dead_owner_s_job_is_taken_over_once_its_lease_expires(
    two: tuple[Leases, Leases, Clock],
) -> None:
    p1, p2, clock = two
    assert p1.acquire("countdown:g1")
    clock.now += 9.9
    assert not p2.acquire("countdown:g1")
    clock.now += 0.2
    assert p1.owner_of("countdown:g1") is None
    assert p2.acquire("countdown:g1")
    assert not p1.acquire("countdown:g1")  # the late owner lost it
    assert p2.owned() == ["countdown:g1"] and p1.owned() == []


def test_a_released_job_is_free_at_once(two: tuple[Leases, Leases, Clock]) -> None:
    p1, p2, _ = two
    p1.acquire("pairing")
    p2.release("pairing")  # not ours: nothing happens
    assert p1.owner_of("pairing") == "p1"
    p1.release("pairing")
    assert p2.acquire("pairing")


def test_of_many_processes_racing_for_a_free_job_exactly_one_wins(database_url: str) -> None:
    engine = make_engine(database_url)
    migrate(engine)
    racers = [Leases(engine, f"p{i}") for i in range(6)]
    won: list[str] = []

    def race(racer: Leases) -> None:
        if racer.acquire("review:g"):
            won.append(racer.owner)

    threads = [threading.Thread(target=race, args=(r,)) for r in racers]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(won) == 1


def test_of_many_processes_racing_to_take_over_a_dead_owner_s_job_exactly_one_wins(
    database_url: str,
) -> None:
    engine = make_engine(database_url)
    migrate(engine)
    clock = Clock()
    dead = Leases(engine, "dead", seconds=10, clock=clock)
    racers = [Leases(engine, f"p{i}", seconds=10, clock=clock) for i in range(6)]
    for round_ in range(10):
        job = f"bot:g{round_}"
        assert dead.acquire(job)
        clock.now += 11  # its lease has run out
        start = threading.Barrier(len(racers))
        won: list[str] = []

        def race(
            racer: Leases, job: str, start: threading.Barrier, won: list[str]
        ) -> None:
            start.wait()
            if racer.acquire(job):
                won.append(racer.owner)

        threads = [threading.Thread(target=race, args=(r, job, start, won)) for r in racers]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert len(won) == 1, won
        assert dead.owner_of(job) == won[0]


def test_a_countdown_keeps_its_first_deadline_through_a_takeover_until_its_seat_is_back(
    two: tuple[Leases, Leases, Clock],
) -> None:
    from marjolet.web.countdowns import Countdowns

    p1, p2, clock = two
    c1, c2 = Countdowns(p1), Countdowns(p2)
    start = clock.now
    assert c1.hold("g1", 1, start + 90) == start + 90  # p1 starts it
    assert c2.hold("g1", 1, start + 95) == start + 90  # p2 reads p1's, owns nothing
    assert p2.owner_of("clock:g1:1") == "p1"
    clock.now += 11  # p1 died: its lease ran out
    assert c2.hold("g1", 1, clock.now + 90) == start + 90  # taken over, same deadline
    assert p1.owner_of("clock:g1:1") == "p2"
    c1.stop("g1", 1)  # the seat came back on p1: whoever owns it, it stops
    assert c2.deadline("g1", 1) is None
    assert c2.hold("g1", 1, clock.now + 90) == clock.now + 90  # a new absence, a new countdown


def test_a_settled_job_is_read_by_every_process_and_free_to_take_again(
    two: tuple[Leases, Leases, Clock],
) -> None:
    p1, p2, _ = two
    assert p1.acquire("review:g1:d", "3/40")
    assert not p2.settle("review:g1:d", "failed: no")  # not its job
    assert p1.settle("review:g1:d", "failed: the estimator broke " + "x" * 100)
    held = p2.lease_of("review:g1:d")
    assert held is not None and not held.live and held.owner == "p1"
    assert held.note is not None and held.note.startswith("failed: the estimator broke")
    assert len(held.note) == 64  # cut to the column's width
    assert p2.acquire("review:g1:d", "0/40")  # a retry, on another process


def test_a_takeover_is_logged_with_both_processes_ids(
    two: tuple[Leases, Leases, Clock], caplog: pytest.LogCaptureFixture
) -> None:
    p1, p2, clock = two
    with caplog.at_level(logging.INFO, logger="marjolet.web"):
        assert p1.acquire("bot:g7")
        assert p1.acquire("bot:g7")  # a renewal says nothing
        assert not p2.acquire("bot:g7")  # nor does a refusal
        assert caplog.messages == []
        clock.now += 10.5
        assert p2.acquire("bot:g7")
    assert caplog.messages == [
        "process p2 took over bot:g7 from process p1 (its lease ran out or was given up)"
    ]
