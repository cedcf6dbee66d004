"""Square names ("D3") and actions (0-63, 64 = PASS) in both directions.

Columns are the letters A-H, rows the digits 1-8, A1 = 0 is the top-left
corner and ``index = row * 8 + col``, as in the classic course framework.
"""

from __future__ import annotations

from typing import TypeAlias

import numpy as np

from reversi_env.errors import InvalidMoveError, quoted

Square: TypeAlias = int
"""A board square, 0 (A1) to 63 (H8)."""
Action: TypeAlias = int
"""A square 0-63, or PASS (64)."""

PASS: Action = 64
"""The pass action, legal only when the player to move has no placement."""
NUM_ACTIONS = 65
"""The size of the action space, ``Discrete(65)``."""
FILES = "ABCDEFGH"
PASS_NAME = "PASS"


def square_name(square: Square) -> str:
    """``19 -> "D3"``."""
    square = as_action(square)
    if square == PASS:
        raise InvalidMoveError(f"square index must be 0-63, got {square!r} (PASS)")
    return f"{FILES[square % 8]}{square // 8 + 1}"


def action_name(action: Action) -> str:
    """``19 -> "D3"``, ``64 -> "PASS"``."""
    action = as_action(action)
    return PASS_NAME if action == PASS else square_name(action)


def parse_square(text: str) -> Square:
    """``" d3 " -> 19``: a column letter and a row digit, any case, trimmed."""
    if not isinstance(text, str):
        raise InvalidMoveError(f"a square must be a string like 'D3', got {quoted(text)}")
    t = text.strip().upper()
    if len(t) != 2 or t[0] not in FILES or t[1] not in "12345678":
        raise InvalidMoveError(f"not a square: {quoted(text)} (expected a letter A-H and a digit 1-8, e.g. 'D3')")
    return (int(t[1]) - 1) * 8 + FILES.index(t[0])


def parse_action(text: str) -> Action:
    """A square name or "pass" (any case) as an action index."""
    if isinstance(text, str) and text.strip().upper() == PASS_NAME:
        return PASS
    return parse_square(text)


def as_action(value: object) -> Action:
    """Check that ``value`` is an integer action 0-64 (Python or numpy integer,
    or a 0-d integer array such as ``np.array(19)``, which Gymnasium's
    ``Discrete`` counts as one of its elements; not a bool) and return it as an int."""
    if type(value) is int and 0 <= value <= PASS:  # the common case, checked fast
        return value
    if isinstance(value, np.ndarray) and value.shape == () and np.issubdtype(value.dtype, np.integer):
        value = value.item()
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise InvalidMoveError(f"an action must be an integer 0-64, got {quoted(value)} ({type(value).__name__})")
    if not 0 <= int(value) <= PASS:
        raise InvalidMoveError(f"an action must be an integer 0-64, got {int(value)}")
    return int(value)


def to_action(move: object) -> Action:
    """An action from either form a caller may send: an integer or a name."""
    if isinstance(move, str):
        return parse_action(move)
    return as_action(move)
