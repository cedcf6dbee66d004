"""The ``reversi train-eval`` subcommand: train the pattern evaluation from self-play;
``reversi fit-eval``: refit it on positions a training run saved.

    reversi train-eval --games 2000 --seed 1 --out patterns.npz
    reversi train-eval --games 200000 --seed 1 --out patterns.npz --workers 8 --backend ray
    reversi train-eval --games 2000 --seed 1 --out patterns.npz --save-data data.npz
    reversi train-eval --games 2000 --seed 1 --out next.npz --init patterns.npz --search-depth 4 --lam 0
    reversi train-eval --games 2000 --seed 1 --out patterns.npz --checkpoints runs/eval   (resumes runs/eval)
    reversi fit-eval data.npz --out refit.npz --ridge 20 --init patterns.npz

The same seed and options give the same weights whatever ``--workers`` and
``--backend``. The self-play is most of a run's cost; ``fit-eval`` tries a fit
variant (ridge, blend, dropping the first rounds) on a run's saved positions
without playing again. The shipped weights and the command that made them:
docs/evaluation.md.
"""

from __future__ import annotations

import argparse
import shlex
import sys
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

from tqdm import tqdm

from agents.base import MAX_OPENING_PLIES
from agents.learn.fit import fit
from agents.learn.selfplay import MAX_SOLVED_EMPTIES, Positions, SelfPlayConfig
from agents.learn.train import RoundReport, TrainConfig, load_data, load_rounds, settings, train_to_file
from agents.search.patterns import read_weights, save_weights
from agents.ui.options import bounded_int, positive_float, positive_int, seed_int, unit_float, unwritable_output


def _share(text: str) -> float:
    value = unit_float(text)
    if value == 0:
        raise argparse.ArgumentTypeError(f"must be above 0, got {text!r}")
    return value


_RECORDED_OPTIONS = (
    "games", "seed", "out", "rounds", "exact_empties", "epsilon", "opening_plies", "lam", "search_depth",
    "solve_empties", "record", "cut_exploration", "ridge", "iterations", "blend", "init",
)  # fmt: skip
"""The options written into the weights file's command, in this order (not --workers,
--backend, --checkpoints: they do not change the weights)."""


