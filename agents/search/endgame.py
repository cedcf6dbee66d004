"""The exact endgame solver: the alpha-beta core (``agents.search.alphabeta``) in its exact mode.

A solve first settles win / loss / draw with a narrow window around zero (it
fills the transposition table cheaply), then finds the exact score of every
best move. Scores are final disc differences for the player to move, counted
as the course counts them (``scoring="count"``: empty squares left at the end
count for nobody, the project's default) or as the world federation does
(``scoring="wof"``: they go to the winner, the convention of the FFO test
positions and of Edax and Zebra).

A node budget lets a caller with a clock give up cleanly: the solve returns
None once it has visited ``node_limit`` nodes.
"""

from __future__ import annotations

from contextlib import nullcontext
from dataclasses import dataclass

import numpy as np
from numba import njit

from agents.search.alphabeta import (
    EXACT_DEPTH,
    INF,
    LIMIT,
    NODES,
    STOP,
    new_scratch,
    new_stats,
    pvs,
    score_moves,
    search_root,
)
from agents.search.evaluation import DISC, HAND_EVALUATION, Evaluation, hand_evaluate
from agents.search.lastmoves import SCORE_MAX, final_score
from agents.search.timecontrol import StopClock
from agents.search.tt import clear_table, new_table, probe
from reversi_env.bitboard import U0, U1, legal_moves, lowest_square
from reversi_env.notation import PASS
from reversi_env.state import GameState

SCORINGS = ("count", "wof")
"""``count``: the raw final disc difference (default); ``wof``: empty squares go to the winner."""

TABLE_ENTRIES = 1 << 20
"""The solver's transposition table: 1 M entries, 24 MB."""

PRESEARCH_FIRST_DEPTH = 2
PRESEARCH_SHORT = 12
PRESEARCH_MAX_DEPTH = 8
"""Before an exact solve the root is searched heuristically from depth 2 up to
``PRESEARCH_SHORT`` plies short of the end (at most ``PRESEARCH_MAX_DEPTH``), two
plies at a time, for move ordering."""

__all__ = ["SCORE_MAX", "SCORINGS", "EndgameSolution", "Solver", "exact_best", "solve_position", "solve_root"]


@dataclass(frozen=True)
class EndgameSolution:
    """The exact result of a position: the best final disc difference for the
    player to move, every move that reaches it, and the nodes searched."""

    score: int
    best_actions: tuple[int, ...]
    nodes: int


class Solver:
    """An exact solver with its own transposition table, kept between solves
    (positions of one game share much of their trees)."""

    def __init__(self, table_entries: int = TABLE_ENTRIES, evaluation: Evaluation = HAND_EVALUATION) -> None:
        """``table_entries``: the size of the transposition table; ``evaluation``:
        what orders the moves high in the tree (a better one makes a faster solver)."""
        self.table = new_table(table_entries)
        self.buf = new_scratch()
        self.evaluation = evaluation
        self._scoring = SCORINGS[0]

    def _use_scoring(self, scoring: str) -> None:
        """Check ``scoring``; the table's exact scores hold for one rule, so a new rule clears it."""
        if scoring not in SCORINGS:
            raise ValueError(f"scoring must be one of {', '.join(SCORINGS)}, got {scoring!r}")
        if scoring != self._scoring:
            clear_table(self.table)
            self._scoring = scoring

    def solve(
        self,
        state: GameState,
        *,
        scoring: str = "count",
        node_limit: int | None = None,
        time_limit: float | None = None,
    ) -> EndgameSolution | None:
        """Solve ``state`` exactly; None if ``node_limit`` nodes or ``time_limit``
        seconds were not enough. A forced pass is the single best action; a
        finished game has none."""
        if not isinstance(state, GameState):
            raise TypeError(f"solve needs a GameState, got {type(state).__name__}")
        self._use_scoring(scoring)
        if node_limit is not None and (
            isinstance(node_limit, bool) or not isinstance(node_limit, int) or node_limit < 1
        ):
            raise ValueError(f"node_limit must be a positive int or None, got {node_limit!r}")
        wof = scoring == "wof"
        p, o = state.kernel_boards()
        if state.is_terminal():
            return EndgameSolution(int(final_score(p, o, wof)), (), 1)
        stats = new_stats(1, wof=wof, node_limit=node_limit)
        with StopClock(stats, STOP, time_limit) if time_limit is not None else nullcontext():
            return self._solve(state, p, o, stats)

    def _solve(self, state: GameState, p: np.uint64, o: np.uint64, stats: np.ndarray) -> EndgameSolution | None:
        if legal_moves(p, o) == 0:
            v = -int(self._pvs(o, p, -SCORE_MAX - 1, SCORE_MAX + 1, stats))
            return None if stats[STOP] else EndgameSolution(v, (PASS,), int(stats[NODES]))
        # Win / loss / draw first (cheap, and it fills the table with good moves),
        # then the exact value, then which moves reach it.
        self._presearch(p, o, state.num_empty(), stats)
        wld = self._pvs(p, o, -1, 1, stats)
        # Bisect the side it fell on with null windows: each test is a cheap proof
        # that the value is at least t or below it, where a wide window is not.
        low, high = (wld, SCORE_MAX) if wld > 0 else (-SCORE_MAX, wld) if wld < 0 else (0, 0)
        while low < high and not stats[STOP]:
            t = (low + high + 1) // 2
            r = self._pvs(p, o, t - 1, t, stats)
            low, high = (min(r, high), high) if r >= t else (low, max(r, low))
        value = low
        order = self._order(p, o, state.legal_actions())
        root = search_root(p, o, EXACT_DEPTH, order, self.table, stats, self.evaluation, known=value, buf=self.buf)
        if not root.completed:
            return None
        best = tuple(root.best_moves())
        return EndgameSolution(root.scores[best[0]], best, int(stats[NODES]))

    def score_all(self, state: GameState, *, scoring: str = "count") -> dict[int, int]:
        """The exact score of every legal placement (a hint with scores)."""
        if not isinstance(state, GameState):
            raise TypeError(f"score_all needs a GameState, got {type(state).__name__}")
        self._use_scoring(scoring)
        p, o = state.kernel_boards()
        stats = new_stats(1, wof=scoring == "wof")
        order = self._order(p, o, state.legal_actions())
        root = search_root(p, o, EXACT_DEPTH, order, self.table, stats, self.evaluation, exact_all=True, buf=self.buf)
        return root.scores

    def _pvs(
        self, p: np.uint64, o: np.uint64, alpha: int, beta: int, stats: np.ndarray, depth: int = EXACT_DEPTH
    ) -> int:
        ev = self.evaluation
        return int(
            pvs(p, o, np.int64(depth), np.int64(alpha), np.int64(beta), self.table, stats, self.buf,
                ev.function, ev.weights)
        )  # fmt: skip

    def _presearch(self, p: np.uint64, o: np.uint64, n_empty: int, stats: np.ndarray) -> None:
        """Deepening heuristic searches that leave a best move in the table for the
        upper part of the tree (their depths stay short of the end, so none of
        their scaled values passes for an exact one)."""
        midgame = new_stats(DISC, node_limit=int(stats[LIMIT]))
        for depth in range(PRESEARCH_FIRST_DEPTH, min(n_empty - PRESEARCH_SHORT, PRESEARCH_MAX_DEPTH) + 1, 2):
            self._pvs(p, o, -INF, INF, midgame, depth)
        stats[NODES] += midgame[NODES]
        stats[STOP] |= midgame[STOP]

    def _order(self, p: np.uint64, o: np.uint64, actions: list[int]) -> list[int]:
        """The root moves, the table's best move (from the win/loss/draw pass) first."""
        found, _, _, _, move = probe(self.table, p, o)
        if found and int(move) in actions:
            return [int(move)] + [a for a in actions if a != int(move)]
        return list(actions)


