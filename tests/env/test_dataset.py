"""Games into training arrays: rows against the env's own observations, augmentation, illegal games, files."""

from __future__ import annotations

from itertools import pairwise
from pathlib import Path

import numpy as np
import pytest
from conftest import random_game

from reversi_env import PASS, GameState
from reversi_env.dataset import (
    ARRAYS,
    DatasetError,
    Game,
    games_from_wthor,
    games_to_arrays,
    load_arrays,
    save_arrays,
)
from reversi_env.observation import ObservationSpec
from reversi_env.symmetry import transform_state
from reversi_env.wthor import WthorGame, pack_wtb, parse_wtb, score_of

SPECS = [
    ObservationSpec(),
    ObservationSpec(dtype="float32", layout="CHW", legal_moves=True, side_to_move=True, history=3, flat=True),
    ObservationSpec(legal_moves=True, history=2),
]


def _played(seeds: range) -> tuple[list[Game], list[tuple[list[GameState], list[int]]]]:
    games, played = [], []
    for seed in seeds:
        states = random_game(seed, plies=None if seed % 4 else 30)
        actions = [next(a for a in s.legal_actions() if s.apply(a) == t) for s, t in pairwise(states)]
        black, white = states[-1].score()
        games.append(Game(tuple(a for a in actions if a != PASS), black - white))
        played.append((states, actions))
    return games, played


@pytest.mark.parametrize("spec", SPECS)
def test_every_row_is_what_the_mover_observes_and_plays(spec: ObservationSpec) -> None:
    games, played = _played(range(24))
    arrays = games_to_arrays(games, spec=spec)
    assert set(arrays) == set(ARRAYS)
    row = 0
    for g, (states, actions) in enumerate(played):
        sign = np.sign(games[g].disc_difference)
        for ply, (s, a) in enumerate(zip(states, actions, strict=False)):
            if a == PASS:
                continue
            o = spec.observe(s, s.player, states[max(0, ply - spec.history + 1) : ply][::-1])
            np.testing.assert_array_equal(arrays["observation"][row], o["observation"])
            np.testing.assert_array_equal(arrays["action_mask"][row], o["action_mask"])
            side = 1 if s.player == 0 else -1
            got = (arrays["action"][row], arrays["game"][row], arrays["ply"][row], arrays["outcome"][row])
            assert got == (a, g, ply, sign * side)
            assert arrays["disc_difference"][row] == games[g].disc_difference * side
            row += 1
    assert row == len(arrays["action"]) and arrays["observation"].dtype == spec.numpy_dtype


def test_augmented_rows_are_the_rows_of_the_moved_positions() -> None:
    spec = ObservationSpec(layout="CHW", legal_moves=True)
    games, played = _played(range(3))
    plain = games_to_arrays(games, spec=spec)
    both = games_to_arrays(games, spec=spec, augment=True)
    n = len(plain["action"])
    assert len(both["action"]) == 8 * n
    states = [s for ss, aa in played for s, a in zip(ss, aa, strict=False) if a != PASS]
    for k in range(8):
        for i in (0, n // 2, n - 1):
            moved = transform_state(k, states[i])
            o = spec.observe(moved, moved.player)
            np.testing.assert_array_equal(both["observation"][k * n + i], o["observation"])
            np.testing.assert_array_equal(both["action_mask"][k * n + i], moved.legal_mask())
            assert moved.is_legal(int(both["action"][k * n + i]))
            assert both["game"][k * n + i] == plain["game"][i]


def test_an_illegal_move_names_the_game_and_the_move() -> None:
    games, _ = _played(range(3))
    bad = Game((*games[2].moves[:4], 0), 0)  # A1 is not legal five moves in
    with pytest.raises(DatasetError, match=r"^game 3, move 5 \(A1, ply 5\): not legal"):
        games_to_arrays([games[0], games[1], bad])
    with_pass = next((g, actions) for g, (_, actions) in zip(*_played(range(60)), strict=True) if PASS in actions[:-1])
    g, actions = with_pass
    after = actions.index(PASS) + 1  # the ply after the first pass
    move = after - 1  # its index among the moves, which leave the pass out
    bad_after_pass = Game((*g.moves[:move], actions[after - 2]), 0)  # a square already taken
    with pytest.raises(DatasetError, match=rf"^game 1, move {move + 1} \(.., ply {after + 1}\): not legal"):
        games_to_arrays([bad_after_pass])
    with pytest.raises(DatasetError, match="at most 60 moves"):
        games_to_arrays([Game((64,), 0)])


def test_wthor_games_become_arrays_with_its_scores() -> None:
    games, _ = _played(range(5))
    data = pack_wtb([WthorGame(g.moves, score_of(g.moves)) for g in games], year=2024)
    read = games_from_wthor(parse_wtb(data))
    assert [g.moves for g in read] == [g.moves for g in games]
    assert [np.sign(g.disc_difference) for g in read] == [np.sign(g.disc_difference) for g in games]
    arrays = games_to_arrays(read)
    assert len(arrays["action"]) == sum(len(g.moves) for g in games)


def test_arrays_round_trip_through_a_file(tmp_path: Path) -> None:
    games, _ = _played(range(2))
    arrays = games_to_arrays(games, spec=SPECS[1])
    save_arrays(tmp_path / "d.npz", arrays)
    back = load_arrays(tmp_path / "d.npz")
    for k in ARRAYS:
        np.testing.assert_array_equal(back[k], arrays[k])
        assert back[k].dtype == arrays[k].dtype
    np.savez(tmp_path / "other.npz", x=np.zeros(3))
    with pytest.raises(DatasetError, match="not a dataset of games: no observation"):
        load_arrays(tmp_path / "other.npz")
    (tmp_path / "junk.npz").write_bytes(b"not a zip")
    with pytest.raises(DatasetError, match="cannot read"):
        load_arrays(tmp_path / "junk.npz")
