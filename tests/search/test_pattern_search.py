"""The learned evaluation inside alpha-beta: the search's signature, its scale and its agreement with the solver."""

from __future__ import annotations

import pytest
from conftest import random_game

from agents.search.alphabeta import new_stats, search_root
from agents.search.endgame import solve_position
from agents.search.evaluation import DISC
from agents.search.ladder import AlphaBetaAgent
from agents.search.patterns import evaluate, load_weights, pattern_evaluation, search_evaluate
from agents.search.tt import new_table
from reversi_env import BLACK, PASS, GameState
from reversi_env.observation import observe


@pytest.mark.parametrize("seed", range(5))
def test_search_evaluate_is_the_pattern_value_in_disc_units(seed: int) -> None:
    W = load_weights()
    ev = pattern_evaluation()
    for state in random_game(seed)[:-1]:
        p, o = state.kernel_boards()
        assert search_evaluate(p, o, ev.weights) == int(evaluate(p, o, W) * DISC)


def minimax(state: GameState, depth: int, flat: object) -> int:
    """Plain minimax over ``GameState`` with the learned evaluation at the leaves (a pass costs no ply)."""
    if state.is_terminal():
        diff = state.disc_difference()
        return (diff if state.player == BLACK else -diff) * DISC
    if state.legal_actions() == [PASS]:
        return -minimax(state.apply(PASS), depth, flat)
    if depth == 0:
        p, o = state.kernel_boards()
        return int(search_evaluate(p, o, flat))
    return max(-minimax(state.apply(a), depth - 1, flat) for a in state.legal_actions())


@pytest.mark.parametrize("depth", [1, 2, 3])
def test_every_root_move_scores_as_plain_minimax(depth: int) -> None:
    """The search's shortcuts (the last ply's own loop, no table near the leaves,
    ordering) change no value: positions from the opening to the last moves,
    passes and game ends included."""
    ev = pattern_evaluation()
    checked = 0
    for seed in range(6):
        for state in random_game(seed)[4::5]:
            actions = state.legal_actions()
            if state.is_terminal() or actions == [PASS]:
                continue
            p, o = state.kernel_boards()
            root = search_root(p, o, depth, actions, new_table(1 << 12), new_stats(DISC), ev, exact_all=True)
            assert root.scores == {a: -minimax(state.apply(a), depth - 1, ev.weights) for a in actions}
            checked += 1
    assert checked > 60


def test_pattern_alphabeta_finds_the_solver_best_move_when_it_reaches_the_end() -> None:
    state = random_game(11, 50)[-1]
    assert not state.is_terminal() and state.num_empty() <= 12
    p, o = state.kernel_boards()
    actions = state.legal_actions()
    root = search_root(p, o, 64, actions, new_table(1 << 16), new_stats(DISC), pattern_evaluation())
    exact = solve_position(state)
    assert exact is not None
    assert set(root.best_moves()) <= set(exact.best_actions)
    assert max(root.scores.values()) == exact.score * DISC


def test_a_timed_pattern_engine_plays_legal_moves_within_its_budget() -> None:
    agent = AlphaBetaAgent(time_limit=0.1, evaluation=pattern_evaluation(), seed=0)
    for state in random_game(4)[5:40:5]:
        action = agent.act(observe(state, state.player))
        assert action in state.legal_actions()
        assert agent.last_nodes > 0


def test_the_learned_value_guides_mcts_to_legal_moves_and_full_games() -> None:
    from agents.play.match import play_game
    from agents.search.ladder import RandomAgent
    from agents.search.mcts import MCTSAgent
    from agents.search.patterns import mcts_value

    guided = MCTSAgent(simulations=200, seed=1, heuristic=mcts_value, heuristic_weights=pattern_evaluation().weights)
    result = play_game(guided, RandomAgent(seed=2), time_limit=None)
    assert result.reason == "end" and result.winner == "black"


@pytest.mark.parametrize("seed", range(3))
def test_mcts_value_is_the_pattern_value_squashed(seed: int) -> None:
    import math

    from agents.search.patterns import MCTS_SCALE, mcts_value

    W = load_weights()
    for state in random_game(seed)[:-1]:
        p, o = state.kernel_boards()
        assert mcts_value(p, o, pattern_evaluation().weights) == pytest.approx(
            math.tanh(evaluate(p, o, W) / MCTS_SCALE)
        )
