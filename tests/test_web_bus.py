"""The bus between server processes (marjolet.web.bus), local and on Redis."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator

import pytest

from marjolet.web.bus import (
    AccountEvent,
    LocalBus,
    RedisBus,
    decode,
    decode_account_event,
    encode,
    encode_account_event,
    make_bus,
)

DIGEST = "ab" * 32


async def first(stream: AsyncIterator[tuple[str, int]], count: int) -> list[tuple[str, int]]:
    got = []
    async for item in stream:
        got.append(item)
        if len(got) == count:
            break
    return got


def test_a_message_is_a_game_id_and_a_version_and_nothing_else() -> None:
    assert decode(encode("AbC_-9", 42)) == ("AbC_-9", 42)
    assert decode(b"g1 7") == ("g1", 7)
    for junk in ["", "g1", "g1 x", "g 1 2", "a" * 41 + " 1", "g1 -1", "\x00\xff"]:
        assert decode(junk) is None
    with pytest.raises(ValueError):
        encode("has space", 1)


def test_every_local_subscriber_gets_every_message() -> None:
    async def run() -> tuple[list[tuple[str, int]], list[tuple[str, int]]]:
        bus = LocalBus()
        a, b = bus.subscribe(), bus.subscribe()
        tasks = [asyncio.ensure_future(first(a, 2)), asyncio.ensure_future(first(b, 2))]
        await asyncio.sleep(0)
        await bus.publish("g1", 1)
        await bus.publish("g2", 5)
        done = await asyncio.wait_for(asyncio.gather(*tasks), 5)
        return done[0], done[1]

    got_a, got_b = asyncio.run(run())
    assert got_a == got_b == [("g1", 1), ("g2", 5)]


def test_a_message_published_by_one_process_reaches_another_through_redis(
    redis_url: str,
) -> None:
    async def run() -> list[tuple[str, int]]:
        sender, receiver = RedisBus(redis_url), RedisBus(redis_url)
        await sender.ready()
        stream = receiver.subscribe()
        task = asyncio.ensure_future(first(stream, 2))
        for _ in range(100):  # until the subscription is in place
            await asyncio.sleep(0.02)
            if await sender._redis.pubsub_numsub("marjolet:games") != [(b"marjolet:games", 0)]:
                break
        await sender._redis.publish("marjolet:games", "not a message")
        await sender.publish("g1", 3)
        await sender.publish("g1", 4)
        got = await asyncio.wait_for(task, 10)
        await sender.close()
        await receiver.close()
        return got

    assert asyncio.run(run()) == [("g1", 3), ("g1", 4)]


def test_the_broker_must_be_a_redis_url() -> None:
    assert isinstance(make_bus(None), LocalBus)
    with pytest.raises(ValueError, match="redis://"):
        make_bus("postgresql://x")


def test_a_lobby_change_reaches_another_process_with_the_name_of_its_origin(
    redis_url: str,
) -> None:
    async def run() -> list[str]:
        sender, receiver = RedisBus(redis_url), RedisBus(redis_url)
        await sender.ready()
        got: list[str] = []

        async def hear() -> None:
            async for origin in receiver.subscribe_lobby():
                got.append(origin)
                if len(got) == 2:
                    return

        task = asyncio.ensure_future(hear())
        for _ in range(100):  # until the subscription is in place
            await asyncio.sleep(0.02)
            if await sender._redis.pubsub_numsub("marjolet:lobby") != [(b"marjolet:lobby", 0)]:
                break
        await sender._redis.publish("marjolet:lobby", "NOT a process")
        await sender.publish_lobby("0a1b")
        await sender.publish_lobby("ffff")
        await asyncio.wait_for(task, 10)
        with pytest.raises(ValueError):
            await sender.publish_lobby("no such name")
        await sender.close()
        await receiver.close()
        return got

    assert asyncio.run(run()) == ["0a1b", "ffff"]


def test_the_lobby_sockets_fetch_the_offers_again_once_the_lost_bus_is_back() -> None:
    """Changes published while the bus was down were never heard: once it
    answers again every lobby socket here fetches the offers, once, and
    never while it stays down (each fetch reads the database)."""
    from types import SimpleNamespace
    from typing import Any, cast

    from marjolet.web.online import Online

    told: list[int] = []
    subscriptions: list[int] = []
    pings: list[int] = []
    back = asyncio.Event()

    async def subscribe_lobby() -> AsyncIterator[str]:
        subscriptions.append(len(told))  # how many tells before this subscription
        if len(subscriptions) == 1:
            raise ConnectionError("the broker went away")
        back.set()
        await asyncio.Event().wait()
        yield "never"

    async def ready() -> None:
        pings.append(len(told))
        if len(pings) < 3:
            raise ConnectionError("the broker is still down")

    fake: Any = SimpleNamespace(
        hub=SimpleNamespace(
            bus=SimpleNamespace(subscribe_lobby=subscribe_lobby, ready=ready),
            leases=SimpleNamespace(owner="0a1b"),
        ),
        _tell_lobby=lambda: told.append(1),
    )

    async def run() -> None:
        task = asyncio.ensure_future(Online._hear_lobby(cast(Online, fake)))
        await asyncio.wait_for(back.wait(), 10)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(run())
    assert pings == [0, 0, 0]  # nothing told while the broker stayed down
    assert subscriptions == [0, 1]  # told once it answered, before subscribing again


def test_a_channel_whose_broker_answers_again_says_so_once_in_the_log(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The failure is logged; so is the recovery, once, after the catch-up
    (an operator reading "subscribing again" learns when the outage ended)."""
    from marjolet.web.bus import hear_forever

    subscriptions: list[int] = []
    heard: list[str] = []
    done = asyncio.Event()

    async def subscribe() -> AsyncIterator[str]:
        subscriptions.append(1)
        if len(subscriptions) == 1:
            raise ConnectionError("the broker went away")
        yield "news"
        done.set()
        await asyncio.Event().wait()

    async def ready() -> None:
        return None

    async def hear(message: str) -> None:
        heard.append(message)

    async def back() -> None:
        return None

    async def run() -> None:
        task = asyncio.ensure_future(hear_forever("the games'", ready, subscribe, hear, back))
        await asyncio.wait_for(done.wait(), 10)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    with caplog.at_level(logging.INFO, logger="marjolet.web"):
        asyncio.run(run())
    said = [r.getMessage() for r in caplog.records]
    assert said == [
        "the games' bus failed (the broker went away); subscribing again",
        "the games' bus answers again",
    ], said
    assert heard == ["news"]


