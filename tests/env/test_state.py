"""GameState: golden positions, properties over random games, text, bad input."""

from __future__ import annotations

import copy
import itertools
import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reversi_env import (
    BLACK,
    PASS,
    WHITE,
    GameState,
    IllegalMoveError,
    InvalidMoveError,
    InvalidPositionError,
    parse_square,
)

START_TEXT = """\
  A B C D E F G H
1 . . . . . . . .
2 . . . . . . . .
3 . . . . . . . .
4 . . . O X . . .
5 . . . X O . . .
6 . . . . . . . .
7 . . . . . . . .
8 . . . . . . . .
X to move"""


def play(moves: str, state: GameState | None = None) -> GameState:
    s = GameState.initial() if state is None else state
    for m in moves.split():
        s = s.apply(m)
    return s


# -- the start ---------------------------------------------------------------------


def test_start_position(start: GameState) -> None:
    assert str(start) == START_TEXT
    assert start.player == BLACK
    assert start.score() == (2, 2)
    assert start.legal_actions() == [parse_square(m) for m in ("D3", "C4", "F5", "E6")]
    assert start.black == (1 << parse_square("E4")) | (1 << parse_square("D5"))
    assert start.white == (1 << parse_square("D4")) | (1 << parse_square("E5"))
    assert GameState() == start
    assert not start.is_terminal()
    assert start.winner() is None


def test_first_move_flips_one_disc(start: GameState) -> None:
    s = start.apply("D3")
    assert s.player == WHITE
    assert s.score() == (4, 1)
    assert start.flipped("D3") == [parse_square("D4")]
    assert s.legal_actions() == [parse_square(m) for m in ("C3", "E3", "C5")]


# -- golden positions ----------------------------------------------------------------


def test_forced_pass() -> None:
    s = GameState.from_string("OX" + "." * 62, player="black")
    assert s.legal_actions() == [PASS]
    assert s.legal_mask()[PASS] == 1 and s.legal_mask().sum() == 1
    assert not s.is_terminal()
    with pytest.raises(IllegalMoveError, match="C1"):
        s.apply("C1")
    after = s.apply("pass")
    assert after.player == WHITE
    assert after.legal_actions() == [parse_square("C1")]
    # White's reply wipes black out: the game ends with 61 empty squares.
    end = after.apply("C1")
    assert end.is_terminal() and end.legal_actions() == []
    assert end.score() == (0, 3) and end.winner() == WHITE and end.num_empty() == 61


def test_pass_is_illegal_when_a_placement_exists(start: GameState) -> None:
    with pytest.raises(IllegalMoveError, match="PASS"):
        start.apply(PASS)
    assert not start.is_legal("pass")


def test_shortest_wipe_out() -> None:
    # The known shortest Othello game: black wipes white out in nine moves.
    s = play("E6 F4 E3 F6 G5 D6 E7 F5 C5")
    assert s.is_terminal()
    assert s.score() == (13, 0)
    assert s.winner() == BLACK
    assert s.legal_actions() == []
    assert s.legal_mask().sum() == 0


def test_game_over_with_empty_squares() -> None:
    s = GameState.from_string("XX" + "." * 61 + "O", player="white")
    assert s.is_terminal() and s.num_empty() == 61
    assert s.score() == (2, 1) and s.winner() == BLACK and s.disc_difference() == 1
    with pytest.raises(IllegalMoveError, match="game is over"):
        s.apply("pass")
    with pytest.raises(IllegalMoveError, match="game is over"):
        s.apply("D4")


def test_full_board_draw() -> None:
    text = "\n".join(f"{r} " + " ".join("X" if (r + c) % 2 else "O" for c in range(8)) for r in range(1, 9))
    s = GameState.from_string(text)
    assert s.num_empty() == 0 and s.is_terminal()
    assert s.score() == (32, 32)
    assert s.winner() is None
    assert s.disc_difference() == 0


# -- properties over random games ----------------------------------------------------


@st.composite
def random_line(draw: st.DrawFn) -> list[GameState]:
    """States along a random legal sequence (hypothesis picks every move)."""
    states = [GameState.initial()]
    length = draw(st.integers(0, 70))
    for _ in range(length):
        legal = states[-1].legal_actions()
        if not legal:
            break
        states.append(states[-1].apply(legal[draw(st.integers(0, len(legal) - 1))]))
    return states


def squares(bitboard: int) -> set[int]:
    return {i for i in range(64) if bitboard >> i & 1}


@settings(max_examples=150, deadline=None)
@given(random_line())
def test_moves_flip_only_opponent_discs(states: list[GameState]) -> None:
    for before, after in itertools.pairwise(states):
        action = next(a for a in before.legal_actions() if before.apply(a) == after)
        mine, theirs = (before.black, before.white) if before.player == BLACK else (before.white, before.black)
        mine2, theirs2 = (after.black, after.white) if before.player == BLACK else (after.white, after.black)
        if action == PASS:
            assert (mine2, theirs2) == (mine, theirs)
            continue
        flipped = set(before.flipped(action))
        assert flipped, "a legal placement flips at least one disc"
        assert flipped <= squares(theirs)
        assert squares(mine2) == squares(mine) | flipped | {action}
        assert squares(theirs2) == squares(theirs) - flipped
        assert bin(mine2 | theirs2).count("1") == bin(mine | theirs).count("1") + 1
        assert after.player == 1 - before.player


