"""Monte Carlo Tree Search for Reversi, with the whole iteration in numba.

The tree is one preallocated numpy array of 40-byte nodes (``NODE_DTYPE``).
A node holds its position (``p``, ``o``: the mover's and the opponent's
discs), the move that led to it, its visit count and value sum (from the side
of the player who made that move), its prior, its proven status and its
children as a contiguous block (``first``, ``nchild``). Passes are moves in the
tree, so every edge changes the player to move.

One iteration (``_run``, numba): select by UCT down to a leaf, expand it on
its second visit (all children at once), play one random game from there with
the kernels' RNG, and back the result (+1 win, 0 draw, -1 loss) up the path.
Python only starts the search, checks the clock between batches and reads the
result.

Three knobs make the default agent strong; all off gives textbook UCT
(``MCTSAgent(..., informed_playouts=False, bias=0, mix=0)``, the setting of
``benchmarks/bench_mcts.py``'s comparison with OpenSpiel):

- ``informed_playouts``: the random game takes a corner when it can and
  avoids the squares that give a corner away when it can (``informed_playout``);
- ``bias``: progressive bias, ``bias * h / (visits + 1)`` added to a child's
  UCT score, where ``h`` in [-1, 1] is the square-weight / mobility / corner
  evaluation of ``agents.search.ladder.evaluate``; unvisited children are tried best
  ``h`` first;
- ``mix``: a leaf's value is ``(1 - mix) * playout + mix * h`` (AlphaGo's
  mixing of a rollout and a value estimate). Measured at 20,000 simulations a
  move against AlphaBetaAgent(4): textbook UCT won 1 of 6 games, ``mix=0.5``
  4 of 6, ``mix=0.8`` 8 of 8.

With ``solver=True`` (MCTS-Solver) finished games are
proven wins, losses or draws and proofs are backed up: a node with a winning
child is lost for the player who moved into it, one whose children are all
proven takes the best of them. With few empty squares the root is solved
exactly instead (``agents.search.endgame``), maximising the final disc difference.

With an ``evaluator`` (``agents.search.evaluator.Evaluator``) the leaf value comes
from it instead of a playout, and its prior, if any, switches selection to
PUCT. That path calls Python once per leaf (select and back up stay in numba),
so it runs at the evaluator's speed.

The best move is chosen by one key: a proven win first, then the most visits,
then the best mean value, then the lowest action index.
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import cast

import numpy as np
from numba import njit

from agents.base import state_to_move
from agents.search.endgame import solve_root
from agents.search.evaluator import Evaluator
from agents.search.ladder import evaluate
from reversi_env import bitboard as bb
from reversi_env.bitboard import U0, U1, flips, legal_moves, lowest_square, popcount, random_playout
from reversi_env.errors import InvalidPositionError
from reversi_env.notation import PASS
from reversi_env.observation import Observation
from reversi_env.state import GameState

NODE_DTYPE = np.dtype(
    [
        ("p", np.uint64),
        ("o", np.uint64),
        ("value", np.float64),
        ("visits", np.int32),
        ("first", np.int32),
        ("prior", np.float32),
        ("nchild", np.uint8),
        ("move", np.uint8),
        ("status", np.uint8),
    ],
    align=True,
)
"""One tree node (40 bytes). ``value`` sums results from the side of the
player who moved into the node; ``first`` is -1 until the node is expanded;
``status`` is a proven result for that same player (see UNKNOWN..DRAW)."""

UNKNOWN, WIN, LOSS, DRAW = 0, 1, 2, 3
"""Proven status of a node, for the player who made the move into it."""

DEFAULT_C = 1.0
"""Default exploration constant (values are in [-1, 1])."""

DEFAULT_ENDGAME_EXACT = 14
"""Default number of empty squares from which the root is solved exactly."""

DEFAULT_MAX_NODES = 4_000_000
"""Default tree size cap: 4 M nodes of 40 bytes, 160 MB at most."""

DEFAULT_BIAS = 1.0
"""Default weight of the progressive bias (the static evaluation of a move,
squashed to [-1, 1], fading as 1 / (visits + 1))."""

DEFAULT_MIX = 0.8
"""Default share of the static evaluation in a leaf's value; the rest is the
random playout's result (AlphaGo's mixing of a value estimate and a rollout)."""

_HEURISTIC_SCALE = 100.0
"""Static evaluations (``agents.search.ladder.evaluate``) are divided by this before tanh."""

_NODES_PER_SIMULATION = 4
"""Pool sizing: nodes allocated per budgeted simulation (measured: about 2-3)."""
_SIMULATIONS_PER_SECOND = 150_000
"""Pool sizing and the first batch of a timed search (refined as it runs)."""
_SOLVER_NODES_PER_SECOND = 3_000_000
"""A conservative speed of the endgame solver (it does about 8 M/s on a busy
core here), to give a timed solve its node budget: half the time left, so even a
solver three times slower than measured stays inside the limit."""
_TIME_MARGIN = 0.02
"""A timed search aims this fraction of the limit short of it (Python overhead)."""
_REUSE_DEPTH = 4
"""How many plies below the old root a reused position may be (our move, the
reply, and one more pair after a move played at once)."""
_MAX_DEPTH = 128


# -- the tree, in numba ----------------------------------------------------------


@njit(cache=True)
def _final_sign(p: np.uint64, o: np.uint64) -> np.float64:
    d = np.int64(popcount(p)) - np.int64(popcount(o))
    return np.float64(1.0) if d > 0 else (np.float64(-1.0) if d < 0 else np.float64(0.0))


@njit(cache=True)
def _status_value(status: np.uint8) -> np.float64:
    if status == WIN:
        return np.float64(1.0)
    if status == LOSS:
        return np.float64(-1.0)
    return np.float64(0.0)


@njit(cache=True)
def _init_node(tree: np.ndarray, i: np.int64, p: np.uint64, o: np.uint64, move: np.int64, prior: np.float64) -> None:
    nd = tree[i]
    nd.p = p
    nd.o = o
    nd.value = 0.0
    nd.visits = 0
    nd.first = -1
    nd.prior = prior
    nd.nchild = 0
    nd.move = move
    nd.status = UNKNOWN


@njit(cache=True)
def _expand(tree: np.ndarray, meta: np.ndarray, node: np.int64, solver: bool, heuristic: bool) -> bool:
    """Create all children of ``node`` in one block; a finished game gets none
    (and, with the solver, its proven status). With ``heuristic`` each child's
    ``prior`` holds the squashed static evaluation for the mover (progressive
    bias), else 1 / children. False if the pool is full."""
    nd = tree[node]
    p = nd.p
    o = nd.o
    m = legal_moves(p, o)
    n = meta[0]
    if m == U0:
        if legal_moves(o, p) == U0:
            nd.first = n
            nd.nchild = 0
            if solver:
                # The player who moved into this node sees the difference negated.
                s = _final_sign(p, o)
                nd.status = LOSS if s > 0 else (WIN if s < 0 else DRAW)
            return True
        if n + 1 > meta[1]:
            return False
        _init_node(tree, n, o, p, PASS, 1.0)
        nd.first = n
        nd.nchild = 1
        meta[0] = n + 1
        return True
    k = np.int64(popcount(m))
    if n + k > meta[1]:
        return False
    prior = 1.0 / k
    i = n
    while m != U0:
        sq = lowest_square(m)
        m &= m - U1
        f = flips(p, o, sq)
        cp, co = o ^ f, p | f | (U1 << sq)
        h = math.tanh(-evaluate(cp, co) / _HEURISTIC_SCALE) if heuristic else prior
        _init_node(tree, i, cp, co, np.int64(sq), h)
        i += 1
    nd.first = n
    nd.nchild = k
    meta[0] = n + k
    return True


@njit(cache=True)
def _child_status(tree: np.ndarray, node: np.int64) -> np.uint8:
    """Proven status of ``node`` from its children's (MCTS-Solver)."""
    nd = tree[node]
    all_proven = True
    draw = False
    for i in range(nd.first, nd.first + nd.nchild):
        s = tree[i].status
        if s == WIN:
            return np.uint8(LOSS)
        if s == UNKNOWN:
            all_proven = False
        elif s == DRAW:
            draw = True
    if not all_proven:
        return np.uint8(UNKNOWN)
    return np.uint8(DRAW) if draw else np.uint8(WIN)


