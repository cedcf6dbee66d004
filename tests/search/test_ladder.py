"""The baseline ladder: each agent's choice on positions where it is known,
seeded tie-breaking, the alpha-beta ladder's strength order, bad input."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import random_game
from test_endgame import brute_force

from agents import Agent, play_game
from agents.search.alphabeta import MAX_ENDGAME_EXACT
from agents.search.ladder import (
    MAX_LEVEL,
    AlphaBetaAgent,
    GreedyAgent,
    PositionalAgent,
    RandomAgent,
    ladder_agent,
)
from reversi_env import PASS, GameState, InvalidPositionError, parse_square
from reversi_env.observation import observe

ALL_AGENTS = [
    lambda: RandomAgent(seed=1),
    lambda: GreedyAgent(seed=1),
    lambda: PositionalAgent(seed=1),
    lambda: AlphaBetaAgent(2, seed=1),
    lambda: ladder_agent(1, seed=1),
]


def obs(state: GameState) -> dict[str, np.ndarray]:
    return observe(state, state.player)


@pytest.mark.parametrize("make", ALL_AGENTS)
def test_agents_play_legal_moves_through_a_game(make) -> None:  # type: ignore[no-untyped-def]
    agent = make()
    assert isinstance(agent, Agent)
    for state in random_game(3)[:-1]:
        assert state.is_legal(agent.act(obs(state)))


@pytest.mark.parametrize("make", ALL_AGENTS)
def test_forced_pass_is_played(make) -> None:  # type: ignore[no-untyped-def]
    state = GameState.from_string("OX" + "." * 62 + " X")
    assert state.legal_actions() == [PASS]
    assert make().act(obs(state)) == PASS


def test_greedy_takes_the_most_flips() -> None:
    for state in random_game(5)[1:40]:
        if state.legal_actions() == [PASS]:
            continue
        most = max(len(state.flipped(a)) for a in state.legal_actions())
        assert len(state.flipped(GreedyAgent(seed=0).act(obs(state)))) == most


def test_positional_prefers_a_corner() -> None:
    # X may take the corner A1 (flanking B1) or E5 (flanking E4); the corner weighs 100.
    cells = ["."] * 64
    for sq, mark in (("B1", "O"), ("C1", "X"), ("E3", "X"), ("E4", "O")):
        cells[parse_square(sq)] = mark
    state = GameState.from_string("".join(cells) + " X")
    assert state.legal_actions() == [parse_square("A1"), parse_square("E5")]
    assert PositionalAgent(seed=0).act(obs(state)) == parse_square("A1")
    assert AlphaBetaAgent(1, seed=0).act(obs(state)) == parse_square("A1")


def test_ties_are_broken_by_the_seed() -> None:
    start = obs(GameState.initial())
    # Greedy: all four openings flip one disc, so the choice is the RNG's.
    picks = {GreedyAgent(seed=s).act(start) for s in range(40)}
    assert picks == {19, 26, 37, 44}
    assert [GreedyAgent(seed=9).act(start) for _ in range(3)] == [GreedyAgent(seed=9).act(start) for _ in range(3)]
    a, b = RandomAgent(seed=4), RandomAgent(seed=4)
    states = random_game(8)[:-1]
    assert [a.act(obs(s)) for s in states] == [b.act(obs(s)) for s in states]


def test_alphabeta_finds_the_exact_endgame_move() -> None:
    for seed in range(6):
        state = next(s for s in random_game(seed) if s.num_empty() == 7 and not s.is_terminal())
        if state.legal_actions() == [PASS]:
            continue
        best = brute_force(state)
        move = AlphaBetaAgent(1, seed=0).act(obs(state))  # 7 empties <= exact_empties (7)
        assert -brute_force(state.apply(move)) == best


def test_alphabeta_best_actions_are_the_ties() -> None:
    # The start is symmetric: all four openings are equally good at any depth.
    assert AlphaBetaAgent(3, seed=0).best_actions(GameState.initial()) == [19, 26, 37, 44]


def test_deeper_alphabeta_wins_the_match() -> None:
    deep, shallow = AlphaBetaAgent(4, seed=1), AlphaBetaAgent(1, seed=2)
    score = 0.0
    for game in range(4):
        black, white = (deep, shallow) if game % 2 == 0 else (shallow, deep)
        result = play_game(black, white, time_limit=None)
        margin = result.disc_difference if black is deep else -result.disc_difference
        score += 1.0 if margin > 0 else (0.5 if margin == 0 else 0.0)
    assert score >= 3


def test_numpy_numbers_are_budgets_as_in_mcts() -> None:
    """A time swept with numpy (``np.arange``, ``np.float32``) is taken, as ``MCTSAgent`` takes it."""
    assert AlphaBetaAgent(time_limit=np.int64(2)).time_limit == 2.0
    assert AlphaBetaAgent(time_limit=np.float32(0.5)).time_limit == 0.5
    assert AlphaBetaAgent(game_time=np.int64(60)).clock is not None
    assert AlphaBetaAgent(2, selectivity=np.float32(1.5)).selectivity == 1.5


def test_ladder_levels() -> None:
    for level in range(1, MAX_LEVEL + 1):
        agent = ladder_agent(level, seed=0)
        assert agent.depth == level
        assert agent.name == f"level-{level}"


def test_bad_input() -> None:
    for bad_seed in (-1, 1.5, "7", True):
        with pytest.raises(ValueError, match="seed"):
            RandomAgent(seed=bad_seed)  # type: ignore[arg-type]
    for bad_depth in (0, -2, 21, 2.0, "3", True):
        with pytest.raises(ValueError, match="depth"):
            AlphaBetaAgent(bad_depth)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="exact_empties"):
        AlphaBetaAgent(2, exact_empties=-1)
    with pytest.raises(ValueError, match=f"exact_empties must be an int from 0 to {MAX_ENDGAME_EXACT} "):
        AlphaBetaAgent(2, exact_empties=MAX_ENDGAME_EXACT + 1)  # 60 waited for a whole game's solve
    assert AlphaBetaAgent(2, exact_empties=MAX_ENDGAME_EXACT).exact_empties == MAX_ENDGAME_EXACT
    for bad_time in (0, -1, float("nan"), float("inf"), "1", True):
        for budget in ("time_limit", "game_time"):
            with pytest.raises(ValueError, match=budget):
                AlphaBetaAgent(**{budget: bad_time})  # type: ignore[arg-type]
    for bad_level in (0, MAX_LEVEL + 1, "2", None):
        with pytest.raises(ValueError, match="level"):
            ladder_agent(bad_level)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="GameState"):
        GreedyAgent().best_actions("start")  # type: ignore[arg-type]
    start = GameState.initial()
    bad_observations = [
        {"observation": np.zeros((8, 8)), "action_mask": start.legal_mask()},  # wrong shape
        {"action_mask": start.legal_mask()},  # no planes
        {"observation": start.planes(), "action_mask": np.zeros(65, np.int8)},  # not my turn
        {"observation": start.planes(), "action_mask": np.ones(65, np.int8)},  # mask disagrees
        {"observation": start.planes()},  # no mask
        "D3",
    ]
    for agent in (RandomAgent(seed=0), GreedyAgent(seed=0), PositionalAgent(seed=0), AlphaBetaAgent(2, seed=0)):
        for bad in bad_observations:
            with pytest.raises(InvalidPositionError):
                agent.act(bad)  # type: ignore[arg-type]
