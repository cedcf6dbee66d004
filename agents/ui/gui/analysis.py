"""The window's analysis (the V key): each legal move's value on its square, the evaluation graph, the best line.

An ``Analyst`` searches in one daemon thread of its own, so the window keeps
responding: first the position on the board (``analysis.analyze_position`` for
``ANALYSIS_SECONDS``), then each position of the game that has no value on the
graph yet (``analysis.black_value`` at ``CURVE_DEPTH``, as ``reversi analyze
--plot`` draws it). Its answers are kept by position, so an undo or a new game
shows at once what was already found, and an answer for a position no longer
on the board is simply not shown. ``draw_values`` and ``draw_strip`` paint
them; the strip is drawn below the board and the panel, in a window taller
by ``ANALYSIS_HEIGHT`` while the analysis is shown.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any

import pygame

from agents.search.analysis import CURVE_DEPTH, PositionAnalysis, analyze_position, black_value
from agents.search.evaluation import Evaluation
from agents.search.patterns import pattern_evaluation
from agents.ui.gui.draw import (
    ACCENT_COLOR,
    BOARD_SIZE,
    DIM_COLOR,
    PAD,
    PANEL_COLOR,
    TEXT_COLOR,
    WINDOW_SIZE,
    Fonts,
    wrap,
)
from reversi_env.notation import PASS, action_name
from reversi_env.render import BLACK_DISC, WHITE_DISC, square_rect
from reversi_env.state import GameState

ANALYSIS_SECONDS = 1.0
"""The search of the position on the board (the values on the squares and the best line)."""
ANALYSIS_HEIGHT = 180
"""The strip below the board and the panel that holds the graph and the best line."""
ANALYSIS_WINDOW_SIZE = (WINDOW_SIZE[0], WINDOW_SIZE[1] + ANALYSIS_HEIGHT)
GRAPH_MOVES = 60
"""The graph's width in moves (a longer game squeezes it)."""
GRAPH_MIN_DISCS = 8.0
"""The graph reaches at least this far above and below zero."""
LABEL_BACK = (20, 40, 28)
GRAPH_BACK = (36, 72, 50)


class Analyst:
    """What the engine thinks of the game on the board, found in the background."""

    def __init__(
        self,
        evaluation: Callable[[], Evaluation] = pattern_evaluation,
        *,
        seconds: float = ANALYSIS_SECONDS,
        depth: int = CURVE_DEPTH,
    ) -> None:
        """``evaluation`` makes the midgame evaluation (called once, in the
        analysis thread); ``seconds``: the search of the position on the board;
        ``depth``: the search of each position of the graph. Hidden at first."""
        self.shown = False
        self._make_evaluation = evaluation
        self._seconds = seconds
        self._depth = depth
        self._positions: dict[GameState, PositionAnalysis] = {}
        self._values: dict[GameState, float] = {}
        self._game: list[GameState] = []
        self._wake = threading.Condition()
        self._thread: threading.Thread | None = None

    def toggle(self) -> None:
        """Show the analysis, or hide it (what was found is kept)."""
        self.shown = not self.shown

    def follow(self, game: Sequence[GameState]) -> None:
        """Analyse ``game`` (its positions in order, the one on the board last) next."""
        with self._wake:
            if list(game) != self._game:
                self._game = list(game)
                self._wake.notify()
        if self._thread is None:
            self._thread = threading.Thread(target=self._work, name="reversi-gui-analysis", daemon=True)
            self._thread.start()

    def position(self, state: GameState) -> PositionAnalysis | None:
        """The analysis of ``state`` if it was found."""
        return self._positions.get(state)

    def curve(self, game: Sequence[GameState]) -> list[float | None]:
        """Black's value of each position of ``game`` found so far (None: not yet)."""
        return [self._values.get(state) for state in game]

    def idle(self) -> bool:
        """True once everything about the game followed is found."""
        with self._wake:
            return self._next() is None

    def _next(self) -> tuple[str, GameState] | None:
        """The next job: the position on the board, then the graph's positions."""
        if self._game:
            now = self._game[-1]
            if now not in self._positions and not now.is_terminal():
                return "position", now
        missing = next((state for state in self._game if state not in self._values), None)
        return None if missing is None else ("value", missing)

    def _work(self) -> None:
        evaluation = self._make_evaluation()
        while True:
            with self._wake:
                job = self._next()
                while job is None:
                    self._wake.wait()
                    job = self._next()
            kind, state = job
            if kind == "position":
                self._positions[state] = analyze_position(state, evaluation, seconds=self._seconds)
            else:
                self._values[state] = black_value(state, evaluation, self._depth)


def value_text(score: float, exact: bool) -> str:
    """A move's value as a square shows it: whole discs when exact, else one decimal."""
    return f"{round(score):+d}" if exact else f"{score:+.1f}"