@njit(cache=True)
def _select(tree: np.ndarray, node: np.int64, c: np.float64, puct: bool, bias: np.float64) -> np.int64:
    """The child to descend into: UCT (unvisited children first, best
    heuristic first) plus ``bias * heuristic / (visits + 1)``, or PUCT;
    children proven lost for the mover are skipped while others remain."""
    nd = tree[node]
    n_parent = np.float64(max(nd.visits, 1))
    explore = math.log(n_parent) if not puct else math.sqrt(n_parent)
    best = -np.inf
    best_i = np.int64(nd.first)
    for i in range(nd.first, nd.first + nd.nchild):
        ch = tree[i]
        s = ch.status
        if s == LOSS:
            continue
        if s == WIN:
            return np.int64(i)
        n = ch.visits
        if s == DRAW:
            # A proven draw is worth exactly 0 and has nothing left to explore.
            score = 0.0
        elif puct:
            q = 0.0 if n == 0 else ch.value / n
            score = q + c * ch.prior * explore / (1.0 + n)
        elif n == 0:
            score = 1e9 + ch.prior
        else:
            score = ch.value / n + c * math.sqrt(explore / n) + bias * ch.prior / (n + 1.0)
        if score > best:
            best = score
            best_i = np.int64(i)
    return best_i


