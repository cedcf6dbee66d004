"""Where a tournament's games are played: local worker processes (``run_pool``) or Ray tasks
(``run_ray``); each hands every finished game's record to the driver as it arrives.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable
from typing import Any

from agents.arena.games import play_scheduled
from agents.arena.schedule import ScheduledGame, Tournament
from agents.clocks import TimeControl
from agents.cluster import check_reachable
from agents.play import waits
from agents.play.isolation import bounded
from agents.play.processes import how_it_ended

PlayGame = Callable[[ScheduledGame, TimeControl, int], dict[str, Any]]
"""``play(game, time_control, max_illegal) -> record``: how a worker plays one scheduled game."""


def _worker(conn: Any, parent: int) -> None:
    """A local worker process: play the games the driver sends, one at a time,
    until it sends None or goes away. It dies with the driver (parent-death
    signal, and a watch thread where that signal does not exist), and leaves
    Ctrl-C to the driver."""
    import signal
    import threading
    import traceback

    from agents.play import processes

    processes.die_with_parent(parent)
    signal.signal(signal.SIGINT, signal.SIG_IGN)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(1)

    threading.Thread(target=watch, daemon=True, name="arena-parent-watch").start()
    while True:
        try:
            job = conn.recv()
        except (EOFError, OSError):
            return
        if job is None:
            return
        play, game, time_control, max_illegal = job
        try:
            conn.send(play(game, time_control, max_illegal))
        except Exception:
            conn.send({"type": "crash", "details": bounded(traceback.format_exc())})


class _WorkerProcess:
    """The driver's handle on one worker process and the game it plays."""

    def __init__(self, context: Any) -> None:
        """Start a worker (it imports the package: a second or two)."""
        self.conn, child = context.Pipe()
        self.proc = context.Process(target=_worker, args=(child, os.getpid()), daemon=True, name="reversi-arena-worker")
        self.proc.start()
        child.close()
        self.game: ScheduledGame | None = None

    def stop(self) -> None:
        """End the worker now; whatever it started dies with it."""
        with contextlib.suppress(Exception):
            self.proc.terminate()
            self.proc.join(timeout=2)
            if self.proc.is_alive():
                self.proc.kill()
                self.proc.join(timeout=2)
        with contextlib.suppress(Exception):
            self.conn.close()


def run_pool(
    todo: list[ScheduledGame],
    tournament: Tournament,
    jobs: int,
    record: Callable[[dict[str, Any]], None],
    max_attempts: int,
    play: PlayGame = play_scheduled,
) -> None:
    """Play games in ``jobs`` worker processes, handing each record to ``record``. A worker whose
    game ended on time is replaced by a fresh one (an abandoned move may still be running in
    it); a game whose worker died is played again, at most ``max_attempts`` times in all."""
    import multiprocessing
    from collections import deque
    from multiprocessing.connection import wait

    context = multiprocessing.get_context("spawn")
    queue = deque(todo)
    attempts = dict.fromkeys((g.game_id for g in todo), 0)
    workers = [_WorkerProcess(context) for _ in range(min(jobs, len(todo)))]
    job = (play, tournament.time_control, tournament.max_illegal)
    try:
        while queue or any(w.game is not None for w in workers):
            for w in workers:
                if w.game is None and queue:
                    w.game = queue.popleft()
                    attempts[w.game.game_id] += 1
                    with contextlib.suppress(OSError):  # a dead worker shows as EOF below
                        w.conn.send((job[0], w.game, *job[1:]))
            busy = {w.conn: w for w in workers if w.game is not None}
            for conn in wait(list(busy), timeout=waits.WAKE):  # in slices: a Ctrl-C is seen (``waits``)
                w = busy[conn]
                game, fresh = w.game, False
                assert game is not None
                try:
                    rec = w.conn.recv()
                except (EOFError, OSError):
                    w.proc.join(timeout=1.0)  # reaped, so its exit code is known
                    rec = {"type": "crash", "details": f"the worker process ended ({how_it_ended(w.proc.exitcode)})"}
                if rec.get("type") == "crash":
                    if attempts[game.game_id] >= max_attempts:
                        raise RuntimeError(f"game {game.game_id!r} failed {max_attempts} times: {rec['details']}")
                    queue.appendleft(game)
                    fresh = True
                else:
                    record(rec)
                    fresh = rec.get("reason") == "timeout"
                w.game = None
                if fresh:
                    w.stop()
                    workers[workers.index(w)] = _WorkerProcess(context)
    finally:
        for w in workers:
            w.stop()


def _play_one(play: PlayGame, game: ScheduledGame, time_control: TimeControl, max_illegal: int) -> dict[str, Any]:
    """``play(game, time_control, max_illegal)``: a Ray task (Ray builds its tasks from functions, not partials)."""
    return play(game, time_control, max_illegal)


def run_ray(
    todo: list[ScheduledGame],
    tournament: Tournament,
    jobs: int,
    address: str | None,
    record: Callable[[dict[str, Any]], None],
    max_attempts: int,
    play: PlayGame = play_scheduled,
) -> None:
    """Play games as Ray tasks on the cluster at ``address`` (or a local instance of ``jobs``
    CPUs), handing each record to ``record`` as it arrives. Ray plays a task again when its
    worker dies, up to ``max_attempts`` tries in all (``max_retries``)."""
    try:
        import ray
    except ImportError as e:  # pragma: no cover - depends on the installed extras
        raise ImportError("the ray backend needs Ray: pip install 'reversi-env[ray]'") from e
    started = False
    if not ray.is_initialized():
        if address:
            check_reachable(address)
            ray.init(address=address, log_to_driver=False)
        else:
            ray.init(num_cpus=jobs, include_dashboard=False, log_to_driver=False)
        started = True
    task = ray.remote(max_retries=max_attempts - 1)(_play_one)  # retries: the tries after the first
    shared = ray.put(play)  # stored once, not sent with every game
    pending = [task.remote(shared, g, tournament.time_control, tournament.max_illegal) for g in todo]
    names = {ref: g.game_id for ref, g in zip(pending, todo, strict=True)}
    try:
        while pending:
            finished, pending = ray.wait(pending, num_returns=1)
            for ref in finished:
                try:
                    rec = ray.get(ref)
                except ray.exceptions.RayError as e:  # its worker died on every try: one line, as the pool says
                    said = [line.strip() for line in str(e).splitlines() if line.strip()]
                    raise RuntimeError(
                        f"game {names[ref]!r} failed on Ray: {said[-1] if said else type(e).__name__}"
                    ) from None
                record(rec)
    except BaseException:
        for ref in pending:
            with contextlib.suppress(Exception):
                ray.cancel(ref, force=True)
        raise
    finally:
        if started:
            ray.shutdown()