def draw_values(surface: Any, fonts: Fonts, analysis: PositionAnalysis) -> None:
    """Each legal move's value on its square, the best ones in the accent colour."""
    top = analysis.moves[0].score
    for value in analysis.moves:
        if value.move == PASS:
            continue
        x, y, w, h = square_rect(value.move, size=BOARD_SIZE)
        text = value_text(value.score, value.exact)
        glyph = fonts.get(max(14, h * 2 // 5)).render(text, True, ACCENT_COLOR if value.score == top else TEXT_COLOR)
        box = glyph.get_rect(center=(x + w // 2, y + h // 2)).inflate(6, 2)
        pygame.draw.rect(surface, LABEL_BACK, box, border_radius=4)
        surface.blit(glyph, glyph.get_rect(center=box.center))


def draw_strip(
    surface: Any, fonts: Fonts, curve: Sequence[float | None], analysis: PositionAnalysis | None, over: bool
) -> None:
    """The strip below the board: the evaluation graph (black's side, one point
    a position; the area above zero black, below white) and, beside it, the
    best line of the position on the board (``over``: the game has ended)."""
    y0 = BOARD_SIZE
    surface.fill(PANEL_COLOR, pygame.Rect(0, y0, ANALYSIS_WINDOW_SIZE[0], ANALYSIS_HEIGHT))
    fonts.text(surface, "Evaluation (black's advantage in discs)", (PAD, y0 + 8), 20, TEXT_COLOR)
    graph = pygame.Rect(PAD, y0 + 30, BOARD_SIZE - 2 * PAD, ANALYSIS_HEIGHT - 30 - PAD)
    _draw_graph(surface, fonts, graph, curve)
    x = BOARD_SIZE + PAD
    width = ANALYSIS_WINDOW_SIZE[0] - x - PAD
    fonts.text(surface, "Best line", (x, y0 + 8), 20, TEXT_COLOR)
    if over:
        lines, detail = ["the game is over"], ""
    elif analysis is None:
        lines, detail = ["thinking..."], ""
    else:
        best = analysis.moves[0]
        record = " ".join("--" if a == PASS else action_name(a).lower() for a in analysis.line)
        lines = wrap(record, width, fonts.get(24).size, max_lines=3)
        reach = "exact" if best.exact else f"depth {best.depth}"
        detail = f"{value_text(best.score, best.exact)} for the side to move ({reach})"
    y = y0 + 32
    for line in lines:
        fonts.text(surface, line, (x, y), 24, ACCENT_COLOR)
        y += 24
    for line in wrap(detail, width, fonts.get(19).size, max_lines=2):
        fonts.text(surface, line, (x, y + 6), 19, DIM_COLOR)
        y += 18
    fonts.text(surface, "V hides the analysis", (x, y0 + ANALYSIS_HEIGHT - PAD - 14), 18, DIM_COLOR)


def _draw_graph(surface: Any, fonts: Fonts, rect: Any, curve: Sequence[float | None]) -> None:
    """The curve in ``rect``: zero in the middle, ``GRAPH_MIN_DISCS`` at least either side."""
    pygame.draw.rect(surface, GRAPH_BACK, rect)
    known = [v for v in curve if v is not None]
    reach = max([GRAPH_MIN_DISCS, *(abs(v) for v in known)]) * 1.1
    step = rect.width / max(GRAPH_MOVES, len(curve) - 1)
    mid = rect.centery

    def y_of(v: float) -> int:
        return round(mid - v / reach * (rect.height / 2))

    points = [(round(rect.left + i * step), y_of(v)) for i, v in enumerate(curve) if v is not None]
    bar = max(1, round(step) - 1)
    for x, y in points:  # the area between zero and the curve: black's above, white's below
        colour = BLACK_DISC if y < mid else WHITE_DISC
        surface.fill(colour, pygame.Rect(x - bar // 2, min(y, mid), bar, abs(y - mid) + 1))
    pygame.draw.line(surface, DIM_COLOR, (rect.left, mid), (rect.right, mid), 1)
    if len(points) > 1:
        pygame.draw.lines(surface, ACCENT_COLOR, False, points, 2)
    if points:
        pygame.draw.circle(surface, ACCENT_COLOR, points[-1], 4)
    for move in range(10, max(GRAPH_MOVES, len(curve) - 1) + 1, 10):  # a tick every ten moves
        x = round(rect.left + move * step)
        pygame.draw.line(surface, DIM_COLOR, (x, mid - 3), (x, mid + 3), 1)
    fonts.text(surface, f"+{reach:.0f}", (rect.right - 28, rect.top + 3), 16, DIM_COLOR)
    fonts.text(surface, f"-{reach:.0f}", (rect.right - 28, rect.bottom - 13), 16, DIM_COLOR)
