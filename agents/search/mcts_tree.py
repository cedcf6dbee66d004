"""The MCTS tree: nodes in one flat array, and the numba kernels that grow it.

The tree is one preallocated numpy array of 40-byte nodes (``NODE_DTYPE``).
A node holds its position (``p``, ``o``: the mover's and the opponent's
discs), the move that led to it, its visit count and value sum (from the side
of the player who made that move), its prior, its proven status and its
children as a contiguous block (``first``, ``nchild``). Passes are moves in the
tree, so every edge changes the player to move. ``meta`` holds the nodes in use
and the pool's size.

The kernels are the parts of one iteration (``descend`` with ``select``,
``prepare_leaf`` with ``expand``, ``backup``) and ``simulate``, which runs many
iterations with a playout and a static evaluation at the leaves, as an
``MCTSConfig`` says (its ``record``, one argument). Static
evaluations are ``LeafValue`` functions passed in (numba first-class functions),
so a learned evaluation replaces the hand-written one without recompiling the
search. ``Tree`` is the pool on the Python side: a new tree, a reused subtree,
and what a search reads from the root; ``combine_roots`` merges the roots of
independent trees (root-parallel search).

Several threads may grow one tree at once (``simulate_shared``, with
``descend`` and ``prepare_leaf`` of a ``shared`` tree and ``backup_shared``): each takes new nodes from its own
part of the array (``Tree.pools``), a node is expanded by the one thread that
``claim``s it and its children are ``publish``ed by the write of ``first``,
after them (readers take ``first``, then ``nchild``: ``published_children``);
visits and values change without locks (``add_visits``, ``add_value``: a
relaxed atomic load and store each, numba intrinsics over LLVM's atomic
instructions), as Fuego's lock-free tree does, with a virtual loss on the path
of every simulation under way. An update another thread makes in between is
lost (0.15-0.45 % of the root's, 0.02-0.03 % of all: docs/engine.md), which
the search shrugs off; what a search reports stays exact: each thread also
tallies the root and its children in a row of its own (``Tree.tally``), which
``Tree.gather`` writes into them.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np
from llvmlite import ir
from numba import from_dtype, njit, types
from numba.core import cgutils
from numba.extending import intrinsic
from numba.types import boolean, float64, int64, uint64

from agents.search.borrowed import borrowed
from agents.search.mcts_config import CONFIG_TYPE, MCTSConfig
from agents.search.selection import puct_score
from reversi_env.bitboard import CORNER_AWARE, U0, U1, UNIFORM, flips, legal_moves, lowest_square, playout, popcount
from reversi_env.notation import PASS

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

MAX_VISITS = 2**31 - 1
"""Visits are int32: a search stops before its root would pass this."""

MAX_DEPTH = 128
"""Length of the path buffer: deeper than any game (60 moves and passes)."""

LEAF_WEIGHTS = types.float32[::1]
"""The numba type of the weights a static evaluation reads (one contiguous float32 array)."""

LEAF_VALUE_TYPE = types.FunctionType(float64(uint64, uint64, LEAF_WEIGHTS))
"""The numba type of a static evaluation ``value(p, o, weights) -> float64``:
the expected outcome in [-1, 1] for the player to move (``p``) in a position
that is not over, read from ``weights`` (passed in, never a global: numba would
freeze a global array into its cache). Any ``@njit`` function of that shape can
be passed."""

LeafValue = Callable[[np.uint64, np.uint64, np.ndarray], float]
"""A static evaluation as Python sees it (see ``LEAF_VALUE_TYPE``)."""

_NODES = from_dtype(NODE_DTYPE)[::1]
_INDEX = types.int64[::1]
_RNG = types.uint64[::1]

UNEXPANDED, EXPANDING = -1, -2
"""``first`` of a node without children yet, and of one whose children a thread
of a shared-tree search is creating (it claimed the node, ``claim``)."""

VIRTUAL_LOSS = 1.0
"""What a shared-tree search counts against a node while a thread's simulation
through it is under way: one visit lost, taken back at the backup."""

TALLY_SLOTS = 68
"""A thread's tally row (``Tree.pools``): the root, then up to 64 children and
a pass, padded to 68 16-byte slots, a whole number of 64-byte cache lines, so
two threads' rows share at most the line where one ends."""

