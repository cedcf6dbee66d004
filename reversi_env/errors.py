"""The error family for moves sent by a person or a policy (both ValueErrors)."""

from __future__ import annotations


class InvalidMoveError(ValueError):
    """A move that is not a move at all: malformed text, an index out of range
    or a value of the wrong type."""


class IllegalMoveError(ValueError):
    """A well-formed move that the rules forbid in this position."""


class InvalidPositionError(ValueError):
    """A position that cannot exist: overlapping discs, a bad player, or board
    text that does not parse."""
