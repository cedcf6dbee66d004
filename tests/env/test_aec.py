"""The PettingZoo AEC env: PettingZoo's own checkers, observations against GameState, passes, the end, bad input."""

from __future__ import annotations

import copy
import os
import pickle
import subprocess
import sys
from typing import Any

import gymnasium
import numpy as np
import pettingzoo
import pytest
from gymnasium.spaces import Discrete
from pettingzoo.test import api_test, parallel_api_test, render_test, seed_test
from pettingzoo.utils import wrappers
from pettingzoo.utils.conversions import turn_based_aec_to_parallel

import reversi_env
from reversi_env import GameState, IllegalMoveError, InvalidMoveError, env, raw_env
from reversi_env.aec import AGENTS
from reversi_env.notation import PASS, parse_square

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")

BLACK_AGENT, WHITE_AGENT = AGENTS
AGENTS_LIST = list(AGENTS)


def _random_state(rng: np.random.Generator, want: Any, tries: int = 2000) -> tuple[GameState, GameState, int]:
    """A (previous state, action, next state) from seeded random games where ``want(next)`` holds."""
    for _ in range(tries):
        s = GameState.initial()
        while not s.is_terminal():
            a = int(rng.choice(s.legal_actions()))
            nxt = s.apply(a)
            if want(nxt):
                return s, nxt, a
            s = nxt
    raise AssertionError("no such position found")


# -- PettingZoo's checkers -----------------------------------------------------


def test_api_test() -> None:
    api_test(env(), num_cycles=1000)


def test_api_test_with_truncation() -> None:
    api_test(env(max_moves=7), num_cycles=1000)


def test_seed_test() -> None:
    seed_test(env, 500)


def test_parallel_api_test() -> None:
    parallel_api_test(turn_based_aec_to_parallel(env()), num_cycles=1000)


def test_render_test() -> None:
    render_test(env)


def test_registered_with_pettingzoo() -> None:
    e = pettingzoo.make("aec", reversi_env.AEC_ENV_ID, max_moves=3)
    assert str(e) == "reversi_v0"
    assert e.unwrapped.max_moves == 3
    api_test(e, num_cycles=100)


def test_metadata_and_spaces() -> None:
    e = env()
    assert str(e) == "reversi_v0"
    assert e.metadata["name"] == "reversi_v0"
    assert set(e.metadata["render_modes"]) == {"human", "ansi", "rgb_array"}
    assert e.metadata["is_parallelizable"] is False
    e.reset()
    assert e.possible_agents == ["black_0", "white_0"]
    assert e.agent_selection == "black_0"
    for agent in e.possible_agents:
        assert e.observation_space(agent) is e.observation_space(agent)
        assert e.action_space(agent) is e.action_space(agent)
        assert e.action_space(agent).n == 65
        obs = e.observe(agent)
        assert obs["observation"].dtype == np.int8 and obs["observation"].shape == (8, 8, 2)
        assert obs["action_mask"].dtype == np.int8 and obs["action_mask"].shape == (65,)
        assert obs in e.observation_space(agent)


def test_pickle_round_trip() -> None:
    e = env(render_mode="ansi", max_moves=9)
    e.reset()
    e.step(parse_square("D3"))
    clone = pickle.loads(pickle.dumps(e))
    assert str(clone) == "reversi_v0"
    assert clone.unwrapped.max_moves == 9 and clone.unwrapped.render_mode == "ansi"
    clone.reset()
    clone.step(parse_square("D3"))
    for agent in AGENTS:
        np.testing.assert_array_equal(clone.observe(agent)["observation"], e.observe(agent)["observation"])


@pytest.mark.parametrize("how", ["pickle", "deepcopy"])
@pytest.mark.parametrize("make", [env, raw_env])
def test_a_copy_keeps_the_game_and_goes_on_alone(how: str, make: Any) -> None:
    """A pickled or deep-copied env mid-game is that game (EzPickle alone gave an
    env that was never reset, which a wrapped env then failed to read)."""
    e = make(render_mode="ansi", max_moves=30)
    e.reset(seed=4)
    for square in ("D3", "C5", "F6"):
        e.step(parse_square(square))
    clone = pickle.loads(pickle.dumps(e)) if how == "pickle" else copy.deepcopy(e)
    assert clone.unwrapped.state == e.unwrapped.state and clone.unwrapped is not e.unwrapped
    assert clone.agent_selection == e.agent_selection == WHITE_AGENT
    assert clone.unwrapped._num_moves == 3 and clone.unwrapped.max_moves == 30
    assert clone.unwrapped.np_random.integers(1 << 30) == e.unwrapped.np_random.integers(1 << 30)
    assert clone.render() == e.render()  # the last move is kept too
    reply = e.unwrapped.state.legal_actions()[0]
    clone.step(reply)  # the clone plays on; the original does not move
    assert e.unwrapped.state == GameState.initial().apply("D3").apply("C5").apply("F6")
    assert clone.unwrapped.state == e.unwrapped.state.apply(reply)
    assert e.rewards is not clone.rewards and e.infos is not clone.infos