_TALLY = types.float64[:, :, ::1]


# -- one node's fields, shared by threads (shared-tree search) ----------------------

_OFFSETS = {name: int(spec[1]) for name, spec in (NODE_DTYPE.fields or {}).items()}
"""Byte offset of each field in a node."""


def _field_pointer(context, builder, arrty, array, index, field: str, llty):  # type: ignore[no-untyped-def]
    """LLVM pointer to ``field`` of node ``index`` of the node array ``array``."""
    nodes = context.make_array(arrty)(context, builder, array)
    node = cgutils.get_item_pointer(context, builder, arrty, nodes, [index], wraparound=False)
    raw = builder.bitcast(node, ir.IntType(8).as_pointer())
    at = builder.gep(raw, [ir.Constant(ir.IntType(64), _OFFSETS[field])])
    return builder.bitcast(at, llty.as_pointer())


@intrinsic
def add_visits(typingctx, tree, node, delta):  # type: ignore[no-untyped-def]
    """``tree[node].visits += delta`` by a relaxed atomic load and store: no
    locked instruction (locked adds cost a shared tree about a sixth of its
    speed, docs/engine.md) and never a torn count; an update another thread
    stores between the two is lost."""
    sig = types.void(tree, types.int64, types.int32)

    def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
        ptr = _field_pointer(context, builder, signature.args[0], args[0], args[1], "visits", ir.IntType(32))
        builder.store_atomic(builder.add(builder.load_atomic(ptr, "monotonic", 4), args[2]), ptr, "monotonic", 4)
        return context.get_dummy_value()

    return sig, codegen


@intrinsic
def add_value(typingctx, tree, node, delta):  # type: ignore[no-untyped-def]
    """``tree[node].value += delta`` as ``add_visits`` adds (a locked float
    add would be a compare-and-swap loop)."""
    sig = types.void(tree, types.int64, types.float64)

    def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
        ptr = _field_pointer(context, builder, signature.args[0], args[0], args[1], "value", ir.DoubleType())
        builder.store_atomic(builder.fadd(builder.load_atomic(ptr, "monotonic", 8), args[2]), ptr, "monotonic", 8)
        return context.get_dummy_value()

    return sig, codegen


@intrinsic
def claim(typingctx, tree, node):  # type: ignore[no-untyped-def]
    """Set ``tree[node].first`` from UNEXPANDED to EXPANDING in one atomic step:
    True for the one thread that did, which then expands the node."""
    sig = types.boolean(tree, types.int64)

    def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
        ptr = _field_pointer(context, builder, signature.args[0], args[0], args[1], "first", ir.IntType(32))
        old, new = ir.Constant(ir.IntType(32), UNEXPANDED), ir.Constant(ir.IntType(32), EXPANDING)
        return builder.extract_value(builder.cmpxchg(ptr, old, new, "acq_rel", "monotonic"), 1)

    return sig, codegen


@intrinsic
def published_first(typingctx, tree, node):  # type: ignore[no-untyped-def]
    """``tree[node].first`` read before anything after it (acquire): with ``publish``,
    a thread that reads ``first >= 0`` here reads the ``nchild`` and children written."""
    sig = types.int32(tree, types.int64)

    def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
        ptr = _field_pointer(context, builder, signature.args[0], args[0], args[1], "first", ir.IntType(32))
        return builder.load_atomic(ptr, "acquire", 4)

    return sig, codegen


@intrinsic
def publish(typingctx, tree, node, first):  # type: ignore[no-untyped-def]
    """``tree[node].first = first`` stored after every write before it (release):
    a thread that reads ``first >= 0`` finds the children and ``nchild`` written."""
    sig = types.void(tree, types.int64, types.int32)

    def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
        ptr = _field_pointer(context, builder, signature.args[0], args[0], args[1], "first", ir.IntType(32))
        builder.store_atomic(args[2], ptr, "release", 4)
        return context.get_dummy_value()

    return sig, codegen


# -- one iteration -------------------------------------------------------------------


@njit(float64(uint64, uint64), cache=True)
def final_sign(p: np.uint64, o: np.uint64) -> np.float64:
    """+1, 0 or -1: the finished game's result for the player to move."""
    d = np.int64(popcount(p)) - np.int64(popcount(o))
    return np.float64(1.0) if d > 0 else (np.float64(-1.0) if d < 0 else np.float64(0.0))


