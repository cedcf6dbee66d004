"""The warm-start labels: exact where the search reaches the end, the value a
blend of the final result and the search's verdict, reproducible from a seed."""

from __future__ import annotations

import numpy as np
import pytest

from agents.learn.alphazero import AZConfig
from agents.learn.supervised import labelled_game, labelled_positions
from agents.search.endgame import solve_position
from reversi_env import GameState


def _game(value_mix: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    s = labelled_game(2, 0.1, np.random.default_rng(7), exact_empties=10, value_mix=value_mix)
    return s.mover, s.opponent, s.policy, s.value


def test_endgame_labels_are_the_solvers_best_moves_and_result() -> None:
    mover, opponent, policy, value = _game(0.0)
    late = [i for i, (p, o) in enumerate(zip(mover, opponent, strict=True)) if 64 - (int(p) | int(o)).bit_count() <= 10]
    assert len(late) >= 8
    for i in late:
        solution = solve_position(GameState.from_kernel(mover[i], opponent[i], 0))
        assert solution is not None
        assert set(np.flatnonzero(policy[i])) == set(solution.best_actions)
        assert value[i] == np.sign(solution.score)


def test_the_value_blends_the_final_result_with_the_search() -> None:
    results, searched, half = _game(1.0), _game(0.0), _game(0.5)
    for a, b in zip(results[:3], searched[:3], strict=True):
        np.testing.assert_array_equal(a, b)  # the same game whatever the value target
    z, v = results[3], searched[3]
    assert set(np.unique(z)) <= {-1.0, 0.0, 1.0}
    assert len(set(np.abs(z))) == 1  # one result, seen from either side
    early = v[:20]
    assert np.all(np.abs(early) < 1) and len(set(early)) > 10  # predicted margins, not results
    np.testing.assert_allclose(half[3], (z + v) / 2, atol=1e-6)


def test_labelled_positions_are_reproducible_from_a_seed() -> None:
    a = labelled_positions(150, depth=2, seed=3)
    b = labelled_positions(150, depth=2, seed=3)
    c = labelled_positions(150, depth=2, seed=4)
    assert len(a) >= 150
    np.testing.assert_array_equal(a.mover, b.mover)
    np.testing.assert_array_equal(a.value, b.value)
    assert not np.array_equal(a.mover[: len(c)], c.mover[: len(a)])
    np.testing.assert_allclose(a.policy.sum(axis=1), 1.0, atol=1e-6)


@pytest.mark.parametrize(
    ("options", "needle"),
    [
        ({"warm_value_mix": 1.5}, "warm_value_mix"),
        ({"device": "foo"}, "unknown torch device"),
        ({"device": "mps"}, "only cpu and cuda"),
    ],
)
def test_bad_warm_start_and_device_options_are_refused(options: dict[str, object], needle: str) -> None:
    with pytest.raises(ValueError, match=needle):
        AZConfig(**options)  # type: ignore[arg-type]
