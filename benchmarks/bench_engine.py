"""Playing strength of our engines against GRhino at every level and the ladder,
side by side with the targets: each engine meets each opponent from random
2-ply openings, every opening twice with the colours swapped.

GRhino is Debian's ``grhino`` package (``apt-get install grhino``); it plays at
``-l LEVEL -b 0 -r 0`` (no opening book, no randomness). Every game goes through
``agents.play.match.play_game``, so our engine meets GRhino exactly as in
``reversi play`` and ``reversi arena``.

    python benchmarks/bench_engine.py --engine alphabeta:time=1 --engine mcts:time=1 --levels 5 --games 20
    python benchmarks/bench_engine.py --engine mcts:time=0.2 --levels 1 2 3 4 5 --ladder --games 10
"""

from __future__ import annotations

import argparse
import shutil
import sys
import time
from dataclasses import dataclass

from tqdm import tqdm

from agents.arena.ratings import wilson_interval
from agents.arena.tournament import random_openings
from agents.play.match import play_game
from agents.play.specs import make_agent

GRHINO = "/usr/games/gtp-rhino"
LADDER = ("positional", "alphabeta:2", "alphabeta:4")
# The bar: >= 90 % against GRhino's strongest level at 1 s a move.
TARGETS = {f"gtp:{GRHINO} -l 5 -b 0 -r 0": 0.90}


@dataclass
class Tally:
    """One engine against one opponent: wins, draws, losses, disc difference, thinking time."""

    wins: int = 0
    draws: int = 0
    losses: int = 0
    discs: int = 0
    seconds: float = 0.0
    moves: int = 0

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def points(self) -> float:
        return self.wins + self.draws / 2


def play_pairing(engine: str, opponent: str, games: int, seed: int, time_limit: float) -> Tally:
    """``games`` games of ``engine`` against ``opponent`` from 2-ply openings, colours swapped."""
    tally = Tally()
    openings = random_openings(games // 2, 2, seed=seed)
    bar = tqdm(total=2 * len(openings), desc=f"{engine} vs {opponent}", leave=False, file=sys.stderr)
    for i, opening in enumerate(openings):
        for engine_colour in (0, 1):
            ours = make_agent(engine, engine_colour, seed=seed + i)
            theirs = make_agent(opponent, 1 - engine_colour, seed=seed + i)
            players = (ours, theirs) if engine_colour == 0 else (theirs, ours)
            try:
                result = play_game(players[0], players[1], time_limit=time_limit, start=opening.state())
            finally:
                for p in players:
                    close = getattr(p, "close", None)
                    if callable(close):
                        close()
            ours_name = "black" if engine_colour == 0 else "white"
            if result.winner == ours_name:
                tally.wins += 1
            elif result.winner == "draw":
                tally.draws += 1
            else:
                tally.losses += 1
            tally.discs += result.disc_difference if engine_colour == 0 else -result.disc_difference
            mine = [t for k, t in enumerate(result.times) if k % 2 == engine_colour]
            tally.seconds += sum(mine)
            tally.moves += len(mine)
            bar.update()
    bar.close()
    return tally


def main() -> None:
    """Play every engine against every opponent and print the table."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--engine", action="append", metavar="SPEC", help="our engine (repeatable)")
    parser.add_argument("--levels", type=int, nargs="*", default=[1, 2, 3, 4, 5], help="GRhino levels (1-5)")
    parser.add_argument("--ladder", action="store_true", help=f"also play the ladder: {', '.join(LADDER)}")
    parser.add_argument("--games", type=int, default=20, help="games per pairing (even; default 20)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--time-limit", type=float, default=60.0, help="a move slower than this loses")
    args = parser.parse_args()
    engines = args.engine or ["alphabeta:time=1", "mcts:time=1"]
    if args.games < 2 or args.games % 2:
        parser.error("--games must be a positive even number")
    opponents = []
    if args.levels:
        if shutil.which(GRHINO) is None:
            parser.error(f"{GRHINO} not found: apt-get install grhino (or pass --levels with nothing after it)")
        opponents += [f"gtp:{GRHINO} -l {level} -b 0 -r 0" for level in args.levels]
    if args.ladder:
        opponents += list(LADDER)
    print(f"{args.games} games a pairing from 2-ply random openings, colours swapped, seed {args.seed}")
    header = (
        f"{'engine':<22} {'opponent':<34} {'W-D-L':>9} {'score':>7} {'95% CI':>15} {'target':>7} "
        f"{'discs':>6} {'s/move':>7}"
    )
    print(header)
    print("-" * len(header))
    for engine in engines:
        for opponent in opponents:
            start = time.perf_counter()
            t = play_pairing(engine, opponent, args.games, args.seed, args.time_limit)
            lo, hi = wilson_interval(t.points, t.games)
            target = TARGETS.get(opponent)
            shown = opponent.replace(f"gtp:{GRHINO}", "gtp-rhino")
            print(
                f"{engine:<22} {shown:<34} {f'{t.wins}-{t.draws}-{t.losses}':>9} {t.points / t.games:>6.1%} "
                f"{f'{lo:.0%}-{hi:.0%}':>15} {f'{target:.0%}' if target else '':>7} {t.discs / t.games:>+6.1f} "
                f"{t.seconds / max(t.moves, 1):>7.2f}",
                flush=True,
            )
            print(f"  ({time.perf_counter() - start:.0f} s)", file=sys.stderr)


if __name__ == "__main__":
    main()
