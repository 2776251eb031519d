"""Game reviews in the browser: computed in the server's bot threads,
stored in the server's database, shown again without recomputing (docs/review.md).

``GET /api/games/ID/review`` (:mod:`marjolet.web.routes.reviews`) tells
where the review of a game stands (a finished game's, or the finished
deals' of a match still being played) (``none``, ``running`` with its
progress, ``done`` with the review, ``failed``); ``POST`` starts it. The
review goes decision by decision, each one a separate job in the bot thread
pool, so a bot's move at a live table waits for at most one decision's
budget. Reviews live in a ``reviews`` table of the server's database
(declared in :mod:`marjolet.web.db`), keyed by the game and a digest of its
record; a seat renamed (an account deleted) re-keys them
(:func:`rename_reviews`), so that they stay valid.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field, replace
from typing import Any

from sqlalchemy import Connection, Engine, delete, insert, select, update

from marjolet.analysis import DEFAULT_BUDGET, Review, Reviewer, default_estimator
from marjolet.analysis.review import count_decisions, decision_points
from marjolet.match import Match
from marjolet.record import Record
from marjolet.web.db import game_players, games, reader, reviews
from marjolet.web.errors import WebError
from marjolet.web.hub import Hub, finished_deals
from marjolet.web.store import StoreError, read_game

log = logging.getLogger("marjolet.web")

#: How the note of a review's lease starts once the review failed.
FAILED = "failed: "
#: What a visitor is told of a review that failed (the reason, a program's
#: error, goes to the server's log only).
REVIEW_FAILED = "the review could not be made; the server's log says why"


def record_digest(record: Record) -> str:
    """The key of a record's review: the SHA-256 of its text (the players'
    names too, which :func:`rename_reviews` follows when they change)."""
    return hashlib.sha256(record.dumps().encode("utf-8")).hexdigest()


def rename_reviews(
    db: Connection, game_id: str, was: tuple[str, str], now: tuple[str, str]
) -> None:
    """Re-key the stored reviews of a finished game whose players' names
    went from ``was`` to ``now`` (an account deleted: its seat is renamed;
    in the renaming's transaction ``db``, after the ``games`` row is
    updated, which a review being stored waits for, see
    :meth:`ReviewBook.put`): its review is still valid (it judges the cards
    and moves, not the names) and is shown without computing it again.
    Every other review of the game goes: one of its finished deals, made
    while it was played, is never shown once it is over, and its key
    hashes the old name."""
    mine = reviews.c.game_id == game_id
    if db.execute(select(reviews.c.game_id).where(mine).limit(1)).first() is None:
        return
    try:
        game = read_game(db, game_id)
    except StoreError:
        game = None  # a damaged game shows no review: nothing to keep
    if game is None:
        db.execute(delete(reviews).where(mine))
        return
    record = game.record()
    old = record_digest(replace(record, players=was))
    new = record_digest(replace(record, players=now))
    db.execute(delete(reviews).where(mine, reviews.c.digest != old))
    db.execute(update(reviews).where(mine, reviews.c.digest == old).values(digest=new))


class ReviewBook:
    """The ``reviews`` table: one JSON review per game, record and view."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.reader = reader(engine)

    def get(self, game_id: str, digest: str, view: str = "seat") -> dict[str, Any] | None:
        with self.reader.connect() as db:
            body = db.execute(
                select(reviews.c.body).where(
                    reviews.c.game_id == game_id, reviews.c.digest == digest, reviews.c.view == view
                )
            ).scalar()
        return None if body is None else dict(json.loads(body))

    def put(
        self, game_id: str, record: Record, view: str, budget: float, body: dict[str, Any]
    ) -> None:
        """Store the review of ``record``, keyed by its digest under the
        game's players' names as they are now: a seat renamed while it was
        computed (an account deleted, :func:`rename_reviews`) does not
        leave it under a key nobody asks for. The game's row is read
        locked, so a renaming waits for this or this for it."""
        with self.engine.begin() as db:
            digest = record_digest(replace(record, players=_current_players(db, game_id, record)))
            key = (reviews.c.game_id == game_id, reviews.c.digest == digest, reviews.c.view == view)
            db.execute(delete(reviews).where(*key))
            db.execute(
                insert(reviews).values(
                    game_id=game_id, digest=digest, view=view, budget=budget, body=json.dumps(body)
                )
            )

    def close(self) -> None:
        """Nothing to release: the store owns the engine."""


