"""The message bus between server processes: "game G is now at version V".

After a move is committed, the process that committed it publishes the
game's new version; every process with connections on that game reads
the new state from the database and rebuilds each seat's view itself. The
bus carries only ids and numbers, never a hand or a deck, so nothing
hidden ever crosses it.

:class:`LocalBus` is the embedded default (one process: an in-memory
fan-out); :class:`RedisBus` is Redis pub/sub (``--broker redis://...``),
the way lichess's game servers talk to each other. A second channel says
"the lobby changed" (:data:`LOBBY_CHANNEL`), so that every process tells
its lobby sockets to fetch the open seeks again. A third says what
happened to an account that sockets on other processes must act on
(:class:`AccountEvent`: sessions ended, a game's turn, an account
deleted), carrying account ids, session digests (never a token) and the
name of the process it happened on. A subscriber may miss messages
(pub/sub is not a queue): the version number lets it see a gap and catch
up from the database, which is the record of truth; what a lost account
event leaves undone is caught by the sockets' own checks (see
:meth:`marjolet.web.online.Online.hear_account_event`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Literal, Protocol, TypeVar

log = logging.getLogger("marjolet.web")
T = TypeVar("T")

#: The one Redis channel of game versions.
CHANNEL = "marjolet:games"
#: The channel of "the lobby changed" (the open seeks), each message the
#: name of the process where it changed.
LOBBY_CHANNEL = "marjolet:lobby"
#: The channel of account events (:class:`AccountEvent`).
ACCOUNTS_CHANNEL = "marjolet:accounts"


def channels(db: int) -> tuple[str, str, str]:
    """The games', the lobby's and the accounts' channels of Redis database
    ``db``. Redis pub/sub ignores database numbers, so that two deployments
    on one Redis server (``/1`` and ``/2``) would hear each other: the
    number is in the names (database 0 keeps the plain ones)."""
    if db == 0:
        return CHANNEL, LOBBY_CHANNEL, ACCOUNTS_CHANNEL
    return f"marjolet:{db}:games", f"marjolet:{db}:lobby", f"marjolet:{db}:accounts"


_MESSAGE = re.compile(r"([A-Za-z0-9_-]{1,40}) (\d{1,12})")
_ORIGIN = re.compile(r"[0-9a-f]{1,32}")
_ID = r"[0-9]{1,12}"
_DIGEST = r"[0-9a-f]{64}"
#: The three account events on the wire: the kind, the origin, then
#: ``ended``: an account, the session digest kept (or ``-``) and the one it
#: replaces (or ``-``); ``turn``: one or two accounts; ``deleted``: an account.
_ACCOUNT_EVENTS = {
    "ended": re.compile(rf"ended ({_ORIGIN.pattern}) ({_ID}) ({_DIGEST}|-) ({_DIGEST}|-)"),
    "turn": re.compile(rf"turn ({_ORIGIN.pattern}) ({_ID})(?: ({_ID}))?"),
    "deleted": re.compile(rf"deleted ({_ORIGIN.pattern}) ({_ID})"),
}


@dataclass(frozen=True, slots=True)
class AccountEvent:
    """Something that happened to accounts on the process ``origin`` that
    the sockets of every other process must hear of:

    - ``ended``: the sessions of ``accounts[0]`` other than the one whose
      digest is ``keep`` (None: all of them) ended; the sockets proved by
      ``renewed`` (a password change: this device's session before it) are
      first proved by ``keep`` instead.
    - ``turn``: a game of these accounts (one or two) changed.
    - ``deleted``: the account ``accounts[0]`` was deleted.
    """

    kind: Literal["ended", "turn", "deleted"]
    origin: str
    accounts: tuple[int, ...]
    keep: str | None = None
    renewed: str | None = None


def encode_account_event(event: AccountEvent) -> str:
    """The wire form of an account event (checked, so that nothing but ids,
    digests and a process name ever leaves)."""
    parts = [event.kind, event.origin, *map(str, event.accounts)]
    if event.kind == "ended":
        parts += [event.keep or "-", event.renewed or "-"]
    text = " ".join(parts)
    if decode_account_event(text) != event:
        raise ValueError(f"not an account event: {text[:200]!r}")
    return text


def decode_account_event(raw: bytes | str) -> AccountEvent | None:
    """The event of a message, or None for anything else on the channel."""
    text = raw.decode("ascii", "replace") if isinstance(raw, bytes) else raw
    kind = text.split(" ", 1)[0]
    pattern = _ACCOUNT_EVENTS.get(kind)
    match = None if pattern is None else pattern.fullmatch(text)
    if match is None:
        return None
    origin, *fields = match.groups()
    if kind == "ended":
        account, keep, renewed = fields
        if keep == "-" and renewed != "-":  # a session renewed into none
            return None
        return AccountEvent(
            "ended",
            origin,
            (int(account),),
            None if keep == "-" else keep,
            None if renewed == "-" else renewed,
        )
    ids = tuple(int(f) for f in fields if f is not None)
    return AccountEvent("turn" if kind == "turn" else "deleted", origin, ids)


class Bus(Protocol):
    """What the server needs of a bus."""

    async def publish(self, game_id: str, version: int) -> None: ...

    def subscribe(self) -> AsyncIterator[tuple[str, int]]: ...

    async def publish_lobby(self, origin: str) -> None: ...

    def subscribe_lobby(self) -> AsyncIterator[str]: ...

    async def publish_account(self, event: AccountEvent) -> None: ...

    def subscribe_accounts(self) -> AsyncIterator[AccountEvent]: ...

    async def ready(self) -> None: ...

    async def close(self) -> None: ...


def encode(game_id: str, version: int) -> str:
    """The wire form of one message (checked, so a bad id never leaves)."""
    text = f"{game_id} {version}"
    if not _MESSAGE.fullmatch(text):
        raise ValueError(f"not a game version message: {text!r}")
    return text


def decode(raw: bytes | str) -> tuple[str, int] | None:
    """(game id, version), or None for anything else on the channel."""
    text = raw.decode("ascii", "replace") if isinstance(raw, bytes) else raw
    match = _MESSAGE.fullmatch(text)
    return None if match is None else (match.group(1), int(match.group(2)))


async def _listen(queues: set[asyncio.Queue[T]]) -> AsyncIterator[T]:
    """One in-memory subscriber: a queue of its own in ``queues`` (the
    publisher puts every message in each), removed when it stops."""
    queue: asyncio.Queue[T] = asyncio.Queue()
    queues.add(queue)
    try:
        while True:
            yield await queue.get()
    finally:
        queues.discard(queue)


class LocalBus:
    """One process: every subscriber gets every message published here."""

    def __init__(self) -> None:
        self._queues: set[asyncio.Queue[tuple[str, int]]] = set()
        self._lobby: set[asyncio.Queue[str]] = set()
        self._accounts: set[asyncio.Queue[AccountEvent]] = set()

    async def publish(self, game_id: str, version: int) -> None:
        encode(game_id, version)
        for queue in self._queues:
            queue.put_nowait((game_id, version))

    def subscribe(self) -> AsyncIterator[tuple[str, int]]:
        return _listen(self._queues)

    async def publish_lobby(self, origin: str) -> None:
        for queue in self._lobby:
            queue.put_nowait(origin)

    def subscribe_lobby(self) -> AsyncIterator[str]:
        return _listen(self._lobby)

    async def publish_account(self, event: AccountEvent) -> None:
        encode_account_event(event)
        for queue in self._accounts:
            queue.put_nowait(event)

    def subscribe_accounts(self) -> AsyncIterator[AccountEvent]:
        return _listen(self._accounts)

    async def ready(self) -> None:
        """Always ready: the bus is in this process."""

    async def close(self) -> None:
        self._queues.clear()
        self._lobby.clear()
        self._accounts.clear()


class RedisBus:
    """Redis pub/sub on :data:`CHANNEL` and its siblings (``redis.asyncio``)."""

    def __init__(self, url: str) -> None:
        from redis import asyncio as aioredis

        self.url = url
        self._redis: Any = aioredis.from_url(url)
        db = int(self._redis.connection_pool.connection_kwargs.get("db") or 0)
        self.channel, self.lobby_channel, self.accounts_channel = channels(db)

    async def publish(self, game_id: str, version: int) -> None:
        await self._redis.publish(self.channel, encode(game_id, version))

    def subscribe(self) -> AsyncIterator[tuple[str, int]]:
        return self._decoded(self.channel, decode)

    async def publish_lobby(self, origin: str) -> None:
        if not _ORIGIN.fullmatch(origin):
            raise ValueError(f"not a process name: {origin!r}")
        await self._redis.publish(self.lobby_channel, origin)

    async def subscribe_lobby(self) -> AsyncIterator[str]:
        async with contextlib.aclosing(self._listen(self.lobby_channel)) as messages:
            async for data in messages:
                text = data.decode("ascii", "replace") if isinstance(data, bytes) else str(data)
                if _ORIGIN.fullmatch(text):
                    yield text

    async def publish_account(self, event: AccountEvent) -> None:
        await self._redis.publish(self.accounts_channel, encode_account_event(event))

    def subscribe_accounts(self) -> AsyncIterator[AccountEvent]:
        return self._decoded(self.accounts_channel, decode_account_event)

    async def _decoded(
        self, channel: str, decoder: Callable[[Any], T | None]
    ) -> AsyncGenerator[T, None]:
        """The messages of ``channel`` that ``decoder`` reads; any other is
        logged and skipped (a malformed message never stops the listening)."""
        async with contextlib.aclosing(self._listen(channel)) as messages:
            async for data in messages:
                decoded = decoder(data)
                if decoded is None:
                    log.warning("ignored a malformed message on %s", channel)
                    continue
                yield decoded

    async def _listen(self, channel: str) -> AsyncGenerator[Any, None]:
        """The data of every message on ``channel``."""
        pubsub = self._redis.pubsub()
        await pubsub.subscribe(channel)
        try:
            async for message in pubsub.listen():
                if message.get("type") == "message":
                    yield message.get("data", b"")
        finally:
            with contextlib.suppress(Exception):
                await pubsub.unsubscribe(channel)
                await pubsub.aclose()

    @property
    def client(self) -> Any:
        """The ``redis.asyncio`` client (the seats' beacons share it)."""
        return self._redis

    async def ready(self) -> None:
        """Wait until Redis answers (raises if it cannot be reached)."""
        await self._redis.ping()

    async def close(self) -> None:
        await self._redis.aclose()


def make_bus(broker: str | None) -> LocalBus | RedisBus:
    """The bus for ``--broker``: None for one process, else a redis:// URL."""
    if broker is None:
        return LocalBus()
    if not broker.startswith(("redis://", "rediss://", "unix://")):
        raise ValueError(f"--broker {broker!r}: expected a redis:// URL")
    return RedisBus(broker)


async def hear_forever(
    what: str,
    ready: Callable[[], Awaitable[None]],
    subscribe: Callable[[], AsyncIterator[T]],
    heard: Callable[[T], Awaitable[None]],
    back: Callable[[], Awaitable[None]] | None = None,
) -> None:
    """Give each message of a bus channel to ``heard``, subscribing again a
    second after a lost connection to the broker; once it answers again
    (never while it is down), ``back`` (if any) catches up what was missed,
    and the log says the channel is back (an operator who read its failure knows
    the outage is over)."""
    lost = False
    while True:
        try:
            if lost:
                await ready()
                if back is not None:
                    await back()
                lost = False
                log.info("%s bus answers again", what)
            async for message in subscribe():
                await heard(message)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            log.warning("%s bus failed (%s); subscribing again", what, exc)
        lost = True
        await asyncio.sleep(1.0)
