"""ReversiGymEnv: Gymnasium's check_env, illegal actions, opponents (good and bad), rewards, seeding."""

from __future__ import annotations

import copy
import os
import pickle
from collections import Counter
from typing import Any

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import reversi_env
from reversi_env import GameState, InvalidMoveError, OpponentError, ReversiGymEnv
from reversi_env.notation import PASS, parse_square
from reversi_env.observation import state_from_observation

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")

OPENINGS = {parse_square(s) for s in ("D3", "C4", "F5", "E6")}


def _play_out(env: ReversiGymEnv, rng: np.random.Generator) -> tuple[float, dict[str, Any], dict[str, np.ndarray]]:
    """Random legal moves to the end; the last reward, info and observation."""
    while True:
        obs, reward, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
        assert not truncated
        if terminated:
            return float(reward), info, obs
        assert reward == 0.0 and info == {}


@pytest.mark.parametrize("play_as", ["black", "white", "random"])
@pytest.mark.parametrize("reward", ["win", "disc_diff"])
def test_check_env(play_as: str, reward: str) -> None:
    check_env(ReversiGymEnv(play_as=play_as, reward=reward))
    made = gymnasium.make(reversi_env.GYM_ENV_ID, play_as=play_as, reward=reward)
    with pytest.warns(UserWarning, match="different from the unwrapped"):
        check_env(made)  # Gymnasium recommends .unwrapped, and checks that too:
    check_env(gymnasium.make(reversi_env.GYM_ENV_ID, play_as=play_as, reward=reward, render_mode="rgb_array").unwrapped)


@pytest.mark.parametrize("reward", ["win", "disc_diff"])
@pytest.mark.parametrize("play_as", ["black", "white"])
def test_rewards_and_final_info(play_as: str, reward: str) -> None:
    env = ReversiGymEnv(play_as=play_as, reward=reward)
    rng = np.random.default_rng(0)
    for seed in range(4):
        obs, info = env.reset(seed=seed)
        me = 0 if play_as == "black" else 1
        assert info == {"player": me}
        r, info, obs = _play_out(env, rng)
        mine, theirs = int(obs["observation"][..., 0].sum()), int(obs["observation"][..., 1].sum())
        black, white = (mine, theirs) if me == 0 else (theirs, mine)
        assert info == {"black_discs": black, "white_discs": white, "disc_difference": mine - theirs}
        assert env.state.score() == (black, white) and env.state.is_terminal()
        assert r == (np.sign(mine - theirs) if reward == "win" else (mine - theirs) / 64)
        assert not obs["action_mask"].any() and not env.action_masks().any()


def test_white_agent_sees_the_opponent_open_and_its_own_planes() -> None:
    env = ReversiGymEnv(play_as="white")
    obs, info = env.reset(seed=1)
    assert info["player"] == 1 and env.player == 1
    state = env.state
    assert state.player == 1 and len(GameState.initial().legal_actions()) == 4
    assert state.score() == (4, 1)  # black opened
    board = state.board()
    np.testing.assert_array_equal(obs["observation"][..., 0], (board == 2).astype(np.int8))
    np.testing.assert_array_equal(obs["observation"][..., 1], (board == 1).astype(np.int8))
    np.testing.assert_array_equal(obs["action_mask"], state.legal_mask())
    np.testing.assert_array_equal(env.action_masks(), state.legal_mask().astype(bool))


def test_default_opponent_is_uniform_and_seeded() -> None:
    env = ReversiGymEnv(play_as="white")
    openings = Counter()
    for seed in range(400):
        env.reset(seed=seed)
        (move,) = [sq for sq in OPENINGS if env.state.black >> sq & 1]
        openings[move] += 1
    assert set(openings) == OPENINGS
    assert all(60 <= n <= 140 for n in openings.values()), openings  # 100 expected each; 4+ sigma bounds
    a = ReversiGymEnv(play_as="random")
    b = ReversiGymEnv(play_as="random")
    colours = Counter()
    for seed in range(50):
        oa, ia = a.reset(seed=seed)
        ob, ib = b.reset(seed=seed)
        assert ia == ib
        np.testing.assert_array_equal(oa["observation"], ob["observation"])
        colours[ia["player"]] += 1
    assert colours[0] > 10 and colours[1] > 10


def test_forced_pass_is_the_agents_only_legal_action() -> None:
    env = ReversiGymEnv(play_as="random")
    rng = np.random.default_rng(9)
    for seed in range(200):
        env.reset(seed=seed)
        terminated = False
        while not terminated:
            mask = env.action_masks()
            if mask[PASS]:
                assert mask.sum() == 1 and env.state.legal_actions() == [PASS]
                before = env.state
                info = env.step(PASS)[4]
                assert "illegal" not in info
                assert env.state.player == env.player or env.state.is_terminal()
                assert env.state != before
                return
            _, _, terminated, _, _ = env.step(int(rng.choice(np.flatnonzero(mask))))
    raise AssertionError("no forced pass in 200 random games")


def test_illegal_action_ends_the_episode_without_an_exception() -> None:
    env = ReversiGymEnv()
    before, _ = env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(0)  # A1
    assert (reward, terminated, truncated, info) == (-1.0, True, False, {"illegal": True})
    np.testing.assert_array_equal(obs["observation"], before["observation"])
    assert env.state == GameState.initial()
    with pytest.raises(gymnasium.error.ResetNeeded):
        env.step(parse_square("D3"))
    env.reset()
    _, reward, terminated, _, info = env.step(PASS)  # PASS while a placement exists is illegal too
    assert (reward, terminated, info) == (-1.0, True, {"illegal": True})


