"""MCTS guided by a static value: the one-ply search at the leaves (``ply=1``),
the value as first-play urgency (``fpu``), the learned pattern value, and the
spec options that select them. Seeds and simulation counts only."""

from __future__ import annotations

import math

import numpy as np
import pytest
from conftest import random_game
from numba import njit
from test_endgame import brute_force, endgame_positions

from agents.search.mcts import TEXTBOOK_UCT, MCTSAgent
from agents.search.mcts_tree import DRAW, LOSS, WIN
from agents.search.patterns import mcts_value, pattern_evaluation
from reversi_env import GameState
from reversi_env.bitboard import U1, popcount

C4 = 26
DISC_SCALE = np.array([10.0], np.float32)


@njit
def disc_share(p: np.uint64, o: np.uint64, weights: np.ndarray) -> float:
    """A crude static value: the mover's disc lead, squashed by ``weights[0]``."""
    return math.tanh((np.float64(popcount(p)) - np.float64(popcount(o))) / weights[0])


@njit
def c4_owner_value(p: np.uint64, o: np.uint64, weights: np.ndarray) -> float:
    """+1 for the player to move if he owns C4, -1 if the opponent does, else 0."""
    bit = U1 << np.uint64(C4)
    return 1.0 if p & bit else (-1.0 if o & bit else 0.0)


def share(state: GameState) -> float:
    """``disc_share`` of a state for its player to move, computed from the planes in Python."""
    planes = state.planes()
    return math.tanh((float(planes[..., 0].sum()) - float(planes[..., 1].sum())) / 10.0)


def test_one_ply_leaf_value_is_the_best_reply() -> None:
    # One simulation from a midgame position: the root child it visits is valued by a
    # one-ply search, minus the best value the opponent can reach from there.
    state = random_game(5, plies=14)[-1]
    agent = MCTSAgent(
        simulations=1, seed=0, mix=1.0, ply=1, bias=0.0, heuristic=disc_share, heuristic_weights=DISC_SCALE
    )
    result = agent.search(state)
    (visited,) = np.flatnonzero(result.visits)
    child = state.apply(result.actions[visited])
    replies = [-share(child.apply(a)) for a in child.legal_actions()]
    assert result.values[visited] == pytest.approx(-max(replies), abs=1e-6)
    # At ply 0 the same simulation values the child by its own static value.
    flat = MCTSAgent(
        simulations=1, seed=0, mix=1.0, bias=1.0, ply=0, minimax=0.0, heuristic=disc_share, heuristic_weights=DISC_SCALE
    )
    result = flat.search(state)
    (visited,) = np.flatnonzero(result.visits)
    assert result.values[visited] == pytest.approx(-share(state.apply(result.actions[visited])), abs=1e-6)


def test_fpu_tries_the_valued_children_only() -> None:
    # The start position: C4 is the only opening the value likes (it owns C4).
    knobs = {
        "simulations": 8,
        "seed": 0,
        "mix": 1.0,
        "bias": 1.0,
        "ply": 0,
        "minimax": 0.0,
        "heuristic": c4_owner_value,
    }
    urgent = MCTSAgent(fpu=True, **knobs).search(GameState.initial())
    assert urgent.action == C4
    assert urgent.visits.min() == 0  # the openings valued 0 wait while C4 keeps its value
    every = MCTSAgent(fpu=False, **knobs).search(GameState.initial())
    assert every.action == C4
    assert every.visits.min() >= 1  # without it every child is tried once first


@pytest.mark.parametrize("ply", [0, 1])
@pytest.mark.parametrize("empties", [5, 7])
def test_pattern_guided_search_finds_the_best_outcome(ply: int, empties: int) -> None:
    weights = pattern_evaluation().weights
    for state in endgame_positions(empties, 4):
        if len(state.legal_actions()) < 2:
            continue
        agent = MCTSAgent(
            simulations=20_000, seed=1, endgame_exact=0, mix=1.0, ply=ply, fpu=True,
            heuristic=mcts_value, heuristic_weights=weights,
        )  # fmt: skip
        result = agent.search(state)
        best = brute_force(state)
        assert np.sign(-brute_force(state.apply(result.action))) == np.sign(best), str(state)
        if best != 0:
            assert result.proven == ("win" if best > 0 else "loss"), str(state)


def test_guided_search_is_reproducible() -> None:
    state = random_game(7, plies=16)[-1]
    knobs = {"simulations": 3000, "mix": 0.5, "ply": 1, "fpu": True}
    a = MCTSAgent(seed=3, **knobs).search(state)  # type: ignore[arg-type]
    b = MCTSAgent(seed=3, **knobs).search(state)  # type: ignore[arg-type]
    np.testing.assert_array_equal(a.visits, b.visits)
    np.testing.assert_array_equal(a.values, b.values)
    assert a.principal_variation == b.principal_variation


@pytest.mark.parametrize("bad", [{"ply": 2}, {"ply": -1}, {"ply": True}, {"ply": 1.0}, {"fpu": 1}])
def test_bad_ply(bad: dict[str, object]) -> None:
    with pytest.raises(ValueError, match=r"ply|fpu"):
        MCTSAgent(simulations=10, **bad)  # type: ignore[arg-type]


def test_minimax_backups_keep_every_node_at_its_best_reply() -> None:
    # After a search with implicit minimax backups, the prior of every expanded node
    # (the root aside) is minus the best of its children's: proven children count
    # their result, the others their prior.
    state = random_game(9, plies=20)[-1]
    agent = MCTSAgent(
        simulations=2000, seed=0, mix=1.0, minimax=0.5, heuristic=disc_share, heuristic_weights=DISC_SCALE
    )
    agent.search(state)
    tree = agent._trees[0]
    nodes = tree.nodes[: tree.size]
    proven = {WIN: 1.0, LOSS: -1.0, DRAW: 0.0}
    checked = 0
    for i in range(1, tree.size):
        node = nodes[i]
        if node["first"] < 0 or node["nchild"] == 0:
            continue
        kids = nodes[node["first"] : node["first"] + node["nchild"]]
        best = max(proven.get(int(k["status"]), float(k["prior"])) for k in kids)
        assert node["prior"] == np.float32(-best)
        checked += 1
    assert checked > 100
    # Without it the priors stay the static values of the children.
    plain = MCTSAgent(
        simulations=2000, seed=0, mix=1.0, minimax=0.0, heuristic=disc_share, heuristic_weights=DISC_SCALE
    )
    plain.search(state)
    child = plain._trees[0].nodes[1]
    after = state.apply(int(child["move"]))
    assert child["prior"] == np.float32(-share(after))


@njit
def poisoned(p: np.uint64, o: np.uint64, weights: np.ndarray) -> float:
    """0 at the start position (where the agent checks it), NaN anywhere else."""
    return 0.0 if popcount(p | o) == 4 else math.nan


def test_textbook_uct_never_asks_the_heuristic() -> None:
    state = random_game(3, plies=10)[-1]
    textbook = MCTSAgent(simulations=2000, seed=0, heuristic=poisoned, **TEXTBOOK_UCT).search(state)  # type: ignore[arg-type]
    assert np.all(np.isfinite(textbook.values)) and textbook.visits.sum() == 2000
    guided = MCTSAgent(simulations=2000, seed=0, heuristic=poisoned).search(state)
    assert not np.all(np.isfinite(guided.values))  # the default search does ask it
