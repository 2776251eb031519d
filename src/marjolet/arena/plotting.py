"""Pictures of a run (matplotlib, Agg backend): the ratings with their 95%
intervals, and the distribution of the match margins of each pairing."""

from __future__ import annotations

import importlib.util
import io
import math
import os
from collections.abc import Iterable
from pathlib import Path

from marjolet import outputs
from marjolet.arena.results import ArenaResult
from marjolet.arena.tasks import MatchOutcome
from marjolet.errors import MarjoletError

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
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise PlotError(NO_MATPLOTLIB) from None

    margins: dict[int, list[int]] = {}
    for o in outcomes:
        margins.setdefault(o.pairing, []).append(o.first_margin)
    pairing_index = {
        (result.bots[i], result.bots[j]): n
        for n, (i, j) in enumerate(
            (i, j) for i in range(len(result.bots)) for j in range(i + 1, len(result.bots))
        )
    }

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

    # Ratings with intervals.
    for y, name in enumerate(names):
        r = result.ratings[name]
        if r.elo_ci is not None and all(math.isfinite(x) for x in r.elo_ci):
            lo, hi = r.elo_ci
            ax_r.errorbar(
                r.elo, y, xerr=[[r.elo - lo], [hi - r.elo]], fmt="o", color="tab:blue",
                ecolor="tab:blue", capsize=4,
            )
        else:
            ax_r.plot(r.elo, y, "D" if r.anchor else "o", color="tab:gray")
        label = "0 (anchor)" if r.anchor else f"{round(r.elo) + 0:+d}"
        ax_r.annotate(label, (r.elo, y), textcoords="offset points", xytext=(0, 7),
                      ha="center", fontsize=8)
    ax_r.set_yticks(range(len(names)), names)
    ax_r.set_ylim(-0.7, len(names) - 0.3)
    ax_r.axvline(0.0, color="lightgray", lw=1, zorder=0)
    ax_r.set_xlabel(f"Elo relative to {result.anchor} (95% interval)")
    ax_r.set_title("ratings", fontsize=10)
    ax_r.grid(axis="x", alpha=0.3)

    # Distribution of match margins per pairing.
    labels, data = [], []
    for p in result.pairings[::-1]:
        values = margins.get(pairing_index.get(p.bots, -1), [])
        if values:
            labels.append(f"{p.bots[0]}\nvs {p.bots[1]}")
            data.append(values)
    if data:
        positions = list(range(len(data)))
        try:  # matplotlib >= 3.10 names the direction, older ones take vert=False
            parts = ax_m.violinplot(data, positions=positions, orientation="horizontal",
                                    showmedians=True, showextrema=True)
        except TypeError:
            parts = ax_m.violinplot(data, positions=positions, vert=False, showmedians=True,
                                    showextrema=True)
        for body in parts["bodies"]:
            body.set_alpha(0.4)
        means = [sum(d) / len(d) for d in data]
        ax_m.plot(means, positions, "k|", markersize=14, label="mean")
        ax_m.set_yticks(positions, labels, fontsize=8)
        ax_m.axvline(0.0, color="gray", lw=1, ls="--")
        ax_m.legend(loc="lower right", fontsize=8)
    else:
        ax_m.text(0.5, 0.5, "no match", ha="center", va="center", transform=ax_m.transAxes)
    ax_m.set_xlabel("final total difference per match (first bot's side)")
    ax_m.set_title("match margins", fontsize=10)
    ax_m.grid(axis="x", alpha=0.3)

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
    return target
