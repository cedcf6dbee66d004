"""Numba kernels for Reversi on 64-bit bitboards.

Board layout (one bit per square, ``index = row * 8 + col``)::

        A  B  C  D  E  F  G  H
    1   0  1  2  3  4  5  6  7
    2   8  9 10 11 12 13 14 15
    ...
    8  56 57 58 59 60 61 62 63

A position is ``(P, O)``: the discs of the player to move and of the opponent.
Every kernel here is *unchecked*: it trusts its arguments (a legal square, two
disjoint boards). ``reversi_env.state.GameState`` is the checked front door.
All constants and shift amounts are ``np.uint64``; mixing in plain int literals
would make numba promote to float64. The public kernels carry explicit
signatures, so Python ints (which numba boxes uint64 results into) and
``np.uint64`` values are both accepted, even at or above 2**63.
"""

from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.extending import intrinsic
from numba.types import Tuple, UniTuple, boolean, int8, int64, uint64

PASS = 64
"""The action index of a pass."""

U0 = np.uint64(0)
U1 = np.uint64(1)
ALL = np.uint64(0xFFFFFFFFFFFFFFFF)
NOT_EDGE_FILES = np.uint64(0x7E7E7E7E7E7E7E7E)
"""Files B..G: masks the opponent's discs for shifts that move sideways, so a
ray can never wrap from the H file onto the A file of the next row."""

_S1 = np.uint64(1)
_S7 = np.uint64(7)
_S8 = np.uint64(8)
_S9 = np.uint64(9)

INITIAL_BLACK = np.uint64((1 << 28) | (1 << 35))  # E4, D5
INITIAL_WHITE = np.uint64((1 << 27) | (1 << 36))  # D4, E5


@intrinsic
def popcount(typingctx, x):  # type: ignore[no-untyped-def]
    """Number of set bits of a uint64 (one ``ctpop`` instruction)."""
    sig = types.uint64(types.uint64)

    def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
        return builder.ctpop(args[0])

    return sig, codegen


@intrinsic
def lowest_square(typingctx, x):  # type: ignore[no-untyped-def]
    """Index of the lowest set bit of a non-zero uint64 (``cttz``)."""
    sig = types.uint64(types.uint64)

    def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
        return builder.cttz(args[0], context.get_constant(types.boolean, True))

    return sig, codegen


@intrinsic
def highest_square(typingctx, x):  # type: ignore[no-untyped-def]
    """Index of the highest set bit of a non-zero uint64 (``ctlz``)."""
    sig = types.uint64(types.uint64)

    def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
        zeros = builder.ctlz(args[0], context.get_constant(types.boolean, True))
        return builder.sub(context.get_constant(types.uint64, 63), zeros)

    return sig, codegen


def _rays() -> np.ndarray:
    """``_RAYS[square, d]``: the squares seen from ``square`` in direction ``d``, nearest
    first; directions 0-3 go towards higher squares, 4-7 towards lower ones."""
    steps = ((0, 1), (1, 0), (1, 1), (1, -1), (0, -1), (-1, 0), (-1, -1), (-1, 1))
    rays = np.zeros((64, 8), dtype=np.uint64)
    for square in range(64):
        for d, (dy, dx) in enumerate(steps):
            y, x, ray = square // 8 + dy, square % 8 + dx, 0
            while 0 <= y < 8 and 0 <= x < 8:
                ray |= 1 << (8 * y + x)
                y, x = y + dy, x + dx
            rays[square, d] = ray
    return rays


_RAYS = _rays()


@njit(cache=True, inline="always")
def _fill_moves_fwd(p: np.uint64, o: np.uint64, s: np.uint64) -> np.uint64:
    # Runs of o after p: one square, two, then doubled twice (o pairs) up to six.
    t = o & (p << s)
    t |= o & (t << s)
    pairs = o & (o << s)
    s2 = s + s
    t |= pairs & (t << s2)
    t |= pairs & (t << s2)
    return t << s


@njit(cache=True, inline="always")
def _fill_moves_bwd(p: np.uint64, o: np.uint64, s: np.uint64) -> np.uint64:
    t = o & (p >> s)
    t |= o & (t >> s)
    pairs = o & (o >> s)
    s2 = s + s
    t |= pairs & (t >> s2)
    t |= pairs & (t >> s2)
    return t >> s