@njit(cache=True)
def _descend(
    tree: np.ndarray, root: np.int64, c: np.float64, puct: bool, bias: np.float64, path: np.ndarray
) -> np.int64:
    """Select from ``root`` to a leaf (unexpanded, finished or proven); the
    path goes into ``path``; returns its last index."""
    node = root
    d = np.int64(0)
    path[0] = root
    while d < path.shape[0] - 2:
        nd = tree[node]
        if (nd.status != UNKNOWN and node != root) or nd.first < 0 or nd.nchild == 0:
            break
        node = _select(tree, node, c, puct, bias)
        d += 1
        path[d] = node
    return d


@njit(cache=True)
def _backup(tree: np.ndarray, path: np.ndarray, d: np.int64, r: np.float64, solver: bool) -> None:
    """Add result ``r`` (for the player who moved into the leaf ``path[d]``)
    up the path, negating at each ply, and back up proofs."""
    for k in range(d, -1, -1):
        nd = tree[path[k]]
        nd.visits += 1
        nd.value += r
        r = -r
    if solver and tree[path[d]].status != UNKNOWN:
        for k in range(d - 1, -1, -1):
            nd = tree[path[k]]
            if nd.status != UNKNOWN:
                break
            s = _child_status(tree, path[k])
            if s == UNKNOWN:
                break
            nd.status = s


@njit(cache=True)
def _leaf_result(
    tree: np.ndarray, meta: np.ndarray, path: np.ndarray, d: np.int64, solver: bool, heuristic: bool
) -> np.int64:
    """Prepare the leaf ``path[d]`` for evaluation: expand it on its second
    visit and step into its first child, or mark a finished game. Returns the
    new path end."""
    leaf = path[d]
    nd = tree[leaf]
    if nd.status != UNKNOWN or nd.first >= 0:
        return d
    if (nd.visits >= 1 or d == 0) and _expand(tree, meta, leaf, solver, heuristic) and nd.nchild > 0:
        d += 1
        path[d] = nd.first
        leaf = path[d]
        nd = tree[leaf]
    if solver and nd.first < 0 and legal_moves(nd.p, nd.o) == U0 and legal_moves(nd.o, nd.p) == U0:
        _expand(tree, meta, leaf, solver, heuristic)
    return d


_CORNERS = np.uint64(0x8100000000000081)
_A1, _H1, _A8, _H8 = np.uint64(1), np.uint64(1 << 7), np.uint64(1 << 56), np.uint64(1 << 63)


@njit(cache=True, inline="always")
def _corner_neighbours(empty: np.uint64) -> np.uint64:
    """X- and C-squares of the empty corners in ``empty``: the squares that give a corner away."""
    out = U0
    if empty & _A1:
        out |= (_A1 << np.uint64(1)) | (_A1 << np.uint64(8)) | (_A1 << np.uint64(9))
    if empty & _H1:
        out |= (_H1 >> np.uint64(1)) | (_H1 << np.uint64(8)) | (_H1 << np.uint64(7))
    if empty & _A8:
        out |= (_A8 << np.uint64(1)) | (_A8 >> np.uint64(8)) | (_A8 >> np.uint64(7))
    if empty & _H8:
        out |= (_H8 >> np.uint64(1)) | (_H8 >> np.uint64(8)) | (_H8 >> np.uint64(9))
    return out


