"""The course framework's Board: same API, same answers, in the same order."""

from __future__ import annotations

import copy

import numpy as np
import pytest

from agents.play.course.board import Board
from reversi_env import GameState, InvalidPositionError

# The course framework's own move rule, written out independently of the
# project's rules: walk each direction from the square over opponent discs.
_COURSE_DIRECTIONS = [[0, 1], [1, 1], [1, 0], [1, -1], [0, -1], [-1, -1], [-1, 0], [-1, 1]]
_SCAN_DIRECTIONS = [(-1, 0), (-1, 1), (0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1)]


def course_flips(cells: list[list[str]], row: int, col: int, color: str) -> list[tuple[int, int]]:
    if cells[row][col] != ".":
        return []
    op = "O" if color == "X" else "X"
    flipped = []
    for dx, dy in _COURSE_DIRECTIONS:
        x, y, line = row + dx, col + dy, []
        while 0 <= x <= 7 and 0 <= y <= 7 and cells[x][y] == op:
            line.append((x, y))
            x, y = x + dx, y + dy
        if line and 0 <= x <= 7 and 0 <= y <= 7 and cells[x][y] == color:
            flipped += reversed(line)  # the course walks back from the far end
    return flipped


def course_legal(cells: list[list[str]], color: str) -> list[str]:
    """The course's get_legal_actions: candidates next to opponent discs, row by row."""
    op = "O" if color == "X" else "X"
    near: list[tuple[int, int]] = []
    for i in range(8):
        for j in range(8):
            if cells[i][j] == op:
                for dx, dy in _SCAN_DIRECTIONS:
                    x, y = i + dx, j + dy
                    if 0 <= x <= 7 and 0 <= y <= 7 and cells[x][y] == "." and (x, y) not in near:
                        near.append((x, y))
    return [chr(ord("A") + y) + str(x + 1) for x, y in near if course_flips(cells, x, y, color)]


def random_positions(n: int, seed: int = 0) -> list[GameState]:
    rng = np.random.default_rng(seed)
    out = []
    state = GameState.initial()
    while len(out) < n:
        if state.is_terminal():
            state = GameState.initial()
        out.append(state)
        state = state.apply(int(rng.choice(state.legal_actions())))
    return out


def test_start_position_matches_the_course() -> None:
    b = Board()
    assert b._board[3][4] == "X" and b._board[4][3] == "X"
    assert b._board[3][3] == "O" and b._board[4][4] == "O"
    assert b.count("X") == 2 and b.count("O") == 2 and b.count(".") == 60
    assert list(b.get_legal_actions("X")) == ["D3", "C4", "F5", "E6"]
    assert b[3][4] == "X"
    assert Board.from_state(GameState.initial())._board == b._board


def test_coordinates() -> None:
    b = Board()
    assert b.board_num("E4") == (3, 4)
    assert b.board_num("e4") == (3, 4)
    assert b.num_board((3, 4)) == "E4"
    assert b.board_num("A1") == (0, 0) and b.board_num("H8") == (7, 7)
    for r in range(8):
        for c in range(8):
            assert b.board_num(b.num_board((r, c))) == (r, c)


@pytest.mark.parametrize("bad", ["Z9", "I1", "A9", "A0", "E", "", "9E", 7, None])
def test_what_is_not_a_square_name_gives_none_as_in_the_course(bad: object) -> None:
    assert Board().board_num(bad) is None  # type: ignore[arg-type]


def test_board_num_reads_the_first_two_characters_as_the_course_does() -> None:
    assert Board().board_num("E44") == (3, 4)


@pytest.mark.parametrize("bad", [(8, 0), (0, -1), (1, 2, 3), "E4", None])
def test_what_is_not_a_coordinate_gives_none_as_in_the_course(bad: object) -> None:
    assert Board().num_board(bad) is None  # type: ignore[arg-type]


def test_numpy_coordinates_work_as_in_the_course() -> None:
    # A student searching with numpy (np.argwhere, np.unravel_index) passes numpy
    # integers; the course's lists and comparisons take them, so must we.
    b = Board()
    row, col = np.int64(2), np.int32(3)
    assert b.is_on_board(row, col) and not b.is_on_board(np.int64(8), col)
    assert b.num_board((row, col)) == "D3" and b.num_board(np.array([2, 3])) == "D3"
    assert b._can_fliped((row, col), "X") == ["D4"]
    flipped = b._move((row, col), "X")
    assert flipped == ["D4"] and b.count("X") == 4
    b.backpropagation((row, col), flipped, "X")
    assert b._board == Board()._board
    for r, c in np.argwhere(np.ones((8, 8))):
        assert b.board_num(b.num_board((r, c))) == (r, c)


