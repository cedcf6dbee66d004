"""The exact endgame solver: the alpha-beta core (``agents.search.alphabeta``) in its exact mode.

A solve first estimates the score by short heuristic searches with the learned
pattern evaluation (they also leave good moves in the table), then finds the
exact score and a best move with windows starting around the estimate, then
(unless one best move is enough) tries every other move with one null window
at that score. Scores are final disc differences for the player to move, counted
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
from typing import Any

import numpy as np
from numba import njit

from agents.limits import SCORINGS
from agents.search.alphabeta import (
    EXACT_DEPTH,
    INF,
    NODES,
    SCALE,
    SELECTIVITY,
    STOP,
    WOF,
    best_square,
    new_scratch,
    new_stats,
    pvs,
    root_window,
    search_root,
    stoppable,
)
from agents.search.evaluation import DISC, HAND_EVALUATION, Evaluation
from agents.search.lastmoves import SCORE_MAX, final_score
from agents.search.patterns import pattern_evaluation
from agents.search.timecontrol import StopClock, StopSignal
from agents.search.tt import clear_table, new_table, probe
from reversi_env.bitboard import legal_moves
from reversi_env.notation import PASS
from reversi_env.state import GameState

TABLE_ENTRIES = 1 << 20
"""The solver's transposition table: 1 M entries, 24 MB."""

PRESEARCH_FIRST_DEPTH = 2
PRESEARCH_SHORT = 11
PRESEARCH_MAX_DEPTH = 10
"""Before an exact solve the root is searched heuristically with the learned
evaluation from depth 2 up to ``PRESEARCH_SHORT`` plies short of the end (at
most ``PRESEARCH_MAX_DEPTH``), two plies at a time: the score's estimate, and
moves for the ordering. 11 plies short rather than 12 searches an odd number of
empties two plies deeper (21 empties: depth 10, not 8), which orders the exact
search better: fewer nodes on FFO #20-#39 and on positions of engine games
(``bench_solver.py`` and ``bench_solver.py --games 40 --empties 21``)."""
PRESEARCH_SELECTIVITY = 150
"""The presearch is selective: ProbCut at 1.5 standard deviations (``stats[SELECTIVITY]``,
hundredths of one), as the engines' ``probcut=1.5``. Its depth-10 searches are for the
estimate and the order only, and full width they cost as much as the exact solve of an
easy position (FFO #39: 0.5 s of presearch, 1.1 M exact nodes)."""
ASPIRATION_WIDTH = 5
"""The first window of the exact search reaches this far either side of the
estimate (on FFO #21-#39 a width of 5 took 8 % fewer nodes and 10 % less time
than one of 9, and fewer than one of 3 or 7; on #40-#44 as many as 9). It is
about one standard deviation of the estimate's error (4-5 discs on FFO #20-#39
and on engine-game positions of 21 empties, ``bench_solver.py --games 40``),
so a weight set that errs more wants it wider."""

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

    def __init__(self, table_entries: int = TABLE_ENTRIES, evaluation: Evaluation | None = None) -> None:
        """``table_entries``: the size of the transposition table; ``evaluation``:
        what estimates the score and orders the moves high in the tree (a better
        one makes a faster solver), by default the learned pattern evaluation."""
        self.table = new_table(table_entries)
        self.buf = new_scratch()
        self.evaluation = pattern_evaluation() if evaluation is None else evaluation
        self._scoring = SCORINGS[0]
        self._stats: np.ndarray | None = None
        self._stopped = False

    def stop(self) -> None:
        """Stop the solve running on another thread, and every later one: they return
        None (how Ctrl-C ends ``reversi solve``, whose search holds no Python frame to interrupt)."""
        self._stopped = True
        if self._stats is not None:
            self._stats[STOP] = 1

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
        all_best: bool = True,
    ) -> EndgameSolution | None:
        """Solve ``state`` exactly; None if ``node_limit`` nodes or ``time_limit``
        seconds were not enough. ``best_actions`` holds every best move, or with
        ``all_best=False`` one of them (the field's standard, as Zebra and the
        FFO sheets give). A forced pass is the single best action; a finished
        game has none."""
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
        stats = self._stats = new_stats(1, wof=wof, node_limit=node_limit)
        stats[STOP] = self._stopped
        with StopClock(stats, STOP, time_limit) if time_limit is not None else nullcontext():
            return self._solve(state, p, o, stats, all_best)

    def _solve(
        self, state: GameState, p: np.uint64, o: np.uint64, stats: np.ndarray, all_best: bool
    ) -> EndgameSolution | None:
        if legal_moves(p, o) == 0:
            v = -int(self._pvs(o, p, -SCORE_MAX - 1, SCORE_MAX + 1, stats))
            return None if stats[STOP] else EndgameSolution(v, (PASS,), int(stats[NODES]))
        estimate = self._presearch(p, o, state.num_empty(), stats)
        order = self._order(p, o, state.legal_actions())
        value, move = self._aspiration(p, o, order, estimate, stats)
        if stats[STOP]:
            return None
        if not all_best:
            return EndgameSolution(value, (move,), int(stats[NODES]))
        # Every other move: one null window at the value says whether it reaches it.
        others = [a for a in order if a != move]
        root = search_root(p, o, EXACT_DEPTH, others, self.table, stats, self.evaluation, known=value, buf=self.buf)
        if not root.completed:
            return None
        best = tuple(sorted([move] + [a for a, v in root.scores.items() if v >= value]))
        return EndgameSolution(value, best, int(stats[NODES]))

    def _aspiration(
        self, p: np.uint64, o: np.uint64, order: list[int], estimate: int, stats: np.ndarray
    ) -> tuple[int, int]:
        """The exact value of the root and a move reaching it. The first window
        spans ``ASPIRATION_WIDTH`` either side of the estimate; if the value is
        outside, windows ``(t - 1, t + 1)`` (each says whether the value is below,
        at or above ``t``) gallop away from it until the value is bracketed, then
        bisect (fail-soft bounds narrow the range further). World-federation
        scores are even, so ``t`` stays even."""
        grid = 2 if stats[WOF] else 1
        low, high = -SCORE_MAX, SCORE_MAX
        low_move = -1
        t = min(max(estimate - estimate % grid, low), high)
        width = ASPIRATION_WIDTH
        step, last = 0, 0
        while low < high and not stats[STOP]:
            alpha, beta = max(t - width, low - 1), min(t + width, high + 1)
            r, move = root_window(p, o, order, alpha, beta, self.table, stats, self.evaluation, self.buf)
            order = [move] + [a for a in order if a != move]
            if alpha < r < beta:
                return r, move
            direction = 1 if r >= beta else -1
            width = 1
            if direction > 0:
                low, low_move = r, move
            else:
                high = r
            step = step * 2 + grid if direction == last else 0
            last = direction
            if low > -SCORE_MAX and high < SCORE_MAX and step == 0:
                t = low + (high - low) // (2 * grid) * grid  # bracketed: bisect
            else:
                t = low + step if direction > 0 else high - step
            t = min(max(t, low), high)
        if low_move < 0:  # only upper bounds were met, down to the lowest score
            low_move = root_window(p, o, order, low - 1, low, self.table, stats, self.evaluation, self.buf)[1]
        return low, low_move

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

    def _presearch(self, p: np.uint64, o: np.uint64, n_empty: int, stats: np.ndarray) -> int:
        """Deepening selective heuristic searches: their value
        is the estimate the exact search starts from, and they leave best moves
        in the table for the upper part of the tree (their depths stay short of
        the end, so none of their scaled values passes for an exact one)."""
        stats[SCALE] = DISC
        stats[SELECTIVITY] = PRESEARCH_SELECTIVITY
        value = 0
        for depth in range(PRESEARCH_FIRST_DEPTH, min(n_empty - PRESEARCH_SHORT, PRESEARCH_MAX_DEPTH) + 1, 2):
            value = self._pvs(p, o, -INF, INF, stats, depth)
        stats[SCALE] = 1
        stats[SELECTIVITY] = 0
        return round(value / DISC)

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


