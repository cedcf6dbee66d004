"""The ``reversi train-eval`` and ``reversi fit-eval`` options (their commands: ``learn_cli``)."""

from __future__ import annotations

import argparse
from typing import Any

from agents.limits import (
    MAX_GAMES,
    MAX_OPENING_PLIES,
    MAX_ROUNDS,
    MAX_SEARCH_DEPTH,
    MAX_SOLVED_EMPTIES,
    MAX_WORKERS,
)
from agents.ui.options import (
    bounded_int,
    deferred,
    positive_float,
    positive_int_at_most,
    seed_int,
    unit_float,
)


def _share(text: str) -> float:
    value = unit_float(text)
    if value == 0:
        raise argparse.ArgumentTypeError(f"must be above 0, got {text!r}")
    return value


def _add_fit_options(parser: argparse.ArgumentParser, *, resumable: bool = False) -> None:
    """The options of the ridge fit, which ``train-eval`` and ``fit-eval`` share (``resumable``:
    left out, they are absent, for a resumed run to take its saved ones)."""
    ridge, iterations, blend = (argparse.SUPPRESS,) * 3 if resumable else (5.0, 25, 2)
    parser.add_argument(
        "--ridge", type=positive_float, default=ridge, help="ridge (L2) strength of the fit (default 5)"
    )
    parser.add_argument(
        "--iterations",
        type=positive_int_at_most(MAX_ROUNDS),
        default=iterations,
        help="conjugate-gradient steps a fit (default 25)",
    )
    parser.add_argument(
        "--blend",
        type=bounded_int(0, 10),
        default=blend,
        help="a position also trains the phases this many empties away (default 2)",
    )


TRAIN_EPILOG = """\
With --checkpoints DIR, run the same command again after a kill or Ctrl-C: it
resumes after the last round saved in DIR, with the seeds the run would have
used, so its weights are those of a run never stopped. A resume takes the run's
saved settings for the options it leaves out; it may change --out, --workers,
--backend and --save-data, and raise --games and --rounds if the rounds done
keep their games (to train a finished run further); it is refused if it gives
other settings that differ from the run's.
"""


def register(subparsers: Any) -> None:
    """Add the ``train-eval`` and ``fit-eval`` subcommands to an argparse subparsers object."""
    _register_train_eval(subparsers)
    _register_fit_eval(subparsers)


def _register_train_eval(subparsers: Any) -> None:
    """``train-eval``: the run, its self-play and labels, the fit, and what it saves."""
    p = subparsers.add_parser(
        "train-eval",
        help="train the pattern evaluation by self-play (exact endgame labels, TD(lambda) earlier)",
        description="Self-play games, labelled positions, a ridge least-squares fit; a few rounds of "
        "playing with the latest weights and refitting. Writes a weights file (.npz).",
        epilog=TRAIN_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        argument_default=argparse.SUPPRESS,  # a run's settings left out: the saved run's, else TrainConfig's
    )
    _add_run_options(p)
    _add_selfplay_options(p)
    _add_fit_options(p, resumable=True)
    _add_output_options(p)
    p.set_defaults(func=deferred("agents.ui.learn_cli", "run_train_eval"))


def _add_run_options(parser: argparse.ArgumentParser) -> None:
    """How much ``train-eval`` plays, from what, and where: games, seed, rounds, start weights, workers."""
    parser.add_argument(
        "--games", type=positive_int_at_most(MAX_GAMES), help="self-play games in all rounds (needed for a new run)"
    )
    parser.add_argument("--seed", type=seed_int, help="seed of every game (default 0)")
    parser.add_argument("--out", required=True, help="weights file to write (.npz)")
    parser.add_argument("--rounds", type=positive_int_at_most(MAX_ROUNDS), help="play-and-refit rounds (default 4)")
    parser.add_argument(
        "--init",
        metavar="WEIGHTS",
        default=None,
        help="go on from these weights: they play (and label) the first round and start its fit "
        "(default: the hand-written evaluation plays the first round, the fit starts from zeros)",
    )
    parser.add_argument(
        "--workers", type=positive_int_at_most(MAX_WORKERS), default=1, help="parallel self-play workers (default 1)"
    )
    parser.add_argument(
        "--backend", choices=("local", "ray"), default="local", help="local processes (default) or Ray tasks"
    )


