"""Drawing the window's side panel, its buttons and the end-of-game dialog.

The board itself is ``reversi_env.render.draw_board``; these functions draw
what the app decides to show and return where the buttons went, so a click
can be matched to them.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
import pygame

from reversi_env.render import BLACK_DISC, DEFAULT_SIZE, LABEL_COLOR, MARGIN_COLOR, WHITE_DISC

BOARD_SIZE = DEFAULT_SIZE
PANEL_WIDTH = 300
WINDOW_SIZE = (BOARD_SIZE + PANEL_WIDTH, BOARD_SIZE)

PANEL_COLOR = MARGIN_COLOR
TEXT_COLOR = LABEL_COLOR
DIM_COLOR = (150, 175, 155)
ACCENT_COLOR = (255, 200, 80)
BUTTON_COLOR = (45, 95, 65)
BUTTON_EDGE = (120, 170, 135)
DIALOG_COLOR = (25, 45, 35)
SHADE = (0, 0, 0, 140)
PAD = 16


@dataclass
class Side:
    """One player's lines in the panel."""

    title: str
    clock: str
    to_move: bool


class Fonts:
    """pygame's default font at the sizes asked for, made once each."""

    def __init__(self) -> None:
        """No font made yet (pygame.font starts on first use)."""
        self._fonts: dict[int, Any] = {}

    def get(self, px: int) -> Any:
        """The font ``px`` pixels high."""
        if not pygame.font.get_init():
            pygame.font.init()
            self._fonts.clear()
        if px not in self._fonts:
            self._fonts[px] = pygame.font.Font(None, px)
        return self._fonts[px]

    def text(self, surface: Any, text: str, pos: tuple[int, int], px: int, color: tuple[int, int, int]) -> None:
        """Write ``text`` with its top-left corner at ``pos``."""
        surface.blit(self.get(px).render(text, True, color), pos)

    def centred(self, surface: Any, text: str, center: tuple[int, int], px: int, color: tuple[int, int, int]) -> None:
        """Write ``text`` centred on ``center``."""
        glyph = self.get(px).render(text, True, color)
        surface.blit(glyph, glyph.get_rect(center=center))


def button(surface: Any, fonts: Fonts, rect: Any, label: str) -> None:
    """A rounded button with its label."""
    pygame.draw.rect(surface, BUTTON_COLOR, rect, border_radius=6)
    pygame.draw.rect(surface, BUTTON_EDGE, rect, 1, border_radius=6)
    fonts.centred(surface, label, rect.center, 20, TEXT_COLOR)


