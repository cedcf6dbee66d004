"""The batched evaluator seam of the PUCT search (``agents.search.puct``).

A search collects a batch of leaf positions and asks an evaluator for all of
them at once: a policy-value network does one forward pass
(``agents.learn.network.NetworkEvaluator``), a pattern evaluation may score each
position and return a flat or move-ordered prior. Anything with an ``evaluate``
method of this shape is a BatchEvaluator (a structural Protocol).

Positions come from the mover's side, as the kernels of ``reversi_env.bitboard``
take them: ``mover`` and ``opponent`` are uint64 arrays of the same length ``n``.
The answer is ``(priors, values)``: priors float32 ``(n, 65)`` (0-63 squares,
64 PASS; any non-negative weights, renormalised by the search over the legal
moves) and values float32 ``(n,)`` in [-1, 1], the expected result for the
mover (+1 a win). Finished games are never sent (the search scores them itself).
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np


@runtime_checkable
class BatchEvaluator(Protocol):
    """Priors and values for a batch of positions (see the module docstring)."""

    def evaluate(self, mover: np.ndarray, opponent: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(priors (n, 65) float32, values (n,) float32)`` for ``n`` positions."""
        ...


class UniformEvaluator:
    """No knowledge: a flat prior and a value of 0 everywhere. PUCT with it is
    a plain visit-count search whose only information is the game's results."""

    def evaluate(self, mover: np.ndarray, opponent: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Equal priors on all 65 actions and zero values."""
        n = len(mover)
        return np.full((n, 65), 1.0 / 65, dtype=np.float32), np.zeros(n, dtype=np.float32)
