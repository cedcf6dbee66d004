"""``adapt(obj)``: make anything that can choose a move into an ``Agent``.

Duck-typed, so no RL library is imported here. Recognised, in this order:

1. an Agent (``act(observation)``), returned as is (given a ``name`` if it has none);
2. a classic course player (``get_move(board)`` returning "D3" or "Q"),
   which receives an ``agents.play.course.Board`` built from its own observation,
   loses (``TamperedBoard``) if it changes it, and has its answers judged as
   the course's ``Game`` judges them (``ClassicAgent``);
3. a trained model with ``predict`` (Stable-Baselines3 / sb3-contrib):
   ``predict(obs, action_masks=mask, deterministic=True)``, the mask left out
   when ``predict`` does not take one;
4. a callable ``policy(observation) -> action`` or ``policy(observation,
   action_mask) -> action`` (two required positional parameters).
"""

from __future__ import annotations

import copy
import inspect
from collections.abc import Callable
from typing import Any

import numpy as np

from agents.base import Agent, QuitGame, RejectedAnswer, TamperedBoard, stop_agent
from agents.play.course.board import Board
from agents.play.course.game import plain_answer, refusal, shown_answer
from reversi_env.notation import PASS, to_action
from reversi_env.observation import Observation, state_from_observation
from reversi_env.state import PLAYER_NAMES, PLAYER_SYMBOLS, Player, parse_player


class NamedAgent:
    """An object with ``act`` but no ``name``: the same player, named after its class."""

    def __init__(self, agent: Any, name: str) -> None:
        """Wrap ``agent``; ``reset`` and ``stop`` are passed through."""
        self.agent = agent
        self.name = name

    def act(self, observation: Observation) -> int:
        """The wrapped agent's move."""
        return self.agent.act(observation)

    def reset(self) -> None:
        """The wrapped agent's ``reset``, if it has one."""
        reset = getattr(self.agent, "reset", None)
        if callable(reset):
            reset()

    def stop(self) -> None:
        """The wrapped agent's ``stop``, if it has one (``agents.base.stop_agent``)."""
        stop_agent(self.agent)


class ClassicAgent:
    """A classic course player (``get_move(board)``) as an Agent, under the course's rules.

    Each move it gets a fresh course ``Board`` of its own observation, the
    board of the game as far as it can tell: changing it raises
    ``TamperedBoard`` (the course's rule: a player who changes the board
    loses). Its answer is judged as the course's ``Game`` judges it: one of
    the moves ``board.get_legal_actions`` lists ("D3") is played, "Q" quits
    (raised as ``QuitGame``), and anything else ("d3", (2, 3), 19, None,
    "Z9", an illegal square) is an illegal try, raised as ``RejectedAnswer``
    saying why, so a file that passes here passes on the course's platform.
    A side with no legal move passes without being asked, as in the course.
    """

    def __init__(self, player: Any, color: object) -> None:
        """``color`` is the player's colour: 0 / "X" black, 1 / "O" white."""
        self.player = player
        self.color: Player = parse_player(color)
        self.name = type(player).__name__

    def act(self, observation: Observation) -> int:
        """Ask ``get_move`` on a board built from ``observation``; the move, or
        QuitGame, TamperedBoard or RejectedAnswer (see the class docstring)."""
        board = Board.from_state(state_from_observation(observation, self.color))
        symbol = PLAYER_SYMBOLS[self.color]
        legal = list(board.get_legal_actions(symbol))
        if not legal:
            return PASS
        shown = copy.deepcopy(board._board)
        move = plain_answer(self.player.get_move(board))
        if board._board != shown:
            raise TamperedBoard(f"{self.name} changed the board during get_move")
        if type(move) is str and move == "Q":
            raise QuitGame(f"{self.name} returned 'Q'")
        why = refusal(board, move, legal)
        if why is not None:
            raise RejectedAnswer(shown_answer(move), why)
        return to_action(move)

    def reset(self) -> None:
        """The classic player's ``reset``, if it has one."""
        reset = getattr(self.player, "reset", None)
        if callable(reset):
            reset()