def draw_panel(
    surface: Any,
    fonts: Fonts,
    sides: tuple[Side, Side],
    status: str,
    message: str,
    moves: str,
    buttons: list[tuple[str, str]],
    strength: str,
) -> dict[str, Any]:
    """The panel right of the board: both sides, the status, the last message,
    the moves, a grid of ``buttons`` (name, label) in two columns, and the
    strength row (buttons "weaker" and "stronger"). Returns the button rects."""
    x0 = BOARD_SIZE
    surface.fill(PANEL_COLOR, pygame.Rect(x0, 0, PANEL_WIDTH, BOARD_SIZE))
    y = PAD
    fonts.text(surface, "Reversi", (x0 + PAD, y), 34, ACCENT_COLOR)
    y += 38
    for player, side in enumerate(sides):
        disc = BLACK_DISC if player == 0 else WHITE_DISC
        pygame.draw.circle(surface, disc, (x0 + PAD + 10, y + 10), 10)
        pygame.draw.circle(surface, (0, 0, 0), (x0 + PAD + 10, y + 10), 10, 1)
        fonts.text(surface, side.title, (x0 + PAD + 28, y), 24, ACCENT_COLOR if side.to_move else TEXT_COLOR)
        fonts.text(surface, side.clock, (x0 + PAD + 28, y + 22), 19, DIM_COLOR)
        y += 48
    width = PANEL_WIDTH - 2 * PAD
    for line in wrap(status, width, fonts.get(22).size)[:2]:
        fonts.text(surface, line, (x0 + PAD, y), 22, ACCENT_COLOR)
        y += 20
    y += 4
    for line in wrap(message, width, fonts.get(19).size, max_lines=3):
        fonts.text(surface, line, (x0 + PAD, y), 19, TEXT_COLOR)
        y += 18
    if moves:
        y += 4
        for line in wrap(moves, width, fonts.get(19).size)[-3:]:
            fonts.text(surface, line, (x0 + PAD, y), 19, DIM_COLOR)
            y += 18
    bw, bh, gap = (PANEL_WIDTH - 2 * PAD - 8) // 2, 28, 6
    rows = (len(buttons) + 1) // 2 + 1
    by = BOARD_SIZE - PAD - rows * bh - (rows - 1) * gap
    rects: dict[str, Any] = {}
    for i, (name, label) in enumerate(buttons):
        rect = pygame.Rect(x0 + PAD + (i % 2) * (bw + 8), by + (i // 2) * (bh + gap), bw, bh)
        button(surface, fonts, rect, label)
        rects[name] = rect
    sy = by + (rows - 1) * (bh + gap)
    rects["weaker"] = pygame.Rect(x0 + PAD, sy, bh, bh)
    rects["stronger"] = pygame.Rect(x0 + PANEL_WIDTH - PAD - bh, sy, bh, bh)
    button(surface, fonts, rects["weaker"], "-")
    button(surface, fonts, rects["stronger"], "+")
    fonts.centred(surface, f"Strength: {strength}", (x0 + PANEL_WIDTH // 2, sy + bh // 2), 20, TEXT_COLOR)
    return rects


def draw_dialog(surface: Any, fonts: Fonts, title: str, lines: list[str]) -> dict[str, Any]:
    """The end-of-game box over the board, shaded behind: ``title`` large,
    ``lines`` below, buttons "again" (a new game) and "close". Returns their rects."""
    shade = pygame.Surface((BOARD_SIZE, BOARD_SIZE), pygame.SRCALPHA)
    shade.fill(SHADE)
    surface.blit(shade, (0, 0))
    box = pygame.Rect(0, 0, 360, 200)
    box.center = (BOARD_SIZE // 2, BOARD_SIZE // 2)
    pygame.draw.rect(surface, DIALOG_COLOR, box, border_radius=10)
    pygame.draw.rect(surface, ACCENT_COLOR, box, 2, border_radius=10)
    fonts.centred(surface, title, (box.centerx, box.top + 36), 40, ACCENT_COLOR)
    y = box.top + 70
    width, size = box.width - 2 * PAD, fonts.get(22).size
    shown = [row for line in lines for row in wrap(line, width, size)]
    if len(shown) > 3:
        shown = [*shown[:2], *wrap(" ".join(shown[2:]), width, size, max_lines=1)]
    for line in shown:
        fonts.centred(surface, line, (box.centerx, y), 22, TEXT_COLOR)
        y += 24
    again = pygame.Rect(box.left + 30, box.bottom - 48, 140, 32)
    close = pygame.Rect(box.right - 170, box.bottom - 48, 140, 32)
    button(surface, fonts, again, "New game (N)")
    button(surface, fonts, close, "Close (Esc)")
    return {"again": again, "close": close}


def wrap(
    text: str, width: int, size: Callable[[str], tuple[int, int]] = lambda t: (len(t), 1), max_lines: int | None = None
) -> list[str]:
    """``text`` in lines at most ``width`` wide as ``size`` measures them (a
    font's ``size``: pixels; by default characters), broken at spaces, and
    inside a word too long for a line of its own (a path, say). With
    ``max_lines``, the last line shown ends in "..." if there was more."""
    lines: list[str] = []
    for word in text.split():
        if lines and size(f"{lines[-1]} {word}")[0] <= width:
            lines[-1] += " " + word
            continue
        while size(word)[0] > width and len(word) > 1:
            cut = max(1, _fits(word, width, size))
            lines.append(word[:cut])
            word = word[cut:]
        lines.append(word)
    if max_lines is not None and len(lines) > max_lines:
        last = lines[max_lines - 1]
        while last and size(last + "...")[0] > width:
            last = last[:-1]
        lines = [*lines[: max_lines - 1], last.rstrip() + "..."]
    return lines


def _fits(word: str, width: int, size: Callable[[str], tuple[int, int]]) -> int:
    """How many of ``word``'s first characters fit in ``width``."""
    low, high = 0, len(word)
    while low < high:
        mid = (low + high + 1) // 2
        if size(word[:mid])[0] <= width:
            low = mid
        else:
            high = mid - 1
    return low
