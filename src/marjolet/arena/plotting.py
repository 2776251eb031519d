"""Pictures of a run (matplotlib, Agg backend): the ratings with their 95%
intervals, and the distribution of the match margins of each pairing."""

from __future__ import annotations

import importlib.util
import io
import math
import os
from collections.abc import Iterable
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from marjolet import outputs
from marjolet.arena.results import ArenaResult
from marjolet.arena.tasks import MatchOutcome
from marjolet.errors import MarjoletError

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

FORMATS = (".png", ".svg")
NO_MATPLOTLIB = "--plot needs matplotlib: pip install 'marjolet[plot]'"


class PlotError(MarjoletError):
    """The plot cannot be drawn or written."""


def check_plot_path(path: str | os.PathLike[str], *, force: bool = False) -> Path:
    """The plot file, if its suffix is one we write, the rule of
    :mod:`marjolet.outputs` lets us write it and matplotlib is installed
    (checked before any work, not after a long run)."""
    target = _plot_format(path)
    outputs.check_output(path, force=force, flag="--plot")
    if importlib.util.find_spec("matplotlib") is None:
        raise PlotError(NO_MATPLOTLIB)
    return target


def _plot_format(path: str | os.PathLike[str]) -> Path:
    target = Path(path)
    if target.suffix.lower() not in FORMATS:
        raise PlotError(f"--plot {str(path)!r}: the file name must end in .png or .svg")
    return target


def plot_result(
    result: ArenaResult, outcomes: Iterable[MatchOutcome], path: str | os.PathLike[str]
) -> Path:
    """Draw ``result`` into ``path`` (``.png`` or ``.svg``) and return it."""
    target = _plot_format(path)
    plt = _pyplot()
    labels, data = _margin_rows(result, _margins_by_pairing(outcomes))
    names = list(result.ratings)[::-1]  # best at the top
    rows = max(len(names), len(result.pairings), 2)
    fig, (ax_r, ax_m) = plt.subplots(
        1, 2, figsize=(12, 1.0 + 0.55 * rows + 1.2), gridspec_kw={"width_ratios": [1, 1.3]}
    )
    title = "arena" if result.run_id is None else f"arena run {result.run_id}"
    fig.suptitle(
        f"{title}: {result.matches} matches, seed {result.seed}, status {result.status}",
        fontsize=11,
    )
    _draw_ratings(ax_r, result, names)
    _draw_margins(ax_m, labels, data)
    _write_figure(fig, target, path)
    return target


def _pyplot() -> ModuleType:
    """matplotlib's pyplot, drawing off screen (the Agg backend), or the
    one-line refusal when matplotlib is not installed."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise PlotError(NO_MATPLOTLIB) from None
    return plt


def _margins_by_pairing(outcomes: Iterable[MatchOutcome]) -> dict[int, list[int]]:
    """Each pairing's match margins (the first bot's side), by pairing index."""
    margins: dict[int, list[int]] = {}
    for o in outcomes:
        margins.setdefault(o.pairing, []).append(o.first_margin)
    return margins


def _margin_rows(
    result: ArenaResult, margins: dict[int, list[int]]
) -> tuple[list[str], list[list[int]]]:
    """The margins plot's rows, bottom to top (the result's first pairing at
    the top): each pairing's label and its margins; pairings without a match
    have no row."""
    pairing_index = {
        (result.bots[i], result.bots[j]): n
        for n, (i, j) in enumerate(
            (i, j) for i in range(len(result.bots)) for j in range(i + 1, len(result.bots))
        )
    }
    labels, data = [], []
    for p in result.pairings[::-1]:
        values = margins.get(pairing_index.get(p.bots, -1), [])
        if values:
            labels.append(f"{p.bots[0]}\nvs {p.bots[1]}")
            data.append(values)
    return labels, data


def _draw_ratings(ax: Axes, result: ArenaResult, names: list[str]) -> None:
    """The ratings panel: each bot's Elo, one a row, with its 95% interval
    when it has a finite one (the anchor is drawn as a diamond)."""
    for y, name in enumerate(names):
        r = result.ratings[name]
        if r.elo_ci is not None and all(math.isfinite(x) for x in r.elo_ci):
            lo, hi = r.elo_ci
            ax.errorbar(
                r.elo, y, xerr=[[r.elo - lo], [hi - r.elo]], fmt="o", color="tab:blue",
                ecolor="tab:blue", capsize=4,
            )
        else:
            ax.plot(r.elo, y, "D" if r.anchor else "o", color="tab:gray")
        label = "0 (anchor)" if r.anchor else f"{round(r.elo) + 0:+d}"
        ax.annotate(label, (r.elo, y), textcoords="offset points", xytext=(0, 7),
                    ha="center", fontsize=8)
    ax.set_yticks(range(len(names)), names)
    ax.set_ylim(-0.7, len(names) - 0.3)
    ax.axvline(0.0, color="lightgray", lw=1, zorder=0)
    ax.set_xlabel(f"Elo relative to {result.anchor} (95% interval)")
    ax.set_title("ratings", fontsize=10)
    ax.grid(axis="x", alpha=0.3)


def _draw_margins(ax: Axes, labels: list[str], data: list[list[int]]) -> None:
    """The margins panel: each pairing's distribution of match margins (a
    violin with its median and mean), or "no match"."""
    if data:
        _draw_violins(ax, labels, data)
    else:
        ax.text(0.5, 0.5, "no match", ha="center", va="center", transform=ax.transAxes)
    ax.set_xlabel("final total difference per match (first bot's side)")
    ax.set_title("match margins", fontsize=10)
    ax.grid(axis="x", alpha=0.3)


def _draw_violins(ax: Axes, labels: list[str], data: list[list[int]]) -> None:
    """One horizontal violin a row of margins, its mean marked."""
    positions = list(range(len(data)))
    try:  # matplotlib >= 3.10 names the direction, older ones take vert=False
        parts = ax.violinplot(data, positions=positions, orientation="horizontal",
                              showmedians=True, showextrema=True)
    except TypeError:
        parts = ax.violinplot(data, positions=positions, vert=False, showmedians=True,
                              showextrema=True)
    bodies: Any = parts["bodies"]  # the violins' shapes, a list (the stubs say one Collection)
    for body in bodies:
        body.set_alpha(0.4)
    means = [sum(d) / len(d) for d in data]
    ax.plot(means, positions, "k|", markersize=14, label="mean")
    ax.set_yticks(positions, labels, fontsize=8)
    ax.axvline(0.0, color="gray", lw=1, ls="--")
    ax.legend(loc="lower right", fontsize=8)


def _write_figure(fig: Figure, target: Path, path: str | os.PathLike[str]) -> None:
    """Render the figure in the target's format and write it atomically (a
    failed write leaves no half-written file)."""
    import matplotlib.pyplot as plt

    fig.tight_layout()
    image = io.BytesIO()
    try:
        fig.savefig(image, dpi=110, format=target.suffix[1:].lower())
    finally:
        plt.close(fig)
    try:
        outputs.write_atomic(target, image.getvalue())
    except OSError as exc:
        raise PlotError(f"cannot write the plot {str(path)!r}: {exc.strerror or exc}") from None
