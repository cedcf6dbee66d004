"""The GUI under the tournament rules: clocks, resign, two people, AI vs AI, save and
load, the end dialog; real pygame surfaces, and one run under a real X server (Xvfb)."""

from __future__ import annotations

import dataclasses
import importlib
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pygame
import pytest
from conftest import REPO_ROOT
from gui_driver import click_square, frame_of, press_key, run_until, xvfb_display

from agents.clocks import TimeControl
from agents.play.match import play_game
from agents.play.records import load_record, record, write_record
from agents.ui.cli import main
from agents.ui.gui import BOARD_SIZE, WINDOW_SIZE, GuiApp
from reversi_env import GameState, parse_square
from reversi_env.render import BOARD_GREEN, square_rect
from reversi_env.state import PLAYER_NAMES

pytestmark = pytest.mark.usefixtures("pygame_display")


@pytest.fixture
def slow_policy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> object:
    (tmp_path / "gui_rules_policy.py").write_text(
        textwrap.dedent(
            """
            import threading
            import numpy as np

            RELEASE = threading.Event()

            def slow(observation):
                RELEASE.wait(30)
                return int(np.flatnonzero(observation["action_mask"])[0])
            """
        )
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    module = importlib.import_module("gui_rules_policy")
    yield module
    module.RELEASE.set()  # type: ignore[attr-defined]


def test_an_ai_over_the_time_limit_loses(slow_policy: object) -> None:
    app = GuiApp(ai="python:gui_rules_policy:slow", time_limit=0.3)
    click_square(app, "D3")
    t0 = time.monotonic()
    run_until(app, lambda: app.flow.over)
    assert time.monotonic() - t0 < 5
    result = app.flow.result
    assert result is not None and (result.reason, result.loser) == ("timeout", "white")
    assert app.status() == "Game over: black wins 4-1 (timeout)"
    assert app.result_lines() == ("Black wins", ["discs 4-1", "white took over 0.3 s"])


def test_a_person_over_the_time_limit_loses_and_the_clock_is_shown() -> None:
    app = GuiApp(ai="random", time_limit=0.4)
    assert app.status().startswith("Your move (black), ") and app.status().endswith(" s left")
    time.sleep(0.5)
    app.update()
    assert app.flow.result is not None and app.flow.result.reason == "timeout"
    assert app.flow.result.loser == "black"
    unlimited = GuiApp(ai="random", time_limit=None)
    assert unlimited.status() == "Your move (black)"


def test_two_people_take_turns_undo_one_move_and_resign() -> None:
    app = GuiApp(ai="random", mode="humans")
    click_square(app, "D3")
    click_square(app, "C5")  # white, clicked by the second person
    assert app.history[-1].moves == ("D3", "C5")
    assert app.panel_lines()[0].startswith("Black (human)") and app.status().startswith("Black to move")
    press_key(app, pygame.K_u)
    assert app.history[-1].moves == ("D3",) and app.state.player == 1
    press_key(app, pygame.K_r)  # white, to move, resigns
    result = app.flow.result
    assert result is not None and (result.reason, result.winner, result.loser) == ("resign", "black", "white")
    assert app.result_lines() == ("Black wins", ["discs 4-1", "white resigned"])
    assert app.dialog_shown
    press_key(app, pygame.K_ESCAPE)  # closes the dialog, not the window
    assert not app.dialog_shown and app.running
    press_key(app, pygame.K_u)  # undo after the end: the game goes on
    assert not app.flow.over and app.state == GameState.initial()
    press_key(app, pygame.K_r)  # a new end shows the dialog again
    assert app.dialog_shown and app.result_lines() == ("White wins", ["discs 2-2", "black resigned"])


def test_ai_against_ai_plays_a_whole_game_and_the_dialog_names_the_winner() -> None:
    app = GuiApp(ai="greedy", mode="demo", demo_pause=0.0, seed=1)
    run_until(app, lambda: app.flow.over)
    result = app.flow.result
    assert result is not None and result.reason == "end" and app.state.is_terminal()
    b, w = app.state.score()
    title, lines = app.result_lines()
    assert title == ("Draw" if b == w else ("Black wins" if b > w else "White wins"))
    assert lines == [f"by {abs(b - w)} disc{'s' if abs(b - w) != 1 else ''} ({b}-{w})"]
    frame = frame_of(app)
    x, y, *_ = square_rect(parse_square("A8"), size=BOARD_SIZE)
    shaded = frame.get_at((x + 2, y + 2))[:3]
    assert set(app.buttons) == {"again", "close"}
    press_key(app, pygame.K_ESCAPE)  # closes the dialog, not the window
    assert app.running and not app.dialog_shown
    frame = frame_of(app)
    assert "new" in app.buttons
    assert sum(frame.get_at((x + 2, y + 2))[:3]) > sum(shaded)


def test_modes_cycle_and_the_game_goes_on() -> None:
    app = GuiApp(ai="random")
    click_square(app, "D3")
    press_key(app, pygame.K_m)
    assert app.mode == "humans" and app.message == "Now: two people."
    click_square(app, "C5")
    assert app.history[-1].moves == ("D3", "C5")
    press_key(app, pygame.K_m)
    assert app.mode == "demo"
    press_key(app, pygame.K_m)
    assert app.mode == "ai"
    with pytest.raises(ValueError, match="mode"):
        GuiApp(ai="random", mode="chess")


def test_save_and_load_continue_the_game(tmp_path: Path) -> None:
    for name in ("game.json", "game.ggf"):
        path = tmp_path / name
        app = GuiApp(ai="random", mode="humans", save_path=path)
        for move in ("F5", "D6", "C3"):
            click_square(app, move)
        press_key(app, pygame.K_s, pygame.KMOD_CTRL)
        assert app.message == f"Saved to {path}."
        assert load_record(path).moves == ["F5", "D6", "C3"]
        other = GuiApp(ai="random", mode="humans", save_path=path)
        press_key(other, pygame.K_l)
        assert other.state == app.state and other.history[-1].moves == ("F5", "D6", "C3")
        assert other.message.startswith("Loaded ")
    finished = tmp_path / "over.json"
    write_record(play_game("greedy", "random:seed=2", time_limit=None), finished)
    shown = GuiApp(ai="random", save_path=finished)
    shown.load()
    assert shown.flow.over and shown.dialog_shown and shown.state.is_terminal()


def test_the_window_will_not_save_a_game_from_another_start_as_a_transcript(tmp_path: Path) -> None:
    # The transcript left out the start, and loading it back said "move 1 (..) is not legal".
    path = tmp_path / "game.txt"
    app = GuiApp(ai="random", mode="humans", start=GameState.initial().apply("F5"), save_path=path)
    click_square(app, "F6")
    press_key(app, pygame.K_s, pygame.KMOD_CTRL)
    assert app.message.startswith(f"Cannot save: {path}: a transcript (.txt) holds moves from the standard start")
    assert not path.exists() and app.history[-1].moves == ("F6",)


def test_a_corrupt_file_is_one_line_in_the_window(tmp_path: Path) -> None:
    path = tmp_path / "broken.json"
    path.write_text('{"winner": "black", "black": 1')
    app = GuiApp(ai="random", save_path=path)
    app.load()
    assert app.message.startswith(f"Cannot load: {path}: ") and "\n" not in app.message
    assert app.state == GameState.initial()
    app.save_path = tmp_path / "no" / "such" / "dir.json"
    app.save()
    assert app.message.startswith("Cannot save to ")


def test_the_window_shows_a_ggf_game_lost_off_the_board_as_over(tmp_path: Path) -> None:
    # GGF keeps no details of how a game ended: the end dialog took their first line and raised IndexError.
    whole = play_game("random:seed=1", "random:seed=2", time_limit=None)
    part = record(whole.moves[:20], whole.times[:20])
    path = tmp_path / "lost.ggf"
    for reason, ending in (("resign", "black resigned"), ("timeout", "black lost on time")):
        write_record(dataclasses.replace(part, reason=reason, loser="black", winner="white"), path)
        app = GuiApp(ai="random", human=PLAYER_NAMES[1 - part.final_state().player], save_path=path)
        app.load()
        frame_of(app)
        assert app.dialog_shown and app.view.result_lines() == (
            "White wins",
            [f"discs {part.black}-{part.white}", ending],
        )
        app.update()
        assert not app.thinking and app.state == part.final_state()  # the AI, to move, does not play on
    # reversi gui --load opens the window on that end, and closes when asked.
    pygame.display.set_mode(WINDOW_SIZE)
    pygame.event.post(pygame.event.Event(pygame.QUIT))
    assert main(["gui", "--load", str(path), "--ai", "random"]) == 0


XVFB_SCRIPT = """
import sys
import pygame
from agents.ui.gui import BOARD_SIZE, GuiApp
from reversi_env import parse_square
from reversi_env.render import square_rect

app = GuiApp(ai="greedy", seed=0, time_limit=None)
pygame.display.init()
assert pygame.display.get_driver() == "x11", pygame.display.get_driver()
pygame.display.set_mode((1, 1))
x, y, w, h = square_rect(parse_square("F5"), size=BOARD_SIZE)
pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=(x + w // 2, y + h // 2), button=1))
pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_a, mod=0))
app.run(max_frames=60, screenshot=sys.argv[1])
print("MOVES", " ".join(app.history[-1].moves), "AI", app.ai_spec)
"""


def test_the_window_under_a_real_x_server(tmp_path: Path) -> None:
    with xvfb_display() as display:
        shot = tmp_path / "gui.png"
        env = {**os.environ, "DISPLAY": display, "SDL_VIDEODRIVER": "x11", "PYTHONPATH": str(REPO_ROOT)}
        done = subprocess.run(
            [sys.executable, "-c", XVFB_SCRIPT, str(shot)], env=env, capture_output=True, text=True, timeout=120
        )
        assert done.returncode == 0, done.stderr
        moves = done.stdout.split("MOVES ")[1].split()
        assert moves[0] == "F5" and len(moves) >= 4 and moves[-2:] == ["AI", "random"]  # the AI answered
        image = pygame.image.load(str(shot))
        assert image.get_size() == WINDOW_SIZE
        x, y, w, h = square_rect(parse_square("A1"), size=BOARD_SIZE)
        assert image.get_at((x + w // 2, y + h // 2))[:3] == BOARD_GREEN


def test_a_course_player_that_changes_its_board_loses_in_the_window(tmp_path: Path) -> None:
    path = tmp_path / "vandal.py"
    path.write_text(
        textwrap.dedent(
            """
            from board import Board

            class Vandal:
                def __init__(self, color):
                    self.color = color

                def get_move(self, board):
                    board._board[0][0] = self.color
                    return list(board.get_legal_actions(self.color))[0]
            """
        )
    )
    app = GuiApp(ai=f"classic:{path}:Vandal")
    click_square(app, "D3")
    run_until(app, lambda: app.flow.over)
    result = app.flow.result
    assert result is not None and (result.reason, result.loser) == ("tamper", "white")
    assert app.message == "White (AI) changed the board, and loses."


def test_a_search_in_the_window_plays_on_the_game_clock() -> None:
    # A bare mcts would think 1 s a move; on a 3 s clock it shares the clock out and keeps to it.
    app = GuiApp(ai="mcts", mode="demo", demo_pause=0.0, seed=1, time_control=TimeControl(clock=3.0))
    run_until(app, lambda: app.flow.over or len(app.flow.history) > 10)
    assert app.flow.result is None or app.flow.result.reason != "timeout", app.flow.result
    assert all(clock.left is not None and clock.left > 0 for clock in app.flow.referee.clocks)
