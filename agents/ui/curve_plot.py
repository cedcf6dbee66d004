"""The picture of a game's evaluation curve (``reversi analyze --plot``; the ``plot`` extra's matplotlib)."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Sequence
from pathlib import Path

from agents.ui.options import unwritable_output

CURVE_COLOR = "#2d5f41"
"""The curve's colour, the window's board green (its graph draws the same curve)."""


def unwritable_reports(command: str, path: str | Path) -> bool:
    """Whether ``--plot``'s ``path`` cannot be written or matplotlib is missing,
    said in one line on stderr: checked before the analysis, not after it."""
    if unwritable_output(command, "--plot", path):
        return True
    if importlib.util.find_spec("matplotlib") is None:
        print(f"reversi {command}: error: --plot needs matplotlib: pip install 'reversi-env[plot]'", file=sys.stderr)
        return True
    return False


def plot_curve(values: Sequence[float], path: str | Path, title: str = "Evaluation over the game") -> None:
    """Save the evaluation of each position of a game (black's side, in discs;
    the start first) as a PNG picture: above zero black stands better.

    Args:
        values: one value a position (``analysis.game_curve``'s).
        path: the picture's file.
        title: its title.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 3.6))
    moves = range(len(values))
    ax.axhline(0.0, color="grey", lw=0.8)
    ax.fill_between(moves, values, 0.0, where=[v >= 0 for v in values], color="black", alpha=0.25, lw=0)
    ax.fill_between(moves, values, 0.0, where=[v <= 0 for v in values], color="white", alpha=0.9, lw=0)
    ax.plot(moves, values, color=CURVE_COLOR, lw=1.8, marker="o", ms=2.5)
    ax.set_facecolor("#b9cdb9")
    ax.set_xlim(0, max(len(values) - 1, 1))
    top = max(8.0, *(abs(v) for v in values)) * 1.1
    ax.set_ylim(-top, top)
    ax.set_xlabel("moves played")
    ax.set_ylabel("black's advantage (discs)")
    ax.set_title(title)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
