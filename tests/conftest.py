"""Shared test fixtures: paths, and helpers to reach positions by seeded play."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from reversi_env import GameState

# pygame (render and GUI tests) must never try to open a real display or audio device.
os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

REPO_ROOT = Path(__file__).resolve().parents[1]
SHARED = REPO_ROOT.parent / "shared"


def random_game(seed: int, plies: int | None = None) -> list[GameState]:
    """The states of a uniformly random game (seeded), start included."""
    rng = np.random.default_rng(seed)
    states = [GameState.initial()]
    while not states[-1].is_terminal() and (plies is None or len(states) <= plies):
        legal = states[-1].legal_actions()
        states.append(states[-1].apply(int(rng.choice(legal))))
    return states


@pytest.fixture
def start() -> GameState:
    """The start position."""
    return GameState.initial()