@njit(cache=True)
def informed_playout(p: np.uint64, o: np.uint64, rng: np.ndarray) -> np.int64:
    """A random game to the end, uniform among a filtered set of moves: a corner
    whenever one is legal, else the moves that give no corner away if any.
    Returns the final disc difference for ``p``'s side (like ``random_playout``)."""
    sign = np.int64(1)
    while True:
        m = legal_moves(p, o)
        if m == U0:
            if legal_moves(o, p) == U0:
                break
            p, o = o, p
            sign = -sign
            continue
        corners = m & _CORNERS
        if corners != U0:
            m = corners
        else:
            safe = m & ~_corner_neighbours(_CORNERS & ~(p | o))
            if safe != U0:
                m = safe
        sq = bb.nth_square(m, bb.random_below(rng, popcount(m)))
        f = flips(p, o, sq)
        p, o = o ^ f, p | f | (U1 << sq)
        sign = -sign
    return sign * (np.int64(popcount(p)) - np.int64(popcount(o)))


@njit(cache=True, nogil=True)  # searches release the GIL, so a GUI thread keeps running
def _run(
    tree: np.ndarray,
    meta: np.ndarray,
    root: np.int64,
    n: np.int64,
    c: np.float64,
    rng: np.ndarray,
    path: np.ndarray,
    solver: bool,
    informed: bool,
    bias: np.float64,
    mix: np.float64,
) -> np.int64:
    """``n`` MCTS iterations with random playouts (``informed_playout`` if
    ``informed``); stops early if the root is proven. Returns the iterations done."""
    for s in range(n):
        if tree[root].status != UNKNOWN:
            return np.int64(s)
        d = _descend(tree, root, c, False, bias, path)
        d = _leaf_result(tree, meta, path, d, solver, bias > 0)
        nd = tree[path[d]]
        if nd.status != UNKNOWN:
            r = _status_value(nd.status)
        elif nd.first >= 0 and nd.nchild == 0:
            r = -_final_sign(nd.p, nd.o)
        else:
            r = np.float64(0.0)
            if mix < 1.0:
                diff = informed_playout(nd.p, nd.o, rng) if informed else random_playout(nd.p, nd.o, rng)
                r = np.float64(-1.0) if diff > 0 else (np.float64(1.0) if diff < 0 else np.float64(0.0))
            if mix > 0.0:
                r = (1.0 - mix) * r - mix * math.tanh(evaluate(nd.p, nd.o) / _HEURISTIC_SCALE)
        _backup(tree, path, d, r, solver)
    return n


@njit(cache=True)
def _find(tree: np.ndarray, node: np.int64, p: np.uint64, o: np.uint64, depth: np.int64) -> np.int64:
    """Index of a node with position ``(p, o)`` at most ``depth`` plies below
    ``node`` (expanded nodes only), or -1."""
    nd = tree[node]
    if nd.p == p and nd.o == o:
        return node
    if depth == 0 or nd.first < 0 or popcount(nd.p | nd.o) > popcount(p | o):
        return np.int64(-1)
    for i in range(nd.first, nd.first + nd.nchild):
        found = _find(tree, np.int64(i), p, o, depth - 1)
        if found >= 0:
            return found
    return np.int64(-1)


@njit(cache=True)
def _copy_subtree(src: np.ndarray, root: np.int64, dst: np.ndarray, origin: np.ndarray) -> np.int64:
    """Copy the subtree under ``src[root]`` into ``dst`` breadth first (children
    blocks stay contiguous, the root lands at 0). Returns the nodes copied."""
    dst[0] = src[root]
    origin[0] = root
    n = np.int64(1)
    i = np.int64(0)
    while i < n:
        s = src[origin[i]]
        if s.first >= 0:
            k = np.int64(s.nchild)
            dst[i].first = n
            for j in range(k):
                dst[n + j] = src[s.first + j]
                origin[n + j] = s.first + j
            n += k
        i += 1
    return n


@njit(cache=True)
def _set_priors(tree: np.ndarray, node: np.int64, prior: np.ndarray) -> None:
    """Children priors from a 65-vector, renormalised over the children."""
    nd = tree[node]
    total = 0.0
    for i in range(nd.first, nd.first + nd.nchild):
        total += prior[tree[i].move]
    for i in range(nd.first, nd.first + nd.nchild):
        tree[i].prior = prior[tree[i].move] / total if total > 0 else 1.0 / nd.nchild


