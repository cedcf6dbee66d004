"""Perft from the start against the published counts, plus divide for debugging."""

from __future__ import annotations

import pytest

from reversi_env import GameState, divide, perft

# Published Othello perft counts (a pass uses one ply); ARCHITECTURE.md.
PERFT = [(0, 1), (1, 4), (2, 12), (3, 56), (4, 244), (5, 1396), (6, 8200), (7, 55092), (8, 390216), (9, 3005288)]


@pytest.mark.parametrize(("depth", "expected"), PERFT)
def test_perft_from_start(depth: int, expected: int) -> None:
    got = perft(depth)
    if got != expected:
        split = "\n".join(f"  {move}: {count}" for move, count in divide(depth).items())
        pytest.fail(f"perft({depth}) = {got}, expected {expected}; divide:\n{split}")


def test_divide_sums_to_perft() -> None:
    split = divide(5)
    assert sorted(split) == ["C4", "D3", "E6", "F5"]
    assert sum(split.values()) == 1396
    # The opening is symmetric: all four first moves lead to equal subtrees.
    assert len(set(split.values())) == 1


def test_perft_of_finished_game_is_one_leaf() -> None:
    wiped = GameState.from_string("X" * 64)
    assert wiped.is_terminal()
    assert [perft(d, wiped) for d in range(4)] == [1, 1, 1, 1]


def test_perft_counts_pass_as_a_ply() -> None:
    # Black (X) has no move, white has one: the pass is a ply of its own.
    s = GameState.from_string("OX" + "." * 62, player="black")
    assert s.legal_actions() == [64]
    assert perft(1, s) == 1
    assert perft(2, s) == perft(1, s.apply("pass"))


@pytest.mark.parametrize("bad", [-1, 1.5, "3", None, True])
def test_perft_rejects_bad_depth(bad: object) -> None:
    with pytest.raises(ValueError, match="depth"):
        perft(bad)  # type: ignore[arg-type]


def test_perft_rejects_bad_state() -> None:
    with pytest.raises(TypeError, match="GameState"):
        perft(2, "start")  # type: ignore[arg-type]
