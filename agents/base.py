"""The Agent protocol: anything with ``act(observation) -> action`` and a name.

Every agent, adapter and human player satisfies it, so anything that plays can
meet anything else in ``play_game``, the arena, the CLI and the GUI.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from reversi_env.observation import Observation


@runtime_checkable
class Agent(Protocol):
    """A player. ``act`` is called only for the agent to move, with its own
    copy of the PettingZoo observation (own/opponent planes and the mask), and
    returns an action 0-64. An optional ``reset()`` is called at a new game."""

    name: str

    def act(self, observation: Observation) -> int:
        """The action to play."""
        ...


def reset_agent(agent: object) -> None:
    """Call ``agent.reset()`` if it has one: agents may keep per-game state."""
    reset = getattr(agent, "reset", None)
    if callable(reset):
        reset()