# -- Python side -----------------------------------------------------------------


@dataclass(frozen=True)
class SearchResult:
    """What a search found. ``actions`` are the root's legal actions;
    ``visits[i]`` and ``values[i]`` (mean result in [-1, 1] for the player to
    move, 0 if unvisited) belong to ``actions[i]``. ``value`` estimates the
    position for the player to move. ``nodes`` is the tree's size (or the
    positions the endgame solver visited). ``proven`` is "win", "loss" or "draw" when
    the search proved it, else None; ``disc_difference`` is the exact final
    disc difference under best play when the endgame was solved exactly (then
    ``values`` hold the sign of each move's result, exact for the best moves).
    ``reused`` counts the visits the root kept from the previous search (tree
    reuse): its children then hold ``reused - 1 + simulations`` visits, the
    first visit having expanded it (a new tree: ``simulations``)."""

    action: int
    actions: tuple[int, ...]
    visits: np.ndarray
    values: np.ndarray
    value: float
    simulations: int
    nodes: int
    seconds: float
    principal_variation: tuple[int, ...]
    proven: str | None = None
    disc_difference: int | None = None
    reused: int = 0


def _check_positive(name: str, value: object, integer: bool = False) -> None:
    kinds: tuple[type, ...] = (int, np.integer) if integer else (int, float, np.integer, np.floating)
    ok = not isinstance(value, bool) and isinstance(value, kinds)
    if not ok or not math.isfinite(float(cast(float, value))) or not cast(float, value) > 0:
        raise ValueError(f"{name} must be a positive {'int' if integer else 'number'}, got {value!r}")


