"""MCTS against a random player: N games, colours alternated, a summary.

    python examples/mcts_vs_random.py                     # 10 games, 5,000 simulations a move
    python examples/mcts_vs_random.py --games 20 --time 0.5
    python examples/mcts_vs_random.py --help

The default budget (5,000 simulations a move, exact endgame from 16 empty
squares) plays ten games in under a minute on two busy cores, and wins them
all by wide margins; the first run on a machine compiles the engine before
them, under a minute more (the README's Quickstart). Ctrl-C stops
the run with the summary of the games finished (exit status 130).
"""

from __future__ import annotations

import argparse
import sys

from tqdm import tqdm

from agents.play.match import MoveRecord, play_game
from agents.search.ladder import RandomAgent
from agents.search.mcts import MAX_SIMULATIONS, MCTSAgent
from reversi_env.state import BLACK, GameState


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line: games, budget (simulations or seconds) and seed."""
    parser = argparse.ArgumentParser(
        description="Play MCTS against a uniformly random player, colours alternating, and summarise.",
        epilog="Each game's score is printed as it finishes; the summary counts wins, draws and losses.",
    )
    parser.add_argument("--games", type=int, default=10, help="number of games (default: 10)")
    budget = parser.add_mutually_exclusive_group()
    budget.add_argument(
        "--simulations", type=int, default=None, help="MCTS simulations per move (default: 5000 unless --time)"
    )
    budget.add_argument("--time", type=float, default=None, help="MCTS seconds per move instead of a simulation count")
    parser.add_argument("--seed", type=int, default=0, help="seed of both players (default: 0)")
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error(f"--games must be at least 1, got {args.games}")
    if args.simulations is not None and not 1 <= args.simulations <= MAX_SIMULATIONS:
        parser.error(f"--simulations must be from 1 to {MAX_SIMULATIONS:,}, got {args.simulations}")
    if args.time is not None and not 0 < args.time <= 60:
        parser.error(f"--time must be in (0, 60] seconds, got {args.time}")
    if args.seed < 0:
        parser.error(f"--seed must be non-negative, got {args.seed}")
    if args.simulations is None and args.time is None:
        args.simulations = 5_000
    return args


def main(argv: list[str] | None = None) -> int:
    """Play the games and print each score and the summary."""
    args = parse_args(argv)
    mcts = MCTSAgent(time_limit=args.time, simulations=args.simulations, seed=args.seed)
    rival = RandomAgent(seed=args.seed + 1)
    budget = f"{args.simulations} simulations" if args.time is None else f"{args.time:g} s"
    print(f"MCTS ({budget} a move) vs random, {args.games} games, seed {args.seed}")
    wins = draws = losses = 0
    margins: list[int] = []
    simulations: list[int] = []

    try:
        for game in tqdm(range(args.games), desc="games", unit="game", file=sys.stderr):
            mcts_color = BLACK if game % 2 == 0 else 1 - BLACK
            searched: list[int] = []  # this game's, counted once it is finished

            def count(
                record: MoveRecord, _state: GameState, color: int = mcts_color, out: list[int] = searched
            ) -> None:
                last = mcts.last_result
                if record.player == color and not record.forced and last is not None and last.simulations:
                    out.append(last.simulations)

            mcts.reset()
            black, white = (mcts, rival) if mcts_color == BLACK else (rival, mcts)
            result = play_game(black, white, time_limit=60.0, on_move=count)
            margin = result.disc_difference if mcts_color == BLACK else -result.disc_difference
            margins.append(margin)
            simulations.extend(searched)
            if margin > 0:
                wins += 1
            elif margin < 0:
                losses += 1
            else:
                draws += 1
            side = "black" if mcts_color == BLACK else "white"
            outcome = "win" if margin > 0 else ("loss" if margin < 0 else "draw")
            tqdm.write(
                f"game {game + 1:>3}: MCTS ({side}) {result.black if mcts_color == BLACK else result.white:>2}"
                f" - {result.white if mcts_color == BLACK else result.black:>2} random"
                f"  {outcome} by {abs(margin)}" + ("" if result.reason == "end" else f" ({result.reason})")
            )
    except KeyboardInterrupt:  # Ctrl-C: the games finished so far are the result
        print(f"interrupted after {len(margins)} of {args.games} games", file=sys.stderr)
        if not margins:
            return 130

    mean_margin = sum(margins) / len(margins)
    mean_sims = sum(simulations) / len(simulations) if simulations else 0.0
    print(f"MCTS: {wins} wins, {draws} draws, {losses} losses out of {len(margins)} games")
    print(f"mean disc difference (MCTS - random): {mean_margin:+.1f}")
    print(f"MCTS simulations per searched move: {mean_sims:,.0f} ({len(simulations)} searched moves)")
    return 0 if len(margins) == args.games else 130


if __name__ == "__main__":
    sys.exit(main())
