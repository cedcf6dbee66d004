"""The Agent protocol (anything with ``act(observation) -> action`` and a name)
and the signals every room shares.

Every agent, adapter and human player satisfies it, so anything that plays can
meet anything else in ``play_game``, the arena, the CLI and the GUI.
"""

from __future__ import annotations

import contextlib
from typing import Protocol, runtime_checkable

import numpy as np

from agents.clocks import TimeLeft
from reversi_env.errors import InvalidMoveError, InvalidPositionError
from reversi_env.observation import Observation, state_from_observation
from reversi_env.state import BLACK, GameState


@runtime_checkable
class Agent(Protocol):
    """A player. ``act`` is called only for the agent to move, with its own
    copy of the PettingZoo observation (own/opponent planes and the mask), and
    returns an action 0-64. An optional ``reset()`` is called at a new game, and
    an optional ``stop()`` (from another thread) ends the search under way as soon
    as possible: its ``act`` returns a legal move or raises, and the caller drops
    it (``stop_agent``)."""

    name: str

    def act(self, observation: Observation) -> int:
        """The action to play."""
        ...


class QuitGame(Exception):  # noqa: N818 - a signal, not an error: "raise QuitGame"
    """Raised by a player's ``act`` to stop the game now; it is scored by discs.

    The terminal human player raises it for "Q" and at end of input; a classic
    course player's "Q" is turned into it by the adapter.
    """


class TamperedBoard(Exception):  # noqa: N818 - a verdict raised by a player's adapter, like QuitGame
    """Raised from ``act`` when a player changed the real board it was given
    (the classic course rule): ``play_game`` records the game as lost by that
    player, reason "tamper". The message says what changed."""


class RejectedAnswer(InvalidMoveError):  # noqa: N818 - a verdict on an answer, like TamperedBoard
    """Raised from ``act`` by an adapter that read its player's answer and
    refused it (a course player's ``"d3"`` or ``(2, 3)``: the course takes
    ``"D3"`` alone): one illegal try. ``shown`` is the answer as the player
    gave it, ``why`` what is wrong with it; ``play_game`` reports
    "X tried SHOWN: WHY"."""

    def __init__(self, shown: str, why: str) -> None:
        """``shown``: the answer's text (a repr for what is not a string)."""
        super().__init__(f"{shown}: {why}")
        self.shown = shown
        self.why = why

    def __reduce__(self) -> tuple[type, tuple[str, str]]:
        return type(self), (self.shown, self.why)


class MoveTimeout(Exception):  # noqa: N818 - a verdict: the move came too late
    """Raised by ``act_timed`` when the move did not come within the time given;
    the player (its process) has been stopped by then. ``play_game`` records a
    loss on time ("timeout")."""


@runtime_checkable
class TimedAgent(Agent, Protocol):
    """An agent that keeps its own clock: ``act_timed(observation, limit)``
    returns within ``limit`` (a ``TimeLeft``: the rule, the seconds the move may
    take, its side's clock; a bare number of seconds or None, no limit, says the
    move's limit alone: ``TimeLeft.of``) or raises MoveTimeout.

    Out-of-process players (``agents.play.isolation``, GTP engines) and the
    terminal human are timed agents: ``play_game`` calls them in its own thread
    and relies on them to stop, instead of abandoning a thread."""

    def act_timed(self, observation: Observation, limit: TimeLeft | float | None) -> int:
        """The action to play, within ``limit``."""
        ...


@runtime_checkable
class ClockedAgent(Agent, Protocol):
    """An agent that shares out a game clock itself (a search on the game's clock):
    before each move it is asked for, the seat tells it its side's time
    (``see_time``), and its ``act`` budgets from that. Unlike a timed agent it is
    not relied on to stop in time: it runs where any agent runs, and is abandoned
    (and stopped) when late."""

    def see_time(self, left: TimeLeft) -> None:
        """The side's time at the start of the move about to be asked for."""
        ...


def tell_time(agent: object, left: TimeLeft) -> None:
    """``agent.see_time(left)`` if it reads the clock (``ClockedAgent``)."""
    if isinstance(agent, ClockedAgent):
        agent.see_time(left)


def reset_agent(agent: object) -> None:
    """Call ``agent.reset()`` if it has one: agents may keep per-game state."""
    reset = getattr(agent, "reset", None)
    if callable(reset):
        reset()


def state_to_move(observation: Observation, player: object = BLACK) -> GameState:
    """The position an agent to move sees, rebuilt from its observation.

    Raises InvalidPositionError if the observation is malformed, if its mask
    allows nothing (the game is over or it is not this agent's turn), or if the
    mask disagrees with the discs on the planes.
    """
    state = state_from_observation(observation, player)
    try:
        mask = np.asarray(observation["action_mask"])
    except (KeyError, TypeError, IndexError) as e:
        raise InvalidPositionError(f"an observation needs an 'action_mask', got {observation!r}") from e
    if mask.shape != (GameState.NUM_ACTIONS,):
        raise InvalidPositionError(f"action_mask must have shape ({GameState.NUM_ACTIONS},), got {mask.shape}")
    if not mask.any():
        raise InvalidPositionError(f"the action_mask allows no action: the game is over or it is not my turn\n{state}")
    if not np.array_equal(mask != 0, state.legal_mask() != 0):
        raise InvalidPositionError(f"the action_mask disagrees with the discs on the planes\n{state}")
    return state


def close_agent(agent: object) -> None:
    """Call ``agent.close()`` if it has one (external engines end their process);
    a close that fails is ignored, as there is nothing left to save."""
    close = getattr(agent, "close", None)
    if callable(close):
        with contextlib.suppress(Exception):
            close()


def stop_agent(agent: object) -> None:
    """Call ``agent.stop()`` if it has one: the search ``act`` runs on another
    thread ends soon, its answer to be ignored (a stop when none runs does
    nothing). A stop that fails is ignored, as the answer is dropped anyway."""
    stop = getattr(agent, "stop", None)
    if callable(stop):
        with contextlib.suppress(Exception):
            stop()
