"""A finished game in the player's words: the review of a deal (the
terminal's ``r`` on a deal summary, and ``marjolet review``) and the score
of a record deal by deal (``marjolet replay``).

The words are the terminal game's (:mod:`marjolet.tui.describe`,
:func:`marjolet.tui.words.tr`): deals and tricks counted from 1, cards as
the table shows them (``D♠`` in French), melds by their cards, no record
code, rule id or program name. It uses no Textual, so the commands print
the same text without the ``tui`` extra.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from marjolet.bots import catalogue
from marjolet.record import (
    DELETED_PLAYER,
    UNNAMED_PLAYER,
    UNSEATED_FRIEND,
    Record,
    ReplayResult,
    printable_name,
    to_match,
)
from marjolet.rules import Rules
from marjolet.tui import describe, opponents
from marjolet.tui.session import DEFAULT_NAMES
from marjolet.tui.words import lang, number, tr

if TYPE_CHECKING:
    from marjolet.analysis.report import Review
    from marjolet.analysis.review import Decision
    from marjolet.analysis.summary import PlayerSummary
    from marjolet.match import Match


def deal_lines(
    decisions: Sequence[Decision],
    seats: Sequence[int],
    names: Sequence[str],
    trump: int | None,
    rules: Rules | None,
    hints: Mapping[tuple[int, int], int] | None = None,
) -> list[str]:
    """The review of one deal as lines: the decisions that lost points,
    the others told in one line, then each of ``seats``' summary.
    ``hints``: the hints the human followed, (deal, action index) -> action."""
    from marjolet.analysis.summary import summarise

    followed = hints or {}
    shown, small = listed(decisions)
    lines = [
        decision_line(d, names[d.seat], trump, rules, hinted=(d.deal, d.action) in followed)
        for d in shown
    ]
    if small:  # told in one line, not one each
        lines.append(tr("tui.review_small", n=small))
    elif not shown:
        lines.append(tr("tui.review_no_loss"))
    lines.append("")
    for seat in seats:
        lines.append(player_line(summarise(decisions, seat), names[seat]))
    return lines


def marks_note(decisions: Sequence[Decision]) -> str:
    """What the marks mean, as the web's review says it under its graph
    (the same catalogue keys): the thresholds of
    :mod:`marjolet.analysis.marks`, the one place they are set, and why an
    estimated loss past a mistake's can be only an inaccuracy; near the end
    of a match (a decision marked by the chance lost), the chance's
    thresholds in percentage points."""
    from marjolet.analysis.marks import CHANCE, MARK_NAMES, POINTS
    from marjolet.analysis.summary import judged_by_chance

    points = dict(zip(MARK_NAMES, (_whole(t) for t in POINTS.thresholds), strict=True))
    about = tr("tui.review_about", n=points["mistake"] + 1)
    parts = [tr("review.marks_note", **points), tr("review.marks_note_estimate", about=about)]
    if any(judged_by_chance(d) for d in decisions):
        chance = (_whole(100 * t) for t in CHANCE.thresholds)
        parts.append(tr("review.marks_note_match", **dict(zip(MARK_NAMES, chance, strict=True))))
    return " ".join(parts)


def listed(decisions: Sequence[Decision]) -> tuple[list[Decision], int]:
    """The decisions the review lists, one line each (those that lost
    points or match chances, marked or beyond the review's own noise), and
    how many others lost perhaps a point or two within that noise."""
    from marjolet.analysis.summary import judgement, lost_something

    losing = [d for d in decisions if lost_something(d)]
    shown = [d for d in losing if judgement(d) is not None or not _within_noise(d)]
    return shown, len(losing) - len(shown)


def _within_noise(d: Decision) -> bool:
    """An estimated loss smaller than twice its standard error (unmarked:
    the review cannot tell it from its own sampling)."""
    return not d.exact and d.stderr_loss is not None and d.loss < 2 * d.stderr_loss


def _whole(x: float) -> int:
    """``x`` in whole points as the web's review rounds it (JavaScript's
    ``Math.round``: halves up, ``-11.5`` to ``-11``), from the figure its JSON
    carries (two decimals), so that one review says one figure everywhere."""
    return math.floor(round(x, 2) + 0.5)


def _whole_loss(d: Decision) -> int:
    """The points a decision lost, in whole points (at least 1): the best
    value less the one played, each in whole points, as the web's review
    shows them beside each choice: values of +13.6 and -10.9 are shown
    ``≈+14`` and ``≈−11``, so 25 lost on the page and here (``round(24.5)``
    said 24)."""
    if d.played in d.values:
        top = max(_whole(v) for v in d.values.values())
        return max(1, top - _whole(d.values[d.played]))
    return max(1, _whole(d.loss))


def _loss_words(d: Decision) -> str:
    """The points lost in whole points: ``12`` when exact, ``about 12`` for
    an estimate, ``perhaps 3`` when the estimate is within its uncertainty."""
    n = _whole_loss(d)
    if d.exact:
        return str(n)
    if _within_noise(d):
        return tr("tui.review_perhaps", n=n)
    return tr("tui.review_about", n=n)


def _chance(x: float, exact: bool) -> str:
    """A chance of winning the match in whole percent, in the reader's
    words (never 0 or 100 from an estimate)."""
    from marjolet.analysis.match_chance import percent

    return tr("tui.percent", n=percent(x, certain=exact))


def decision_line(
    d: Decision,
    name: str,
    trump: int | None = None,
    rules: Rules | None = None,
    *,
    hinted: bool = False,
) -> str:
    """A decision that lost points, in the player's words: the cards as the
    table shows them, whole points, who should have played what; near the
    end of a match the chance of winning it, with the best move and with
    the one played; a followed hint says why the review may still count a
    loss."""
    from marjolet.analysis.summary import judgement

    mark = judgement(d)
    m = d.match
    you = "_you" if name in DEFAULT_NAMES else ""  # "vous avez joué", not "Vous a joué"
    n = _whole_loss(d)
    by_chance = m is not None and d.played not in m.best and (m.decides or d.loss == 0)
    best = m.best if m is not None and by_chance else d.best
    words = dict(
        trick=d.trick,
        name=name,
        did=describe.did_label(d.played, trump, rules),
        judgement=tr("tui.review_judgement", judgement=tr(f"review.{mark}")) if mark else "",
        better=describe.or_join([describe.choice_label(a, trump, rules) for a in best]),
        source=tr("tui.review_exact" if d.exact else "tui.review_estimate"),
    )
    if m is not None and by_chance:
        best_chance, played_chance = _chance(m.top, d.exact), _chance(m.played, d.exact)
        line = tr(
            f"tui.review_decision_chance{you}", best=best_chance, played=played_chance, **words
        )
        if d.loss > 0:
            line += " " + tr("tui.review_points_too", loss=_loss_words(d), n=n)
    else:
        line = tr(f"tui.review_decision{you}", loss=_loss_words(d), n=n, **words)
        if m is not None and d.played in m.best:
            line += " " + tr("review.match_kept", played=_chance(m.played, d.exact))
        elif m is not None:
            line += " " + tr(
                "review.match_chance",
                best=_chance(m.top, d.exact),
                played=_chance(m.played, d.exact),
            )
    if hinted:
        line += " " + tr("tui.review_hint_followed")
    return line


def player_line(p: PlayerSummary, name: str) -> str:
    """A player's summary of the deal in the player's words (whole points)."""
    from marjolet.analysis.summary import marks_counted

    lost = p.exact_loss + _whole(p.estimated_loss)  # as the web's summary says it
    inaccuracies, mistakes, blunders = marks_counted(p, lang())
    return tr(
        "tui.review_player",
        name=name,
        decisions=tr("tui.review_decisions", n=p.decisions),
        accuracy="-" if p.accuracy is None else tr("tui.percent", n=_whole(p.accuracy)),
        lost=tr("tui.review_points_lost", n=lost),
        inaccuracies=inaccuracies,
        mistakes=mistakes,
        blunders=blunders,
    )


#: A name with the number that tells two of one level apart ("Skilled #2").
_NUMBERED = re.compile(r"(.+) (#\d)")
#: A bot and its strength, as the web names a watched game's players.
_BOT = re.compile(rf"(\S+) \(({'|'.join((*catalogue.LEVELS, catalogue.STRONGEST_LEVEL))})\)")
#: The web's names for what is not a name a person chose, and their keys.
_WEB_NAMES = {
    UNNAMED_PLAYER: "player.default_name",  # read in the third person, as the web's history
    UNSEATED_FRIEND: "lobby.friend_default",
    DELETED_PLAYER: "player.deleted",
}


def program_name(recorded: str) -> str | None:
    """How a screen shows a player's name that the program wrote, in the
    language in use: a level (a save names it in English), with its number
    when two play; a bot with its strength; the web's names for a player
    who gave none, a guest not seated yet and a deleted account (as the
    web's ``recordName`` reads them); ``None`` for a person's own name."""
    numbered = _NUMBERED.fullmatch(recorded)
    base, number = (numbered[1], f" {numbered[2]}") if numbered else (recorded, "")
    level = opponents.level_named(base)
    if level is not None:
        return level.name(lang()) + number
    bot = _BOT.fullmatch(base)
    if bot is not None:
        return f"{bot[1]} ({tr(f'level.{bot[2]}')}){number}"
    key = _WEB_NAMES.get(recorded)
    return tr(key) if key is not None else None


def record_names(players: Sequence[str] | None) -> list[str]:
    """A record's two players as a player's screen calls them: a name the
    program wrote as :func:`program_name` reads it, the default name
    ("You", "Vous") in the language in use, any other name as recorded
    (printable characters only); a seat without a name, or two seats of one
    name, are told apart by their number counted from 1."""
    def numbered(seat: int) -> str:  # "Player 1", "Joueur 1"
        return f"{tr('player.default_name')} {seat + 1}"

    if players is None:
        return [numbered(seat) for seat in (0, 1)]
    shown = []
    for seat, recorded in enumerate(players):
        if recorded in DEFAULT_NAMES:
            shown.append(tr("player.you"))
        else:
            shown.append(program_name(recorded) or printable_name(recorded) or numbered(seat))
    if shown[0] == shown[1]:
        shown = [f"{name} ({tr('player.n', n=seat + 1)})" for seat, name in enumerate(shown)]
    return shown


def _human(names: Sequence[str]) -> int:
    """The seat spoken to as "you" (the default name), or -1."""
    return next((seat for seat, name in enumerate(names) if name in DEFAULT_NAMES), -1)


def review_text(record: Record, review: Review) -> str:
    """``marjolet review``'s text: each reviewed deal as the terminal's
    review shows it (``Review of deal 1``, the decisions that lost points,
    each player's summary), then each player's summary of the whole record."""
    match = to_match(record)
    names = record_names(record.players)
    lines = []
    if review.view == "open":
        lines.append(tr("report.open_view"))
    for deal in sorted({d.deal for d in review.decisions}):
        played = match.deals[deal]
        decisions = [d for d in review.decisions if d.deal == deal]
        lines += ["", tr("tui.review_title", n=deal + 1)]
        lines += deal_lines(decisions, review.seats, names, played.trump, played.rules)
    if not review.decisions:
        lines.append(tr("report.no_decision"))
    lines += ["", _summary_title(match, {d.deal for d in review.decisions})]
    lines += [player_line(p, names[p.seat]) for p in review.players]
    if review.decisions:
        lines += ["", marks_note(review.decisions)]
    return "\n".join(lines).strip("\n")


def _summary_title(match: Match, deals: set[int]) -> str:
    """The title of the players' summaries: "Over the whole match" when it
    is over, else over the deals reviewed ("Over the 2 finished deals", as
    the web says of a game still being played)."""
    if match.is_over or not deals:
        return tr("review.summary_title")
    finished = all(match.deals[deal].is_over for deal in deals)
    key = "review.summary_title_deals" if finished else "review.summary_title_played"
    return tr(key, n=len(deals))


def changed_settings(rules: Rules) -> list[str]:
    """The settings of ``rules`` that differ from its profile's, each in
    the rule book's words ("jack-queen meld: jack and queen of the same
    suit"); the target is not among them."""
    from marjolet.i18n.rulebook import settings_rows

    base = Rules.profile_named(rules.profile)
    return [
        tr("report.setting", setting=setting, value=value)
        for (setting, value), (_, usual) in zip(
            settings_rows(rules, lang())[3:], settings_rows(base, lang())[3:], strict=True
        )
        if value != usual
    ]


def rules_line(rules: Rules) -> str:
    """A record's rules in a line: ``Rules: classic, match to 500``, and the
    settings that differ from the profile's, in the rule book's words."""
    profile = tr(f"lobby.profile_{rules.profile}")
    return tr("report.rules", profile=profile, target=number(rules.target)) + "".join(
        tr("report.settings_separator") + text for text in changed_settings(rules)
    )


def replay_text(record: Record, result: ReplayResult) -> str:
    """``marjolet replay``'s text: the rules, then each deal as the
    terminal announces it and scores it (its points by source, as the deal
    summary lists them, and the match totals), then who won."""
    match = to_match(record)
    names = record_names(record.players)
    human = _human(names)
    width = [0, *(max(len(n), 5) for n in names)]
    lines = [rules_line(record.rules)]
    totals = [0, 0]
    for index, deal in enumerate(result.deals):
        played = match.deals[index]
        rows = describe.summary_table(deal.breakdown)
        for p in (0, 1):
            totals[p] += deal.score[p]
        table = [(tr("tui.points"), *names)]
        table += [(text, _points(a), _points(b)) for text, a, b in rows]
        table.append((tr("tui.match"), number(totals[0]), number(totals[1])))
        width[0] = max(len(row[0]) for row in table)
        lines += ["", describe.deal_heading(index, played.dealer, played.turned_up, names, human)]
        for row in table:
            cells = [row[0].ljust(width[0])]
            cells += [cell.rjust(size) for cell, size in zip(row[1:], width[1:], strict=True)]
            lines.append("  ".join(cells).rstrip())
        if not deal.complete:
            lines.append(tr("replay.in_progress"))
    a, b = result.totals
    score = f"{number(max(a, b))}\u00a0–\u00a0{number(min(a, b))}"
    if result.winner is None:
        key = "report.tie_plays_on" if tied_past_target(result, record.rules) else "report.not_over"
        outcome = tr(key, a=number(a), b=number(b), target=number(record.rules.target))
    elif result.winner == human:
        outcome = f"{tr('tui.you_won')} {score}"
    else:
        outcome = f"{tr('tui.won', name=names[result.winner])} {score}"
    return "\n".join([*lines, "", outcome])


def tied_past_target(result: ReplayResult, rules: Rules) -> bool:
    """Whether the match goes on only because the totals are equal at or
    past the target after a finished deal (R22: deals go on until they
    differ), rather than because no total has reached it yet."""
    a, b = result.totals
    finished = all(deal.complete for deal in result.deals)
    return result.winner is None and finished and a == b >= rules.target


def _points(n: int) -> str:
    """A deal summary's figure: ``·`` for none, as the terminal's summary."""
    return str(n) if n else "·"


__all__ = [
    "changed_settings",
    "deal_lines",
    "decision_line",
    "listed",
    "player_line",
    "record_names",
    "replay_text",
    "review_text",
    "rules_line",
]
