"""The value of a position: the one seam through which every search takes its
knowledge, in the form each search calls it.

- Compiled, for alpha-beta (``agents.search.alphabeta``): an ``Evaluation``, a
  numba function of signature ``EVAL_SIGNATURE``, ``(P, O, weights) -> int64``,
  plus the float32 array of weights it reads. Its value is for the player to
  move (``P``), in units where one disc of final margin is worth ``DISC``
  (exact endgame results are ``disc difference * DISC``). The core is compiled
  once for that signature (numba first-class functions), so any evaluation
  with it plugs in without recompiling the search, and the compiled search
  stays in numba's cache. ``HAND_EVALUATION`` is the hand-written one; the
  learned pattern tables are ``agents.search.patterns``.
- One position at a time, for MCTS (``MCTSAgent(evaluator=...)``): an
  ``Evaluator``, a value in [-1, 1] for the mover and an optional prior over
  the 65 actions, called from Python at each new leaf.
- Batched, for the PUCT search (``agents.search.puct``): a ``BatchEvaluator``,
  priors and values for many positions in one call (a network's forward
  pass). ``UniformEvaluator`` knows nothing; ``OnePosition`` asks a batched
  evaluator one position at a time, so it serves MCTS as an ``Evaluator`` too.

MCTS's numba loop also takes a compiled leaf value of its own, a float in
[-1, 1] (``MCTSAgent(heuristic=...)``, typed ``mcts_tree.LEAF_VALUE_TYPE``).

The two Python forms agree on their meaning: the value is the expected result
for the player to move (+1 a win), the prior any non-negative weights over the
actions (0-63 squares, 64 PASS), renormalised by the search over the legal
moves; finished games are never asked (the searches score them exactly).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import numpy as np
from numba import njit, types

from reversi_env.bitboard import U1, legal_moves, popcount

if TYPE_CHECKING:
    from reversi_env.state import GameState

EVAL_WEIGHTS = types.float32[::1]
"""The numba type of an evaluation's weights: one contiguous float32 array."""

EVAL_SIGNATURE = types.int64(types.uint64, types.uint64, EVAL_WEIGHTS)
"""``evaluate(P, O, weights) -> int64``: compile an evaluation with
``@njit(EVAL_SIGNATURE, cache=True)`` to plug it into the search."""

DISC = 1000
"""One disc of final margin in evaluation units; an exact final score of d discs is ``d * DISC``."""

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


_ROW_WEIGHTS = np.array(
    [[sum(int(SQUARE_WEIGHTS[8 * r + c]) for c in range(8) if byte >> c & 1) for byte in range(256)] for r in range(8)],
    dtype=np.int64,
)
"""``_ROW_WEIGHTS[r, byte]``: the weight of the squares of row ``r`` set in ``byte`` (8 lookups a board)."""
_BYTE = np.uint64(0xFF)


@njit(cache=True)
def weight_sum(m: np.uint64) -> np.int64:
    """The sum of ``SQUARE_WEIGHTS`` over the squares of ``m``."""
    s = np.int64(0)
    for r in range(8):
        s += _ROW_WEIGHTS[r, (m >> np.uint64(8 * r)) & _BYTE]
    return s


@njit(cache=True)
def evaluate(p: np.uint64, o: np.uint64) -> np.int64:
    """Heuristic value for the mover: square weights (X- and C-squares turn
    neutral once their corner is taken), mobility, and access to corners.
    Its values (a few hundred at most) stay below one ``DISC``."""
    s = weight_sum(p) - weight_sum(o)
    occupied = p | o
    for i in range(4):
        if occupied & (U1 << _CORNER_BITS[i]):
            s -= weight_sum(p & _CORNER_NEIGHBOURS[i]) - weight_sum(o & _CORNER_NEIGHBOURS[i])
    mp = legal_moves(p, o)
    mo = legal_moves(o, p)
    s += _MOBILITY * (np.int64(popcount(mp)) - np.int64(popcount(mo)))
    s += _CORNER_MOVE * (np.int64(popcount(mp & _CORNERS)) - np.int64(popcount(mo & _CORNERS)))
    return s