@pytest.mark.parametrize("action", [65, -1, 2.0, "D3", None, True, np.array([19, 20])])
def test_malformed_action_raises_and_keeps_the_game(action: Any) -> None:
    env = ReversiGymEnv()
    env.reset(seed=0)
    with pytest.raises(InvalidMoveError):
        env.step(action)
    assert env.state == GameState.initial()
    env.step(np.array([parse_square("D3")]))  # a one-element integer array is an action
    assert env.state.num_empty() == 64 - 6


class _FirstLegal:
    """A deterministic opponent with act() and reset(), recording what it saw."""

    name = "first-legal"

    def __init__(self) -> None:
        self.seen: list[dict[str, np.ndarray]] = []
        self.resets = 0

    def act(self, observation: dict[str, np.ndarray]) -> int:
        self.seen.append(observation)
        return int(np.flatnonzero(observation["action_mask"])[0])

    def reset(self) -> None:
        self.resets += 1


def test_opponent_objects_and_callables() -> None:
    opp = _FirstLegal()
    env = ReversiGymEnv(opponent=opp, play_as="white")
    env.reset(seed=0)
    assert opp.resets == 1 and len(opp.seen) == 1
    first = opp.seen[0]
    seen_state = state_from_observation(first, player="black")
    assert seen_state == GameState.initial()  # the opponent saw the start from black's side
    assert env.state == GameState.initial().apply(min(OPENINGS))
    env2 = ReversiGymEnv(opponent=lambda obs: int(np.flatnonzero(obs["action_mask"])[-1]))
    env2.reset(seed=0)
    env2.step(parse_square("D3"))
    assert env2.state == GameState.initial().apply("D3").apply("C5")  # white's highest legal reply


@pytest.mark.parametrize(
    ("opponent", "match"),
    [
        (lambda obs: 0, "not legal"),
        (lambda obs: "C5", "not legal"),
        (lambda obs: 99, "not legal"),
        (lambda obs: 1 / 0, "ZeroDivisionError"),
    ],
)
def test_bad_opponent_raises_opponent_error_and_keeps_the_position(opponent: Any, match: str) -> None:
    env = ReversiGymEnv(opponent=opponent)
    env.reset(seed=0)
    with pytest.raises(OpponentError, match=match) as err:
        env.step(parse_square("D3"))
    assert err.value.__cause__ is not None
    assert env.state == GameState.initial()  # neither the agent's move nor a bad reply was kept
    white = ReversiGymEnv(opponent=opponent, play_as="white")
    with pytest.raises(OpponentError):
        white.reset(seed=0)
    with pytest.raises(gymnasium.error.ResetNeeded):  # a failed reset leaves no game to play on
        white.step(parse_square("D3"))


@pytest.mark.parametrize(
    "kwargs",
    [
        {"play_as": "red"},
        {"play_as": 0},
        {"reward": "score"},
        {"render_mode": "rgb"},
    ],
)
def test_constructor_rejects_bad_values(kwargs: dict[str, Any]) -> None:
    with pytest.raises(ValueError):
        ReversiGymEnv(**kwargs)


def test_constructor_rejects_an_opponent_that_cannot_play() -> None:
    for bad in (42, "greedy"):
        with pytest.raises(TypeError, match="opponent"):
            ReversiGymEnv(opponent=bad)


def test_random_opponent_by_name_is_the_default_one() -> None:
    """``opponent="random"`` (ReversiVectorEnv's spelling) is None: the same seeded games."""
    named, default = ReversiGymEnv(opponent="random", play_as="random"), ReversiGymEnv(play_as="random")
    assert named.opponent is None
    rng_a, rng_b = np.random.default_rng(1), np.random.default_rng(1)
    named.reset(seed=9)
    default.reset(seed=9)
    assert _play_out(named, rng_a)[1] == _play_out(default, rng_b)[1]


@pytest.mark.parametrize("mode", ["human", "rgb_array", None])
def test_copies_and_pickles_keep_the_game_even_with_a_window_open(mode: str | None) -> None:
    """An open pygame window does not copy; a copy leaves it behind and opens its own."""
    env = ReversiGymEnv(play_as="random", render_mode=mode)
    env.reset(seed=5)
    env.step(int(np.flatnonzero(env.action_masks())[0]))
    for clone in (copy.deepcopy(env), pickle.loads(pickle.dumps(env))):
        assert clone.state == env.state and clone.player == env.player
        action = int(np.flatnonzero(env.action_masks())[0])
        mine, theirs = clone.step(action), copy.deepcopy(env).step(action)
        np.testing.assert_array_equal(mine[0]["observation"], theirs[0]["observation"])  # same opponent draws
        if mode is not None:
            clone.render()
        clone.close()
    env.close()


@pytest.mark.parametrize("mode", ["ansi", "rgb_array", "human"])
def test_render_modes(mode: str) -> None:
    env = ReversiGymEnv(render_mode=mode)
    env.reset(seed=0)
    env.step(parse_square("D3"))
    out = env.render()
    if mode == "ansi":
        assert isinstance(out, str) and str(env.state) in out
    elif mode == "rgb_array":
        assert isinstance(out, np.ndarray) and out.dtype == np.uint8 and out.shape == (512, 512, 3)
    else:
        assert out is None
    env.close()
    env.close()
