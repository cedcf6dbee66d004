"""The value seam's forms agree: a batched evaluator asked one position at a time
(``OnePosition``) is a one-position ``Evaluator`` that MCTS takes."""

from __future__ import annotations

import numpy as np
from test_puct import HashEvaluator

from agents.search.evaluation import BatchEvaluator, Evaluator, OnePosition, UniformEvaluator
from agents.search.mcts import MCTSAgent
from reversi_env import GameState


class Favourite:
    """A batched evaluator that likes one square far above the others, and values every position at 0."""

    def __init__(self, square: int) -> None:
        self.square = square

    def evaluate(self, mover: np.ndarray, opponent: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        priors = np.full((len(mover), 65), 0.01, dtype=np.float32)
        priors[:, self.square] = 1.0
        return priors, np.zeros(len(mover), dtype=np.float32)


def test_one_position_answers_what_the_batch_answers_from_the_movers_side() -> None:
    state = GameState.initial().apply(19)  # white to move: the mover's discs are white's
    single = OnePosition(HashEvaluator())
    value, prior = single.evaluate(state)
    mover, opponent = state.kernel_boards()
    priors, values = HashEvaluator().evaluate(np.array([mover]), np.array([opponent]))
    assert value == float(values[0]) and isinstance(value, float)
    assert prior is not None and np.array_equal(prior, priors[0])
    swapped, _ = HashEvaluator().evaluate(np.array([opponent]), np.array([mover]))
    assert not np.array_equal(prior, swapped[0])  # the sides are told apart


def test_the_forms_are_their_protocols() -> None:
    assert isinstance(OnePosition(UniformEvaluator()), Evaluator)
    assert isinstance(UniformEvaluator(), BatchEvaluator)


def test_a_batched_evaluator_guides_mcts_one_position_at_a_time() -> None:
    favourite = 26  # C4
    result = MCTSAgent(simulations=200, seed=0, evaluator=OnePosition(Favourite(favourite))).search(GameState.initial())
    # Its prior switches the tree to PUCT, which follows it: the favourite gets most of the visits.
    assert result.action == favourite
    assert result.visits[result.actions.index(favourite)] > 0.8 * result.visits.sum()