@njit(EVAL_SIGNATURE, cache=True, nogil=True)
def hand_evaluate(p: np.uint64, o: np.uint64, weights: np.ndarray) -> np.int64:
    """``evaluate`` in the search's signature (it reads no weights)."""
    return evaluate(p, o)


@dataclass(frozen=True)
class Evaluation:
    """A static evaluation for the search: ``function`` compiled with
    ``EVAL_SIGNATURE`` and the ``weights`` it reads (float32, contiguous)."""

    name: str
    function: Any
    weights: np.ndarray = field(default_factory=lambda: np.zeros(1, dtype=np.float32))

    def __post_init__(self) -> None:
        if not isinstance(self.weights, np.ndarray) or self.weights.dtype != np.float32 or self.weights.ndim != 1:
            raise TypeError(f"evaluation {self.name!r}: weights must be a 1-D float32 array")
        if not self.weights.flags.c_contiguous:
            raise TypeError(f"evaluation {self.name!r}: weights must be contiguous")


HAND_EVALUATION = Evaluation("hand", hand_evaluate)
"""The hand-written evaluation (square weights, mobility, corners): the default."""


@runtime_checkable
class Evaluator(Protocol):
    """A leaf evaluator for MCTS: one position at a time.

    ``evaluate(state)`` returns ``(value, prior)``: ``value`` in [-1, 1] is the
    expected outcome for the player to move in ``state`` (+1 a win); ``prior``
    is None (plain UCT) or an array of 65 non-negative weights over the actions
    (0-63 squares, 64 PASS), renormalised over the legal ones by the search.
    It is called only for positions that are not over. An evaluator replaces
    the random playout at a new leaf of the tree; with priors the tree selects
    by PUCT (AlphaZero's rule) instead of UCT. Anything with an ``evaluate``
    method of this shape is an Evaluator (a structural Protocol).
    """

    def evaluate(self, state: GameState) -> tuple[float, np.ndarray | None]:
        """The value for the mover of ``state`` and an optional prior policy."""
        ...


@runtime_checkable
class BatchEvaluator(Protocol):
    """Priors and values for a batch of positions: the PUCT search's evaluator.

    Positions come from the mover's side, as the kernels of ``reversi_env.bitboard``
    take them: ``mover`` and ``opponent`` are uint64 arrays of the same length ``n``.
    The answer is ``(priors, values)``: priors float32 ``(n, 65)`` (0-63 squares,
    64 PASS; any non-negative weights, renormalised by the search over the legal
    moves) and values float32 ``(n,)`` in [-1, 1], the expected result for the
    mover (+1 a win). Finished games are never sent (the search scores them itself).
    A policy-value network does one forward pass for the batch
    (``agents.learn.network.NetworkEvaluator``). Anything with an ``evaluate``
    method of this shape is a BatchEvaluator (a structural Protocol).
    """

    def evaluate(self, mover: np.ndarray, opponent: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(priors (n, 65) float32, values (n,) float32)`` for ``n`` positions."""
        ...


class UniformEvaluator:
    """No knowledge: a flat prior and a value of 0 everywhere. PUCT with it is
    a plain visit-count search whose only information is the game's results."""

    def evaluate(self, mover: np.ndarray, opponent: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Equal priors on all 65 actions and zero values."""
        n = len(mover)
        return np.full((n, 65), 1.0 / 65, dtype=np.float32), np.zeros(n, dtype=np.float32)


class OnePosition:
    """A ``BatchEvaluator`` asked one position at a time: an ``Evaluator``.

    Args:
        batch: the batched evaluator (a network's, say) that values each position.

    With it a batched evaluator guides ``MCTSAgent`` as well as the PUCT search.
    """

    def __init__(self, batch: BatchEvaluator) -> None:
        self.batch = batch

    def evaluate(self, state: GameState) -> tuple[float, np.ndarray]:
        """The batch's value and prior for ``state``, a batch of one."""
        mover, opponent = state.kernel_boards()
        priors, values = self.batch.evaluate(np.array([mover], np.uint64), np.array([opponent], np.uint64))
        return float(values[0]), np.asarray(priors[0])