def test_is_on_board_compares_as_the_course_does() -> None:
    b = Board()
    assert b.is_on_board(7.0, 0) and b.is_on_board(True, 7)  # the course compares, it does not check types
    assert not b.is_on_board(-1, 0) and not b.is_on_board(0, 8) and not b.is_on_board("a", 0)
    assert b.num_board((3.0, 4.0)) is None  # not a square to index with: refused, as the course fails on it


def test_moves_on_what_is_not_a_square_are_refused() -> None:
    b = Board()
    before = copy.deepcopy(b._board)
    assert b._can_fliped("Z9", "X") is False
    assert b._move("Z9", "X") is False
    assert b._move((9, 9), "X") is False
    assert b._board == before


def test_legal_moves_and_flips_agree_with_the_course_rules_in_order() -> None:
    for state in random_positions(300):
        b = Board.from_state(state)
        for color in "XO":
            assert list(b.get_legal_actions(color)) == course_legal(b._board, color)
            for r in range(8):
                for c in range(8):
                    expected = [b.num_board(p) for p in course_flips(b._board, r, c, color)]
                    assert b._can_fliped((r, c), color) == (expected or False)


def test_move_and_backpropagation() -> None:
    b = Board()
    before = copy.deepcopy(b._board)
    assert b._move("B1", "X") is False
    assert b._move("D4", "X") is False
    assert b._board == before
    flipped = b._move("D3", "X")
    assert flipped == ["D4"]
    assert b._board[2][3] == "X" and b._board[3][3] == "X"
    assert b.count("X") == 4 and b.count("O") == 1
    assert b._move((4, 2), "O") == ["D5"]  # C5 by white flips D5
    b.backpropagation((4, 2), ["D5"], "O")
    b.backpropagation("D3", flipped, "X")
    assert b._board == before


def test_can_fliped_does_not_change_the_board() -> None:
    b = Board()
    before = copy.deepcopy(b._board)
    assert b._can_fliped("D3", "X") == ["D4"]
    assert b._can_fliped("D3", "O") is False
    assert b._board == before


def test_get_winner() -> None:
    assert Board().get_winner() == (2, 0)
    b = Board()
    b._move("D3", "X")
    assert b.get_winner() == (0, 3)
    b._board = [["O"] * 8 for _ in range(8)]
    b._board[0][0] = "X"
    assert b.get_winner() == (1, 62)


def test_deepcopy_is_independent() -> None:
    b = Board()
    c = copy.deepcopy(b)
    c._move("D3", "X")
    assert b.count("X") == 2 and c.count("X") == 4
    assert isinstance(c, Board)


def test_the_board_reads_direct_edits_of_its_lists() -> None:
    b = Board()
    b._board[2][3] = "O"  # a student editing the lists directly
    assert "D3" not in list(b.get_legal_actions("X"))
    assert b.to_state("X").score() == (2, 3)


def test_state_round_trip() -> None:
    for state in random_positions(50, seed=3):
        assert Board.from_state(state).to_state(state.player) == state


def test_to_state_rejects_a_malformed_board() -> None:
    b = Board()
    b._board = b._board[:7]
    with pytest.raises(InvalidPositionError):
        b.to_state()


@pytest.mark.parametrize("bad", ["purple", 3, None])
def test_bad_colours_are_clear_errors(bad: object) -> None:
    with pytest.raises(InvalidPositionError):
        list(Board().get_legal_actions(bad))  # type: ignore[arg-type]


def test_display_shows_the_classic_layout(capsys: pytest.CaptureFixture[str]) -> None:
    b = Board()
    b.display({"X": 1.5, "O": 0}, {"X": 3.25, "O": 2})
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "  A B C D E F G H"
    assert out[4] == "4 . . . O X . . ."
    assert out[5] == "5 . . . X O . . ."
    assert any("2 / 1.5 / 3.25" in line for line in out)
    Board().display()
    assert "A B C D E F G H" in capsys.readouterr().out
