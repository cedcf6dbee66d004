"""An agent that scores the legal moves and plays the best one, ties broken by its own seeded
RNG (the ladder's baselines, the pattern player and alpha-beta have this shape), and the
checks of the settings such agents take (a seed, a number of seconds).
"""

from __future__ import annotations

import math

import numpy as np

from agents.base import state_to_move
from reversi_env.notation import PASS
from reversi_env.observation import Observation
from reversi_env.state import GameState


def check_seed(seed: object) -> int | None:
    """``seed`` as an int (None stays None), or ValueError unless it is a non-negative int."""
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0):
        raise ValueError(f"seed must be a non-negative int or None, got {seed!r}")
    return None if seed is None else int(seed)


def check_seconds(name: str, seconds: object) -> None:
    """ValueError unless ``seconds`` (the setting ``name``) is None or a finite number > 0."""
    if seconds is not None and (
        isinstance(seconds, bool)
        or not isinstance(seconds, (int, float, np.integer, np.floating))
        or not 0 < seconds < math.inf
    ):
        raise ValueError(f"{name} must be a positive number of seconds or None, got {seconds!r}")


class TieBreakingAgent:
    """Shared shape of the ladder agents: a name, a seeded RNG for ties, and
    ``act`` = the best-scored legal move (a forced pass is played at once)."""

    name: str

    def __init__(self, seed: int | None = None) -> None:
        self.seed = check_seed(seed)
        self._rng = np.random.default_rng(self.seed)

    def act(self, observation: Observation) -> int:
        """The best move for the position the observation shows (ties at random)."""
        state = state_to_move(observation)
        if not state.moves_bitboard:
            return PASS
        best = self.best_actions(state)
        return int(best[0]) if len(best) == 1 else int(self._rng.choice(best))

    def best_actions(self, state: GameState) -> list[int]:
        """Every legal placement this agent scores best in ``state`` (sorted)."""
        if not isinstance(state, GameState):
            raise TypeError(f"best_actions needs a GameState, got {type(state).__name__}")
        if not state.moves_bitboard:
            return [PASS] if not state.is_terminal() else []
        actions = state.legal_actions()
        scores = self._scores(state, actions)
        top = max(scores)
        return [a for a, s in zip(actions, scores, strict=True) if s == top]

    def _scores(self, state: GameState, actions: list[int]) -> list[int]:
        return [0] * len(actions)
