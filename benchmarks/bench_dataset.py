"""Reading a WTHOR file into training arrays, side by side with a plain Python replay, in one run.

    python benchmarks/bench_dataset.py [--games 10000] [--anchor-games 300] [--seed 0]

Writes a ``.wtb`` of ``--games`` seeded random games (in a temporary folder),
then times ``read_wtb`` + ``games_from_wthor`` + ``games_to_arrays`` on it
(the target: under 5 s for 10,000 games), with and without symmetry
augmentation, next to the obvious Python way: replay each game with
``GameState`` and ``observe`` every position (on ``--anchor-games`` of them,
its rate scaled to the whole file). Times are CPU seconds of this process
(``time.process_time``), so other load on a shared machine does not count.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import numpy as np

from agents.ui.options import positive_int, seed_int
from reversi_env import PASS, GameState
from reversi_env.dataset import games_from_wthor, games_to_arrays
from reversi_env.observation import observe
from reversi_env.wthor import WthorGame, read_wtb, replay, write_wtb


def random_games(n: int, seed: int) -> list[WthorGame]:
    """``n`` seeded uniformly random games, as WTHOR writes them (passes left out, empty squares to the winner)."""
    rng = np.random.default_rng(seed)
    games = []
    for _ in range(n):
        s, moves = GameState.initial(), []
        while not s.is_terminal():
            legal = s.legal_actions()
            a = legal[int(rng.integers(len(legal)))]
            if a != PASS:
                moves.append(a)
            s = s.apply(a)
        black, white = s.score()
        empty = 64 - black - white
        score = black + empty if black > white else (black if black < white else 32)
        games.append(WthorGame(tuple(moves), score))
    return games


def python_replay(games: list[WthorGame]) -> int:
    """The anchor: each game replayed with GameState, every mover's observation and move kept; rows made."""
    obs, masks, actions = [], [], []
    for game in games:
        s = GameState.initial()
        for a in replay(game.moves):
            if a != PASS:
                o = observe(s, s.player)
                obs.append(o["observation"])
                masks.append(o["action_mask"])
                actions.append(a)
            s = s.apply(a)
    np.stack(obs), np.stack(masks), np.array(actions)
    return len(actions)


def main() -> None:
    """Write the file, time both ways, print the table."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=positive_int, default=10000, help="games in the file (default 10000)")
    parser.add_argument(
        "--anchor-games", type=positive_int, default=300, help="games the Python replay times (default 300)"
    )
    parser.add_argument("--seed", type=seed_int, default=0, help="seed of the random games (default 0)")
    args = parser.parse_args()

    games = random_games(args.games, args.seed)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "WTH_2000.wtb"
        write_wtb(path, games, year=2000)
        games_to_arrays(games_from_wthor(read_wtb(path)))  # compile / load the kernels
        timings = {}
        for augment in (False, True):
            start = time.process_time()
            arrays = games_to_arrays(games_from_wthor(read_wtb(path)), augment=augment)
            timings[augment] = (time.process_time() - start, len(arrays["action"]))
    start = time.process_time()
    rows = python_replay(games[: args.anchor_games])
    anchor = (time.process_time() - start) / args.anchor_games * args.games

    ours, n = timings[False]
    print(f"{'WTHOR file into arrays, CPU seconds':44s} {'reversi-env':>12s} {'Python':>12s} {'ratio':>8s}")
    label = f"{args.games:,} games, {n:,} positions"
    print(f"{label:44s} {ours:12.2f} {anchor:12.2f} {anchor / ours:7.1f}x  (target < 5 s)")
    aug, n8 = timings[True]
    print(f"{f'  with 8 symmetries, {n8:,} rows':44s} {aug:12.2f}")
    print(f"  (the Python replay timed on {args.anchor_games} games, {rows:,} positions, and scaled)")


if __name__ == "__main__":
    main()
