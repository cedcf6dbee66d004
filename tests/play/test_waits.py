"""Waits on another thread: they end on time, and a Ctrl-C given to any thread ends them."""

from __future__ import annotations

import queue
import signal
import threading
import time

import pytest

from agents.play import waits
from agents.play.course.game import Game


def _interrupt_from_another_thread(after: float) -> threading.Event:
    """SIGINT given to a new thread (not the main one) after ``after`` seconds; it then lingers 30 s."""
    release = threading.Event()

    def run() -> None:
        time.sleep(after)
        signal.pthread_kill(threading.get_ident(), signal.SIGINT)
        release.wait(30)

    threading.Thread(target=run, daemon=True).start()
    return release


def test_get_returns_an_item_or_raises_empty_when_the_time_is_up() -> None:
    box: queue.SimpleQueue[int] = queue.SimpleQueue()
    threading.Timer(0.3, box.put, args=(7,)).start()
    assert waits.get(box, None) == 7  # longer than a slice: waited on across slices
    start = time.monotonic()
    with pytest.raises(queue.Empty):
        waits.get(box, 0.6)
    assert 0.6 <= time.monotonic() - start < 5
    box.put(8)
    assert waits.get(box, -1.0) == 8  # no time left, an item there is still taken


@pytest.mark.parametrize("wait", ["get", "join"])
def test_a_ctrl_c_given_to_another_thread_ends_the_wait(wait: str) -> None:
    release = _interrupt_from_another_thread(0.1)
    start = time.monotonic()
    try:
        with pytest.raises(KeyboardInterrupt):
            if wait == "get":
                waits.get(queue.SimpleQueue(), 30)
            else:
                lingering = threading.Thread(target=release.wait, args=(30,), daemon=True)
                lingering.start()
                waits.join(lingering, 30)
    finally:
        release.set()
    assert time.monotonic() - start < 10  # within slices, not after the 30 s


def test_join_returns_when_the_thread_ends_or_the_time_is_up() -> None:
    quick = threading.Thread(target=time.sleep, args=(0.3,))
    quick.start()
    waits.join(quick, 30)
    assert not quick.is_alive()
    slow = threading.Thread(target=time.sleep, args=(2,), daemon=True)
    slow.start()
    start = time.monotonic()
    waits.join(slow, 0.5)
    assert slow.is_alive() and 0.5 <= time.monotonic() - start < 1.9


def test_ctrl_c_during_a_course_players_turn_ends_the_game_at_once() -> None:
    release = threading.Event()

    class Stuck:
        def get_move(self, board: object) -> str:
            time.sleep(0.2)  # the game's thread is waiting by now
            signal.pthread_kill(threading.get_ident(), signal.SIGINT)  # Ctrl-C, given to the player's thread
            release.wait(30)
            return "D3"

    start = time.monotonic()
    try:
        with pytest.raises(KeyboardInterrupt):
            Game(Stuck(), Stuck(), time_limit=30).run()
    finally:
        release.set()
    assert time.monotonic() - start < 10
