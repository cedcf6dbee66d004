"""The GUI under SDL's dummy video driver: real pygame events, surfaces and pixels."""

from __future__ import annotations

import importlib
import os
import textwrap
import threading
import time
from pathlib import Path

import numpy as np
import pygame
import pytest
from gui_driver import WAIT, click_at, click_square, frame_of, run_until

from agents.ui.gui import BOARD_SIZE, WINDOW_SIZE, GuiApp
from agents.ui.gui.draw import PAD, PANEL_COLOR, Fonts, draw_dialog, wrap
from reversi_env import GameState, parse_square, square_name
from reversi_env.notation import PASS
from reversi_env.render import BLACK_DISC, BOARD_GREEN, WHITE_DISC, square_rect

pytestmark = pytest.mark.usefixtures("pygame_display")


def click_button(app: GuiApp, name: str) -> None:
    app.draw(pygame.Surface(WINDOW_SIZE))  # lays the buttons out
    click_at(app, app.buttons[name].center)


def wait_for_human(app: GuiApp) -> None:
    run_until(app, lambda: app.state.is_terminal() or (app.state.player == app.human and not app.thinking))


def disc_pixel(frame: pygame.Surface, name: str) -> tuple[int, int, int]:
    """A pixel inside the disc on ``name``, off the centre where the last-move dot goes."""
    x, y, w, h = square_rect(parse_square(name), size=BOARD_SIZE)
    r, g, b, *_ = frame.get_at((x + w // 2 + w // 4, y + h // 2))
    return (r, g, b)


def test_the_first_frame_shows_the_start_position() -> None:
    frame = frame_of(GuiApp(ai="random", seed=0))
    assert disc_pixel(frame, "D4") == WHITE_DISC and disc_pixel(frame, "E5") == WHITE_DISC
    assert disc_pixel(frame, "E4") == BLACK_DISC and disc_pixel(frame, "D5") == BLACK_DISC
    assert disc_pixel(frame, "A1") == BOARD_GREEN


def test_a_click_moves_and_the_ai_answers_and_the_panel_shows_times() -> None:
    app = GuiApp(ai="random", seed=1)
    click_square(app, "D3")
    assert app.state == GameState.initial().apply("D3")
    wait_for_human(app)
    assert len(app.history) == 3
    assert app.state.player == 0 and app.history[-1].last_move is not None
    lines = app.panel_lines()
    assert lines[0] == f"Black (you): {app.state.score()[0]}"
    assert lines[2] == f"White (AI): {app.state.score()[1]}"
    assert lines[1].split() == ["last", f"{app.history[-1].last_time[0]:.2f}", "s", "total", lines[1].split()[4], "s"]
    assert float(lines[3].split()[1]) == pytest.approx(app.history[-1].last_time[1], abs=0.01)
    assert "White played" in app.message
    replay = GameState.initial()
    for m in app.history[-1].moves:
        replay = replay.apply(m)
    assert replay == app.state and app.history[-1].moves[0] == "D3"
    frame = frame_of(app)
    assert disc_pixel(frame, "D3") == BLACK_DISC
    white_move = app.history[-1].last_move
    assert white_move is not None
    assert disc_pixel(frame, square_name(white_move)) == WHITE_DISC
    panel = pygame.surfarray.array3d(frame)[BOARD_SIZE:, :, :]
    assert len(np.unique(panel.reshape(-1, 3), axis=0)) > 10, "the panel has text and discs drawn on it"


def test_an_illegal_click_changes_nothing() -> None:
    app = GuiApp(ai="random", seed=1)
    before = frame_of(app)
    for name in ("A1", "D4", "H8"):
        click_square(app, name)
        assert app.state == GameState.initial() and len(app.history) == 1
    assert "not a legal move" in app.message
    click_at(app, (BOARD_SIZE + 150, 100))  # the panel, away from the buttons
    click_at(app, (3, 3))  # the coordinate frame
    assert app.state == GameState.initial() and len(app.history) == 1
    after = frame_of(app)
    board_before = pygame.surfarray.array3d(before)[:BOARD_SIZE]
    assert np.array_equal(board_before, pygame.surfarray.array3d(after)[:BOARD_SIZE])


def slow_policy_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> object:
    (tmp_path / "gui_slow_policy.py").write_text(
        textwrap.dedent(
            """
            import threading
            import numpy as np

            RELEASE = threading.Event()
            CALLS = []

            def slow(observation):
                CALLS.append(1)
                RELEASE.wait(60)
                return int(np.flatnonzero(observation["action_mask"])[0])

            def broken(observation):
                raise RuntimeError("policy exploded")

            def cheat(observation):
                return 0
            """
        )
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    return importlib.import_module("gui_slow_policy")


def test_the_window_keeps_working_while_the_ai_thinks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    policy = slow_policy_module(tmp_path, monkeypatch)
    # No time limit: the player runs in this process, so the test can hold and release it.
    app = GuiApp(ai="python:gui_slow_policy:slow", time_limit=None)
    click_square(app, "F5")
    app.update()
    assert app.thinking
    assert app.status().startswith("AI thinking...")
    frame_of(app)  # drawing works mid-search
    click_square(app, "E6")  # not the human's turn: nothing happens
    assert len(app.history) == 2
    app.undo()  # back to the start; the search under way is abandoned
    assert app.state == GameState.initial() and not app.thinking
    policy.RELEASE.set()  # type: ignore[attr-defined]
    for worker in threading.enumerate():
        if worker.name == "reversi-gui-ai":
            worker.join(WAIT)
    app.update()  # the late answer arrives and is dropped
    assert app.state == GameState.initial() and len(app.history) == 1
    assert not app.flow.over and app.message == "Move taken back."


def wait_for_end(app: GuiApp) -> None:
    run_until(app, lambda: app.flow.over)


def test_an_ai_that_raises_loses_and_the_dialog_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    slow_policy_module(tmp_path, monkeypatch)
    # Under the time limit the player runs in a process of its own, loaded from its file.
    app = GuiApp(ai=f"python:{tmp_path / 'gui_slow_policy.py'}:broken")
    click_square(app, "D3")
    wait_for_end(app)
    result = app.flow.result
    assert result is not None and (result.reason, result.loser, result.winner) == ("error", "white", "black")
    assert "policy exploded" in app.message and app.status() == "Game over: black wins 4-1 (error)"
    assert app.state == GameState.initial().apply("D3")
    assert app.result_lines() == ("Black wins", ["discs 4-1", "White (AI) failed: RuntimeError: policy exploded"])
    frame_of(app)
    assert set(app.buttons) == {"again", "close"} and app.dialog_shown
    click_button(app, "again")
    assert app.state == GameState.initial() and not app.flow.over


def messages_until_over(app: GuiApp) -> list[str]:
    """Run the window until the game is over; every message it showed, in order."""
    seen: list[str] = []

    def over_noting_messages() -> bool:
        if app.message not in seen:
            seen.append(app.message)
        return app.flow.over

    run_until(app, over_noting_messages)
    return seen


def test_three_illegal_ai_moves_lose_each_one_shown(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    slow_policy_module(tmp_path, monkeypatch)
    app = GuiApp(ai=f"python:{tmp_path / 'gui_slow_policy.py'}:cheat")
    click_square(app, "D3")
    seen = messages_until_over(app)
    assert "White tried A1: not a legal move, 2 tries left." in seen
    assert "White tried A1: not a legal move, 1 try left." in seen
    assert seen[-1] == "White tried A1: not a legal move. 3 illegal moves: white loses."
    assert app.flow.result is not None and app.flow.result.reason == "illegal"


def test_a_course_player_answering_lowercase_gets_illegal_tries_not_an_error(tmp_path: Path) -> None:
    player = tmp_path / "lower.py"
    player.write_text(
        "class AIPlayer:\n"
        "    def __init__(self, color):\n"
        "        self.color = color\n"
        "    def get_move(self, board):\n"
        "        return list(board.get_legal_actions(self.color))[0].lower()\n"
    )
    app = GuiApp(ai=f"classic:{player}:AIPlayer")
    click_square(app, "D3")
    seen = messages_until_over(app)
    assert "White tried 'e3': squares are written 'E3' (capitals), 2 tries left." in seen
    assert app.flow.result is not None and (app.flow.result.reason, app.flow.result.loser) == ("illegal", "white")


def test_undo_takes_back_to_the_human_turn() -> None:
    app = GuiApp(ai="random", seed=3)
    click_square(app, "C4")
    wait_for_human(app)
    after_one = app.state
    click_square(app, next(n for n in ("C3", "C5", "E3", "E6", "F5", "F3") if app.state.is_legal(n)))
    wait_for_human(app)
    click_button(app, "undo")
    assert app.state == after_one
    app.undo()
    assert app.state == GameState.initial()
    app.undo()
    assert app.state == GameState.initial()


def test_swap_colours_lets_the_ai_move_first() -> None:
    app = GuiApp(ai="random", seed=4)
    click_button(app, "swap")
    assert app.human == 1
    wait_for_human(app)
    assert app.state.player == 1 and len(app.history) == 2
    assert app.panel_lines()[0].startswith("Black (AI)")


def test_opponent_and_strength_choices() -> None:
    app = GuiApp(ai="mcts:time=1")
    assert app.ai_spec == "mcts:time=1"
    click_button(app, "stronger")
    assert app.ai_spec == "mcts:time=3"
    click_button(app, "weaker")
    click_button(app, "weaker")
    click_button(app, "weaker")
    assert app.ai_spec == "mcts:time=0.5"
    click_button(app, "ai")
    assert app.ai_spec.startswith("alphabeta:")
    app.handle_event(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_a))
    assert app.ai_spec == "positional"
    custom = GuiApp(ai="alphabeta:3")
    assert custom.ai_spec == "alphabeta:3" and custom.opponents[0][0] == "Custom"
    with pytest.raises(ValueError):
        GuiApp(ai="nonsense")
    with pytest.raises(ValueError, match="program"):
        GuiApp(ai="human")
    with pytest.raises(TypeError):
        GuiApp(ai="random", start="start")  # type: ignore[arg-type]


def find_pass_position(seed: int = 0) -> tuple[GameState, str]:
    """A position, black to move, where a black move leaves white without a move."""
    rng = np.random.default_rng(seed)
    while True:
        state = GameState.initial()
        while not state.is_terminal():
            if state.player == 0:
                for a in state.legal_actions():
                    nxt = state.apply(a) if a != PASS else None
                    if nxt is not None and not nxt.is_terminal() and nxt.legal_actions() == [PASS]:
                        return state, square_name(a)
            state = state.apply(int(rng.choice(state.legal_actions())))


def test_a_forced_pass_is_played_and_announced() -> None:
    start, move = find_pass_position()
    app = GuiApp(ai="random", seed=0, start=start)
    click_square(app, move)
    assert "White has no legal move and passes" in app.message
    assert app.state.player == 0 and not app.thinking
    assert app.history[-1].moves == (move, "PASS")
    assert app.state == start.apply(move).apply(PASS)


def test_game_over_shows_the_score() -> None:
    start = GameState.from_string("XO" + "." * 62 + "X")
    app = GuiApp(ai="random", start=start)
    click_square(app, "C1")
    assert app.state.is_terminal()
    assert app.status() == "Game over: black wins 3-0"
    app.update()
    assert not app.thinking


def test_the_window_loop_runs_posted_clicks() -> None:
    app = GuiApp(ai="random", seed=5)
    pygame.display.set_mode(WINDOW_SIZE)
    x, y, w, h = square_rect(parse_square("E6"), size=BOARD_SIZE)
    pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=(x + w // 2, y + h // 2), button=1))
    pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_u))
    pygame.event.post(pygame.event.Event(pygame.QUIT))
    assert app.run(max_frames=50) == 0
    assert not app.running
    assert app.state == GameState.initial()  # E6 played, then undone


def test_the_real_mcts_answers_in_the_worker() -> None:
    app = GuiApp(ai="mcts:sims=200", seed=0)
    click_square(app, "E6")
    app.update()
    assert app.thinking or app.state.player == app.human
    wait_for_human(app)
    assert len(app.history) == 3 and app.state.player == 0
    assert app.history[-1].total_time[1] > 0


def ai_threads() -> list[threading.Thread]:
    """The window's search threads still running."""
    return [thread for thread in threading.enumerate() if thread.name == "reversi-gui-ai"]


@pytest.mark.parametrize("leave", ["new_game", "undo"])
def test_a_search_the_window_abandons_is_stopped(leave: str) -> None:
    # Five quick new games at mcts:time=10 used to leave five searches running at once (466 MB).
    app = GuiApp(ai="mcts:time=10", time_limit=None)
    click_square(app, "F5")
    app.update()
    assert app.thinking
    time.sleep(0.3)
    getattr(app.control, leave)()
    stopped = time.perf_counter()
    for thread in ai_threads():
        thread.join(2.0)
    assert ai_threads() == [] and time.perf_counter() - stopped < 1.0
    assert not app.thinking and app.state.player == app.human


LATE_PLAYER = """\
import threading

from agents.search.mcts import MCTSAgent

past_the_check = threading.Event()
release = threading.Event()
ended = threading.Event()


class Late:
    \"\"\"An MCTS player whose search begins only when the test releases it.\"\"\"

    name = "late"

    def __init__(self):
        self.mcts = MCTSAgent(time_limit=10, seed=0)

    def stop(self):
        self.mcts.stop()

    def act(self, observation):
        past_the_check.set()
        release.wait(30)
        try:
            return self.mcts.act(observation)
        finally:
            ended.set()
"""


def test_a_search_forgotten_before_it_begins_is_stopped_too(tmp_path: Path) -> None:
    # forget() between the worker's generation check and the search's begin(): begin() cleared that stop,
    # and the abandoned search ran its 10 s. The interleaving is forced: the player's act waits for the test.
    from agents.play.specs import load_file_module
    from agents.ui.gui.worker import AIWorker

    path = tmp_path / "late.py"
    path.write_text(LATE_PLAYER)
    late = load_file_module(str(path))  # the module the worker's player comes from
    worker = AIWorker()
    worker.start(f"python:{path}:Late", 0, GameState.initial(), seed=0, time_limit=None)
    assert late.past_the_check.wait(WAIT)
    worker.forget()
    late.release.set()  # the search begins after the stop
    released = time.perf_counter()
    while not late.ended.is_set() and time.perf_counter() - released < 5.0:
        assert worker.answer() is None  # the window asks each frame
        time.sleep(0.02)
    assert late.ended.is_set() and time.perf_counter() - released < 2.0
    for thread in ai_threads():
        thread.join(WAIT)
    assert worker.answer() is None and not worker.busy


def live_children() -> set[str]:
    """Pids of this process's children that have not ended (zombies excluded)."""
    children = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == os.getpid() and fields[0] != "Z":
            children.add(stat.parent.name)
    return children


def test_an_external_engine_answers_and_its_process_ends() -> None:
    # Other tests in the same run may leave children of their own (a Ray or pool worker).
    before = live_children()
    app = GuiApp(ai="gtp:/usr/games/gtp-rhino")
    click_square(app, "D3")
    wait_for_human(app)
    assert len(app.history) == 3 and not app.flow.over, app.status()
    for worker in threading.enumerate():
        if worker.name == "reversi-gui-ai":
            worker.join(WAIT)
    assert live_children() - before == set(), "the engine process should have ended"


LONG_PATH = "/" + "/".join(["a-rather-long-folder-name"] * 8) + "/engine"


def test_a_long_message_stays_inside_the_panel() -> None:
    # A long word (an engine's path in an error) ran past the window's edge, and the
    # lines were cut by characters, not by the pixels the font takes.
    app = GuiApp(ai="random", seed=0)
    app.control.message = f"White (AI) failed: cannot start engine '{LONG_PATH}': No such file or directory"
    frame = pygame.surfarray.array3d(frame_of(app))
    edge = frame[WINDOW_SIZE[0] - PAD // 2 :, :, :].reshape(-1, 3)
    assert (edge == PANEL_COLOR).all(), "text drawn over the panel's right margin"


def test_the_end_dialog_wraps_its_lines_inside_its_box() -> None:
    # The reason an AI lost was one line across the dialog, the board and the panel.
    surface = pygame.Surface(WINDOW_SIZE)
    surface.fill((10, 20, 30))
    fonts = Fonts()
    rects = draw_dialog(surface, fonts, "Black wins", ["discs 4-1", f"White (AI) failed: {LONG_PATH} " * 3])
    box = rects["again"].union(rects["close"]).inflate(60, 0)
    pixels = pygame.surfarray.array3d(surface)
    shaded = pixels[2, 2].copy()
    rows = slice(box.top - 120, box.bottom)
    assert (pixels[: box.left - 10, rows] == shaded).all()
    assert (pixels[box.right + 10 : BOARD_SIZE, rows] == shaded).all()
    assert (pixels[BOARD_SIZE:, :] == (10, 20, 30)).all()


def test_wrap_breaks_at_spaces_then_inside_a_long_word_and_marks_what_is_cut() -> None:
    size = Fonts().get(19).size
    text = f"cannot start engine '{LONG_PATH}': No such file or directory"
    lines = wrap(text, 268, size)
    assert all(size(line)[0] <= 268 for line in lines) and len(lines) > 2
    assert "".join(lines).replace(" ", "") == text.replace(" ", "")
    assert lines[0] == "cannot start engine"  # broken at a space where one fits
    cut = wrap(text, 268, size, max_lines=2)
    assert len(cut) == 2 and cut[0] == lines[0] and cut[1].endswith("...") and size(cut[1])[0] <= 268
    assert wrap("a few words", 38) == ["a few words"] and wrap("", 38) == []
