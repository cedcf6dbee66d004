"""Playing strength of MCTSAgent: matches with colours alternated, a table with
Wilson 95 % intervals on the score (a win 1, a draw 1/2).

Opponents: a uniformly random player, AlphaBetaAgent(4), and OpenSpiel's C++
``pyspiel.MCTSBot`` (random rollouts, UCT c = 2) given the same wall time per
move (needs the ``bench`` extra). Every game goes through ``agents.play.match.play_game``.
Each opponent is the anchor of its row: beside MCTS's score sit the opponent's
score in the same games and the ratio of the two (above 1: MCTS is the stronger).

    python benchmarks/strength.py --games 50 --time 1.0
    python benchmarks/strength.py --games 10 --time 0.2 --against random alphabeta4
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable

from tqdm import tqdm

from agents.arena.ratings import wilson_interval
from agents.base import Agent, state_to_move
from agents.play.match import play_game
from agents.search.ladder import AlphaBetaAgent, RandomAgent
from agents.search.mcts import MCTSAgent
from agents.ui.options import seed_int
from reversi_env.notation import PASS
from reversi_env.observation import Observation
from reversi_env.state import GameState


class OpenSpielMCTS:
    """OpenSpiel's C++ MCTSBot as an Agent. OpenSpiel states are built from
    move histories, so the agent follows the game: from its last position it
    finds the opponent's move (and any forced passes) that reach the new one."""

    def __init__(self, seconds: float, seed: int = 0) -> None:
        """A bot that thinks ``seconds`` of wall time per move."""
        import pyspiel

        self._game = pyspiel.load_game("othello")
        evaluator = pyspiel.RandomRolloutEvaluator(1, seed)
        self._bot = pyspiel.MCTSBot(
            self._game, evaluator, 2.0, 10**9, 2000, False, seed, False, pyspiel.ChildSelectionPolicy.UCT, seconds
        )
        self.name = f"openspiel-mcts-{seconds:g}s"
        self.reset()

    def reset(self) -> None:
        """A new game from the start position."""
        self._state = GameState.initial()
        self._spiel = self._game.new_initial_state()

    def _catch_up(self, target: GameState) -> None:
        """Play the moves since our last one (at most: reply, forced pass, reply)."""
        frontier: list[tuple[GameState, list[int]]] = [(self._state, [])]
        for _ in range(4):
            nxt = []
            for state, line in frontier:
                if state.kernel_boards() == target.kernel_boards() and state.legal_actions() == target.legal_actions():
                    for a in line:
                        self._spiel.apply_action(a)
                    self._state = state
                    return
                nxt += [(state.apply(a), [*line, a]) for a in state.legal_actions()]
            frontier = nxt
        raise RuntimeError("OpenSpielMCTS lost track of the game")

    def act(self, observation: Observation) -> int:
        """OpenSpiel's move for the observation's position."""
        self._catch_up(state_to_move(observation))
        action = int(self._bot.step(self._spiel))
        self._spiel.apply_action(action)
        self._state = self._state.apply(action)
        return PASS if action == PASS else action


def run_match(
    make_mcts: Callable[[], MCTSAgent], rival: Agent, games: int, label: str
) -> tuple[int, int, int, float, float]:
    """(wins, draws, losses, mean disc difference, mean simulations per searched move) for MCTS."""
    wins = draws = losses = 0
    margins: list[int] = []
    sims: list[int] = []
    mcts = make_mcts()
    for game in tqdm(range(games), desc=label, unit="game", leave=False, file=sys.stderr):  # stdout: the table only
        mcts.reset()
        getattr(rival, "reset", lambda: None)()
        mcts_black = game % 2 == 0

        def count(record: object, _state: GameState) -> None:
            last = mcts.last_result
            if last is not None and last.simulations:
                sims.append(last.simulations)
            mcts.last_result = None

        black, white = (mcts, rival) if mcts_black else (rival, mcts)
        result = play_game(black, white, time_limit=60.0, on_move=count)
        margin = result.disc_difference if mcts_black else -result.disc_difference
        margins.append(margin)
        wins += margin > 0
        draws += margin == 0
        losses += margin < 0
    return wins, draws, losses, sum(margins) / len(margins), (sum(sims) / len(sims) if sims else 0.0)


def pyspiel_installed() -> bool:
    """Whether OpenSpiel (the ``bench`` extra) can be imported."""
    try:
        import pyspiel  # noqa: F401
    except ImportError:
        return False
    return True


def main() -> None:
    """Play the matches and print the table."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=50, help="games per opponent (default: 50)")
    parser.add_argument("--time", type=float, default=1.0, help="seconds per move for MCTS and OpenSpiel (default: 1)")
    parser.add_argument(
        "--against",
        nargs="+",
        default=["random", "alphabeta4", "openspiel"],
        choices=["random", "alphabeta4", "openspiel"],
        help="opponents (default: all three)",
    )
    parser.add_argument("--seed", type=seed_int, default=0, help="base seed (default: 0)")
    args = parser.parse_args()
    if args.games < 1 or not 0 < args.time <= 60:
        parser.error("--games must be >= 1 and --time in (0, 60]")
    against = args.against
    if "openspiel" in against and not pyspiel_installed():
        against = [key for key in against if key != "openspiel"]
        if not against:
            parser.error("--against openspiel: pyspiel is not installed (pip install '.[bench]')")
        print("skipping openspiel: pyspiel is not installed (pip install '.[bench]')", file=sys.stderr)

    rivals: dict[str, Callable[[], Agent]] = {
        "random": lambda: RandomAgent(seed=args.seed + 1),
        "alphabeta4": lambda: AlphaBetaAgent(4, seed=args.seed + 1),
        "openspiel": lambda: OpenSpielMCTS(args.time, seed=args.seed + 1),
    }
    MCTSAgent(simulations=100, seed=0).search(GameState.initial())  # compile before the clock matters
    rows = []
    for key in against:
        rival = rivals[key]()
        t = time.perf_counter()
        w, d, losses, margin, sims = run_match(
            lambda: MCTSAgent(time_limit=args.time, seed=args.seed), rival, args.games, rival.name
        )
        rows.append((rival.name, w, d, losses, margin, sims, time.perf_counter() - t))

    print()
    print(f"MCTSAgent(time_limit={args.time:g}) strength, {args.games} games per opponent, colours alternated")
    print(f"({os.cpu_count()} cores, Python {sys.version.split()[0]})")
    print("anchor: the opponent's score in the same games; ratio: MCTS's score / the anchor's")
    header = (
        f"| {'opponent':<22} | {'W-D-L':<9} | {'score':>6} | {'95 % interval':<15} "
        f"| {'anchor':>6} | {'ratio':>6} | {'disc diff':>9} | {'sims/move':>9} |"
    )
    print(header)
    print("|" + "|".join("-" * (len(c)) for c in header.split("|")[1:-1]) + "|")
    for name, w, d, losses, margin, sims, _ in rows:
        n = w + d + losses
        score = w + 0.5 * d
        lo, hi = wilson_interval(score, n)
        anchor = n - score
        ratio = f"{score / anchor:5.2f}x" if anchor else "   inf"
        print(
            f"| {name:<22} | {f'{w}-{d}-{losses}':<9} | {100 * score / n:5.1f}% | {100 * lo:5.1f}% - {100 * hi:5.1f}% "
            f"| {100 * anchor / n:5.1f}% | {ratio:>6} | {margin:+9.1f} | {sims:9,.0f} |"
        )


if __name__ == "__main__":
    main()
