"""``GameView``: what the window shows of a ``GameControl`` and where its buttons are.

The panel's texts (status, each side's lines, the end dialog's lines), the
button labels, and whether the end dialog is up; ``draw`` paints them through
``draw`` and ``reversi_env.render`` and remembers the buttons' rectangles, so
a click can be matched to the button under it.
"""

from __future__ import annotations

from typing import Any

from agents.play.match import GameResult
from agents.ui.gui.analysis import ANALYSIS_WINDOW_SIZE, Analyst, draw_strip, draw_values
from agents.ui.gui.control import GameControl
from agents.ui.gui.draw import BOARD_SIZE, WINDOW_SIZE, Fonts, Side, draw_dialog, draw_panel
from agents.ui.gui.seats import MODES
from reversi_env.render import draw_board
from reversi_env.state import PLAYER_NAMES


class GameView:
    """The panel, the end dialog and the buttons of the last frame drawn."""

    def __init__(self, control: GameControl, analyst: Analyst | None = None) -> None:
        """Show ``control``'s game; no frame drawn yet, so no buttons. ``analyst``:
        what the analysis (the V key) shows, by default a fresh ``Analyst``."""
        self.control = control
        self.analyst = Analyst() if analyst is None else analyst
        self.fonts = Fonts()
        self.buttons: dict[str, Any] = {}
        """Each button's name and its rectangle in the last frame."""
        self._closed: GameResult | None = None
        """The result whose dialog the person closed; a later result shows the dialog again."""

    @property
    def dialog_shown(self) -> bool:
        """True while the end-of-game dialog is up."""
        result = self.control.flow.result
        return result is not None and result is not self._closed

    def close_dialog(self) -> None:
        """Close the end-of-game dialog (until the next result)."""
        self._closed = self.control.flow.result

    def button_at(self, pos: tuple[int, int]) -> str | None:
        """The name of the button at ``pos`` in the last frame, if any."""
        return next((name for name, rect in self.buttons.items() if rect.collidepoint(pos)), None)

    def result_lines(self) -> tuple[str, list[str]]:
        """The end dialog's title and lines: the winner, the difference, how it ended."""
        result = self.control.flow.result
        assert result is not None
        title = "Draw" if result.winner == "draw" else f"{result.winner.capitalize()} wins"
        diff = abs(result.black - result.white)
        lines = [f"by {diff} disc{'s' if diff != 1 else ''} ({result.black}-{result.white})"]
        if result.reason != "end":
            lines = [f"discs {result.black}-{result.white}", (result.details.splitlines() or [result.ending])[0]]
        return title, lines

    def status(self) -> str:
        """What is happening: whose turn and the clock, "thinking...", or the result."""
        control, seats = self.control, self.control.seats
        state, result = control.state, control.flow.result
        if result is not None:
            b, w = result.black, result.white
            who = "draw" if result.winner == "draw" else f"{result.winner} wins"
            how = "" if result.reason == "end" else f" ({result.reason})"
            return f"Game over: {who} {b}-{w}{how}"
        left = control.flow.time_left()
        clock = "" if left is None else f", {left:.0f} s left"
        if control.worker.busy:
            return f"AI thinking... {control.flow.elapsed():.1f} s{clock}"
        if seats.is_human(state.player):
            if seats.mode == "humans":
                return f"{PLAYER_NAMES[state.player].capitalize()} to move{clock}"
            return f"Your move ({PLAYER_NAMES[state.player]}){clock}"
        return "AI to move"

    def panel_lines(self) -> list[str]:
        """Each side's title and clock lines, black first (what the panel writes)."""
        snap = self.control.flow.history[-1]
        b, w = snap.state.score()
        lines = []
        for player, discs in ((0, b), (1, w)):
            lines.append(f"{PLAYER_NAMES[player].capitalize()} ({self.control.seats.seat_name(player)}): {discs}")
            lines.append(f"last {snap.last_time[player]:.2f} s   total {snap.total_time[player]:.2f} s")
        return lines

    def button_labels(self) -> list[tuple[str, str]]:
        """The panel's buttons (name, label) in the order drawn, each with its key."""
        name, _ = self.control.seats.ai_labels()
        return [
            ("new", "New game (N)"),
            ("undo", "Undo (U)"),
            ("mode", f"{MODES[self.control.seats.mode]} (M)"),
            ("swap", "Swap colours (S)"),
            ("ai", f"AI: {name} (A)"),
            ("resign", "Resign (R)"),
            ("save", "Save (Ctrl+S)"),
            ("load", "Load (L)"),
        ]

    def window_size(self) -> tuple[int, int]:
        """The window's size: taller while the analysis is shown."""
        return ANALYSIS_WINDOW_SIZE if self.analyst.shown else WINDOW_SIZE

    def draw(self, surface: Any) -> None:
        """Draw the board, the panel, the analysis if shown and, at the end, the
        dialog onto ``surface`` (of ``window_size()``)."""
        snap = self.control.flow.history[-1]
        state = snap.state
        to_move = not state.is_terminal() and not self.control.flow.over
        hints = to_move and self.control.seats.is_human(state.player)
        draw_board(surface, state, last_move=snap.last_move, flipped=snap.flipped, hints=hints, size=BOARD_SIZE)
        if self.analyst.shown:
            game = [s.state for s in self.control.flow.history]
            self.analyst.follow(game)
            found = self.analyst.position(state) if to_move else None
            if found is not None:
                draw_values(surface, self.fonts, found)
            draw_strip(surface, self.fonts, self.analyst.curve(game), found, not to_move)
        lines = self.panel_lines()
        sides = (
            Side(lines[0], lines[1], to_move and state.player == 0),
            Side(lines[2], lines[3], to_move and state.player == 1),
        )
        record = " ".join("--" if m == "PASS" else m.lower() for m in snap.moves)
        _, strength = self.control.seats.ai_labels()
        self.buttons = draw_panel(
            surface, self.fonts, sides, self.status(), self.control.message, record, self.button_labels(), strength
        )
        if self.dialog_shown:
            title, dialog_lines = self.result_lines()
            self.buttons = draw_dialog(surface, self.fonts, title, dialog_lines)
