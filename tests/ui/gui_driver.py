"""Driving a GuiApp from tests as a person would: clicks, keys, frames, and
waiting (with a bound) for the AI or the game to get somewhere; a real X
server (Xvfb) for a window run in a process of its own."""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import pygame

from agents.ui.gui import BOARD_SIZE, WINDOW_SIZE, GuiApp
from reversi_env import parse_square
from reversi_env.render import square_rect

WAIT = 60.0  # seconds before a stuck AI fails a test (never reached when it works)


def click_at(app: GuiApp, pos: tuple[int, int]) -> None:
    """A left click at ``pos`` in window pixels."""
    app.handle_event(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=pos, button=1))


def click_square(app: GuiApp, name: str) -> None:
    """A left click in the middle of the square ``name`` (``"F5"``)."""
    x, y, w, h = square_rect(parse_square(name), size=BOARD_SIZE)
    click_at(app, (x + w // 2, y + h // 2))


def press_key(app: GuiApp, key: int, mod: int = 0) -> None:
    """A key press, ``mod`` the modifier keys held."""
    app.handle_event(pygame.event.Event(pygame.KEYDOWN, key=key, mod=mod))


def frame_of(app: GuiApp) -> pygame.Surface:
    """The window as it would be drawn now, on an off-screen surface."""
    surface = pygame.Surface(WINDOW_SIZE)
    app.draw(surface)
    return surface


def run_until(app: GuiApp, done: Callable[[], bool]) -> None:
    """Run the window's updates until ``done()``; fails the test after ``WAIT`` seconds."""
    deadline = time.monotonic() + WAIT
    while not done():
        app.update()
        assert time.monotonic() < deadline, app.status()
        time.sleep(0.01)


@contextmanager
def xvfb_display() -> Iterator[str]:
    """A real X server (Xvfb) for the block: its display name (":N"), ended after it."""
    # -displayfd: Xvfb picks a free display and writes its number, so parallel runs do not collide.
    read_end, write_end = os.pipe()
    server = subprocess.Popen(
        ["Xvfb", "-displayfd", str(write_end), "-screen", "0", "1024x768x24", "-nolisten", "tcp"],
        pass_fds=(write_end,),
    )
    os.close(write_end)
    try:
        with os.fdopen(read_end) as numbers:
            number = numbers.readline().strip()
        assert number.isdigit(), f"Xvfb did not start (exit {server.poll()})"
        yield f":{number}"
    finally:
        server.terminate()
        server.wait(10)
