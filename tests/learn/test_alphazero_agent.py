"""The ``alphazero`` player: the shipped network plays whole legal games through
the spec strings, with search or by its raw policy, and torch stays unloaded
for every other player."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
from conftest import REPO_ROOT, stop_after

from agents.learn.alphazero_agent import AlphaZeroAgent
from agents.learn.network import SHIPPED_NETWORK, NetConfig, PolicyValueNet, load_network, save_network
from agents.play.match import play_game
from agents.play.specs import SpecError, make_agent
from reversi_env import GameState
from reversi_env.observation import observe

# One torch thread: on a busy shared machine two threads fighting over a core are many times slower.
torch.set_num_threads(1)


def replay(moves: list[str]) -> GameState:
    state = GameState.initial()
    for move in moves:
        state = state.apply(move)  # checked: raises on an illegal move
    return state


@pytest.mark.parametrize("spec", ["alphazero:sims=0", "alphazero:sims=24,seed=1", "alphazero:time=0.02"])
def test_the_shipped_network_plays_full_legal_games(spec: str) -> None:
    for black, white in ((spec, "random:seed=3"), ("greedy", spec)):
        result = play_game(black, white, time_limit=None)
        assert result.reason == "end"
        assert replay(result.moves).is_terminal()


def test_another_network_by_path(tmp_path: Path) -> None:
    torch.manual_seed(0)
    path = tmp_path / "tiny.pt"
    save_network(path, PolicyValueNet(NetConfig(8, 1)))
    agent = make_agent(f"alphazero:net={path},sims=8")
    assert isinstance(agent, AlphaZeroAgent) and agent.evaluator.net.config == NetConfig(8, 1)
    result = play_game(agent, "alphazero:sims=0", time_limit=None)
    assert result.reason == "end" and replay(result.moves).is_terminal()


def test_the_raw_policy_plays_the_networks_favourite_move() -> None:
    net, _ = load_network(SHIPPED_NETWORK)
    agent = AlphaZeroAgent(simulations=0)
    state = GameState.initial().apply("D3")
    action = agent.act({"observation": state.planes(state.player), "action_mask": state.legal_mask()})
    mover, opponent = state.kernel_boards()
    priors, _ = agent.evaluator.evaluate(np.array([mover]), np.array([opponent]))
    assert action == int(priors[0].argmax())
    assert net.config == agent.evaluator.net.config


@pytest.mark.parametrize(
    ("spec", "needle"),
    [
        ("alphazero:sims=-1", ">= 0"),
        ("alphazero:sims=0,time=1", "one budget"),
        ("alphazero:net=", "needs a value"),
        ("alphazero:depth=3", "unknown option"),
        ("alphazero:net=/no/such/net.pt", "no such network"),
    ],
)
def test_bad_alphazero_specs_are_clear_errors(spec: str, needle: str) -> None:
    with pytest.raises(SpecError, match=needle):
        make_agent(spec)


@pytest.mark.parametrize(
    ("settings", "needle"),
    [
        ({"simulations": 1.5}, "simulations must be an int"),
        ({"simulations": True}, "simulations must be an int"),
        ({"simulations": "5"}, "simulations must be an int"),
        ({"time_limit": float("inf")}, "time_limit must be a positive number"),
        ({"time_limit": "1"}, "time_limit must be a positive number"),
        ({"batch_size": 0}, "batch_size must be an int >= 1"),
        ({"seed": -1}, "seed must be a non-negative int"),
        ({"seed": 1.5}, "seed must be a non-negative int"),
        ({"device": "gpu9"}, "unknown torch device 'gpu9'"),
    ],
)
def test_bad_settings_are_value_errors_naming_the_setting(settings: dict[str, object], needle: str) -> None:
    """Each was built and failed at the first move (or failed with numpy's or torch's words)."""
    with pytest.raises(ValueError, match=needle):
        AlphaZeroAgent(**settings)  # type: ignore[arg-type]
    if "seed" in settings:  # the CLI's --seed reaches the agent through make_agent
        with pytest.raises(SpecError, match=needle):
            make_agent("alphazero:sims=0", seed=settings["seed"])  # type: ignore[arg-type]


def test_other_players_do_not_import_torch() -> None:
    code = (
        "import sys; from agents.ui.cli import build_parser; from agents.play.specs import make_agent; "
        "build_parser(); make_agent('greedy'); make_agent('mcts:sims=10'); print('torch' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO_ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_a_stop_between_moves_changes_nothing_and_a_stopped_timed_search_ends_at_once() -> None:
    state = GameState.initial().apply("F5")
    idle = AlphaZeroAgent(simulations=24, seed=1)
    idle.stop()
    observation = observe(state, state.player)
    assert idle.act(observation) == AlphaZeroAgent(simulations=24, seed=1).act(observation)
    move, seconds = stop_after(AlphaZeroAgent(time_limit=10.0, seed=1), state, 0.3)
    assert move in state.legal_actions() and seconds < 1.0
