"""reversi-env: Reversi (Othello) for reinforcement learning and for people.

The rules core (``GameState``, ``perft``, notation, the error family) lives
here; the environments are added by ``reversi_env.aec`` and ``reversi_env.gym``.
"""

from __future__ import annotations

from reversi_env.errors import IllegalMoveError, InvalidMoveError, InvalidPositionError
from reversi_env.notation import PASS, Action, Square, action_name, parse_action, parse_square, square_name
from reversi_env.state import BLACK, WHITE, GameState, Player, divide, perft

__all__ = [
    "BLACK",
    "PASS",
    "WHITE",
    "Action",
    "GameState",
    "IllegalMoveError",
    "InvalidMoveError",
    "InvalidPositionError",
    "Player",
    "Square",
    "action_name",
    "divide",
    "parse_action",
    "parse_square",
    "perft",
    "square_name",
]

__version__ = "0.1.0"
