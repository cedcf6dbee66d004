"""The baseline ladder: random, greedy, positional and alpha-beta players.

Every agent takes the PettingZoo observation, rebuilds the position with
``agents.base.state_to_move`` and breaks ties between equally good moves with
its own seeded RNG, so a seed fixes its games.

The graded "system AI" ladder is ``ladder_agent(level)`` for level 1 to
``MAX_LEVEL``: ``AlphaBetaAgent(depth=level)``, each level searching one ply
deeper (and solving the endgame exactly from a few more empty squares) than the
one below. ``RandomAgent``, ``GreedyAgent`` and ``PositionalAgent`` sit below
level 1.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from agents.base import state_to_move
from agents.search.endgame import SCORE_MAX, solve, solve_root
from reversi_env.bitboard import U0, U1, flips, legal_moves, lowest_square, popcount
from reversi_env.notation import PASS
from reversi_env.observation import Observation
from reversi_env.state import GameState

SQUARE_WEIGHTS = np.array(
    [
        [100, -20, 10, 5, 5, 10, -20, 100],
        [-20, -50, -2, -2, -2, -2, -50, -20],
        [10, -2, -1, -1, -1, -1, -2, 10],
        [5, -2, -1, -1, -1, -1, -2, 5],
        [5, -2, -1, -1, -1, -1, -2, 5],
        [10, -2, -1, -1, -1, -1, -2, 10],
        [-20, -50, -2, -2, -2, -2, -50, -20],
        [100, -20, 10, 5, 5, 10, -20, 100],
    ],
    dtype=np.int64,
).reshape(64)
"""The classic square-weight table (index = row * 8 + col): corners are gold,
the squares next to them give corners away."""

MAX_LEVEL = 8
"""The deepest ladder level (``AlphaBetaAgent(depth=8)``)."""

EXACT_SCALE = 1000
"""An exact final disc difference counts this much per disc, more than any
heuristic evaluation (bounded by a few hundred), so a proven win beats a hope."""

_MOBILITY = 8
_CORNER_MOVE = 15
_CORNER_BITS = np.array([0, 7, 56, 63], dtype=np.uint64)
# The X- and C-squares of each corner: bad to hold while the corner is empty, neutral after.
_CORNER_NEIGHBOURS = np.array(
    [
        (1 << 1) | (1 << 8) | (1 << 9),
        (1 << 6) | (1 << 15) | (1 << 14),
        (1 << 57) | (1 << 48) | (1 << 49),
        (1 << 62) | (1 << 55) | (1 << 54),
    ],
    dtype=np.uint64,
)
_CORNERS = np.uint64(0x8100000000000081)
_MOVE_ORDER = np.argsort(-SQUARE_WEIGHTS, kind="stable").astype(np.int64)
"""Squares best-weighted first: the move order of the search (good moves early
make alpha-beta cut more)."""


@njit(cache=True)
def _weight_sum(m: np.uint64) -> np.int64:
    s = np.int64(0)
    while m != U0:
        s += SQUARE_WEIGHTS[lowest_square(m)]
        m &= m - U1
    return s


@njit(cache=True)
def evaluate(p: np.uint64, o: np.uint64) -> np.int64:
    """Heuristic value for the mover: square weights (X- and C-squares turn
    neutral once their corner is taken), mobility, and access to corners."""
    s = _weight_sum(p) - _weight_sum(o)
    occupied = p | o
    for i in range(4):
        if occupied & (U1 << _CORNER_BITS[i]):
            s -= _weight_sum(p & _CORNER_NEIGHBOURS[i]) - _weight_sum(o & _CORNER_NEIGHBOURS[i])
    mp = legal_moves(p, o)
    mo = legal_moves(o, p)
    s += _MOBILITY * (np.int64(popcount(mp)) - np.int64(popcount(mo)))
    s += _CORNER_MOVE * (np.int64(popcount(mp & _CORNERS)) - np.int64(popcount(mo & _CORNERS)))
    return s


@njit(cache=True)
def _exact_in_window(
    p: np.uint64, o: np.uint64, alpha: np.int64, beta: np.int64, stats: np.ndarray, buf: np.ndarray
) -> np.int64:
    # Map the scaled window onto disc differences, rounding outwards so that
    # fail-high / fail-low keep their meaning after scaling back.
    a = max(alpha // EXACT_SCALE, np.int64(-SCORE_MAX - 1))
    b = min(-((-beta) // EXACT_SCALE), np.int64(SCORE_MAX + 1))
    return solve(p, o, a, b, stats, buf) * EXACT_SCALE


@njit(cache=True)
def negamax(
    p: np.uint64,
    o: np.uint64,
    depth: np.int64,
    alpha: np.int64,
    beta: np.int64,
    stats: np.ndarray,
    buf: np.ndarray,
) -> np.int64:
    """Fail-soft alpha-beta value of ``(p, o)`` for the mover, ``depth`` plies
    deep (a pass costs no ply); exact (scaled by EXACT_SCALE) at the end of the
    game, and by the endgame solver once ``depth`` reaches the end anyway."""
    stats[0] += 1
    m = legal_moves(p, o)
    if m == U0:
        if legal_moves(o, p) == U0:
            return (np.int64(popcount(p)) - np.int64(popcount(o))) * EXACT_SCALE
        return -negamax(o, p, depth, -beta, -alpha, stats, buf)
    if 64 - np.int64(popcount(p | o)) <= depth:
        return _exact_in_window(p, o, alpha, beta, stats, buf)
    if depth <= 0:
        return evaluate(p, o)
    best = np.int64(-(2**62))
    for i in range(64):
        sq = np.uint64(_MOVE_ORDER[i])
        if not (m >> sq) & U1:
            continue
        f = flips(p, o, sq)
        v = -negamax(o ^ f, p | f | (U1 << sq), depth - 1, -beta, -alpha, stats, buf)
        if v > best:
            best = v
            if v > alpha:
                alpha = v
                if alpha >= beta:
                    break
    return best


@njit(cache=True, nogil=True)  # searches release the GIL, so a GUI thread keeps running
def negamax_root(p: np.uint64, o: np.uint64, depth: np.int64, scores: np.ndarray) -> np.int64:
    """Score every legal placement: ``scores[a]`` is exact for the best move and
    every move tied with it, an upper bound below the best for the others.
    Returns the nodes searched. Unchecked: the mover must have a placement."""
    stats = np.zeros(2, dtype=np.int64)
    stats[1] = np.int64(2**62)
    buf = np.zeros((65, 68), dtype=np.int64)
    m = legal_moves(p, o)
    best = np.int64(-(2**62))
    for i in range(64):
        sq = np.uint64(_MOVE_ORDER[i])
        if not (m >> sq) & U1:
            continue
        f = flips(p, o, sq)
        # Window (best - 1, +inf): a move tied with the best gets its exact value.
        v = -negamax(o ^ f, p | f | (U1 << sq), depth - 1, np.int64(-(2**62)), -(best - 1), stats, buf)
        scores[sq] = v
        if v > best:
            best = v
    return stats[0]


def _check_seed(seed: object) -> int | None:
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0):
        raise ValueError(f"seed must be a non-negative int or None, got {seed!r}")
    return None if seed is None else int(seed)


class _TieBreakingAgent:
    """Shared shape of the ladder agents: a name, a seeded RNG for ties, and
    ``act`` = the best-scored legal move (a forced pass is played at once)."""

    name: str

    def __init__(self, seed: int | None = None) -> None:
        self.seed = _check_seed(seed)
        self._rng = np.random.default_rng(self.seed)

    def act(self, observation: Observation) -> int:
        """The best move for the position the observation shows (ties at random)."""
        state = state_to_move(observation)
        if not state.moves_bitboard:
            return PASS
        best = self.best_actions(state)
        return int(best[0]) if len(best) == 1 else int(self._rng.choice(best))

    def best_actions(self, state: GameState) -> list[int]:
        """Every legal placement this agent scores best in ``state`` (sorted)."""
        if not isinstance(state, GameState):
            raise TypeError(f"best_actions needs a GameState, got {type(state).__name__}")
        if not state.moves_bitboard:
            return [PASS] if not state.is_terminal() else []
        actions = state.legal_actions()
        scores = self._scores(state, actions)
        top = max(scores)
        return [a for a, s in zip(actions, scores, strict=True) if s == top]

    def _scores(self, state: GameState, actions: list[int]) -> list[int]:
        return [0] * len(actions)


class RandomAgent(_TieBreakingAgent):
    """Uniformly random legal moves: the floor of the ladder."""

    def __init__(self, seed: int | None = None) -> None:
        """``seed`` fixes the moves (None: fresh entropy)."""
        super().__init__(seed)
        self.name = "random"


class GreedyAgent(_TieBreakingAgent):
    """The move that flips the most discs right now."""

    def __init__(self, seed: int | None = None) -> None:
        """``seed`` fixes how ties are broken."""
        super().__init__(seed)
        self.name = "greedy"

    def _scores(self, state: GameState, actions: list[int]) -> list[int]:
        p, o = state.kernel_boards()
        return [int(flips(p, o, np.uint64(a))).bit_count() for a in actions]


class PositionalAgent(_TieBreakingAgent):
    """The move that leaves the best square-weight balance (the classic table)."""

    def __init__(self, seed: int | None = None) -> None:
        """``seed`` fixes how ties are broken."""
        super().__init__(seed)
        self.name = "positional"

    def _scores(self, state: GameState, actions: list[int]) -> list[int]:
        p, o = state.kernel_boards()
        out = []
        for a in actions:
            f = flips(p, o, np.uint64(a))
            mine, theirs = p | f | (U1 << np.uint64(a)), o ^ f
            out.append(int(_weight_sum(mine)) - int(_weight_sum(theirs)))
        return out


class AlphaBetaAgent(_TieBreakingAgent):
    """Negamax alpha-beta ``depth`` plies deep on bitboards (numba), evaluated
    by square weights, mobility and corners. With ``exact_empties`` empty squares
    or fewer (default ``depth + 6``, at most 14) it solves the endgame exactly
    instead, maximising the final disc difference."""

    def __init__(self, depth: int = 4, *, seed: int | None = None, exact_empties: int | None = None) -> None:
        """``depth`` >= 1 plies; ``seed`` fixes how ties are broken."""
        if isinstance(depth, bool) or not isinstance(depth, (int, np.integer)) or not 1 <= depth <= 20:
            raise ValueError(f"depth must be an int from 1 to 20, got {depth!r}")
        if exact_empties is None:
            exact_empties = min(int(depth) + 6, 14)
        if isinstance(exact_empties, bool) or not isinstance(exact_empties, (int, np.integer)) or exact_empties < 0:
            raise ValueError(f"exact_empties must be a non-negative int, got {exact_empties!r}")
        super().__init__(seed)
        self.depth = int(depth)
        self.exact_empties = int(exact_empties)
        self.name = f"alphabeta-{self.depth}"

    def _scores(self, state: GameState, actions: list[int]) -> list[int]:
        p, o = state.kernel_boards()
        scores = np.full(64, -(2**62), dtype=np.int64)
        if state.num_empty() <= self.exact_empties:
            exact = np.zeros(64, dtype=np.bool_)
            solve_root(p, o, np.int64(2**62), scores, exact)
            scores *= EXACT_SCALE
        else:
            negamax_root(p, o, np.int64(self.depth), scores)
        return [int(scores[a]) for a in actions]


def ladder_agent(level: int, seed: int | None = None) -> AlphaBetaAgent:
    """Level ``level`` (1 to MAX_LEVEL) of the graded system-AI ladder:
    ``AlphaBetaAgent(depth=level)``, named ``level-<n>``."""
    if isinstance(level, bool) or not isinstance(level, (int, np.integer)) or not 1 <= level <= MAX_LEVEL:
        raise ValueError(f"ladder level must be an int from 1 to {MAX_LEVEL}, got {level!r}")
    agent = AlphaBetaAgent(int(level), seed=seed)
    agent.name = f"level-{int(level)}"
    return agent
