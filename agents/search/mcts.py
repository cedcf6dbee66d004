"""Monte Carlo Tree Search for Reversi: the agent that drives the numba tree.

The tree and one iteration live in ``agents.search.mcts_tree`` (select down
to a leaf, value it, back the value, in [-1, 1] for the player who moved,
up the path). This module drives it: the budget and the clock, batches of
bounded duration (so Ctrl-C acts at once), early stops, the pool's size, tree
reuse between moves, the exact endgame, and the result.

The default search is guided by the learned pattern evaluation
(``agents.search.patterns.mcts_value``, the ``heuristic``; any numba function
of ``mcts_tree.LEAF_VALUE_TYPE``'s shape replaces it) and plays no random
games; each guide was measured at equal time (docs/engine.md):

- ``mix``: a leaf's value is ``(1 - mix) * playout + mix * h``, ``h`` the
  static value (AlphaGo's mixing of a rollout and a value estimate); default
  1, no playouts (``informed_playouts`` then picks the playouts' policy);
- ``ply=1``: a leaf is expanded on its first visit and ``h`` is the best of
  its children's values (a one-ply search at every leaf);
- ``fpu``: an unvisited child is scored as if visited once with its own
  static value, instead of being tried before any child is tried twice;
- ``minimax``: each node keeps the minimax value of its subtree's frontier
  (implicit minimax backups, Lanctot et al. 2014) and a child's score mixes
  it with the mean of its results, ``(1 - minimax) * mean + minimax * mm``;
- ``bias``: progressive bias, ``bias * h / (visits + 1)`` added to a child's
  UCT score.

``eval=hand`` in a spec (``heuristic=handwritten_value``) guides the same search
by the hand-written evaluation instead. All guides off (``TEXTBOOK_UCT``:
uniformly random playouts, no bias, no static value) is textbook UCT.

With ``solver=True`` (MCTS-Solver) finished games are
proven wins, losses or draws and proofs are backed up: a node with a winning
child is lost for the player who moved into it, one whose children are all
proven takes the best of them. With few empty squares the root is solved
exactly instead (``agents.search.endgame``), maximising the final disc difference;
with a few more a timed search first tries to prove the outcome with the
alpha-beta engine's endgame (``DEFAULT_ENDGAME_PROOF``).

With an ``evaluator`` (``agents.search.evaluation.Evaluator``) the leaf value comes
from it instead of a playout, and its prior, if any, switches selection to
PUCT. That path calls Python once per leaf (select and back up stay in numba),
so it runs at the evaluator's speed.

With ``threads=N`` (N > 1) N threads search at once (the numba loops release
the GIL), each with its own RNG stream and its own share of the simulation
budget. By default they share one tree (``parallel="tree"``, tree
parallelisation: ``mcts_tree.simulate_shared``, each thread taking new nodes
from its own pool, a virtual loss on the path of every simulation under way);
with ``parallel="root"`` each searches a tree of its own and the roots are
merged (``mcts_tree.combine_roots``: visits and values summed per move, a proof
in any tree kept). See docs/engine.md.

The best move is chosen by one key: a proven win first, then the most visits,
then the best mean value, then the lowest action index.
"""

from __future__ import annotations

import math
import os
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields, replace
from types import MappingProxyType
from typing import Any, Generic, TypeVar, cast

import numpy as np
from numba import njit
from numba.core.dispatcher import Dispatcher
from numba.types import float64, uint64

from agents.base import state_to_move
from agents.clocks import TimeControl, TimeLeft
from agents.search.alphabeta import MAX_ENDGAME_EXACT, PROOF_SHARE, prove_outcome
from agents.search.alphabeta_agent import TIMED_TABLE_ENTRIES
from agents.search.book import Book, book_move
from agents.search.endgame import solve_root
from agents.search.evaluation import DISC, Evaluation, Evaluator
from agents.search.ladder import evaluate
from agents.search.mcts_config import (
    DEFAULT_BIAS,
    DEFAULT_C,
    DEFAULT_ENDGAME_EXACT,
    DEFAULT_ENDGAME_PROOF,
    DEFAULT_MAX_NODES,
    DEFAULT_MINIMAX,
    DEFAULT_MIX,
    MAX_NODES,
    MCTSConfig,
)
from agents.search.mcts_tree import (
    DRAW,
    LEAF_VALUE_TYPE,
    LEAF_WEIGHTS,
    LOSS,
    MAX_DEPTH,
    MAX_VISITS,
    NODE_DTYPE,
    UNKNOWN,
    WIN,
    LeafValue,
    Tree,
    backup,
    combine_roots,
    descend,
    expand,
    final_sign,
    set_priors,
    simulate,
    simulate_shared,
    status_value,
)
from agents.search.patterns import N_PHASES, N_WEIGHTS, mcts_value, pattern_evaluation, search_evaluate
from agents.search.timecontrol import StopSignal, game_clock
from agents.search.tt import new_table
from reversi_env import bitboard as bb
from reversi_env.errors import InvalidPositionError
from reversi_env.notation import PASS
from reversi_env.observation import Observation
from reversi_env.state import GameState