def _add_fit_options(parser: argparse.ArgumentParser, *, resumable: bool = False) -> None:
    """The options of the ridge fit, which ``train-eval`` and ``fit-eval`` share (``resumable``:
    left out, they are absent, for a resumed run to take its saved ones)."""
    ridge, iterations, blend = (argparse.SUPPRESS,) * 3 if resumable else (5.0, 25, 2)
    parser.add_argument(
        "--ridge", type=positive_float, default=ridge, help="ridge (L2) strength of the fit (default 5)"
    )
    parser.add_argument(
        "--iterations", type=positive_int, default=iterations, help="conjugate-gradient steps a fit (default 25)"
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
    """Add the ``train-eval`` subcommand to an argparse subparsers object."""
    p = subparsers.add_parser(
        "train-eval",
        help="train the pattern evaluation by self-play (exact endgame labels, TD(lambda) earlier)",
        description="Self-play games, labelled positions, a ridge least-squares fit; a few rounds of "
        "playing with the latest weights and refitting. Writes a weights file (.npz).",
        epilog=TRAIN_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        argument_default=argparse.SUPPRESS,  # a run's settings left out: the saved run's, else TrainConfig's
    )
    p.add_argument("--games", type=positive_int, help="self-play games in all rounds (needed for a new run)")
    p.add_argument("--seed", type=seed_int, help="seed of every game (default 0)")
    p.add_argument("--out", required=True, help="weights file to write (.npz)")
    p.add_argument("--rounds", type=positive_int, help="play-and-refit rounds (default 4)")
    p.add_argument(
        "--init",
        metavar="WEIGHTS",
        default=None,
        help="go on from these weights: they play (and label) the first round and start its fit "
        "(default: the hand-written evaluation plays the first round, the fit starts from zeros)",
    )
    p.add_argument("--workers", type=positive_int, default=1, help="parallel self-play workers (default 1)")
    p.add_argument(
        "--backend", choices=("local", "ray"), default="local", help="local processes (default) or Ray tasks"
    )
    p.add_argument(
        "--exact-empties",
        type=bounded_int(0, MAX_SOLVED_EMPTIES),
        help=f"solve exactly from here, at most {MAX_SOLVED_EMPTIES} (default 12)",
    )
    p.add_argument("--epsilon", type=unit_float, help="share of random moves in self-play (default 0.1)")
    p.add_argument(
        "--opening-plies",
        type=bounded_int(1, MAX_OPENING_PLIES),
        help=f"most random opening plies, at most {MAX_OPENING_PLIES} (default 10)",
    )
    p.add_argument("--lam", type=unit_float, help="TD(lambda) lambda of the labels (default 0.7)")
    p.add_argument(
        "--search-depth",
        type=bounded_int(0, 20),
        help="label positions before the exact ones by an alpha-beta search this deep with the current "
        "weights, mixed with the next label by --lam (0: TD(lambda) on the evaluation; default 0)",
    )
    p.add_argument(
        "--solve-empties",
        type=bounded_int(0, MAX_SOLVED_EMPTIES),
        help=f"also label kept positions with this many empties or fewer by an exact solve, at most "
        f"{MAX_SOLVED_EMPTIES} (default 0: only from --exact-empties, where the solver plays)",
    )
    p.add_argument(
        "--record",
        type=_share,
        help="share of the positions past the opening kept, at random (default 1: all)",
    )
    p.add_argument(
        "--cut-exploration",
        action="store_true",
        help="end the TD return at random self-play moves: the label there is the position's greedy value "
        "(best one-ply value of its moves; the search value with --search-depth), so a random move is not "
        "blamed on the positions before it (Watkins' Q(lambda)); from round 2",
    )
    _add_fit_options(p, resumable=True)
    p.add_argument(
        "--checkpoints",
        metavar="DIR",
        default=None,
        help="also save each round's weights here, and what a resume needs (resumed if it holds a run)",
    )
    p.add_argument(
        "--save-data",
        metavar="FILE",
        default=None,
        help="also save every round's labelled positions here (.npz), for `reversi fit-eval`",
    )
    p.add_argument("--no-progress", action="store_true", default=False, help="no progress bar")
    p.set_defaults(func=run_train_eval)

    f = subparsers.add_parser(
        "fit-eval",
        help="refit the pattern evaluation on positions saved by `train-eval --save-data` (no games)",
        description="One ridge least-squares fit of the pattern weights on saved labelled positions: "
        "tries a fit variant (ridge, blend, which rounds) without replaying the games. Writes a weights file.",
    )
    f.add_argument("data", help="positions file written by `reversi train-eval --save-data`")
    f.add_argument("--out", required=True, help="weights file to write (.npz)")
    f.add_argument("--init", metavar="WEIGHTS", help="start the fit from these weights (default: zeros)")
    _add_fit_options(f)
    f.add_argument(
        "--first-round",
        type=positive_int,
        default=1,
        help="fit on the positions of this round and later ones only (default 1: all)",
    )
    f.set_defaults(func=run_fit_eval)


def run_train_eval(args: argparse.Namespace) -> int:
    """``reversi train-eval``: train (or resume) and write the weights; prints one line a round as it ends."""
    out = Path(args.out)
    checkpoints = Path(args.checkpoints) if args.checkpoints else None
    for flag, path in (("--out", out), ("--save-data", Path(args.save_data) if args.save_data else None)):
        if path is not None and unwritable_output("train-eval", flag, path):
            return 2
    if checkpoints is not None:
        try:
            checkpoints.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            reason = "not a directory" if isinstance(e, FileExistsError) else e.strerror
            print(f"reversi train-eval: error: --checkpoints {args.checkpoints!r}: {reason}", file=sys.stderr)
            return 2
        if unwritable_output("train-eval", "--checkpoints", checkpoints / "round_0.npz"):
            return 2
    try:
        saved = load_rounds(checkpoints) if checkpoints is not None else None
    except (OSError, ValueError) as e:
        print(f"reversi train-eval: error: {e}", file=sys.stderr)
        return 1
    new_run = {**settings(TrainConfig(games=0)), "games": None}
    values = {**new_run, **(settings(saved.config) if saved else {})}
    values.update({k: v for k, v in vars(args).items() if k in new_run})
    if values["games"] is None:
        print("reversi train-eval: error: --games is needed to start a run", file=sys.stderr)
        return 2
    if values["games"] < values["rounds"]:
        print(
            f"reversi train-eval: error: --games ({values['games']}) must be >= --rounds ({values['rounds']})",
            file=sys.stderr,
        )
        return 2
    selfplay = asdict(SelfPlayConfig())
    config = TrainConfig(
        **{k: v for k, v in values.items() if k not in selfplay},
        selfplay=SelfPlayConfig(**{k: v for k, v in values.items() if k in selfplay}),
    )
    init = args.init or (str(saved.init.get("path")) if saved and isinstance(saved.init, dict) else None)
    words = ["reversi", "train-eval"]
    for name in _RECORDED_OPTIONS:
        value = {**values, "out": args.out, "init": init}[name]
        flag = "--" + name.replace("_", "-")
        if value is True:
            words.append(flag)
        elif value is not False and value is not None:
            words += [flag, str(value)]
    finished = saved is not None and len(saved.reports) == config.rounds
    try:
        train_to_file(
            config,
            out,
            shlex.join(words),
            workers=args.workers,
            backend=args.backend,
            checkpoints=checkpoints,
            progress=not args.no_progress and not finished,
            data_file=Path(args.save_data) if args.save_data else None,
            init=Path(args.init) if args.init else None,
            on_round=_print_round,
            resume=saved,
        )
    except (OSError, ImportError, ValueError) as e:
        print(f"reversi train-eval: error: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        if checkpoints is None:
            raise
        print(f"\nstopped; run the same command to resume from {checkpoints}", file=sys.stderr)
        return 130
    if finished:
        print(f"{checkpoints}: the run there is finished ({config.rounds} rounds); weights: {out}")
    else:
        print(f"weights: {out}")
    return 0


def _print_round(r: RoundReport) -> None:
    """A round's line, as the round ends (above the progress bar, at once even into a pipe):
    a long run shows how it goes, an interrupted one what it did."""
    line = (
        f"round {r.round + 1}: {r.games} games, {r.positions} positions, "
        f"mse {r.mse_before:.1f} -> {r.mse_after:.1f}, {r.seconds:.0f} s"
    )
    tqdm.write(line, file=sys.stdout)
    sys.stdout.flush()


def run_fit_eval(args: argparse.Namespace) -> int:
    """``reversi fit-eval``: one fit on saved positions; writes the weights with the command and the fit."""
    out = Path(args.out)
    if unwritable_output("fit-eval", "--out", out):
        return 2
    try:
        rounds = load_data(Path(args.data))
        initial = read_weights(args.init).weights if args.init else None
    except (OSError, ValueError) as e:
        print(f"reversi fit-eval: error: {e}", file=sys.stderr)
        return 1
    if args.first_round > len(rounds):
        print(
            f"reversi fit-eval: error: --first-round {args.first_round}, but the data has {len(rounds)} rounds",
            file=sys.stderr,
        )
        return 2
    start = time.perf_counter()
    positions = Positions.concatenate(rounds[args.first_round - 1 :])
    if len(positions) == 0:
        print(f"reversi fit-eval: error: {args.data!r} holds no positions to fit", file=sys.stderr)
        return 1
    result = fit(positions, initial, ridge=args.ridge, iterations=args.iterations, blend=args.blend)
    words = ["reversi", "fit-eval", args.data, "--out", args.out]
    for name in ("init", "ridge", "iterations", "blend", "first_round"):
        if getattr(args, name) is not None:
            words += ["--" + name.replace("_", "-"), str(getattr(args, name))]
    metadata = {
        "command": shlex.join(words),
        "positions": len(positions),
        "mse_before": result.mse_before,
        "mse_after": result.mse_after,
        "seconds": round(time.perf_counter() - start, 1),
    }
    try:
        save_weights(out, result.weights, metadata)
    except (OSError, ValueError) as e:
        print(f"reversi fit-eval: error: {e}", file=sys.stderr)
        return 1
    print(f"{len(positions)} positions, mse {result.mse_before:.1f} -> {result.mse_after:.1f}")
    print(f"weights: {out}")
    return 0