@njit(uint64(uint64, uint64), cache=True)
def legal_moves(p: np.uint64, o: np.uint64) -> np.uint64:
    """Bitboard of the squares where the player with discs ``p`` may place."""
    om = o & NOT_EDGE_FILES
    m = _fill_moves_fwd(p, om, _S1) | _fill_moves_bwd(p, om, _S1)
    m |= _fill_moves_fwd(p, o, _S8) | _fill_moves_bwd(p, o, _S8)
    m |= _fill_moves_fwd(p, om, _S7) | _fill_moves_bwd(p, om, _S7)
    m |= _fill_moves_fwd(p, om, _S9) | _fill_moves_bwd(p, om, _S9)
    return m & ~(p | o)


@njit(uint64(uint64, uint64, uint64), cache=True)
def flips(p: np.uint64, o: np.uint64, square: np.uint64) -> np.uint64:
    """Opponent discs flipped when the player ``p`` places on ``square`` (0-63).

    Along each ray from ``square`` the first square that is not the opponent's
    ends the run: the run flips if that square is the player's. Unchecked: an
    occupied square gives a meaningless result (an illegal empty one gives 0).
    """
    f = U0
    for d in range(4):
        ray = _RAYS[square, d]
        stop = ray & ~o
        first = stop & (U0 - stop)  # the nearest: the lowest square of the ray
        if first & p:
            f |= ray & (first - U1)
    for d in range(4, 8):
        ray = _RAYS[square, d]
        stop = ray & ~o
        if stop != U0:
            first = U1 << highest_square(stop)  # the nearest: the highest square
            if first & p:
                f |= ray & ~((first << U1) - U1)
    return f


@njit(UniTuple(uint64, 2)(uint64, uint64, int64), cache=True)
def play(p: np.uint64, o: np.uint64, action: np.int64) -> tuple[np.uint64, np.uint64]:
    """Apply ``action`` (0-63, or PASS) for the player to move; returns the next
    position ``(P, O)`` from the side of the player who moves next. Unchecked."""
    if action == PASS:
        return o, p
    sq = np.uint64(action)
    f = flips(p, o, sq)
    return o ^ f, p | f | (U1 << sq)


@njit(boolean(uint64, uint64), cache=True)
def is_terminal(p: np.uint64, o: np.uint64) -> bool:
    """True when neither side can place a disc."""
    return legal_moves(p, o) == U0 and legal_moves(o, p) == U0


@njit(cache=True, inline="always")
def nth_square(m: np.uint64, k: np.uint64) -> np.uint64:
    """Index of the ``k``-th (0-based) set bit of ``m``, lowest first."""
    for _ in range(k):
        m &= m - U1
    return lowest_square(m)


@njit(cache=True, inline="always")
def next_random(rng: np.ndarray) -> np.uint64:
    """xorshift64* step on a one-element uint64 array; returns 64 random bits."""
    x = rng[0]
    x ^= x >> np.uint64(12)
    x ^= x << np.uint64(25)
    x ^= x >> np.uint64(27)
    rng[0] = x
    return x * np.uint64(0x2545F4914F6CDD1D)


@njit(cache=True, inline="always")
def random_below(rng: np.ndarray, n: np.uint64) -> np.uint64:
    """A uniform random integer in ``[0, n)`` for ``n < 2**32``."""
    return ((next_random(rng) >> np.uint64(32)) * n) >> np.uint64(32)


