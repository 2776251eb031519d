"""Game reviews in the browser: computed in the server's bot threads,
stored in the server's database, shown again without recomputing (docs/review.md).

``GET /api/games/ID/review`` (:mod:`marjolet.web.routes.reviews`) tells
where the review of a finished game stands (``none``, ``running`` with its
progress, ``done`` with the review, ``failed``); ``POST`` starts it. The
review goes decision by decision, each one a separate job in the bot thread
pool, so a bot's move at a live table waits for at most one decision's
budget. Reviews live in a ``reviews`` table of the server's database
(declared in :mod:`marjolet.web.db`), keyed by the game and a digest of its
record.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Engine, delete, insert, select

from marjolet.analysis import DEFAULT_BUDGET, Review, Reviewer, default_estimator
from marjolet.analysis.review import count_decisions, decision_points
from marjolet.match import Match
from marjolet.record import Record
from marjolet.web.db import reader, reviews
from marjolet.web.errors import WebError
from marjolet.web.hub import Hub

log = logging.getLogger("marjolet.web")

def record_digest(record: Record) -> str:
    return hashlib.sha256(record.dumps().encode("utf-8")).hexdigest()


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
        self, game_id: str, digest: str, view: str, budget: float, body: dict[str, Any]
    ) -> None:
        key = (reviews.c.game_id == game_id, reviews.c.digest == digest, reviews.c.view == view)
        with self.engine.begin() as db:
            db.execute(delete(reviews).where(*key))
            db.execute(
                insert(reviews).values(
                    game_id=game_id, digest=digest, view=view, budget=budget, body=json.dumps(body)
                )
            )

    def close(self) -> None:
        """Nothing to release: the store owns the engine."""


@dataclass
class Job:
    digest: str
    done: int = 0
    total: int = 0
    error: str | None = None
    task: asyncio.Task[None] | None = None


class ReviewService:
    """Starts, runs and remembers reviews of finished games."""

    def __init__(
        self, hub: Hub, book: ReviewBook | None = None, budget: float = DEFAULT_BUDGET
    ) -> None:
        self.hub = hub
        self.book = book if book is not None else ReviewBook(hub.ledger.engine)
        self.budget = budget
        self.jobs: dict[str, Job] = {}

    async def _finished_record(self, game_id: str) -> Record:
        game, record, complete = await self.hub.shareable_record(game_id)
        if game.status != "finished" or not complete:
            raise WebError("not_finished", "only a finished game can be reviewed")
        return record

    async def status(self, game_id: str) -> dict[str, Any]:
        record = await self._finished_record(game_id)
        digest = record_digest(record)
        stored = await asyncio.to_thread(self.book.get, game_id, digest)
        if stored is not None:
            return {"status": "done", "review": stored}
        job = self.jobs.get(game_id)
        if job is None or job.digest != digest:
            return {"status": "none"}
        if job.error is not None:
            return {"status": "failed", "message": job.error}
        return {"status": "running", "done": job.done, "total": job.total}

    async def start(self, game_id: str, client: str = "") -> dict[str, Any]:
        current = await self.status(game_id)
        if current["status"] in ("done", "running"):
            return current
        record = await self._finished_record(game_id)
        job = Job(record_digest(record))
        job.total = count_decisions(record, (0, 1), None)
        self.jobs[game_id] = job
        job.task = asyncio.create_task(self._run(game_id, record, job, client or game_id))
        return {"status": "running", "done": 0, "total": job.total}

    async def _run(self, game_id: str, record: Record, job: Job, key: str) -> None:
        try:
            estimator = default_estimator(self.budget)
            reviewer = Reviewer(estimator=estimator, budget=self.budget)
            match = Match(record.rules, first_dealer=record.first_dealer, players=record.players)
            decisions = []
            for point in decision_points(match, record):
                # one decision per job: live tables' bots never wait long
                judged = await self.hub.think(key, reviewer.judge, point)
                decisions.append(judged)
                job.done = len(decisions)
            review = Review(tuple(decisions), (0, 1), "seat", self.budget, estimator.name)
            body = review.to_json()
            await asyncio.to_thread(self.book.put, game_id, job.digest, "seat", self.budget, body)
        except Exception as exc:  # a review must never disturb the server
            log.error("review of game %s failed: %s", game_id, exc)
            job.error = str(exc) or type(exc).__name__

    async def close(self) -> None:
        for job in self.jobs.values():
            if job.task is not None and not job.task.done():
                job.task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await job.task
        await asyncio.to_thread(self.book.close)