class MCTSAgent:
    """Monte Carlo Tree Search player (UCT, random playouts, all in numba).

    Give exactly one budget: ``time_limit`` seconds per move (kept within 5 %;
    a search stops sooner once its choice is decided) or ``simulations`` per
    move (reproducible with a ``seed``). ``c`` is the exploration constant;
    ``reuse_tree`` keeps the subtree of the moves played; ``solver`` backs up
    proven wins and losses; ``endgame_exact`` is the number of empty squares
    from which the root is solved exactly (0 turns it off); ``evaluator``
    replaces playouts (see ``agents.search.evaluator``); ``max_nodes`` caps the tree;
    ``informed_playouts``, ``bias`` and ``mix`` steer the search with Othello
    knowledge (see the module docstring; all off is textbook UCT).
    """

    def __init__(
        self,
        time_limit: float | None = None,
        simulations: int | None = None,
        c: float = DEFAULT_C,
        seed: int | None = None,
        reuse_tree: bool = True,
        solver: bool = True,
        endgame_exact: int = DEFAULT_ENDGAME_EXACT,
        evaluator: Evaluator | None = None,
        *,
        max_nodes: int = DEFAULT_MAX_NODES,
        informed_playouts: bool = True,
        bias: float = DEFAULT_BIAS,
        mix: float = DEFAULT_MIX,
        name: str | None = None,
    ) -> None:
        """Validate the settings; raises ValueError / TypeError on bad ones."""
        if (time_limit is None) == (simulations is None):
            raise ValueError("give exactly one budget: time_limit (seconds per move) or simulations (per move)")
        if time_limit is not None:
            _check_positive("time_limit", time_limit)
        if simulations is not None:
            _check_positive("simulations", simulations, integer=True)
        _check_positive("c", c)
        _check_positive("max_nodes", max_nodes, integer=True)
        if max_nodes < 65:
            raise ValueError(f"max_nodes must be at least 65 (a root and its children), got {max_nodes}")
        for knob, value in (("bias", bias), ("mix", mix)):
            if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
                raise ValueError(f"{knob} must be a number, got {value!r}")
        if not 0.0 <= bias < math.inf:
            raise ValueError(f"bias must be a finite number >= 0, got {bias!r}")
        if not 0.0 <= mix <= 1.0:
            raise ValueError(f"mix must be in [0, 1], got {mix!r}")
        if isinstance(endgame_exact, bool) or not isinstance(endgame_exact, (int, np.integer)) or endgame_exact < 0:
            raise ValueError(f"endgame_exact must be a non-negative int (empty squares), got {endgame_exact!r}")
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0):
            raise ValueError(f"seed must be a non-negative int or None, got {seed!r}")
        if evaluator is not None and not isinstance(evaluator, Evaluator):
            raise TypeError(f"evaluator must have an evaluate(state) method, got {type(evaluator).__name__}")
        self.time_limit = None if time_limit is None else float(time_limit)
        self.simulations = None if simulations is None else int(simulations)
        self.c = float(c)
        self.seed = None if seed is None else int(seed)
        self.reuse_tree = bool(reuse_tree)
        self.solver = bool(solver)
        self.endgame_exact = int(endgame_exact)
        self.evaluator = evaluator
        self.max_nodes = int(max_nodes)
        self.informed = bool(informed_playouts)
        self.bias = float(bias)
        self.mix = float(mix)
        budget = f"{self.simulations}sims" if self.simulations is not None else f"{self.time_limit:g}s"
        self.name = name if name is not None else f"mcts-{budget}"
        self._rng = bb.make_rng(self.seed if self.seed is not None else int.from_bytes(os.urandom(8), "little"))
        self._path = np.zeros(_MAX_DEPTH, dtype=np.int64)
        self._tree: np.ndarray | None = None
        self._meta = np.zeros(2, dtype=np.int64)
        self._root = 0
        self._root_player = 0
        self.last_result: SearchResult | None = None
        """The SearchResult behind the last ``act`` (for logs and displays)."""

    # -- the Agent protocol ---------------------------------------------------------

    def act(self, observation: Observation) -> int:
        """The move for the observation's position (``search(...).action``);
        the whole SearchResult stays in ``last_result``."""
        self.last_result = self.search(observation)
        return self.last_result.action

    def reset(self) -> None:
        """Forget the tree (a new game)."""
        self._tree = None
        self._meta[:] = 0
        self._root = 0

    # -- search ----------------------------------------------------------------------

    def search(self, position: GameState | Observation) -> SearchResult:
        """Search from a GameState (e.g. ``env.unwrapped.state``, which is never
        modified) or from an observation of the player to move."""
        start = time.perf_counter()
        state = self._as_state(position)
        deadline = None if self.time_limit is None else start + self.time_limit * (1.0 - _TIME_MARGIN)
        actions = tuple(state.legal_actions())
        if len(actions) == 1:
            return SearchResult(
                actions[0], actions, np.zeros(1, np.int64), np.zeros(1), 0.0, 0, self._n_nodes(), 0.0, actions
            )
        p, o = state.kernel_boards()
        if self.endgame_exact and state.num_empty() <= self.endgame_exact:
            solved = self._solve_exact(p, o, actions, start, deadline)
            if solved is not None:
                return solved
        self._prepare_tree(p, o, state.player, start, deadline)
        assert self._tree is not None
        reused = int(self._tree[self._root]["visits"])
        simulations = self._search_loop(start, deadline)
        return self._result(actions, simulations, time.perf_counter() - start, reused)

    def _as_state(self, position: GameState | Observation) -> GameState:
        if isinstance(position, GameState):
            if position.is_terminal():
                raise InvalidPositionError(f"the game is over: there is nothing to search\n{position}")
            return position
        if isinstance(position, Mapping):
            return state_to_move(position)
        raise TypeError(f"search needs a GameState or an observation dict, got {type(position).__name__}")

    def _n_nodes(self) -> int:
        return int(self._meta[0]) if self._tree is not None else 0

    def _solve_exact(
        self, p: np.uint64, o: np.uint64, actions: tuple[int, ...], start: float, deadline: float | None
    ) -> SearchResult | None:
        """The root solved exactly, or None if the clock allows no full solve."""
        if actions == (PASS,):
            return None
        limit = 2**62
        if deadline is not None:
            # At most half the time left, so a solve too big to finish leaves MCTS the rest.
            limit = max(1, int(0.5 * (deadline - time.perf_counter()) * _SOLVER_NODES_PER_SECOND))
        scores = np.empty(64, dtype=np.int64)
        exact = np.zeros(64, dtype=np.bool_)
        nodes = int(solve_root(p, o, np.int64(limit), scores, exact))
        if nodes < 0:
            return None
        best = [a for a in actions if exact[a]]
        action = best[int(bb.random_below(self._rng, np.uint64(len(best))))] if len(best) > 1 else best[0]
        score = int(scores[action])
        values = np.sign(np.array([scores[a] for a in actions], dtype=np.float64))
        proven = "win" if score > 0 else ("loss" if score < 0 else "draw")
        seconds = time.perf_counter() - start
        return SearchResult(
            action, actions, np.zeros(len(actions), np.int64), values, float(np.sign(score)), 0, nodes, seconds,
            (action,), proven, score,
        )  # fmt: skip

    def _capacity(self, reused: int, deadline: float | None, start: float) -> int:
        if self.simulations is not None:
            budget = self.simulations
        else:
            budget = int(max(0.0, (deadline or start) - start) * _SIMULATIONS_PER_SECOND)
        return int(min(self.max_nodes, reused + _NODES_PER_SIMULATION * budget + 1024))

    def _prepare_tree(self, p: np.uint64, o: np.uint64, player: int, start: float, deadline: float | None) -> None:
        """Re-root the old tree at this position if it holds it, else start anew."""
        found = -1
        if self.reuse_tree and self._tree is not None:
            found = int(_find(self._tree, np.int64(self._root), p, o, np.int64(_REUSE_DEPTH)))
        if found >= 0 and self._tree is not None:
            old = self._tree
            size = self._capacity(0, deadline, start)
            origin = np.empty(min(int(self._meta[0]), self.max_nodes), dtype=np.int32)
            new = np.empty(max(size, len(origin)), dtype=NODE_DTYPE)
            n = int(_copy_subtree(old, np.int64(found), new, origin))
            capacity = self._capacity(n, deadline, start)
            if capacity > len(new):
                grown = np.empty(capacity, dtype=NODE_DTYPE)
                grown[:n] = new[:n]
                new = grown
            self._tree, self._root = new, 0
            self._meta[0], self._meta[1] = n, len(new)
        else:
            self._tree = np.empty(self._capacity(0, deadline, start), dtype=NODE_DTYPE)
            _init_node(self._tree, np.int64(0), p, o, np.int64(PASS), 1.0)
            self._root = 0
            self._meta[0], self._meta[1] = 1, len(self._tree)
        self._root_player = player
        if self._tree[0]["first"] < 0:
            _expand(self._tree, self._meta, np.int64(0), self.solver, self.bias > 0)

    def _root_children(self) -> np.ndarray:
        assert self._tree is not None
        root = self._tree[self._root]
        return self._tree[int(root["first"]) : int(root["first"]) + int(root["nchild"])]

    def _search_loop(self, start: float, deadline: float | None) -> int:
        """Run batches until the budget is spent or the choice is decided."""
        assert self._tree is not None
        tree, root = self._tree, np.int64(self._root)
        if self.evaluator is not None:
            return self._evaluator_loop(deadline)
        if deadline is None:
            assert self.simulations is not None
            return self._run_batch(self.simulations)
        done = 0
        rate = float(_SIMULATIONS_PER_SECOND)
        while True:
            now = time.perf_counter()
            left = deadline - now
            if (left <= 0 and done) or tree[root]["status"] != UNKNOWN:
                break
            if done and self._decided(rate * left):
                break
            batch = max(16, int(rate * min(left * 0.5, 0.02)))
            t = time.perf_counter()
            ran = self._run_batch(batch)
            dt = time.perf_counter() - t
            done += ran
            if ran < batch:
                break
            if dt > 0:
                rate = ran / dt
        return done

    def _run_batch(self, n: int) -> int:
        """``n`` iterations in numba (fewer if the root gets proven)."""
        assert self._tree is not None
        return int(
            _run(
                self._tree,
                self._meta,
                np.int64(self._root),
                np.int64(n),
                np.float64(self.c),
                self._rng,
                self._path,
                self.solver,
                self.informed,
                np.float64(self.bias),
                np.float64(self.mix),
            )
        )

    def _decided(self, remaining: float) -> bool:
        """True when the most visited root move can no longer be overtaken."""
        visits = np.sort(self._root_children()["visits"])
        return len(visits) < 2 or visits[-1] - visits[-2] > remaining

    def _evaluator_loop(self, deadline: float | None) -> int:
        """The Python-driven path: numba selects and backs up, Python asks the
        evaluator about each new leaf. PUCT when the evaluator gives priors."""
        assert self._tree is not None and self.evaluator is not None
        tree, meta, root, path = self._tree, self._meta, np.int64(self._root), self._path
        c = np.float64(self.c)
        puct = self._evaluate_leaf(root, 0, use_prior=True)[1]
        done = 0
        while self.simulations is None or done < self.simulations:
            if tree[root]["status"] != UNKNOWN or (deadline is not None and time.perf_counter() >= deadline):
                break
            d = int(_descend(tree, root, c, puct, np.float64(0.0), path))
            leaf = int(path[d])
            node = tree[leaf]
            if node["status"] == UNKNOWN and node["first"] < 0:
                _expand(tree, meta, np.int64(leaf), self.solver, False)
            if node["status"] != UNKNOWN:
                r = float(_status_value(node["status"]))
            elif node["first"] >= 0 and node["nchild"] == 0:
                r = -float(_final_sign(node["p"], node["o"]))
            else:
                r = -self._evaluate_leaf(leaf, d, use_prior=puct)[0]
            _backup(tree, path, np.int64(d), np.float64(r), self.solver)
            done += 1
        return done

    def _evaluate_leaf(self, leaf: int, depth: int, use_prior: bool) -> tuple[float, bool]:
        """Ask the evaluator about node ``leaf``; set its children's priors.
        Returns the value for the leaf's mover and whether a prior came back."""
        assert self._tree is not None and self.evaluator is not None
        node = self._tree[leaf]
        player = (self._root_player + depth) % 2
        state = GameState.from_kernel(node["p"], node["o"], player)
        value, prior = self.evaluator.evaluate(state)
        value = float(value)
        if not math.isfinite(value) or not -1.0 <= value <= 1.0:
            raise ValueError(f"evaluator value must be a number in [-1, 1], got {value!r}")
        if prior is None:
            return value, False
        prior = np.asarray(prior, dtype=np.float64)
        if prior.shape != (65,) or not np.all(np.isfinite(prior)) or np.any(prior < 0):
            raise ValueError(f"evaluator prior must be 65 non-negative finite numbers, got shape {prior.shape}")
        if use_prior and node["first"] >= 0:
            _set_priors(self._tree, np.int64(leaf), prior)
        return value, True

    def _result(self, actions: tuple[int, ...], simulations: int, seconds: float, reused: int) -> SearchResult:
        assert self._tree is not None
        kids = self._root_children()
        visits = kids["visits"].astype(np.int64)
        status = kids["status"]
        values = np.where(visits > 0, kids["value"] / np.maximum(visits, 1), 0.0)
        values = np.where(status == WIN, 1.0, np.where(status == LOSS, -1.0, np.where(status == DRAW, 0.0, values)))
        best = self._best_child(kids)
        moves = tuple(int(m) for m in kids["move"])
        order = [moves.index(a) for a in actions]
        root_status = int(self._tree[self._root]["status"])
        # The root's status is for the player who moved into it: flip it.
        proven = {WIN: "loss", LOSS: "win", DRAW: "draw"}.get(root_status)
        return SearchResult(
            action=moves[best],
            actions=actions,
            visits=visits[order],
            values=values[order],
            value=float(values[best]),
            simulations=simulations,
            nodes=int(self._meta[0]),
            seconds=seconds,
            principal_variation=self._principal_variation(),
            proven=proven,
            reused=reused,
        )

    @staticmethod
    def _best_child(kids: np.ndarray) -> int:
        """Index of the child to play: proven win, then visits, then mean value."""
        best, best_key = 0, None
        for i, k in enumerate(kids):
            n = int(k["visits"])
            key = (int(k["status"] == WIN), int(k["status"] != LOSS), n, float(k["value"]) / n if n else 0.0)
            if best_key is None or key > best_key:
                best, best_key = i, key
        return best

    def _principal_variation(self) -> tuple[int, ...]:
        """The best line: best child after best child, down to an unvisited node."""
        assert self._tree is not None
        pv: list[int] = []
        node = self._tree[self._root]
        while node["first"] >= 0 and node["nchild"] > 0 and len(pv) < 64:
            kids = self._tree[int(node["first"]) : int(node["first"]) + int(node["nchild"])]
            i = self._best_child(kids)
            if kids[i]["visits"] == 0 and kids[i]["status"] == UNKNOWN:
                break
            pv.append(int(kids[i]["move"]))
            node = kids[i]
        return tuple(pv)
