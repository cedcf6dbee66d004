"""The exact endgame solver against hand-made positions and a brute-force
minimax written independently over GameState."""

from __future__ import annotations

import pytest
from conftest import random_game

from agents.search.endgame import solve_position
from reversi_env import BLACK, PASS, GameState, parse_square, square_name


def brute_force(state: GameState) -> int:
    """Final disc difference for the mover under perfect play: plain minimax,
    no pruning, no kernels (an independent oracle)."""
    if state.is_terminal():
        diff = state.disc_difference()
        return diff if state.player == BLACK else -diff
    return max(-brute_force(state.apply(a)) for a in state.legal_actions())


def endgame_positions(empties: int, count: int) -> list[GameState]:
    """Non-terminal positions with exactly ``empties`` empty squares, from seeded random games."""
    found: list[GameState] = []
    seed = 0
    while len(found) < count:
        for s in random_game(seed):
            if s.num_empty() == empties and not s.is_terminal():
                found.append(s)
                break
        seed += 1
    return found


def board(marks: dict[str, str], player: str) -> GameState:
    """A position from square names -> "X" / "O"; everything else empty."""
    cells = ["."] * 64
    for name, mark in marks.items():
        cells[parse_square(name)] = mark
    return GameState.from_string("".join(cells) + " " + player)


def test_wipe_out_win() -> None:
    # X A1, O B1: X's only move C1 flips B1 and leaves O without a disc: 3-0.
    state = board({"A1": "X", "B1": "O"}, "X")
    sol = solve_position(state)
    assert sol is not None
    assert sol.score == 3
    assert sol.best_actions == (parse_square("C1"),)


def test_forced_pass_then_loss() -> None:
    # X B1 cannot flank the corner A1, so X must pass; O C1 then wipes X out: 0-3.
    state = board({"A1": "O", "B1": "X"}, "X")
    assert state.legal_actions() == [PASS]
    sol = solve_position(state)
    assert sol is not None
    assert sol.score == -3
    assert sol.best_actions == (PASS,)


def test_last_move_draw() -> None:
    # One empty square A1: X takes it flipping only B1 (A2 and B2 are X already),
    # going from 30-33 to 32-32 on a full board.
    marks = {"B1": "O", "C1": "X", "A2": "X", "B2": "X"}
    rest = [i for i in range(64) if i not in {parse_square(n) for n in ["A1", *marks]}]
    for k, sq in enumerate(rest):
        marks[square_name(sq)] = "X" if k < 27 else "O"
    state = board(marks, "X")
    assert state.score() == (30, 33)
    assert state.legal_actions() == [parse_square("A1")]
    sol = solve_position(state)
    assert sol is not None
    assert sol.score == 0
    assert brute_force(state) == 0


def test_finished_game_has_no_move() -> None:
    state = board({"A1": "X"}, "O")
    sol = solve_position(state)
    assert sol is not None
    assert sol.best_actions == ()
    assert sol.score == -1


@pytest.mark.parametrize("empties", [4, 6, 8, 9])
def test_exact_solve_matches_brute_force(empties: int) -> None:
    for state in endgame_positions(empties, 4):
        sol = solve_position(state)
        assert sol is not None
        assert sol.score == brute_force(state), str(state)
        for a in sol.best_actions:
            assert -brute_force(state.apply(a)) == sol.score


def test_node_limit_gives_up() -> None:
    state = endgame_positions(12, 1)[0]
    assert solve_position(state, node_limit=10) is None
    full = solve_position(state)
    assert full is not None and full.nodes > 10


def test_bad_input() -> None:
    with pytest.raises(TypeError, match="GameState"):
        solve_position("X to move")  # type: ignore[arg-type]
    for bad in (0, -5, 1.5, True):
        with pytest.raises(ValueError, match="node_limit"):
            solve_position(GameState.initial(), node_limit=bad)  # type: ignore[arg-type]
