"""The learned pattern evaluation: an n-tuple network over the bitboards (numba).

The approach of Logistello and Edax. A position is read through 46 small
windows of squares ("pattern instances"): the 4 edges each with their two
X-squares, the 4 corner 3x3 blocks, the 8 corner 2x5 blocks, rows and columns 2,
3 and 4 from each side, and every diagonal of length 4 to 8. Each window's
squares, read in a fixed order, form a base-3 number (0 empty, 1 the mover's
disc, 2 the opponent's): the index of a learned weight. All windows that are
images of one another under the 8 board symmetries share one table, and a
window that is symmetric in itself (an edge read left-to-right or
right-to-left) looks its configurations up under one canonical index, so the
evaluation is exactly invariant under the 8 symmetries.

Reading the windows is cheap: both bitboards are turned by the 8 symmetries
once, and every window is then its pattern's base window read on one of
those images, by a few shifts and masks (a multiplication gathers a
diagonal); ``TERNARY`` turns the gathered bits into base-3 digits, so a
window's index is ``TERNARY[mover bits] + 2 * TERNARY[opponent bits]``.

The value is the sum of the windows' weights plus three linear terms (a bias,
the mobility difference, the parity of the empty squares), with one set of
weights per game phase (``PHASE_EMPTIES`` empty squares a phase). It predicts
the final disc difference (mover minus opponent, empties counted for nobody)
from the side of the player to move, and is clamped to [-64, 64].

Weights are an array ``float32 (N_PHASES, N_WEIGHTS)`` passed to the kernels
(numba would freeze a global array into its compiled cache); ``load_weights()``
reads the ones trained by ``reversi train-eval`` that ship in the package,
``load_weights(path)`` another file it wrote (the spec option ``weights=FILE``).
"""

from __future__ import annotations

import io
import json
import math
from dataclasses import dataclass
from functools import lru_cache
from importlib.resources import files
from pathlib import Path
from typing import Any

import numpy as np
from numba import float32, float64, njit, uint64

from agents.datafiles import load_json, read_npz, write_bytes_atomic
from agents.search.evaluation import DISC, EVAL_SIGNATURE, Evaluation
from agents.search.scored import TieBreakingAgent
from reversi_env.bitboard import U0, U1, flips, legal_moves, lowest_square, popcount
from reversi_env.state import GameState
from reversi_env.symmetry import SYMMETRIES

BASE_PATTERNS: dict[str, tuple[int, ...]] = {
    "edge_x": (0, 1, 2, 3, 4, 5, 6, 7, 9, 14),  # A1-H1 with the X-squares B2 and G2
    "corner_3x3": (0, 1, 2, 8, 9, 10, 16, 17, 18),
    "corner_2x5": (0, 1, 2, 3, 4, 8, 9, 10, 11, 12),
    "row_2": tuple(range(8, 16)),
    "row_3": tuple(range(16, 24)),
    "row_4": tuple(range(24, 32)),
    "diag_8": (0, 9, 18, 27, 36, 45, 54, 63),
    "diag_7": (1, 10, 19, 28, 37, 46, 55),
    "diag_6": (2, 11, 20, 29, 38, 47),
    "diag_5": (3, 12, 21, 30, 39),
    "diag_4": (4, 13, 22, 31),
}
"""One window of each shape (squares as ``row * 8 + col``, read in this order);
the board symmetries give the others."""

PHASE_EMPTIES = 5
"""Empty squares a game phase spans: phase = min(empties // PHASE_EMPTIES, N_PHASES - 1)."""

N_PHASES = 12
"""Weight sets, from the last phase (0-4 empties) to the opening (55-60)."""

SCORE_LIMIT = 64.0
"""The evaluation is clamped to [-SCORE_LIMIT, SCORE_LIMIT] (a disc difference)."""

MAX_PATTERN = 10
"""The most squares of any window."""


