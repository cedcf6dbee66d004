"""ReversiVectorEnv: the batched kernel against N independent ReversiGymEnv, the VectorEnv API, bad input."""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import data_equivalence
from gymnasium.vector import AutoresetMode

import reversi_env
from reversi_env import GameState, InvalidMoveError, ReversiGymEnv, ReversiVectorEnv
from reversi_env.notation import PASS
from reversi_env.observation import observe, state_from_observation


def _pick_actions(masks: np.ndarray, rng: np.random.Generator, p_illegal: float) -> np.ndarray:
    """A legal action per row, or (with probability ``p_illegal``) a masked-out one."""
    actions = np.empty(len(masks), dtype=np.int64)
    for i, row in enumerate(masks):
        legal = np.flatnonzero(row)
        illegal = np.flatnonzero(~row)
        if (rng.random() < p_illegal and illegal.size) or not legal.size:
            actions[i] = rng.choice(illegal)
        else:
            actions[i] = rng.choice(legal)
    return actions


def _info_at(infos: dict[str, Any], i: int) -> dict[str, Any]:
    """The single-env info of game ``i`` rebuilt from SyncVectorEnv-style masked arrays."""
    return {k: v[i].item() for k, v in infos.items() if not k.startswith("_") and infos[f"_{k}"][i]}


@pytest.mark.parametrize(
    ("play_as", "reward", "p_illegal"),
    [("black", "win", 0.0), ("white", "disc_diff", 0.0), ("random", "win", 0.02), ("random", "disc_diff", 0.01)],
)
def test_vector_env_plays_the_same_games_as_single_envs(play_as: str, reward: str, p_illegal: float) -> None:
    n, seed = 6, 123
    vec = ReversiVectorEnv(n, play_as=play_as, reward=reward)
    singles = [ReversiGymEnv(play_as=play_as, reward=reward) for _ in range(n)]
    obs, infos = vec.reset(seed=seed)
    single_obs = []
    for i, env in enumerate(singles):
        o, info = env.reset(seed=seed + i)
        single_obs.append(o)
        assert info == {"player": infos["player"][i]}
    picker = np.random.default_rng(7)
    episodes = 0
    for _ in range(200):
        for i in range(n):
            np.testing.assert_array_equal(obs["observation"][i], single_obs[i]["observation"])
            np.testing.assert_array_equal(obs["action_mask"][i], single_obs[i]["action_mask"])
        np.testing.assert_array_equal(vec.action_masks(), np.stack([e.action_masks() for e in singles]))
        actions = _pick_actions(vec.action_masks(), picker, p_illegal)
        obs, rewards, terms, truncs, infos = vec.step(actions)
        assert not truncs.any()
        for i, env in enumerate(singles):
            o, r, term, trunc, info = env.step(actions[i])
            assert (r, term, trunc) == (rewards[i], terms[i], truncs[i])
            if term:
                episodes += 1
                final = infos["final_obs"][i]
                np.testing.assert_array_equal(final["observation"], o["observation"])
                np.testing.assert_array_equal(final["action_mask"], o["action_mask"])
                assert _info_at(infos["final_info"], i) == info
                o, info = env.reset()
                assert infos["player"][i] == info["player"] and infos["_player"][i]
            else:
                assert info == {}
                assert not infos or not infos["_final_obs"][i]
            single_obs[i] = o
    assert episodes >= n  # several games ended and restarted in the run


def test_vector_masks_match_game_state() -> None:
    # Each observation has the agent to move; the rules do not depend on the colour.
    vec = ReversiVectorEnv(8, play_as="random")
    obs, _ = vec.reset(seed=5)
    picker = np.random.default_rng(1)
    for _ in range(40):
        for i in range(8):
            state = state_from_observation({k: v[i] for k, v in obs.items()})
            np.testing.assert_array_equal(obs["action_mask"][i], state.legal_mask())
            np.testing.assert_array_equal(obs["observation"][i], observe(state, state.player)["observation"])
        obs, *_ = vec.step(_pick_actions(vec.action_masks(), picker, 0.0))


def test_vector_env_api() -> None:
    vec = ReversiVectorEnv(3, seed=11)
    assert vec.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    assert isinstance(vec, gymnasium.vector.VectorEnv)
    assert vec.num_envs == 3
    assert vec.single_action_space == gymnasium.spaces.Discrete(65)
    obs, _ = vec.reset()
    assert obs in vec.observation_space
    assert obs["observation"].dtype == np.int8 and obs["observation"].shape == (3, 8, 8, 2)
    assert obs["action_mask"].dtype == np.int8 and obs["action_mask"].shape == (3, 65)
    masks = vec.action_masks()
    assert masks.dtype == bool and masks.shape == (3, 65)
    # the constructor's seed makes the first reset reproducible
    again, _ = ReversiVectorEnv(3, seed=11).reset()
    np.testing.assert_array_equal(obs["observation"], again["observation"])
    # arrays are fresh every call
    obs2, *_ = vec.step(vec.action_space.sample(mask=tuple(m.astype(np.int8) for m in masks)))
    assert obs2["observation"] is not obs["observation"] and obs2["action_mask"] is not obs["action_mask"]


