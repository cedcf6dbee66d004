"""Argument types and options every subcommand shares: each type turns bad text
into one clear argparse error line, never a traceback; each option reads the
same in every subcommand that takes it."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from agents.clocks import TimeControl
from agents.compiling import compile_notice
from agents.datafiles import check_writable
from agents.limits import MAX_SECONDS
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


def unit_float(text: str) -> float:
    """A number from 0 to 1 (a share, a probability)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number, got {text!r}") from None
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"must be between 0 and 1, got {text!r}")
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


def positive_int_at_most(high: int) -> Callable[[str], int]:
    """An argument type: a whole number from 1 to ``high`` (a size: workers, games, channels),
    refused below 1 as ``positive_int`` refuses it."""

    def parse(text: str) -> int:
        value = positive_int(text)
        if value > high:
            raise argparse.ArgumentTypeError(f"must be at most {high}, got {text!r}")
        return value

    return parse


_Number = TypeVar("_Number", int, float)


def _bounded(kind: Callable[[str], _Number], noun: str, low: _Number, high: _Number) -> Callable[[str], _Number]:
    """An argument type: ``noun`` read by ``kind`` (``int``, ``float``), from ``low`` to ``high``."""

    def parse(text: str) -> _Number:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be {noun}, got {text!r}") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"must be from {_bound(low)} to {_bound(high)}, got {text!r}")
        return value

    return parse


def _bound(number: float) -> str:
    """A bound as it may be typed, every digit kept: "64" (64.0 too), "0.5", "1234567.5", "9223372036854775807"."""
    return str(number) if isinstance(number, int) else repr(number).removesuffix(".0")


def bounded_int(low: int, high: int) -> Callable[[str], int]:
    """An argument type: a whole number from ``low`` to ``high``."""
    return _bounded(int, "a whole number", low, high)


def bounded_float(low: float, high: float) -> Callable[[str], float]:
    """An argument type: a number from ``low`` to ``high`` (NaN is none)."""
    return _bounded(float, "a number", float(low), float(high))


def even_int(low: int) -> Callable[[str], int]:
    """An argument type: an even whole number >= ``low`` (games: each opening played twice, colours swapped)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be a whole number, got {text!r}") from None
        if value < low or value % 2:
            raise argparse.ArgumentTypeError(f"must be an even number >= {low}, got {text!r}")
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


def add_rule_options(parser: argparse.ArgumentParser) -> None:
    """``--time-limit`` and ``--max-illegal``: the course's rules (60 s a move,
    three illegal tries), the same wherever games are played."""
    parser.add_argument(
        "--time-limit",
        type=time_limit,
        default=60.0,
        metavar="SECONDS",
        help="a move slower than this loses, people's too (default 60, the course's rule; 'off' for none)",
    )
    parser.add_argument(
        "--max-illegal",
        type=positive_int,
        default=3,
        metavar="N",
        help="illegal moves at one turn that lose (default 3, the course's rule)",
    )


def game_clock(text: str) -> TimeControl:
    """A game clock, ``[MOVES/]SECONDS[+INCREMENT][,[MOVES/]OVERTIME]`` ("300+2", "300,5/30"),
    as ``TimeControl.parse_clock`` reads it."""
    try:
        return TimeControl.parse_clock(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def add_clock_option(parser: argparse.ArgumentParser) -> None:
    """``--clock``: a game clock for each side, on top of ``--time-limit``'s seconds a move."""
    parser.add_argument(
        "--clock",
        type=game_clock,
        default=None,
        metavar="[MOVES/]SECONDS[+INC][,[MOVES/]OVERTIME]",
        help="each side's game clock: 300 (5 minutes), 300+2 (2 s more after each move), 40/5400 "
        "(40 moves in 90 minutes, then again), 300,5/30 (then 30 s for every 5 moves), 300,120 (then 120 s "
        "for the rest); running out loses (default none; --time-limit still limits each move unless off)",
    )


def time_control(args: argparse.Namespace) -> TimeControl:
    """The game's time control from ``--time-limit`` and ``--clock``."""
    return TimeControl.per_move(args.time_limit, getattr(args, "clock", None))


def add_think_time_option(parser: argparse.ArgumentParser) -> None:
    """``--time``: the thinking time of an MCTS spec that sets no budget of its own."""
    parser.add_argument(
        "--time",
        type=positive_float,
        default=2.0,
        metavar="SECONDS",
        help="MCTS thinking time per move when its spec sets neither time nor sims (default 2)",
    )


def unwritable_output(command: str, flag: str, path: str | Path) -> bool:
    """Whether ``flag``'s file ``path`` cannot be written, said in one line on
    stderr: checked before the work, so a game or a run is not lost at its end."""
    try:
        check_writable(path)
    except OSError as e:
        print(f"reversi {command}: error: {flag} {str(path)!r}: {e.strerror}", file=sys.stderr)
        return True
    return False


def deferred(module: str, name: str) -> Callable[[argparse.Namespace], int]:
    """A subcommand's ``func``: ``module.name``, imported when the subcommand runs.

    The parser itself imports nothing of the engine, so ``--help`` and a bad
    option answer at once; the command's own module is compiled on a first run,
    under the compile notice (a Ctrl-C there ends in one line, status 130).
    """

    def run(args: argparse.Namespace) -> int:
        with compile_notice("the engine"):
            command = getattr(importlib.import_module(module), name)
        status: int = command(args)
        return status

    return run
