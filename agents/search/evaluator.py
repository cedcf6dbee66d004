"""The evaluator seam of ``MCTSAgent``: where a trained network plugs in.

An evaluator replaces the random playout at a new leaf of the search tree with
a value, and may add a prior policy over the moves; with priors the tree
selects by PUCT (AlphaZero's rule) instead of UCT. Anything with an
``evaluate`` method of this shape is an Evaluator (a structural Protocol).
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np

from reversi_env.state import GameState


@runtime_checkable
class Evaluator(Protocol):
    """A leaf evaluator for MCTS.

    ``evaluate(state)`` returns ``(value, prior)``: ``value`` in [-1, 1] is the
    expected outcome for the player to move in ``state`` (+1 a win); ``prior``
    is None (plain UCT) or an array of 65 non-negative weights over the actions
    (0-63 squares, 64 PASS), renormalised over the legal ones by the search.
    It is called only for positions that are not over.
    """

    def evaluate(self, state: GameState) -> tuple[float, np.ndarray | None]:
        """The value for the mover of ``state`` and an optional prior policy."""
        ...