def make_rng(seed: int) -> np.ndarray:
    """A kernel RNG state (one non-zero uint64) from any Python int seed."""
    # splitmix64 scrambles nearby seeds into unrelated, non-zero states.
    z = (seed * 0x9E3779B97F4A7C15 + 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFFFFFF
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & 0xFFFFFFFFFFFFFFFF
    z ^= z >> 31
    return np.array([z or 1], dtype=np.uint64)


CORNERS = np.uint64(0x8100000000000081)
"""A1, H1, A8 and H8."""
_A1, _H1, _A8, _H8 = np.uint64(1 << 0), np.uint64(1 << 7), np.uint64(1 << 56), np.uint64(1 << 63)

UNIFORM = 0
"""Playout policy: every legal move is equally likely."""
CORNER_AWARE = 1
"""Playout policy: a corner whenever one is legal, else, if any, the moves that
give no corner away (``corner_neighbours``); uniform among those."""


@njit(cache=True, inline="always")
def corner_neighbours(empty: np.uint64) -> np.uint64:
    """The X- and C-squares of the corners set in ``empty``: a disc there lets
    the opponent take that corner."""
    out = U0
    if empty & _A1:
        out |= (_A1 << _S1) | (_A1 << _S8) | (_A1 << _S9)
    if empty & _H1:
        out |= (_H1 >> _S1) | (_H1 << _S8) | (_H1 << _S7)
    if empty & _A8:
        out |= (_A8 << _S1) | (_A8 >> _S8) | (_A8 >> _S7)
    if empty & _H8:
        out |= (_H8 >> _S1) | (_H8 >> _S8) | (_H8 >> _S9)
    return out


@njit(cache=True, inline="always")
def _playout(p: np.uint64, o: np.uint64, rng: np.ndarray, policy: np.int64) -> np.int64:
    # Inlined with a constant policy (see ``playout``), so the loop tests no flag per move.
    sign = np.int64(1)
    while True:
        m = legal_moves(p, o)
        if m == U0:
            if legal_moves(o, p) == U0:
                break
            p, o = o, p
            sign = -sign
            continue
        if policy == CORNER_AWARE:
            corners = m & CORNERS
            if corners != U0:
                m = corners
            else:
                safe = m & ~corner_neighbours(CORNERS & ~(p | o))
                if safe != U0:
                    m = safe
        sq = nth_square(m, random_below(rng, popcount(m)))
        f = flips(p, o, sq)
        p, o = o ^ f, p | f | (U1 << sq)
        sign = -sign
    return sign * (np.int64(popcount(p)) - np.int64(popcount(o)))


@njit(int64(uint64, uint64, uint64[::1], int64), cache=True, nogil=True)
def playout(p: np.uint64, o: np.uint64, rng: np.ndarray, policy: np.int64) -> np.int64:
    """Play to the end choosing moves by ``policy`` (``UNIFORM`` or
    ``CORNER_AWARE``) with the kernel RNG; returns the final disc difference
    from the side of the player to move at the start (``p``)."""
    if policy == CORNER_AWARE:
        return _playout(p, o, rng, CORNER_AWARE)
    return _playout(p, o, rng, UNIFORM)


@njit(int64(uint64, uint64, uint64[::1]), cache=True, nogil=True)
def random_playout(p: np.uint64, o: np.uint64, rng: np.ndarray) -> np.int64:
    """``playout`` with uniformly random legal moves."""
    return _playout(p, o, rng, UNIFORM)


@njit(int64[::1](uint64, uint64, int64, uint64[::1]), cache=True)
def random_playouts(p: np.uint64, o: np.uint64, n: np.int64, rng: np.ndarray) -> np.ndarray:
    """``n`` random playouts from one position; their final disc differences
    (from the side of ``p``), in one call."""
    out = np.empty(n, dtype=np.int64)
    for i in range(n):
        out[i] = random_playout(p, o, rng)
    return out


@njit(int64(uint64, uint64, int64), cache=True)
def perft(p: np.uint64, o: np.uint64, depth: np.int64) -> np.int64:
    """Leaf count of the game tree ``depth`` plies deep. A pass uses one ply;
    a finished game is one leaf at any greater depth."""
    if depth == 0:
        return np.int64(1)
    m = legal_moves(p, o)
    if m == U0:
        if legal_moves(o, p) == U0:
            return np.int64(1)
        return perft(o, p, depth - 1)
    if depth == 1:
        return np.int64(popcount(m))
    total = np.int64(0)
    while m:
        sq = lowest_square(m)
        m &= m - U1
        f = flips(p, o, sq)
        total += perft(o ^ f, p | f | (U1 << sq), depth - 1)
    return total


@njit(Tuple((uint64, uint64, uint64, boolean))(uint64, uint64, int64), cache=True)
def successor(p: np.uint64, o: np.uint64, action: np.int64) -> tuple[np.uint64, np.uint64, np.uint64, bool]:
    """``play`` plus what a position object needs next, in one call: the next
    mover's discs, the other's, the next mover's legal moves, and whether the
    game is over. Unchecked."""
    p2, o2 = play(p, o, action)
    m = legal_moves(p2, o2)
    return p2, o2, m, m == U0 and legal_moves(o2, p2) == U0


@njit(int8[:, :, ::1](uint64, uint64), cache=True)
def planes_of(mine: np.uint64, theirs: np.uint64) -> np.ndarray:
    """A fresh (8, 8, 2) int8 array: plane 0 the squares of ``mine``, plane 1 of ``theirs``."""
    out = np.empty((8, 8, 2), np.int8)
    for i in range(64):
        s = np.uint64(i)
        out[i >> 3, i & 7, 0] = (mine >> s) & U1
        out[i >> 3, i & 7, 1] = (theirs >> s) & U1
    return out


@njit(int8[::1](uint64, boolean), cache=True)
def mask_of(moves: np.uint64, pass_legal: bool) -> np.ndarray:
    """A fresh int8 action mask of 65 from a moves bitboard and whether PASS is legal."""
    out = np.empty(65, np.int8)
    for i in range(64):
        out[i] = (moves >> np.uint64(i)) & U1
    out[64] = pass_legal
    return out
