"""The transposition table: a preallocated numpy array the numba search reads and writes.

Each entry is a row of four uint64 words: the two bitboards (the full key, so a hit is
never a collision), one packed word holding a lower and an upper bound on
the value, the depth they were searched to and the best move, and (in a
bucket's first row) the mark of a position a thread is searching now. Entries come in
buckets of two, one 64-byte cache line: the first keeps the deeper search (replace-by-depth), the
second always takes the newest, so deep results survive and fresh ones still
find a place. Threads share one table without locks: the key words are stored
XORed with the data word, so an entry torn by two threads writing at once no
longer matches any position and reads as absent. The busy marks are simplified
ABDADA's (Weill; Kerrigan's simplification): a thread about to search a
position marks it, and another thread that meets it as a later sibling puts
it off until its other moves are done, so two threads share out the tree
instead of searching the same nodes side by side. A mark is a hint: a lost or
stale one costs time, never a wrong value.
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from llvmlite.binding import llvm_version_info
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

from reversi_env.bitboard import U0

_VALUE_BITS = np.uint64(24)
_VALUE_MASK = np.uint64((1 << 24) - 1)
_VALUE_OFFSET = 1 << 23
VALUE_LIMIT = (1 << 23) - 1
"""Bounds are stored clipped to +-VALUE_LIMIT (far beyond any score)."""
_DEPTH_SHIFT = np.uint64(48)
_MOVE_SHIFT = np.uint64(56)
_BYTE = np.uint64(0xFF)
_K1 = np.uint64(0x9E3779B97F4A7C15)
_K2 = np.uint64(0xC2B2AE3D27D4EB4F)
_S29 = np.uint64(29)

_ROW_WORDS = 4
_LINE_WORDS = 8
NO_MOVE = -1
"""The move of an entry that has none (every move failed low)."""


def new_table(entries: int) -> np.ndarray:
    """An empty table of ``entries`` entries (rounded up to a power of two, at least 2)."""
    if isinstance(entries, bool) or not isinstance(entries, (int, np.integer)) or entries < 2:
        raise ValueError(f"a transposition table needs at least 2 entries, got {entries!r}")
    size = 1 << (int(entries) - 1).bit_length()
    # Rows of four words (the fourth: busy marks) from a 64-byte boundary: a bucket is one cache line.
    raw = np.zeros(size * _ROW_WORDS + _LINE_WORDS, dtype=np.uint64)
    start = (-raw.ctypes.data // 8) % _LINE_WORDS
    return raw[start : start + size * _ROW_WORDS].reshape(size, _ROW_WORDS)


def clear_table(table: np.ndarray) -> None:
    """Forget every entry."""
    table.fill(0)


@njit(cache=True, inline="always")
def _bucket(table: np.ndarray, p: np.uint64, o: np.uint64) -> np.int64:
    h = (p * _K1) ^ (o * _K2)
    h ^= h >> _S29
    return np.int64(h & np.uint64(table.shape[0] - 2))


@njit(cache=True, inline="always")
def _busy_mark(p: np.uint64, o: np.uint64) -> np.uint64:
    """The position's busy mark: a 64-bit hash, never 0 (0 is no mark)."""
    h = (p * _K2) ^ (o * _K1)
    return (h ^ (h >> _S29)) | np.uint64(1)


@njit(cache=True, inline="always")
def is_busy(table: np.ndarray, p: np.uint64, o: np.uint64) -> bool:
    """Whether some thread marked the position as being searched (and has not unmarked it)."""
    return table[_bucket(table, p, o), 3] == _busy_mark(p, o)


@njit(cache=True, inline="always")
def mark_busy(table: np.ndarray, p: np.uint64, o: np.uint64) -> None:
    """Mark the position as being searched (a position sharing its bucket loses its mark)."""
    table[_bucket(table, p, o), 3] = _busy_mark(p, o)


@njit(cache=True, inline="always")
def clear_busy(table: np.ndarray, p: np.uint64, o: np.uint64) -> None:
    """Remove the position's mark, if it is still the bucket's."""
    i = _bucket(table, p, o)
    if table[i, 3] == _busy_mark(p, o):
        table[i, 3] = U0


