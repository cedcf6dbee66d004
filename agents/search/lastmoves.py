"""The last moves of an exact endgame: numba kernels below the transposition table.

With few empty squares a node is so cheap that hashing it costs more than
searching it again, so the alpha-beta core (``agents.search.alphabeta``) hands
positions with ``SHALLOW_EMPTIES`` or fewer empties to these kernels: a plain
alpha-beta ordered by parity (moves into regions with an odd number of empties
first), and hand-unrolled searches for the last four, three, two and one
empty squares that try the empty squares directly instead of generating moves.
Also here: the final score under either scoring rule and the stable discs,
which the core uses for its stability cut-offs.

Scores are disc differences for the player to move. ``wof`` selects the world
federation's rule (empty squares at the end go to the winner); otherwise the
final score is the raw disc difference, this project's convention. Every kernel
counts its nodes in ``stats[NODES]``.
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numba.types import boolean, int64, uint64

from reversi_env.bitboard import U0, U1, flips, legal_moves, lowest_square, popcount

SCORE_MAX = 64
"""The largest possible final disc difference."""

SHALLOW_EMPTIES = 6
"""At this many empty squares or fewer the core stops hashing and calls ``solve_shallow``."""

NODES = 0
"""``stats[NODES]``: the nodes visited so far (the other slots belong to the core)."""

_QUADRANTS = np.array([0x000000000F0F0F0F, 0x00000000F0F0F0F0, 0x0F0F0F0F00000000, 0xF0F0F0F000000000], dtype=np.uint64)
_NOT_A = np.uint64(0xFEFEFEFEFEFEFEFE)
_NOT_H = np.uint64(0x7F7F7F7F7F7F7F7F)
_ROWS = np.array([0xFF << (8 * r) for r in range(8)], dtype=np.uint64)
_COLS = np.array([0x0101010101010101 << c for c in range(8)], dtype=np.uint64)
_EDGES = np.uint64(0xFF818181818181FF)
_STATS = int64[::1]
# Explicit signatures: a recursive kernel compiled for a literal argument would not reload from the cache.
_LAST_N = (uint64, uint64) + (uint64,) * 4
_S1 = np.uint64(1)
_S7 = np.uint64(7)
_S8 = np.uint64(8)
_S9 = np.uint64(9)
_FILE_A = np.uint64(0x0101010101010101)
_FILE_TO_ROW = np.uint64(0x0102040810204080)
_S56 = np.uint64(56)
_BYTE = np.uint64(0xFF)


def _line_flips() -> np.ndarray:
    """``_LINE_FLIPS[pos, line]``: the discs flipped by playing at ``pos`` of a full
    line of eight squares where the mover holds the bits of ``line`` and the
    opponent every other square (a run reaching the end of the line flips nothing)."""
    table = np.zeros((8, 256), dtype=np.int8)
    for pos in range(8):
        for line in range(256):
            for step in (1, -1):
                k, run = pos + step, 0
                while 0 <= k < 8 and not line >> k & 1:
                    k, run = k + step, run + 1
                if 0 <= k < 8 and not line >> pos & 1:
                    table[pos, line] += run
    return table


def _diagonals() -> np.ndarray:
    """``_DIAGONALS[square]``: the two diagonals through ``square`` (the one where the
    column grows with the row, then the other), as bitboards."""
    diagonals = np.zeros((64, 2), dtype=np.uint64)
    for square in range(64):
        row, col = divmod(square, 8)
        for k, step in enumerate((1, -1)):
            for r in range(8):
                c = col + step * (r - row)
                if 0 <= c < 8:
                    diagonals[square, k] |= np.uint64(1 << (8 * r + c))
    return diagonals


def _neighbour_squares() -> np.ndarray:
    """``_NEIGHBOURS[square]``: the squares next to ``square``."""
    neighbours = np.zeros(64, dtype=np.uint64)
    for square in range(64):
        row, col = divmod(square, 8)
        for r in range(max(row - 1, 0), min(row + 2, 8)):
            for c in range(max(col - 1, 0), min(col + 2, 8)):
                if (r, c) != (row, col):
                    neighbours[square] |= np.uint64(1 << (8 * r + c))
    return neighbours


_LINE_FLIPS = _line_flips()
_DIAGONALS = _diagonals()
_NEIGHBOURS = _neighbour_squares()


@njit(cache=True, inline="always")
def final_score(p: np.uint64, o: np.uint64, wof: bool) -> np.int64:
    """The score of a finished game for the player ``p``."""
    d = np.int64(popcount(p)) - np.int64(popcount(o))
    if wof and d != 0:
        e = 64 - np.int64(popcount(p | o))
        return d + e if d > 0 else d - e
    return d


@njit(cache=True, inline="always")
def odd_regions(empty: np.uint64) -> np.uint64:
    """The empty squares of the board quadrants that hold an odd number of
    empties: moving there first leaves the opponent to break parity."""
    odd = U0
    for q in range(4):
        if popcount(empty & _QUADRANTS[q]) & U1:
            odd |= empty & _QUADRANTS[q]
    return odd


@njit(cache=True, inline="always")
def count_last_flips(x: np.uint64, sq: np.uint64) -> np.int64:
    """The number of discs the player with discs ``x`` flips by playing ``sq``, the
    only empty square of the board: the other squares are the opponent's, so the
    four lines through ``sq`` (each read as eight bits by column, or by row for the
    column) look the answer up without making the move."""
    row = sq >> np.uint64(3)
    col = sq & np.uint64(7)
    n = np.int64(_LINE_FLIPS[col, (x >> (row << np.uint64(3))) & _BYTE])
    n += _LINE_FLIPS[row, (((x >> col) & _FILE_A) * _FILE_TO_ROW) >> _S56]
    n += _LINE_FLIPS[col, ((x & _DIAGONALS[sq, 0]) * _FILE_A) >> _S56]
    n += _LINE_FLIPS[col, ((x & _DIAGONALS[sq, 1]) * _FILE_A) >> _S56]
    return n


@njit(cache=True, inline="always")
def _flips_near(p: np.uint64, o: np.uint64, sq: np.uint64) -> np.uint64:
    """``flips``, skipped for an empty square with no opponent disc next to it (nothing to flip there)."""
    if o & _NEIGHBOURS[sq] == U0:
        return U0
    return flips(p, o, sq)


@njit(int64(uint64, uint64, uint64, boolean, _STATS), cache=True, nogil=True)
def _last1(p: np.uint64, o: np.uint64, sq: np.uint64, wof: bool, stats: np.ndarray) -> np.int64:
    """Exact score with one empty square ``sq`` (flips counted, no move made)."""
    stats[NODES] += 1
    n = count_last_flips(p, sq)
    if n != 0:
        return 2 * (np.int64(popcount(p)) + n + 1) - 64
    n = count_last_flips(o, sq)
    if n != 0:
        return 2 * (np.int64(popcount(p)) - n) - 64
    return final_score(p, o, wof)


@njit(int64(*_LAST_N[:4], int64, int64, boolean, _STATS, boolean), cache=True, nogil=True)
def _last2(
    p: np.uint64, o: np.uint64, s1: np.uint64, s2: np.uint64, alpha: np.int64, beta: np.int64, wof: bool,
    stats: np.ndarray, passed: bool,
) -> np.int64:  # fmt: skip
    """Exact score with the two empty squares ``s1``, ``s2``."""
    stats[NODES] += 1
    best = np.int64(-SCORE_MAX - 1)
    f = _flips_near(p, o, s1)
    if f != U0:
        best = -_last1(o ^ f, p | f | (U1 << s1), s2, wof, stats)
        if best >= beta:
            return best
    f = _flips_near(p, o, s2)
    if f != U0:
        v = -_last1(o ^ f, p | f | (U1 << s2), s1, wof, stats)
        if v > best:
            best = v
    if best > -SCORE_MAX - 1:
        return best
    if passed:
        return final_score(p, o, wof)
    return -_last2(o, p, s1, s2, -beta, -alpha, wof, stats, not passed)


@njit(int64(*_LAST_N[:5], int64, int64, boolean, _STATS, boolean), cache=True, nogil=True)
def _last3(
    p: np.uint64, o: np.uint64, s1: np.uint64, s2: np.uint64, s3: np.uint64, alpha: np.int64, beta: np.int64,
    wof: bool, stats: np.ndarray, passed: bool,
) -> np.int64:  # fmt: skip
    """Exact score with the three empty squares ``s1``, ``s2``, ``s3`` (tried in that order)."""
    stats[NODES] += 1
    best = np.int64(-SCORE_MAX - 1)
    for k in range(3):
        if k == 0:
            sq, a, b = s1, s2, s3
        elif k == 1:
            sq, a, b = s2, s1, s3
        else:
            sq, a, b = s3, s1, s2
        f = _flips_near(p, o, sq)
        if f == U0:
            continue
        v = -_last2(o ^ f, p | f | (U1 << sq), a, b, -beta, -max(alpha, best), wof, stats, False)
        if v > best:
            best = v
            if v >= beta:
                return best
    if best > -SCORE_MAX - 1:
        return best
    if passed:
        return final_score(p, o, wof)
    return -_last3(o, p, s1, s2, s3, -beta, -alpha, wof, stats, not passed)


@njit(int64(*_LAST_N, int64, int64, boolean, _STATS, boolean), cache=True, nogil=True)
def _last4(
    p: np.uint64, o: np.uint64, s1: np.uint64, s2: np.uint64, s3: np.uint64, s4: np.uint64, alpha: np.int64,
    beta: np.int64, wof: bool, stats: np.ndarray, passed: bool,
) -> np.int64:  # fmt: skip
    """Exact score with the four empty squares ``s1``..``s4`` (tried in that order)."""
    stats[NODES] += 1
    best = np.int64(-SCORE_MAX - 1)
    for k in range(4):
        if k == 0:
            sq, a, b, c = s1, s2, s3, s4
        elif k == 1:
            sq, a, b, c = s2, s1, s3, s4
        elif k == 2:
            sq, a, b, c = s3, s1, s2, s4
        else:
            sq, a, b, c = s4, s1, s2, s3
        f = _flips_near(p, o, sq)
        if f == U0:
            continue
        v = -_last3(o ^ f, p | f | (U1 << sq), a, b, c, -beta, -max(alpha, best), wof, stats, False)
        if v > best:
            best = v
            if v >= beta:
                return best
    if best > -SCORE_MAX - 1:
        return best
    if passed:
        return final_score(p, o, wof)
    return -_last4(o, p, s1, s2, s3, s4, -beta, -alpha, wof, stats, not passed)


@njit(cache=True, inline="always")
def _take_square(first: np.uint64, then: np.uint64) -> tuple[np.uint64, np.uint64, np.uint64]:
    """The lowest square of ``first``, or if it is empty of ``then``, and both sets without it."""
    if first != U0:
        sq = lowest_square(first)
        return sq, first & (first - U1), then
    return lowest_square(then), first, then & (then - U1)


@njit(int64(uint64, uint64, int64, int64, boolean, _STATS), cache=True, nogil=True)
def _solve_four(p: np.uint64, o: np.uint64, alpha: np.int64, beta: np.int64, wof: bool, stats: np.ndarray) -> np.int64:
    """Exact score with four empties or fewer: squares of odd regions first."""
    empty = ~(p | o)
    n = popcount(empty)
    if n == 0:
        return final_score(p, o, wof)
    odd = odd_regions(empty)
    s1, odd_left, even_left = _take_square(odd, empty & ~odd)
    if n == 1:
        return _last1(p, o, s1, wof, stats)
    s2, odd_left, even_left = _take_square(odd_left, even_left)
    if n == 2:
        return _last2(p, o, s1, s2, alpha, beta, wof, stats, False)
    s3, odd_left, even_left = _take_square(odd_left, even_left)
    if n == 3:
        return _last3(p, o, s1, s2, s3, alpha, beta, wof, stats, False)
    s4 = _take_square(odd_left, even_left)[0]
    return _last4(p, o, s1, s2, s3, s4, alpha, beta, wof, stats, False)


@njit(int64(uint64, uint64, int64, int64, boolean, _STATS), cache=True, nogil=True)
def solve_shallow(
    p: np.uint64, o: np.uint64, alpha: np.int64, beta: np.int64, wof: bool, stats: np.ndarray
) -> np.int64:
    """Fail-soft exact score of a position with few empties (no hashing):
    moves into odd regions first, the last four empties unrolled."""
    empty = ~(p | o)
    if popcount(empty) <= 4:
        return _solve_four(p, o, alpha, beta, wof, stats)
    stats[NODES] += 1
    m = legal_moves(p, o)
    if m == U0:
        if legal_moves(o, p) == U0:
            return final_score(p, o, wof)
        return -solve_shallow(o, p, -beta, -alpha, wof, stats)
    best = np.int64(-SCORE_MAX - 1)
    odd = odd_regions(empty)
    for part in (m & odd, m & ~odd):
        while part != U0:
            sq = lowest_square(part)
            part &= part - U1
            f = flips(p, o, sq)
            v = -solve_shallow(o ^ f, p | f | (U1 << sq), -beta, -max(alpha, best), wof, stats)
            if v > best:
                best = v
                if v >= beta:
                    return best
    return best


@njit(cache=True, inline="always")
def _full_lines(filled: np.uint64) -> tuple[np.uint64, np.uint64, np.uint64, np.uint64]:
    """Squares whose row, column, and each diagonal are completely filled."""
    h = U0
    v = U0
    for i in range(8):
        if filled & _ROWS[i] == _ROWS[i]:
            h |= _ROWS[i]
        if filled & _COLS[i] == _COLS[i]:
            v |= _COLS[i]
    # A diagonal is full when every square on it is filled: keep the filled squares
    # whose two neighbours along the diagonal are kept or off the board, to a fixed point.
    d7 = filled
    d9 = filled
    for _ in range(7):
        d9 &= ((d9 >> _S9) & _NOT_H | _ROWS[7] | _COLS[7]) & ((d9 << _S9) & _NOT_A | _ROWS[0] | _COLS[0])
        d7 &= ((d7 >> _S7) & _NOT_A | _ROWS[7] | _COLS[0]) & ((d7 << _S7) & _NOT_H | _ROWS[0] | _COLS[7])
    return h, v, d7, d9


@njit(uint64(uint64, uint64), cache=True, nogil=True)
def stable_discs(p: np.uint64, o: np.uint64) -> np.uint64:
    """Discs of ``p`` that can never be flipped (a subset of them, found by
    full lines and stable neighbours): in each of the four line directions the
    line is full, or a neighbour along it is the edge or a stable disc of ``p``."""
    filled = p | o
    h, v, d7, d9 = _full_lines(filled)
    stable = U0
    while True:
        # Along each direction: safe if the line is full or a neighbour is off-board or stable.
        sh = h | (stable << _S1) & _NOT_A | (stable >> _S1) & _NOT_H | _COLS[0] | _COLS[7]
        sv = v | (stable << _S8) | (stable >> _S8) | _ROWS[0] | _ROWS[7]
        s7 = d7 | (stable << _S7) & _NOT_H | (stable >> _S7) & _NOT_A | _EDGES
        s9 = d9 | (stable << _S9) & _NOT_A | (stable >> _S9) & _NOT_H | _EDGES
        new = p & sh & sv & s7 & s9
        if new == stable:
            return stable
        stable = new
