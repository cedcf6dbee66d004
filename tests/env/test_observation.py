"""The observation helpers: observe, back to a state, the legal actions, and malformed observations."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from reversi_env import BLACK, WHITE, GameState, InvalidPositionError
from reversi_env.observation import legal_actions_from_observation, observe, state_from_observation


def test_round_trip_from_both_sides() -> None:
    s = GameState.initial().apply("D3")
    for player in (BLACK, WHITE):
        obs = observe(s, player)
        assert obs["observation"].dtype == np.int8 and obs["observation"].shape == (8, 8, 2)
        assert obs["action_mask"].dtype == np.int8 and obs["action_mask"].shape == (65,)
        back = state_from_observation(obs, player)
        assert (back.black, back.white) == (s.black, s.white)
    assert legal_actions_from_observation(observe(s, WHITE)) == s.legal_actions()
    assert legal_actions_from_observation(observe(s, BLACK)) == []  # not black's turn
    as_float = {"observation": observe(s, WHITE)["observation"].astype(np.float32)}
    assert state_from_observation(as_float, WHITE) == s  # RLlib-style float planes read the same


@pytest.mark.parametrize(
    ("observation", "message"),
    [
        (None, "got a NoneType"),
        ([1, 2], "got a list"),
        ({"observations": np.zeros((8, 8, 2))}, r"keys \['observations'\]"),
        ({"observation": np.zeros((8, 8))}, r"shape \(8, 8, 2\)"),
        ({"observation": np.zeros(128)}, r"shape \(8, 8, 2\)"),
        ({"observation": np.full((8, 8, 2), np.nan)}, "only 0 and 1"),
        ({"observation": np.full((8, 8, 2), 2)}, "only 0 and 1"),
        ({"observation": np.ones((8, 8, 2))}, "overlap"),
    ],
)
def test_a_malformed_observation_is_one_clear_error(observation: Any, message: str) -> None:
    with pytest.raises(InvalidPositionError, match=message) as err:
        state_from_observation(observation)
    assert len(str(err.value)) < 400  # names what it got; never a page of array repr


@pytest.mark.parametrize(
    ("observation", "message"),
    [
        (None, "got a NoneType"),
        ({"observation": np.zeros((8, 8, 2))}, r"keys \['observation'\]"),
        ({"action_mask": np.ones(64)}, r"shape \(65,\)"),
        ({"action_mask": np.ones((1, 65))}, r"shape \(65,\)"),
    ],
)
def test_legal_actions_need_a_mask_of_65(observation: Any, message: str) -> None:
    with pytest.raises(InvalidPositionError, match=message):
        legal_actions_from_observation(observation)
