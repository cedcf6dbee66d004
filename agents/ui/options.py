"""Argument types every subcommand shares: each turns bad text into one clear
argparse error line, never a traceback."""

from __future__ import annotations

import argparse

from agents.play.specs import SpecError, parse_spec


def positive_float(text: str) -> float:
    """A finite number > 0 (seconds, for instance)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number, got {text!r}") from None
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"must be a positive finite number, got {text!r}")
    return value


def seconds_or_off(text: str) -> float | None:
    """A time limit: a positive number of seconds, or "off" (None: no limit)."""
    if text.strip().lower() in ("off", "none", "no"):
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


def player_spec(text: str) -> str:
    """A player spec that parses (``agents.play.specs``); it is built later."""
    try:
        parse_spec(text)
    except SpecError as e:
        raise argparse.ArgumentTypeError(str(e)) from None
    return text