__all__ = [
    "DEFAULT_BIAS",
    "DEFAULT_C",
    "DEFAULT_ENDGAME_EXACT",
    "DEFAULT_ENDGAME_PROOF",
    "DEFAULT_MAX_NODES",
    "DEFAULT_MINIMAX",
    "DEFAULT_MIX",
    "MAX_ENDGAME_EXACT",
    "MAX_NODES",
    "MAX_SIMULATIONS",
    "MAX_THREADS",
    "NODE_DTYPE",
    "PARALLEL",
    "TEXTBOOK_UCT",
    "MCTSAgent",
    "MCTSConfig",
    "SearchResult",
    "handwritten_value",
]

TEXTBOOK_UCT: Mapping[str, float | bool] = MappingProxyType(
    {"c": 1.0, "informed_playouts": False, "bias": 0.0, "mix": 0.0, "minimax": 0.0, "endgame_proof": 0}
)
"""The settings that turn every guide off: ``MCTSAgent(..., **TEXTBOOK_UCT)`` is
textbook UCT (uniformly random playouts, plain UCB1 with c=1 for results in
[-1, 1], the heuristic never called, no endgame proof by the alpha-beta
engine; the exact solve of the last 16 empties stays, as it always had)."""

MAX_SIMULATIONS = 1_000_000_000
"""The largest simulation budget (hours of search; visits are int32)."""

MAX_THREADS = 64
"""The most search threads an agent takes."""

PARALLEL = ("tree", "root")
"""How threads share a search: one tree (tree parallelisation with virtual
loss, the default) or a tree each, merged at the root (root parallelisation)."""

_HEURISTIC_SCALE = 100.0
"""Hand-written evaluations (``agents.search.ladder.evaluate``) are divided by this before tanh."""

_NODES_PER_SIMULATION = 4
"""Pool sizing: nodes allocated per budgeted simulation when a leaf is expanded
on its second visit (``ply=0``; measured: about 2-3)."""
_NODES_PER_EXPANDING_SIMULATION = 16
"""Pool sizing with ``ply=1``, where every simulation expands its leaf: 11.7
nodes a simulation measured from a 20-ply midgame position (docs/engine.md); with
4 the default search filled its pool in the first quarter of its time and
searched on in a tree that no longer grew."""
_SIMULATIONS_PER_SECOND = 150_000
"""A thread's simulations a second before any is measured: it sizes the first batch
(refined as the search runs) and the pool of a timed search, which is sized for the
previous search's speed instead when that was faster, so a fast search does not
fill its pool before its time is up (``bench_mcts.py`` measures the speed)."""
_BATCH_SECONDS = 0.1
"""A batch of simulations lasts about this long, so Ctrl-C (looked at between
batches) acts within it. Each return to Python costs: with 20 ms batches a
search under a simulation budget ran about 5 % slower than in one call, with
0.1 s batches about 1 % (docs/engine.md)."""
_CLOCK_SECONDS = 0.02
"""A timed search looks at the clock at least this often."""
_TIME_MARGIN = 0.02
"""A timed search aims this fraction of the limit short of it (Python overhead)."""
_REUSE_DEPTH = 4
"""How many plies below the old root a reused position may be (our move, the
reply, and one more pair after a move played at once)."""


