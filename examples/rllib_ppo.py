"""Ray RLlib PPO on the Reversi AEC env, both seats played by one shared policy.

    pip install 'reversi-env[rllib]'
    python examples/rllib_ppo.py --iterations 20 --plot rllib.png

The env is ``ray.rllib.env.wrappers.pettingzoo_env.PettingZooEnv`` around
``reversi_env.env()``, with observations renamed by
``reversi_env.rllib.RLlibObservationWrapper`` to the keys RLlib's
``ActionMaskingTorchRLModule`` reads (``observations``, ``action_mask``): the
policy never samples a masked-out action. ``black_0`` and ``white_0`` both map
to the module ``shared``, which learns from both sides of every game
(self-play). After training, the module is saved to ``--save`` (RLlib's
checkpoint, and its weights alone in ``weights.pt``) and evaluated through
``agents.adapt`` against RandomAgent and GreedyAgent; ``load_policy`` loads it
back as a callable player, reading the weights only (RLlib's checkpoint files
are pickles, which would run any code a foreign directory holds)::

    from rllib_ppo import load_policy
    from agents import adapt, play_game
    play_game(adapt(load_policy("models/rllib_ppo_reversi")), "greedy")

Runs on the new API stack (RLModule, Learner), in this process: no remote env
runners or learners, so Ray starts only its core services.
"""

from __future__ import annotations

import argparse
import io
import pickle
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import ray
import torch
from evaluation import CtrlCHeld, Evaluator, add_evaluation_options
from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
from ray.rllib.core.rl_module.rl_module import RLModule, RLModuleSpec
from ray.rllib.core.rl_module.torch import TorchRLModule
from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule
from ray.tune.registry import register_env

import reversi_env
from agents.datafiles import write_bytes_atomic
from reversi_env.rllib import RLlibObservationWrapper, rllib_env, rllib_observation

ENV_NAME = "reversi_env_rllib"
MODULE_ID = "shared"
WEIGHTS = "weights.pt"
"""The file of the saved module's weights (a torch state dict, read with ``weights_only``)."""


class RLlibPolicy:
    """A trained RLlib module as a player: ``policy(observation) -> action``
    (the greedy action among the legal ones), for ``agents.adapt``."""

    def __init__(self, module: TorchRLModule, name: str = "rllib-ppo") -> None:
        """Wrap ``module`` (an ActionMaskingTorchRLModule trained on flattened planes)."""
        self.module = module
        self.__name__ = name

    def __call__(self, observation: dict[str, np.ndarray]) -> int:
        """The module's most likely legal action."""
        obs = rllib_observation(observation, flatten=True)
        batch = {Columns.OBS: {k: torch.as_tensor(v)[None] for k, v in obs.items()}}
        with torch.no_grad():
            logits = self.module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS][0]
        return int(torch.argmax(logits))


def module_spec() -> RLModuleSpec:
    """The shared policy's module: an action-masking MLP on the flattened planes, the value
    function's layers apart from the policy's (PPO's default, spelled out for ``load_policy``)."""
    return RLModuleSpec(
        module_class=ActionMaskingTorchRLModule,
        model_config={"fcnet_hiddens": [256, 256], "head_fcnet_hiddens": [128], "vf_share_layers": False},
    )


def torch_module(module: RLModule | None) -> TorchRLModule:
    """``module`` as the torch module ``module_spec`` builds: RLlib types what a spec builds and what
    ``Algorithm.get_module`` returns as any RLModule (or None, for an unknown module ID)."""
    if not isinstance(module, TorchRLModule):
        raise TypeError(f"expected a TorchRLModule, got {type(module).__name__}")
    return module


def load_policy(path: str | Path) -> RLlibPolicy:
    """The module saved by this example in the directory ``path``, as a player: built from
    ``module_spec`` with the weights of ``path/weights.pt`` (tensors only: nothing in the
    directory is unpickled). One ValueError naming ``path`` if it holds no such module."""
    env = RLlibObservationWrapper(reversi_env.env(), flatten=True)
    agent = env.possible_agents[0]
    spec = module_spec()
    spec.observation_space, spec.action_space = env.observation_space(agent), env.action_space(agent)
    module = torch_module(spec.build())
    try:
        module.load_state_dict(torch.load(Path(path) / WEIGHTS, weights_only=True))
    except FileNotFoundError:
        raise ValueError(f"{str(path)!r} holds no {WEIGHTS}: not a module saved by this example") from None
    except pickle.UnpicklingError:
        raise ValueError(f"{str(path)!r} is not a module of this example: {WEIGHTS} is not plain tensors") from None
    except (OSError, RuntimeError, EOFError, TypeError, ValueError, AttributeError) as e:
        raise ValueError(f"{str(path)!r} is not a module of this example: {str(e).splitlines()[0]}") from None
    module.eval()
    return RLlibPolicy(module)