def _add_selfplay_options(parser: argparse.ArgumentParser) -> None:
    """How ``train-eval``'s games are played and their positions labelled and kept."""
    parser.add_argument(
        "--exact-empties",
        type=bounded_int(0, MAX_SOLVED_EMPTIES),
        help=f"solve exactly from here, at most {MAX_SOLVED_EMPTIES} (default 12)",
    )
    parser.add_argument("--epsilon", type=unit_float, help="share of random moves in self-play (default 0.1)")
    parser.add_argument(
        "--opening-plies",
        type=bounded_int(1, MAX_OPENING_PLIES),
        help=f"most random opening plies, at most {MAX_OPENING_PLIES} (default 10)",
    )
    parser.add_argument("--lam", type=unit_float, help="TD(lambda) lambda of the labels (default 0.7)")
    parser.add_argument(
        "--search-depth",
        type=bounded_int(0, MAX_SEARCH_DEPTH),
        help="label positions before the exact ones by an alpha-beta search this deep with the current "
        "weights, mixed with the next label by --lam (0: TD(lambda) on the evaluation; default 0)",
    )
    parser.add_argument(
        "--both-parities",
        action="store_true",
        help="label by the mean of the --search-depth search and one a ply shallower: an even and an odd "
        "depth, whose leans toward and away from the side to move cancel (the odd-even effect)",
    )
    parser.add_argument(
        "--play-depth",
        type=bounded_int(0, MAX_SEARCH_DEPTH),
        help="choose the self-play moves by an alpha-beta search this deep with the current weights, "
        "so the games come nearer strong play (0: one ply; default 0)",
    )
    parser.add_argument(
        "--solve-empties",
        type=bounded_int(0, MAX_SOLVED_EMPTIES),
        help=f"also label kept positions with this many empties or fewer by an exact solve, at most "
        f"{MAX_SOLVED_EMPTIES} (default 0: only from --exact-empties, where the solver plays)",
    )
    parser.add_argument(
        "--record",
        type=_share,
        help="share of the positions past the opening kept, at random (default 1: all)",
    )
    parser.add_argument(
        "--cut-exploration",
        action="store_true",
        help="end the TD return at random self-play moves: the label there is the position's greedy value "
        "(best one-ply value of its moves; the search value with --search-depth), so a random move is not "
        "blamed on the positions before it (Watkins' Q(lambda)); from round 2",
    )


def _add_output_options(parser: argparse.ArgumentParser) -> None:
    """What ``train-eval`` saves besides the weights, and its progress bar."""
    parser.add_argument(
        "--checkpoints",
        metavar="DIR",
        default=None,
        help="also save each round's weights here, and what a resume needs (resumed if it holds a run)",
    )
    parser.add_argument(
        "--save-data",
        metavar="FILE",
        default=None,
        help="also save every round's labelled positions here (.npz), for `reversi fit-eval`",
    )
    parser.add_argument("--no-progress", action="store_true", default=False, help="no progress bar")


def _register_fit_eval(subparsers: Any) -> None:
    """``fit-eval``: one refit on saved positions."""
    f = subparsers.add_parser(
        "fit-eval",
        help="refit the pattern evaluation on positions saved by `train-eval --save-data` (no games)",
        description="One ridge least-squares fit of the pattern weights on saved labelled positions: "
        "tries a fit variant (ridge, blend, which rounds) without replaying the games. Writes a weights file.",
    )
    f.add_argument(
        "data",
        nargs="+",
        help="positions files written by `reversi train-eval --save-data` (several: one fit on all their positions)",
    )
    f.add_argument("--out", required=True, help="weights file to write (.npz)")
    f.add_argument("--init", metavar="WEIGHTS", help="start the fit from these weights (default: zeros)")
    _add_fit_options(f)
    f.add_argument(
        "--first-round",
        type=positive_int_at_most(MAX_ROUNDS),
        default=1,
        help="fit on the positions of this round and later ones of each file only (default 1: all)",
    )
    f.set_defaults(func=deferred("agents.ui.learn_cli", "run_fit_eval"))