def solve_root(
    p: np.uint64,
    o: np.uint64,
    scores: np.ndarray,
    exact: np.ndarray,
    *,
    time_limit: float | None = None,
    stop: StopSignal | None = None,
) -> int:
    """Score every legal move at the root (disc differences, count scoring):
    ``scores[a]`` is exact where ``exact[a]`` is set (the best move and every
    move tied with it), else an upper bound below the best. Returns the nodes
    visited, or -1 if ``time_limit`` seconds (None: no limit) ran out first
    or ``stop`` (an agent's ``StopSignal``) ended it.
    Unchecked: the mover must have a placement. (The searches run without the GIL.)"""
    table = new_table(1 << 16)
    stats = new_stats(1)
    actions = [a for a in range(64) if (int(legal_moves(p, o)) >> a) & 1]
    with StopClock(stats, STOP, time_limit) if time_limit is not None else nullcontext(), stoppable(stats, stop):
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
    fn: Any,
    weights: np.ndarray,
) -> np.uint64:
    """``solve_root`` for numba callers (self-play labelling): the lowest best
    square of ``(p, o)``, whose exact final disc difference (count scoring) is
    then ``scores[square]``. ``table``, ``stats`` (``new_stats(1)``), ``buf``
    (``new_scratch()``) and the ordering evaluation (``fn``, ``weights``: an
    ``Evaluation``'s, passed down from Python so that the callers' compiled code
    can be cached) are the caller's, reused from call to call. Unchecked: the
    mover must have a placement."""
    return best_square(p, o, np.int64(EXACT_DEPTH), scores, table, stats, buf, fn, weights)
