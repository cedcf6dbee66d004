"""Everything that plays Reversi: agents, search, adapters, matches and tools."""

from __future__ import annotations

from agents.adapters import adapt
from agents.base import Agent, reset_agent, state_to_move
from agents.evaluator import Evaluator
from agents.ladder import AlphaBetaAgent, GreedyAgent, PositionalAgent, RandomAgent, ladder_agent
from agents.match import GameResult, MatchInterrupted, MoveRecord, QuitGame, play_game
from agents.mcts import MCTSAgent, SearchResult
from agents.specs import make_agent

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
