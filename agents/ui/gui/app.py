"""``GuiApp``: the window, wiring the game's control, its view and the events, and the loop.

The actions and the AI's turns live in ``control.GameControl`` (no pygame), the
panel and the dialog in ``view.GameView``, the translation of pygame events
into actions in ``events.EventHandler``. ``GuiApp`` has ``handle_event(event)``,
``update()`` and ``draw(surface)``; ``run()`` is only the window loop around
them, so the app can be driven without a display.
"""

from __future__ import annotations

from pathlib import Path

import pygame

from agents.clocks import TimeControl
from agents.ui.gui.control import DEMO_PAUSE, GameControl
from agents.ui.gui.events import EventHandler
from agents.ui.gui.flow import Snapshot
from agents.ui.gui.view import GameView
from reversi_env.state import BLACK, GameState, Player

FPS = 30


class GuiApp:
    """One window's game: ``control``, ``view`` and ``events`` wired together,
    with the names people and scripts use for them kept at hand."""

    def __init__(
        self,
        ai: str = "mcts:time=1",
        human: object = BLACK,
        seed: int | None = None,
        start: GameState | None = None,
        *,
        mode: str = "ai",
        time_limit: float | None = 60.0,
        max_illegal: int = 3,
        save_path: str | Path = "reversi-game.json",
        demo_pause: float = DEMO_PAUSE,
        time_control: TimeControl | None = None,
    ) -> None:
        """The arguments are ``GameControl``'s: the AI's spec, the person's
        colour, the AI's seed, the start position, the mode, the seconds a move
        may take, the illegal moves that lose, the save file, the demo's pause,
        the time control (a game clock) if more than ``time_limit``."""
        self.control = GameControl(
            ai,
            human,
            seed,
            start,
            mode=mode,
            time_limit=time_limit,
            max_illegal=max_illegal,
            save_path=save_path,
            demo_pause=demo_pause,
            time_control=time_control,
        )
        self.view = GameView(self.control)
        self.events = EventHandler(self.control, self.view)
        self.flow = self.control.flow
        self.opponents = self.control.seats.opponents
        self.update = self.control.update
        self.undo = self.control.undo
        self.save = self.control.save
        self.load = self.control.load
        self.draw = self.view.draw
        self.status = self.view.status
        self.panel_lines = self.view.panel_lines
        self.result_lines = self.view.result_lines
        self.handle_event = self.events.handle_event
        self.press = self.events.press

    @property
    def state(self) -> GameState:
        """The current position."""
        return self.control.state

    @property
    def history(self) -> list[Snapshot]:
        """The positions played, the start first."""
        return self.control.flow.history

    @property
    def thinking(self) -> bool:
        """True while the AI is searching."""
        return self.control.worker.busy

    @property
    def message(self) -> str:
        """The last line for the person (what the last action or move did)."""
        return self.control.message

    @property
    def mode(self) -> str:
        """Who plays, one of ``MODES``."""
        return self.control.seats.mode

    @property
    def human(self) -> Player:
        """The person's colour against the AI."""
        return self.control.seats.human

    @property
    def ai_spec(self) -> str:
        """The spec of the AI currently chosen."""
        return self.control.seats.ai_spec

    @property
    def save_path(self) -> Path:
        """Where Save writes and Load reads."""
        return self.control.save_path

    @save_path.setter
    def save_path(self, path: str | Path) -> None:
        self.control.save_path = Path(path)

    @property
    def buttons(self) -> dict[str, pygame.Rect]:
        """Each button's name and rectangle in the last frame drawn."""
        return self.view.buttons

    @property
    def dialog_shown(self) -> bool:
        """True while the end-of-game dialog is up."""
        return self.view.dialog_shown

    @property
    def running(self) -> bool:
        """False once the window was closed."""
        return self.events.running

    def run(self, max_frames: int | None = None, screenshot: str | Path | None = None) -> int:
        """Open the window and play until it is closed (or ``max_frames`` frames
        have passed); returns 0. ``screenshot``: save the last frame there (PNG)."""
        pygame.display.init()
        pygame.font.init()
        try:
            screen = pygame.display.set_mode(self.view.window_size())
            pygame.display.set_caption("Reversi")
            clock = pygame.time.Clock()
            frames = 0
            while self.running and (max_frames is None or frames < max_frames):
                for event in pygame.event.get():
                    self.handle_event(event)
                self.update()
                if screen.get_size() != self.view.window_size():  # the analysis shown or hidden
                    screen = pygame.display.set_mode(self.view.window_size())
                self.draw(screen)
                pygame.display.flip()
                clock.tick(FPS)
                frames += 1
            if screenshot is not None:
                pygame.image.save(screen, str(screenshot))
        finally:
            pygame.display.quit()
        return 0
