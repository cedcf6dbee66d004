"""Everything that plays Reversi: agents, search, adapters, matches and tools."""

from __future__ import annotations

from agents.adapters import adapt
from agents.base import Agent, reset_agent
from agents.match import GameResult, MatchInterrupted, MoveRecord, QuitGame, play_game

__all__ = [
    "Agent",
    "GameResult",
    "MatchInterrupted",
    "MoveRecord",
    "QuitGame",
    "adapt",
    "play_game",
    "reset_agent",
]
