"""Argument types every subcommand shares: each turns bad text into one clear
argparse error line, never a traceback."""

from __future__ import annotations

import argparse
from collections.abc import Callable

from agents.play.match import MAX_SECONDS
from agents.play.specs import SpecError, parse_spec


def positive_float(text: str) -> float:
    """A number > 0 and at most ``MAX_SECONDS`` (seconds, for instance)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number, got {text!r}") from None
    if not 0 < value <= MAX_SECONDS:
        raise argparse.ArgumentTypeError(f"must be a positive number, at most {MAX_SECONDS:g}, got {text!r}")
    return value


def time_limit(text: str) -> float | None:
    """Seconds per move (a finite number > 0), or "off" / "none" for no limit."""
    if text.strip().lower() in ("off", "none"):
        return None
    return positive_float(text)


def positive_int(text: str) -> int:
    """A whole number >= 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be >= 1, got {text!r}")
    return value


def bounded_int(low: int, high: int) -> Callable[[str], int]:
    """An argument type: a whole number from ``low`` to ``high``."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be a whole number, got {text!r}") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"must be from {low} to {high}, got {text!r}")
        return value

    return parse


def player_spec(text: str) -> str:
    """A player spec that parses (``agents.play.specs``); it is built later."""
    try:
        parse_spec(text)
    except SpecError as e:
        raise argparse.ArgumentTypeError(str(e)) from None
    return text


seed_int = bounded_int(0, 2**63 - 1)
"""An argument type: a seed, 0 to 2**63 - 1 (what numpy and the arena's derived seeds hold)."""
