"""The ``reversi train-eval`` subcommand: train the pattern evaluation from self-play;
``reversi fit-eval``: refit it on positions a training run saved.

    reversi train-eval --games 2000 --seed 1 --out patterns.npz
    reversi train-eval --games 200000 --seed 1 --out patterns.npz --workers 8 --backend ray
    reversi train-eval --games 2000 --seed 1 --out patterns.npz --save-data data.npz
    reversi train-eval --games 2000 --seed 1 --out next.npz --init patterns.npz --search-depth 4 --lam 0
    reversi train-eval --games 2000 --seed 1 --out patterns.npz --checkpoints runs/eval   (resumes runs/eval)
    reversi fit-eval data.npz --out refit.npz --ridge 20 --init patterns.npz
    reversi fit-eval run1.npz run2.npz --out both.npz --first-round 2     (two runs' positions in one fit)

The same seed and options give the same weights whatever ``--workers`` and
``--backend``. The self-play is most of a run's cost; ``fit-eval`` tries a fit
variant (ridge, blend, dropping the first rounds) on a run's saved positions
without playing again. The shipped weights and the command that made them:
docs/engine.md.
"""

from __future__ import annotations

import argparse
import shlex
import sys
import time
from dataclasses import asdict
from pathlib import Path

from tqdm import tqdm

from agents.datafiles import file_sha256
from agents.learn.fit import fit
from agents.learn.pattern_selfplay import Positions, SelfPlayConfig
from agents.learn.pattern_training import (
    RoundReport,
    TrainConfig,
    data_record,
    load_data,
    load_rounds,
    read_start,
    settings,
    train_to_file,
)
from agents.limits import MAX_DATA_FILE
from agents.search.patterns import save_weights
from agents.ui.options import unwritable_output

_RECORDED_OPTIONS = (
    "games", "seed", "out", "rounds", "exact_empties", "epsilon", "opening_plies", "lam", "search_depth",
    "both_parities", "solve_empties", "record", "cut_exploration", "play_depth", "ridge", "iterations", "blend", "init",
)  # fmt: skip
"""The options written into the weights file's command, in this order (not --workers,
--backend, --checkpoints: they do not change the weights)."""


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
    if values["both_parities"] and values["search_depth"] < 2:
        print("reversi train-eval: error: --both-parities needs --search-depth 2 or more", file=sys.stderr)
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
    """``reversi fit-eval``: one fit on the positions of one or more saved runs; writes the
    weights with the command, its start (``--init``: as ``train-eval`` records it), each data
    file's SHA-256 (which names the positions the command read) with the command and start of
    the run that saved it, and the fit."""
    out = Path(args.out)
    if unwritable_output("fit-eval", "--out", out):
        return 2
    kept: list[Positions] = []
    sources: list[dict[str, object]] = []
    try:
        for data in args.data:
            rounds = load_data(Path(data))
            if args.first_round > len(rounds):
                print(
                    f"reversi fit-eval: error: --first-round {args.first_round}, but {data!r} has {len(rounds)} rounds",
                    file=sys.stderr,
                )
                return 2
            chosen = rounds[args.first_round - 1 :]
            kept += chosen
            digest = file_sha256(data, MAX_DATA_FILE, "a positions file")
            made_by = data_record(Path(data))  # the run that played them: its command and start
            sources.append(
                {
                    "path": data,
                    "sha256": digest,
                    "positions": sum(len(r) for r in chosen),
                    "command": made_by.get("command"),
                    "init": made_by.get("init"),
                }
            )
        initial, started = read_start(Path(args.init)) if args.init else (None, None)
    except (OSError, ValueError) as e:
        print(f"reversi fit-eval: error: {e}", file=sys.stderr)
        return 1
    start = time.perf_counter()
    positions = Positions.concatenate(kept)
    if len(positions) == 0:
        named = " and ".join(repr(d) for d in args.data)
        print(f"reversi fit-eval: error: no positions to fit in {named}", file=sys.stderr)
        return 1
    with tqdm(total=args.iterations, desc=f"fitting {len(positions)} positions", unit="step") as bar:
        result = fit(
            positions, initial, ridge=args.ridge, iterations=args.iterations, blend=args.blend, progress=bar.update
        )
    words = ["reversi", "fit-eval", *args.data, "--out", args.out]
    for name in ("init", "ridge", "iterations", "blend", "first_round"):
        if getattr(args, name) is not None:
            words += ["--" + name.replace("_", "-"), str(getattr(args, name))]
    metadata = {
        "command": shlex.join(words),
        "init": started,
        "data": sources,
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
