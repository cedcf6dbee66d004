"""Exact endgame solver: negamax alpha-beta to the end of the game, in numba.

One solver shared by ``AlphaBetaAgent`` (its exact endgame) and ``MCTSAgent``
(its ``endgame_exact`` root solve). Scores are final disc differences from the
side of the player to move (mover's discs minus the opponent's, empty squares
counted for nobody, as everywhere in this project), so the best move is the one
that maximises the final disc difference, not merely one that wins.

A node budget lets a caller with a clock give up cleanly: the search stops
once it has visited ``node_limit`` nodes and reports that it did not finish.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from reversi_env.bitboard import U0, U1, flips, legal_moves, lowest_square, popcount
from reversi_env.notation import PASS
from reversi_env.state import GameState

SCORE_MAX = 64
"""The largest possible final disc difference."""

NO_LIMIT = np.int64(2**62)
"""A node budget that is never reached."""

_ORDER_MIN_EMPTIES = 7
"""From this many empty squares up, moves are searched fewest-opponent-replies
first ("fastest first"); below it ordering costs more than it saves."""

_CORNERS = np.uint64(0x8100000000000081)

# Per-call scratch layout: stats[0] nodes visited, stats[1] node budget.
_NODES = 0
_LIMIT = 1


@njit(cache=True)
def _final(p: np.uint64, o: np.uint64) -> np.int64:
    return np.int64(popcount(p)) - np.int64(popcount(o))


@njit(cache=True)
def _last_square(p: np.uint64, o: np.uint64, sq: np.uint64) -> np.int64:
    """Exact score with exactly one empty square ``sq`` (the hottest case)."""
    f = flips(p, o, sq)
    if f != U0:
        return np.int64(popcount(p | f)) + 1 - np.int64(popcount(o ^ f))
    f = flips(o, p, sq)
    if f != U0:
        return np.int64(popcount(p ^ f)) - 1 - np.int64(popcount(o | f))
    return _final(p, o)


@njit(cache=True)
def solve(p: np.uint64, o: np.uint64, alpha: np.int64, beta: np.int64, stats: np.ndarray, buf: np.ndarray) -> np.int64:
    """Fail-soft negamax value of ``(p, o)`` within ``(alpha, beta)``: the final
    disc difference for the mover under perfect play. ``stats`` is int64
    ``[nodes, node_limit]``; when ``nodes`` passes the limit the result is
    meaningless and the caller must check. ``buf`` is int64 scratch (65, 68)."""
    stats[_NODES] += 1
    if stats[_NODES] > stats[_LIMIT]:
        return np.int64(0)
    empty = ~(p | o)
    if empty != U0 and (empty & (empty - U1)) == U0:
        return _last_square(p, o, lowest_square(empty))
    m = legal_moves(p, o)
    if m == U0:
        if legal_moves(o, p) == U0:
            return _final(p, o)
        return -solve(o, p, -beta, -alpha, stats, buf)
    best = np.int64(-SCORE_MAX - 1)
    n_empty = np.int64(popcount(empty))
    if n_empty < _ORDER_MIN_EMPTIES:
        while m != U0:
            sq = lowest_square(m)
            m &= m - U1
            f = flips(p, o, sq)
            v = -solve(o ^ f, p | f | (U1 << sq), -beta, -alpha, stats, buf)
            if v > best:
                best = v
                if v > alpha:
                    alpha = v
                    if alpha >= beta:
                        break
        return best
    # Fastest first: fewest opponent replies (corners count as one fewer), kept
    # in row ``n_empty`` of the scratch buffer: squares in 0..33, keys in 34..67.
    k = 0
    while m != U0:
        sq = lowest_square(m)
        m &= m - U1
        f = flips(p, o, sq)
        key = np.int64(popcount(legal_moves(o ^ f, p | f | (U1 << sq))))
        if (U1 << sq) & _CORNERS:
            key -= 1
        j = k
        while j > 0 and buf[n_empty, 34 + j - 1] > key:
            buf[n_empty, j] = buf[n_empty, j - 1]
            buf[n_empty, 34 + j] = buf[n_empty, 34 + j - 1]
            j -= 1
        buf[n_empty, j] = np.int64(sq)
        buf[n_empty, 34 + j] = key
        k += 1
    for i in range(k):
        sq = np.uint64(buf[n_empty, i])
        f = flips(p, o, sq)
        v = -solve(o ^ f, p | f | (U1 << sq), -beta, -alpha, stats, buf)
        if v > best:
            best = v
            if v > alpha:
                alpha = v
                if alpha >= beta:
                    break
    return best


def new_scratch(node_limit: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Fresh ``(stats, buf)`` for ``solve`` with a node budget (None: unlimited)."""
    stats = np.array([0, NO_LIMIT if node_limit is None else node_limit], dtype=np.int64)
    return stats, np.zeros((65, 68), dtype=np.int64)


