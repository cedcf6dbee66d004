"""Self-play MaskablePPO: the opponent is a past frozen copy of the learner.

    pip install 'reversi-env[sb3]'
    python examples/selfplay_ppo.py --timesteps 300000 --plot selfplay.png

Every ``--snapshot-every`` steps a frozen copy of the current policy joins a
pool (``reversi_env.selfplay.OpponentPool``, the last ``--pool-size`` kept);
each training game draws its opponent from the pool, so the learner keeps
meeting stronger versions of itself instead of one fixed opponent. The pool
starts with the untrained policy. Progress is measured as in
train_maskable_ppo.py: win rates against RandomAgent and GreedyAgent.
"""

from __future__ import annotations

import argparse
import copy
import sys

import gymnasium
import torch
from evaluation import Evaluator, check_outputs
from sb3_contrib import MaskablePPO
from stable_baselines3.common.env_util import make_vec_env
from train_maskable_ppo import EveryCallback, add_common_options, check_common_options, learn, new_model

import reversi_env
from agents.play.adapters import ModelAgent
from reversi_env.selfplay import OpponentPool


def frozen(model: MaskablePPO) -> ModelAgent:
    """A frozen copy of ``model``'s current policy as a (stochastic) player."""
    policy = copy.deepcopy(model.policy)
    policy.set_training_mode(False)
    return ModelAgent(policy, deterministic=False)


def main(argv: list[str] | None = None) -> int:
    """Train by self-play against a pool of past selves; save the model (and a plot)."""
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_common_options(p, save="models/selfplay_ppo_reversi.zip")
    p.add_argument("--snapshot-every", type=int, default=20_000, help="steps between pool additions (default 20000)")
    p.add_argument("--pool-size", type=int, default=10, help="past policies kept in the pool (default 10)")
    args = p.parse_args(argv)
    check_common_options(p, args)
    for name in ("snapshot_every", "pool_size"):
        if getattr(args, name) < 1:
            p.error(f"--{name.replace('_', '-')} must be >= 1, got {getattr(args, name)}")
    check_outputs(p, args)
    torch.set_num_threads(1)
    args.title = f"self-play, pool of {args.pool_size}, {args.reward} reward, seed {args.seed}"

    pool = OpponentPool(max_size=args.pool_size)
    seeds = iter(range(args.seed, args.seed + args.n_envs))

    def make() -> gymnasium.Env:
        return gymnasium.make(
            reversi_env.GYM_ENV_ID, opponent=pool.opponent(seed=next(seeds)), play_as="random", reward=args.reward
        )

    model = new_model(make_vec_env(make, n_envs=args.n_envs, seed=args.seed), args.n_steps, args.seed)
    pool.add(frozen(model))  # the untrained policy; the envs first reset inside learn()
    snapshots = EveryCallback(args.snapshot_every, lambda learner, _: pool.add(frozen(learner)))
    interrupted = learn(model, Evaluator(args.eval_games, args.benchmarks), args, snapshots)
    print(f"{pool.added} policies entered the pool, {len(pool)} kept")
    return 130 if interrupted else 0


if __name__ == "__main__":
    sys.exit(main())