@njit(cache=True)
def status_value(status: np.uint8) -> np.float64:
    """The result a proven status stands for (+1, -1, 0; 0 for UNKNOWN)."""
    if status == WIN:
        return np.float64(1.0)
    if status == LOSS:
        return np.float64(-1.0)
    return np.float64(0.0)


@njit(cache=True)
def init_node(tree: np.ndarray, i: np.int64, p: np.uint64, o: np.uint64, move: np.int64, prior: np.float64) -> None:
    """Write a fresh, unexpanded node at ``tree[i]``."""
    nd = tree[i]
    nd.p = p
    nd.o = o
    nd.value = 0.0
    nd.visits = 0
    nd.first = UNEXPANDED
    nd.prior = prior
    nd.nchild = 0
    nd.move = move
    nd.status = UNKNOWN


@njit(boolean(_NODES, _INDEX, int64, boolean, boolean, LEAF_VALUE_TYPE, LEAF_WEIGHTS), cache=True)
def expand(
    tree: np.ndarray,
    meta: np.ndarray,
    node: np.int64,
    solver: bool,
    heuristic: bool,
    value: LeafValue,
    weights: np.ndarray,
) -> bool:
    """Create all children of ``node`` in one block; a finished game gets none
    (and, with the solver, its proven status). With ``heuristic`` each child's
    ``prior`` holds ``value`` for the player who moves into it (progressive
    bias, and the child's static value), else 1 / children. False if the pool
    is full."""
    nd = tree[node]
    p = nd.p
    o = nd.o
    m = legal_moves(p, o)
    n = meta[0]
    if m == U0:
        if legal_moves(o, p) == U0:
            nd.nchild = 0
            if solver:
                # The player who moved into this node sees the difference negated.
                s = final_sign(p, o)
                nd.status = LOSS if s > 0 else (WIN if s < 0 else DRAW)
            publish(tree, node, np.int32(n))
            return True
        if n + 1 > meta[1]:
            return False
        init_node(tree, n, o, p, PASS, -value(o, p, weights) if heuristic else 1.0)
        nd.nchild = 1
        publish(tree, node, np.int32(n))
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
        h = -value(cp, co, weights) if heuristic else prior
        init_node(tree, i, cp, co, np.int64(sq), h)
        i += 1
    nd.nchild = k
    publish(tree, node, np.int32(n))  # last: another thread may be reading the node (shared tree)
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
def select(tree: np.ndarray, node: np.int64, config: MCTSConfig, puct: bool) -> np.int64:
    """The child to descend into: UCT (unvisited children first, best
    heuristic first) plus ``bias * heuristic / (visits + 1)``, or PUCT
    (``selection.puct_score``); children proven lost for the mover are skipped
    while others remain. With ``fpu`` an unvisited child is not tried first but
    scored as if visited once with its prior (its static value) as the result.
    With ``minimax > 0`` a visited child's mean counts ``1 - minimax`` and its
    prior (then its minimax value, see ``backup_minimax``) ``minimax``.
    ``config`` is an ``MCTSConfig.record``."""
    c, bias, alpha = config.c, config.bias, config.minimax
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
            score = puct_score(ch.value, n, ch.prior, c, explore)
        elif n == 0:
            score = ch.prior * (1.0 + bias) + c * math.sqrt(explore) if config.fpu else 1e9 + ch.prior
        else:
            q = ch.value / n if alpha == 0.0 else (1.0 - alpha) * ch.value / n + alpha * ch.prior
            score = q + c * math.sqrt(explore / n) + bias * ch.prior / (n + 1.0)
        if score > best:
            best = score
            best_i = np.int64(i)
    return best_i


@njit(cache=True)
def published_children(tree: np.ndarray, node: np.int64) -> tuple[np.int64, np.int64]:
    """``node``'s children block as ``(first, count)``, read once and in order:
    ``first`` by ``published_first`` (acquire), then ``nchild``. A node another
    thread is expanding reads as unexpanded (``first < 0``, no children) or as
    its whole block, never as a published ``first`` with a stale ``nchild``."""
    first = np.int64(published_first(tree, node))
    if first < 0:
        return first, np.int64(0)
    return first, np.int64(tree[node].nchild)