def test_a_copy_of_a_finished_game_reports_its_end() -> None:
    e = env()
    e.reset(options={"state": GameState.from_string("X" * 63 + ". O")})
    clone = copy.deepcopy(e)
    assert clone.agent_selection == WHITE_AGENT and clone.last()[1:3] == (-1, True)
    assert clone._cumulative_rewards == {BLACK_AGENT: 1, WHITE_AGENT: -1}
    for agent in clone.agent_iter():
        assert clone.terminations[agent]
        clone.step(None)
    assert clone.agents == [] and e.agents == AGENTS_LIST


def test_pettingzoo_global_state_is_not_provided_and_says_so() -> None:
    """PettingZoo's optional ``state()`` method: the wrappers (and the parallel
    conversion) raise NotImplementedError naming ``env.unwrapped.state``, as envs
    without one do, instead of "'GameState' object is not callable"."""
    e = env()
    e.reset()
    with pytest.raises(NotImplementedError, match=r"env\.unwrapped\.state"):
        e.state()
    parallel = turn_based_aec_to_parallel(env())
    parallel.reset(seed=0)
    with pytest.raises(NotImplementedError, match="GameState"):
        parallel.state()
    assert e.unwrapped.state == GameState.initial()


def test_a_zero_dimensional_integer_array_is_an_action() -> None:
    """``np.array(19)`` is in ``Discrete(65)`` (Gymnasium says so), so both envs play it."""
    for make in (env, raw_env):
        e = make()
        e.reset()
        assert np.array(19) in e.action_space(BLACK_AGENT)
        e.step(np.array(parse_square("D3")))
        e.step(np.array(parse_square("C5"), dtype=np.uint8))
        assert e.unwrapped.state == GameState.initial().apply("D3").apply("C5")
    e = raw_env()
    e.reset()
    for bad in (np.array([19]), np.array(19.0), np.array(True)):
        with pytest.raises(InvalidMoveError):
            e.step(bad)


