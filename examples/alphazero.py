"""AlphaZero in one page: self-play with a network-guided search, learn from it,
repeat, and see how the network plays.

Each iteration plays a few games of the network against itself with the PUCT
search (the visit counts become the policy targets, the final result the value
targets), trains the network on a replay buffer of them, and plays the raw
policy against the greedy baseline. ``reversi train-az`` is the same loop with
checkpoints, resuming, workers (local or Ray) and arena evaluation.

    python examples/alphazero.py [--iterations 3] [--games 8] [--simulations 32] [--steps 100]

The network is saved to ``--out`` after each iteration; Ctrl-C stops the loop
and says which iteration's network that file holds.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import asdict

import numpy as np
import torch

from agents.datafiles import check_writable
from agents.learn.alphazero import AZConfig, play_games
from agents.learn.alphazero_agent import AlphaZeroAgent
from agents.learn.network import PolicyValueNet, save_network
from agents.learn.network_training import ReplayBuffer, train_steps
from agents.play.match import play_game
from agents.search.ladder import GreedyAgent
from agents.ui.options import positive_int


def main(argv: list[str] | None = None) -> int:
    """Run the loop; bad options are argparse's usage errors, before any work. Returns the exit status."""
    parser = argparse.ArgumentParser(description="A tiny AlphaZero loop.")
    parser.add_argument(
        "--iterations", type=positive_int, default=3, help="self-play and training iterations (default 3)"
    )
    parser.add_argument("--games", type=positive_int, default=8, help="self-play games an iteration (default 8)")
    parser.add_argument("--simulations", type=positive_int, default=32, help="search simulations a move (default 32)")
    parser.add_argument("--steps", type=positive_int, default=100, help="training steps an iteration (default 100)")
    parser.add_argument(
        "--out", default="alphazero_example.pt", help="where the network is saved (default alphazero_example.pt)"
    )
    args = parser.parse_args(argv)
    try:
        check_writable(args.out)  # before the work, not after its first iteration
    except OSError as e:
        parser.error(f"--out {args.out!r}: {e.strerror}")
    torch.set_num_threads(1)
    torch.manual_seed(0)
    rng = np.random.default_rng(0)

    config = AZConfig(simulations=args.simulations, parallel_games=args.games)
    net = PolicyValueNet()  # 32 channels, 3 residual blocks; small enough for a CPU
    optimizer = torch.optim.AdamW(net.parameters(), lr=1e-3, weight_decay=1e-4)
    buffer = ReplayBuffer(50_000)
    saved = 0
    try:
        for iteration in range(1, args.iterations + 1):
            # 1. Self-play: the search, guided by the current network, picks the moves.
            samples = play_games(net.state_dict(), asdict(net.config), asdict(config), args.games, seed=iteration)
            buffer.add(samples)
            # 2. Training: policy towards the visit counts, value towards the results (8 symmetries).
            policy_loss, value_loss = train_steps(net, optimizer, buffer.data, args.steps, 256, rng)
            # 3. Evaluation: the raw policy (no search) against the greedy baseline, both colours.
            save_network(args.out, net)
            saved = iteration
            agent = AlphaZeroAgent(args.out, simulations=0)
            games = [play_game(agent, GreedyAgent(seed=1)), play_game(GreedyAgent(seed=1), agent)]
            points = sum({"black": 1.0, "white": 0.0, "draw": 0.5}[g.winner] for g in games[:1])
            points += sum({"black": 0.0, "white": 1.0, "draw": 0.5}[g.winner] for g in games[1:])
            print(
                f"iteration {iteration}: {len(samples)} new positions, losses {policy_loss:.2f} / {value_loss:.2f}, "
                f"raw policy vs greedy {points:.1f} / 2",
                flush=True,
            )
    except KeyboardInterrupt:
        kept = f"{args.out} holds the network of iteration {saved}" if saved else "nothing saved"
        print(f"\ninterrupted: {kept}", file=sys.stderr)
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
