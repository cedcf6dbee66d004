"""``EventHandler``: pygame events turned into the game's actions.

A left click on a button presses it, on the board plays the square (unless the
end dialog is up); keys press the buttons (``KEYS``; V shows or hides the
analysis), Ctrl+S saves, Esc closes the dialog or else the window, and the
window's close button ends the loop.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pygame

from agents.ui.gui.control import GameControl
from agents.ui.gui.draw import BOARD_SIZE
from agents.ui.gui.view import GameView
from reversi_env.render import square_at

KEYS = {
    pygame.K_n: "new",
    pygame.K_u: "undo",
    pygame.K_s: "swap",
    pygame.K_a: "ai",
    pygame.K_m: "mode",
    pygame.K_r: "resign",
    pygame.K_l: "load",
    pygame.K_v: "analysis",
    pygame.K_PLUS: "stronger",
    pygame.K_EQUALS: "stronger",
    pygame.K_KP_PLUS: "stronger",
    pygame.K_MINUS: "weaker",
    pygame.K_KP_MINUS: "weaker",
}
"""Keys and the buttons they press (Ctrl+S saves, Esc closes the dialog or the window)."""


class EventHandler:
    """Presses ``control``'s buttons and plays its squares as ``view`` lays them out."""

    def __init__(self, control: GameControl, view: GameView) -> None:
        """Events act on ``control``; clicks are matched to ``view``'s buttons."""
        self.control = control
        self.view = view
        self.running = True
        """False once the person closed the window (or pressed Esc with no dialog up)."""
        self.actions: dict[str, Callable[[], None]] = {
            "new": control.new_game,
            "again": control.new_game,
            "undo": control.undo,
            "swap": control.swap_colors,
            "ai": control.next_opponent,
            "mode": control.next_mode,
            "resign": control.resign,
            "save": control.save,
            "load": control.load,
            "stronger": lambda: control.change_strength(1),
            "weaker": lambda: control.change_strength(-1),
            "close": view.close_dialog,
            "analysis": lambda: view.analyst.toggle(),
        }
        """Each button's name and what pressing it does."""

    def press(self, name: str) -> None:
        """Press the button ``name``."""
        self.actions[name]()

    def handle_event(self, event: Any) -> None:
        """React to one pygame event: clicks on the board, the buttons or the
        dialog, keys, quit."""
        if event.type == pygame.QUIT:
            self.running = False
        elif event.type == pygame.MOUSEBUTTONDOWN and event.button == 1:
            name = self.view.button_at(event.pos)
            if name is not None:
                self.press(name)
            elif not self.view.dialog_shown:
                self.control.click(square_at(event.pos, size=BOARD_SIZE))
        elif event.type == pygame.KEYDOWN:
            if event.key == pygame.K_ESCAPE:
                if self.view.dialog_shown:
                    self.press("close")
                else:
                    self.running = False
            elif event.key == pygame.K_s and getattr(event, "mod", 0) & pygame.KMOD_CTRL:
                self.press("save")
            elif event.key in KEYS:
                self.press(KEYS[event.key])
