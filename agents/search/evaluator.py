"""``Evaluator``, MCTS's one-position evaluator, at the path ``agents.search.mcts``
imports it from. The value seam, with its compiled and batched forms, is
``agents.search.evaluation``."""

from agents.search.evaluation import Evaluator

__all__ = ["Evaluator"]
