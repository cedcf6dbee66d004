"""The window's game without pygame: the flow (forced passes, undo, tries, records), the
seats and the control that the buttons drive."""

from __future__ import annotations

import ast

import pytest
from conftest import REPO_ROOT, random_game

from agents.play.match import play_game
from agents.play.records import record
from agents.ui.gui.control import GameControl
from agents.ui.gui.flow import GameFlow
from agents.ui.gui.seats import Seats
from reversi_env import GameState
from reversi_env.notation import PASS

# X to move with no legal move (O everywhere but G8 X and H8 empty): X passes, O plays H8.
MUST_PASS = GameState.from_string("O" * 62 + "X. X")


def test_a_pass_forced_at_the_start_is_played_and_the_game_ends() -> None:
    flow = GameFlow(MUST_PASS)
    assert flow.history[-1].moves == ("PASS",) and flow.state.player == 1
    flow.play(63)
    assert flow.over and flow.result is not None and flow.result.reason == "end"
    assert (flow.result.black, flow.result.white, flow.result.moves) == (0, 64, ["PASS", "H8"])


def test_undo_never_stops_where_a_side_could_only_pass() -> None:
    states, ply = next(
        (states, i)
        for states in map(random_game, range(1000))
        for i, s in enumerate(states)
        if i > 0 and s.legal_actions() == [PASS] and not s.is_terminal() and i + 2 < len(states)
    )
    flow = GameFlow(states[ply - 1])
    mover = states[ply - 1].player
    move = next(a for a in states[ply - 1].legal_actions() if states[ply - 1].apply(a) == states[ply])
    flow.play(move)
    assert flow.history[-1].moves[-1] == "PASS" and flow.state.player == mover
    flow.play(flow.state.legal_actions()[0])
    assert flow.undo() and flow.state.player == mover and flow.history[-1].moves[-1] == "PASS"
    assert flow.undo() and flow.state == states[ply - 1]
    assert not flow.undo()


def test_tries_count_per_turn_and_the_last_loses() -> None:
    flow = GameFlow(max_illegal=2)
    assert flow.reject("A1", "not a legal move") == "Black tried A1: not a legal move, 1 try left."
    assert not flow.over
    flow.play(19)
    assert flow.tries == 0  # a new turn, new tries
    flow.reject("A1", "not a legal move")
    assert flow.reject("'x'", "not a move") == "White tried 'x': not a move. 2 illegal moves: white loses."
    assert flow.result is not None and (flow.result.reason, flow.result.loser) == ("illegal", "white")
    with pytest.raises(ValueError):
        flow.play(18)


def test_a_loaded_game_replays_with_its_times_and_result() -> None:
    game = play_game("greedy:seed=1", "random:seed=3", time_limit=None)
    assert len(game.moves) > 20
    flow = GameFlow()
    flow.load(game)
    assert flow.over and flow.state == game.final_state()
    assert list(flow.history[-1].times) == pytest.approx(game.times)
    half = record(game.moves[:20], game.times[:20])
    flow.load(half)
    assert not flow.over and flow.record().moves == game.moves[:20]
    assert flow.resign().endswith("resigned.") and flow.record().reason == "resign"


@pytest.mark.parametrize("module", ["flow", "seats", "worker", "control"])
def test_the_game_side_of_the_window_never_imports_pygame_or_the_view(module: str) -> None:
    tree = ast.parse((REPO_ROOT / "agents" / "ui" / "gui" / f"{module}.py").read_text())
    imported = {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    imported |= {node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    assert imported, "the walk found the imports"
    drawing = {"pygame", *(f"agents.ui.gui.{m}" for m in ("draw", "view", "events", "app"))}
    assert not imported & drawing, imported & drawing


def test_two_people_drive_the_control_as_the_buttons_do() -> None:
    control = GameControl(ai="random", mode="humans", time_limit=None)
    assert not control.click(0) and control.message == "A1 is not a legal move." and len(control.flow.history) == 1
    assert not control.click(None) and control.click(19) and control.state.player == 1
    control.update()  # two people: the AI never starts
    assert not control.worker.busy and control.flow.names == ["human", "human"]
    control.swap_colors()
    assert control.message == "Swap is for a game against the AI." and control.seats.human == 0
    control.resign()  # white, to move
    assert control.flow.result is not None and (control.flow.result.loser, control.message) == (
        "white",
        "White resigned.",
    )
    assert not control.click(18)  # over: clicks change nothing
    control.undo()
    assert not control.flow.over and control.state == GameState.initial()


def test_seats_cycle_modes_opponents_and_strengths() -> None:
    seats = Seats("alphabeta:4", "white", "demo")
    assert (seats.ai_labels(), seats.names()) == (("Alpha-beta", "depth 4"), ["alphabeta:4", "alphabeta:4"])
    assert not seats.is_human(0) and not seats.is_human(1) and seats.seat_name(1) == "AI"
    seats.next_mode()
    assert seats.mode == "ai" and seats.is_human(1) and not seats.is_human(0) and seats.seat_name(1) == "you"
    for _ in range(5):
        seats.change_strength(1)
    assert seats.ai_spec == "alphabeta:6"
    seats.next_opponent()
    assert seats.ai_labels() == ("Positional", "fixed") and seats.names() == ["positional", "human"]
    seats.change_strength(-1)
    assert seats.ai_spec == "positional"
