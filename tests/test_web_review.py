"""The browser's game review: computed in the bot threads, stored in
SQLite, shown again without recomputing (web/reviews.py)."""

from __future__ import annotations

import random
import time
from pathlib import Path
from typing import Any

from marjolet import record
from web_support import Browser, LiveServer, fast_config, live_server, play_until


def finished_game(server: LiveServer) -> dict[str, Any]:
    game = server.new_game(mode="bot", bot="random", rules={"profile": "classic", "target": 150})
    with Browser.open(server, game["id"], {"type": "hello", "token": game["token"]}) as me:
        play_until(me, lambda s: bool(s["match_over"]), random.Random(3))
    return game


def wait_done(server: LiveServer, game_id: str, limit: float = 120.0) -> dict[str, Any]:
    end = time.monotonic() + limit
    with server.http() as client:
        while time.monotonic() < end:
            status: dict[str, Any] = client.get(f"/api/games/{game_id}/review").json()
            if status["status"] != "running":
                return status
            assert 0 <= status["done"] <= status["total"]
            time.sleep(0.2)
    raise AssertionError("the review did not finish")


def test_a_finished_game_is_reviewed_once_and_shown_again_from_the_database(
    tmp_path: Path,
) -> None:
    db = tmp_path / "games.sqlite3"
    with live_server(fast_config(db)) as server:
        server.app.state.reviews.budget = 0.0  # the fewest worlds: fast enough for a test
        game = finished_game(server)
        url = f"/api/games/{game['id']}/review"
        with server.http() as client:
            assert client.get(url).json() == {"status": "none"}
            started = client.post(url, json={}).json()
            assert started["status"] in ("running", "done")
        status = wait_done(server, game["id"])
        assert status["status"] == "done", status
        review = status["review"]
        with server.http() as client:
            rec = record.loads(client.get(f"/api/games/{game['id']}/record").text)
        assert {p["seat"] for p in review["players"]} == {0, 1}
        for d in review["decisions"]:
            assert rec.deals[d["deal"]].actions[d["action"]] is not None
            assert d["loss"] >= 0 and d["played"] in d["values"]
        assert any(d["exact"] for d in review["decisions"])
        # opening it again costs nothing and is never refused: the limit
        # (6 a minute an address) counts only reviews that start computing
        with server.http() as client:
            for _ in range(10):
                reopened = client.post(url, json={})
                assert reopened.status_code == 200 and reopened.json()["status"] == "done"
    # a new server on the same database shows it at once, without a POST
    with live_server(fast_config(db)) as server:
        with server.http() as client:
            again = client.get(url).json()
        assert again == {"status": "done", "review": review}


def test_a_game_is_reviewed_once_a_deal_is_over_then_again_with_each_new_deal(
    tmp_path: Path,
) -> None:
    with live_server(fast_config(tmp_path / "games.sqlite3")) as server:
        server.app.state.reviews.budget = 0.0
        rules = {"profile": "classic", "target": 400}
        game = server.new_game(mode="bot", bot="random", rules=rules)
        url = f"/api/games/{game['id']}/review"
        with server.http() as client:
            live = client.post(url, json={})
            assert live.status_code == 409 and "deals is over" in live.json()["error"]["message"]
            assert client.get("/api/games/nosuchgame/review").status_code == 404
        with Browser.open(server, game["id"], {"type": "hello", "token": game["token"]}) as me:
            state = play_until(me, lambda s: bool(s["deal_over"]), random.Random(3))
            assert not state["match_over"]
            with server.http() as client:  # the match goes on: its finished deal is reviewed
                assert client.post(url, json={}).json()["status"] in ("running", "done")
            first = wait_done(server, game["id"])
            assert first["status"] == "done", first
            assert {d["deal"] for d in first["review"]["decisions"]} == {0}
            me.send({"type": "next", "version": state["version"]})
            play_until(me, lambda s: bool(s["deal_over"]) and s["deal"] == 1, random.Random(4))
        with server.http() as client:  # a second deal over: a new review, of both deals
            assert client.get(url).json() == {"status": "none"}
            client.post(url, json={})
        second = wait_done(server, game["id"])
        assert {d["deal"] for d in second["review"]["decisions"]} == {0, 1}


def test_the_review_budget_is_the_analysis_default_and_a_wrong_one_is_one_line(
    tmp_path: Path,
) -> None:
    import subprocess
    import sys

    from marjolet.analysis import DEFAULT_BUDGET
    from marjolet.web.config import WebConfig

    assert WebConfig().review_budget == DEFAULT_BUDGET
    run = subprocess.run(
        [sys.executable, "-m", "marjolet", "serve", "--port", "0",
         "--db", str(tmp_path / "g.sqlite3"), "--review-budget", "11"],
        capture_output=True, text=True, timeout=120,
    )
    assert run.returncode == 2 and run.stdout == ""
    assert run.stderr.strip() == (
        "marjolet: error: --review-budget must be between 0 and 10 seconds, got 11.0"
    )


