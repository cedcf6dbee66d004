"""The AI's moves, searched in daemon threads so the window keeps responding.

Each search gets a freshly built agent (closed afterwards, so an external
engine's process ends), built as ``reversi play`` builds it: under a time limit a
``python:`` or ``classic:`` player runs in a process of its own and is killed
when its time is up (``agents.play.isolation``) and the generation it belongs to; the window bumps the
generation at a new game, an undo or a change of players (``forget``), so an answer that
arrives late is dropped and an abandoned search touches nothing; ``forget`` also
stops that search (``agents.base.stop_agent``), so it does not go on to its time limit.
A search forgets a stop that came before it began (one meant for an earlier
search), and ``forget`` may land between the worker's last look at the generation
and the search's start: so every ``answer`` (the window asks each frame) stops
again each abandoned search still running.
"""

from __future__ import annotations

import queue
import threading
import time
from dataclasses import dataclass

from agents.base import RejectedAnswer, TamperedBoard, close_agent, stop_agent, tell_time
from agents.clocks import TimeLeft
from agents.play.isolation import PlayerError, build_player
from reversi_env.observation import observe
from reversi_env.state import GameState, Player


@dataclass
class Answer:
    """What one search produced: the move (or the error) and its time."""

    generation: int
    color: Player
    action: object = None
    seconds: float = 0.0
    error: str = ""
    tampered: bool = False
    """The player changed the board it was shown (``TamperedBoard``)."""
    rejected: tuple[str, str] | None = None
    """(answer, why) of an answer its adapter refused (``RejectedAnswer``): an illegal try."""


class AIWorker:
    """Starts searches and hands back their answers, newest generation only."""

    def __init__(self) -> None:
        """No search under way."""
        self.generation = 0
        self.started: float | None = None
        self._answers: queue.SimpleQueue[Answer] = queue.SimpleQueue()
        self._searching: dict[int, object] = {}
        """The agent searching for each generation under way (the old ones stopped by ``forget`` and ``answer``)."""
        self._lock = threading.Lock()
        """Guards ``_searching``, which the search threads fill and empty."""

    @property
    def busy(self) -> bool:
        """True while a search of the current generation is under way."""
        return self.started is not None

    def forget(self) -> None:
        """Drop any search under way: it is stopped and its answer will be ignored."""
        self.generation += 1
        self.started = None
        self._stop_abandoned()

    def _stop_abandoned(self) -> None:
        """Stop the searches of earlier generations that are still running."""
        with self._lock:
            abandoned = [agent for generation, agent in self._searching.items() if generation != self.generation]
        for agent in abandoned:
            stop_agent(agent)

    def start(
        self, spec: str, color: Player, state: GameState, seed: int | None, time_limit: TimeLeft | float | None = None
    ) -> None:
        """Search ``state`` for ``color`` with a fresh player built from ``spec``, told
        ``time_limit`` (its ``TimeLeft``, or a move's seconds): stopped after its seconds if it
        keeps its own clock; a search on the game's clock shares that clock out."""
        left = TimeLeft.of(time_limit)
        seconds = left.seconds
        self.started = time.perf_counter()
        generation, answers, searching, lock = self.generation, self._answers, self._searching, self._lock
        observation = observe(state, color)

        def search() -> None:
            t0 = time.perf_counter()
            agent = None
            try:
                agent = build_player(spec, color, seed=seed, time_limit=seconds, time_control=left.control)
                with lock:
                    searching[generation] = agent
                if generation != self.generation:
                    return  # forgotten while the player was being built
                act_timed = getattr(agent, "act_timed", None)
                if callable(act_timed):
                    action = act_timed(observation, left)
                else:
                    tell_time(agent, left)
                    action = agent.act(observation)
            except RejectedAnswer as e:  # an answer its adapter refused ("d3" from a course player): one try
                answers.put(Answer(generation, color, seconds=time.perf_counter() - t0, rejected=(e.shown, e.why)))
            except Exception as e:
                # An isolated player's error already names its type ("RuntimeError: ...").
                error = str(e) if isinstance(e, PlayerError) else f"{type(e).__name__}: {e}"
                tampered = isinstance(e, TamperedBoard)
                answers.put(Answer(generation, color, error=error, seconds=time.perf_counter() - t0, tampered=tampered))
            else:
                answers.put(Answer(generation, color, action, time.perf_counter() - t0))
            finally:
                with lock:
                    searching.pop(generation, None)
                close_agent(agent)  # an external engine ends its process

        threading.Thread(target=search, name="reversi-gui-ai", daemon=True).start()

    def answer(self) -> Answer | None:
        """The answer of the current search if it has come (older ones are dropped)."""
        self._stop_abandoned()
        while True:
            try:
                answer = self._answers.get_nowait()
            except queue.Empty:
                return None
            if answer.generation == self.generation:
                self.started = None
                return answer
