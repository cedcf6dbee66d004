"""The baseline ladder: random, greedy and positional players, and the graded levels of alpha-beta.

Every agent takes the PettingZoo observation, rebuilds the position with
``agents.base.state_to_move`` and breaks ties between equally good moves with
its own seeded RNG, so a seed fixes its games.

The graded "system AI" ladder is ``ladder_agent(level)`` for level 1 to
``MAX_LEVEL``: ``AlphaBetaAgent(depth=level)``, each level searching one ply
deeper (and solving the endgame exactly from a few more empty squares) than the
one below. ``RandomAgent``, ``GreedyAgent`` and ``PositionalAgent`` sit below
level 1.
"""

from __future__ import annotations

import numpy as np

from agents.search.alphabeta_agent import AlphaBetaAgent as AlphaBetaAgent  # re-exported: the levels are alpha-beta
from agents.search.evaluation import evaluate as evaluate  # re-exported: MCTS reads it from here
from agents.search.evaluation import weight_sum
from agents.search.scored import TieBreakingAgent
from reversi_env.bitboard import U1, flips
from reversi_env.state import GameState

MAX_LEVEL = 8
"""The deepest ladder level (``AlphaBetaAgent(depth=8)``)."""


class RandomAgent(TieBreakingAgent):
    """Uniformly random legal moves: the floor of the ladder."""

    def __init__(self, seed: int | None = None) -> None:
        """``seed`` fixes the moves (None: fresh entropy)."""
        super().__init__(seed)
        self.name = "random"


class GreedyAgent(TieBreakingAgent):
    """The move that flips the most discs right now."""

    def __init__(self, seed: int | None = None) -> None:
        """``seed`` fixes how ties are broken."""
        super().__init__(seed)
        self.name = "greedy"

    def _scores(self, state: GameState, actions: list[int]) -> list[int]:
        p, o = state.kernel_boards()
        return [int(flips(p, o, np.uint64(a))).bit_count() for a in actions]


class PositionalAgent(TieBreakingAgent):
    """The move that leaves the best square-weight balance (the classic table)."""

    def __init__(self, seed: int | None = None) -> None:
        """``seed`` fixes how ties are broken."""
        super().__init__(seed)
        self.name = "positional"

    def _scores(self, state: GameState, actions: list[int]) -> list[int]:
        p, o = state.kernel_boards()
        out = []
        for a in actions:
            f = flips(p, o, np.uint64(a))
            mine, theirs = p | f | (U1 << np.uint64(a)), o ^ f
            out.append(int(weight_sum(mine)) - int(weight_sum(theirs)))
        return out


def ladder_agent(level: int, seed: int | None = None) -> AlphaBetaAgent:
    """Level ``level`` (1 to MAX_LEVEL) of the graded system-AI ladder:
    ``AlphaBetaAgent(depth=level)``, named ``level-<n>``."""
    if isinstance(level, bool) or not isinstance(level, (int, np.integer)) or not 1 <= level <= MAX_LEVEL:
        raise ValueError(f"ladder level must be an int from 1 to {MAX_LEVEL}, got {level!r}")
    agent = AlphaBetaAgent(int(level), seed=seed)
    agent.name = f"level-{int(level)}"
    return agent
