"""The one alpha-beta core: principal-variation search in numba, with the
evaluation and the move ordering as parameters and the exact endgame as a mode.

``pvs`` searches ``depth`` plies (a pass costs no ply) and evaluates the
leaves with the evaluation it is given (see ``agents.search.evaluation``).
Once ``depth`` reaches the number of empty squares the search is exact: it
plays to the end of the game, orders moves fastest-first (fewest replies for
the opponent, odd regions first), cuts on stable discs, and hands the last
``SHALLOW_EMPTIES`` squares to the unhashed kernels of
``agents.search.lastmoves``. Every exact node, and every midgame node with
2 plies or more to go, probes and stores the transposition table
(``agents.search.tt``), and (midgame: from ``ETC_DEPTH`` plies up; exact: from
``ETC_EMPTIES`` empties up) cuts when a child's stored bound already refutes it
(enhanced transposition cut-off). Nearer the leaves a table probe costs more
(a cache miss) than it saves: the last midgame ply (``_last_ply``, a loop of
its own) uses no table. Moves are tried TT move first, then by the evaluation
of the position they lead to (from ``ORDER_SEARCH_DEPTH`` plies up by a
shallow search of it), plus the opponent's mobility there, or near the leaves
by that mobility alone; in an exact tree fastest-first, with the evaluation of
the child joining high in the tree (the solver's presearch leaves the table
moves there; a short heuristic search at each exact node without one cost
more than it saved). The fixed-depth ladder levels, the timed iterative
deepening (with helper threads sharing the table and sharing out the moves,
simplified ABDADA; near the end asking win, loss or draw before the exact
score) and the exact solver (``agents.search.endgame``) are all this function
with different depths, windows and scales.

Scores are in units of ``stats[SCALE]`` per disc of final margin
(``evaluation.DISC`` for a heuristic search, 1 for the exact solver); the
search stops, returning garbage the caller discards, once ``stats[STOP]`` is
set, by the node budget ``stats[LIMIT]`` or by another thread (the clock).
"""

from __future__ import annotations

import threading
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from functools import partial

import numpy as np
from numba import njit, types
from numba.types import boolean, float32, int64, uint64

from agents.search.borrowed import borrowed
from agents.search.evaluation import DISC, EVAL_SIGNATURE, Evaluation
from agents.search.lastmoves import NODES, SCORE_MAX, SHALLOW_EMPTIES, final_score, odd_regions, solve_shallow
from agents.search.lastmoves import stable_discs as _stable_discs
from agents.search.timecontrol import StopClock, StopSignal, budget
from agents.search.tt import NO_MOVE, clear_busy, is_busy, mark_busy, prefetch, probe, store
from reversi_env.bitboard import U0, U1, flips, legal_moves, lowest_square, popcount

INF = np.int64(1 << 40)
"""Beyond any score."""

EXACT_DEPTH = 64
"""A depth that reaches the end of any game: the exact mode."""

MAX_ENDGAME_EXACT = 30
"""The most empty squares a search by a fixed budget (depth or simulations) may
solve exactly from (``AlphaBetaAgent``'s ``exact_empties``, ``MCTSAgent``'s
``endgame_exact``, the ``exact=`` limit of ``mcts:`` specs): it waits for the
solve however long it takes."""

EXACT_JUMP = 7
"""Iterative deepening goes from a depth straight to the end of the game once
the end is this many plies or fewer beyond the next depth. Exact nodes are cheap
(parity, fastest-first, the unrolled last moves), so at 19-22 empties the exact
depth is reached in a fraction of a second, where deepening ply by ply spends the
second on midgame depths 12-15 (``bench_solver.py --games 60 --timed 1 --jumps 7 0``)."""

WLD_EMPTIES = 18
"""From this many empty squares up, iterative deepening asks first whether a
move wins, draws or loses (the window (-1, 1) at the exact depth, far cheaper
than the exact score) and only then for the margin: a won or drawn endgame the
clock cuts short of its exact score is kept, where the midgame depths guessed
(``bench_solver.py --games 60 --timed 1 --wld 18 off``)."""

PROOF_EMPTIES = 22
"""Up to this many empty squares a timed search first tries to prove the
root's outcome (``prove_outcome``) before it deepens the midgame: a second's
midgame search there reaches depth 13-14, not the end, while the outcome
alone usually takes a few million nodes. Both engines use it."""
PROOF_SHARE = 0.9
"""The share of a timed move's time the outcome proof may take; the rest is the midgame's.
In the close endgames of matches against Zebra a proof at 21-22 empties often needs
more than half a second, and what the midgame search or the tree finds in the other
half is no better: 0.9 gives away fewer outcomes than 0.5 (``bench_solver.py --from-games FILE
--empties 21 --empties-max 22 --players mcts:time=1 alphabeta:time=1``)."""
PROOF_MIDGAME_DEPTH = 6
"""The proof searches the midgame depths 1 to this (for the move order) and then jumps to the end."""

