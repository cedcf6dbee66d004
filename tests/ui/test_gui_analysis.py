"""The window's analysis (the V key): values on the squares, the evaluation graph, the best line;
on the dummy video driver and under a real X server."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pygame
import pytest
from conftest import REPO_ROOT
from gui_driver import WAIT, press_key, run_until, xvfb_display

from agents.search.analysis import black_value
from agents.search.patterns import pattern_evaluation
from agents.ui.gui import BOARD_SIZE, WINDOW_SIZE, GuiApp
from agents.ui.gui.analysis import ANALYSIS_WINDOW_SIZE, LABEL_BACK, Analyst
from reversi_env import GameState, parse_square
from reversi_env.render import square_rect

MOVES = ["F5", "D6", "C3", "D3", "C4", "F4"]


def label_shown(frame: pygame.Surface, square: int) -> bool:
    """Whether a value's label is painted on ``square`` (its dark box beside the centre)."""
    x, y, w, h = square_rect(square, size=BOARD_SIZE)
    return any(frame.get_at((x + w // 2 + dx, y + h // 2 + dy))[:3] == LABEL_BACK for dx in (-12, 12) for dy in (-8, 8))


@pytest.mark.usefixtures("pygame_display")
def test_v_shows_each_moves_value_the_graph_and_the_best_line() -> None:
    app = GuiApp(ai="random", mode="humans", seed=0)
    app.view.analyst = Analyst(seconds=0.2, depth=2)
    for move in MOVES:
        assert app.control.click(parse_square(move))
    state = app.state
    assert app.view.window_size() == WINDOW_SIZE
    press_key(app, pygame.K_v)
    assert app.view.window_size() == ANALYSIS_WINDOW_SIZE
    frame = pygame.Surface(ANALYSIS_WINDOW_SIZE)
    app.draw(frame)  # asks for the analysis
    run_until(app, app.view.analyst.idle)
    app.draw(frame)
    found = app.view.analyst.position(state)
    assert found is not None
    assert sorted(m.move for m in found.moves) == state.legal_actions()
    assert [m.score for m in found.moves] == sorted((m.score for m in found.moves), reverse=True)
    assert found.line[0] == found.moves[0].move
    replay = state
    for move in found.line:  # the best line is a line of legal moves
        replay = replay.apply(move)
    for square in range(64):
        assert label_shown(frame, square) == (square in state.legal_actions()), square
    game = [s.state for s in app.history]
    evaluation = pattern_evaluation()
    assert app.view.analyst.curve(game) == [black_value(s, evaluation, 2) for s in game]
    press_key(app, pygame.K_v)
    assert app.view.window_size() == WINDOW_SIZE
    frame = pygame.Surface(WINDOW_SIZE)
    app.draw(frame)
    assert not any(label_shown(frame, square) for square in state.legal_actions())


XVFB_SCRIPT = """
import sys, time
import pygame
from agents.ui.gui import GuiApp
from agents.ui.gui.analysis import Analyst
from reversi_env import parse_square

app = GuiApp(ai="random", mode="humans", seed=0, time_limit=None)
app.view.analyst = Analyst(seconds=0.3, depth=4)
for move in sys.argv[2].split():
    app.control.click(parse_square(move))
pygame.display.init()
assert pygame.display.get_driver() == "x11", pygame.display.get_driver()
pygame.display.set_mode((1, 1))
pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_v, mod=0))
app.run(max_frames=3)
deadline = time.monotonic() + float(sys.argv[3])
while not app.view.analyst.idle():
    assert time.monotonic() < deadline, "the analysis did not finish"
    time.sleep(0.05)
app.run(max_frames=2, screenshot=sys.argv[1])
"""


def test_the_analysis_under_a_real_x_server(tmp_path: Path) -> None:
    with xvfb_display() as display:
        shot = tmp_path / "analysis.png"
        env = {**os.environ, "DISPLAY": display, "SDL_VIDEODRIVER": "x11", "PYTHONPATH": str(REPO_ROOT)}
        done = subprocess.run(
            [sys.executable, "-c", XVFB_SCRIPT, str(shot), " ".join(MOVES), str(WAIT)],
            env=env, capture_output=True, text=True, timeout=180,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
    image = pygame.image.load(str(shot))
    assert image.get_size() == ANALYSIS_WINDOW_SIZE
    state = GameState.initial()
    for move in MOVES:
        state = state.apply(move)
    for square in range(64):
        assert label_shown(image, square) == (square in state.legal_actions()), square