def test_two_deployments_on_one_redis_server_do_not_hear_each_other(redis_url: str) -> None:
    """Redis pub/sub ignores the database number; the channels carry it."""
    base = redis_url.rsplit("/", 1)[0]

    async def run() -> tuple[list[tuple[str, int]], list[tuple[str, int]]]:
        one, two, also_one = RedisBus(f"{base}/1"), RedisBus(f"{base}/2"), RedisBus(f"{base}/1")
        await one.ready()
        heard_two = asyncio.ensure_future(first(two.subscribe(), 1))
        heard_one = asyncio.ensure_future(first(also_one.subscribe(), 1))
        for _ in range(100):  # until both subscriptions are in place
            await asyncio.sleep(0.02)
            counts = await one._redis.pubsub_numsub(one.channel, two.channel)
            if all(n == 1 for _, n in counts):
                break
        await one.publish("g1", 3)  # database 1 only
        await two.publish("g2", 7)  # database 2 only
        got = await asyncio.wait_for(asyncio.gather(heard_one, heard_two), 10)
        for bus in (one, two, also_one):
            await bus.close()
        return got[0], got[1]

    assert asyncio.run(run()) == ([("g1", 3)], [("g2", 7)])


def test_an_account_event_carries_ids_digests_and_a_process_name_and_nothing_else() -> None:
    events = [
        AccountEvent("ended", "0a1b", (7,), DIGEST, "cd" * 32),
        AccountEvent("ended", "0a1b", (7,), DIGEST),
        AccountEvent("ended", "0a1b", (7,)),
        AccountEvent("turn", "ff", (3, 12)),
        AccountEvent("turn", "ff", (3,)),
        AccountEvent("deleted", "ff", (9,)),
    ]
    for event in events:
        assert decode_account_event(encode_account_event(event)) == event
        assert decode_account_event(encode_account_event(event).encode()) == event
    assert encode_account_event(events[0]) == f"ended 0a1b 7 {DIGEST} {'cd' * 32}"
    for bad in [
        AccountEvent("ended", "0a1b", (7,), "a session token, not its digest"),
        AccountEvent("ended", "0a1b", (7,), None, DIGEST),  # renewed into no session
        AccountEvent("ended", "no such process", (7,)),
        AccountEvent("turn", "ff", (1, 2, 3)),
        AccountEvent("turn", "ff", ()),
        AccountEvent("deleted", "ff", (-1,)),
    ]:
        with pytest.raises(ValueError):
            encode_account_event(bad)


