"""The numba kernels against GameState and an independent Python replay."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import random_game

from reversi_env import GameState
from reversi_env import bitboard as bb

MASK64 = (1 << 64) - 1


class PyXorshift:
    """xorshift64* written out in Python, to replay a kernel playout move by move."""

    def __init__(self, state: int) -> None:
        self.x = state

    def below(self, n: int) -> int:
        x = self.x
        x ^= x >> 12
        x ^= (x << 25) & MASK64
        x ^= x >> 27
        self.x = x
        return (((x * 0x2545F4914F6CDD1D) & MASK64) >> 32) * n >> 32


# Each corner and the squares next to it (C and X), which hand the corner over while it is empty.
CORNER_NEIGHBOURS = {0: (1, 8, 9), 7: (6, 15, 14), 56: (57, 48, 49), 63: (62, 55, 54)}


def corner_aware_choices(state: GameState) -> list[int]:
    """The moves a CORNER_AWARE playout draws from: corners, else moves next to no empty corner, else all."""
    legal = state.legal_actions()
    corners = [a for a in legal if a in CORNER_NEIGHBOURS]
    if corners:
        return corners
    empty = [c for c in CORNER_NEIGHBOURS if not (state.black | state.white) >> c & 1]
    safe = [a for a in legal if not any(a in CORNER_NEIGHBOURS[c] for c in empty)]
    return safe or legal


@pytest.mark.parametrize("policy", [bb.UNIFORM, bb.CORNER_AWARE])
@pytest.mark.parametrize("seed", range(20))
def test_playout_matches_a_python_replay(seed: int, policy: int) -> None:
    start = random_game(seed, plies=seed)[-1]
    rng = bb.make_rng(seed)
    replay = PyXorshift(int(rng[0]))
    p, o = start.kernel_boards()
    diff = bb.playout(p, o, rng, policy) if policy != bb.UNIFORM or seed % 2 else bb.random_playout(p, o, rng)
    s = start
    while not s.is_terminal():
        legal = s.legal_actions() if policy == bb.UNIFORM else corner_aware_choices(s)
        s = s.apply(legal[replay.below(len(legal))] if legal != [64] else 64)
    mover_sign = 1 if start.player == 0 else -1
    assert diff == mover_sign * s.disc_difference()
    assert int(rng[0]) == replay.x


def test_playouts_are_seeded_and_vary() -> None:
    p, o = GameState.initial().kernel_boards()
    a = bb.random_playouts(p, o, 200, bb.make_rng(7))
    b = bb.random_playouts(p, o, 200, bb.make_rng(7))
    c = bb.random_playouts(p, o, 200, bb.make_rng(8))
    assert np.array_equal(a, b)
    assert not np.array_equal(a, c)
    assert len(set(a.tolist())) > 20
    assert np.all(np.abs(a) <= 64)


@pytest.mark.parametrize("seed", range(10))
def test_kernels_agree_with_state_along_a_game(seed: int) -> None:
    for s in random_game(100 + seed):
        p, o = s.kernel_boards()
        moves = bb.legal_moves(p, o)
        assert [i for i in range(64) if moves >> i & 1] == [a for a in s.legal_actions() if a < 64]
        assert bb.is_terminal(p, o) == s.is_terminal()
        for a in s.legal_actions():
            nxt, prev = bb.play(p, o, a)
            assert GameState.from_kernel(nxt, prev, 1 - s.player) == s.apply(a)
            if a < 64:
                assert bin(bb.flips(p, o, a)).count("1") == len(s.flipped(a))


def test_kernels_take_boards_with_the_top_bit_set() -> None:
    s = GameState.from_string("." * 62 + "OX", player="black")  # H8 is bit 63
    assert s.black == 1 << 63
    p, o = s.kernel_boards()
    assert bb.legal_moves(s.black, s.white) == bb.legal_moves(p, o) == 1 << 61


def test_make_rng_is_never_zero() -> None:
    states = {int(bb.make_rng(seed)[0]) for seed in range(-5, 1000)}
    assert 0 not in states and len(states) == 1005
