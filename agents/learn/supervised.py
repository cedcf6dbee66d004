"""Warm-start data: positions labelled by the alpha-beta search, as AlphaGo
started from expert games before self-play.

Games start from a random 2-ply opening; at each position the alpha-beta
search (``agents.search.alphabeta.search_root``, exact once the end is within
its depth) scores every move. The policy target is uniform over the best moves;
the move played is one of them, or with probability ``epsilon`` a random legal
move (so the data covers positions strong players avoid). The value target is
the game's final result for the mover (+1 win, 0 draw, -1 loss): AlphaZero's z.
Forced passes are left out (nothing to learn).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from agents.learn.network import NUM_ACTIONS
from agents.learn.training import Samples
from agents.search.alphabeta import new_stats, search_root
from agents.search.evaluation import DISC, HAND_EVALUATION
from agents.search.tt import clear_table, new_table
from reversi_env.bitboard import INITIAL_BLACK, INITIAL_WHITE, U1, legal_moves, play

OPENING_PLIES = 2


def labelled_game(depth: int, epsilon: float, rng: np.random.Generator) -> Samples:
    """One game of alpha-beta (``depth`` plies) with ``epsilon`` random moves,
    every non-pass position labelled with the best moves and the final result."""
    p, o, ply = INITIAL_BLACK, INITIAL_WHITE, 0
    movers: list[np.uint64] = []
    opponents: list[np.uint64] = []
    policies: list[np.ndarray] = []
    sides: list[int] = []  # +1 when the mover is the game's first player
    side = 1
    table = new_table(1 << 16)
    while True:
        m = legal_moves(p, o)
        if m == 0:
            if legal_moves(o, p) == 0:
                break
            p, o, side = o, p, -side
            continue
        legal = [sq for sq in range(64) if (m >> np.uint64(sq)) & U1]
        if ply < OPENING_PLIES:
            move = int(rng.choice(legal))
        else:
            clear_table(table)  # each position searched afresh, as a fixed-depth ladder level does
            root = search_root(p, o, depth, legal, table, new_stats(DISC), HAND_EVALUATION, exact_all=True)
            best_moves = root.best_moves()
            target = np.zeros(NUM_ACTIONS, dtype=np.float32)
            target[best_moves] = 1.0 / len(best_moves)
            movers.append(p)
            opponents.append(o)
            policies.append(target)
            sides.append(side)
            move = int(rng.choice(legal)) if rng.random() < epsilon else int(rng.choice(best_moves))
        p, o = (np.uint64(x) for x in play(p, o, np.int64(move)))  # numba returns Python ints
        side, ply = -side, ply + 1
    # The loop ends with (p, o) at the final position, ``side`` the sign of p's owner.
    first_player_result = float(np.sign(int(p).bit_count() - int(o).bit_count())) * side
    values = np.array(sides, dtype=np.float32) * np.float32(first_player_result)
    n = len(movers)
    return Samples(
        np.array(movers, dtype=np.uint64),
        np.array(opponents, dtype=np.uint64),
        np.array(policies, dtype=np.float32).reshape(n, NUM_ACTIONS),
        values,
    )


def labelled_positions(
    count: int,
    depth: int = 6,
    epsilon: float = 0.1,
    seed: int = 0,
    progress: Callable[[int], None] | None = None,
) -> Samples:
    """At least ``count`` labelled positions from whole games, reproducible from
    ``seed``; ``progress(n)`` is told how many each finished game added."""
    rng = np.random.default_rng(seed)
    parts: list[Samples] = []
    total = 0
    while total < count:
        game = labelled_game(depth, epsilon, rng)
        parts.append(game)
        total += len(game)
        if progress is not None:
            progress(len(game))
    return Samples.concat(parts)
