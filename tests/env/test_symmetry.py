"""The board's symmetries as action maps, and games counted up to them (``canonical_game``)."""

from __future__ import annotations

from itertools import pairwise
from typing import Any

import numpy as np
import pytest
from conftest import random_game

from reversi_env import BLACK, PASS, WHITE, GameState
from reversi_env.observation import ObservationSpec
from reversi_env.symmetry import (
    INVERSES,
    SYMMETRIES,
    augment,
    canonical_game,
    transform,
    transform_actions,
    transform_observations,
    transform_state,
    transform_vectors,
)


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


# -- observations, masks and policies through the symmetries -------------------


SPECS = [
    ObservationSpec(),
    ObservationSpec(dtype="float32", layout="CHW", legal_moves=True, side_to_move=True),
    ObservationSpec(layout="CHW", history=3, flat=True),
    ObservationSpec(dtype="float32", legal_moves=True, history=2, flat=True),
]


def _positions(seed: int) -> list[GameState]:
    """The non-final positions of a seeded random game."""
    return [s for s in random_game(seed) if not s.is_terminal()]


def test_a_moved_legal_move_is_legal_in_the_moved_position() -> None:
    states = _positions(0) + _positions(1)
    masks = np.stack([s.legal_mask() for s in states])
    for k in range(8):
        moved = transform_vectors(k, masks)
        for s, m in zip(states, moved, strict=True):
            t = transform_state(k, s)
            np.testing.assert_array_equal(m, t.legal_mask())
            assert sorted(transform_actions(k, np.array(s.legal_actions())).tolist()) == t.legal_actions()


@pytest.mark.parametrize("spec", SPECS)
def test_a_moved_observation_is_the_observation_of_the_moved_position(spec: ObservationSpec) -> None:
    states = _positions(2)
    history = [states[max(i - 3, 0) : i][::-1] for i in range(len(states))]  # the positions before, newest first
    for player in (BLACK, WHITE):
        observed = [spec.observe(s, player, h) for s, h in zip(states, history, strict=True)]
        obs = np.stack([o["observation"] for o in observed])
        masks = np.stack([o["action_mask"] for o in observed])
        for k in range(8):
            moved_obs, moved_masks, _ = transform(k, obs, masks, spec=spec)
            assert moved_obs.dtype == obs.dtype and moved_obs.shape == obs.shape
            for i, (s, h) in enumerate(zip(states, history, strict=True)):
                want = spec.observe(transform_state(k, s), player, [transform_state(k, p) for p in h])
                np.testing.assert_array_equal(moved_obs[i], want["observation"])
                np.testing.assert_array_equal(moved_masks[i], want["action_mask"])


def test_a_policy_moves_with_its_actions_and_keeps_pass() -> None:
    rng = np.random.default_rng(0)
    policies = rng.dirichlet(np.ones(65), size=5)
    for k in range(8):
        moved = transform_vectors(k, policies)
        for a in range(65):
            np.testing.assert_array_equal(moved[:, SYMMETRIES[k][a]], policies[:, a])
        np.testing.assert_array_equal(moved[:, PASS], policies[:, PASS])
        inverse = next(j for j in range(8) if (SYMMETRIES[j][SYMMETRIES[k]] == np.arange(65)).all())
        np.testing.assert_array_equal(INVERSES[k], SYMMETRIES[inverse])
        np.testing.assert_array_equal(transform_vectors(inverse, moved), policies)


def test_one_symmetry_per_sample_and_all_eight_at_once() -> None:
    spec = ObservationSpec(dtype="float32", layout="CHW", legal_moves=True)
    states = _positions(3)[:8]
    obs = np.stack([spec.observe(s, s.player)["observation"] for s in states])
    masks = np.stack([s.legal_mask() for s in states])
    policies = masks / masks.sum(axis=1, keepdims=True)
    ks = np.arange(8)
    per_sample = transform(ks, obs, masks, policies, spec=spec)
    all_eight = augment(obs, masks, policies, spec=spec)
    assert all_eight[0].shape == (8, *obs.shape) and all_eight[2] is not None and per_sample[2] is not None
    for i, k in enumerate(ks):
        one = transform(int(k), obs[i], masks[i], policies[i], spec=spec)
        np.testing.assert_array_equal(per_sample[0][i], one[0])
        np.testing.assert_array_equal(per_sample[1][i], one[1])
        np.testing.assert_array_equal(per_sample[2][i], one[2])
        np.testing.assert_array_equal(all_eight[0][k, i], one[0])
        np.testing.assert_array_equal(all_eight[2][k, i], one[2])
    np.testing.assert_array_equal(all_eight[1][0], masks)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: transform_vectors(8, np.zeros(65)), "a symmetry is an int 0-7"),
        (lambda: transform_vectors(np.array([0, 1]), np.zeros((3, 65))), "one symmetry per sample needs"),
        (lambda: transform_vectors(0, np.zeros(10)), "axis of 65 actions"),
        (lambda: transform_observations(0, np.zeros((4, 8, 8, 3))), r"shape \(8, 8, 2\)"),
    ],
)
def test_bad_input_is_named(call: Any, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        call()
