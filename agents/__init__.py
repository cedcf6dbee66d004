"""Everything that plays Reversi: agents, search, adapters, matches and tools."""

from __future__ import annotations

from agents.base import Agent, reset_agent

__all__ = ["Agent", "reset_agent"]