class ModelAgent:
    """A trained model with ``predict`` (Stable-Baselines3 style) as an Agent.

    A model trained on the Dict observation gets the observation's keys that
    its ``observation_space`` lists; one trained on the planes alone gets the
    planes (reshaped to its space's shape). The mask goes to
    ``action_masks`` when ``predict`` accepts it (sb3-contrib's MaskablePPO).
    """

    def __init__(self, model: Any, *, deterministic: bool = True) -> None:
        """Wrap ``model``; ``deterministic`` is passed to ``predict``."""
        self.model = model
        self.deterministic = deterministic
        self.name = type(model).__name__
        try:
            params = inspect.signature(model.predict).parameters
        except (TypeError, ValueError):
            params = {}  # type: ignore[assignment]
        self.masked = "action_masks" in params or any(p.kind is p.VAR_KEYWORD for p in params.values())
        space: Any = getattr(model, "observation_space", None)
        self._keys: list[str] | None = list(space.spaces) if hasattr(space, "spaces") else None
        self._shape: tuple[int, ...] | None = None
        if self._keys is None and getattr(space, "shape", None) is not None:
            self._shape = tuple(space.shape)
            if int(np.prod(self._shape)) != 128:
                raise ValueError(
                    f"{self.name}'s observation space has shape {self._shape}; Reversi planes hold 128 values "
                    "(8, 8, 2). Train on the env's observation or wrap the model in a callable."
                )

    def _input(self, observation: Observation) -> Any:
        if self._keys is not None:
            missing = [k for k in self._keys if k not in observation]
            if missing:
                raise ValueError(f"{self.name} expects observation keys {self._keys}, missing {missing}")
            return {k: observation[k] for k in self._keys}
        if self._shape is not None:
            return np.asarray(observation["observation"]).reshape(self._shape)
        return observation

    def act(self, observation: Observation) -> int:
        """The model's deterministic action for ``observation``."""
        obs = self._input(observation)
        if self.masked:
            mask = np.asarray(observation["action_mask"]).astype(bool)
            action, _ = self.model.predict(obs, action_masks=mask, deterministic=self.deterministic)
        else:
            action, _ = self.model.predict(obs, deterministic=self.deterministic)
        flat = np.asarray(action).reshape(-1)
        if flat.size != 1:
            raise ValueError(f"{self.name}.predict returned {flat.size} actions, expected one")
        return int(flat[0])


class FunctionAgent:
    """A policy function as an Agent: ``fn(observation)`` or ``fn(observation, action_mask)``."""

    def __init__(self, fn: Callable[..., Any], *, with_mask: bool | None = None) -> None:
        """``with_mask`` None: decided from the signature (two required
        positional parameters mean ``(observation, action_mask)``)."""
        self.fn = fn
        self.with_mask = required_positional_args(fn) >= 2 if with_mask is None else with_mask
        self.name = getattr(fn, "__name__", None) or type(fn).__name__

    def act(self, observation: Observation) -> int:
        """The function's action (an int, or a name like "D3")."""
        if self.with_mask:
            return to_action(self.fn(observation, observation["action_mask"]))
        return to_action(self.fn(observation))


def required_positional_args(fn: Callable[..., Any]) -> int:
    """How many positional arguments ``fn`` requires (1 if it cannot be inspected)."""
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return 1
    positional = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    return sum(1 for p in params if p.kind in positional and p.default is p.empty)


def adapt(obj: object, color: object = None) -> Agent:
    """``obj`` as an Agent (see the module docstring for what is recognised).

    ``color`` (0/1, "black"/"white", "X"/"O") is needed only by a classic
    player that has no ``color`` attribute; if both are given they must agree.
    Raises TypeError for an object that cannot play.
    """
    seat = None if color is None else parse_player(color)
    if inspect.isclass(obj):
        raise TypeError(f"cannot make a player of the class {obj.__name__}: pass an instance, e.g. {obj.__name__}(...)")
    if isinstance(obj, Agent):
        return obj
    if callable(getattr(obj, "act", None)):
        return NamedAgent(obj, type(obj).__name__)
    if callable(getattr(obj, "get_move", None)):
        own = getattr(obj, "color", None)
        if own is None and seat is None:
            raise ValueError(f"the classic player {obj!r} has no color attribute; pass color='X' or 'O'")
        own_player = None if own is None else parse_player(own)
        if own_player is not None and seat is not None and own_player != seat:
            raise ValueError(
                f"the classic player {type(obj).__name__} was built with color {own!r} "
                f"({PLAYER_NAMES[own_player]}) but is asked to play {PLAYER_NAMES[seat]} "
                f"({PLAYER_SYMBOLS[seat]})"
            )
        return ClassicAgent(obj, own if own is not None else seat)
    if callable(getattr(obj, "predict", None)):
        return ModelAgent(obj)
    if callable(obj):
        return FunctionAgent(obj)
    raise TypeError(
        f"cannot make a player of {obj!r}: expected an Agent (act(observation)), a classic player "
        "(get_move(board)), a model (predict(obs, action_masks=...)) or a callable policy"
    )
