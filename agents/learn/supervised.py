"""Warm-start data: positions labelled by the alpha-beta search, as AlphaGo
started from expert games before self-play.

Games start from a random 2-ply opening; at each position the alpha-beta
search (``agents.search.alphabeta.search_root``) with the learned pattern
evaluation (``agents.search.patterns``) scores every move ``depth`` plies deep,
or exactly to the end once ``exact_empties`` or fewer squares are empty. The
policy target is uniform over the best moves; the move played is one of them,
or with probability ``epsilon`` a random legal move (so the data covers
positions strong players avoid). The value target for the mover blends the
game's final result z (+1 win, 0 draw, -1 loss: AlphaZero's target, noisy
because of the random moves) with the search's own verdict, weight
``value_mix`` on z: ``tanh(margin / VALUE_SCALE)`` of the predicted disc
margin, or the sign of the exact result once the search reached the end.
Forced passes are left out (nothing to learn).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from agents.learn.network import NUM_ACTIONS
from agents.learn.network_training import Samples
from agents.search.alphabeta import EXACT_DEPTH, new_stats, search_root
from agents.search.evaluation import DISC
from agents.search.patterns import MCTS_SCALE, pattern_evaluation
from agents.search.tt import clear_table, new_table
from reversi_env.bitboard import INITIAL_BLACK, INITIAL_WHITE, U1, legal_moves, play

OPENING_PLIES = 2

VALUE_SCALE = MCTS_SCALE
"""Discs of predicted margin per unit of ``tanh`` in the search's value (the
pattern MCTS's scale: a 16-disc lead is worth 0.76)."""


def labelled_game(
    depth: int, epsilon: float, rng: np.random.Generator, exact_empties: int = 14, value_mix: float = 0.0
) -> Samples:
    """One game of alpha-beta (``depth`` plies, exact from ``exact_empties``) with
    ``epsilon`` random moves, every non-pass position labelled with the best
    moves and a value blending the final result and the search's score."""
    evaluation = pattern_evaluation()
    p, o, ply = INITIAL_BLACK, INITIAL_WHITE, 0
    movers: list[np.uint64] = []
    opponents: list[np.uint64] = []
    policies: list[np.ndarray] = []
    searched: list[float] = []  # the search's value for the mover
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
            empties = 64 - int(p | o).bit_count()
            exact = empties <= exact_empties or depth >= empties
            clear_table(table)  # each position searched afresh, as a fixed-depth ladder level does
            root = search_root(p, o, EXACT_DEPTH if exact else depth, legal, table, new_stats(DISC), evaluation)
            best_moves = root.best_moves()
            margin = root.scores[best_moves[0]] / DISC
            target = np.zeros(NUM_ACTIONS, dtype=np.float32)
            target[best_moves] = 1.0 / len(best_moves)
            movers.append(p)
            opponents.append(o)
            policies.append(target)
            searched.append(float(np.sign(margin)) if exact else math.tanh(margin / VALUE_SCALE))
            sides.append(side)
            move = int(rng.choice(legal)) if rng.random() < epsilon else int(rng.choice(best_moves))
        p, o = (np.uint64(x) for x in play(p, o, np.int64(move)))  # numba returns Python ints
        side, ply = -side, ply + 1
    # The loop ends with (p, o) at the final position, ``side`` the sign of p's owner.
    first_player_result = float(np.sign(int(p).bit_count() - int(o).bit_count())) * side
    results = np.array(sides, dtype=np.float32) * np.float32(first_player_result)
    values = value_mix * results + (1.0 - value_mix) * np.array(searched, dtype=np.float32)
    n = len(movers)
    return Samples(
        np.array(movers, dtype=np.uint64),
        np.array(opponents, dtype=np.uint64),
        np.array(policies, dtype=np.float32).reshape(n, NUM_ACTIONS),
        values.astype(np.float32),
    )


def labelled_positions(
    count: int,
    depth: int = 4,
    epsilon: float = 0.1,
    seed: int = 0,
    progress: Callable[[int], None] | None = None,
    exact_empties: int = 14,
    value_mix: float = 0.0,
) -> Samples:
    """At least ``count`` labelled positions from whole games, reproducible from
    ``seed``; ``progress(n)`` is told how many each finished game added."""
    rng = np.random.default_rng(seed)
    parts: list[Samples] = []
    total = 0
    while total < count:
        game = labelled_game(depth, epsilon, rng, exact_empties, value_mix)
        parts.append(game)
        total += len(game)
        if progress is not None:
            progress(len(game))
    return Samples.concat(parts)
