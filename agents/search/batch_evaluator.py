"""``BatchEvaluator`` and ``UniformEvaluator``, the PUCT search's evaluators, at the
path ``agents.search.puct`` imports them from. The value seam, with its compiled
and one-position forms, is ``agents.search.evaluation``."""

from agents.search.evaluation import BatchEvaluator, UniformEvaluator

__all__ = ["BatchEvaluator", "UniformEvaluator"]