class _Budget:
    """The simulations a search has left, taken in batches by the threads
    that search one tree: a faster thread takes more, so they finish together
    (an even split waited for the slower one: at the start position one of two
    threads was up to 40 % slower through a whole search, docs/engine.md)."""

    def __init__(self, total: int, takers: int) -> None:
        self.left = total
        self._takers = takers
        self._lock = threading.Lock()

    def take(self, want: int) -> int:
        """Up to ``want`` of the simulations left, at most a ``takers``-th of
        them (but one while any are left) so the last batches shrink and no
        thread is left with a long one: 0 when none are left."""
        with self._lock:
            batch = min(want, max(1, self.left // self._takers), self.left)
            self.left -= batch
            return batch


@njit(float64(uint64, uint64, LEAF_WEIGHTS), cache=True)
def handwritten_value(p: np.uint64, o: np.uint64, weights: np.ndarray) -> float:
    """The hand-written ``heuristic`` (``eval=hand``): ``agents.search.ladder.evaluate`` squashed to [-1, 1]."""
    return math.tanh(evaluate(p, o) / _HEURISTIC_SCALE)


NO_WEIGHTS = np.zeros(1, dtype=np.float32)
"""The weights of a heuristic that reads none."""


@njit(float64(LEAF_VALUE_TYPE, LEAF_WEIGHTS), cache=True)
def _value_at_start(value: LeafValue, weights: np.ndarray) -> float:
    """``value`` called through the search's own function type (so a bad shape fails here, not mid-search)."""
    return value(bb.INITIAL_BLACK, bb.INITIAL_WHITE, weights)


@dataclass(frozen=True)
class SearchResult:
    """What a search found. ``actions`` are the root's legal actions;
    ``visits[i]`` and ``values[i]`` (mean result in [-1, 1] for the player to
    move, 0 if unvisited) belong to ``actions[i]``. ``value`` estimates the
    position for the player to move. ``nodes`` is the tree's size (or the
    positions the endgame solver visited). ``proven`` is "win", "loss" or "draw" when
    the search proved it, else None; ``disc_difference`` is the exact final
    disc difference under best play when the endgame was solved exactly (then
    ``values`` hold the sign of each move's result, exact for the best moves;
    a proof that ended on a win or a draw knows only the move it played, the
    others' values are 0).
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


def _check_heuristic(heuristic: object, weights: np.ndarray) -> None:
    """A numba function of ``LEAF_VALUE_TYPE``'s shape giving a value in [-1, 1], or TypeError / ValueError."""
    shape = "a numba @njit function (p: uint64, o: uint64, weights: float32[::1]) -> float in [-1, 1]"
    if not isinstance(heuristic, Dispatcher):
        raise TypeError(f"heuristic must be {shape}, got {heuristic!r}")
    if not isinstance(weights, np.ndarray) or weights.dtype != np.float32 or weights.ndim != 1:
        raise TypeError(f"heuristic_weights must be a 1-D float32 array, got {weights!r:.80}")
    try:
        value = _value_at_start(heuristic, np.ascontiguousarray(weights))
    except Exception as e:  # numba's typing errors have no common public base
        raise TypeError(f"heuristic must be {shape}: {str(e).splitlines()[0]}") from e
    if not -1.0 <= value <= 1.0:
        raise ValueError(f"heuristic must give values in [-1, 1], got {value!r} at the start position")


def _result(
    kids: np.ndarray,
    root_status: int,
    pv: tuple[int, ...],
    nodes: int,
    actions: tuple[int, ...],
    simulations: int,
    seconds: float,
    reused: int,
) -> SearchResult:
    """The SearchResult of a tree search, read from the root's children
    (``root_status`` is the root's own, for the player who moved into it)."""
    visits = kids["visits"].astype(np.int64)
    status = kids["status"]
    values = np.where(visits > 0, kids["value"] / np.maximum(visits, 1), 0.0)
    values = np.where(status == WIN, 1.0, np.where(status == LOSS, -1.0, np.where(status == DRAW, 0.0, values)))
    best = Tree.best_child(kids)
    moves = tuple(int(m) for m in kids["move"])
    order = [moves.index(a) for a in actions]
    # The root's status is for the player who moved into it: flip it.
    proven = {WIN: "loss", LOSS: "win", DRAW: "draw"}.get(root_status)
    return SearchResult(
        action=moves[best],
        actions=actions,
        visits=visits[order],
        values=values[order],
        value=float(values[best]),
        simulations=simulations,
        nodes=nodes,
        seconds=seconds,
        principal_variation=pv,
        proven=proven,
        reused=reused,
    )


def _settled(
    actions: tuple[int, ...],
    scores: Mapping[int, int],
    best: list[int],
    disc_difference: int | None,
    nodes: int,
    start: float,
    rng: np.ndarray,
) -> SearchResult:
    """The result of a root the endgame settled: one of the equally scored
    ``best`` moves (ties broken with ``rng``), each move's value the sign of its
    score (0 if it has none), the outcome the sign of the best score."""
    action = best[int(bb.random_below(rng, np.uint64(len(best))))] if len(best) > 1 else best[0]
    top = scores[action]
    values = np.sign(np.array([scores.get(a, 0) for a in actions], dtype=np.float64))
    proven = "win" if top > 0 else ("loss" if top < 0 else "draw")
    seconds = time.perf_counter() - start
    return SearchResult(
        action, actions, np.zeros(len(actions), np.int64), values, float(np.sign(top)), 0, nodes, seconds,
        (action,), proven, disc_difference,
    )  # fmt: skip


def _share_of_time_left(share: float, deadline: float) -> float:
    """``share`` of the seconds left before ``deadline`` (``perf_counter``), at
    least a millisecond: the time an endgame search at the root may take."""
    return max(share * (deadline - time.perf_counter()), 1e-3)


def _solve_exact(
    p: np.uint64,
    o: np.uint64,
    actions: tuple[int, ...],
    start: float,
    deadline: float | None,
    rng: np.ndarray,
    stop: StopSignal,
) -> SearchResult | None:
    """The root solved exactly (ties broken with ``rng``), or None if the clock allows no full solve
    or ``stop`` ended it."""
    if actions == (PASS,):
        return None
    # At most half the time left, so a solve too big to finish leaves MCTS the rest.
    seconds = None if deadline is None else _share_of_time_left(0.5, deadline)
    scores = np.empty(64, dtype=np.int64)
    exact = np.zeros(64, dtype=np.bool_)
    nodes = int(solve_root(p, o, scores, exact, time_limit=seconds, stop=stop))
    if nodes < 0:
        return None
    best = [a for a in actions if exact[a]]
    return _settled(actions, {a: int(scores[a]) for a in actions}, best, int(scores[best[0]]), nodes, start, rng)


def _prove_outcome(
    p: np.uint64,
    o: np.uint64,
    actions: tuple[int, ...],
    start: float,
    deadline: float,
    table: np.ndarray,
    evaluation: Evaluation,
    threads: int,
    rng: np.ndarray,
    stop: StopSignal,
) -> SearchResult | None:
    """The root's outcome (two moves or more) proven by the alpha-beta engine's
    endgame (``alphabeta.prove_outcome``, ordering its moves by ``evaluation``) in
    ``PROOF_SHARE`` of the time left: a best move (ties broken with ``rng``) when
    it proved a win, or the root a draw, or finished the exact score; None
    otherwise (or when ``stop`` ended it first)."""
    seconds = _share_of_time_left(PROOF_SHARE, deadline)
    root, nodes = prove_outcome(p, o, list(actions), table, evaluation, seconds, threads=threads, stop=stop)
    if root is None:
        return None
    top = max(root.scores.values())
    return _settled(actions, root.scores, root.best_moves(), top // DISC if root.completed else None, nodes, start, rng)


class _EvaluatorSearch:
    """The Python-driven path: numba selects and backs up, a Python
    ``Evaluator`` values each new leaf; PUCT when it gives priors."""

    def __init__(self, tree: Tree, evaluator: Evaluator, root_player: int, config: MCTSConfig) -> None:
        self.tree, self.evaluator, self.root_player = tree, evaluator, root_player
        # Selection by c alone: no progressive bias, first-play urgency or minimax values without a heuristic.
        self.config = replace(config, bias=0.0, fpu=False, minimax=0.0)
        self.solver = config.solver
        self.path = np.zeros(MAX_DEPTH, dtype=np.int64)

    def run(self, budget: int, deadline: float | None, stop: StopSignal) -> int:
        """Up to ``budget`` simulations before ``deadline`` or ``stop``; returns those done."""
        nodes, root, path = self.tree.nodes, np.int64(self.tree.root), self.path
        puct = self._evaluate(int(root), 0, use_prior=True)[1]
        done = 0
        while done < budget:
            if nodes[root]["status"] != UNKNOWN or (deadline is not None and time.perf_counter() >= deadline):
                break
            if stop.stopped:
                break
            d = int(descend(nodes, root, self.config.record, puct, False, path))
            leaf = int(path[d])
            node = nodes[leaf]
            if node["status"] == UNKNOWN and node["first"] < 0:
                # Uniform priors until the evaluator gives its own: the static evaluation is not asked.
                expand(nodes, self.tree.meta, leaf, self.solver, False, handwritten_value, NO_WEIGHTS)
            if node["status"] != UNKNOWN:
                r = float(status_value(node["status"]))
            elif node["first"] >= 0 and node["nchild"] == 0:
                r = -float(final_sign(node["p"], node["o"]))
            else:
                r = -self._evaluate(leaf, d, use_prior=puct)[0]
            backup(nodes, path, np.int64(d), np.float64(r), self.solver)
            done += 1
        return done

    def _evaluate(self, leaf: int, depth: int, use_prior: bool) -> tuple[float, bool]:
        """Ask the evaluator about node ``leaf``; set its children's priors.
        Returns the value for the leaf's mover and whether a prior came back."""
        node = self.tree.nodes[leaf]
        state = GameState.from_kernel(node["p"], node["o"], (self.root_player + depth) % 2)
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
            set_priors(self.tree.nodes, np.int64(leaf), prior)
        return value, True


T = TypeVar("T")


class _Knob(Generic[T]):
    """An ``MCTSAgent`` attribute that is a field of its ``config``: read there, and
    set by a new config with that field changed (checked as ``MCTSConfig`` checks)."""

    def __init__(self, field: str) -> None:
        self.field = field

    def __get__(self, agent: MCTSAgent | None, owner: object = None) -> T:
        # On the class: the field's default (``MCTSAgent.c`` is ``MCTSConfig.c``).
        return cast(T, getattr(MCTSConfig if agent is None else agent.config, self.field))

    def __set__(self, agent: MCTSAgent, value: T) -> None:
        changes: dict[str, Any] = {self.field: value}
        agent.config = replace(agent.config, **changes)


def _agent_config(config: MCTSConfig | None, knobs: Mapping[str, object]) -> MCTSConfig:
    """``config``, or the one the knobs given as keywords make: not both (a knob away
    from its default beside a ``config`` is a ValueError)."""
    if config is None:
        return MCTSConfig(**knobs)  # type: ignore[arg-type]
    if not isinstance(config, MCTSConfig):
        raise TypeError(f"config must be an MCTSConfig, got {type(config).__name__}")
    defaults = {f.name: f.default for f in fields(MCTSConfig)}
    both = [name for name, value in knobs.items() if value != defaults[name]]
    if both:
        raise ValueError(f"give the search's knobs in config or as keywords, not both: {', '.join(both)}")
    return config


def _check_running(
    threads: int,
    parallel: str,
    max_nodes: int,
    evaluator: Evaluator | None,
    seed: int | None,
    evaluation: Evaluation | None,
) -> None:
    """ValueError / TypeError on a bad way to run a search (threads, their trees, an evaluator, a seed, the
    endgame proof's evaluation): ``MCTSAgent``'s settings beside its ``MCTSConfig``."""
    if isinstance(threads, bool) or not isinstance(threads, (int, np.integer)) or not 1 <= threads <= MAX_THREADS:
        raise ValueError(f"threads must be an int from 1 to {MAX_THREADS}, got {threads!r}")
    if max_nodes < 65 * threads:
        raise ValueError(
            f"max_nodes must be at least 65 (a root and its children) per thread, got {max_nodes} for {threads}"
        )
    if parallel not in PARALLEL:
        raise ValueError(f"parallel must be one of {', '.join(PARALLEL)}, got {parallel!r}")
    if threads > 1 and evaluator is not None:
        raise ValueError("threads > 1 needs the numba search: an evaluator runs in Python, on one thread")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0):
        raise ValueError(f"seed must be a non-negative int or None, got {seed!r}")
    if evaluator is not None and not isinstance(evaluator, Evaluator):
        raise TypeError(f"evaluator must have an evaluate(state) method, got {type(evaluator).__name__}")
    if evaluation is not None and not isinstance(evaluation, Evaluation):
        raise TypeError(f"evaluation must be an Evaluation, got {type(evaluation).__name__}")


def _leaf_value(
    heuristic: LeafValue | None, weights: np.ndarray | None, evaluation: Evaluation
) -> tuple[LeafValue, np.ndarray]:
    """The static value and the weights it reads: the learned pattern value of ``evaluation`` by default,
    else ``heuristic`` checked (``_check_heuristic``). ValueError / TypeError on a bad pair."""
    if heuristic is None:
        if weights is not None:
            raise ValueError("heuristic_weights need the heuristic that reads them")
        if evaluation.function is not search_evaluate or evaluation.weights.size != N_PHASES * N_WEIGHTS:
            why = f"the default heuristic reads a pattern evaluation (pattern_evaluation), not {evaluation.name!r}"
            raise ValueError(why)
        return mcts_value, evaluation.weights
    if heuristic is handwritten_value and weights is None:
        return heuristic, NO_WEIGHTS
    weights = NO_WEIGHTS if weights is None else weights
    _check_heuristic(heuristic, weights)
    return heuristic, weights


class MCTSAgent:
    """Monte Carlo Tree Search player (UCT guided by a static value, all in numba).

    Give exactly one budget: ``time_limit``, ``game_time`` or ``simulations``. The search's
    knobs are one ``MCTSConfig`` (``config``), or its fields given as keywords (``c``,
    ``solver``, ``endgame_exact``, ``endgame_proof``, ``reuse_tree``, ``max_nodes``,
    ``informed_playouts``, ``bias``, ``mix``, ``ply``, ``fpu``, ``minimax``: see ``MCTSConfig``),
    which the agent also has as attributes (``informed`` for ``informed_playouts``).

    Args:
        time_limit: seconds a move, kept within 5 %; a search stops sooner once its choice is decided.
        simulations: simulations a move, at most ``MAX_SIMULATIONS``; reproducible with a ``seed``.
        c: ``MCTSConfig.c``, the exploration constant.
        seed: the seed of the search's random streams (None: fresh entropy).
        reuse_tree: ``MCTSConfig.reuse_tree``, keep the subtree of the moves played.
        solver: ``MCTSConfig.solver``, MCTS-Solver.
        endgame_exact: ``MCTSConfig.endgame_exact``, the empties of an exact solve at the root.
        evaluator: a value / prior function in place of playouts (``agents.search.evaluation``;
            PUCT when it returns priors); it runs in Python, once a leaf.
        game_time: seconds for all of this agent's moves in a game, or the game's ``TimeControl``
            with a clock, shared out by a ``GameClock``.
        endgame_proof: ``MCTSConfig.endgame_proof``, the empties of a timed search's proof first.
        max_nodes: ``MCTSConfig.max_nodes``, the tree's cap in nodes.
        informed_playouts: ``MCTSConfig.informed_playouts``, corner-aware playouts.
        bias: ``MCTSConfig.bias``, the weight of the progressive bias.
        mix: ``MCTSConfig.mix``, the static value's share of a leaf's value.
        heuristic: the static value, a numba function of ``mcts_tree.LEAF_VALUE_TYPE``'s shape
            (default: the learned pattern value).
        heuristic_weights: the 1-D float32 array ``heuristic`` reads.
        ply: ``MCTSConfig.ply``, 1 for a one-ply search at every leaf.
        fpu: ``MCTSConfig.fpu``, first-play urgency.
        minimax: ``MCTSConfig.minimax``, the weight of a child's minimax value.
        threads: search threads, from 1 to ``MAX_THREADS``.
        parallel: ``"tree"``, the threads share one tree (virtual loss), or ``"root"``, a tree
            each, merged at the root.
        name: the agent's name (default: made from its budget).
        evaluation: the learned pattern evaluation the endgame proof orders its moves by and the
            default heuristic reads (``pattern_evaluation(path)`` for another weights file;
            default the shipped one).
        config: the search's knobs as one record, in place of their keywords.

    Raises:
        ValueError: no budget or more than one, a setting out of its range, or a knob given
            both in ``config`` and as a keyword.
        TypeError: a setting of the wrong type.

    The guides (``heuristic``, ``mix``, ``ply``, ``fpu``, ``minimax``, ``bias``) are described in
    the module docstring; ``MCTSAgent(..., **TEXTBOOK_UCT)`` turns them all off. With one thread
    and a seed a search is reproducible bit for bit, and so is a root-parallel search under a
    simulation budget; a shared tree is not (the threads' interleaving decides which thread
    sees which statistics).
    """

    c = _Knob[float]("c")
    solver = _Knob[bool]("solver")
    endgame_exact = _Knob[int]("endgame_exact")
    endgame_proof = _Knob[int]("endgame_proof")
    reuse_tree = _Knob[bool]("reuse_tree")
    max_nodes = _Knob[int]("max_nodes")
    informed = _Knob[bool]("informed_playouts")
    bias = _Knob[float]("bias")
    mix = _Knob[float]("mix")
    ply = _Knob[int]("ply")
    fpu = _Knob[bool]("fpu")
    minimax = _Knob[float]("minimax")

    def __init__(
        self,
        time_limit: float | None = None,
        simulations: int | None = None,
        c: float = MCTSConfig.c,
        seed: int | None = None,
        reuse_tree: bool = MCTSConfig.reuse_tree,
        solver: bool = MCTSConfig.solver,
        endgame_exact: int = MCTSConfig.endgame_exact,
        evaluator: Evaluator | None = None,
        *,
        game_time: float | TimeControl | None = None,
        endgame_proof: int = MCTSConfig.endgame_proof,
        max_nodes: int = MCTSConfig.max_nodes,
        informed_playouts: bool = MCTSConfig.informed_playouts,
        bias: float = MCTSConfig.bias,
        mix: float = MCTSConfig.mix,
        heuristic: LeafValue | None = None,
        heuristic_weights: np.ndarray | None = None,
        ply: int = MCTSConfig.ply,
        fpu: bool = MCTSConfig.fpu,
        minimax: float = MCTSConfig.minimax,
        threads: int = 1,
        parallel: str = "tree",
        name: str | None = None,
        evaluation: Evaluation | None = None,
        config: MCTSConfig | None = None,
    ) -> None:
        """Validate the settings; raises ValueError / TypeError on bad ones."""
        if sum(budget is not None for budget in (time_limit, game_time, simulations)) != 1:
            raise ValueError(
                "give exactly one budget: time_limit (seconds per move), game_time (seconds per game) "
                "or simulations (per move)"
            )
        if time_limit is not None:
            _check_positive("time_limit", time_limit)
        if game_time is not None and not isinstance(game_time, TimeControl):
            _check_positive("game_time", game_time)
        if simulations is not None:
            _check_positive("simulations", simulations, integer=True)
            if simulations > MAX_SIMULATIONS:
                raise ValueError(f"simulations must be at most {MAX_SIMULATIONS:,}, got {simulations!r}")
        knobs = dict(
            c=c, solver=solver, endgame_exact=endgame_exact, endgame_proof=endgame_proof, reuse_tree=reuse_tree,
            max_nodes=max_nodes, informed_playouts=informed_playouts, bias=bias, mix=mix, ply=ply, fpu=fpu,
            minimax=minimax,
        )  # fmt: skip
        self.config = _agent_config(config, knobs)
        """The search's knobs (setting one of the agent's knob attributes replaces it)."""
        _check_running(threads, parallel, self.max_nodes, evaluator, seed, evaluation)
        self.evaluation = pattern_evaluation() if evaluation is None else evaluation
        """The alpha-beta evaluation of the endgame proof."""
        self.heuristic, weights = _leaf_value(heuristic, heuristic_weights, self.evaluation)
        self.heuristic_weights = np.ascontiguousarray(weights)
        self.time_limit = None if time_limit is None else float(time_limit)
        self.clock = None if game_time is None else game_clock(game_time)
        """The game clock a timed search takes each move's time from instead of
        ``time_limit`` (a GTP controller's ``time_settings`` sets one)."""
        self.simulations = None if simulations is None else int(simulations)
        self.seed = None if seed is None else int(seed)
        self._proof_table: np.ndarray | None = None
        self.evaluator = evaluator
        budget = (
            f"{self.simulations}sims"
            if self.simulations is not None
            else f"{self.time_limit:g}s"
            if self.time_limit is not None
            else f"{self.clock.control.clock_text() if self.clock else game_time}s-game"
        )
        self.name = name if name is not None else f"mcts-{budget}"
        self.threads = int(threads)
        self.parallel = parallel
        self._start_streams()
        self._root_player = 0
        self._speed = 0.0
        """Simulations a second (all threads, wall clock) of the last tree search: a timed pool's size."""
        self.last_result: SearchResult | None = None
        """The SearchResult behind the last ``act`` (for logs and displays)."""
        self._stop = StopSignal()

    def _start_streams(self) -> None:
        """The threads' random streams, paths and trees."""
        base_seed = self.seed if self.seed is not None else int.from_bytes(os.urandom(8), "little")
        # Tree 0 draws from the seed's own stream (one thread searches as it always did); the others from
        # streams derived from (seed, tree).
        self._rngs = [bb.make_rng(base_seed)] + [
            bb.make_rng(int(np.random.SeedSequence([base_seed, i]).generate_state(1, np.uint64)[0]))
            for i in range(1, self.threads)
        ]
        self._rng = self._rngs[0]
        self._paths = [np.zeros(MAX_DEPTH, dtype=np.int64) for _ in range(self.threads)]
        self._trees = [Tree() for _ in range(self.threads if self.parallel == "root" else 1)]
        self._tree = self._trees[0]

    # -- the Agent protocol ---------------------------------------------------------

    book: Book | None = None
    """The opening book it plays from before it searches (``agents.search.book``; None: none)."""

    def act(self, observation: Observation) -> int:
        """The book's move in a position of ``book``, else the search's (``search(...).action``;
        the whole SearchResult stays in ``last_result``, None after a book move)."""
        self.last_result = None
        move = book_move(self.book, observation, self.clock)
        if move is not None:
            return move
        self.last_result = self.search(observation)
        return self.last_result.action

    def reset(self) -> None:
        """Forget the trees and start the game clock, if any, again (a new game)."""
        for tree in self._trees:
            tree.clear()
        if self.clock is not None:
            self.clock.reset()

    def stop(self) -> None:
        """End the search running on another thread as soon as possible (within
        a batch of simulations): it returns the best move found so far."""
        self._stop.stop()

    def see_time(self, left: TimeLeft) -> None:
        """The referee's clock at the start of a move (``agents.base.ClockedAgent``): a search on
        a game clock shares out what it says is left."""
        if self.clock is not None:
            self.clock.see(left)

    @property
    def timed(self) -> bool:
        """True for a search by the clock (a time a move or a game clock), not by simulations."""
        return self.time_limit is not None or self.clock is not None

    # -- search ----------------------------------------------------------------------

    def search(self, position: GameState | Observation) -> SearchResult:
        """Search from a GameState (e.g. ``env.unwrapped.state``, which is never
        modified) or from an observation of the player to move; a game clock
        pays for the search. ``stop()`` from another thread ends it early."""
        self._stop.begin()
        start = time.perf_counter()
        state = self._as_state(position)
        limit = self.time_limit if self.clock is None else self.clock.move_limit(state.num_empty())
        deadline = None if limit is None else start + limit * (1.0 - _TIME_MARGIN)
        result = self._search(state, start, deadline)
        if self.clock is not None:
            self.clock.punch(time.perf_counter() - start)
        return result

    def _search(self, state: GameState, start: float, deadline: float | None) -> SearchResult:
        """The search of ``state`` that began at ``start`` (``perf_counter``), until ``deadline`` (None: the
        simulation budget)."""
        actions = tuple(state.legal_actions())
        if len(actions) == 1:
            return SearchResult(
                actions[0], actions, np.zeros(1, np.int64), np.zeros(1), 0.0, 0, self._tree.size, 0.0, actions
            )
        p, o = state.kernel_boards()
        empties = state.num_empty()
        if self.endgame_exact and empties <= self.endgame_exact:
            solved = _solve_exact(p, o, actions, start, deadline, self._rng, self._stop)
            if solved is not None:
                return solved
        elif deadline is not None and empties <= self.endgame_proof:
            if self._proof_table is None:
                self._proof_table = new_table(TIMED_TABLE_ENTRIES)
            table, threads = self._proof_table, self.threads
            proof = _prove_outcome(
                p, o, actions, start, deadline, table, self.evaluation, threads, self._rng, self._stop
            )
            if proof is not None:
                return proof
        if len(self._trees) > 1:
            return self._parallel_search(p, o, state.player, actions, start, deadline)
        tree = self._tree
        self._prepare_tree(tree, p, o, state.player, start, deadline)
        reused = int(tree.nodes[tree.root]["visits"])
        budget = min(MAX_SIMULATIONS if self.simulations is None else self.simulations, MAX_VISITS - reused)
        searched = time.perf_counter()
        if self.evaluator is not None:
            evaluator = _EvaluatorSearch(tree, self.evaluator, self._root_player, self.config)
            simulations = evaluator.run(budget, deadline, self._stop)
        elif self.threads > 1:
            pools = tree.pools(self.threads)
            shared = _Budget(budget, self.threads)
            try:
                simulations = sum(
                    self._run_threads(lambda i, stop: self._search_loop(tree, pools[i], i, shared, deadline, stop))
                )
            finally:
                tree.gather(pools)
        else:
            left = _Budget(budget, 1)
            [simulations] = self._run_threads(
                lambda i, stop: self._search_loop(tree, tree.meta, i, left, deadline, stop)
            )
        self._note_speed(simulations, searched)
        status = int(tree.nodes[tree.root]["status"])
        seconds = time.perf_counter() - start
        return _result(
            tree.children(), status, tree.principal_variation(), tree.size, actions, simulations, seconds, reused
        )

    def _parallel_search(
        self, p: np.uint64, o: np.uint64, player: int, actions: tuple[int, ...], start: float, deadline: float | None
    ) -> SearchResult:
        """Root-parallel search: every tree searched by its own thread (tree 0
        by this one, so Ctrl-C lands here and stops the others within a batch),
        then their roots merged. Under a simulation budget each tree gets an
        equal share and stops on its own proof only (reproducible with a seed);
        under a time limit a proof in one tree or a decided choice stops all."""
        for tree in self._trees:
            self._prepare_tree(tree, p, o, player, start, deadline)
        reused = [int(tree.nodes[tree.root]["visits"]) for tree in self._trees]
        shares = self._shares(MAX_SIMULATIONS if self.simulations is None else self.simulations)
        budgets = [min(share, MAX_VISITS - kept) for share, kept in zip(shares, reused, strict=True)]
        trees = self._trees
        searched = time.perf_counter()
        done = self._run_threads(
            lambda i, stop: self._search_loop(trees[i], trees[i].meta, i, _Budget(budgets[i], 1), deadline, stop)
        )
        self._note_speed(sum(done), searched)
        kids, status = combine_roots([tree.children() for tree in self._trees])
        move = int(kids[Tree.best_child(kids)]["move"])
        pv = (move, *self._line_below(move))
        nodes = sum(tree.size for tree in self._trees)
        seconds = time.perf_counter() - start
        return _result(kids, status, pv, nodes, actions, sum(done), seconds, sum(reused))

    def _note_speed(self, simulations: int, since: float) -> None:
        """Keep the speed of the search that started at ``since`` (``perf_counter``) and did ``simulations``."""
        seconds = time.perf_counter() - since
        if simulations > 0 and seconds > 0:
            self._speed = simulations / seconds

    def _shares(self, total: int) -> list[int]:
        """``total`` simulations split evenly between the root-parallel trees (3001 = 1501 + 1500); the
        threads of a shared tree take theirs from one ``_Budget`` instead."""
        return [total // self.threads + (1 if i < total % self.threads else 0) for i in range(self.threads)]

    def _run_threads(self, work: Callable[[int, threading.Event], int]) -> list[int]:
        """``work(i, stop)`` for every thread ``i`` at once: 0 in this thread (so
        Ctrl-C lands here and stops the others within a batch), the others in
        helper threads, all joined before this returns or raises. Returns what
        each returned (simulations done). The agent's ``stop()`` sets ``stop`` too."""
        stop = threading.Event()
        done = [0] * self.threads
        errors: list[BaseException] = []

        def helper(i: int) -> None:
            try:
                done[i] = work(i, stop)
            except BaseException as e:  # handed to the calling thread, which raises it
                errors.append(e)
                stop.set()

        helpers = [
            threading.Thread(target=helper, args=(i,), name=f"mcts-search-{i}", daemon=True)
            for i in range(1, self.threads)
        ]
        for thread in helpers:
            thread.start()
        try:
            with self._stop.on_stop(stop.set):
                done[0] = work(0, stop)
        except BaseException:
            stop.set()
            raise
        finally:
            for thread in helpers:
                thread.join()
        if errors:
            raise errors[0]
        return done

    def _line_below(self, move: int) -> tuple[int, ...]:
        """The principal variation after root move ``move``, from the tree that searched it most."""
        most = -1
        line: tuple[int, ...] = ()
        for tree in self._trees:
            kids = tree.children()
            j = int(np.flatnonzero(kids["move"] == move)[0])
            if int(kids[j]["visits"]) > most:
                most = int(kids[j]["visits"])
                line = tree.principal_variation(int(tree.nodes[tree.root]["first"]) + j)
        return line

    def _as_state(self, position: GameState | Observation) -> GameState:
        if isinstance(position, GameState):
            if position.is_terminal():
                raise InvalidPositionError(f"the game is over: there is nothing to search\n{position}")
            return position
        if isinstance(position, Mapping):
            return state_to_move(position)
        raise TypeError(f"search needs a GameState or an observation dict, got {type(position).__name__}")

    def _capacity(self, reused: int, deadline: float | None, start: float) -> int:
        """Pool size of one tree for ``reused`` kept nodes plus what its share of this search's budget may add."""
        trees = len(self._trees)
        if self.simulations is not None:
            budget = -(-self.simulations // trees)
        else:
            speed = max(float(_SIMULATIONS_PER_SECOND * self.threads), self._speed)
            budget = int(max(0.0, (deadline or start) - start) * speed / trees)
        per = _NODES_PER_EXPANDING_SIMULATION if self.ply else _NODES_PER_SIMULATION
        return int(min(self.max_nodes // trees, reused + per * budget + 1024))

    def _prepare_tree(
        self, tree: Tree, p: np.uint64, o: np.uint64, player: int, start: float, deadline: float | None
    ) -> None:
        """Re-root the old tree at this position if it holds it, else start anew."""

        def capacity(reused: int) -> int:
            return self._capacity(reused, deadline, start)

        if not (self.reuse_tree and tree.reroot(p, o, _REUSE_DEPTH, capacity)):
            tree.start(p, o, capacity(0))
        self._root_player = player
        if tree.nodes[tree.root]["first"] < 0:
            guided = self.config.guided
            expand(tree.nodes, tree.meta, tree.root, self.solver, guided, self.heuristic, self.heuristic_weights)

    def _search_loop(
        self,
        tree: Tree,
        meta: np.ndarray,
        i: int,
        budget: _Budget,
        deadline: float | None,
        stop: threading.Event | None,
    ) -> int:
        """Thread ``i``'s batches of simulations on ``tree`` in numba, new nodes
        from ``meta``'s pool, taken from ``budget`` until none are left, the clock runs
        out, the root is proven or, in a timed search, the choice is decided, or
        ``stop`` is set. With more threads than trees the tree is shared
        (``simulate_shared``). A timed search sets ``stop`` when it ends (out of
        time, proven or decided: the other threads need not search on).
        Returns the simulations done."""
        shared = self.threads > len(self._trees)
        nodes, root = tree.nodes, tree.root
        rng, path = self._rngs[i], self._paths[i]
        knobs = (self.config.record, rng, path, self.heuristic, self.heuristic_weights)
        done = 0
        rate = float(_SIMULATIONS_PER_SECOND)
        while nodes[root]["status"] == UNKNOWN and not (stop is not None and stop.is_set()):
            seconds = _BATCH_SECONDS
            if deadline is not None:
                left = deadline - time.perf_counter()
                if done and (left <= 0 or self._decided(rate * left * self.threads)):
                    break
                seconds = min(left * 0.5, _CLOCK_SECONDS)
            batch = budget.take(max(16, int(rate * seconds)))
            if batch == 0:
                break
            t = time.perf_counter()
            ran = int(
                simulate_shared(nodes, tree.tally, i, meta, root, batch, *knobs)
                if shared
                else simulate(nodes, meta, root, batch, *knobs)
            )
            dt = time.perf_counter() - t
            done += ran
            if dt > 0:
                rate = ran / dt
        if deadline is not None and stop is not None:
            stop.set()
        return done

    def _decided(self, remaining: float) -> bool:
        """True when the most visited root move (over all trees) can no longer be overtaken."""
        if len(self._trees) == 1:
            visits = np.sort(self._tree.children()["visits"])
        else:
            kids, status = combine_roots([tree.children() for tree in self._trees])
            if status != UNKNOWN:
                return True
            visits = np.sort(kids["visits"])
        return len(visits) < 2 or visits[-1] - visits[-2] > remaining