@njit(cache=True)
def descend(
    tree: np.ndarray, root: np.int64, config: MCTSConfig, puct: bool, shared: bool, path: np.ndarray
) -> np.int64:
    """Select (``select``, by ``config``, an ``MCTSConfig.record``) from ``root``
    to a leaf (unexpanded, finished or proven); the path goes into ``path``;
    returns its last index. In a tree other threads are searching (``shared``)
    each node on the path gets its visit at once and a virtual loss
    (``VIRTUAL_LOSS``) until the backup (``backup_shared``), so the next
    thread's descent turns elsewhere."""
    node = root
    d = np.int64(0)
    path[0] = root
    if shared:
        add_visits(tree, root, np.int32(1))
    while d < path.shape[0] - 2:
        if (tree[node].status != UNKNOWN and node != root) or published_children(tree, node)[1] == 0:
            break
        node = select(tree, node, config, puct)
        d += 1
        path[d] = node
        if shared:
            add_visits(tree, node, np.int32(1))
            add_value(tree, node, -VIRTUAL_LOSS)
    return d


@njit(cache=True)
def backup_proof(tree: np.ndarray, path: np.ndarray, d: np.int64) -> None:
    """Once the leaf ``path[d]`` is proven, prove its ancestors whose children
    now decide them, up to the first that stays open."""
    if tree[path[d]].status == UNKNOWN:
        return
    for k in range(d - 1, -1, -1):
        nd = tree[path[k]]
        if nd.status != UNKNOWN:
            break
        s = _child_status(tree, path[k])
        if s == UNKNOWN:
            break
        nd.status = s


@njit(cache=True)
def backup(tree: np.ndarray, path: np.ndarray, d: np.int64, r: np.float64, solver: bool) -> None:
    """Add result ``r`` (for the player who moved into the leaf ``path[d]``)
    up the path, negating at each ply, and back up proofs."""
    for k in range(d, -1, -1):
        nd = tree[path[k]]
        nd.visits += 1
        nd.value += r
        r = -r
    if solver:
        backup_proof(tree, path, d)


@njit(cache=True)
def best_prior(tree: np.ndarray, first: np.int64, count: np.int64) -> tuple[np.int64, float]:
    """Of the ``count`` children from ``first`` (an expanded node's block), the
    one with the highest prior (a proven child counts its result instead) and
    that value: with static values as priors, the one-ply search of their
    parent for its mover."""
    best_i = np.int64(first)
    best = -np.inf
    for i in range(first, first + count):
        ch = tree[i]
        v = np.float64(ch.prior) if ch.status == UNKNOWN else status_value(ch.status)
        if v > best:
            best = v
            best_i = np.int64(i)
    return best_i, best


@njit(cache=True)
def backup_minimax(tree: np.ndarray, path: np.ndarray, d: np.int64) -> None:
    """Implicit minimax backups: each expanded node on the path, from the leaf
    up, takes as its ``prior`` minus the best of its children's, so priors
    (static values at first) become the minimax values of the tree's frontier;
    stops where nothing changes."""
    for k in range(d, 0, -1):
        nd = tree[path[k]]
        first, count = published_children(tree, path[k])  # the leaf may be another thread's expansion
        if count == 0:
            continue
        v = np.float32(-best_prior(tree, first, count)[1])
        if v == nd.prior:
            break
        nd.prior = v