@njit(cache=True, inline="always")
def probe(table: np.ndarray, p: np.uint64, o: np.uint64) -> tuple[bool, np.int64, np.int64, np.int64, np.int64]:
    """``(found, lower, upper, depth, move)`` for the position, if stored."""
    i = _bucket(table, p, o)
    for j in range(i, i + 2):
        w = table[j, 2]
        if w != U0 and table[j, 0] ^ w == p and table[j, 1] ^ w == o:
            lo = np.int64(w & _VALUE_MASK) - _VALUE_OFFSET
            hi = np.int64((w >> _VALUE_BITS) & _VALUE_MASK) - _VALUE_OFFSET
            depth = np.int64((w >> _DEPTH_SHIFT) & _BYTE)
            move = np.int64(w >> _MOVE_SHIFT) - 1
            return True, lo, hi, depth, move
    return False, np.int64(0), np.int64(0), np.int64(0), np.int64(NO_MOVE)


_PREFETCH_INTRINSIC = "llvm.prefetch.p0" if llvm_version_info[0] >= 15 else "llvm.prefetch.p0i8"
"""The intrinsic's name mangles its pointer type: opaque pointers from LLVM 15 on, ``i8*`` before."""


@intrinsic
def _prefetch_row(typingctx, table, row):  # type: ignore[no-untyped-def]
    """Ask the CPU to start loading ``table[row]`` into its caches (no result, no fault)."""
    sig = types.void(table, types.int64)

    def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
        array = context.make_array(signature.args[0])(context, builder, args[0])
        shape = cgutils.unpack_tuple(builder, array.shape)
        strides = cgutils.unpack_tuple(builder, array.strides)
        index = [args[1], context.get_constant(types.int64, 0)]
        ptr = cgutils.get_item_pointer2(context, builder, array.data, shape, strides, signature.args[0].layout, index)
        ptr = builder.bitcast(ptr, ir.IntType(8).as_pointer())
        i32 = ir.IntType(32)
        fn = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(ir.VoidType(), [ptr.type, i32, i32, i32]), _PREFETCH_INTRINSIC
        )
        builder.call(fn, [ptr, i32(0), i32(3), i32(1)])  # a read, kept in every cache level, data
        return context.get_dummy_value()

    return sig, codegen


@njit(cache=True, inline="always")
def prefetch(table: np.ndarray, p: np.uint64, o: np.uint64) -> None:
    """Start loading the position's bucket: a probe soon after then finds it in the cache
    instead of waiting for memory (the table is far larger than the caches)."""
    _prefetch_row(table, _bucket(table, p, o))


@njit(cache=True, inline="always")
def _clip(value: np.int64) -> np.int64:
    if value > VALUE_LIMIT:
        return np.int64(VALUE_LIMIT)
    if value < -VALUE_LIMIT:
        return np.int64(-VALUE_LIMIT)
    return value


@njit(cache=True, inline="always")
def store(
    table: np.ndarray, p: np.uint64, o: np.uint64, lower: np.int64, upper: np.int64, depth: np.int64, move: np.int64
) -> None:
    """Record bounds ``lower <= value <= upper`` found at ``depth`` with best ``move``."""
    lo = _clip(lower) + _VALUE_OFFSET
    hi = _clip(upper) + _VALUE_OFFSET
    w = (
        np.uint64(lo)
        | (np.uint64(hi) << _VALUE_BITS)
        | (np.uint64(depth) << _DEPTH_SHIFT)
        | (np.uint64(move + 1) << _MOVE_SHIFT)
    )
    i = _bucket(table, p, o)
    # The same position, or a shallower result in the depth-preferred slot, is replaced there.
    old = table[i, 2]
    same = table[i, 0] ^ old == p and table[i, 1] ^ old == o
    j = i if same or np.int64((old >> _DEPTH_SHIFT) & _BYTE) <= depth else i + 1
    table[j, 2] = w
    table[j, 0] = p ^ w
    table[j, 1] = o ^ w