@njit(cache=True, nogil=True)  # searches release the GIL, so a GUI thread keeps running
def solve_root(p: np.uint64, o: np.uint64, node_limit: np.int64, scores: np.ndarray, exact: np.ndarray) -> np.int64:
    """Score every legal move at the root: ``scores[a]`` is exact where
    ``exact[a]`` is set (the best move and every move tied with it), else an
    upper bound below the best. Returns the nodes visited, or -1 if the budget
    ran out first. Unchecked: the mover must have a placement."""
    stats = np.zeros(2, dtype=np.int64)
    stats[_LIMIT] = node_limit
    buf = np.zeros((65, 68), dtype=np.int64)
    scores[:] = -SCORE_MAX - 1
    exact[:] = False
    m = legal_moves(p, o)
    best = np.int64(-SCORE_MAX - 1)
    while m != U0:
        sq = lowest_square(m)
        m &= m - U1
        f = flips(p, o, sq)
        # Window (best - 1, +inf): a move tied with the best gets its exact value.
        v = -solve(o ^ f, p | f | (U1 << sq), np.int64(-SCORE_MAX - 1), -(best - 1), stats, buf)
        if stats[_NODES] > stats[_LIMIT]:
            return np.int64(-1)
        scores[sq] = v
        if v > best - 1:
            exact[sq] = True
        if v > best:
            best = v
    for a in range(64):
        if exact[a] and scores[a] < best:
            exact[a] = False
    return stats[_NODES]


@dataclass(frozen=True)
class EndgameSolution:
    """The exact result of a position: the best final disc difference for the
    player to move and every move that reaches it."""

    score: int
    best_actions: tuple[int, ...]
    nodes: int


def solve_position(state: GameState, node_limit: int | None = None) -> EndgameSolution | None:
    """Solve ``state`` exactly (checked front door). Returns None if
    ``node_limit`` nodes were not enough. A forced pass is the single best
    action; a finished game has no action and its final score."""
    if not isinstance(state, GameState):
        raise TypeError(f"solve_position needs a GameState, got {type(state).__name__}")
    if node_limit is not None and (isinstance(node_limit, bool) or not isinstance(node_limit, int) or node_limit < 1):
        raise ValueError(f"node_limit must be a positive int or None, got {node_limit!r}")
    p, o = state.kernel_boards()
    if state.is_terminal():
        return EndgameSolution(int(_final(p, o)), (), 1)
    limit = NO_LIMIT if node_limit is None else np.int64(node_limit)
    if state.moves_bitboard == 0:
        stats, buf = new_scratch(int(limit))
        v = -int(solve(o, p, np.int64(-SCORE_MAX - 1), np.int64(SCORE_MAX + 1), stats, buf))
        return None if stats[_NODES] > stats[_LIMIT] else EndgameSolution(v, (PASS,), int(stats[_NODES]))
    scores = np.empty(64, dtype=np.int64)
    exact = np.zeros(64, dtype=np.bool_)
    nodes = int(solve_root(p, o, limit, scores, exact))
    if nodes < 0:
        return None
    best = tuple(int(a) for a in np.flatnonzero(exact))
    return EndgameSolution(int(scores[best[0]]), best, nodes)
