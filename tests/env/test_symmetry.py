"""The board's symmetries as action maps, and games counted up to them (``canonical_game``)."""

from __future__ import annotations

from itertools import pairwise

from conftest import random_game

from reversi_env import GameState
from reversi_env.symmetry import SYMMETRIES, canonical_game


def _actions(seed: int) -> list[int]:
    """The plies of a seeded random game (passes included)."""
    states = random_game(seed)
    return [next(a for a in s.legal_actions() if s.apply(a) == t) for s, t in pairwise(states)]


def test_a_game_and_its_mirror_images_are_one_game() -> None:
    for seed in range(3):
        actions = _actions(seed)
        key = canonical_game(actions)
        for g in SYMMETRIES:
            assert canonical_game([int(g[a]) for a in actions]) == key
    assert canonical_game(_actions(0)) != canonical_game(_actions(1))


def test_the_two_ply_openings_are_three_up_to_symmetry() -> None:
    # Twelve positions after two plies, but only three openings (perpendicular,
    # diagonal, parallel): a 2-ply yardstick plays at most six situations.
    start = GameState.initial()
    openings = [(a, b) for a in start.legal_actions() for b in start.apply(a).legal_actions()]
    assert len(openings) == 12
    assert len({canonical_game(o) for o in openings}) == 3