def save_module(module: TorchRLModule, path: Path) -> None:
    """RLlib's checkpoint of ``module`` in the directory ``path``, and its weights alone in
    ``path/weights.pt`` for ``load_policy``."""
    module.save_to_path(str(path))
    weights = io.BytesIO()
    torch.save(module.state_dict(), weights)
    write_bytes_atomic(path / WEIGHTS, weights.getvalue())


def build_config(args: argparse.Namespace) -> PPOConfig:
    """PPO on the shared-policy multi-agent env, sampled and trained in this process."""
    return (
        PPOConfig()
        .environment(ENV_NAME, env_config={"flatten": True})
        .multi_agent(policies={MODULE_ID}, policy_mapping_fn=lambda agent_id, episode, **kwargs: MODULE_ID)
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={MODULE_ID: module_spec()}))
        .env_runners(num_env_runners=0, num_envs_per_env_runner=1)
        .learners(num_learners=0)
        .training(
            train_batch_size_per_learner=args.batch,
            minibatch_size=min(256, args.batch),
            num_epochs=4,
            lr=3e-4,
            gamma=0.99,
            entropy_coeff=0.01,
        )
        .debugging(seed=args.seed)
    )


def main(argv: list[str] | None = None) -> int:
    """Train for ``--iterations``, evaluating every ``--eval-every`` env steps; save the module."""
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--iterations", type=int, default=20, help="PPO iterations (default 20)")
    p.add_argument("--batch", type=int, default=4000, help="env steps (both seats) per iteration (default 4000)")
    p.add_argument(
        "--save",
        default="models/rllib_ppo_reversi",
        help="directory for the trained module (default models/rllib_ppo_reversi)",
    )
    p.add_argument("--seed", type=int, default=0, help="seed of training and evaluation (default 0)")
    add_evaluation_options(p, every=20_000)
    args = p.parse_args(argv)
    for name in ("iterations", "batch"):
        if getattr(args, name) < 1:
            p.error(f"--{name} must be >= 1, got {getattr(args, name)}")

    torch.set_num_threads(1)
    # Sampling and learning run in this process (no remote runners), so Ray needs few workers and no dashboard;
    # "local": a Ray instance of its own, never a cluster some other program left running.
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    steps = 0
    try:
        register_env(ENV_NAME, lambda config: rllib_env(**config))
        algo = build_config(args).build_algo()
        evaluator = Evaluator(args.eval_games, args.benchmarks)
        evaluator.evaluate(RLlibPolicy(torch_module(algo.get_module(MODULE_ID))), 0)
        next_eval, interrupted = args.eval_every, False
        try:
            for i in range(args.iterations):
                result: dict[str, Any] = algo.train()
                steps = int(result["num_env_steps_sampled_lifetime"])
                print(f"iteration {i + 1}/{args.iterations}: {steps} env steps", flush=True)
                if steps >= next_eval or i == args.iterations - 1:
                    next_eval = steps + args.eval_every
                    evaluator.evaluate(RLlibPolicy(torch_module(algo.get_module(MODULE_ID))), steps)
        except KeyboardInterrupt:  # Ctrl-C: the module learnt so far is saved all the same
            if not steps:
                raise
            print(f"\ninterrupted after {steps} env steps", file=sys.stderr)
            interrupted = True
        with CtrlCHeld(interrupted) as held:  # a Ctrl-C now waits for the save's end
            save = Path(args.save).resolve()
            save_module(torch_module(algo.get_module(MODULE_ID)), save)
            print(f"saved {save} after {(time.perf_counter() - evaluator.start) / 60:.1f} min")
            title = f"RLlib PPO, shared policy self-play, seed {args.seed}"
            evaluator.write(save, args.plot, title, xlabel="env steps (both seats, one shared policy)")
            algo.stop()
            ray.shutdown()
    except KeyboardInterrupt:
        print("\ninterrupted before any training: nothing saved", file=sys.stderr)
        return 130
    finally:
        ray.shutdown()
    return 130 if held.interrupted else 0


if __name__ == "__main__":
    sys.exit(main())