def _build_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, list[str]]:
    """The windows (square lists padded with -1, lengths, pattern of each), the
    offset of each pattern's table in one flat array, and the canonical index of
    every flat index."""
    squares: list[tuple[int, ...]] = []
    kinds: list[int] = []
    offsets = [0]
    canon_parts: list[np.ndarray] = []
    for kind, (_, base) in enumerate(BASE_PATTERNS.items()):
        n = len(base)
        seen: set[frozenset[int]] = set()
        # Orders of the base window that read the same squares (its own symmetries),
        # as position permutations: reading by any of them gives the same configuration.
        perms = [[base.index(int(g[s])) for s in base] for g in SYMMETRIES if {int(g[s]) for s in base} == set(base)]
        for g in SYMMETRIES:
            image = tuple(int(g[s]) for s in base)
            if frozenset(image) not in seen:
                seen.add(frozenset(image))
                squares.append(image)
                kinds.append(kind)
        digits = np.array(np.unravel_index(np.arange(3**n), (3,) * n)).T  # first square most significant
        powers = 3 ** np.arange(n - 1, -1, -1)
        canon = np.min(np.stack([digits[:, p] @ powers for p in perms]), axis=0)
        canon_parts.append(canon + offsets[-1])
        offsets.append(offsets[-1] + 3**n)
    padded = np.full((len(squares), MAX_PATTERN), -1, dtype=np.int64)
    for i, sq in enumerate(squares):
        padded[i, : len(sq)] = sq
    lengths = np.array([len(s) for s in squares], dtype=np.int64)
    return (
        padded,
        lengths,
        np.array(kinds, dtype=np.int64),
        np.array(offsets, dtype=np.int64),
        np.concatenate(canon_parts).astype(np.int32),
        list(BASE_PATTERNS),
    )


WINDOW_SQUARES, WINDOW_LENGTHS, WINDOW_KINDS, TABLE_OFFSETS, CANONICAL, PATTERN_NAMES = _build_tables()
N_WINDOWS = len(WINDOW_LENGTHS)
"""Windows read per evaluation (46)."""

TABLE_SIZE = int(TABLE_OFFSETS[-1])
"""Pattern weights per phase (every configuration of every pattern, canonical or not)."""

BIAS, MOBILITY, PARITY = TABLE_SIZE, TABLE_SIZE + 1, TABLE_SIZE + 2
"""Where the three linear terms' weights sit after the pattern tables."""

N_WEIGHTS = TABLE_SIZE + 3
"""Weights per phase."""


