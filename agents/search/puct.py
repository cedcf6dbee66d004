"""PUCT search guided by a batched policy-value evaluator (AlphaZero's search).

The tree is one preallocated numpy array of nodes (``NODE_DTYPE``) walked by
numba kernels; only the evaluator (a network, or anything that satisfies
``agents.search.evaluation.BatchEvaluator``) runs outside numba, once per batch
of leaves. A node holds its position from the mover's side, the move that led
to it, its visits and value sum (from the side of the player who made that
move), its prior, its pending virtual visits and its children as a block.

One round (``_gather`` then ``_expand_backup``): descend from the root by PUCT,
``Q + c * P * sqrt(N_parent) / (1 + N)`` (``agents.search.selection.puct_score``),
adding a virtual loss to every node on the way so the next descent of the same
round takes another path; finished games are backed up at once with their exact
result; up to ``batch_size`` new leaves are collected (a descent that meets a
leaf already in the batch ends the round). The evaluator scores all leaves of
all trees in one call; each leaf is expanded with the priors over its legal
moves (PASS when it has none) and its value is backed up, removing the virtual
losses.

``run_searches`` drives several trees at once (the self-play games of a
worker), so one evaluator call serves them all. Options:

- ``dirichlet_alpha``: Dirichlet noise mixed into the root's priors
  (fraction ``noise_fraction``), for self-play exploration;
- ``gumbel=True``: Gumbel root selection as in mctx's Gumbel MuZero policy
  (Danihelka et al. 2022): sample Gumbel noise ``g``, consider the
  ``max_considered`` actions with the highest ``g + log P``, and split the
  budget between them by sequential halving on ``g + log P + sigma(q)``; below
  the root, selection stays PUCT. Strong with few simulations; the improved
  policy ``softmax(log P + sigma(completed q))`` is the training target.

The best move (``PUCTResult.action``): under Gumbel the last survivor of the
halving; otherwise the most visits, then the best mean value, then the lowest
action index.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from numba import njit

from agents.search.evaluation import BatchEvaluator
from agents.search.selection import puct_score
from agents.search.timecontrol import StopSignal
from reversi_env.bitboard import U0, U1, flips, legal_moves, lowest_square, popcount
from reversi_env.notation import PASS

NODE_DTYPE = np.dtype(
    [
        ("p", np.uint64),
        ("o", np.uint64),
        ("value", np.float64),
        ("visits", np.int32),
        ("virtual", np.int32),
        ("first", np.int32),
        ("parent", np.int32),
        ("prior", np.float32),
        ("nchild", np.uint8),
        ("move", np.uint8),
        ("terminal", np.uint8),
        ("pending", np.uint8),
    ],
    align=True,
)
"""One node. ``value`` sums results from the side of the player who moved into
the node; ``first`` is -1 until expanded; ``virtual`` counts descents through
the node still waiting for their leaf's value; ``pending`` marks a leaf already
in the current batch."""

DEFAULT_C_PUCT = 1.5
DEFAULT_BATCH = 16
DIRICHLET_FRACTION = 0.25
"""Share of the Dirichlet noise in the root priors (AlphaZero; OpenSpiel's default)."""
GUMBEL_C_VISIT = 50.0
GUMBEL_C_SCALE = 1.0
"""mctx's ``sigma(q) = (c_visit + max visits) * c_scale * q``, with q rescaled to [0, 1]."""
_MAX_CHILDREN = 33
"""More legal moves than any Reversi position has (the known maximum is 33)."""


# -- the tree, in numba ----------------------------------------------------------


@njit(cache=True)
def _init_node(tree: np.ndarray, i: np.int64, p: np.uint64, o: np.uint64, move: np.int64, parent: np.int64) -> None:
    n = tree[i]
    n["p"] = p
    n["o"] = o
    n["value"] = 0.0
    n["visits"] = 0
    n["virtual"] = 0
    n["first"] = -1
    n["parent"] = parent
    n["prior"] = 0.0
    n["nchild"] = 0
    n["move"] = move
    n["terminal"] = legal_moves(p, o) == U0 and legal_moves(o, p) == U0
    n["pending"] = 0


@njit(cache=True)
def _select_child(tree: np.ndarray, node: np.int64, c_puct: np.float64) -> np.int64:
    first = tree[node]["first"]
    sqrt_n = math.sqrt(np.float64(tree[node]["visits"] + tree[node]["virtual"]) + 1e-8)
    best = first
    best_score = -np.inf
    for k in range(tree[node]["nchild"]):
        c = first + k
        n = np.float64(tree[c]["visits"] + tree[c]["virtual"])
        # A pending visit counts as a loss for the player moving into c (virtual loss).
        score = puct_score(tree[c]["value"] - tree[c]["virtual"], n, tree[c]["prior"], c_puct, sqrt_n)
        if score > best_score:
            best_score = score
            best = c
    return best


@njit(cache=True)
def _backup(tree: np.ndarray, leaf: np.int64, v: np.float64, root: np.int64) -> None:
    """Back up ``v`` (for the mover at ``leaf``) to the root, clearing virtual visits."""
    r = -v
    node = leaf
    while True:
        tree[node]["visits"] += 1
        tree[node]["value"] += r
        tree[node]["virtual"] -= 1
        if node == root:
            break
        r = -r
        node = tree[node]["parent"]


@njit(cache=True)
def _undo(tree: np.ndarray, leaf: np.int64, root: np.int64) -> None:
    node = leaf
    while True:
        tree[node]["virtual"] -= 1
        if node == root:
            break
        node = tree[node]["parent"]


@njit(cache=True)
def _final_value(p: np.uint64, o: np.uint64) -> np.float64:
    d = np.int64(popcount(p)) - np.int64(popcount(o))
    return np.float64((d > 0) - (d < 0))


@njit(cache=True)
def _gather(
    tree: np.ndarray, root: np.int64, c_puct: np.float64, forced: np.ndarray, leaves: np.ndarray
) -> tuple[np.int64, np.int64]:
    """Descend up to ``len(leaves)`` times; returns (new leaves collected,
    finished games backed up). ``forced[k] >= 0`` makes descent ``k`` take that
    root child (Gumbel's halving); -1 leaves the choice to PUCT."""
    n_leaves = np.int64(0)
    n_final = np.int64(0)
    for k in range(leaves.shape[0]):
        node = root
        tree[node]["virtual"] += 1
        depth = 0
        while tree[node]["first"] >= 0 and not tree[node]["terminal"]:
            node = forced[k] if depth == 0 and forced[k] >= 0 else _select_child(tree, node, c_puct)
            tree[node]["virtual"] += 1
            depth += 1
        if tree[node]["terminal"]:
            _backup(tree, node, _final_value(tree[node]["p"], tree[node]["o"]), root)
            n_final += 1
        elif tree[node]["pending"]:
            _undo(tree, node, root)
            break
        else:
            tree[node]["pending"] = 1
            leaves[n_leaves] = node
            n_leaves += 1
    return n_leaves, n_final


@njit(cache=True)
def _expand_backup(
    tree: np.ndarray, count: np.int64, leaves: np.ndarray, priors: np.ndarray, values: np.ndarray, root: np.int64
) -> np.int64:
    """Expand each leaf with ``priors`` (renormalised over its legal moves) and
    back up its value; returns the new node count."""
    for i in range(leaves.shape[0]):
        leaf = leaves[i]
        p = tree[leaf]["p"]
        o = tree[leaf]["o"]
        m = legal_moves(p, o)
        tree[leaf]["first"] = count
        tree[leaf]["pending"] = 0
        if m == U0:
            _init_node(tree, count, o, p, np.int64(PASS), leaf)
            tree[count]["prior"] = 1.0
            count += 1
            tree[leaf]["nchild"] = 1
        else:
            total = 0.0
            mm = m
            while mm != U0:
                total += priors[i, lowest_square(mm)]
                mm &= mm - U1
            nchild = np.int64(popcount(m))
            k = 0
            while m != U0:
                sq = lowest_square(m)
                m &= m - U1
                f = flips(p, o, sq)
                _init_node(tree, count + k, o ^ f, p | f | (U1 << sq), np.int64(sq), leaf)
                tree[count + k]["prior"] = priors[i, sq] / total if total > 0 else 1.0 / nchild
                k += 1
            tree[leaf]["nchild"] = nchild
            count += nchild
        _backup(tree, leaf, np.float64(values[i]), root)
    return count


# -- the Python side ---------------------------------------------------------------


DEFAULT_SIMULATIONS = 200
"""Simulations a move when none are given: the AlphaZero player's (``alphazero`` is ``alphazero:sims=200``)."""


@dataclass(frozen=True)
class PUCTConfig:
    """The search's knobs (keyword-only, as in mctx)."""

    simulations: int = DEFAULT_SIMULATIONS
    c_puct: float = DEFAULT_C_PUCT
    batch_size: int = DEFAULT_BATCH
    dirichlet_alpha: float | None = None
    noise_fraction: float = DIRICHLET_FRACTION
    gumbel: bool = False
    max_considered: int = 16

    def __post_init__(self) -> None:
        if self.simulations < 1 or self.batch_size < 1 or self.max_considered < 1:
            raise ValueError(f"simulations, batch_size and max_considered must be >= 1: {self}")
        if self.c_puct <= 0 or not 0 <= self.noise_fraction <= 1:
            raise ValueError(f"c_puct must be > 0 and noise_fraction in [0, 1]: {self}")


@dataclass(frozen=True)
class PUCTResult:
    """What a search found at the root: ``visits`` and ``q`` (mean value for the
    mover, nan where unvisited) over the 65 actions, the move chosen, the
    training target ``policy`` (visit shares, or Gumbel's improved policy), the
    root's value for the mover, the simulations run and the evaluator's calls."""

    action: int
    visits: np.ndarray
    q: np.ndarray
    policy: np.ndarray
    value: float
    simulations: int
    evaluations: int = 0


@dataclass
class _Halving:
    """Gumbel's sequential halving at one root: candidates, their scores' fixed
    part ``g + log P`` and the forced root visits still to hand out this phase."""

    candidates: list[int]
    base: dict[int, float]
    queue: list[int] = field(default_factory=list)
    phases_left: int = 0
    started: bool = False


class PUCTTree:
    """One search: the node array, its root position and its progress."""

    def __init__(self, mover: np.uint64, opponent: np.uint64, config: PUCTConfig, rng: np.random.Generator) -> None:
        if (
            legal_moves(np.uint64(mover), np.uint64(opponent)) == U0
            and legal_moves(np.uint64(opponent), np.uint64(mover)) == U0
        ):
            raise ValueError("cannot search a finished game")
        self.config = config
        self.rng = rng
        self.tree = np.zeros(1 + (min(config.simulations, 256) + config.batch_size) * _MAX_CHILDREN, dtype=NODE_DTYPE)
        _init_node(self.tree, 0, np.uint64(mover), np.uint64(opponent), np.int64(PASS), -1)
        self.count = 1
        self.simulations = 0
        self.halving: _Halving | None = None
        self._forced = np.full(config.batch_size, -1, dtype=np.int64)
        self._leaves = np.empty(config.batch_size, dtype=np.int64)

    @property
    def done(self) -> bool:
        """True once the budget of simulations is spent."""
        return self.simulations >= self.config.simulations

    def gather(self) -> np.ndarray:
        """The next leaves to evaluate (node indices; may be empty when the round
        only met finished games)."""
        want = min(self.config.batch_size, max(1, self.config.simulations - self.simulations))
        need = self.count + want * _MAX_CHILDREN
        if need > len(self.tree):  # room for every leaf's children; grows by doubling
            grown = np.zeros(max(need, 2 * len(self.tree)), dtype=NODE_DTYPE)
            grown[: self.count] = self.tree[: self.count]
            self.tree = grown
        forced = self._forced[:want]
        forced.fill(-1)
        if self.halving is not None:
            for k in range(want):
                if not self.halving.queue:
                    self._next_phase()
                if self.halving.queue:
                    forced[k] = self.halving.queue.pop()
        n_leaves, n_final = _gather(self.tree, 0, self.config.c_puct, forced, self._leaves[:want])
        self.simulations += int(n_final)
        if self.halving is not None:
            # Forced visits that a collision left unused go back to the queue.
            used = int(n_leaves + n_final)
            self.halving.queue.extend(int(c) for c in forced[used:want][::-1] if c >= 0)
        return self._leaves[:n_leaves].copy()

    def positions(self, leaves: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The leaves' positions from their mover's side."""
        return self.tree["p"][leaves], self.tree["o"][leaves]

    def expand(self, leaves: np.ndarray, priors: np.ndarray, values: np.ndarray) -> None:
        """Expand the leaves with the evaluator's answers and back the values up."""
        if len(leaves) == 0:
            return
        root_new = self.tree[0]["first"] < 0
        self.count = int(
            _expand_backup(
                self.tree, self.count, leaves, np.asarray(priors, np.float32), np.asarray(values, np.float32), 0
            )
        )
        self.simulations += len(leaves)
        if root_new:
            self._prepare_root()

    def _children(self) -> tuple[int, int]:
        return int(self.tree[0]["first"]), int(self.tree[0]["nchild"])

    def _prepare_root(self) -> None:
        """Right after the root's expansion: Dirichlet noise and Gumbel's candidates."""
        first, n = self._children()
        kids = self.tree[first : first + n]
        cfg = self.config
        if cfg.dirichlet_alpha is not None and n > 1:
            noise = self.rng.dirichlet(np.full(n, cfg.dirichlet_alpha))
            kids["prior"] = (1 - cfg.noise_fraction) * kids["prior"] + cfg.noise_fraction * noise
        if cfg.gumbel and n > 1:
            logits = np.log(np.maximum(kids["prior"].astype(np.float64), 1e-12))
            base = logits + self.rng.gumbel(size=n)
            m = min(cfg.max_considered, n)
            chosen = [first + int(i) for i in np.argsort(-base, kind="stable")[:m]]
            phases = max(1, math.ceil(math.log2(m)))
            self.halving = _Halving(chosen, {first + i: float(base[i]) for i in range(n)}, phases_left=phases)

    def _sigma(self, q: np.ndarray) -> np.ndarray:
        first, n = self._children()
        max_visits = float(self.tree[first : first + n]["visits"].max())
        return (GUMBEL_C_VISIT + max_visits) * GUMBEL_C_SCALE * (q + 1.0) / 2.0

    def _completed_q(self) -> np.ndarray:
        first, n = self._children()
        kids = self.tree[first : first + n]
        root_q = -self.tree[0]["value"] / max(self.tree[0]["visits"], 1)  # the root's value for its mover
        visited = kids["visits"] > 0
        return np.where(visited, kids["value"] / np.maximum(kids["visits"], 1), root_q)

    def _next_phase(self) -> None:
        """Start the next phase of sequential halving: keep the better half of
        the candidates (after the first phase) and queue their forced visits."""
        h = self.halving
        assert h is not None
        first, _ = self._children()
        if h.started:
            sigma = self._sigma(self._completed_q())
            h.candidates.sort(key=lambda c: (-(h.base[c] + sigma[c - first]), c))
            if h.phases_left > 0:
                h.candidates = h.candidates[: max(2, (len(h.candidates) + 1) // 2)]
        h.started = True
        left = self.config.simulations - self.simulations
        per = max(1, math.ceil(left / (max(h.phases_left, 1) * len(h.candidates))))
        h.queue = [c for _ in range(per) for c in reversed(h.candidates)]
        h.phases_left = max(0, h.phases_left - 1)

    def result(self, evaluations: int = 0) -> PUCTResult:
        """The root's statistics and the chosen move."""
        first, n = self._children()
        kids = self.tree[first : first + n]
        moves = kids["move"].astype(np.int64)
        visits = np.zeros(65, dtype=np.int64)
        visits[moves] = kids["visits"]
        q = np.full(65, np.nan)
        seen = kids["visits"] > 0
        q[moves[seen]] = kids["value"][seen] / kids["visits"][seen]
        root_value = float(-self.tree[0]["value"] / max(self.tree[0]["visits"], 1))
        policy = np.zeros(65, dtype=np.float32)
        halving = self.halving
        if halving is not None:
            sigma = self._sigma(self._completed_q())
            logits = np.log(np.maximum(kids["prior"].astype(np.float64), 1e-12)) + sigma
            weights = np.exp(logits - logits.max())
            policy[moves] = weights / weights.sum()
            best = max(halving.candidates, key=lambda c: (halving.base[c] + sigma[c - first], -c))
            action = int(self.tree[best]["move"])
        else:
            total = kids["visits"].sum()
            policy[moves] = kids["visits"] / total if total else 1.0 / n
            mean = np.where(seen, kids["value"] / np.maximum(kids["visits"], 1), -np.inf)
            order = np.lexsort((moves, -mean, -kids["visits"]))
            action = int(moves[order[0]])
        return PUCTResult(action, visits, q, policy, root_value, self.simulations, evaluations)


def run_searches(
    trees: Sequence[PUCTTree],
    evaluator: BatchEvaluator,
    deadline: float | None = None,
    stop: StopSignal | None = None,
) -> int:
    """Search every tree to its budget (or until ``time.monotonic()`` passes
    ``deadline`` or ``stop`` is called, once each root is expanded), evaluating
    the leaves of all trees in one evaluator call a round; returns the number of evaluator calls."""
    calls = 0
    while True:
        active = [t for t in trees if not t.done]
        ended = (deadline is not None and time.monotonic() > deadline) or (stop is not None and stop.stopped)
        if not active or (calls and ended):
            return calls
        batches = [(t, t.gather()) for t in active]
        batches = [(t, leaves) for t, leaves in batches if len(leaves)]
        if not batches:
            continue
        movers = np.concatenate([t.positions(leaves)[0] for t, leaves in batches])
        opponents = np.concatenate([t.positions(leaves)[1] for t, leaves in batches])
        priors, values = evaluator.evaluate(movers, opponents)
        calls += 1
        start = 0
        for t, leaves in batches:
            end = start + len(leaves)
            t.expand(leaves, priors[start:end], values[start:end])
            start = end


def search(
    mover: np.uint64, opponent: np.uint64, evaluator: BatchEvaluator, config: PUCTConfig, seed: int | None = None
) -> PUCTResult:
    """One PUCT search from the position ``(mover, opponent)`` (mover's side)."""
    tree = PUCTTree(mover, opponent, config, np.random.default_rng(seed))
    calls = run_searches([tree], evaluator)
    return tree.result(calls)