def test_a_malformed_account_event_is_ignored() -> None:
    texts: list[bytes | str] = [
        "",
        "ended",
        "ended 0a1b 7",
        "ended 0a1b 7 - ",
        f"ended 0a1b 7 - {DIGEST}",
        f"ended 0a1b 7 {DIGEST.upper()} -",
        f"ended 0a1b 7 {DIGEST} - extra",
        "ended 0a1b \u0663 - -",  # a digit, but not an ASCII one
        "turn ff",
        "turn ff 1 2 3",
        "turn ff 1\n",
        "deleted ff x",
        "logout 0a1b 7",
        "\x00\xff",
        b"deleted ff \xff",
        b"deleted ff 7 \n",
    ]
    for junk in texts:
        assert decode_account_event(junk) is None, junk


def test_an_account_event_published_on_one_process_reaches_another_and_junk_is_skipped(
    redis_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    async def run() -> list[AccountEvent]:
        sender, receiver = RedisBus(redis_url), RedisBus(redis_url)
        await sender.ready()
        got: list[AccountEvent] = []

        async def hear() -> None:
            async for event in receiver.subscribe_accounts():
                got.append(event)
                return

        task = asyncio.ensure_future(hear())
        channel = receiver.accounts_channel
        for _ in range(100):  # until the subscription is in place
            await asyncio.sleep(0.02)
            if await sender._redis.pubsub_numsub(channel) != [(channel.encode(), 0)]:
                break
        await sender._redis.publish(channel, "ended 0a1b 7 a-stolen-token -")
        await sender.publish_account(AccountEvent("deleted", "0a1b", (7,)))
        await asyncio.wait_for(task, 10)
        await sender.close()
        await receiver.close()
        return got

    assert asyncio.run(run()) == [AccountEvent("deleted", "0a1b", (7,))]
    warnings = [r.getMessage() for r in caplog.records if "malformed" in r.getMessage()]
    assert warnings == ["ignored a malformed message on marjolet:accounts"]


def test_every_local_subscriber_hears_every_account_event() -> None:
    async def run() -> list[AccountEvent]:
        bus = LocalBus()
        got: list[AccountEvent] = []

        async def hear() -> None:
            async for event in bus.subscribe_accounts():
                got.append(event)
                return

        task = asyncio.ensure_future(hear())
        await asyncio.sleep(0)
        await bus.publish_account(AccountEvent("turn", "ff", (1, 2)))
        await asyncio.wait_for(task, 5)
        with pytest.raises(ValueError):
            await bus.publish_account(AccountEvent("turn", "ff", ()))
        return got

    assert asyncio.run(run()) == [AccountEvent("turn", "ff", (1, 2))]
