"""Tianshou DQN on the Reversi AEC env against a fixed opponent, as in Tianshou's tic-tac-toe tutorial.

    pip install 'reversi-env[tianshou]'
    python examples/tianshou_dqn.py --epochs 10 --plot tianshou.png
    python examples/tianshou_dqn.py --opponent mcts:sims=50 --play-as white

``tianshou.env.PettingZooEnv`` wraps ``reversi_env.env()``: it hands the
policies ``obs`` (the planes) and ``mask`` (the legal actions), and Tianshou's
DQN takes only legal actions, greedy or exploring. The learner plays
``--play-as`` (black by default); the other seat is ``--opponent``: ``random``
(Tianshou's masked random algorithm) or any agent spec (greedy, alphabeta:2,
mcts:sims=50, ...), played through ``AgentAlgorithm``. Every ``--eval-every``
env steps the learner's network is evaluated through ``agents.adapt`` against RandomAgent and
GreedyAgent in its own seat; the network is saved to ``--save`` (a state dict)
and ``load_policy`` turns it back into a player.

Tianshou 2.x API (``tianshou.algorithm``); Tianshou 1.x differs.
"""

from __future__ import annotations

import argparse
import io
import logging
import pickle
import sys
from pathlib import Path
from typing import Any, cast

import gymnasium
import numpy as np
import torch
from evaluation import CtrlCHeld, Evaluator, add_evaluation_options, check_outputs, library_seed
from tianshou.algorithm import DQN, MARLRandomDiscreteMaskedOffPolicyAlgorithm, MultiAgentOffPolicyAlgorithm
from tianshou.algorithm.algorithm_base import OffPolicyAlgorithm, TrainingStats
from tianshou.algorithm.algorithm_base import Policy as BasePolicy
from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy
from tianshou.algorithm.optim import AdamOptimizerFactory
from tianshou.data import Batch, Collector, CollectStats, ReplayBuffer, VectorReplayBuffer
from tianshou.env import DummyVectorEnv
from tianshou.env.pettingzoo_env import PettingZooEnv
from tianshou.trainer import OffPolicyTrainerParams

import reversi_env
from agents import Agent
from agents.datafiles import write_bytes_atomic
from agents.play.specs import make_agent

HIDDEN = [256, 256]
"""The Q-network's hidden layers (``load_policy`` rebuilds the same network)."""
SEATS = {"black": 0, "white": 1}


def make_env() -> PettingZooEnv:
    """Tianshou's PettingZoo wrapper around the Reversi AEC env."""
    return PettingZooEnv(reversi_env.env())


def q_network() -> torch.nn.Module:
    """An MLP from the flattened (8, 8, 2) planes to 65 Q-values."""
    from tianshou.utils.net.common import Net

    return Net(state_shape=(8, 8, 2), action_shape=reversi_env.GameState.NUM_ACTIONS, hidden_sizes=HIDDEN)


class AgentAlgorithm(OffPolicyAlgorithm):
    """Any ``agents.Agent`` (random, greedy, alphabeta, mcts...) as a Tianshou
    algorithm that plays and never learns, like Tianshou's masked random one."""

    class Policy(BasePolicy):
        """Asks the agent for each observation of the batch."""

        def __init__(self, action_space: gymnasium.spaces.Space, agent: Agent) -> None:
            """Play ``agent``'s moves."""
            super().__init__(action_space=action_space)
            self.agent = agent

        def forward(self, batch: Any, state: Any = None, **kwargs: Any) -> Any:
            """One action per row of ``batch.obs`` (planes ``obs``, bool ``mask``)."""
            planes = np.asarray(batch.obs.obs, dtype=np.int8)
            masks = np.asarray(batch.obs.mask, dtype=np.int8)
            acts = [self.agent.act({"observation": p, "action_mask": m}) for p, m in zip(planes, masks, strict=True)]
            return Batch(act=np.asarray(acts, dtype=np.int64))

    def __init__(self, action_space: gymnasium.spaces.Space, agent: Agent) -> None:
        """``agent`` plays this seat."""
        super().__init__(policy=self.Policy(action_space, agent))

    def _update_with_batch(self, batch: Any) -> TrainingStats:
        return TrainingStats()


class TianshouPolicy:
    """A trained Q-network as a player: ``policy(observation) -> action``, the
    legal action with the highest Q-value (for ``agents.adapt``)."""

    def __init__(self, net: torch.nn.Module, name: str = "tianshou-dqn") -> None:
        """Wrap ``net`` (planes -> 65 Q-values)."""
        self.net = net
        self.__name__ = name

    def __call__(self, observation: dict[str, np.ndarray]) -> int:
        """The best legal action by Q-value."""
        with torch.no_grad():
            q, _ = self.net(np.asarray(observation["observation"])[None])
        q = q[0].numpy().astype(np.float64)
        q[np.asarray(observation["action_mask"]) == 0] = -np.inf
        return int(np.argmax(q))


def load_policy(path: str | Path) -> TianshouPolicy:
    """The Q-network saved by this example at ``path``, as a player. FileNotFoundError if
    there is no file; anything else is one ValueError naming ``path`` (never torch's
    advice to load the file with ``weights_only=False``, which would run its code)."""
    net = q_network()
    try:
        net.load_state_dict(torch.load(path, weights_only=True))
    except FileNotFoundError:
        raise
    except (pickle.UnpicklingError, RuntimeError, KeyError, TypeError, AttributeError, EOFError, ValueError, OSError):
        raise ValueError(f"{str(path)!r} is not a Q-network saved by this example") from None
    net.eval()
    return TianshouPolicy(net)