def test_vector_illegal_action_ends_that_game_only() -> None:
    vec = ReversiVectorEnv(2, seed=0)
    vec.reset()
    start = GameState.initial().planes(0)
    obs, rewards, terms, _, infos = vec.step(np.array([0, 19]))  # A1 is illegal, D3 legal
    assert list(terms) == [True, False] and rewards[0] == -1.0 and rewards[1] == 0.0
    assert infos["final_info"]["illegal"][0] and infos["final_info"]["_illegal"][0]
    assert "black_discs" not in infos["final_info"]  # no disc counts for a game ended by an illegal action
    np.testing.assert_array_equal(infos["final_obs"][0]["observation"], start)  # nothing was played
    np.testing.assert_array_equal(obs["observation"][0], start)  # and it restarted
    assert obs["action_mask"][1].sum() > 0


def test_vector_forced_pass_is_the_only_legal_action() -> None:
    # Play random games until some agent's mask is PASS only; PASS must then be accepted.
    vec = ReversiVectorEnv(64, play_as="random", seed=3)
    vec.reset()
    picker = np.random.default_rng(2)
    seen = False
    for _ in range(60):
        masks = vec.action_masks()
        only_pass = masks[:, PASS] & (masks.sum(axis=1) == 1)
        assert not (masks[:, PASS] & (masks.sum(axis=1) > 1)).any()
        if only_pass.any():
            seen = True
            actions = _pick_actions(masks, picker, 0.0)
            _, _, terms, _, infos = vec.step(actions)
            i = int(np.flatnonzero(only_pass)[0])
            assert not (terms[i] and infos["final_info"]["illegal"][i])
            break
        vec.step(_pick_actions(masks, picker, 0.0))
    assert seen


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"num_envs": 0}, ValueError),
        ({"num_envs": 2.5}, ValueError),
        ({"num_envs": True}, ValueError),
        ({"num_envs": 2, "opponent": "greedy"}, ValueError),
        ({"num_envs": 2, "play_as": "red"}, ValueError),
        ({"num_envs": 2, "reward": "score"}, ValueError),
        ({"num_envs": 2, "seed": -1}, ValueError),
        ({"num_envs": 2, "seed": [1]}, ValueError),
        ({"num_envs": 2, "seed": "7"}, ValueError),
    ],
)
def test_vector_constructor_rejects_bad_input(kwargs: dict[str, Any], error: type[Exception]) -> None:
    with pytest.raises(error):
        ReversiVectorEnv(**kwargs)


def test_vector_step_rejects_bad_actions_and_keeps_the_games() -> None:
    vec = ReversiVectorEnv(2, seed=0)
    with pytest.raises(RuntimeError, match="reset"):
        vec.step(np.array([19, 19]))
    with pytest.raises(RuntimeError, match="reset"):
        vec.action_masks()
    obs, _ = vec.reset()
    for bad in (np.array([19]), np.array([19.0, 19.0]), np.array([19, 65]), np.array([-1, 19]), "D3"):
        with pytest.raises(InvalidMoveError):
            vec.step(bad)
    with pytest.raises(ValueError):
        vec.reset(seed=[1, 2, 3])
    np.testing.assert_array_equal(vec.action_masks(), obs["action_mask"].astype(bool))


@pytest.mark.parametrize("mode", list(AutoresetMode))
def test_vector_env_matches_gymnasiums_sync_vector_env(mode: AutoresetMode) -> None:
    """Gymnasium's own SyncVectorEnv over ReversiGymEnv, in the same autoreset mode, is the
    reference: same observations, rewards, terminations and infos, value for value, partial
    resets (``options={"reset_mask": ...}``, seeded or not) included."""
    n, seed = 5, 77
    ours = ReversiVectorEnv(n, play_as="random", reward="disc_diff", autoreset_mode=mode)
    reference = gymnasium.vector.SyncVectorEnv(
        [lambda: ReversiGymEnv(play_as="random", reward="disc_diff") for _ in range(n)],
        autoreset_mode=mode,
    )
    assert ours.metadata["autoreset_mode"] is mode
    got, want = ours.reset(seed=seed), reference.reset(seed=seed)
    assert data_equivalence(got, want)
    picker = np.random.default_rng(3)
    ended = partial = 0
    for _ in range(200):
        ended_now = want[2] if len(want) == 5 else np.zeros(n, dtype=bool)
        restart = ended_now.copy() if mode == AutoresetMode.DISABLED else np.zeros(n, dtype=bool)
        if picker.random() < 0.05:
            restart |= picker.random(n) < 0.4
        if restart.any():
            reset_seed = None if picker.random() < 0.5 else int(picker.integers(1000))
            options = {"reset_mask": restart}
            got, want = ours.reset(seed=reset_seed, options=options), reference.reset(seed=reset_seed, options=options)
            assert data_equivalence(got, want), (got, want)
            partial += 1
        masks = want[0]["action_mask"].astype(bool)
        np.testing.assert_array_equal(ours.action_masks(), masks)
        actions = _pick_actions(masks, picker, 0.01)  # any action for a game that shows its end
        got, want = ours.step(actions), reference.step(actions)
        assert data_equivalence(got, want), (got, want)
        ended += int(got[2].sum())
    assert ended >= n and partial >= 5