@njit(cache=True)
def prepare_leaf(
    tree: np.ndarray,
    meta: np.ndarray,
    path: np.ndarray,
    d: np.int64,
    config: MCTSConfig,
    shared: bool,
    value: LeafValue,
    weights: np.ndarray,
) -> np.int64:
    """Prepare the leaf ``path[d]`` for evaluation: expand it (with ``ply=1`` on
    its first visit, else on its second, stepping into its first child: with
    ``guided``, the child of the best static value), or mark a finished game.
    In a ``shared`` tree only the thread that ``claim``s a node expands it, a
    full pool gives the claim back, and the visits are counted already
    (``descend``). Returns the new path end."""
    solver, guided, ply = config.solver, config.guided, config.ply
    nd = tree[path[d]]
    # descend counted a shared tree's visit: there "visited before" is 2 visits.
    ready = ply > 0 or d == 0 or nd.visits >= (2 if shared else 1)
    if nd.status == UNKNOWN and nd.first == UNEXPANDED and ready and (not shared or claim(tree, path[d])):
        if not expand(tree, meta, path[d], solver, guided, value, weights):
            if shared:
                publish(tree, path[d], np.int32(UNEXPANDED))  # the pool is full: the leaf stays one
        elif ply == 0 and nd.nchild > 0:
            d += 1
            path[d] = best_prior(tree, nd.first, nd.nchild)[0] if guided else nd.first
            if shared:
                add_visits(tree, path[d], np.int32(1))
                add_value(tree, path[d], -VIRTUAL_LOSS)
    nd = tree[path[d]]
    if (
        ply == 0
        and solver
        and nd.status == UNKNOWN
        and nd.first == UNEXPANDED
        and legal_moves(nd.p, nd.o) == U0
        and legal_moves(nd.o, nd.p) == U0
        and (not shared or claim(tree, path[d]))
    ):
        expand(tree, meta, path[d], solver, guided, value, weights)  # a finished game: its proof
    return d


@njit(cache=True)
def leaf_result(
    tree: np.ndarray, leaf: np.int64, rng: np.ndarray, config: MCTSConfig, value: LeafValue, weights: np.ndarray
) -> np.float64:
    """The result of a simulation ending at ``leaf``, for the player who moved
    into it: its proof, a finished game's, or ``(1 - mix) * playout + mix *
    static`` (see ``simulate``; ``config`` is an ``MCTSConfig.record``)."""
    mix = config.mix
    nd = tree[leaf]
    if nd.status != UNKNOWN:
        return status_value(nd.status)
    first, count = published_children(tree, leaf)  # another thread may be expanding the leaf (shared tree)
    if first >= 0 and count == 0:
        return -final_sign(nd.p, nd.o)
    r = np.float64(0.0)
    if mix < 1.0:
        diff = playout(nd.p, nd.o, rng, CORNER_AWARE if config.informed_playouts else UNIFORM)
        r = np.float64(-1.0) if diff > 0 else (np.float64(1.0) if diff < 0 else np.float64(0.0))
    if mix > 0.0:
        if config.ply > 0 and first >= 0:
            static = -best_prior(tree, first, count)[1]
        elif config.guided:
            static = np.float64(nd.prior)  # the value, for the player who moved into the leaf
        else:
            static = -value(nd.p, nd.o, weights)
        r = (1.0 - mix) * r + mix * static
    return r


# -- a tree shared by threads -------------------------------------------------------


@njit(cache=True)
def backup_shared(
    tree: np.ndarray, tally: np.ndarray, mine: np.int64, path: np.ndarray, d: np.int64, r: np.float64, solver: bool
) -> None:
    """``backup`` after a ``shared`` ``descend``: the visits are counted already, the
    virtual losses are taken back as the result goes in; the root's and its
    child's visit and result also go into this thread's row ``mine`` of
    ``tally`` (slot 0 the root, 1 + i its child i), which no other thread
    writes, so they are exact."""
    for k in range(d, 0, -1):
        add_value(tree, path[k], r + VIRTUAL_LOSS)
        r = -r
    add_value(tree, path[0], r)
    own = tally[mine]
    own[0, 0] += 1.0
    own[0, 1] += r
    if d > 0:
        slot = 1 + path[1] - tree[path[0]].first
        own[slot, 0] += 1.0
        own[slot, 1] -= r  # the child's result is the root's negated
    if solver:
        backup_proof(tree, path, d)


# -- the loop ------------------------------------------------------------------------


