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
from typing import Any

import torch

from agents.cluster import check_reachable
from agents.learn.alphazero import AZConfig, saved_config, train
from agents.play.specs import runs_code


def run_train_az(args: argparse.Namespace) -> int:
    """The ``train-az`` command; returns the exit status."""
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
