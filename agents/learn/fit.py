"""Fitting the pattern weights: ridge least squares, solved by conjugate gradients (numba).

The evaluation is linear in its weights, so fitting it to labelled positions
is least squares: minimise ``sum (x_r . w - y_r)^2 + ridge * |w|^2`` over the
rows ``r``. Each position is a row of its own phase and, when an empty count
``blend`` (``PHASE_BLEND``) away belongs to a neighbouring phase, a row of that phase too,
so a phase learns from the edges of its neighbours and phases change smoothly.
The ridge term keeps configurations seen a few times near zero. CGLS (conjugate
gradients on the normal equations) solves it without ever forming them: each
iteration is one pass over the rows forward and one back.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numba import njit

from agents.learn.pattern_selfplay import Positions
from agents.search.patterns import (
    BIAS,
    MAX_PATTERN,
    MOBILITY,
    N_PHASES,
    N_WEIGHTS,
    N_WINDOWS,
    PARITY,
    WINDOW_OFFSETS,
    linear_terms,
    phase_of,
    window_indices,
)
from reversi_env.bitboard import popcount

if 3**MAX_PATTERN > 2**16:
    raise ImportError("a pattern too long for the fit's uint16 window indices")

PHASE_BLEND = 2
"""By default a position also trains the phase of ``empties - PHASE_BLEND`` and of ``empties + PHASE_BLEND``."""


@njit(cache=True)
def _rows(p: np.ndarray, o: np.ndarray, blend: np.int64) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per position: window indices (uint16, from the window's table start:
    a pattern of 10 squares has 3^10 < 2^16 configurations) and linear terms;
    per row: position (int32) and phase (int8). Compact, so a fit of 50 M
    positions fits in memory."""
    n = len(p)
    idx = np.zeros((n, N_WINDOWS), dtype=np.uint16)
    terms = np.zeros((n, 2), dtype=np.float64)
    row_pos = np.zeros(3 * n, dtype=np.int32)
    row_phase = np.zeros(3 * n, dtype=np.int8)
    flat = np.zeros(N_WINDOWS, dtype=np.int32)
    r = 0
    for i in range(n):
        window_indices(p[i], o[i], flat)
        for j in range(N_WINDOWS):
            idx[i, j] = flat[j] - WINDOW_OFFSETS[j]
        mobility, parity = linear_terms(p[i], o[i])
        terms[i, 0], terms[i, 1] = mobility, parity
        e = np.int64(popcount(~(p[i] | o[i])))
        last = np.int64(-1)
        for d in (-blend, 0, blend):
            ph = phase_of(max(e + d, np.int64(0)))
            if ph != last:
                row_pos[r], row_phase[r] = i, ph
                r += 1
                last = ph
    return idx, terms, row_pos[:r].copy(), row_phase[:r].copy()


@njit(cache=True)
def _forward(
    w: np.ndarray, idx: np.ndarray, terms: np.ndarray, row_pos: np.ndarray, row_phase: np.ndarray, out: np.ndarray
) -> None:
    """``out = X w`` (w flat, N_PHASES * N_WEIGHTS)."""
    for r in range(len(row_pos)):
        i, base = row_pos[r], np.int64(row_phase[r]) * N_WEIGHTS
        s = w[base + BIAS] + w[base + MOBILITY] * terms[i, 0] + w[base + PARITY] * terms[i, 1]
        for j in range(N_WINDOWS):
            s += w[base + WINDOW_OFFSETS[j] + idx[i, j]]
        out[r] = s


@njit(cache=True)
def _backward(
    u: np.ndarray, idx: np.ndarray, terms: np.ndarray, row_pos: np.ndarray, row_phase: np.ndarray, out: np.ndarray
) -> None:
    """``out = X^T u``."""
    out[:] = 0.0
    for r in range(len(row_pos)):
        i, base = row_pos[r], np.int64(row_phase[r]) * N_WEIGHTS
        out[base + BIAS] += u[r]
        out[base + MOBILITY] += u[r] * terms[i, 0]
        out[base + PARITY] += u[r] * terms[i, 1]
        for j in range(N_WINDOWS):
            out[base + WINDOW_OFFSETS[j] + idx[i, j]] += u[r]


@njit(cache=True)
def _diagonal(idx: np.ndarray, terms: np.ndarray, row_pos: np.ndarray, row_phase: np.ndarray, out: np.ndarray) -> None:
    """``out`` ~ the diagonal of ``X^T X`` (rows counted once a window): the preconditioner."""
    out[:] = 0.0
    for r in range(len(row_pos)):
        i, base = row_pos[r], np.int64(row_phase[r]) * N_WEIGHTS
        out[base + BIAS] += 1.0
        out[base + MOBILITY] += terms[i, 0] * terms[i, 0]
        out[base + PARITY] += 1.0
        for j in range(N_WINDOWS):
            out[base + WINDOW_OFFSETS[j] + idx[i, j]] += 1.0


@dataclass(frozen=True)
class FitResult:
    """Fitted weights and the mean squared error of the rows before and after."""

    weights: np.ndarray
    mse_before: float
    mse_after: float
    iterations: int


def fit(
    positions: Positions,
    initial: np.ndarray | None = None,
    *,
    ridge: float = 5.0,
    iterations: int = 60,
    blend: int = PHASE_BLEND,
    progress: Callable[[int], None] | None = None,
) -> FitResult:
    """Ridge least-squares weights for ``positions`` by ``iterations`` steps of
    conjugate gradients on the normal equations ``(X^T X + ridge I) w = X^T y``,
    preconditioned by their diagonal, from ``initial`` (zeros if None); a
    position also trains the phases ``blend`` empties away.
    ``progress(1)`` is called after each step."""
    if len(positions) == 0:
        raise ValueError("no positions to fit")
    idx, terms, row_pos, row_phase = _rows(positions.p, positions.o, np.int64(blend))
    rows = (idx, terms, row_pos, row_phase)
    y = positions.label.astype(np.float64)[row_pos]
    w = np.zeros(N_PHASES * N_WEIGHTS) if initial is None else initial.astype(np.float64).ravel().copy()
    xv = np.empty(len(row_pos))
    hv = np.empty_like(w)

    def normal(v: np.ndarray) -> np.ndarray:
        _forward(v, *rows, xv)
        _backward(xv, *rows, hv)
        return hv + ridge * v

    _forward(w, *rows, xv)
    mse_before = float(np.mean((y - xv) ** 2))
    _backward(y - xv, *rows, hv)
    r = hv - ridge * w
    diag = np.empty_like(w)
    _diagonal(*rows, diag)
    diag += ridge
    z = r / diag
    d = z.copy()
    rz = float(r @ z)
    done = 0
    for _ in range(iterations):
        if rz <= 1e-18:
            break
        hd = normal(d)
        alpha = rz / float(d @ hd)
        w += alpha * d
        r -= alpha * hd
        z = r / diag
        rz, previous = float(r @ z), rz
        d = z + (rz / previous) * d
        done += 1
        if progress is not None:
            progress(1)
    _forward(w, *rows, xv)
    mse_after = float(np.mean((y - xv) ** 2))
    return FitResult(w.reshape(N_PHASES, N_WEIGHTS).astype(np.float32), mse_before, mse_after, done)