@njit(cache=True)
def iterate(
    tree: np.ndarray,
    tally: np.ndarray,
    mine: np.int64,
    meta: np.ndarray,
    root: np.int64,
    n: np.int64,
    config: MCTSConfig,
    rng: np.ndarray,
    path: np.ndarray,
    value: LeafValue,
    weights: np.ndarray,
    shared: bool,
) -> np.int64:
    """The loop of ``simulate`` and, in a ``shared`` tree, of ``simulate_shared``
    (whose arguments these are; ``tally`` and ``mine`` are read in a shared tree
    only): ``n`` iterations of descend, prepare the leaf, value it, back up."""
    # Uncounted views for the calls of every simulation (agents.search.borrowed).
    tree, tally, meta = borrowed(tree), borrowed(tally), borrowed(meta)
    rng, path, weights = borrowed(rng), borrowed(path), borrowed(weights)
    for s in range(n):
        if tree[root].status != UNKNOWN:
            return np.int64(s)
        d = descend(tree, root, config, False, shared, path)
        d = prepare_leaf(tree, meta, path, d, config, shared, value, weights)
        r = leaf_result(tree, path[d], rng, config, value, weights)
        if shared:
            backup_shared(tree, tally, mine, path, d, r, config.solver)
        else:
            backup(tree, path, d, r, config.solver)
        if config.minimax > 0.0:
            backup_minimax(tree, path, d)
    return n


_SIMULATE_SIGNATURE = int64(_NODES, _INDEX, int64, int64, CONFIG_TYPE, _RNG, _INDEX, LEAF_VALUE_TYPE, LEAF_WEIGHTS)
"""``simulate``'s explicit signature (see its arguments)."""


@njit(
    _SIMULATE_SIGNATURE,
    cache=True,
    nogil=True,  # searches release the GIL, so a GUI thread keeps running
)
def simulate(
    tree: np.ndarray,
    meta: np.ndarray,
    root: np.int64,
    n: np.int64,
    config: MCTSConfig,
    rng: np.ndarray,
    path: np.ndarray,
    value: LeafValue,
    weights: np.ndarray,
) -> np.int64:
    """``n`` UCT iterations from ``root`` as ``config`` (an ``MCTSConfig.record``)
    says; stops early if the root is proven. A leaf's result is ``(1 - mix) *
    playout + mix * static`` (a playout by ``reversi_env.bitboard.playout``,
    corner-aware with ``informed_playouts``; ``static`` is ``value`` of the
    leaf, or with ``ply=1`` the best of its children's values: the leaf is then
    expanded on its first visit, a one-ply search at every leaf); ``bias > 0``
    adds progressive bias from ``value``; ``fpu`` scores unvisited children by
    their value and ``minimax > 0`` mixes minimax values into the means (see
    ``select`` and ``backup_minimax``). Returns the iterations done."""
    no_tally = np.zeros((0, TALLY_SLOTS, 2))
    return iterate(tree, no_tally, np.int64(0), meta, root, n, config, rng, path, value, weights, False)


_SHARED_SIGNATURE = int64(
    _NODES, _TALLY, int64, _INDEX, int64, int64, CONFIG_TYPE, _RNG, _INDEX, LEAF_VALUE_TYPE, LEAF_WEIGHTS
)
"""``simulate_shared``'s explicit signature: ``simulate``'s with the tallies and the thread's row after the tree."""


@njit(
    _SHARED_SIGNATURE,
    cache=True,
    nogil=True,
)
def simulate_shared(
    tree: np.ndarray,
    tally: np.ndarray,
    mine: np.int64,
    meta: np.ndarray,
    root: np.int64,
    n: np.int64,
    config: MCTSConfig,
    rng: np.ndarray,
    path: np.ndarray,
    value: LeafValue,
    weights: np.ndarray,
) -> np.int64:
    """``simulate`` on a tree that other threads grow at the same time (tree
    parallelisation): ``meta`` is this thread's own pool (next free node, end)
    in the shared array, so allocation needs no lock; a leaf is expanded by the
    one thread that claims it (``claim``), a thread that finds it claimed values
    it by its static value; visits and values change without locks, with a
    virtual loss while a simulation is under way (``descend`` of a shared tree), and
    the root's and its children's are tallied exactly in row ``mine`` of
    ``tally`` (``backup_shared``; ``Tree.pools`` makes the rows,
    ``Tree.gather`` writes them in). Proven statuses and minimax values are
    plain writes: two threads write the same proof, and a minimax value lost
    to a race is written again by the next backup through the node. Returns
    the iterations done."""
    return iterate(tree, tally, mine, meta, root, n, config, rng, path, value, weights, True)


# -- reuse between moves -------------------------------------------------------------


