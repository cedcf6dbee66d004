"""The window's game flow without pygame: forced passes, undo, tries, records."""

from __future__ import annotations

import pytest
from conftest import random_game

from agents.play.match import play_game
from agents.play.records import record
from agents.ui.gui.flow import GameFlow
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