def main(argv: list[str] | None = None) -> int:
    """Train the DQN seat for ``--epochs``, evaluating after each; save the network."""
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--epochs", type=int, default=10, help="training epochs (default 10)")
    p.add_argument("--epoch-steps", type=int, default=5000, help="env steps (both seats) per epoch (default 5000)")
    p.add_argument("--opponent", default="random", help="the other seat: random or an agent spec (default random)")
    p.add_argument("--play-as", choices=sorted(SEATS), default="black", help="the learner's seat (default black)")
    p.add_argument("--n-envs", type=int, default=8, help="training envs (default 8)")
    p.add_argument(
        "--save",
        default="models/tianshou_dqn_reversi.pt",
        help="the Q-network's state dict (default models/tianshou_dqn_reversi.pt)",
    )
    p.add_argument("--seed", type=library_seed, default=0, help="seed of training and evaluation (default 0)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar (logs, CI)")
    add_evaluation_options(p, every=5000)
    args = p.parse_args(argv)
    for name in ("epochs", "epoch_steps", "n_envs"):
        if getattr(args, name) < 1:
            p.error(f"--{name.replace('_', '-')} must be >= 1, got {getattr(args, name)}")
    if args.opponent != "random":
        try:
            make_agent(args.opponent)
        except ValueError as e:
            p.error(f"--opponent: {e}")
    check_outputs(p, args)

    torch.set_num_threads(1)
    # Tianshou summarises multi-agent returns (one column per seat) as one sequence, and says so at every step.
    logging.getLogger("tianshou.data.stats").setLevel(logging.ERROR)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    env = make_env()
    net = q_network()
    learner = DQN(
        policy=DiscreteQLearningPolicy(model=net, action_space=env.action_space, eps_training=0.1, eps_inference=0.0),
        optim=AdamOptimizerFactory(lr=1e-4),
        gamma=0.99,
        # Turns alternate in the buffer (a pass is a move), so a 2-step return spans the learner's move and
        # the reply, and bootstraps from the learner's own next observation; 3 (the tic-tac-toe example's)
        # would bootstrap from the opponent's view.
        n_step_return_horizon=2,
        target_update_freq=320,
    )
    if args.opponent == "random":
        opponent: OffPolicyAlgorithm = MARLRandomDiscreteMaskedOffPolicyAlgorithm(action_space=env.action_space)
    else:
        opponent = AgentAlgorithm(env.action_space, make_agent(args.opponent, seed=args.seed))
    seat = SEATS[args.play_as]
    algorithm = MultiAgentOffPolicyAlgorithm(
        algorithms=[learner, opponent] if seat == 0 else [opponent, learner], env=env
    )

    train_envs = DummyVectorEnv([make_env for _ in range(args.n_envs)])
    train_envs.seed(args.seed)
    # One env needs no vector buffer (whose numba kernels Tianshou compiles at every start, ~10 s).
    buffer = ReplayBuffer(50_000) if args.n_envs == 1 else VectorReplayBuffer(50_000, args.n_envs)
    train_collector = Collector[CollectStats](algorithm, train_envs, buffer, exploration_noise=True)
    train_collector.reset()
    train_collector.collect(n_step=64 * args.n_envs)

    evaluator = Evaluator(args.eval_games, args.benchmarks, seat=args.play_as)
    player = TianshouPolicy(net)
    next_eval = [args.eval_every]
    trained = [0]  # env steps so far, for the line Ctrl-C prints

    def maybe_evaluate(epoch: int, env_step: int) -> None:
        trained[0] = env_step
        if env_step >= next_eval[0]:
            next_eval[0] = env_step + args.eval_every
            net.eval()
            evaluator.evaluate(player, env_step)
            net.train()

    interrupted = False
    try:
        evaluator.evaluate(player, 0)
        result = algorithm.run_training(
            OffPolicyTrainerParams(
                training_collector=train_collector,
                max_epochs=args.epochs,
                epoch_num_steps=args.epoch_steps,
                collection_step_num_env_steps=10 * args.n_envs,
                batch_size=64,
                update_step_num_gradient_steps_per_sample=0.1,
                training_fn=maybe_evaluate,
                multi_agent_return_reduction=lambda rews: rews[:, seat],
                show_progress=not args.no_progress,
            )
        )
        net.eval()
        if evaluator.history[-1].timesteps != result.train_step:
            evaluator.evaluate(player, result.train_step)
    except KeyboardInterrupt:  # Ctrl-C: the network learnt so far is saved all the same
        interrupted = True
        net.eval()
        if not trained[0]:
            print("\ninterrupted before any training: nothing saved", file=sys.stderr)
            return 130
        print(f"\ninterrupted after {trained[0]} env steps", file=sys.stderr)
    with CtrlCHeld(interrupted) as held:  # a Ctrl-C now waits for the save's end
        save = Path(args.save)
        save.parent.mkdir(parents=True, exist_ok=True)
        weights = io.BytesIO()
        torch.save(net.state_dict(), weights)
        write_bytes_atomic(save, weights.getvalue())
        print(f"saved {save}")
        title = f"Tianshou DQN as {args.play_as} vs {args.opponent}, seed {args.seed}"
        evaluator.write(save, args.plot, title, xlabel="env steps (both seats)")
        cast(Any, train_envs).close()
    return 130 if held.interrupted else 0


if __name__ == "__main__":
    sys.exit(main())
