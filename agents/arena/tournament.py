"""Tournaments that rate agents at scale, locally or on a Ray cluster.

A tournament is a schedule of games between player specs (the strings of
``reversi play``: ``random``, ``alphabeta:3``, ``mcts:sims=500``,
``gtp:/usr/games/gtp-rhino``...): a round-robin, or a gauntlet of one agent
against a list. Every pairing starts from the same set of distinct openings
(random legal plies from the tournament seed, or a user file of transcripts),
each played twice with colours swapped, so neither side profits from a lucky
opening or from moving first.

Nothing is lost: every finished game is appended to a JSON Lines results file
(flushed and fsynced) as soon as it ends, by the driver process. The first line
holds the tournament itself, so ``resume`` (or ``reversi arena --resume``) plays
only the games that are missing after a crash, a ``kill -9`` or Ctrl-C; a
half-written last line is cut off. ``read_results`` reads a file back, and
``ratings_from_records`` reproduces the table.

Each game gets a seed derived from the tournament seed and the game's identity,
and agents are built from their specs inside the worker, so a local process
pool and Ray tasks play the same games (with simulation budgets rather than
time limits, the very same moves).

This module runs a tournament (``run_tournament``); its parts live in the modules of
their jobs (``openings``, ``schedule``, ``games``, ``results``, ``backends``), and
their public names are importable from here too.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from agents.arena.backends import PlayGame, run_pool, run_ray
from agents.arena.games import build_agent, forfeit, make_record, play_scheduled
from agents.arena.openings import GIVE_UP, Opening, load_openings, random_openings
from agents.arena.ratings import Ratings
from agents.arena.results import (
    FORMAT_VERSION,
    ResultsData,
    ResultsWriter,
    extends,
    prepare_results,
    ratings_from_records,
    read_results,
)
from agents.arena.schedule import MCTS_TIME, MODES, ScheduledGame, Tournament, derive_seed, player_key
from agents.base import MoveTimeout, close_agent
from agents.clocks import TimeControl
from agents.play.isolation import PlayerStartError

__all__ = [  # the arena's public names, from the modules of its jobs, importable from here as they always were
    "FORMAT_VERSION",
    "GIVE_UP",
    "MAX_ATTEMPTS",
    "MCTS_TIME",
    "MODES",
    "PROGRESS_REFIT",
    "Opening",
    "Progress",
    "ResultsData",
    "ResultsWriter",
    "ScheduledGame",
    "Tournament",
    "build_agent",
    "check_backend",
    "check_specs",
    "close_agent",
    "derive_seed",
    "extends",
    "forfeit",
    "load_openings",
    "make_record",
    "play_games",
    "play_scheduled",
    "player_key",
    "prepare_results",
    "random_openings",
    "ratings_from_records",
    "read_results",
    "run_tournament",
]

MAX_ATTEMPTS = 3
"""How many tries a game gets, in all, while its worker dies, before the run gives up."""


Progress = Callable[[int, int, Ratings], None]
"""``progress(done, total, ratings)``: called after every recorded game (the
ratings are refitted at most every ``PROGRESS_REFIT`` seconds, and at the end)."""
PROGRESS_REFIT = 0.5


def check_specs(specs: Iterable[str], time_control: TimeControl | float | None = None) -> None:
    """Build each spec once (and wait until it is ready), then close it, so a
    typo or a player that cannot start fails, in one ValueError, before any game."""
    for spec in specs:
        agent = build_agent(spec, 0, 0, time_control)
        try:
            wait_ready = getattr(agent, "wait_ready", None)
            if callable(wait_ready):
                try:
                    wait_ready()
                except (PlayerStartError, MoveTimeout) as e:
                    raise ValueError(f"player {spec!r} cannot start: {e}") from None
        finally:
            close_agent(agent)


def run_tournament(
    tournament: Tournament,
    out: str | Path,
    *,
    resume: bool = False,
    jobs: int | None = None,
    backend: str = "local",
    address: str | None = None,
    anchor: str | None = None,
    progress: Progress | None = None,
    on_start: Callable[[], None] | None = None,
) -> Ratings:
    """Play the tournament's missing games, appending each to ``out``, and
    return the ratings of everything in the file. ``on_start()`` is called
    once the arguments, the file and every player are checked, before the
    first game (a caller announces the tournament there, not before an error).

    ``out`` must not hold games already unless ``resume`` is set, and then it
    must hold this same tournament, or one this one extends (see ``extends``). ``backend`` is "local" (``jobs`` worker
    processes, default the number of cores; 1 without a time limit plays in this
    process) or "ray"
    (tasks on the cluster at ``address``, or on a local instance started with
    ``jobs`` CPUs; an already initialised Ray is used as it is).

    The local workers are spawned: each imports the script that runs the
    tournament again, so a script calls this under ``if __name__ ==
    "__main__":``; a call from a worker's import is refused with that advice.
    """
    jobs = check_backend(backend, jobs, address, "run_tournament")
    if anchor is not None:
        spelled = {player_key(a): a for a in tournament.agents}
        if player_key(anchor) not in spelled:
            raise ValueError(f"anchor {anchor!r} is not one of the agents: {', '.join(tournament.agents)}")
        anchor = spelled[player_key(anchor)]  # the games name it as the tournament does
    path = Path(out)
    data = prepare_results(tournament, path, resume)
    done = data.done_ids()
    schedule = tournament.schedule()
    todo = [g for g in schedule if g.game_id not in done]
    if todo:
        check_specs(tournament.agents, tournament.time_control)
    if on_start is not None:
        on_start()
    with ResultsWriter(path) as writer:
        if not path.stat().st_size or data.tournament != tournament:
            # A new file, or an extended tournament: the last tournament line holds.
            writer.append({"type": "tournament", "version": FORMAT_VERSION, "tournament": tournament.to_dict()})
        games = list(data.games)
        shown: list[Any] = [None, 0.0]  # the last table and when it was computed

        def record(rec: dict[str, Any]) -> None:
            writer.append(rec)
            games.append(rec)
            if progress is not None:
                # The fit costs more as games pile up: refresh it twice a second at most.
                now = time.monotonic()
                if shown[0] is None or now - shown[1] >= PROGRESS_REFIT or len(games) == len(schedule):
                    # Until the anchor has played a game, the standings use the default one.
                    met = any(anchor in (g["black"], g["white"]) for g in games)
                    shown[:] = [ratings_from_records(ResultsData(tournament, games), anchor if met else None), now]
                progress(len(games), len(schedule), shown[0])

        play_games(todo, tournament, record, jobs=jobs, backend=backend, address=address)
    return ratings_from_records(ResultsData(tournament, games), anchor)


def check_backend(backend: str, jobs: int | None, address: str | None, caller: str) -> int:
    """The number of workers for ``play_games``: ``jobs``, or the number of cores.

    Raises:
        ValueError: an unknown backend, an address without Ray, or jobs below 1.
        RuntimeError: ``caller`` runs in a spawned worker importing its script (which
            needs ``if __name__ == "__main__":``).
    """
    import multiprocessing

    if getattr(multiprocessing.current_process(), "_inheriting", False):  # multiprocessing's own test
        raise RuntimeError(
            f"{caller} was called while a worker process imported the script that runs it: put the "
            'call under `if __name__ == "__main__":` (the workers are spawned and import that script again)'
        )
    if backend not in ("local", "ray"):
        raise ValueError(f"backend must be 'local' or 'ray', got {backend!r}")
    if address is not None and backend != "ray":
        raise ValueError(f"address {address!r} names a Ray cluster: it needs the ray backend (--backend ray)")
    jobs = jobs if jobs is not None else (os.cpu_count() or 1)
    if jobs < 1:
        raise ValueError(f"jobs must be >= 1, got {jobs}")
    return jobs


def play_games(
    todo: Sequence[ScheduledGame],
    tournament: Tournament,
    record: Callable[[dict[str, Any]], None],
    *,
    jobs: int,
    backend: str = "local",
    address: str | None = None,
    play: PlayGame = play_scheduled,
) -> None:
    """Play ``todo`` under the tournament's rules and pass each game's record to ``record``
    as it ends, in this process (one job without a time limit), in ``jobs`` local worker
    processes, or as Ray tasks (``backend="ray"``). ``play`` travels to the workers, so it
    must pickle (a module-level function, or a ``functools.partial`` of one over picklable
    arguments)."""
    if not todo:
        return
    if backend == "ray":
        run_ray(list(todo), tournament, jobs, address, record, MAX_ATTEMPTS, play)
    elif jobs == 1 and tournament.time_control.unlimited:
        # Nothing can time out, so nothing can be left running: play right here.
        for game in todo:
            record(play(game, tournament.time_control, tournament.max_illegal))
    else:
        run_pool(list(todo), tournament, jobs, record, MAX_ATTEMPTS, play)
