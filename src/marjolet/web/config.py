"""Settings of one web server (``marjolet serve`` fills them from its options)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from marjolet.paths import data_dir

#: File name of the default database inside the per-user data folder.
DEFAULT_DB_NAME = "web.sqlite3"


@dataclass(frozen=True, slots=True)
class WebConfig:
    """Everything the application needs to know at start-up.

    The defaults are the production settings. ``deck_for`` and
    ``first_dealer`` exist for tests only (``marjolet serve`` never sets
    them): without them every shuffle and first dealer come from
    :class:`secrets.SystemRandom` (R6).
    """

    #: The SQLite file, or a database URL (``postgresql://USER@HOST:PORT/DB``,
    #: shared by several processes); ``None`` means ``data_dir()/web.sqlite3``.
    db_path: Path | str | None = None
    #: The message bus between processes (``redis://HOST:PORT/N``); ``None``:
    #: one process, an in-memory bus (docs/deploy.md).
    broker: str | None = None
    #: Seconds between two checks, in a process sharing its database, that
    #: the games it shows are the stored ones (a bus message may be lost).
    sync_interval: float = 2.0
    #: Seconds a process owns a game's bots without renewing its lease: a
    #: dead owner's bots are taken over by another process after this.
    lease_seconds: float = 10.0
    #: Least seconds between two moves of a bot at a table with a person,
    #: so that the person sees each card arrive.
    bot_delay: float = 0.7
    #: Least seconds between two moves of a bot-vs-bot match being watched.
    watch_delay: float = 1.0
    #: Threads that run bots (and hints) off the event loop.
    bot_threads: int = 2
    #: Bot-pool jobs one client address may run at once (``None``: half the
    #: threads, at least one), so that another visitor's bot always finds a
    #: thread; and the hints, reviews or replays it may have waiting.
    bot_threads_per_client: int | None = None
    queued_per_client: int = 4
    #: Seconds between two tries to save a bot's move the store refused
    #: (a full disk): the game goes on by itself once space returns.
    save_retry: float = 5.0
    #: Seconds a connection has to send complete request headers, a
    #: request body may pause, and an idle keep-alive connection stays open;
    #: connections one client address may hold open (``marjolet serve``).
    header_timeout: float = 10.0
    body_timeout: float = 30.0
    keep_alive: int = 5
    max_connections_per_address: int = 64
    #: Operator-allowed bot choices, name -> spec (``--allow-bot``).
    allowed_bots: Mapping[str, str] = field(default_factory=dict)
    #: Offer every registered fair bot as well as ``allowed_bots``.
    default_bots: bool = True
    #: Largest WebSocket message accepted from a browser, in bytes.
    max_message: int = 2048
    #: Messages a connection may send per second, and the burst above it.
    rate_per_second: float = 20.0
    rate_burst: int = 40
    #: Dropped (flooding) messages after which a connection is closed.
    flood_close_after: int = 200
    #: Games one client address may create per minute (burst the same).
    games_per_minute: int = 120
    #: Watched bot-vs-bot matches running at once, in all and per address
    #: (each one keeps the bot threads busy that people's games need).
    max_watched: int = 6
    max_watched_per_address: int = 2
    #: Seconds a watched match goes on with no spectator before it pauses
    #: (it leaves memory and goes on when someone opens it again).
    watch_pause_after: float = 180.0
    #: Largest uploaded record, in bytes.
    max_upload: int = 1_000_000
    #: Largest JSON request body of the other endpoints, in bytes.
    max_request: int = 8192
    #: Seconds a new connection has to say who it is.
    hello_timeout: float = 10.0
    #: Games listed on the history page.
    history_limit: int = 500
    #: Host names the server answers to (``None``: any). ``marjolet serve``
    #: on a loopback address allows only loopback names, which defeats DNS
    #: rebinding attacks from web pages.
    allowed_hosts: Sequence[str] | None = None
    #: The public name served through a reverse proxy (``--behind-proxy``),
    #: or ``None``; recorded so that every process of a deployment has the
    #: same (marjolet.web.deployment).
    behind_proxy: str | None = None
    #: Seconds a person's seat of a live two-person game may stay away before
    #: the other player may claim the match (docs/web.md, "Leaving").
    away_grace: float = 90.0
    #: Seconds a person of a live two-person game has for each move; after
    #: that the other player may claim the match, as when a player left (a
    #: player who stays connected and never moves cannot hold a game
    #: forever). 0: no limit (docs/web.md, "Slow players").
    move_limit: float = 300.0
    #: Seconds past a move's deadline (``move_limit``, or a correspondence
    #: game's days per move) after which the server ends a game between two
    #: people by itself, lost on time by the player to move, when the other
    #: player has not claimed it: a game both players left does not stay
    #: "in progress" forever. 0: never (docs/web.md, "Slow players").
    abandon_after: float = 86_400.0
    #: Seconds between two looks for such games.
    abandon_check: float = 600.0
    #: Seconds a rematch offer of a game found online stays open before it
    #: ends ``expired`` (docs/web.md, "Rematch of a game found online").
    rematch_wait: float = 600.0
    #: Rate limits by name (``limits`` notation), each replacing that entry
    #: of :data:`marjolet.web.ratelimits.DEFAULT_LIMITS` (the requests that
    #: cost bot time, logins, sign-ups, seeks).
    rate_limits: Mapping[str, str] | None = None
    #: Where rate-limit counts are kept (``None``: memory; ``redis://...``).
    rate_limit_storage: str | None = None
    #: Seconds of thought per decision of a game review (``--review-budget``;
    #: marjolet.analysis.DEFAULT_BUDGET).
    review_budget: float = 0.3
    #: Seconds between two rounds of the "Play now" pairing.
    pairing_interval: float = 1.0
    #: Seconds a "Play now" place may go unasked (the page asks every
    #: second) before it is given up and never paired.
    play_now_timeout: float = 10.0
    #: Seconds a live seek stays in the lobby with no sign of life from its
    #: owner (its page following it on a lobby socket, or asking its status).
    seek_timeout: float = 90.0
    #: Tests only: the deck of deal ``i`` of every new game.
    deck_for: Callable[[int], Sequence[int]] | None = None
    #: Tests only: the first dealer of every new game.
    first_dealer: int | None = None

    def database(self) -> Path | str:
        """The SQLite file or the database URL this server keeps its games in."""
        return self.db_path if self.db_path is not None else data_dir() / DEFAULT_DB_NAME