def test_next_step_autoreset_shows_the_end_then_restarts() -> None:
    vec = ReversiVectorEnv(2, seed=0, autoreset_mode=AutoresetMode.NEXT_STEP)
    vec.reset()
    start = GameState.initial().planes(0)
    obs, rewards, terms, _, infos = vec.step(np.array([0, 19]))  # game 0: A1 is illegal
    assert list(terms) == [True, False] and rewards[0] == -1.0
    assert infos == {"illegal": infos["illegal"], "_illegal": infos["_illegal"]} and infos["illegal"][0]
    np.testing.assert_array_equal(obs["observation"][0], start)  # the end, not yet a new game
    obs, rewards, terms, _, infos = vec.step(np.array([0, 0]))  # game 0's action is ignored
    assert not terms[0] and rewards[0] == 0.0 and infos["_player"].tolist() == [True, False]
    np.testing.assert_array_equal(obs["observation"][0], start)
    assert vec.action_masks()[0].sum() == 4


def test_disabled_autoreset_needs_a_reset_of_the_ended_games() -> None:
    vec = ReversiVectorEnv(2, seed=0, autoreset_mode="Disabled")
    vec.reset()
    _, _, terms, _, _ = vec.step(np.array([0, 19]))
    assert list(terms) == [True, False]
    with pytest.raises(RuntimeError, match="reset_mask"):
        vec.step(np.array([19, 26]))
    before = vec.action_masks()[1].copy()
    obs, infos = vec.reset(options={"reset_mask": np.array([True, False])})
    assert infos["_player"].tolist() == [True, False]
    np.testing.assert_array_equal(obs["observation"][0], GameState.initial().planes(0))
    np.testing.assert_array_equal(obs["action_mask"][1], before)  # game 1 goes on where it was
    _, _, terms, _, _ = vec.step(np.array([19, int(np.flatnonzero(before)[0])]))
    assert not terms.any()


@pytest.mark.parametrize(
    ("options", "error"),
    [
        ({"reset_mask": [True, False]}, TypeError),
        ({"reset_mask": np.array([1, 0])}, TypeError),
        ({"reset_mask": np.array([True])}, ValueError),
        ({"reset_mask": np.array([False, False])}, ValueError),
        ("mask", TypeError),
    ],
)
def test_vector_reset_rejects_a_bad_reset_mask(options: Any, error: type[Exception]) -> None:
    vec = ReversiVectorEnv(2, seed=0)
    vec.reset()
    with pytest.raises(error):
        vec.reset(options=options)


def test_a_partial_reset_needs_a_full_one_first() -> None:
    with pytest.raises(RuntimeError, match="reset"):
        ReversiVectorEnv(2).reset(options={"reset_mask": np.array([True, False])})


def test_make_vec_gives_the_vector_env() -> None:
    vec = gymnasium.make_vec(reversi_env.GYM_ENV_ID, num_envs=3, play_as="white")
    assert isinstance(vec.unwrapped, ReversiVectorEnv) and vec.num_envs == 3
    obs, infos = vec.reset(seed=0)
    assert obs["observation"].shape == (3, 8, 8, 2) and list(infos["player"]) == [1, 1, 1]


def test_make_and_make_vec_take_the_same_opponent_keywords() -> None:
    """``opponent=None`` and ``opponent="random"`` mean the random opponent in both envs,
    so one set of keyword arguments serves gymnasium.make and gymnasium.make_vec."""
    for opponent in (None, "random"):
        vec = gymnasium.make_vec(reversi_env.GYM_ENV_ID, num_envs=2, opponent=opponent, autoreset_mode="NextStep")
        assert isinstance(vec.unwrapped, ReversiVectorEnv)
        assert vec.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
        single = gymnasium.make(reversi_env.GYM_ENV_ID, opponent=opponent)
        assert single.unwrapped.opponent is None
        sync = gymnasium.make_vec(reversi_env.GYM_ENV_ID, num_envs=2, vectorization_mode="sync", opponent=opponent)
        assert sync.reset(seed=0)[0]["observation"].shape == (2, 8, 8, 2)
    # the class's own metadata is not changed by an instance's mode
    assert ReversiVectorEnv.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP


def test_vector_constructor_rejects_an_unknown_autoreset_mode() -> None:
    with pytest.raises(ValueError, match="NextStep"):
        ReversiVectorEnv(2, autoreset_mode="next")
