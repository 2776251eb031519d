"""Text tables of the arena: the figures of a run, and the list of runs."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

from marjolet.arena.results import ArenaResult
from marjolet.arena.store import RunInfo

if TYPE_CHECKING:
    from marjolet.arena.sources import SourceSplit

Interval = tuple[float, float]


def _num(x: float, fmt: str) -> str:
    """Format a number without the ``-0`` that rounding can produce."""
    digits = int(fmt.rsplit(".", 1)[1].rstrip("f")) if "." in fmt else 0
    return format(round(x, digits) + 0.0, fmt)


def _ci(interval: Interval | None, fmt: str) -> str:
    if interval is None or not all(math.isfinite(x) for x in interval):
        return "[n/a]"
    return f"[{_num(interval[0], fmt)}, {_num(interval[1], fmt)}]"


def _margin(margin: float | None, interval: Interval | None) -> str:
    """A deal margin and its interval; ``n/a`` when no deal was finished."""
    if margin is None:
        return "n/a"
    return f"{_num(margin, '+.1f')} {_ci(interval, '+.1f')}"


def _one_line(text: str, limit: int = 400) -> str:
    """``text`` on one line (its line breaks as " | "), at most ``limit``
    characters: a bot's standard error may hold many."""
    flat = " | ".join(line.strip() for line in text.splitlines() if line.strip())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _table(rows: Sequence[Sequence[str]], right: set[int]) -> list[str]:
    widths = [max(len(row[c]) for row in rows) for c in range(len(rows[0]))]
    lines = []
    for row in rows:
        cells = [
            cell.rjust(widths[c]) if c in right else cell.ljust(widths[c])
            for c, cell in enumerate(row)
        ]
        lines.append("  ".join(cells).rstrip())
    return lines


def rules_summary(rules: dict[str, object]) -> str:
    """A run's rules (their JSON object) in the notation of a record's
    ``rules`` line and of ``marjolet replay``: ``classic deal_pattern=2-2-2
    one_meld_per_window=true``, not Python's ``[2, 2, 2]`` and ``True``."""
    from marjolet.rules import Rules

    return Rules.from_json(rules).to_text()


def format_result(result: ArenaResult) -> str:
    """The human-readable report of a run (what ``marjolet arena`` prints)."""
    s = result.settings
    head = "arena" if result.run_id is None else f"arena run {result.run_id}"
    rules = rules_summary(s["rules"]) if "rules" in s else "classic"
    lines = [
        f"{head}: {result.matches}/{result.planned} matches ({s.get('matches', '?')} per pairing), "
        f"seed {result.seed}, rules {rules}, status {result.status}"
    ]
    if result.pairings:
        rows = [["pairing", "matches", "wins", "win rate (95% CI)", "deal margin (95% CI)",
                 "match margin (95% CI)", "Elo (95% CI)", "pairs 2-0/1-1/0-2"]]
        for p in result.pairings:
            rows.append([
                f"{p.bots[0]} vs {p.bots[1]}",
                str(p.matches),
                f"{p.wins[0]}-{p.wins[1]}",
                f"{100 * p.win_rate:.1f}% "
                + (f"[{100 * p.win_rate_ci[0]:.1f}, {100 * p.win_rate_ci[1]:.1f}]"),
                _margin(p.margin, p.margin_ci),
                f"{_num(p.match_margin, '+.0f')} {_ci(p.match_margin_ci, '+.0f')}",
                f"{_num(p.elo, '+.0f')} {_ci(p.elo_ci, '+.0f')}",
                f"{p.pairs[2]}/{p.pairs[1]}/{p.pairs[0]}",
            ])
        lines.append("")
        lines.extend(_table(rows, right={1, 2}))
    else:
        lines.append("no match finished yet")
    forfeits = [p for p in result.pairings if any(p.forfeits)]
    if forfeits:
        lines.append("")
        for p in forfeits:
            lines.append(
                f"forfeits in {p.bots[0]} vs {p.bots[1]}: {p.bots[0]} {p.forfeits[0]}, "
                f"{p.bots[1]} {p.forfeits[1]} (each a lost match)"
            )
            for reason in p.forfeit_reasons:
                if reason is not None:
                    lines.append(f"  the first: {_one_line(reason)}")
    if result.pairings and len(result.bots) > 2:
        lines.append("")
        lines.append(
            f"ratings (Bradley-Terry maximum likelihood, {result.anchor} = 0, 95% CI)"
        )
        rows = [["bot", "Elo", "95% CI", "matches", "score"]]
        for name, r in result.ratings.items():
            rows.append([
                name,
                _num(r.elo, "+.0f") if not r.anchor else "0",
                "anchor" if r.anchor else _ci(r.elo_ci, "+.0f"),
                str(r.matches),
                f"{100 * r.score:.1f}%",
            ])
        lines.extend(_table(rows, right={1, 3, 4}))
    if result.sprt is not None:
        lines.append("")
        lines.append(result.sprt.describe())
    lines.append("")
    lines.append(
        "margins are deal points (per deal) and final totals (per match) from the first bot's side"
    )
    return "\n".join(lines)


def format_sources(splits: Sequence[tuple[tuple[str, str], SourceSplit | None]]) -> str:
    """``--sources``' text: per pairing, each source's points a deal and
    their sum, the deal margin (each row rounded on its own)."""
    blocks = []
    for (a, b), split in splits:
        if split is None:
            blocks.append(f"where the deal margin comes from, {a} vs {b}: no deal was finished")
            continue
        rows = (*split.sources, split.total)
        width = max(len(r.words) for r in rows)
        head = f"where the deal margin comes from, {a} vs {b} (points a deal, 95% CI by pairs):"
        lines = [f"  {r.words.ljust(width)}  {_margin(r.margin, r.margin_ci)}" for r in rows]
        blocks.append("\n".join([head, *lines]))
    return "\n\n".join(blocks) if blocks else "no match to split by source"


def format_runs(runs: Sequence[RunInfo]) -> str:
    """One line per stored run (``marjolet arena report``)."""
    if not runs:
        return "no runs yet"
    rows = [["run", "started", "status", "matches", "seed", "bots", "result"]]
    for run in runs:
        k = len(run.bots)
        planned = run.matches * k * (k - 1) // 2
        rows.append([
            str(run.id),
            run.started.replace("T", " ").replace("+00:00", "Z"),
            run.status,
            f"{run.played}/{planned}",
            str(run.seed),
            " ".join(run.bots),
            _short_summary(run),
        ])
    return "\n".join(_table(rows, right={0, 3, 4}))


def _short_summary(run: RunInfo) -> str:
    summary = run.summary
    if not summary or not summary.get("pairings"):
        return ""
    if len(run.bots) == 2:
        p = summary["pairings"][0]
        text = f"{100 * p['win_rate']:.1f}% Elo {_num(p['elo'], '+.0f')}"
        sprt = summary.get("sprt")
        if sprt:
            text += f", SPRT {sprt['decision'] or 'undecided'}"
        return text
    ratings = summary.get("ratings", {})
    return ", ".join(
        f"{name} {'0' if r.get('anchor') else _num(r['elo'], '+.0f')}"
        for name, r in ratings.items()
    )