@njit(cache=True, nogil=True)
def phase_of(empties: np.int64) -> np.int64:
    """The weight set used with ``empties`` empty squares."""
    return min(empties // PHASE_EMPTIES, np.int64(N_PHASES - 1))


_K1 = np.uint64(0x5555555555555555)
_K2 = np.uint64(0x3333333333333333)
_K4 = np.uint64(0x0F0F0F0F0F0F0F0F)
_B1 = np.uint64(0x00FF00FF00FF00FF)
_B2 = np.uint64(0x0000FFFF0000FFFF)
_T1 = np.uint64(0x5500550055005500)
_T2 = np.uint64(0x3333000033330000)
_T4 = np.uint64(0x0F0F0F0F00000000)
_S1, _S2, _S4, _S7, _S8 = np.uint64(1), np.uint64(2), np.uint64(4), np.uint64(7), np.uint64(8)
_S14, _S16, _S28, _S32 = np.uint64(14), np.uint64(16), np.uint64(28), np.uint64(32)


@njit(cache=True, nogil=True, inline="always")
def _flip_rows(b: np.uint64) -> np.uint64:
    """Row r goes to row 7 - r (a byte swap)."""
    b = ((b >> _S8) & _B1) | ((b & _B1) << _S8)
    b = ((b >> _S16) & _B2) | ((b & _B2) << _S16)
    return (b >> _S32) | (b << _S32)


@njit(cache=True, nogil=True, inline="always")
def _flip_cols(b: np.uint64) -> np.uint64:
    """Column c goes to column 7 - c (every byte's bits reversed)."""
    b = ((b >> _S1) & _K1) | ((b & _K1) << _S1)
    b = ((b >> _S2) & _K2) | ((b & _K2) << _S2)
    return ((b >> _S4) & _K4) | ((b & _K4) << _S4)


@njit(cache=True, nogil=True, inline="always")
def _transpose(b: np.uint64) -> np.uint64:
    """Square (r, c) goes to (c, r) (three delta swaps)."""
    t = _T4 & (b ^ (b << _S28))
    b ^= t ^ (t >> _S28)
    t = _T2 & (b ^ (b << _S14))
    b ^= t ^ (t >> _S14)
    t = _T1 & (b ^ (b << _S7))
    return b ^ t ^ (t >> _S7)


_Images = tuple[np.uint64, ...]
"""A board's 8 symmetric images."""


@njit(cache=True, nogil=True, inline="always")
def _images(b: np.uint64) -> _Images:
    """The board under the 8 symmetries, in the order of ``TRANSFORM_MAPS`` (a
    tuple: it stays in registers, where an array would be allocated at every call)."""
    r = _flip_rows(b)
    t = _transpose(b)
    tr = _flip_rows(t)
    return b, r, _flip_cols(b), _flip_cols(r), t, tr, _flip_cols(t), _flip_cols(tr)


def _transform_maps() -> np.ndarray:
    """Where each of ``_images``' transforms sends each square (8 x 64)."""
    maps = np.zeros((8, 64), dtype=np.int64)
    for sq in range(64):
        images = _images(np.uint64(1 << sq))
        for t in range(8):
            maps[t, sq] = int(images[t]).bit_length() - 1
    return maps


TRANSFORM_MAPS = _transform_maps()
"""``TRANSFORM_MAPS[t, sq]``: the square that ``sq``'s disc lands on in the ``t``-th image of ``_images``."""


def _window_transforms() -> np.ndarray:
    """For each window, a transform that carries its squares, in reading order,
    onto its pattern's base window: reading the base window on that image of the
    board reads the window."""
    out = np.full(N_WINDOWS, -1, dtype=np.int64)
    for w in range(N_WINDOWS):
        n = int(WINDOW_LENGTHS[w])
        base = BASE_PATTERNS[PATTERN_NAMES[int(WINDOW_KINDS[w])]]
        for t in range(8):
            if all(TRANSFORM_MAPS[t, WINDOW_SQUARES[w, k]] == base[k] for k in range(n)):
                out[w] = t
                break
    assert np.all(out >= 0)
    return out


WINDOW_TRANSFORMS = _window_transforms()
KIND_STARTS = np.searchsorted(WINDOW_KINDS, np.arange(len(BASE_PATTERNS) + 1)).astype(np.int64)
"""Pattern ``k``'s windows are ``KIND_STARTS[k]`` to ``KIND_STARTS[k + 1] - 1``."""
PATTERN_LENGTHS = np.array([len(base) for base in BASE_PATTERNS.values()], dtype=np.int64)
WINDOW_OFFSETS = TABLE_OFFSETS[WINDOW_KINDS]
"""Where each window's table starts in a phase's weights."""

TERNARY = np.array(
    [
        [sum(3 ** (n - 1 - j) for j in range(n) if b >> j & 1) for b in range(1 << MAX_PATTERN)]
        for n in range(MAX_PATTERN + 1)
    ],
    dtype=np.int64,
)
"""``TERNARY[n, bits]``: the base-3 digits of a window of ``n`` squares read from
``bits`` (bit ``j`` for the ``j``-th square, first square most significant)."""

_DIAGONALS = np.array([sum(1 << (9 * r + d) for r in range(8 - d)) for d in range(5)], dtype=np.uint64)
"""The diagonal from column ``d`` of the first row down to the right, for ``d`` = 0 to 4."""
_FILES = np.uint64(0x0101010101010101)
_BYTE = np.uint64(0xFF)
_S3, _S5, _S10, _S56 = np.uint64(3), np.uint64(5), np.uint64(10), np.uint64(56)


@njit(cache=True, nogil=True)
def _gather(kind: np.int64, b: np.uint64) -> np.uint64:
    """The squares of pattern ``kind``'s base window on ``b``, bit ``j`` for its ``j``-th square."""
    if kind == 0:  # edge_x: A1-H1, then B2 and G2
        return (b & _BYTE) | ((b >> _S1) & np.uint64(0x100)) | ((b >> _S5) & np.uint64(0x200))
    if kind == 1:  # corner_3x3: three rows of three
        return (b & np.uint64(7)) | ((b >> _S5) & np.uint64(0x38)) | ((b >> _S10) & np.uint64(0x1C0))
    if kind == 2:  # corner_2x5: two rows of five
        return (b & np.uint64(0x1F)) | ((b >> _S3) & np.uint64(0x3E0))
    if kind <= 5:  # rows 2, 3, 4
        return (b >> np.uint64(8 * (kind - 2))) & _BYTE
    # The diagonal starting on column d of the first row: one square a row, in
    # distinct columns, so a multiplication adds them into the top byte without carries.
    d = kind - 6
    return (((b & _DIAGONALS[d]) * _FILES) >> _S56) >> np.uint64(d)


@njit(cache=True, nogil=True)
def _window_index(kind: np.int64, w: np.int64, mine: _Images, theirs: _Images) -> np.int64:
    """The flat index (before canonicalisation) of window ``w``, of pattern
    ``kind``, read from the 8 images of the mover's board (``mine``) and of the
    opponent's. Called with a constant ``kind``: only that pattern's gather is kept.
    Not ``inline="always"``, nor is ``_gather``: numba compiles each once per
    pattern and LLVM inlines them, where numba's own inlining redid its passes
    at every call site (12 s of a first run)."""
    ternary = TERNARY[PATTERN_LENGTHS[kind]]
    t = WINDOW_TRANSFORMS[w]
    return WINDOW_OFFSETS[w] + ternary[_gather(kind, mine[t])] + 2 * ternary[_gather(kind, theirs[t])]


@njit(cache=True, nogil=True, inline="always")
def _kind_indices(kind: np.int64, mine: _Images, theirs: _Images, out: np.ndarray) -> None:
    """The flat indices of pattern ``kind``'s windows into ``out``."""
    for w in range(KIND_STARTS[kind], KIND_STARTS[kind + 1]):
        out[w] = _window_index(kind, w, mine, theirs)


@njit(cache=True, nogil=True)
def raw_indices(p: np.uint64, o: np.uint64, out: np.ndarray) -> None:
    """Write into ``out`` (N_WINDOWS) each window's flat index before
    canonicalisation: the index into weights made by ``expand_weights``."""
    mine, theirs = _images(p), _images(o)
    _kind_indices(0, mine, theirs, out)
    _kind_indices(1, mine, theirs, out)
    _kind_indices(2, mine, theirs, out)
    _kind_indices(3, mine, theirs, out)
    _kind_indices(4, mine, theirs, out)
    _kind_indices(5, mine, theirs, out)
    _kind_indices(6, mine, theirs, out)
    _kind_indices(7, mine, theirs, out)
    _kind_indices(8, mine, theirs, out)
    _kind_indices(9, mine, theirs, out)
    _kind_indices(10, mine, theirs, out)


@njit(cache=True, nogil=True)
def window_indices(p: np.uint64, o: np.uint64, out: np.ndarray) -> None:
    """Write into ``out`` (int32, N_WINDOWS) each window's canonical flat index
    for the mover ``p`` against ``o``."""
    raw_indices(p, o, out)
    for w in range(N_WINDOWS):
        out[w] = CANONICAL[out[w]]


@njit(cache=True, nogil=True, inline="always")
def _kind_sum(
    kind: np.int64, mine: _Images, theirs: _Images, w: np.ndarray, at: np.int64, canonical: bool, s: np.float64
) -> np.float64:
    """``s`` plus the weights of pattern ``kind``'s windows (phase weights from
    ``w[at]``), in window order."""
    for i in range(KIND_STARTS[kind], KIND_STARTS[kind + 1]):
        index = _window_index(kind, i, mine, theirs)
        s += w[at + CANONICAL[index]] if canonical else w[at + index]
    return s


@njit(cache=True, nogil=True)
def linear_terms(p: np.uint64, o: np.uint64) -> tuple[float, float]:
    """The mobility difference and the parity (+1 odd empties, -1 even) of a position."""
    mobility = np.float64(popcount(legal_moves(p, o))) - np.float64(popcount(legal_moves(o, p)))
    parity = 1.0 if np.int64(popcount(~(p | o))) % 2 == 1 else -1.0
    return mobility, parity


@njit(cache=True, nogil=True, inline="always")
def _value(p: np.uint64, o: np.uint64, w: np.ndarray, at: np.int64, canonical: bool) -> np.float64:
    """The unclamped sum of the windows' weights and the linear terms, under
    one phase's weights ``w[at : at + N_WEIGHTS]`` as trained (``canonical``) or made by
    ``expand_weights``. Allocates nothing and takes no view of ``w`` (a view
    costs an atomic increment and decrement of the array's reference count,
    on a cache line that lazy-SMP threads share): the searches call it at every leaf."""
    mine, theirs = _images(p), _images(o)
    s = np.float64(w[at + BIAS])
    s = _kind_sum(0, mine, theirs, w, at, canonical, s)
    s = _kind_sum(1, mine, theirs, w, at, canonical, s)
    s = _kind_sum(2, mine, theirs, w, at, canonical, s)
    s = _kind_sum(3, mine, theirs, w, at, canonical, s)
    s = _kind_sum(4, mine, theirs, w, at, canonical, s)
    s = _kind_sum(5, mine, theirs, w, at, canonical, s)
    s = _kind_sum(6, mine, theirs, w, at, canonical, s)
    s = _kind_sum(7, mine, theirs, w, at, canonical, s)
    s = _kind_sum(8, mine, theirs, w, at, canonical, s)
    s = _kind_sum(9, mine, theirs, w, at, canonical, s)
    s = _kind_sum(10, mine, theirs, w, at, canonical, s)
    mobility, parity = linear_terms(p, o)
    return s + w[at + MOBILITY] * mobility + w[at + PARITY] * parity


@njit(cache=True, nogil=True, inline="always")
def _phase(p: np.uint64, o: np.uint64) -> np.int64:
    """The weight set of the position."""
    return phase_of(np.int64(popcount(~(p | o))))


@njit(cache=True, nogil=True)
def evaluate_raw(p: np.uint64, o: np.uint64, W: np.ndarray) -> np.float64:
    """The unclamped evaluation (what training fits) of the mover ``p``."""
    return _value(p, o, W[_phase(p, o)], 0, True)


@njit(cache=True, nogil=True)
def evaluate(p: np.uint64, o: np.uint64, W: np.ndarray) -> np.float64:
    """Predicted final disc difference for the mover ``p`` against ``o`` under
    the weights ``W`` (float32, N_PHASES x N_WEIGHTS), clamped to [-64, 64].
    Unchecked: the boards must be disjoint."""
    return min(max(_value(p, o, W[_phase(p, o)], 0, True), -SCORE_LIMIT), SCORE_LIMIT)


def expand_weights(W: np.ndarray) -> np.ndarray:
    """The weights with every table entry holding its canonical entry's
    weight, so that ``evaluate_expanded`` skips the canonical-index lookup."""
    out = np.array(W, dtype=np.float32, order="C")
    out[:, :TABLE_SIZE] = out[:, CANONICAL]
    return out


@njit(cache=True, nogil=True)
def evaluate_expanded(p: np.uint64, o: np.uint64, X: np.ndarray) -> np.float64:
    """``evaluate`` under ``X = expand_weights(W)``: the same value, one table
    lookup a window instead of two (what the searches call)."""
    return min(max(_value(p, o, X[_phase(p, o)], 0, False), -SCORE_LIMIT), SCORE_LIMIT)


@njit(cache=True, nogil=True, inline="always")
def _flat_expanded(p: np.uint64, o: np.uint64, flat: np.ndarray) -> np.float64:
    """``evaluate_expanded`` on ``expand_weights(W)`` raveled (read at the phase's
    offset: a reshape would cost a runtime call at every leaf, a slice a
    reference count)."""
    at = _phase(p, o) * N_WEIGHTS
    return min(max(_value(p, o, flat, at, False), -SCORE_LIMIT), SCORE_LIMIT)


@njit(cache=True, nogil=True)
def child_values(p: np.uint64, o: np.uint64, W: np.ndarray, scores: np.ndarray) -> np.uint64:
    """One ply: ``scores[sq]`` = the value for the mover of playing ``sq``
    (exact disc difference if the game ends there, else minus the evaluation
    of the reply position). Returns the legal moves bitboard; other entries of
    ``scores`` are left alone."""
    m = legal_moves(p, o)
    rest = m
    while rest != U0:
        sq = lowest_square(rest)
        rest &= rest - U1
        f = flips(p, o, sq)
        mine, theirs = p | f | (U1 << sq), o ^ f
        if legal_moves(theirs, mine) == U0 and legal_moves(mine, theirs) == U0:
            scores[sq] = np.float64(popcount(mine)) - np.float64(popcount(theirs))
        elif legal_moves(theirs, mine) == U0:
            scores[sq] = evaluate(mine, theirs, W)  # the opponent passes: we move again
        else:
            scores[sq] = -evaluate(theirs, mine, W)
    return m


class CorruptWeightsError(ValueError):
    """A weights file that is not a pattern-weights file of this layout."""


@dataclass(frozen=True)
class PatternWeights:
    """Trained weights and what produced them (command, data size, time)."""

    weights: np.ndarray
    metadata: dict[str, Any]


def save_weights(path: str | Path, weights: np.ndarray, metadata: dict[str, Any]) -> None:
    """Write ``weights`` (stored as float16, a disc difference needs no more)
    and ``metadata`` (JSON) to an ``.npz`` file, atomically; ValueError, and no
    file, for weights ``read_weights`` would refuse (not finite as float16)."""
    if weights.shape != (N_PHASES, N_WEIGHTS):
        raise ValueError(f"weights must have shape {(N_PHASES, N_WEIGHTS)}, got {weights.shape}")
    with np.errstate(over="ignore", invalid="ignore"):
        stored = weights.astype(np.float16)
    if not np.all(np.isfinite(stored)):
        raise ValueError(f"weights not finite or beyond float16's range, not written to {str(path)!r}")
    layout = {"patterns": {k: list(v) for k, v in BASE_PATTERNS.items()}, "phase_empties": PHASE_EMPTIES}
    meta = json.dumps({**metadata, "layout": layout})
    archive = io.BytesIO()
    np.savez_compressed(archive, weights=stored, metadata=np.array(meta))
    write_bytes_atomic(path, archive.getvalue())


def read_weights(path: str | Path) -> PatternWeights:
    """Read a weights file written by ``save_weights``; anything else raises
    one ``CorruptWeightsError`` saying what is wrong (the file is only data)."""
    try:
        arrays = read_npz(
            path,
            ("weights", "metadata"),
            "a pattern-weights file",
            {"weights": ((N_PHASES, N_WEIGHTS), "f"), "metadata": ((), "U")},
        )
    except ValueError as e:
        raise CorruptWeightsError(str(e)) from None
    try:
        weights = np.ascontiguousarray(arrays["weights"], dtype=np.float32)
        metadata = load_json(str(arrays["metadata"]))
    except (ValueError, TypeError) as e:
        raise CorruptWeightsError(f"{str(path)!r} is not a pattern-weights file: {e}") from None
    if weights.shape != (N_PHASES, N_WEIGHTS) or not isinstance(metadata, dict):
        raise CorruptWeightsError(
            f"{str(path)!r} holds weights of shape {weights.shape}, expected {(N_PHASES, N_WEIGHTS)}"
        )
    if not np.all(np.isfinite(weights)):
        raise CorruptWeightsError(f"{str(path)!r} holds weights that are not finite numbers")
    return PatternWeights(weights, metadata)


def shipped_weights_path() -> Path:
    """Where the package's trained weights live."""
    return Path(str(files("agents.search") / "data" / "patterns.npz"))


def _weights_file(path: str | Path | None) -> tuple[str, int, int, int]:
    """The weights file ``path`` (the shipped one for None; relative to the
    current directory) as an absolute path with its version (modification
    time, size and inode: ``save_weights`` replaces a file by a new one); one
    ``CorruptWeightsError`` if there is no such file."""
    file = shipped_weights_path() if path is None else Path(path).expanduser().resolve()
    try:
        stat = file.stat()
    except OSError as e:
        raise CorruptWeightsError(f"no such weights file: {str(file)!r} ({e.strerror})") from None
    return str(file), stat.st_mtime_ns, stat.st_size, stat.st_ino


@lru_cache(maxsize=4)
def _read_version(file: str, mtime_ns: int, size: int, inode: int) -> np.ndarray:
    """The weights of one version of one file (the version is the cache's key)."""
    return read_weights(file).weights


def load_weights(path: str | Path | None = None) -> np.ndarray:
    """The trained weights of the file ``path`` (``reversi train-eval --out``),
    by default the shipped ones; read once per file and version."""
    return _read_version(*_weights_file(path))


@njit(EVAL_SIGNATURE, cache=True, nogil=True)
def search_evaluate(p: np.uint64, o: np.uint64, flat: np.ndarray) -> np.int64:
    """``evaluate`` in alpha-beta's signature (``agents.search.evaluation``):
    ``flat`` is ``expand_weights(W)`` raveled, the value in ``DISC`` units per disc."""
    return np.int64(_flat_expanded(p, o, flat) * DISC)


MCTS_SCALE = 16.0
"""Discs per unit of ``tanh`` in ``mcts_value``: a 16-disc lead is worth 0.76."""


@njit(float64(uint64, uint64, float32[::1]), cache=True, nogil=True)
def mcts_value(p: np.uint64, o: np.uint64, flat: np.ndarray) -> float:
    """``evaluate`` as an MCTS heuristic (``agents.search.mcts_tree.LEAF_VALUE_TYPE``):
    the predicted disc margin squashed to [-1, 1]; ``flat`` is ``expand_weights(W)`` raveled."""
    return math.tanh(_flat_expanded(p, o, flat) / MCTS_SCALE)


def pattern_evaluation(path: str | Path | None = None) -> Evaluation:
    """The learned evaluation with the weights of the file ``path`` (the shipped
    ones by default) as alpha-beta's ``evaluation`` parameter; built once per
    file and version (expanding the weights copies 8 MB) and shared by every
    search. ``CorruptWeightsError`` (one line) for a file that is not weights."""
    return _expanded_version(*_weights_file(path))


@lru_cache(maxsize=4)
def _expanded_version(file: str, mtime_ns: int, size: int, inode: int) -> Evaluation:
    """``pattern_evaluation`` of one version of one file."""
    return Evaluation("patterns", search_evaluate, expand_weights(_read_version(file, mtime_ns, size, inode)).ravel())


class PatternAgent(TieBreakingAgent):
    """The learned evaluation alone: the move whose reply position the pattern
    evaluation likes least for the opponent (1 ply, no search)."""

    def __init__(self, weights: np.ndarray | None = None, *, seed: int | None = None) -> None:
        """``weights`` default to the shipped ones; ``seed`` fixes how ties are broken."""
        super().__init__(seed)
        self.weights = load_weights() if weights is None else np.ascontiguousarray(weights, dtype=np.float32)
        if self.weights.shape != (N_PHASES, N_WEIGHTS):
            raise ValueError(f"weights must have shape {(N_PHASES, N_WEIGHTS)}, got {self.weights.shape}")
        self.name = "pattern"

    def _scores(self, state: GameState, actions: list[int]) -> list[float]:  # type: ignore[override]
        p, o = state.kernel_boards()
        scores = np.zeros(64, dtype=np.float64)
        child_values(p, o, self.weights, scores)
        return [float(scores[a]) for a in actions]
