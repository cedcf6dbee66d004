"""Everything that plays Reversi: agents, search, adapters, matches and tools.

The public names are imported at their first use (``from agents import MCTSAgent``),
under the first run's compile notice, so that ``import agents`` alone, and the
``reversi`` command's ``--help``, compile nothing.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from agents.compiling import compile_notice

if TYPE_CHECKING:
    from agents.arena.evaluate import EvaluationReport, OpponentResult, evaluate
    from agents.base import Agent, QuitGame, reset_agent, state_to_move
    from agents.play.adapters import adapt
    from agents.play.match import GameResult, MatchInterrupted, MoveRecord, play_game
    from agents.play.specs import make_agent
    from agents.search.alphabeta_agent import AlphaBetaAgent
    from agents.search.evaluation import Evaluator
    from agents.search.ladder import GreedyAgent, PositionalAgent, RandomAgent, ladder_agent
    from agents.search.mcts import MCTSAgent, SearchResult
    from agents.search.mcts_config import MCTSConfig

_HOMES = {
    "EvaluationReport": "agents.arena.evaluate",
    "OpponentResult": "agents.arena.evaluate",
    "evaluate": "agents.arena.evaluate",
    "Agent": "agents.base",
    "QuitGame": "agents.base",
    "reset_agent": "agents.base",
    "state_to_move": "agents.base",
    "adapt": "agents.play.adapters",
    "GameResult": "agents.play.match",
    "MatchInterrupted": "agents.play.match",
    "MoveRecord": "agents.play.match",
    "play_game": "agents.play.match",
    "make_agent": "agents.play.specs",
    "Evaluator": "agents.search.evaluation",
    "AlphaBetaAgent": "agents.search.alphabeta_agent",
    "GreedyAgent": "agents.search.ladder",
    "PositionalAgent": "agents.search.ladder",
    "RandomAgent": "agents.search.ladder",
    "ladder_agent": "agents.search.ladder",
    "MCTSAgent": "agents.search.mcts",
    "SearchResult": "agents.search.mcts",
    "MCTSConfig": "agents.search.mcts_config",
}
"""The module each public name comes from."""

__all__ = [
    "Agent",
    "AlphaBetaAgent",
    "EvaluationReport",
    "Evaluator",
    "GameResult",
    "GreedyAgent",
    "MCTSAgent",
    "MCTSConfig",
    "MatchInterrupted",
    "MoveRecord",
    "OpponentResult",
    "PositionalAgent",
    "QuitGame",
    "RandomAgent",
    "SearchResult",
    "adapt",
    "evaluate",
    "ladder_agent",
    "make_agent",
    "play_game",
    "reset_agent",
    "state_to_move",
]


def __getattr__(name: str) -> Any:
    """A public name, imported (and on a first run compiled) at its first use (PEP 562)."""
    if name not in _HOMES:
        raise AttributeError(f"module 'agents' has no attribute {name!r}")
    with compile_notice("the engine"):
        value = getattr(importlib.import_module(_HOMES[name]), name)
    globals()[name] = value  # later uses read it directly
    return value


def __dir__() -> list[str]:
    """The module's names, the public ones not yet imported included."""
    return sorted({*globals(), *__all__})