def test_import_and_play_do_not_import_pygame() -> None:
    code = (
        "import sys, reversi_env\n"
        "e = reversi_env.env(render_mode='ansi'); e.reset(); e.step(19); e.observe('black_0'); e.render()\n"
        "assert 'pygame' not in sys.modules, 'pygame imported'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)


# -- observations, masks and rewards against GameState ---------------------------


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_observations_follow_game_state_from_both_sides(seed: int) -> None:
    rng = np.random.default_rng(seed)
    e = raw_env()
    e.reset()
    s = GameState.initial()
    while True:
        board = s.board()
        for player, agent in enumerate(AGENTS):
            obs = e.observe(agent)
            mine, theirs = (1, 2) if player == 0 else (2, 1)
            np.testing.assert_array_equal(obs["observation"][:, :, 0], (board == mine).astype(np.int8))
            np.testing.assert_array_equal(obs["observation"][:, :, 1], (board == theirs).astype(np.int8))
            expected_mask = np.zeros(65, dtype=np.int8)
            if player == s.player and not s.is_terminal():
                expected_mask[s.legal_actions()] = 1
            np.testing.assert_array_equal(obs["action_mask"], expected_mask)
        if s.is_terminal():
            break
        assert e.agent_selection == AGENTS[s.player]
        assert not any(e.terminations.values())
        a = int(rng.choice(s.legal_actions()))
        e.step(np.int64(a) if a % 2 else a)  # numpy and Python integers
        s = s.apply(a)
        assert e.unwrapped.state == s
    black, white = s.score()
    outcome = np.sign(black - white)
    assert all(e.terminations.values())
    assert e.rewards == {BLACK_AGENT: outcome, WHITE_AGENT: -outcome}
    assert e.infos[BLACK_AGENT] == {"black_discs": black, "white_discs": white, "disc_difference": black - white}
    assert e.infos[WHITE_AGENT]["disc_difference"] == white - black


def test_infos_are_fresh_dicts_and_empty_mid_game() -> None:
    e = env()
    e.reset()
    before = e.infos[BLACK_AGENT]
    e.step(parse_square("D3"))
    assert e.infos[BLACK_AGENT] == {} and e.infos[BLACK_AGENT] is not before
    assert e.infos[BLACK_AGENT] is not e.infos[WHITE_AGENT]


def test_forced_pass_through_the_env() -> None:
    _, s, _ = _random_state(np.random.default_rng(4), lambda s: s.legal_actions() == [PASS])
    e = env()
    e.reset(options={"state": s})
    mover, other = AGENTS[s.player], AGENTS[1 - s.player]
    assert e.agent_selection == mover
    obs, reward, term, trunc, _ = e.last()
    assert list(np.flatnonzero(obs["action_mask"])) == [PASS]
    assert (reward, term, trunc) == (0, False, False)
    e.step(PASS)
    assert e.agent_selection == other
    assert e.unwrapped.state == s.apply(PASS)
    assert not any(e.terminations.values())
    assert e.observe(other)["action_mask"][PASS] == 0


def test_game_over_with_empty_squares() -> None:
    prev, end, action = _random_state(np.random.default_rng(5), lambda s: s.is_terminal() and s.num_empty() > 0)
    e = env()
    e.reset(options={"state": prev})
    e.step(action)
    assert all(e.terminations.values()) and not any(e.truncations.values())
    black, white = end.score()
    assert black + white < 64
    outcome = np.sign(black - white)
    assert e.rewards[BLACK_AGENT] == outcome and e.rewards[WHITE_AGENT] == -outcome
    for agent in AGENTS:
        assert not e.observe(agent)["action_mask"].any()
        assert e.infos[agent]["black_discs"] == black and e.infos[agent]["white_discs"] == white
    for _agent in e.agent_iter():  # the dead steps remove the agents
        assert e.last()[2]
        e.step(None)
    assert e.agents == []


def test_max_moves_truncates() -> None:
    e = env(max_moves=3)
    e.reset()
    for name in ("D3", "C3", "C4"):
        assert not any(e.truncations.values())
        e.step(parse_square(name))
    assert all(e.truncations.values()) and not any(e.terminations.values())
    assert e.rewards == {BLACK_AGENT: 0, WHITE_AGENT: 0}
    assert e.infos[BLACK_AGENT]["black_discs"] == e.unwrapped.state.score()[0]


# -- the live state ---------------------------------------------------------------


def test_state_can_be_read_and_set_to_clone_a_game() -> None:
    live = env()
    live.reset()
    live.step(parse_square("D3"))
    sim = raw_env()
    sim.reset()
    sim.state = live.unwrapped.state
    assert sim.agent_selection == live.agent_selection == WHITE_AGENT
    sim.step(parse_square("C5"))
    assert live.unwrapped.state == GameState.initial().apply("D3")  # the live game is untouched
    live.step(parse_square("C5"))
    assert sim.state == live.unwrapped.state
    for agent in AGENTS:
        np.testing.assert_array_equal(sim.observe(agent)["observation"], live.observe(agent)["observation"])


def test_setting_a_finished_state_ends_the_episode() -> None:
    _, end, _ = _random_state(np.random.default_rng(6), lambda s: s.is_terminal())
    e = raw_env()
    e.reset()
    e.state = end
    assert all(e.terminations.values())
    assert e.infos[BLACK_AGENT]["black_discs"] == end.score()[0]


def test_state_setter_and_reset_reject_bad_input() -> None:
    e = raw_env()
    e.reset()
    with pytest.raises(TypeError, match="GameState"):
        e.state = "X to move"  # type: ignore[assignment]
    with pytest.raises(TypeError, match="options"):
        e.reset(options="state")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="GameState"):
        e.reset(options={"state": 3})
    assert e.state == GameState.initial()


# -- illegal and malformed actions ---------------------------------------------------


def test_wrapped_env_ends_the_game_on_an_illegal_action() -> None:
    e = env()
    e.reset()
    e.step(parse_square("D3"))
    e.step(0)  # white plays A1: illegal
    assert all(e.terminations.values())
    assert e.rewards == {BLACK_AGENT: 0, WHITE_AGENT: -1}
    assert e.unwrapped.state == GameState.initial().apply("D3")
    counts = {"black_discs": 4, "white_discs": 1}
    assert e.infos[WHITE_AGENT] == {**counts, "disc_difference": -3, "illegal": True}
    assert e.infos[BLACK_AGENT] == {**counts, "disc_difference": 3}


def test_wrapped_env_judges_actions_by_the_position_set_after_the_last_observation() -> None:
    """PettingZoo's TerminateIllegalWrapper keeps the mask of the last ``last()``; a
    position set afterwards (``env.unwrapped.state = s``) is judged by its own mask."""
    e = env()
    e.reset()
    e.last()  # the mask of the start
    s = GameState.initial().apply("D3").apply("C5")
    e.unwrapped.state = s
    legal_now = parse_square("B6")  # legal for black here, not at the start
    e.step(legal_now)
    assert not any(e.terminations.values()) and e.unwrapped.state == s.apply(legal_now)
    e.last()
    e.unwrapped.state = GameState.initial()
    e.step(parse_square("B6"))  # legal a moment ago, illegal now: the game ends, no exception
    assert all(e.terminations.values()) and e.infos[BLACK_AGENT]["illegal"]
    # an earlier episode's illegal end does not hide this one's
    e.unwrapped.state = GameState.initial()
    e.step(parse_square("D3"))
    e.step(0)
    assert all(e.terminations.values()) and e.infos[WHITE_AGENT]["illegal"] and e.rewards[WHITE_AGENT] == -1


