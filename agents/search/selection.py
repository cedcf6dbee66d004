"""The exploration formulas the tree searches choose a child by, each written once.

``puct_score`` is AlphaZero's PUCT, ``Q + c * P * sqrt(N_parent) / (1 + N)``: the
MCTS agent's evaluator path (``agents.search.mcts_tree.select``) and the batched
AlphaZero search (``agents.search.puct``) both call it, each over its own node type.
"""

from __future__ import annotations

from numba import njit

__all__ = ["puct_score"]


@njit(cache=True)
def puct_score(value: float, visits: float, prior: float, c: float, sqrt_parent: float) -> float:
    """A child's PUCT score.

    Args:
        value: the sum of the child's results, for the player who moves into it.
        visits: the child's visits (the mean is ``value / visits``, 0 before the first).
        prior: the child's prior probability.
        c: the exploration constant.
        sqrt_parent: the square root of the parent's visits.

    Returns:
        ``Q + c * P * sqrt(N_parent) / (1 + N)``.
    """
    q = value / visits if visits > 0 else 0.0
    return q + c * prior * sqrt_parent / (1.0 + visits)