@settings(max_examples=150, deadline=None)
@given(random_line())
def test_text_round_trip_and_mask(states: list[GameState]) -> None:
    for s in states:
        assert GameState.from_string(str(s)) == s
        assert GameState.from_string(s.compact()) == s
        assert hash(GameState.from_string(str(s))) == hash(s)
        mask = s.legal_mask()
        assert mask.dtype == np.int8 and mask.shape == (65,)
        assert list(np.flatnonzero(mask)) == s.legal_actions()
        assert all(s.is_legal(a) for a in s.legal_actions())
        assert (PASS in s.legal_actions()) == (s.moves_bitboard == 0 and not s.is_terminal())


@settings(max_examples=60, deadline=None)
@given(random_line())
def test_planes_show_each_side(states: list[GameState]) -> None:
    s = states[-1]
    board = s.board()
    for who in (BLACK, WHITE):
        planes = s.planes(who)
        assert planes.dtype == np.int8 and planes.shape == (8, 8, 2)
        assert np.array_equal(planes[:, :, 0], (board == who + 1).astype(np.int8))
        assert np.array_equal(planes[:, :, 1], (board == 2 - who).astype(np.int8))


# -- value semantics -----------------------------------------------------------------


def test_immutable_and_value_semantics(start: GameState) -> None:
    with pytest.raises(AttributeError):
        start.black = 0  # type: ignore[misc]
    with pytest.raises(AttributeError):
        start.player = 1  # type: ignore[misc]
    assert start.apply("D3") == GameState.initial().apply("d3")
    assert start != start.apply("D3")
    assert len({start, GameState.initial(), start.apply("D3")}) == 2
    assert pickle.loads(pickle.dumps(start.apply("D3"))) == start.apply("D3")
    assert copy.deepcopy(start) == start
    assert eval(repr(start), {"GameState": GameState}) == start


def test_accepts_numpy_and_python_integers(start: GameState) -> None:
    assert start.apply(np.int32(19)) == start.apply(19) == start.apply(np.int64(19)) == start.apply("D3")


# -- bad input -----------------------------------------------------------------------


@pytest.mark.parametrize("bad", ["Z9", "D", "", "D33", "pass please", "I1", "A0"])
def test_malformed_text_moves(start: GameState, bad: str) -> None:
    with pytest.raises(InvalidMoveError) as err:
        start.apply(bad)
    assert repr(bad) in str(err.value)


@pytest.mark.parametrize("bad", [-1, 65, 100, 1.0, None, True, [19], np.float32(19)])
def test_wrong_types_and_ranges(start: GameState, bad: object) -> None:
    with pytest.raises(InvalidMoveError):
        start.apply(bad)
    assert not start.is_legal(bad)


def test_illegal_move_names_move_and_shows_board(start: GameState) -> None:
    with pytest.raises(IllegalMoveError) as err:
        start.apply("A1")
    message = str(err.value)
    assert "A1" in message and START_TEXT in message
    with pytest.raises(IllegalMoveError, match="D4"):
        start.apply("D4")  # occupied


@pytest.mark.parametrize(
    ("black", "white", "player"),
    [(1, 1, 0), (-1, 0, 0), (1 << 64, 0, 0), (0, 0, 2), (0, 0, "red"), (1.0, 0, 0), (True, 0, 0)],
)
def test_invalid_positions(black: object, white: object, player: object) -> None:
    with pytest.raises(InvalidPositionError):
        GameState(black, white, player)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "text",
    [
        "",
        "X" * 63,
        "Z" * 64,
        "." * 64 + "Q",
        START_TEXT.replace("4 . . . O X . . .", "4 . . . O X . ."),
        START_TEXT.replace("5 . . . X O . . .\n", ""),
    ],
)
def test_bad_board_text(text: str) -> None:
    with pytest.raises(InvalidPositionError):
        GameState.from_string(text)


@pytest.mark.parametrize("cells", [63, 66, 1])
def test_a_compact_board_of_the_wrong_length_is_named_so(cells: int) -> None:
    with pytest.raises(InvalidPositionError, match=f"board text of {cells} cells: a compact board is 64 cells"):
        GameState.from_string("." * cells)


def test_board_text_type_and_player_override() -> None:
    with pytest.raises(InvalidPositionError, match="str"):
        GameState.from_string(123)  # type: ignore[arg-type]
    assert GameState.from_string(START_TEXT, player="white").player == WHITE
    assert GameState.from_string(START_TEXT.replace("X to move", "")).player == BLACK


def test_from_string_refuses_extra_cells_but_reads_a_repeated_row_number() -> None:
    text = str(GameState.initial())
    with pytest.raises(InvalidPositionError, match="row 4"):
        GameState.from_string(text.replace("4 . . . O X . . .", "4 . . . O X . . . X"))
    labelled = "\n".join(f"{line} {line[0]}" if line[:1].isdigit() else line for line in text.splitlines())
    assert GameState.from_string(labelled) == GameState.initial()
