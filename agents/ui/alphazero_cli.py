"""The ``reversi train-az`` subcommand: the AlphaZero loop (``agents.learn.alphazero``)
with each checkpoint rated in arena matches.

    reversi train-az --out runs/az --warm-start 100000 --iterations 0      supervised warm start only
    reversi train-az --out runs/az --iterations 20                         self-play (resumes runs/az)
    reversi train-az --out runs/az --backend ray --address auto --workers 8

Every iteration the new checkpoint plays ``--eval-games`` games (random 2-ply
openings, colours swapped) against the best checkpoint so far and against each
``--eval-against`` spec; scores with 95 % intervals go to progress.json and the
plot strength.png in the run directory.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agents.cluster import check_reachable
from agents.compiling import compile_notice
from agents.limits import MAX_SOLVED_EMPTIES
from agents.play.specs import runs_code
from agents.ui.options import bounded_int, player_spec, positive_float, positive_int, seed_int

if TYPE_CHECKING:
    from agents.learn.alphazero import AZConfig

count = bounded_int(0, 10**9)
"""An argument type: a count that may be 0 (iterations, steps, positions, simulations)."""

TRAIN_EPILOG = """\
Run the same command again after a kill or Ctrl-C: it resumes from the last
checkpoint in --out (raise --iterations to train further). A resume takes the
run's saved settings for the options it leaves out; it may change
--iterations, --learning-rate, --workers, --parallel-games, --backend,
--address, --device and the --eval options, and is refused if it gives other
settings that differ from the run's. The shipped network and the command that
made it are described in docs/alphazero.md.
"""


def register(sub: Any) -> None:
    """Add the ``train-az`` subcommand to an argparse subparsers object."""
    p = sub.add_parser(
        "train-az",
        help="train a policy-value network by AlphaZero self-play (PUCT search), locally or on Ray",
        description="AlphaZero: self-play with a network-guided search, training, a checkpoint every iteration.",
        epilog=TRAIN_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        argument_default=argparse.SUPPRESS,  # a run's settings left out: the saved run's, else AZConfig's
    )
    p.add_argument("--out", required=True, metavar="DIR", help="run directory (created, or resumed if it holds a run)")
    p.add_argument("--iterations", type=count, help="train up to this iteration (default 10)")
    p.add_argument("--games", type=positive_int, help="self-play games an iteration (default 32)")
    p.add_argument("--simulations", type=positive_int, help="search simulations a move (default 64)")
    p.add_argument("--parallel-games", type=positive_int, help="games a worker plays side by side (default 16)")
    p.add_argument("--gumbel", action="store_true", help="Gumbel root selection in self-play (small budgets)")
    p.add_argument("--workers", type=positive_int, help="self-play workers (default 1)")
    p.add_argument("--backend", choices=("local", "ray"), help="worker processes (default) or Ray tasks")
    p.add_argument("--address", help="Ray cluster address (default: start a local Ray)")
    p.add_argument("--train-steps", type=count, help="training steps an iteration (default 200)")
    p.add_argument("--learning-rate", type=positive_float, help="AdamW rate of every training step (default 1e-3)")
    p.add_argument("--buffer", type=positive_int, help="replay buffer size in positions (default 100000)")
    p.add_argument("--channels", type=positive_int, help="residual tower width (default 32)")
    p.add_argument("--blocks", type=positive_int, help="residual blocks (default 3)")
    p.add_argument(
        "--warm-start",
        type=count,
        metavar="N",
        help="first learn N alpha-beta-labelled positions (default 0: no warm start)",
    )
    p.add_argument("--warm-depth", type=positive_int, help="alpha-beta depth of the labels (default 4)")
    p.add_argument(
        "--warm-exact",
        type=bounded_int(0, MAX_SOLVED_EMPTIES),
        metavar="E",
        help=f"label exactly from E empty squares on, at most {MAX_SOLVED_EMPTIES} (default 14)",
    )
    p.add_argument(
        "--warm-value-mix",
        type=float,
        metavar="W",
        help="value target: W x final result + (1 - W) x the search's value (default 0)",
    )
    p.add_argument(
        "--no-warm-anneal",
        dest="warm_anneal",
        action="store_false",
        help="keep the learning rate constant in the warm start (default: cosine down to 0)",
    )
    p.add_argument("--warm-steps", type=count, help="training steps on the warm-start data (default 2000)")
    p.add_argument("--eval-games", type=int, help="games per evaluation match, even; 0 = no evaluation (default 20)")
    p.add_argument("--eval-sims", type=count, help="simulations a move in evaluation (default 0: the raw policy)")
    p.add_argument(
        "--eval-against", type=player_spec, nargs="*", metavar="SPEC", help="ladder opponents (default greedy)"
    )
    p.add_argument("--device", help="torch device for the network: cpu, cuda, cuda:1 (default cpu)")
    p.add_argument("--seed", type=seed_int, help="seed of the whole run (default 0)")
    p.add_argument("--no-progress", action="store_true", default=False, help="no progress bars (logs, CI)")
    p.set_defaults(func=run_train_az)


def run_train_az(args: argparse.Namespace) -> int:
    """The ``train-az`` command; returns the exit status."""
    with compile_notice("the engine"):
        import torch

        from agents.learn.alphazero import AZConfig, saved_config, train

    if "eval_games" in args and (args.eval_games < 0 or args.eval_games % 2):
        print("reversi train-az: --eval-games must be an even number >= 0", file=sys.stderr)
        return 2
    torch.set_num_threads(1)
    known = {f.name for f in fields(AZConfig)}
    given = {k: v for k, v in vars(args).items() if k in known}
    try:
        config = AZConfig(**{**saved_config(args.out), **given})
        if config.backend == "ray" and config.address:
            check_reachable(config.address)  # before any work: ray.init retries for minutes
        risky = [spec for spec in config.eval_against if runs_code(spec)] if "eval_against" not in given else []
        if risky:
            # A file is data: the programs and modules it names are started only when the user names them.
            raise ValueError(
                f"{args.out}: the run was rated against players that start programs or import code "
                f"({', '.join(risky)}); progress.json never starts them: name the opponents with --eval-against"
            )
        evaluate = _arena_evaluation(args.out, config) if config.eval_games else None
        train(args.out, config, evaluate, progress=not args.no_progress)
    except (ValueError, OSError) as e:
        print(f"reversi train-az: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"\nstopped; run the same command to resume from {args.out}", file=sys.stderr)
        return 130
    return 0


def _arena_evaluation(directory: str, config: AZConfig) -> Any:
    """The evaluation hook: arena matches of the new checkpoint, one per opponent, as ``config``'s
    ``eval_*`` settings say (seeded by the run's seed), their records in the run ``directory``."""
    from agents.arena.tournament import Tournament, run_tournament

    def net_spec(path: Path) -> str:
        return f"alphazero:net={path},sims={config.eval_sims}"

    def evaluate(checkpoint: Path, best: Path | None, iteration: int) -> dict[str, list[float]]:
        opponents = {"best": net_spec(best)} if best is not None else {}
        opponents.update({spec: spec for spec in config.eval_against})
        scores = {}
        me = net_spec(checkpoint)
        for name, spec in opponents.items():
            tournament = Tournament.create(
                [me, spec], games=config.eval_games, opening_plies=2, seed=config.seed * 1000 + iteration
            )
            slug = name.replace(":", "_").replace("/", "_")
            out = Path(directory) / f"eval_{iteration:04d}_{slug}.jsonl"
            out.unlink(missing_ok=True)
            stats = run_tournament(tournament, out, jobs=1).by_name(me)
            scores[name] = [stats.score, *stats.score_interval]
        return scores

    return evaluate
