"""One drawing code for the board: text, RGB image and pygame window.

The environments (``render_mode`` "ansi", "rgb_array", "human") and the GUI
(``agents/ui/gui/``) both draw through this module, so a position looks the same
everywhere. The API::

    ansi(state, last_move=None) -> str
    board_image(state, *, last_move=None, flipped=(), hints=True, size=512) -> uint8 (size, size, 3)
    draw_board(surface, state, *, last_move=None, flipped=(), hints=True, origin=(0, 0), size=512)
    square_at(pos, *, origin=(0, 0), size=512) -> square index or None
    BoardWindow(size=512, fps=...)  # lazily opened window: .show(state, ...), .close()
    EnvRenderer(size=512, fps=...)  # an env's .render(mode, state, previous, last_move), .close()

Geometry: the drawing is a ``size`` x ``size`` square whose top-left corner is
``origin``. A margin of ``size // 16`` pixels on every side holds the
coordinates (A-H above and below, 1-8 left and right); the 8 x 8 squares fill
the rest. ``square_rect`` and ``square_at`` give that geometry to click handlers.

pygame is imported only inside the functions that draw, never at import time.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import gymnasium
import numpy as np

from reversi_env.errors import InvalidMoveError
from reversi_env.notation import FILES, PASS, Square, as_action, square_name
from reversi_env.state import BLACK, PLAYER_NAMES, PLAYER_SYMBOLS, WHITE, GameState

if TYPE_CHECKING:
    import pygame

Color = tuple[int, int, int]

BOARD_GREEN: Color = (0, 122, 61)
"""The playing surface."""
MARGIN_COLOR: Color = (24, 60, 38)
"""The frame around the squares that holds the coordinates."""
GRID_COLOR: Color = (0, 60, 30)
LABEL_COLOR: Color = (225, 235, 225)
BLACK_DISC: Color = (20, 20, 20)
WHITE_DISC: Color = (240, 240, 240)
DISC_EDGE: Color = (0, 0, 0)
HINT_COLORS: tuple[Color, Color] = ((10, 70, 35), (150, 215, 170))
"""Legal-move dots for black to move (dark) and for white to move (light)."""
LAST_MOVE_COLOR: Color = (220, 40, 40)
"""The dot on the disc placed last."""
FLIPPED_COLOR: Color = (255, 170, 0)
"""The ring around the discs the last move flipped."""

DEFAULT_SIZE = 512
MIN_SIZE = 64

_font_cache: dict[int, Any] = {}


# -- text ----------------------------------------------------------------------


def ansi(state: GameState, last_move: int | None = None) -> str:
    """The text board (``str(state)``), then the disc counts and the last move.

    The board text already names the player to move; a finished game also says
    "game over". ``last_move`` is an action (0-64) or None.
    """
    _check_state(state)
    black, white = state.score()
    counts = "  ".join(f"{PLAYER_SYMBOLS[p]} {PLAYER_NAMES[p]}: {n}" for p, n in ((BLACK, black), (WHITE, white)))
    lines = [str(state), counts]
    if last_move is not None:
        a = as_action(last_move)
        lines.append(f"last move: {'PASS' if a == PASS else square_name(a)}")
    return "\n".join(lines)


# -- geometry --------------------------------------------------------------------


def margin(size: int = DEFAULT_SIZE) -> int:
    """Width in pixels of the coordinate frame around the squares."""
    return _check_size(size) // 16


def square_rect(
    square: Square, *, origin: tuple[int, int] = (0, 0), size: int = DEFAULT_SIZE
) -> tuple[int, int, int, int]:
    """``(x, y, width, height)`` in pixels of ``square`` (0-63)."""
    sq = _check_square(square)
    x0, y0 = _check_origin(origin)
    edges = _edges(_check_size(size))
    r, c = divmod(sq, 8)
    return x0 + int(edges[c]), y0 + int(edges[r]), int(edges[c + 1] - edges[c]), int(edges[r + 1] - edges[r])


def square_at(pos: tuple[float, float], *, origin: tuple[int, int] = (0, 0), size: int = DEFAULT_SIZE) -> int | None:
    """The square (0-63) under the pixel ``pos`` (x, y), or None off the squares.

    The inverse of ``square_rect``: a click handler passes the mouse position
    and the ``origin`` / ``size`` it drew with.
    """
    try:
        x, y = (float(v) for v in pos)
    except (TypeError, ValueError) as e:
        raise ValueError(f"pos must be a pair of numbers (x, y), got {pos!r}") from e
    x0, y0 = _check_origin(origin)
    edges = _edges(_check_size(size))
    col = int(np.searchsorted(edges, x - x0, side="right")) - 1
    row = int(np.searchsorted(edges, y - y0, side="right")) - 1
    if not (0 <= col < 8 and 0 <= row < 8):
        return None
    return row * 8 + col


def _edges(size: int) -> np.ndarray:
    """Pixel offsets of the 9 grid lines, shared by both axes."""
    m = size // 16
    return np.round(np.linspace(m, size - m, 9)).astype(np.int64)


# -- drawing ---------------------------------------------------------------------


def draw_board(
    surface: pygame.Surface,
    state: GameState,
    *,
    last_move: int | None = None,
    flipped: Iterable[int] = (),
    hints: bool = True,
    origin: tuple[int, int] = (0, 0),
    size: int = DEFAULT_SIZE,
) -> None:
    """Draw ``state`` onto a pygame surface, in the square at ``origin`` of side ``size``.

    Draws the frame with A-H / 1-8, the green squares and grid, the discs, a
    dot on each legal move of the player to move (``hints``), a red dot on
    ``last_move`` (a square; PASS or None marks nothing) and an orange ring
    around each square in ``flipped``.
    """
    pygame = _pygame()

    if not isinstance(surface, pygame.Surface):
        raise TypeError(f"surface must be a pygame.Surface, got {type(surface).__name__}")
    _check_state(state)
    size = _check_size(size)
    x0, y0 = _check_origin(origin)
    last = None if last_move is None else as_action(last_move)
    flipped_squares = [_check_square(s) for s in flipped]
    if not isinstance(hints, (bool, np.bool_)):
        raise TypeError(f"hints must be a bool, got {hints!r}")

    edges = _edges(size)
    lo, hi = int(edges[0]), int(edges[-1])
    surface.fill(MARGIN_COLOR, pygame.Rect(x0, y0, size, size))
    surface.fill(BOARD_GREEN, pygame.Rect(x0 + lo, y0 + lo, hi - lo, hi - lo))
    line = max(1, size // 256)
    for e in edges:
        e = int(e)
        pygame.draw.line(surface, GRID_COLOR, (x0 + e, y0 + lo), (x0 + e, y0 + hi), line)
        pygame.draw.line(surface, GRID_COLOR, (x0 + lo, y0 + e), (x0 + hi, y0 + e), line)
    cell = (hi - lo) / 8
    for r, c in ((2, 2), (2, 6), (6, 2), (6, 6)):
        pygame.draw.circle(surface, GRID_COLOR, (x0 + int(edges[c]), y0 + int(edges[r])), max(2, round(cell * 0.06)))

    _draw_labels(surface, edges, x0, y0, size)

    def center(sq: int) -> tuple[int, int]:
        r, c = divmod(sq, 8)
        return x0 + round((edges[c] + edges[c + 1]) / 2), y0 + round((edges[r] + edges[r + 1]) / 2)

    disc_r = max(2, round(cell * 0.40))
    board = state.board().reshape(64)
    for occupied in np.flatnonzero(board).tolist():
        color = BLACK_DISC if board[occupied] == 1 else WHITE_DISC
        pygame.draw.circle(surface, color, center(occupied), disc_r)
        pygame.draw.circle(surface, DISC_EDGE, center(occupied), disc_r, max(1, size // 512))
    for sq in flipped_squares:
        pygame.draw.circle(surface, FLIPPED_COLOR, center(sq), disc_r + max(1, round(cell * 0.04)), max(2, size // 256))
    if hints:
        dot = max(2, round(cell * 0.12))
        for a in state.legal_actions():
            if a != PASS:
                pygame.draw.circle(surface, HINT_COLORS[state.player], center(a), dot)
    if last is not None and last != PASS:
        pygame.draw.circle(surface, LAST_MOVE_COLOR, center(last), max(2, round(cell * 0.10)))


def board_image(
    state: GameState,
    *,
    last_move: int | None = None,
    flipped: Iterable[int] = (),
    hints: bool = True,
    size: int = DEFAULT_SIZE,
) -> np.ndarray:
    """The board as a fresh uint8 RGB array of shape ``(size, size, 3)``, drawn by ``draw_board``."""
    pygame = _pygame()

    size = _check_size(size)
    surface = pygame.Surface((size, size))
    draw_board(surface, state, last_move=last_move, flipped=flipped, hints=hints, size=size)
    return np.frombuffer(pygame.image.tobytes(surface, "RGB"), dtype=np.uint8).reshape(size, size, 3).copy()


class BoardWindow:
    """A pygame window showing a board, opened on the first ``show`` (the env's human mode).

    ``close()`` may be called any number of times; a later ``show`` opens a new window.
    """

    def __init__(self, size: int = DEFAULT_SIZE, fps: float = 4, caption: str = "Reversi") -> None:
        """Remember the window's side in pixels, the frame rate cap and the title; opens nothing."""
        self.size = _check_size(size)
        if isinstance(fps, bool) or not isinstance(fps, (int, float)) or fps < 0:
            raise ValueError(f"fps must be a non-negative number (0 = no cap), got {fps!r}")
        self.fps = fps
        self.caption = str(caption)
        self._screen: Any = None
        self._clock: Any = None

    @property
    def is_open(self) -> bool:
        """True while the window exists."""
        return self._screen is not None

    def show(
        self, state: GameState, *, last_move: int | None = None, flipped: Iterable[int] = (), hints: bool = True
    ) -> None:
        """Draw ``state`` in the window (opening it if needed) and process window events."""
        pygame = _pygame()

        _check_state(state)
        if self._screen is None:
            pygame.display.init()
            self._screen = pygame.display.set_mode((self.size, self.size))
            self._clock = pygame.time.Clock()
        black, white = state.score()
        status = "game over" if state.is_terminal() else f"{PLAYER_NAMES[state.player]} to move"
        pygame.display.set_caption(f"{self.caption}: X {black} - O {white}, {status}")
        draw_board(self._screen, state, last_move=last_move, flipped=flipped, hints=hints, size=self.size)
        pygame.event.pump()
        pygame.display.flip()
        if self.fps:
            self._clock.tick(self.fps)

    def close(self) -> None:
        """Close the window if it is open (idempotent); other pygame modules stay initialised."""
        if self._screen is None:
            return
        pygame = _pygame()

        pygame.display.quit()
        self._screen = None
        self._clock = None


class EnvRenderer:
    """An environment's ``render()`` and ``close()``: for its ``render_mode`` the
    text board ("ansi"), an RGB image ("rgb_array") or a window opened on the
    first frame ("human"), the last move and the discs it flipped marked."""

    def __init__(self, size: int = DEFAULT_SIZE, fps: float = 4) -> None:
        """Remember the image side in pixels and the window's frame rate cap; opens nothing."""
        self.size = _check_size(size)
        self.fps = fps
        self._window: BoardWindow | None = None

    def render(
        self, mode: str | None, state: GameState, previous: GameState | None, last_move: int | None
    ) -> np.ndarray | str | None:
        """The frame for ``mode`` of ``state``, reached from ``previous`` by ``last_move`` (both None at the start)."""
        if mode is None:
            gymnasium.logger.warn("render() called without a render_mode; pass render_mode= when making the env.")
            return None
        if mode == "ansi":
            return ansi(state, last_move)
        flipped = [] if previous is None or last_move is None or last_move == PASS else previous.flipped(last_move)
        if mode == "rgb_array":
            return board_image(state, last_move=last_move, flipped=flipped, size=self.size)
        if self._window is None:
            self._window = BoardWindow(self.size, fps=self.fps, caption="Reversi")
        self._window.show(state, last_move=last_move, flipped=flipped)
        return None

    def close(self) -> None:
        """Close the window if one is open (idempotent)."""
        if self._window is not None:
            self._window.close()
            self._window = None

    def __getstate__(self) -> dict[str, Any]:
        """Copies and pickles leave the window behind (pygame surfaces do not
        copy, and a window belongs to its process): a copy opens its own on its first frame."""
        return {**self.__dict__, "_window": None}


# -- helpers ---------------------------------------------------------------------


def _draw_labels(surface: pygame.Surface, edges: np.ndarray, x0: int, y0: int, size: int) -> None:
    """A-H above and below the squares, 1-8 left and right of them."""
    font = _font(max(8, round(size / 16 * 0.7)))
    m = int(edges[0])
    for i in range(8):
        mid = round((edges[i] + edges[i + 1]) / 2)
        for text, centers in (
            (FILES[i], ((mid, m // 2), (mid, size - m // 2))),
            (str(i + 1), ((m // 2, mid), (size - m // 2, mid))),
        ):
            glyph = font.render(text, True, LABEL_COLOR)
            for cx, cy in centers:
                surface.blit(glyph, glyph.get_rect(center=(x0 + cx, y0 + cy)))


def _pygame() -> Any:
    """Import pygame on first use, without its banner on stdout."""
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    import pygame

    return pygame


def _font(px: int) -> Any:
    """pygame's default font at ``px`` pixels, cached while the font module stays initialised."""
    pygame = _pygame()

    if not pygame.font.get_init():
        pygame.font.init()
        _font_cache.clear()
    font = _font_cache.get(px)
    if font is None:
        font = _font_cache[px] = pygame.font.Font(None, px)
    return font


def _check_state(state: object) -> None:
    if not isinstance(state, GameState):
        raise TypeError(f"state must be a GameState, got {type(state).__name__}")


def _check_size(size: object) -> int:
    if isinstance(size, (bool, np.bool_)) or not isinstance(size, (int, np.integer)) or int(size) < MIN_SIZE:
        raise ValueError(f"size must be an int >= {MIN_SIZE} pixels, got {size!r}")
    return int(size)


def _check_origin(origin: object) -> tuple[int, int]:
    pair = tuple(origin) if isinstance(origin, (tuple, list)) else ()
    if len(pair) != 2 or not all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in pair):
        raise ValueError(f"origin must be a pair of ints (x, y), got {origin!r}")
    return int(pair[0]), int(pair[1])


def _check_square(square: object) -> int:
    a = as_action(square)
    if a == PASS:
        raise InvalidMoveError(f"a square must be 0-63, got {a} (PASS)")
    return a
