"""Playing one scheduled game, in any worker (the driver's process, a local worker process,
a Ray task): the players built from their specs, the game played, its results-file line.
"""

from __future__ import annotations

import os
import socket
import time
from typing import Any

from agents.arena.openings import Opening
from agents.arena.schedule import MCTS_TIME, ScheduledGame
from agents.base import Agent, close_agent
from agents.clocks import TimeControl
from agents.play.isolation import bounded, build_player
from agents.play.match import GameResult, play_game
from reversi_env.state import GameState


def build_agent(spec: str, colour: int, seed: int, time_control: TimeControl | float | None = None) -> Agent:
    """The agent a spec names, playing ``colour``, seeded with ``seed`` unless
    the spec sets its own seed (which then holds in every game), under the
    games' ``time_control`` (a bare number: seconds a move); other people's
    code runs in a process of its own, with a time limit or without
    (``build_player``)."""
    control = TimeControl.of(time_control)
    from agents.play.specs import parse_spec

    if parse_spec(spec).kind == "human":
        raise ValueError(f"{spec!r}: a human cannot play arena games (they run unattended, in workers)")
    # Unattended, and our stdout carries the table and --json -: no stdin for
    # other people's code, and what it prints goes to stderr.
    agent: Agent = build_player(
        spec,
        colour,
        seed=seed,
        default_time=MCTS_TIME,
        time_limit=control.load_limit(),
        isolate=True,
        protocol=True,
        time_control=control,
    )
    return agent


def play_scheduled(
    game: ScheduledGame, time_limit: TimeControl | float | None = 60.0, max_illegal: int = 3
) -> dict[str, Any]:
    """Build both agents from their specs, play the game under ``time_limit`` (the
    tournament's ``TimeControl``, or a bare number: seconds a move), return its record.

    This runs inside worker processes and Ray tasks: everything it takes and
    returns is plain data. Agents with a ``close()`` (external engines) are
    closed afterwards.
    """
    control = TimeControl.of(time_limit)
    players: list[Agent] = []
    t0 = time.time()
    start = Opening.parse(game.opening).state()
    try:
        for colour, spec in enumerate((game.black, game.white)):
            try:
                players.append(build_agent(spec, colour, game.agent_seed(("black", "white")[colour]), control))
            except Exception as e:  # a player that cannot start loses this game, and the tournament goes on
                return make_record(game, forfeit(game, colour, start, f"cannot start: {e}"), started=t0)
        result = play_game(
            players[0],
            players[1],
            time_control=control,
            max_illegal=max_illegal,
            start=start,
        )
        return make_record(game, result, started=t0)
    finally:
        for p in players:
            close_agent(p)


def forfeit(game: ScheduledGame, colour: int, start: GameState, why: str) -> GameResult:
    """The record of a game ``colour`` lost before its first move (reason "error")."""
    black, white = start.score()
    return GameResult(
        winner=("white", "black")[colour],
        black=black,
        white=white,
        reason="error",
        loser=("black", "white")[colour],
        details=bounded(f"{('black', 'white')[colour]} {why}"),
        black_name=game.black,
        white_name=game.white,
        start=start.compact(),
    )


def make_record(game: ScheduledGame, result: GameResult, started: float | None = None) -> dict[str, Any]:
    """The results-file line of a finished game."""
    now = time.time()
    return {
        "type": "game",
        "game_id": game.game_id,
        "black": game.black,
        "white": game.white,
        "opening": game.opening,
        "seed": game.seed,
        "black_score": _black_score(result.winner),
        "disc_difference": result.disc_difference,
        "reason": result.reason,
        "transcript": ("" if game.opening == "start" else game.opening) + result.transcript,
        "seconds": round(now - (started if started is not None else now), 3),
        "host": f"{socket.gethostname()}:{os.getpid()}",
        "result": result.to_dict(),
    }


def _black_score(winner: str) -> float:
    return {"black": 1.0, "white": 0.0, "draw": 0.5}[winner]