def count_judgements(monkeypatch: Any) -> list[tuple[int, int, int]]:
    """Every decision the reviewers judge from now on, as (reviewer, deal,
    action): a review computed twice judges its decisions twice."""
    from marjolet.analysis import Reviewer

    judged: list[tuple[int, int, int]] = []
    judge = Reviewer.judge

    def counted(self: Reviewer, point: Any) -> Any:
        judged.append((id(self), point.deal_index, point.action_index))
        return judge(self, point)

    monkeypatch.setattr(Reviewer, "judge", counted)
    return judged


def test_a_failed_review_tells_the_visitor_so_without_the_program_s_error(
    tmp_path: Path, monkeypatch: Any
) -> None:
    from marjolet.analysis import Reviewer
    from marjolet.web.reviews import REVIEW_FAILED

    def broken(self: Reviewer, point: Any) -> Any:
        raise KeyError("internal detail")

    monkeypatch.setattr(Reviewer, "judge", broken)
    with live_server(fast_config(tmp_path / "games.sqlite3", review_budget=0.0)) as server:
        game = finished_game(server)
        with server.http() as client:
            client.post(f"/api/games/{game['id']}/review", json={})
        failed = wait_done(server, game["id"])
    assert failed == {"status": "failed", "message": REVIEW_FAILED}
    assert "internal detail" not in str(failed) and "KeyError" not in str(failed)


def test_two_requests_at_once_for_one_review_judge_each_decision_once(
    tmp_path: Path, monkeypatch: Any
) -> None:
    import threading

    judged = count_judgements(monkeypatch)
    with live_server(fast_config(tmp_path / "games.sqlite3", review_budget=0.0)) as server:
        game = finished_game(server)
        url = f"/api/games/{game['id']}/review"
        answers: list[dict[str, Any]] = []
        go = threading.Barrier(2)

        def ask() -> None:
            with server.http() as client:
                go.wait(5)
                answers.append(client.post(url, json={}).json())

        askers = [threading.Thread(target=ask) for _ in range(2)]
        for t in askers:
            t.start()
        for t in askers:
            t.join(30)
        assert len(answers) == 2 and {x["status"] for x in answers} <= {"running", "done"}
        done = wait_done(server, game["id"])
        assert done["status"] == "done", done
    assert len({reviewer for reviewer, _, _ in judged}) == 1  # one computation
    places = [(d, x) for _, d, x in judged]
    assert len(places) == len(set(places)) == len(done["review"]["decisions"])


def test_the_download_of_a_reviewed_game_carries_its_marks_as_comments(
    tmp_path: Path,
) -> None:
    """Once reviewed, a game's record downloads (JSON and text) carry the
    review's comments, the very ones ``marjolet review --out`` writes
    (:func:`marjolet.analysis.annotate`), read back by the replay; before
    the review, the record has none."""
    from marjolet.analysis import Review, annotate

    with live_server(fast_config(tmp_path / "games.sqlite3")) as server:
        server.app.state.reviews.budget = 0.0
        game = finished_game(server)
        base = f"/api/games/{game['id']}"
        with server.http() as client:
            plain = record.loads(client.get(f"{base}/record?form=json").text)
            assert plain.comments == ()
            client.post(f"{base}/review", json={})
        status = wait_done(server, game["id"])
        assert status["status"] == "done", status
        wanted = annotate(plain, Review.from_json(status["review"])).comments
        assert any(c.text.startswith("review: player 0: ") for c in wanted)
        assert any("best was" in c.text for c in wanted)  # a decision that lost points
        with server.http() as client:
            as_json = client.get(f"{base}/record?form=json")
            as_text = client.get(f"{base}/record?form=text")
        assert as_json.status_code == as_text.status_code == 200
        assert record.loads(as_json.text).comments == wanted
        assert record.loads(as_text.text).comments == wanted
        # the moves are the game's own: only comments were added
        assert record.loads(as_json.text).with_comments(()) == plain


def test_a_stored_review_that_cannot_be_read_leaves_the_download_whole_without_comments(
    tmp_path: Path,
) -> None:
    """A review row this code cannot read (an older server's, say) never
    fails the record's download: the record comes without comments."""
    with live_server(fast_config(tmp_path / "games.sqlite3")) as server:
        game = finished_game(server)
        base = f"/api/games/{game['id']}"
        with server.http() as client:
            plain = record.loads(client.get(f"{base}/record?form=json").text)
            server.app.state.reviews.book.put(game["id"], plain, "seat", 0.0, {"decisions": 7})
            for form in ("json", "text"):
                got = client.get(f"{base}/record?form={form}")
                assert got.status_code == 200, got.text
                assert record.loads(got.text) == plain
