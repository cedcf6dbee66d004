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


QUOTE_LIMIT = 80
"""The most characters of someone's input an error message quotes: enough to recognise it (a
whole compact position is 65),
never a whole megabyte line echoed back."""


def quoted(value: object, limit: int = QUOTE_LIMIT) -> str:
    """``repr(value)`` for an error message, at most ``limit`` characters of the input.

    Args:
        value: what a person, a file or a program sent (a string, usually).
        limit: the most characters of it quoted.

    Returns:
        The repr of a string of at most ``limit`` characters; of a longer one, the repr of
        its first ``limit`` characters, then ``...`` and its length. Anything else: its repr,
        cut the same way (a repr that raises is named instead).
    """
    if isinstance(value, str):
        if len(value) <= limit:
            return repr(value)
        return f"{value[:limit]!r}... ({len(value)} characters)"
    try:
        text = repr(value)
    except BaseException as e:  # a program's object may raise anything from __repr__
        return f"<{type(value).__name__} whose repr raised {type(e).__name__}>"
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text)} characters)"
