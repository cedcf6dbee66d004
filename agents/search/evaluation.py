"""Static evaluations for alpha-beta: the seam a learned evaluation plugs into, and
the hand-written one the ladder uses.

The alpha-beta core (``agents.search.alphabeta``) takes its evaluation as a
parameter: a numba function of signature ``EVAL_SIGNATURE``, ``(P, O, weights)
-> int64``, the value of the position for the player to move (``P``) in units
where one disc of final margin is worth ``DISC`` (exact endgame results are
``disc difference * DISC``), plus the float32 array of weights it reads. The
core is compiled once for that signature (numba first-class functions), so any
evaluation with it plugs in without recompiling the search, and the compiled
search stays in numba's cache. An ``Evaluation`` bundles the two.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numba import njit, types

from reversi_env.bitboard import U1, legal_moves, popcount

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