@njit(cache=True)
def find(tree: np.ndarray, node: np.int64, p: np.uint64, o: np.uint64, depth: np.int64) -> np.int64:
    """Index of a node with position ``(p, o)`` at most ``depth`` plies below
    ``node`` (expanded nodes only), or -1."""
    nd = tree[node]
    if nd.p == p and nd.o == o:
        return node
    if depth == 0 or nd.first < 0 or popcount(nd.p | nd.o) > popcount(p | o):
        return np.int64(-1)
    for i in range(nd.first, nd.first + nd.nchild):
        found = find(tree, np.int64(i), p, o, depth - 1)
        if found >= 0:
            return found
    return np.int64(-1)


@njit(cache=True)
def copy_subtree(src: np.ndarray, root: np.int64, dst: np.ndarray, origin: np.ndarray) -> np.int64:
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
def set_priors(tree: np.ndarray, node: np.int64, prior: np.ndarray) -> None:
    """Children priors from a 65-vector, renormalised over the children."""
    nd = tree[node]
    total = 0.0
    for i in range(nd.first, nd.first + nd.nchild):
        total += prior[tree[i].move]
    for i in range(nd.first, nd.first + nd.nchild):
        tree[i].prior = prior[tree[i].move] / total if total > 0 else 1.0 / nd.nchild


# -- the pool, from Python -----------------------------------------------------------


class Tree:
    """One game's search tree: the node array, the nodes in use and the root.

    ``start`` plants a new root; ``reroot`` keeps the subtree of a position a
    few plies below the old root (tree reuse), copied to the front of a new
    array so the pool never fills with dead branches.
    """

    def __init__(self) -> None:
        self.nodes = np.empty(0, dtype=NODE_DTYPE)
        self.meta = np.zeros(2, dtype=np.int64)
        """Nodes in use, pool size (the kernels' ``meta``)."""
        self.root = 0
        self.tally = np.zeros((0, TALLY_SLOTS, 2))
        """The threads' exact tallies of the root and its children during a shared-tree search (``backup_shared``)."""
        self._tallied = np.zeros(0, dtype=NODE_DTYPE)
        """The root and its children as they were when the tallies began."""

    @property
    def size(self) -> int:
        """Nodes in use."""
        return int(self.meta[0])

    def clear(self) -> None:
        """Forget every node (a new game)."""
        self.nodes = np.empty(0, dtype=NODE_DTYPE)
        self.meta[:] = 0
        self.root = 0

    def start(self, p: np.uint64, o: np.uint64, capacity: int) -> None:
        """A new tree of ``capacity`` nodes holding only the root ``(p, o)``."""
        self.nodes = np.empty(capacity, dtype=NODE_DTYPE)
        init_node(self.nodes, np.int64(0), p, o, np.int64(PASS), 1.0)
        self.root = 0
        self.meta[0], self.meta[1] = 1, capacity

    def reroot(self, p: np.uint64, o: np.uint64, depth: int, capacity: Callable[[int], int]) -> bool:
        """Make the node of ``(p, o)``, at most ``depth`` plies below the root,
        the new root with its subtree, in a pool of ``capacity(kept nodes)``
        nodes at least. False (nothing changed) if the tree does not hold it."""
        if self.size == 0:
            return False
        found = int(find(self.nodes, np.int64(self.root), p, o, np.int64(depth)))
        if found < 0:
            return False
        origin = np.empty(self.size, dtype=np.int32)
        new = np.empty(max(capacity(0), self.size), dtype=NODE_DTYPE)
        n = int(copy_subtree(self.nodes, np.int64(found), new, origin))
        if capacity(n) > len(new):
            grown = np.empty(capacity(n), dtype=NODE_DTYPE)
            grown[:n] = new[:n]
            new = grown
        self.nodes, self.root = new, 0
        self.meta[0], self.meta[1] = n, len(new)
        return True

    def pools(self, threads: int) -> list[np.ndarray]:
        """The free nodes split into ``threads`` pools, one a thread of a
        shared-tree search (``simulate_shared``): each a ``meta`` (next free
        node, end) followed by its start. Also zeroes the threads' ``tally``
        rows; the root must be expanded."""
        self.tally = np.zeros((threads, TALLY_SLOTS, 2))
        self._tallied = np.concatenate([self.nodes[self.root : self.root + 1], self.children()])
        bounds = np.linspace(self.meta[0], self.meta[1], threads + 1).astype(np.int64)
        return [np.array([bounds[i], bounds[i + 1], bounds[i]], dtype=np.int64) for i in range(threads)]

    def gather(self, pools: Sequence[np.ndarray]) -> None:
        """After a shared-tree search: count the nodes the ``pools`` took and
        give the root and its children their exact visits and values (as they
        were plus the threads' tallies; an update lost to a race deeper in the
        tree stays lost). The array then has gaps (each pool's unused end), so
        it is marked full: ``reroot`` (which compacts it) or ``start`` before
        it grows again."""
        first = int(self.nodes[self.root]["first"])
        tallied = np.r_[self.root, first : first + len(self._tallied) - 1]  # the root, then its children
        added = self.tally[:, : len(tallied)].sum(axis=0)
        self.nodes["visits"][tallied] = self._tallied["visits"] + added[:, 0].astype(np.int32)
        self.nodes["value"][tallied] = self._tallied["value"] + added[:, 1]
        self.meta[0] = self.meta[1] = int(self.meta[0]) + sum(int(pool[0] - pool[2]) for pool in pools)

    def children(self, node: int | None = None) -> np.ndarray:
        """The children of ``node`` (default: the root) as a view of the array."""
        nd = self.nodes[self.root if node is None else node]
        return self.nodes[int(nd["first"]) : int(nd["first"]) + int(nd["nchild"])]

    @staticmethod
    def best_child(kids: np.ndarray) -> int:
        """Index in ``kids`` of the move to play: proven win, then visits, then mean value."""
        best, best_key = 0, None
        for i, k in enumerate(kids):
            n = int(k["visits"])
            key = (int(k["status"] == WIN), int(k["status"] != LOSS), n, float(k["value"]) / n if n else 0.0)
            if best_key is None or key > best_key:
                best, best_key = i, key
        return best

    def principal_variation(self, node: int | None = None) -> tuple[int, ...]:
        """The best line from ``node`` (default: the root): best child after
        best child, down to an unvisited node."""
        pv: list[int] = []
        node = self.root if node is None else node
        while self.nodes[node]["first"] >= 0 and self.nodes[node]["nchild"] > 0 and len(pv) < 64:
            kids = self.children(node)
            i = self.best_child(kids)
            if kids[i]["visits"] == 0 and kids[i]["status"] == UNKNOWN:
                break
            pv.append(int(kids[i]["move"]))
            node = int(self.nodes[node]["first"]) + i
        return tuple(pv)