LIMIT, STOP, SCALE, WOF, SELECTIVITY, SHARED, DEFERRED = 1, 2, 3, 4, 5, 6, 7
"""``stats`` slots after ``NODES`` (0): node budget, stop flag, units per disc, world-federation scoring,
ProbCut's threshold in hundredths of a standard deviation (0: no ProbCut), whether other threads
search the same table (1: simplified ABDADA's busy marks), and how many moves were put off for them."""
STATS_SIZE = 8

ORDER_EVAL_DEPTH = 3
"""From this remaining depth up, midgame moves are ordered by the evaluation of the child."""
ORDER_SEARCH_DEPTH = 7
"""From this remaining depth up, midgame moves are ordered by a shallow search of the child."""
ORDER_SEARCH_PLIES = 2
"""The depth of that shallow ordering search."""
ETC_DEPTH = 3
"""From this remaining depth up, midgame nodes probe their children for a cut-off."""
ORDER_MOBILITY = DISC
"""In the midgame ordering by evaluation or shallow search, each move the opponent
would have costs a move this much more (one disc): 7-11 % fewer nodes to depths 9 and 10."""
ETC_EMPTIES = 13
"""Exact nodes with fewer empties skip the enhanced transposition cut-off (the
probes of every child cost more than they save there)."""
EXACT_EVAL_EMPTIES = 12
EXACT_EVAL_KEY = 8
"""Exact nodes with ``EXACT_EVAL_EMPTIES`` empties or more also order their moves by the
evaluation of the child, ``EXACT_EVAL_KEY`` ordering units a disc (a reply for the
opponent costs 16): above about 12 empties a better order saves more nodes than the
evaluation costs (``bench_solver.py``, nodes of FFO #20-#39 and of ``--games 40``)."""
ABDADA_DEPTH = 3
ABDADA_EMPTIES = 13
"""With several threads, midgame nodes with this many plies to go or more, and exact nodes with this
many empties or more, mark the child they search and put off a child another thread is searching."""
MPC_DEPTH = 3
"""ProbCut (selective midgame search) tries nodes with this many plies to go or more."""
MPC_SIGMA = (4.272, -0.0493, -0.6171, 0.3263)
"""The standard deviation in discs of a deep value predicted by a shallow one,
``c0 + c1 * empties + c2 * shallow depth + c3 * depth``, fitted by
``python benchmarks/probcut_fit.py --positions 400 --max-depth 10`` on the
shipped evaluation (refit it when the weights change), and never below ``MPC_SIGMA_MIN``."""
MPC_SIGMA_MIN = 1.0
"""The smallest standard deviation ProbCut assumes (discs)."""
_BUF_KEYS = 40
_BUF_FLIPS = 80
"""Scratch row layout: squares in columns 0..39, their ordering keys in 40..79, their flips in 80..119."""

_CORNERS = np.uint64(0x8100000000000081)
_NOT_A = np.uint64(0xFEFEFEFEFEFEFEFE)
_NOT_H = np.uint64(0x7F7F7F7F7F7F7F7F)
_S1 = np.uint64(1)
_S8 = np.uint64(8)

_TABLE = uint64[:, ::1]
_STATS = int64[::1]
_BUF = int64[:, ::1]
_EVAL = types.FunctionType(EVAL_SIGNATURE)
_WEIGHTS = float32[::1]


@njit(cache=True, inline="always")
def _neighbours(b: np.uint64) -> np.uint64:
    """The squares next to any square of ``b``."""
    h = (b << _S1) & _NOT_A | (b >> _S1) & _NOT_H | b
    return (h << _S8) | (h >> _S8) | h


