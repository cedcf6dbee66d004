"""``MCTSConfig``: the MCTS knobs as one checked record, what the agent makes of
it and of its keywords, the record the kernels read, and the one PUCT formula."""

from __future__ import annotations

import math
from dataclasses import fields, replace

import numpy as np
import pytest
from conftest import random_game

from agents.search.mcts import TEXTBOOK_UCT, MCTSAgent
from agents.search.mcts_config import CONFIG_DTYPE, MCTSConfig
from agents.search.selection import puct_score


def test_the_record_holds_every_field_of_the_config() -> None:
    config = MCTSConfig(c=0.7, bias=0.25, mix=0.5, ply=0, minimax=0.0, endgame_proof=18, informed_playouts=False)
    record = config.record
    assert CONFIG_DTYPE.names == tuple(f.name for f in fields(MCTSConfig))
    for f in fields(MCTSConfig):
        assert record[f.name] == getattr(config, f.name), f.name


def test_knobs_that_do_nothing_read_as_off() -> None:
    # No leaf value (mix=0): no one-ply search; no guide at all: no first-play urgency, as the agent always had.
    textbook = MCTSConfig(**TEXTBOOK_UCT)  # type: ignore[arg-type]
    assert (textbook.ply, textbook.fpu, textbook.guided) == (0, False, False)
    assert MCTSConfig(mix=0.0).ply == 0 and MCTSConfig(mix=0.0).fpu  # minimax still asks for the static value
    assert MCTSConfig().guided and MCTSConfig().ply == 1


@pytest.mark.parametrize(
    "knobs",
    [
        {"c": 0},
        {"c": math.inf},
        {"c": "1"},
        {"bias": -1.0},
        {"bias": math.inf},
        {"mix": 1.5},
        {"mix": math.nan},
        {"minimax": -0.1},
        {"ply": 2},
        {"ply": True},
        {"fpu": 1},
        {"endgame_exact": 1.5},
        {"endgame_proof": 61},
        {"max_nodes": 0},
        {"max_nodes": 2**31},
    ],
)
def test_bad_knobs_are_refused_by_name(knobs: dict[str, object]) -> None:
    [name] = knobs
    with pytest.raises(ValueError, match=f"^{name} must be"):
        MCTSConfig(**knobs)  # type: ignore[arg-type]


def test_numpy_numbers_become_python_ones() -> None:
    config = MCTSConfig(c=np.float32(0.25), max_nodes=np.int64(5000), ply=np.int64(0), fpu=np.bool_(True))
    assert (type(config.c), type(config.max_nodes), type(config.ply), type(config.fpu)) == (float, int, int, bool)


def test_the_agent_takes_a_config_or_its_keywords_alike() -> None:
    state = random_game(4, plies=20)[-1]
    knobs = {"c": 0.8, "mix": 0.6, "ply": 0, "minimax": 0.25}
    by_keywords = MCTSAgent(simulations=800, seed=5, endgame_exact=0, **knobs)  # type: ignore[arg-type]
    config = MCTSConfig(endgame_exact=0, **knobs)  # type: ignore[arg-type]
    by_config = MCTSAgent(simulations=800, seed=5, config=config)
    assert by_keywords.config == by_config.config == config
    a, b = by_keywords.search(state), by_config.search(state)
    assert a.action == b.action and np.array_equal(a.visits, b.visits)


def test_a_knob_given_twice_is_refused() -> None:
    with pytest.raises(ValueError, match="not both: c, mix"):
        MCTSAgent(simulations=10, c=0.9, mix=0.5, config=MCTSConfig())
    with pytest.raises(TypeError, match="config must be an MCTSConfig"):
        MCTSAgent(simulations=10, config={"c": 1.0})  # type: ignore[arg-type]
    assert MCTSAgent(simulations=10, c=0.5, config=MCTSConfig(c=2.0)).c == 2.0  # a default is not a second value


def test_setting_a_knob_attribute_makes_a_new_checked_config() -> None:
    agent = MCTSAgent(simulations=10)
    agent.mix = 0.25
    assert agent.config == replace(MCTSConfig(), mix=0.25) and agent.config.record["mix"] == 0.25
    agent.informed = False
    assert agent.config.informed_playouts is False
    with pytest.raises(ValueError, match="mix must be"):
        agent.mix = 2.0
    assert agent.mix == 0.25
    assert MCTSAgent.mix == MCTSConfig.mix and MCTSAgent.informed is MCTSConfig.informed_playouts  # the defaults


def test_puct_score_is_the_mean_plus_the_prior_scaled_exploration() -> None:
    # Q + c * P * sqrt(N_parent) / (1 + N): with 2 visits worth 1.0 in all, Q = 0.5.
    assert puct_score(1.0, 2, 0.5, 1.5, 2.0) == pytest.approx(0.5 + 1.5 * 0.5 * 2.0 / 3.0)
    assert puct_score(0.0, 0, 0.25, 2.0, 3.0) == pytest.approx(2.0 * 0.25 * 3.0)  # unvisited: no mean yet