def combine_roots(roots: Sequence[np.ndarray]) -> tuple[np.ndarray, int]:
    """The root children of independent searches of one position merged move by
    move: visits and value sums added (a move's mean is over all its
    simulations), and each move's proof taken from any tree that has one:
    proofs are exact, so a proven win in one tree is a proven win (then a
    proven loss, then a proven draw). Returns the merged children (the first
    tree's order and positions; visits capped at ``MAX_VISITS``) and the root's
    status backed up from them as MCTS-Solver does (for the player who moved
    into the root). ValueError if the trees' roots differ in their moves."""
    first = roots[0]
    k = len(first)
    mini = np.zeros(k + 1, dtype=NODE_DTYPE)
    mini[0]["first"], mini[0]["nchild"] = 1, k
    kids = mini[1:]
    kids[:] = first
    slot = {int(m): i for i, m in enumerate(first["move"])}
    visits = np.zeros(k, dtype=np.int64)
    value = np.zeros(k, dtype=np.float64)
    proofs = np.zeros((k, 4), dtype=np.bool_)
    for root in roots:
        if len(root) != k or set(int(m) for m in root["move"]) != set(slot):
            raise ValueError("combine_roots needs trees of one position (the same root moves)")
        at = np.array([slot[int(m)] for m in root["move"]], dtype=np.int64)
        visits[at] += root["visits"]
        value[at] += root["value"]
        proofs[at, root["status"]] = True
    kids["visits"] = np.minimum(visits, MAX_VISITS)
    kids["value"] = value
    kids["status"] = UNKNOWN
    for status in (DRAW, LOSS, WIN):  # the strongest proof last, so it stays
        kids["status"][proofs[:, status]] = status
    return kids, int(_child_status(mini, np.int64(0)))