@njit(cache=True, inline="always")
def _window_in_discs(alpha: np.int64, beta: np.int64, scale: np.int64) -> tuple[np.int64, np.int64]:
    # Rounding outwards keeps fail-high / fail-low meaningful after scaling back.
    a = max(alpha // scale, np.int64(-SCORE_MAX - 1))
    b = min(-((-beta) // scale), np.int64(SCORE_MAX + 1))
    return a, b


@njit(cache=True, nogil=True, inline="always")
def _insert_move(buf: np.ndarray, row: np.int64, k: int, sq: np.uint64, key: np.int64, f: np.uint64) -> None:
    """Insert move ``sq`` (its flips ``f``, ordering ``key``) among the ``k``
    moves already in ``buf[row]``, kept sorted by key, lowest (tried first) first."""
    j = k
    while j > 0 and buf[row, _BUF_KEYS + j - 1] > key:
        buf[row, j] = buf[row, j - 1]
        buf[row, _BUF_KEYS + j] = buf[row, _BUF_KEYS + j - 1]
        buf[row, _BUF_FLIPS + j] = buf[row, _BUF_FLIPS + j - 1]
        j -= 1
    buf[row, j] = np.int64(sq)
    buf[row, _BUF_KEYS + j] = key
    buf[row, _BUF_FLIPS + j] = np.int64(f)


@njit(cache=True, nogil=True)
def _last_ply(
    p: np.uint64,
    o: np.uint64,
    m: np.uint64,
    beta: np.int64,
    stats: np.ndarray,
    buf: np.ndarray,
    evaluate: object,
    weights: np.ndarray,
) -> np.int64:
    """Fail-soft value of a midgame node one ply above the leaves (the mover's
    moves ``m``, not empty): the moves by the opponent's mobility (which the
    pass test needs anyway), each reply position evaluated once (a leaf
    counted as a node, as in ``pvs``), until one reaches ``beta``. No table:
    what it would save costs more here than a probe."""
    row = np.int64(popcount(~(p | o)))
    k = 0
    while m != U0:
        sq = lowest_square(m)
        m &= m - U1
        f = flips(p, o, sq)
        _insert_move(buf, row, k, sq, np.int64(popcount(legal_moves(o ^ f, p | f | (U1 << sq)))), f)
        k += 1
    best = -INF
    for i in range(k):
        sq = np.uint64(buf[row, i])
        f = np.uint64(buf[row, _BUF_FLIPS + i])
        np_, no = o ^ f, p | f | (U1 << sq)
        stats[NODES] += 1
        if buf[row, _BUF_KEYS + i] != 0:
            v = -evaluate(np_, no, weights)  # type: ignore[operator]
        elif legal_moves(no, np_) != U0:
            v = evaluate(no, np_, weights)  # type: ignore[operator]  # the opponent passes
        else:
            v = -final_score(np_, no, stats[WOF] != 0) * stats[SCALE]
        if v > best:
            best = v
            if v >= beta:
                break
    return best


@njit(cache=True, inline="always")
def probcut_depth(depth: np.int64) -> np.int64:
    """The shallow search that predicts a ``depth``-ply one in ProbCut: about half as deep, the same parity."""
    return 2 * (depth // 4) + depth % 2


@njit(
    int64(uint64, uint64, int64, int64, int64, _TABLE, _STATS, _BUF, _EVAL, _WEIGHTS),
    cache=True,
    nogil=True,
)
def pvs(
    p: np.uint64,
    o: np.uint64,
    depth: np.int64,
    alpha: np.int64,
    beta: np.int64,
    table: np.ndarray,
    stats: np.ndarray,
    buf: np.ndarray,
    evaluate: object,
    weights: np.ndarray,
) -> np.int64:
    """Fail-soft value of ``(p, o)`` for the mover within ``(alpha, beta)``,
    ``depth`` plies deep (exact when ``depth`` >= the empty squares)."""
    # Uncounted views: the recursion below passes them to every node (agents.search.borrowed).
    table, stats, buf, weights = borrowed(table), borrowed(stats), borrowed(buf), borrowed(weights)
    if stats[STOP] != 0:
        return np.int64(0)
    empty = ~(p | o)
    n_empty = np.int64(popcount(empty))
    exact = depth >= n_empty
    scale = stats[SCALE]
    wof = stats[WOF] != 0
    if exact and n_empty <= SHALLOW_EMPTIES:
        a, b = _window_in_discs(alpha, beta, scale)
        return solve_shallow(p, o, a, b, wof, stats) * scale
    stats[NODES] += 1
    if stats[NODES] > stats[LIMIT]:
        stats[STOP] = 1
        return np.int64(0)
    m = legal_moves(p, o)
    if m == U0:
        if legal_moves(o, p) == U0:
            return final_score(p, o, wof) * scale
        return -pvs(o, p, depth, -beta, -alpha, table, stats, buf, evaluate, weights)
    if not exact and depth <= 0:
        return evaluate(p, o, weights)  # type: ignore[operator]
    if not exact and depth == 1:
        return _last_ply(p, o, m, beta, stats, buf, evaluate, weights)

    # Any exact entry answers an exact probe; an exact entry records its empties above EXACT_DEPTH,
    # so the table's replace-by-depth slot keeps the larger trees.
    needed_depth = EXACT_DEPTH if exact else depth
    stored_depth = EXACT_DEPTH + n_empty if exact else depth
    found, lo, hi, d, tt_move = probe(table, p, o)
    if found and d >= needed_depth:
        if lo >= beta:
            return lo
        if hi <= alpha:
            return hi
        if lo == hi:
            return lo
        alpha = max(alpha, lo)
        beta = min(beta, hi)
    if not found:
        tt_move = NO_MOVE

    if not exact and depth >= MPC_DEPTH and stats[SELECTIVITY] > 0 and beta - alpha == 1:
        # ProbCut: a shallow search far enough outside the window predicts the deep one's side of it.
        shallow = probcut_depth(depth)
        sigma = MPC_SIGMA[0] + MPC_SIGMA[1] * n_empty + MPC_SIGMA[2] * shallow + MPC_SIGMA[3] * depth
        sigma = max(sigma, MPC_SIGMA_MIN)
        margin = np.int64(sigma * stats[SELECTIVITY] * scale) // 100
        if beta < INF // 2:
            bound = beta + margin
            if pvs(p, o, shallow, bound - 1, bound, table, stats, buf, evaluate, weights) >= bound:
                return beta
        if alpha > -INF // 2:
            bound = alpha - margin
            if pvs(p, o, shallow, bound, bound + 1, table, stats, buf, evaluate, weights) <= bound:
                return alpha

    if exact:
        # Stability cut-off: the opponent's stable discs are theirs at the end.
        bound = (64 - 2 * np.int64(popcount(o))) * scale
        if bound <= alpha:
            bound = (64 - 2 * np.int64(popcount(_stable_discs(o, p)))) * scale
            if bound <= alpha:
                return bound

    # Order the moves in this node's scratch row (one row per number of empties):
    # squares, ordering keys and flips side by side.
    row = n_empty
    odd = odd_regions(empty) if exact else U0
    child_depth = EXACT_DEPTH if exact else depth - 1
    k = 0
    while m != U0:
        sq = lowest_square(m)
        m &= m - U1
        f = flips(p, o, sq)
        np_, no = o ^ f, p | f | (U1 << sq)
        if exact and n_empty > SHALLOW_EMPTIES + 1:
            prefetch(table, np_, no)  # for the probes below and when the child's turn comes
        # Enhanced transposition cut-off: a child already known bad enough for the opponent
        # (exact: once its key is computed, which gives the prefetch time to arrive).
        if not exact and depth >= ETC_DEPTH:
            c_found, _, c_hi, c_depth, _ = probe(table, np_, no)
            if c_found and c_depth >= child_depth and -c_hi >= beta:
                return -c_hi
        if np.int64(sq) == tt_move:
            key = -INF
        elif exact:
            replies = legal_moves(np_, no)
            key = 16 * np.int64(popcount(replies)) + 16 * np.int64(popcount(replies & _CORNERS))
            # Potential mobility: empties next to my discs, where the opponent may later play.
            key += 2 * np.int64(popcount(_neighbours(no) & empty))
            if (U1 << sq) & odd:
                key -= 4
            if n_empty >= EXACT_EVAL_EMPTIES:
                key += EXACT_EVAL_KEY * evaluate(np_, no, weights) // DISC  # type: ignore[operator]
        elif depth >= ORDER_SEARCH_DEPTH:
            key = pvs(np_, no, np.int64(ORDER_SEARCH_PLIES), -INF, INF, table, stats, buf, evaluate, weights)
            key += ORDER_MOBILITY * np.int64(popcount(legal_moves(np_, no)))
        elif depth >= ORDER_EVAL_DEPTH:
            key = evaluate(np_, no, weights)  # type: ignore[operator]
            key += ORDER_MOBILITY * np.int64(popcount(legal_moves(np_, no)))
        else:
            key = np.int64(popcount(legal_moves(np_, no)))
        if exact and n_empty >= ETC_EMPTIES:
            c_found, _, c_hi, c_depth, _ = probe(table, np_, no)
            if c_found and c_depth >= child_depth and -c_hi >= beta:
                return -c_hi
        _insert_move(buf, row, k, sq, key, f)
        k += 1
    if stats[STOP] != 0:
        return np.int64(0)

    alpha0 = alpha
    best = -INF
    best_move = np.int64(NO_MOVE)
    # Simplified ABDADA (several threads): a later move another thread is searching now is put
    # off to the end of the row, searched once the others are (by then often in the table).
    shared = stats[SHARED] != 0 and (n_empty >= ABDADA_EMPTIES if exact else depth >= ABDADA_DEPTH)
    end = k
    i = 0
    while i < end:
        sq = np.uint64(buf[row, i])
        f = np.uint64(buf[row, _BUF_FLIPS + i])
        np_, no = o ^ f, p | f | (U1 << sq)
        if shared:
            if 0 < i < k and end < _BUF_KEYS and is_busy(table, np_, no):
                stats[DEFERRED] += 1
                buf[row, end] = buf[row, i]
                buf[row, _BUF_FLIPS + end] = buf[row, _BUF_FLIPS + i]
                end += 1
                i += 1
                continue
            mark_busy(table, np_, no)
        if i == 0:
            v = -pvs(np_, no, depth - 1, -beta, -alpha, table, stats, buf, evaluate, weights)
        else:
            v = -pvs(np_, no, depth - 1, -alpha - 1, -alpha, table, stats, buf, evaluate, weights)
            if alpha < v < beta:
                v = -pvs(np_, no, depth - 1, -beta, -alpha, table, stats, buf, evaluate, weights)
        if shared:
            clear_busy(table, np_, no)
        i += 1
        if stats[STOP] != 0:
            return np.int64(0)
        if v > best:
            best = v
            best_move = np.int64(sq)
            if v > alpha:
                alpha = v
                if alpha >= beta:
                    break
    if best <= alpha0:
        store(table, p, o, -INF, best, stored_depth, best_move)
    elif best >= beta:
        store(table, p, o, best, INF, stored_depth, best_move)
    else:
        store(table, p, o, best, best, stored_depth, best_move)
    return best


@njit(
    int64(uint64, uint64, int64, int64[::1], int64[::1], boolean, int64, _TABLE, _STATS, _BUF, _EVAL, _WEIGHTS),
    cache=True,
    nogil=True,
)
def score_moves(
    p: np.uint64,
    o: np.uint64,
    depth: np.int64,
    order: np.ndarray,
    scores: np.ndarray,
    exact_all: bool,
    known: np.int64,
    table: np.ndarray,
    stats: np.ndarray,
    buf: np.ndarray,
    evaluate: object,
    weights: np.ndarray,
) -> np.int64:
    """Score the root moves ``order`` (squares, tried in that order) ``depth``
    plies deep into ``scores[square]``. The best move and every move tied with
    it get their exact value, the others an upper bound below the best (or
    their exact value too with ``exact_all``). A ``known`` value of the root
    (else -INF) makes one null-window search a move enough: no move scores
    above it. Returns the best value; the result is void if ``stats[STOP]`` got set."""
    best = known
    n = order.shape[0]
    # With several threads a move another one is searching now is put off (simplified ABDADA, as in pvs).
    shared = stats[SHARED] != 0 and depth >= ABDADA_DEPTH
    seq = np.empty(2 * n, dtype=np.int64)
    for j in range(n):
        seq[j] = order[j]
    end = n
    i = 0
    while i < end:
        sq = np.uint64(seq[i])
        f = flips(p, o, sq)
        np_, no = o ^ f, p | f | (U1 << sq)
        if shared:
            if 0 < i < n and is_busy(table, np_, no):
                stats[DEFERRED] += 1
                seq[end] = seq[i]
                end += 1
                i += 1
                continue
            mark_busy(table, np_, no)
        if known > -INF and not exact_all:
            v = min(-pvs(np_, no, depth - 1, -known, -(known - 1), table, stats, buf, evaluate, weights), known)
        elif exact_all or i == 0:
            v = -pvs(np_, no, depth - 1, -INF, INF, table, stats, buf, evaluate, weights)
        else:
            # A null window at best - 1 sorts out the moves below the best; the rest get a full one.
            v = -pvs(np_, no, depth - 1, -best, -(best - 1), table, stats, buf, evaluate, weights)
            if v >= best:
                v = -pvs(np_, no, depth - 1, -INF, -(best - 1), table, stats, buf, evaluate, weights)
        if shared:
            clear_busy(table, np_, no)
        i += 1
        if stats[STOP] != 0:
            return best
        scores[sq] = v
        if v > best:
            best = v
    return best


@njit(cache=True, nogil=True)
def best_square(
    p: np.uint64,
    o: np.uint64,
    depth: np.int64,
    scores: np.ndarray,
    table: np.ndarray,
    stats: np.ndarray,
    buf: np.ndarray,
    fn: object,
    weights: np.ndarray,
) -> np.uint64:
    """The lowest square among the best moves of ``(p, o)`` searched ``depth``
    plies deep by ``score_moves`` (every legal move, in square order), whose
    value is then ``scores[square]``; for numba callers, which keep ``table``,
    ``stats``, ``buf`` and the evaluation (``fn``, ``weights``) from call to
    call. Unchecked: the mover must have a placement."""
    m = legal_moves(p, o)
    order = np.empty(64, dtype=np.int64)
    n = 0
    while m != U0:
        order[n] = np.int64(lowest_square(m))
        n += 1
        m &= m - U1
    scores[:] = -INF
    best = score_moves(p, o, depth, order[:n].copy(), scores, False, -INF, table, stats, buf, fn, weights)
    for i in range(n):
        if scores[order[i]] == best:
            return np.uint64(order[i])
    return np.uint64(order[0])


def new_stats(
    scale: int, *, wof: bool = False, node_limit: int | None = None, selectivity: float = 0.0, shared: bool = False
) -> np.ndarray:
    """The ``stats`` array of a search: no nodes yet, the budget, the scale, the scoring rule,
    ProbCut's threshold (standard deviations; 0: a full-width search) and whether other threads
    search the same table at the same time."""
    stats = np.zeros(STATS_SIZE, dtype=np.int64)
    stats[SELECTIVITY] = round(selectivity * 100)
    stats[SHARED] = int(shared)
    stats[LIMIT] = np.int64(2**62) if node_limit is None else node_limit
    stats[SCALE] = scale
    stats[WOF] = int(wof)
    return stats


def stoppable(stats: np.ndarray, stop: StopSignal | None) -> AbstractContextManager[None]:
    """While the block runs, ``stop`` (an agent's ``StopSignal``, if any) sets
    ``stats[STOP]``: the search of ``stats`` unwinds, as when its clock runs out."""
    return nullcontext() if stop is None else stop.on_stop(partial(stats.__setitem__, STOP, 1))


def new_scratch() -> np.ndarray:
    """The move-ordering scratch of one search thread."""
    return np.zeros((65, 3 * _BUF_KEYS), dtype=np.int64)


@dataclass
class RootScores:
    """One search of the root: the value of each move searched (``scores[square]``;
    see ``score_moves`` for which are exact), the depth, and whether it finished."""

    scores: dict[int, int]
    depth: int
    completed: bool

    @property
    def finished_depth(self) -> int:
        """The deepest depth searched in full (one less than ``depth`` for an unfinished search)."""
        return self.depth if self.completed else max(self.depth - 1, 0)

    def best_moves(self) -> list[int]:
        """The moves with the best score (sorted)."""
        top = max(self.scores.values())
        return sorted(a for a, v in self.scores.items() if v == top)


def search_root(
    p: np.uint64,
    o: np.uint64,
    depth: int,
    order: list[int],
    table: np.ndarray,
    stats: np.ndarray,
    evaluation: Evaluation,
    *,
    exact_all: bool = False,
    known: int | None = None,
    buf: np.ndarray | None = None,
) -> RootScores:
    """Score the legal moves ``order`` of ``(p, o)`` (the mover must have one)
    ``depth`` plies deep; ``known``: the root's value, if known."""
    scores = np.full(64, -INF, dtype=np.int64)
    score_moves(
        p, o, np.int64(depth), np.array(order, dtype=np.int64), scores, exact_all,
        -INF if known is None else np.int64(known), table, stats,
        new_scratch() if buf is None else buf, evaluation.function, evaluation.weights,
    )  # fmt: skip
    done = stats[STOP] == 0
    return RootScores({a: int(scores[a]) for a in order if scores[a] > -INF}, depth, bool(done))


def root_window(
    p: np.uint64,
    o: np.uint64,
    order: list[int],
    alpha: int,
    beta: int,
    table: np.ndarray,
    stats: np.ndarray,
    evaluation: Evaluation,
    buf: np.ndarray,
    depth: int = EXACT_DEPTH,
) -> tuple[int, int]:
    """Fail-soft principal-variation search of the root within ``(alpha, beta)``,
    moves tried in ``order``, ``depth`` plies: the value and the first move that
    gave it (it stops at a move that reaches ``beta``). Cut short by
    ``stats[STOP]``, the best of the moves searched in full (-INF and the first
    move if none was)."""
    best, best_move = -INF, order[0]
    for i, a in enumerate(order):
        f = flips(p, o, np.uint64(a))
        child = (o ^ f, p | f | (U1 << np.uint64(a)))
        a_ = np.int64(max(alpha, best))
        args = (table, stats, buf, evaluation.function, evaluation.weights)
        if i == 0:
            v = -pvs(*child, np.int64(depth - 1), np.int64(-beta), -a_, *args)
        else:
            v = -pvs(*child, np.int64(depth - 1), -a_ - 1, -a_, *args)
            if a_ < v < beta:
                v = -pvs(*child, np.int64(depth - 1), np.int64(-beta), -a_, *args)
        if stats[STOP]:
            break
        if v > best:
            best, best_move = v, a
            if v >= beta:
                break
    return int(best), best_move


def _win_draw_loss(
    p: np.uint64,
    o: np.uint64,
    order: list[int],
    depth: int,
    table: np.ndarray,
    stats: np.ndarray,
    evaluation: Evaluation,
    buf: np.ndarray,
) -> tuple[RootScores | None, list[int], bool]:
    """The exact ``depth``'s first step: the first move of ``order`` with the best of win, draw and loss.

    Returns:
        The move's scores if it wins or draws (None for a loss, which keeps the midgame's
        choice), ``order`` with that move first, and whether the deepening ends here: the
        search was stopped, or it found a draw (no move scores more than 0, so a draw the
        search finished is the exact depth done).
    """
    value, move = root_window(p, o, order, -1, 1, table, stats, evaluation, buf, depth)
    if value < 0:
        return None, order, bool(stats[STOP] != 0)
    found = RootScores({move: value}, depth, value == 0 and stats[STOP] == 0)
    return found, [move] + [a for a in order if a != move], bool(stats[STOP] != 0 or value == 0)


def _deepest_of(result: RootScores, helpers: list[_Helper]) -> RootScores:
    """Stop the ``helpers``; the main search's ``result``, or a helper's whose depth is deeper than
    the main search finished."""
    for helper in helpers:
        helper.stop()
        if helper.result is not None and helper.result.depth > result.finished_depth:
            result = helper.result
    return result


def iterative_deepening(
    p: np.uint64,
    o: np.uint64,
    actions: list[int],
    table: np.ndarray,
    evaluation: Evaluation,
    *,
    max_depth: int = EXACT_DEPTH,
    time_limit: float | None = None,
    node_limit: int | None = None,
    exact_all: bool = False,
    threads: int = 1,
    selectivity: float = 0.0,
    exact_jump: int = EXACT_JUMP,
    wld_empties: int | None = WLD_EMPTIES,
    wof: bool = False,
    stop: StopSignal | None = None,
) -> tuple[RootScores, int]:
    """Search the root ``actions`` one ply deeper at a time (each depth tries
    the last one's best moves first) until ``max_depth``, the end of the game
    (that depth is exact, and searched as soon as it is within ``exact_jump``
    plies of the next depth), the clock or the node budget; returns the last
    depth that finished and the nodes searched. With a budget so small that
    not even depth 1 finished, every move scores 0 at depth 0. Unless
    ``exact_all``, a depth cut short once it has searched the last depth's best
    move is returned instead (``completed`` false, ``scores`` only for the moves
    it searched): a move it found better than that one is better at the deeper
    depth, and the time spent on it is not lost; so a timed search deepens
    until its clock stops it, and with ``exact_all`` only while a new depth
    may still finish.

    ``threads`` > 1: each helper thread runs the same iterative deepening,
    sharing the table, and every thread marks the moves it is searching, so
    the others put those off and take the next ones (simplified ABDADA:
    alone, identical lazy-SMP threads searched the same nodes side by side
    and reached a depth no sooner than one thread). When the main search
    stops, a depth a helper finished that is deeper than the main search's
    is played instead. One thread is fully deterministic.
    ``selectivity`` > 0 prunes the midgame by ProbCut at that many standard
    deviations (``pvs``). ``exact_jump``: how near the end the depths jump
    to it (``deepening_depths``; ``exact_all`` never jumps). From
    ``wld_empties`` empty squares up (None: never; ``exact_all``: never), the
    exact depth first finds the first move, in the last depth's order, with
    the best of win, draw and loss: a win or a draw is then played unless the
    exact depth finishes that move (after a draw it is not searched: every
    drawn move scores 0, the best there is); that search counts as the
    finished exact depth if it found a draw and finished (no move scores more),
    else as an unfinished one. ``wof``: a game that ends in the search scores
    its empty squares for the winner (``endgame.Solver``'s "wof" scoring), else
    the discs as they stand. ``stop`` (an agent's ``StopSignal``) ends the
    search from another thread, as the clock does."""
    n_empty = 64 - (int(p) | int(o)).bit_count()
    last = min(max_depth, n_empty)
    stats = new_stats(DISC, wof=wof, node_limit=node_limit, selectivity=selectivity, shared=threads > 1)
    buf = new_scratch()
    depths = deepening_depths(last, n_empty, 0 if exact_all else exact_jump)
    helpers = [_Helper(p, o, table, evaluation, k, selectivity, wof) for k in range(1, threads)]
    for helper in helpers:
        helper.start(list(actions), depths)
    order = list(actions)
    result = RootScores(dict.fromkeys(actions, 0), 0, False)
    clock = StopClock(stats, STOP, budget(time_limit)) if time_limit is not None else None
    with clock if clock is not None else nullcontext(), stoppable(stats, stop):
        for depth in depths:
            if clock is not None and exact_all and depth > 1 and not clock.may_deepen():
                break
            if depth == n_empty and not exact_all and wld_empties is not None and n_empty >= wld_empties:
                found, order, done = _win_draw_loss(p, o, order, depth, table, stats, evaluation, buf)
                result = result if found is None else found
                if done:
                    break
            root = search_root(p, o, depth, order, table, stats, evaluation, exact_all=exact_all, buf=buf)
            if not root.completed:
                if not exact_all and order[0] in root.scores:
                    result = root
                break
            result = root
            order.sort(key=lambda a: -root.scores[a])
    result = _deepest_of(result, helpers)  # the helpers stopped: their node counts are final
    return result, int(stats[NODES]) + sum(h.nodes for h in helpers)


def search_depth(
    p: np.uint64,
    o: np.uint64,
    depth: int,
    actions: list[int],
    table: np.ndarray,
    evaluation: Evaluation,
    *,
    threads: int = 1,
    selectivity: float = 0.0,
    stop: StopSignal | None = None,
) -> tuple[RootScores, int]:
    """Score the root ``actions`` ``depth`` plies deep (the empty squares or
    more: exactly), a fixed-depth search; returns its scores and the nodes
    searched. A midgame depth is reached by iterative deepening (the shallower
    depths order the moves: a fifth to a third fewer nodes than the depth alone
    at full width, with the same best moves, and two thirds fewer with
    ProbCut); the exact one is searched straight away.
    ``threads`` > 1: helper threads search beside it, sharing the table and
    the moves (ABDADA, as ``iterative_deepening``'s), so the depth finishes
    sooner; the best score is the same at full width, the move among equal
    ones may not be. One thread is fully deterministic. ``stop`` ends it early
    (the moves searched so far keep their scores)."""
    if depth < 64 - (int(p) | int(o)).bit_count():
        return iterative_deepening(
            p, o, actions, table, evaluation, max_depth=depth, threads=threads, selectivity=selectivity, stop=stop
        )
    stats = new_stats(DISC, selectivity=selectivity, shared=threads > 1)
    helpers = [_Helper(p, o, table, evaluation, k, selectivity) for k in range(1, threads)]
    for helper in helpers:
        helper.start(list(actions), [depth])
    with stoppable(stats, stop):
        root = search_root(p, o, depth, actions, table, stats, evaluation)
    for helper in helpers:
        helper.stop()
    return root, int(stats[NODES]) + sum(h.nodes for h in helpers)


def prove_outcome(
    p: np.uint64,
    o: np.uint64,
    actions: list[int],
    table: np.ndarray,
    evaluation: Evaluation,
    time_limit: float,
    *,
    threads: int = 1,
    stop: StopSignal | None = None,
) -> tuple[RootScores | None, int]:
    """The root's outcome, proven within ``time_limit`` seconds: midgame depths
    1 to ``PROOF_MIDGAME_DEPTH`` order the moves, then the end of the game,
    win/loss/draw first and then the exact score (``iterative_deepening``).
    Returns the root's scores if it proved a win, or a draw and that no move
    wins, or finished the exact score (``completed`` then); else None (nothing
    proven, or every move loses and which loses least is not known). And the nodes searched.
    ``stop`` ends it early (then nothing is proven)."""
    n_empty = 64 - (int(p) | int(o)).bit_count()
    root, nodes = iterative_deepening(
        p, o, actions, table, evaluation, time_limit=time_limit, threads=threads,
        exact_jump=max(n_empty - PROOF_MIDGAME_DEPTH - 1, 0), wld_empties=0, stop=stop,
    )  # fmt: skip
    if root.depth < n_empty:
        return None, nodes
    if max(root.scores.values()) <= 0 and not root.completed:
        return None, nodes  # every move loses, or a draw while a win may be left
    return root, nodes


def deepening_depths(last: int, end: int, jump: int = EXACT_JUMP) -> list[int]:
    """The depths iterative deepening searches up to ``last``: one ply at a
    time; and when ``last`` is the end of the game (``end``, the empty
    squares), straight to it once it is within ``jump`` plies of the next depth."""
    if last < end:
        return list(range(1, last + 1))
    return [*range(1, max(last - jump, 1)), last]


class _Helper:
    """A helper thread: its own iterative deepening of the root in a thread (numba
    releases the GIL), sharing the table and the moves (ABDADA), until the main search stops it."""

    def __init__(
        self,
        p: np.uint64,
        o: np.uint64,
        table: np.ndarray,
        evaluation: Evaluation,
        index: int,
        selectivity: float,
        wof: bool = False,
    ) -> None:
        self.p, self.o, self.table, self.evaluation, self.index = p, o, table, evaluation, index
        self.stats = new_stats(DISC, wof=wof, selectivity=selectivity, shared=True)
        self.result: RootScores | None = None
        self._thread: threading.Thread | None = None

    @property
    def nodes(self) -> int:
        """The nodes this helper searched."""
        return int(self.stats[NODES])

    def start(self, order: list[int], depths: list[int]) -> None:
        """Search ``depths`` in turn, as the main search does (ABDADA shares out each depth)."""
        self._thread = threading.Thread(target=self._deepen, args=(order, depths), daemon=True)
        self._thread.start()

    def _deepen(self, order: list[int], depths: list[int]) -> None:
        buf = new_scratch()
        for depth in depths:
            root = search_root(self.p, self.o, depth, order, self.table, self.stats, self.evaluation, buf=buf)
            if not root.completed:
                return
            self.result = root
            order.sort(key=lambda a: -root.scores[a])

    def stop(self) -> None:
        """Stop the search and wait for the thread."""
        self.stats[STOP] = 1
        if self._thread is not None:
            self._thread.join()
            self._thread = None