def _current_players(db: Connection, game_id: str, record: Record) -> tuple[str, str] | None:
    """The game's players' names as stored now (the record's own if the
    game is not stored), its row locked on PostgreSQL until ``db`` ends."""
    query = select(games.c.players).where(games.c.id == game_id)
    if db.dialect.name == "postgresql":
        query = query.with_for_update()
    stored = db.execute(query).scalar()
    if stored is None:
        return record.players
    names = json.loads(stored)
    return (str(names[0]), str(names[1]))


@dataclass
class Job:
    digest: str
    done: int = 0
    total: int = 0
    error: str | None = None
    #: Another process took the job over (this one stalled past its lease).
    lost: bool = False
    task: asyncio.Task[None] | None = None
    #: The work is over: the heartbeat renews the lease no more.
    ended: bool = False
    #: Held while the heartbeat renews the lease: the end of the work waits
    #: for a renewal under way, which would otherwise overwrite its word.
    beating: asyncio.Lock = field(default_factory=asyncio.Lock)


def job_name(game_id: str, digest: str) -> str:
    """The lease of one review (one owner among the processes)."""
    return f"review:{game_id}:{digest}"


class ReviewService:
    """Starts, runs and remembers reviews of finished games (and of the
    finished deals of games still being played).

    Among several processes a review is a job with one owner (its lease,
    :mod:`marjolet.web.leases`): the process that takes the lease computes
    it, says its progress in the lease's note and stores it; the others
    answer ``running`` with that progress, then the stored review. A
    review whose owner died (its lease ran out) or stopped cleanly (it
    left its lease expired) is taken over by the next process asked about
    it. Within one process, the requests about one game's review are
    answered one after the other (:meth:`_deciding`), so that two at once
    never both start it.
    """

    def __init__(
        self, hub: Hub, book: ReviewBook | None = None, budget: float = DEFAULT_BUDGET
    ) -> None:
        self.hub = hub
        self.book = book if book is not None else ReviewBook(hub.ledger.engine)
        self.budget = budget
        self.jobs: dict[str, Job] = {}
        #: A lock per game with a request under way, and how many hold or await it.
        self._locks: dict[str, tuple[asyncio.Lock, int]] = {}

    @contextlib.asynccontextmanager
    async def _deciding(self, game_id: str) -> AsyncIterator[None]:
        """Hold the game's review on this process from reading where it
        stands to starting it (or taking it over). Between the two lie
        several awaits, and the lease cannot tell two requests of one
        process apart (it renews a lease the process already holds): both
        would compute the review."""
        lock, users = self._locks.get(game_id, (asyncio.Lock(), 0))
        self._locks[game_id] = (lock, users + 1)
        try:
            async with lock:
                yield
        finally:
            lock, users = self._locks[game_id]
            if users == 1:
                del self._locks[game_id]
            else:
                self._locks[game_id] = (lock, users - 1)

    async def _reviewable_record(self, game_id: str) -> Record:
        """What a review judges: the whole game once it is finished, else
        its finished deals, whose every card has been shown (a new review
        once another deal is over: reviews are kept per record digest)."""
        game, record, complete = await self.hub.shareable_record(game_id)
        return await self._judged_part(game_id, game.status, record, complete)

    async def _judged_part(
        self, game_id: str, status: str, record: Record, complete: bool
    ) -> Record:
        """The part of ``record`` (the shareable one) a review judges."""
        if status == "finished" and complete:
            return record
        if await self._rated(game_id):  # no engine help while a rated match is played
            raise WebError(
                "not_finished", "a rated game is reviewed once it is over", key="error.review_rated"
            )
        finished = await asyncio.to_thread(finished_deals, record)
        if not finished.deals:
            raise WebError("not_finished", "a game is reviewed once one of its deals is over")
        return finished

    async def stored_review(
        self, game_id: str, status: str, record: Record, complete: bool
    ) -> Review | None:
        """The review stored for this game as it stands (``record``: its
        shareable record), if one was made; ``None`` otherwise, and for a
        game no review may judge yet (a rated match still played). A record
        download carries it as comments (:func:`marjolet.analysis.annotate`,
        as ``marjolet review --out`` writes them)."""
        try:
            judged = await self._judged_part(game_id, status, record, complete)
        except WebError:
            return None
        stored = await asyncio.to_thread(self.book.get, game_id, record_digest(judged))
        if stored is None:
            return None
        try:
            return Review.from_json(stored)
        except (KeyError, TypeError, ValueError) as exc:  # a row this code cannot read
            log.warning("game %s: its stored review is unreadable (%s); downloaded "
                        "without comments", game_id, exc)
            return None

    async def _rated(self, game_id: str) -> bool:
        """Whether the game is a rated one (its seats' accounts say so)."""

        def read() -> bool:
            query = select(game_players.c.game_id).where(
                game_players.c.game_id == game_id, game_players.c.rated.is_(True)
            )
            with self.hub.ledger.engine.connect() as db:
                return db.execute(query.limit(1)).first() is not None

        return await asyncio.to_thread(read)

    async def _stored(self, game_id: str, digest: str) -> dict[str, Any] | None:
        stored = await asyncio.to_thread(self.book.get, game_id, digest)
        return None if stored is None else {"status": "done", "review": stored}

    async def status(self, game_id: str) -> dict[str, Any]:
        """Where the review of a game stands (taken over here if
        its owner died or stopped at it)."""
        async with self._deciding(game_id):
            return await self._status(game_id)

    async def _status(self, game_id: str) -> dict[str, Any]:
        record = await self._reviewable_record(game_id)
        digest = record_digest(record)
        stored = await self._stored(game_id, digest)
        if stored is not None:
            return stored
        job = self.jobs.get(game_id)
        if job is not None and job.digest == digest and not job.lost:
            if job.error is None:
                return {"status": "running", "done": job.done, "total": job.total}
            if not self.hub.shared:  # (shared: the lease says it, and a retry elsewhere)
                return {"status": "failed", "message": job.error}
        if self.hub.shared:
            return await self._elsewhere(game_id, record, digest)
        return {"status": "none"}

    async def _elsewhere(
        self, game_id: str, record: Record, digest: str, *, may_take: bool = True
    ) -> dict[str, Any]:
        """The review as another process runs it: its progress; taken over
        if that process died or stopped at it (its lease expired with a
        progress in its note); stored, if it finished meanwhile (it stores
        the review before it gives its lease back)."""
        lease = await asyncio.to_thread(self.hub.leases.lease_of, job_name(game_id, digest))
        if lease is not None and lease.live:
            done, total = _progress(lease.note)
            return {"status": "running", "done": done, "total": total}
        stored = await self._stored(game_id, digest)
        if stored is not None:
            return stored
        failure = None if lease is None else _failure(lease.note)
        if failure is not None:  # it failed: trying again is the visitor's choice (POST)
            return {"status": "failed", "message": failure}
        if lease is not None and may_take:  # its owner died at it
            log.info("review of game %s: taken over from a process that stopped", game_id)
            return await self._begin(game_id, record, game_id)
        return {"status": "none"}

    async def start(
        self, game_id: str, client: str = "", allowed: Callable[[], None] | None = None
    ) -> dict[str, Any]:
        """Start the review (again, if it failed) unless it is stored or
        running somewhere; say where it stands. ``allowed`` is asked (it
        raises to refuse) only when a review is about to be computed: one
        stored or running costs nothing to report."""
        async with self._deciding(game_id):
            current = await self._status(game_id)
            if current["status"] in ("done", "running"):
                return current
            if allowed is not None:
                allowed()
            record = await self._reviewable_record(game_id)
            return await self._begin(game_id, record, client or game_id)

    async def _begin(self, game_id: str, record: Record, key: str) -> dict[str, Any]:
        """Take the review's lease and compute it here (or, if another
        process took it first, say how far that one is). A review that
        failed is started again here: its lease ran out when it failed."""
        digest = record_digest(record)
        job = Job(digest)
        job.total = count_decisions(record, (0, 1), None)
        if not await self.hub.own(job_name(game_id, digest), _note(job)):
            return await self._elsewhere(game_id, record, digest, may_take=False)
        stored = await self._stored(game_id, digest)  # finished just before we took it
        if stored is not None:
            await self.hub.give_back(job_name(game_id, digest))
            return stored
        self.jobs[game_id] = job
        job.task = asyncio.create_task(self._run(game_id, record, job, key))
        log.info("review of game %s: started (%d decisions)", game_id, job.total)
        return {"status": "running", "done": 0, "total": job.total}

    async def _run(self, game_id: str, record: Record, job: Job, key: str) -> None:
        name = job_name(game_id, job.digest)
        heartbeat = asyncio.create_task(self._heartbeat(name, job))
        interrupted = False
        try:
            body = await self._compute(record, job, key)
            if job.lost:
                return
            await asyncio.to_thread(self.book.put, game_id, record, "seat", self.budget, body)
            log.info("review of game %s: stored", game_id)
        except asyncio.CancelledError:
            if not job.lost:  # this process stops (close): another is to go on
                interrupted = True
                raise
        except Exception:  # a review must never disturb the server
            log.exception("review of game %s failed", game_id)
            job.error = REVIEW_FAILED  # the reason stays in the log, off the page
        finally:
            async with job.beating:
                job.ended = True
            heartbeat.cancel()
            if job.error is not None:
                await self._settle(name, FAILED + job.error)
            elif interrupted:
                await self._settle(name, _note(job))
            elif not job.lost:
                await self.hub.give_back(name)

    async def _settle(self, name: str, note: str) -> None:
        """Leave the review's lease expired at once with ``note``, for
        every process to read, not only this one: a failure (``FAILED``
        and its message), which they report until someone retries; or,
        when this process stops in the middle, the review's progress,
        which reads as an owner that died, so the next process asked
        takes the review over (a lease given back would read as a review
        nobody started: ``none``, and the page gives up)."""
        if not self.hub.shared:
            return
        try:
            await asyncio.to_thread(self.hub.leases.settle, name, note)
        except Exception as exc:  # the lease runs out by itself: later, or "none" for a failure
            log.warning("review %s: could not leave its lease expired: %s", name, exc)

    async def _compute(self, record: Record, job: Job, key: str) -> dict[str, Any]:
        estimator = default_estimator(self.budget)
        reviewer = Reviewer(estimator=estimator, budget=self.budget)
        match = Match(record.rules, first_dealer=record.first_dealer, players=record.players)
        decisions = []
        for point in decision_points(match, record):
            if job.lost:
                break
            # one decision per job: live tables' bots never wait long
            judged = await self.hub.think(key, reviewer.judge, point)
            decisions.append(judged)
            job.done = len(decisions)
        review = Review(tuple(decisions), (0, 1), "seat", self.budget, estimator.name)
        return review.to_json()

    async def _heartbeat(self, name: str, job: Job) -> None:
        """Renew the review's lease, with its progress, while it runs; a
        lease lost (this process stalled past it, another took the review
        over) stops the work here."""
        if not self.hub.shared:
            return
        while True:
            await asyncio.sleep(self.hub.config.lease_seconds / 3)
            async with job.beating:
                if job.ended:
                    return
                if not await self.hub.own(name, _note(job)):
                    log.warning("review %s: its lease was lost; another process goes on", name)
                    job.lost = True
                    return

    async def close(self) -> None:
        """Stop the reviews running here (a graceful stop): each leaves
        its lease expired with its progress, for another process."""
        for job in self.jobs.values():
            if job.task is not None and not job.task.done():
                job.task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await job.task
        await asyncio.to_thread(self.book.close)


def _note(job: Job) -> str:
    return f"{job.done}/{job.total}"


def _failure(note: str | None) -> str | None:
    """The message of a review that failed, from its lease's note (None:
    the note is a progress)."""
    if note is None or not note.startswith(FAILED):
        return None
    return note[len(FAILED) :] or REVIEW_FAILED


def _progress(note: str | None) -> tuple[int, int]:
    """(done, total) from a lease's note ("done/total"; (0, 0) if unreadable)."""
    done, _, total = (note or "").partition("/")
    if not (done.isdigit() and total.isdigit()):
        return 0, 0
    return min(int(done), int(total)), int(total)