def test_wrapped_env_asserts_out_of_range_actions() -> None:
    e = env()
    e.reset()
    for bad in (65, -1):
        with pytest.raises(AssertionError):
            e.step(bad)
    assert e.unwrapped.state == GameState.initial()


@pytest.mark.parametrize("action", [0, PASS, np.int32(0)])
def test_raw_env_raises_on_illegal_actions_and_keeps_the_game(action: Any) -> None:
    e = raw_env()
    e.reset()
    with pytest.raises(IllegalMoveError):
        e.step(action)
    assert e.state == GameState.initial() and e.agent_selection == BLACK_AGENT


@pytest.mark.parametrize("action", [65, -1, 3.0, "D3", None, True])
def test_raw_env_raises_on_malformed_actions(action: Any) -> None:
    e = raw_env()
    e.reset()
    with pytest.raises(InvalidMoveError):
        e.step(action)
    assert e.state == GameState.initial()


@pytest.mark.parametrize(
    "kwargs",
    [
        {"render_mode": "rgb"},
        {"max_moves": 0},
        {"max_moves": -3},
        {"max_moves": 2.5},
        {"max_moves": True},
        {"screen_size": 10},
        {"screen_size": "big"},
    ],
)
def test_constructor_rejects_bad_input(kwargs: dict[str, Any]) -> None:
    with pytest.raises(ValueError):
        raw_env(**kwargs)
    with pytest.raises(ValueError):
        env(**kwargs)


@pytest.mark.parametrize("agent", ["player_0", "black", None, ["black_0"]])
def test_unknown_agents_are_named_in_the_error(agent: Any) -> None:
    e = env()
    e.reset()
    for method in (e.observe, e.observation_space, e.action_space):
        with pytest.raises(KeyError, match="black_0, white_0"):
            method(agent)


@pytest.mark.parametrize("name", ["agents", "agent_selection", "rewards", "terminations", "truncations", "infos"])
def test_order_is_enforced(name: str) -> None:
    e = env()
    with pytest.raises(AttributeError, match="before reset"):
        getattr(e, name)
    with pytest.raises(AssertionError):  # PettingZoo's EnvLogger error for step before reset
        e.step(19)


def test_env_is_the_stock_wrapper_stack() -> None:
    e = env()
    layers = [e, e.env, e.env.env]
    expected = [wrappers.OrderEnforcingWrapper, wrappers.AssertOutOfBoundsWrapper, wrappers.TerminateIllegalWrapper]
    for layer, cls in zip(layers, expected, strict=True):
        assert isinstance(layer, cls)
    assert isinstance(e.env.env.env, raw_env) and e.unwrapped is e.env.env.env
    e.reset()
    for layer in layers:  # every layer sees the raw env's live attributes
        assert layer.agent_selection == BLACK_AGENT and layer.rewards is e.unwrapped.rewards
    e.step(parse_square("D3"))
    assert [layer.agent_selection for layer in layers] == [WHITE_AGENT] * 3


def test_action_space_agrees_with_discrete() -> None:
    ours, reference = env().action_space(BLACK_AGENT), Discrete(65)
    assert ours == reference
    for x in (0, 64, 65, -1, np.int32(7), np.int64(70), 3.0, "3", None, True, np.array(5)):
        assert ours.contains(x) == reference.contains(x), x


def test_step_takes_any_numpy_integer_and_refuses_bools_by_name() -> None:
    for action in (np.uint64(19), np.uint8(19), np.int16(19)):
        e = reversi_env.env()
        e.reset(seed=0)
        e.step(action)
        assert e.unwrapped.state.black >> 19 & 1
    e = reversi_env.env()
    e.reset(seed=0)
    with pytest.raises(InvalidMoveError, match="bool"):
        e.step(True)


@pytest.mark.parametrize("seed", ["x", -1, 2.5])
def test_reset_refuses_a_seed_gymnasium_refuses(seed: object) -> None:
    e = reversi_env.env()
    with pytest.raises(gymnasium.error.Error, match="Seed must be"):
        e.reset(seed=seed)


def test_reset_seeds_np_random_for_the_caller_and_not_the_game() -> None:
    first, second = reversi_env.env(), reversi_env.env()
    first.reset(seed=7)
    second.reset(seed=8)
    assert first.unwrapped.np_random_seed == 7
    assert first.unwrapped.np_random.integers(1 << 30) != second.unwrapped.np_random.integers(1 << 30)
    assert first.unwrapped.state == second.unwrapped.state == GameState.initial()
