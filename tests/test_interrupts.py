"""Ctrl-C as one KeyboardInterrupt in the program's own code: not a SystemError out of numba's
boxing, not a press cleared by numba's dispatcher or dropped in a finaliser while the program goes on."""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from typing import Any

import numpy as np
import pytest
from numba import njit

from agents.interrupts import ctrl_c, held

DEADLINE = 20.0
"""Seconds a test's loop runs at most: a press that is lost ends it without a KeyboardInterrupt."""


@njit(cache=False)
def _doubled_twice(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Two arrays out: numba boxes each through a callback into Python, where a signal lands."""
    out = a * 2
    return out, out + 1


def _press_soon(seconds: float = 0.2) -> None:
    """A real SIGINT to this process after ``seconds``, as the key sends it."""
    threading.Timer(seconds, os.kill, (os.getpid(), signal.SIGINT)).start()


def _calls_until_interrupted() -> None:
    a = np.arange(200_000)
    _doubled_twice(a)
    _press_soon()
    end = time.monotonic() + DEADLINE
    while time.monotonic() < end:
        _doubled_twice(a)


def test_a_press_during_numba_calls_that_return_arrays_is_one_keyboard_interrupt() -> None:
    """Without the block, nearly every such press fails the call as "SystemError: CPUDispatcher(...)
    returned a result with an exception set", a traceback past every ``except KeyboardInterrupt``."""
    with ctrl_c() as presses, pytest.raises(KeyboardInterrupt):
        _calls_until_interrupted()
    assert presses.count == 1
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


@njit(cache=False)
def _plus_one(x: int) -> int:
    return x + 1


@njit(cache=False)
def _applied(function: Any, x: int) -> int:
    """A jitted function taking a jitted function: each call's dispatch types it in Python
    (``Dispatcher._numba_type_``), from C code that clears an exception raised there."""
    return function(x)


def test_a_press_while_numba_types_a_function_argument_is_not_lost() -> None:
    """Without the put-off press about a third of these presses vanish: the loop runs to its end."""
    _applied(_plus_one, 1)
    raised = 0
    for i in range(20):
        try:
            with ctrl_c():
                _press_soon(0.01 + 0.003 * (i % 7))
                end = time.monotonic() + 2.0
                while time.monotonic() < end:
                    _applied(_plus_one, 1)
        except KeyboardInterrupt:
            raised += 1
    assert raised == 20
    assert sys.getprofile() is None


def test_a_press_put_off_in_numba_code_as_the_block_ends_is_raised_as_it_ends() -> None:
    # A frame of numba's, as the handler sees one when SIGINT lands in numba's Python code.
    in_numba = eval("sys._getframe()", {"__name__": "numba.core.dispatcher", "sys": sys})
    with pytest.raises(KeyboardInterrupt), ctrl_c() as presses:
        handler = signal.getsignal(signal.SIGINT)
        assert callable(handler)
        handler(signal.SIGINT, in_numba)  # put off: no numba code runs again before the block ends
    assert presses.count == 1 and sys.getprofile() is None


class PressedInAFinaliser:
    """A press landing where Python drops exceptions (``__del__``, as an LLVM callback while numba compiles)."""

    def __del__(self) -> None:
        os.kill(os.getpid(), signal.SIGINT)
        for _ in range(100_000):  # the handler runs here, inside the finaliser
            pass


def test_a_press_dropped_in_a_finaliser_comes_again_and_wakes_a_sleep(capsys: pytest.CaptureFixture[str]) -> None:
    """Without the block Python prints "Exception ignored in ... KeyboardInterrupt" and sleeps on."""
    with ctrl_c() as presses, pytest.raises(KeyboardInterrupt):
        PressedInAFinaliser()
        time.sleep(DEADLINE)
    assert presses.count == 2  # the press, and the same press again
    assert "KeyboardInterrupt" not in capsys.readouterr().err


def test_a_press_outside_numba_is_raised_at_once() -> None:
    with ctrl_c() as presses, pytest.raises(KeyboardInterrupt):
        _press_soon(0.0)
        time.sleep(DEADLINE)
    assert presses.count == 1


def test_a_press_in_a_held_block_waits_for_the_last_held_block_to_end() -> None:
    ran: list[str] = []
    with ctrl_c() as presses, pytest.raises(KeyboardInterrupt):
        with held():
            with held():
                os.kill(os.getpid(), signal.SIGINT)
                time.sleep(0.05)  # where the handler would have raised it
                ran.append("inner")
            ran.append("outer")
        ran.append("after")
    assert ran == ["inner", "outer"]
    assert presses.count == 1 and not presses.waiting and presses.held == 0


def test_a_press_in_a_held_block_takes_the_place_of_its_exception() -> None:
    with ctrl_c(), pytest.raises(KeyboardInterrupt) as raised, held():
        os.kill(os.getpid(), signal.SIGINT)
        raise RuntimeError("Could not cast attribute: KeyboardInterrupt")
    assert isinstance(raised.value.__context__, RuntimeError)


def test_a_held_block_outside_every_block_is_a_block_of_its_own() -> None:
    with pytest.raises(KeyboardInterrupt), held():
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.05)
        assert signal.getsignal(signal.SIGINT) is not signal.default_int_handler
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_a_held_block_on_another_thread_holds_nothing_of_the_main_threads() -> None:
    inside, done = threading.Event(), threading.Event()

    def in_a_thread() -> None:
        with held():
            inside.set()
            done.wait(DEADLINE)

    thread = threading.Thread(target=in_a_thread)
    try:
        with ctrl_c() as presses, pytest.raises(KeyboardInterrupt):
            thread.start()
            inside.wait(DEADLINE)
            _press_soon(0.0)
            time.sleep(DEADLINE)
    finally:
        done.set()
        thread.join()
    assert presses.count == 1 and not presses.waiting


def test_a_held_block_without_a_press_raises_nothing() -> None:
    with ctrl_c() as presses:
        with held():
            pass
        assert presses.count == 0 and presses.held == 0


def test_blocks_inside_the_block_share_its_presses_and_it_gives_back_what_it_changed() -> None:
    hook = sys.unraisablehook
    with ctrl_c() as outer:
        assert signal.getsignal(signal.SIGINT) is not signal.default_int_handler
        with ctrl_c() as inner:
            assert inner is outer
        assert signal.getsignal(signal.SIGINT) is not signal.default_int_handler  # the outer one's still
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    assert sys.unraisablehook is hook and sys.getprofile() is None


def test_where_ctrl_c_is_not_pythons_to_raise_the_block_changes_nothing() -> None:
    seen: list[object] = []

    def in_a_thread() -> None:
        with ctrl_c() as presses:
            seen.append(presses.active)

    thread = threading.Thread(target=in_a_thread)
    thread.start()
    thread.join()
    with ctrl_c() as outer:
        thread = threading.Thread(target=in_a_thread)  # inside the main thread's block: still not its own
        thread.start()
        thread.join()
        assert outer.active
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        with ctrl_c() as presses:
            seen.append(presses.active)
            assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGINT, previous)
    assert seen == [False, False, False]
