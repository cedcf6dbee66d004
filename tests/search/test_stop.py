"""``stop()``: a search ended from another thread returns soon with a legal move,
and the agent's next search is a normal one."""

from __future__ import annotations

import threading
from collections.abc import Callable

import numpy as np
import pytest
from conftest import random_game, stop_after

from agents.play.adapters import adapt
from agents.search.ladder import AlphaBetaAgent
from agents.search.mcts import MCTSAgent
from reversi_env import GameState

GAME = random_game(0)
MIDGAME = GAME[20]
PROOF = next(s for s in GAME if s.num_empty() == 22)  # MCTS spends most of a timed move proving it
ENDGAME = next(s for s in GAME if s.num_empty() == 12)  # solved exactly by both engines


SEARCHES: dict[str, tuple[Callable[[], MCTSAgent | AlphaBetaAgent], GameState]] = {
    "mcts": (lambda: MCTSAgent(time_limit=10, seed=0), MIDGAME),
    "mcts-threads": (lambda: MCTSAgent(time_limit=10, seed=0, threads=2), MIDGAME),
    "mcts-proof": (lambda: MCTSAgent(time_limit=10, seed=0), PROOF),
    "alphabeta-time": (lambda: AlphaBetaAgent(time_limit=10, seed=0), MIDGAME),
    "alphabeta-depth": (lambda: AlphaBetaAgent(20, seed=0), MIDGAME),
}


def solved(agent: MCTSAgent | AlphaBetaAgent) -> object:
    """What the agent finds in ``ENDGAME``: the exact disc difference (MCTS) or the best moves (alpha-beta)."""
    if isinstance(agent, MCTSAgent):
        return agent.search(ENDGAME).disc_difference
    return agent.best_actions(ENDGAME)


@pytest.mark.parametrize("name", SEARCHES)
def test_a_stopped_search_ends_at_once_and_the_next_one_is_whole(name: str) -> None:
    make, state = SEARCHES[name]
    agent = make()
    move, seconds = stop_after(agent, state, 0.3)
    assert move in state.legal_actions()
    assert seconds < 1.0
    # The stop ended that search only: the next one finds what a fresh agent finds.
    found = solved(agent)
    assert found is not None and found == solved(make())


def test_a_stop_when_nothing_runs_changes_nothing() -> None:
    state = MIDGAME
    agent = MCTSAgent(simulations=400, seed=0)
    agent.stop()
    agent.stop()
    result, fresh = agent.search(state), MCTSAgent(simulations=400, seed=0).search(state)
    assert result.simulations == 400 and np.array_equal(result.visits, fresh.visits)
    ladder = AlphaBetaAgent(4, seed=0)
    ladder.stop()
    assert ladder.best_actions(state) == AlphaBetaAgent(4, seed=0).best_actions(state)


class Waiting:
    """A player without a name that thinks until stopped."""

    def __init__(self) -> None:
        self.stopped = threading.Event()

    def act(self, observation: dict[str, np.ndarray]) -> int:
        self.stopped.wait(10.0)
        return int(np.flatnonzero(observation["action_mask"])[0])

    def stop(self) -> None:
        self.stopped.set()


def test_an_adapted_agent_passes_the_stop_on() -> None:
    agent = adapt(Waiting())
    assert type(agent).__name__ == "NamedAgent"
    _, seconds = stop_after(agent, GameState.initial(), 0.1)
    assert seconds < 1.0
