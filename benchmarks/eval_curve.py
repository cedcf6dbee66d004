"""The learning curve of the pattern evaluation: strength against the ladder
after each training round, as a picture.

Reads the round checkpoints ``reversi train-eval --checkpoints DIR`` wrote
(``round_<k>.npz``, each with its training time and data size), plays the
``pattern`` player against ``bench_eval.py``'s opponents (``positional``,
``alphabeta:2`` and ``alphabeta:2 no solver``) as it does, prints a table and saves the curve.
Several directories are the stages of a chain of runs (each started with
``--init`` from the last one's weights), in order: a stage's minutes count on
from the end of the one before, and a dashed line marks where it starts.

    python benchmarks/eval_curve.py DIR [DIR ...] [--games 24] [--opening-plies 2] [--out docs/evaluation_curve.png]
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from bench_eval import TARGETS, check_openings, read_saved_arg, score_against
from tqdm import tqdm

from agents.arena.ratings import wilson_interval
from agents.datafiles import check_writable
from agents.search.patterns import PatternWeights
from agents.ui.options import even_int, seed_int

ROUND_KEYS = ("round", "seconds", "positions")
"""What the table and the picture read from a checkpoint's last round (``metadata["rounds"][-1]``)."""


def read_checkpoint(parser: argparse.ArgumentParser, path: Path) -> PatternWeights:
    """The checkpoint ``path``; one usage line if it is not a weights file or
    lacks the round record ``reversi train-eval --checkpoints`` writes."""
    saved = read_saved_arg(parser, "checkpoint", str(path))
    rounds = saved.metadata.get("rounds")
    last = rounds[-1] if isinstance(rounds, list) and rounds else None
    if not isinstance(last, dict) or not all(isinstance(last.get(k), int | float) for k in ROUND_KEYS):
        parser.error(f"checkpoint {path}: no round record (not written by train-eval --checkpoints)")
    return saved


def main() -> None:
    """Play every checkpoint, print the table, save the picture."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "checkpoints", type=Path, nargs="+", help="directories of round_<k>.npz files, one a stage, in order"
    )
    parser.add_argument("--games", type=even_int(2), default=24, help="games per opponent and checkpoint (default 24)")
    parser.add_argument("--opening-plies", type=int, default=2, help="random opening plies (default 2)")
    parser.add_argument("--seed", type=seed_int, default=0, help="seed of the openings and players (default 0)")
    parser.add_argument(
        "--out",
        default="docs/evaluation_curve.png",
        help="the picture (default docs/evaluation_curve.png: the one the docs show, replaced)",
    )
    args = parser.parse_args()
    stages = []
    for directory in args.checkpoints:
        numbered = (p for p in directory.glob("round_*.npz") if re.fullmatch(r"round_\d+", p.stem))
        files = sorted(numbered, key=lambda p: int(p.stem.split("_")[1]))
        if not files:
            parser.error(f"no round_<k>.npz files in {directory}")
        stages.append(files)
    check_openings(parser, args.games, args.opening_plies, args.seed)
    try:
        check_writable(args.out)  # before the games, so a bad --out loses none of them
    except OSError as e:
        parser.error(f"--out {args.out}: {e.strerror}")
    checkpoints = [[read_checkpoint(parser, path) for path in files] for files in stages]  # all, before the games
    rows = []
    starts = []
    offset = 0.0
    print(f"{'stage':>5}{'round':>6}{'minutes':>9}{'positions':>11}" + "".join(f"{s:>24}" for s in TARGETS))
    for stage, saved_rounds in enumerate(checkpoints, 1):
        starts.append(offset)
        for saved in saved_rounds:
            last = saved.metadata["rounds"][-1]
            scores = {}
            total = args.games * len(TARGETS)
            desc = f"stage {stage} round {last['round'] + 1}"
            with tqdm(total=total, desc=desc, unit="game", leave=False, file=sys.stderr) as bar:
                for spec in TARGETS:
                    s = score_against(saved.weights, spec, args.games, args.seed, args.opening_plies, bar.update)
                    scores[spec] = (s / args.games, *wilson_interval(s, args.games))
            at = offset + last["seconds"] / 60
            rows.append((at, last["positions"], scores))
            cells = "".join(f"{f'{v[0]:.0%} [{v[1]:.0%}, {v[2]:.0%}]':>24}" for v in scores.values())
            print(f"{stage:>5}{last['round'] + 1:>6}{at:>9.1f}{last['positions']:>11}{cells}")
        offset = rows[-1][0]

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.2))
    minutes = [r[0] for r in rows]
    for (spec, target), colour in zip(TARGETS.items(), ("tab:blue", "tab:orange", "tab:green"), strict=True):
        mid = [100 * r[2][spec][0] for r in rows]
        lo = [100 * (r[2][spec][0] - r[2][spec][1]) for r in rows]
        hi = [100 * (r[2][spec][2] - r[2][spec][0]) for r in rows]
        ax.errorbar(minutes, mid, yerr=[lo, hi], marker="o", capsize=3, color=colour, label=f"vs {spec}")
        ax.axhline(100 * target, color=colour, linestyle=":", linewidth=1)
    for m, r in zip(minutes, rows, strict=True):
        ax.annotate(f"{r[1] / 1e6:.1f}M pos", (m, 2), ha="center", fontsize=7, color="grey")
    for stage, start in enumerate(starts[1:], 2):
        ax.axvline(start, color="grey", linestyle="--", linewidth=1)
        label = f"stage {stage} (--init) "
        ax.annotate(label, (start, 50), xytext=(-2, 0), textcoords="offset points", ha="right", fontsize=7)
    ax.set_xlabel("training wall-clock time (minutes, as each run recorded it)")
    ax.set_ylabel("score of the 1-ply pattern player (%)")
    ax.set_ylim(0, 102)
    ax.set_title(
        f"Learned evaluation alone vs the ladder\n({args.games} games a point, "
        f"{args.opening_plies}-ply openings, 95% intervals)"
    )
    ax.legend(loc=(0.6, 0.08))
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(args.out, dpi=120)
    print(f"picture: {args.out}")


if __name__ == "__main__":
    main()