def solve_position(
    state: GameState, node_limit: int | None = None, *, scoring: str = "count"
) -> EndgameSolution | None:
    """Solve ``state`` exactly with a fresh table (checked front door). Returns
    None if ``node_limit`` nodes were not enough."""
    small = isinstance(state, GameState) and state.num_empty() <= 14  # a small table is enough
    return Solver(1 << 16 if small else TABLE_ENTRIES).solve(state, scoring=scoring, node_limit=node_limit)


def solve_root(p: np.uint64, o: np.uint64, node_limit: np.int64, scores: np.ndarray, exact: np.ndarray) -> int:
    """Score every legal move at the root (disc differences, count scoring):
    ``scores[a]`` is exact where ``exact[a]`` is set (the best move and every
    move tied with it), else an upper bound below the best. Returns the nodes
    visited, or -1 if the budget ran out first. Unchecked: the mover must have
    a placement. (The searches run without the GIL.)"""
    table = new_table(1 << 16)
    stats = new_stats(1, node_limit=int(node_limit))
    actions = [a for a in range(64) if (int(legal_moves(p, o)) >> a) & 1]
    root = search_root(p, o, EXACT_DEPTH, actions, table, stats, HAND_EVALUATION)
    scores[:] = -SCORE_MAX - 1
    exact[:] = False
    if not root.completed:
        return -1
    top = max(root.scores.values())
    for a, v in root.scores.items():
        scores[a] = v
        exact[a] = v == top
    return int(stats[NODES])


@njit(cache=True, nogil=True)
def exact_best(
    p: np.uint64,
    o: np.uint64,
    table: np.ndarray,
    stats: np.ndarray,
    buf: np.ndarray,
    scores: np.ndarray,
    weights: np.ndarray,
) -> np.uint64:
    """``solve_root`` for numba callers (self-play labelling): the lowest best
    square of ``(p, o)``, whose exact final disc difference (count scoring) is
    then ``scores[square]``. ``table``, ``stats`` (``new_stats(1)``), ``buf``
    (``new_scratch()``) and the hand evaluation's ``weights`` are the caller's,
    reused from call to call. Unchecked: the mover must have a placement."""
    m = legal_moves(p, o)
    order = np.empty(64, dtype=np.int64)
    n = 0
    while m != U0:
        order[n] = np.int64(lowest_square(m))
        n += 1
        m &= m - U1
    scores[:] = -INF
    best = score_moves(
        p, o, np.int64(EXACT_DEPTH), order[:n].copy(), scores, False, -INF, table, stats, buf, hand_evaluate, weights
    )
    for i in range(n):
        if scores[order[i]] == best:
            return np.uint64(order[i])
    return np.uint64(order[0])
