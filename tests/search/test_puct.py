"""PUCT search: finds forced wins with no knowledge, batches without changing the
tree, keeps virtual losses and budgets straight, and the Gumbel root option."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import random_game

from agents.search.endgame import solve_position
from agents.search.evaluation import BatchEvaluator, UniformEvaluator
from agents.search.puct import PUCTConfig, PUCTTree, run_searches, search
from reversi_env import GameState
from reversi_env.bitboard import legal_moves


class HashEvaluator:
    """A deterministic evaluator with uneven priors and values (a stand-in for a
    network that is not uniform), computed from the position alone."""

    def evaluate(self, mover: np.ndarray, opponent: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        keys = (mover.astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15)) ^ opponent.astype(np.uint64)
        rows = np.array([np.random.default_rng(int(k)).random(66) for k in keys]).reshape(len(keys), 66)
        return rows[:, :65].astype(np.float32), (2 * rows[:, 65] - 1).astype(np.float32)


class OneAtATime:
    """Wraps an evaluator so that every position is evaluated in a call of its own."""

    def __init__(self, inner: BatchEvaluator) -> None:
        self.inner = inner

    def evaluate(self, mover: np.ndarray, opponent: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        parts = [self.inner.evaluate(mover[i : i + 1], opponent[i : i + 1]) for i in range(len(mover))]
        return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])


def forced_wins(count: int, empties: int) -> list[tuple[GameState, int]]:
    """Positions from random games with exactly one winning move, and that move
    (proved by the exact endgame solver, move by move)."""
    found = []
    for seed in range(500):
        game = random_game(seed)
        candidates = [s for s in game if s.num_empty() == empties and not s.is_terminal()]
        for state in candidates:
            legal = state.legal_actions()
            if len(legal) < 3:
                continue
            results = {}
            for a in legal:
                child = state.apply(a)
                solution = solve_position(child)
                assert solution is not None
                sign = 1 if child.player == state.player else -1
                results[a] = sign * solution.score
            winners = [a for a, r in results.items() if r > 0]
            if len(winners) == 1:
                found.append((state, winners[0]))
        if len(found) >= count:
            return found
    raise AssertionError("not enough positions with a single winning move")


# Gumbel halving drops candidates after few visits: with no prior it needs a smaller tree.
@pytest.mark.parametrize(("gumbel", "empties"), [(False, 7), (True, 5)])
def test_forced_win_found_with_a_uniform_prior(gumbel: bool, empties: int) -> None:
    for state, winner in forced_wins(4, empties):
        p, o = state.kernel_boards()
        config = PUCTConfig(simulations=3000, batch_size=8, gumbel=gumbel)
        result = search(p, o, UniformEvaluator(), config, seed=1)
        assert result.action == winner, f"{state}\nexpected {winner}, got {result.action}: {result.visits}"
        assert result.q[winner] > 0


def test_searching_several_trees_together_gives_each_tree_searched_alone() -> None:
    states = [random_game(seed, plies=12 + 7 * seed)[-1] for seed in range(3)]
    config = PUCTConfig(simulations=300, batch_size=8, dirichlet_alpha=0.5)
    alone = []
    for i, s in enumerate(states):
        tree = PUCTTree(*s.kernel_boards(), config, np.random.default_rng(i))
        run_searches([tree], HashEvaluator())
        alone.append(tree)
    together = [PUCTTree(*s.kernel_boards(), config, np.random.default_rng(i)) for i, s in enumerate(states)]
    calls = run_searches(together, HashEvaluator())
    assert calls < sum(
        run_searches([PUCTTree(*s.kernel_boards(), config, np.random.default_rng(0))], HashEvaluator()) for s in states
    )
    for a, b in zip(alone, together, strict=True):
        assert a.count == b.count
        np.testing.assert_array_equal(a.tree[: a.count], b.tree[: b.count])


def test_batched_evaluation_gives_the_tree_of_one_at_a_time_evaluation() -> None:
    state = random_game(5, plies=20)[-1]
    config = PUCTConfig(simulations=400, batch_size=16)
    batched = PUCTTree(*state.kernel_boards(), config, np.random.default_rng(3))
    single = PUCTTree(*state.kernel_boards(), config, np.random.default_rng(3))
    run_searches([batched], HashEvaluator())
    run_searches([single], OneAtATime(HashEvaluator()))
    np.testing.assert_array_equal(batched.tree[: batched.count], single.tree[: single.count])


def test_a_batch_holds_distinct_leaves_and_virtual_losses_are_cleared() -> None:
    state = GameState.initial().apply("D3").apply("C5")
    tree = PUCTTree(*state.kernel_boards(), PUCTConfig(simulations=100, batch_size=8), np.random.default_rng(0))
    evaluator = HashEvaluator()
    root = tree.gather()
    tree.expand(root, *evaluator.evaluate(*tree.positions(root)))
    leaves = tree.gather()
    assert len(leaves) > 1 and len(set(leaves.tolist())) == len(leaves)
    assert tree.tree[0]["virtual"] == len(leaves)
    tree.expand(leaves, *evaluator.evaluate(*tree.positions(leaves)))
    assert (tree.tree["virtual"][: tree.count] == 0).all()
    assert tree.tree[0]["visits"] == 1 + len(leaves) == tree.simulations


def test_budget_priors_and_noise() -> None:
    state = GameState.initial()
    p, o = state.kernel_boards()
    plain = search(p, o, HashEvaluator(), PUCTConfig(simulations=200), seed=0)
    noisy = search(p, o, HashEvaluator(), PUCTConfig(simulations=200, dirichlet_alpha=0.3), seed=0)
    assert plain.simulations == noisy.simulations == 200
    assert plain.visits.sum() == 199  # every simulation but the root's own evaluation passes a root child
    assert set(np.flatnonzero(plain.visits)) <= set(state.legal_actions())
    assert plain.policy.sum() == pytest.approx(1.0)
    assert not np.array_equal(plain.visits, noisy.visits)


def test_gumbel_spends_the_budget_on_few_candidates() -> None:
    p, o = random_game(2, plies=16)[-1].kernel_boards()
    result = search(p, o, HashEvaluator(), PUCTConfig(simulations=64, gumbel=True, max_considered=4), seed=0)
    assert result.simulations == 64
    assert 1 <= np.count_nonzero(result.visits) <= 4
    assert result.visits[result.action] >= np.sort(result.visits)[-2]  # one of the last two survivors
    assert result.policy.sum() == pytest.approx(1.0)


def test_forced_pass_and_finished_game() -> None:
    # A position where the mover has no placement: the only child is PASS.
    state = next(s for seed in range(200) for s in random_game(seed) if s.legal_actions() == [64])
    p, o = state.kernel_boards()
    assert legal_moves(p, o) == 0
    assert search(p, o, HashEvaluator(), PUCTConfig(simulations=20), seed=0).action == 64
    final = random_game(0)[-1]
    with pytest.raises(ValueError, match="finished"):
        search(*final.kernel_boards(), UniformEvaluator(), PUCTConfig(simulations=10))
