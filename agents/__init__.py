"""Everything that plays Reversi: agents, search, adapters, matches and tools."""

from __future__ import annotations

from agents.compiling import compile_notice

with compile_notice("the engine"):
    from agents.base import Agent, QuitGame, reset_agent, state_to_move
    from agents.play.adapters import adapt
    from agents.play.match import GameResult, MatchInterrupted, MoveRecord, play_game
    from agents.play.specs import make_agent
    from agents.search.evaluator import Evaluator
    from agents.search.ladder import AlphaBetaAgent, GreedyAgent, PositionalAgent, RandomAgent, ladder_agent
    from agents.search.mcts import MCTSAgent, SearchResult

__all__ = [
    "Agent",
    "AlphaBetaAgent",
    "Evaluator",
    "GameResult",
    "GreedyAgent",
    "MCTSAgent",
    "MatchInterrupted",
    "MoveRecord",
    "PositionalAgent",
    "QuitGame",
    "RandomAgent",
    "SearchResult",
    "adapt",
    "ladder_agent",
    "make_agent",
    "play_game",
    "reset_agent",
    "state_to_move",
]
