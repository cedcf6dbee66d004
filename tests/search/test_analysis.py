"""agents.search.analysis: each move's value, the best line, the evaluation curve,
checked against the exact solver and the rules."""

from __future__ import annotations

import pytest
from conftest import random_game

from agents.search.analysis import CURVE_EXACT_MARGIN, analyze_position, black_value, game_curve
from agents.search.endgame import Solver
from agents.search.patterns import pattern_evaluation
from reversi_env import BLACK, GameState
from reversi_env.notation import PASS

EVALUATION = pattern_evaluation()


def test_near_the_end_every_move_is_exact_and_the_line_is_a_best_one() -> None:
    state = next(s for s in random_game(4) if s.num_empty() == 10 and len(s.legal_actions()) > 1)
    found = analyze_position(state, EVALUATION)
    assert {m.move: m.score for m in found.moves} == Solver().score_all(state)
    assert all(m.exact and m.depth == 10 for m in found.moves)
    assert [m.score for m in found.moves] == sorted((m.score for m in found.moves), reverse=True)
    # Along the line each side plays a best move: the value never changes.
    value, node = found.value, state
    for move in found.line:
        if node.legal_actions() != [PASS]:
            child = Solver().solve(node.apply(move), all_best=False)
            mover = Solver().solve(node, all_best=False)
            assert child is not None and mover is not None and -child.score == mover.score
        node = node.apply(move)
    assert node.is_terminal() or len(found.line) == 11
    assert abs(value) <= 64


def test_the_midgame_is_searched_to_the_depth_asked_and_its_line_is_legal() -> None:
    state = random_game(7, plies=20)[-1]
    found = analyze_position(state, EVALUATION, depth=4)
    assert sorted(m.move for m in found.moves) == state.legal_actions()
    assert all(m.depth == 4 and not m.exact for m in found.moves)
    assert found.line[0] == found.moves[0].move and 1 < len(found.line) <= 4
    for move in found.line:
        state = state.apply(move)  # raises if the line is not legal


def test_a_forced_pass_is_worth_the_replys_value_negated() -> None:
    board = "-" + "X" * 59 + "O" * 4  # X must pass at A1; O then takes it
    state = GameState.from_string(board + " X")
    found = analyze_position(state, EVALUATION)
    reply = Solver().solve(state.apply(PASS), all_best=False)
    assert reply is not None
    assert [m.move for m in found.moves] == [PASS] and found.value == -reply.score
    assert found.line[:2] == (PASS, 0)


def test_the_curve_is_blacks_side_exact_near_the_end_and_the_result_at_the_end() -> None:
    game = random_game(3)
    curve = game_curve(game, EVALUATION, depth=2)
    assert len(curve) == len(game)
    end = game[-1]
    b, w = end.score()
    assert curve[-1] == b - w
    for state, value in zip(game, curve, strict=True):
        if 0 < state.num_empty() <= 2 + CURVE_EXACT_MARGIN and not state.is_terminal():
            exact = Solver().solve(state, all_best=False)
            assert exact is not None and value == (exact.score if state.player == BLACK else -exact.score)
    assert black_value(game[10], EVALUATION, 2) == curve[10]


def test_a_finished_game_has_no_move_to_analyze() -> None:
    with pytest.raises(ValueError, match="the game is over"):
        analyze_position(random_game(3)[-1], EVALUATION)
