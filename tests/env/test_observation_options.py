"""Observation options (ObservationSpec) on the AEC, Gymnasium and vector envs: the checkers, the planes, bad input."""

from __future__ import annotations

import functools
import pickle
from typing import Any

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from gymnasium.vector import AutoresetMode, SyncVectorEnv
from pettingzoo.test import api_test, seed_test

import reversi_env
from reversi_env import BLACK, WHITE, GameState, ReversiGymEnv, ReversiVectorEnv, env, raw_env
from reversi_env.aec import AGENTS
from reversi_env.observation import ObservationSpec, observe

# A representative product of the options: each dtype with each layout, each extra plane
# alone and together, histories of 1 to 8, flat and not.
SPECS = [
    ObservationSpec(),
    ObservationSpec(dtype="float32", layout="CHW"),
    ObservationSpec(legal_moves=True),
    ObservationSpec(dtype="float32", side_to_move=True, history=2),
    ObservationSpec(layout="CHW", legal_moves=True, side_to_move=True, history=4, flat=True),
    ObservationSpec(dtype="float32", layout="CHW", legal_moves=True, history=3, flat=True),
    ObservationSpec(flat=True),
    ObservationSpec(dtype="float32", legal_moves=True, side_to_move=True, history=8),
]
IDS = [repr(s).removeprefix("ObservationSpec") for s in SPECS]

EVERY_SPEC = [
    ObservationSpec(dtype=dtype, layout=layout, legal_moves=legal, side_to_move=side, history=history, flat=flat)
    for dtype in ("int8", "float32")
    for layout in ("HWC", "CHW")
    for legal in (False, True)
    for side in (False, True)
    for history in (1, 3)
    for flat in (False, True)
]
"""Every combination of the options (histories of one position and of several)."""


@pytest.mark.parametrize("spec", EVERY_SPEC, ids=[repr(s).removeprefix("ObservationSpec") for s in EVERY_SPEC])
def test_every_combination_passes_both_checkers(spec: ObservationSpec) -> None:
    api_test(env(observation=spec), num_cycles=40)
    seed_test(functools.partial(env, observation=spec), 40)
    check_env(ReversiGymEnv(play_as="random", observation=spec), skip_render_check=True)


@pytest.mark.parametrize("spec", SPECS, ids=IDS)
def test_pettingzoo_checkers(spec: ObservationSpec) -> None:
    api_test(env(observation=spec), num_cycles=300)
    seed_test(functools.partial(env, observation=spec), 200)


@pytest.mark.parametrize("spec", SPECS, ids=IDS)
def test_gymnasium_check_env(spec: ObservationSpec) -> None:
    check_env(ReversiGymEnv(play_as="random", observation=spec))


@pytest.mark.parametrize("spec", SPECS, ids=IDS)
def test_vector_env_writes_what_single_envs_observe(spec: ObservationSpec) -> None:
    n, seed = 5, 11
    vec = ReversiVectorEnv(n, play_as="random", observation=spec)
    assert vec.single_observation_space == ReversiGymEnv(observation=spec).observation_space
    singles = [ReversiGymEnv(play_as="random", observation=spec) for _ in range(n)]
    obs, _ = vec.reset(seed=seed)
    single = [e.reset(seed=seed + i)[0] for i, e in enumerate(singles)]
    rng = np.random.default_rng(3)
    ended = 0
    for _ in range(130):
        assert obs in vec.observation_space
        for i in range(n):
            np.testing.assert_array_equal(obs["observation"][i], single[i]["observation"])
            assert obs["observation"].dtype == single[i]["observation"].dtype == spec.numpy_dtype
        masks = vec.action_masks()
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        actions[0] = 0 if not masks[0, 0] else actions[0]  # now and then an illegal action ends a game
        obs, _, done, _, infos = vec.step(actions)
        for i, e in enumerate(singles):
            o, _, term, _, _ = e.step(actions[i])
            assert term == done[i]
            if term:
                ended += 1
                np.testing.assert_array_equal(infos["final_obs"][i]["observation"], o["observation"])
                o, _ = e.reset()
            single[i] = o
    assert ended >= n


def _planes(spec: ObservationSpec, observation: np.ndarray) -> np.ndarray:
    """(C, 64): the planes of one observation, whatever its layout."""
    return spec.square_planes(observation).astype(np.int8)


def _discs(board: int) -> np.ndarray:
    return np.array([(board >> sq) & 1 for sq in range(64)], dtype=np.int8)


def test_the_planes_are_the_positions_the_legal_moves_and_the_side() -> None:
    spec = ObservationSpec(legal_moves=True, side_to_move=True, history=3)
    e = raw_env(observation=spec)
    e.reset()
    played = [GameState.initial()]
    for a in (19, 18, 17):  # D3, C3, B3
        e.step(a)
        played.append(e.state)
    for agent, me in zip(AGENTS, (BLACK, WHITE), strict=True):
        planes = _planes(spec, e.observe(agent)["observation"])
        assert planes.shape == (8, 64)
        for t, s in enumerate(reversed(played[-3:])):
            mine, theirs = (s.black, s.white) if me == BLACK else (s.white, s.black)
            np.testing.assert_array_equal(planes[2 * t], _discs(mine))
            np.testing.assert_array_equal(planes[2 * t + 1], _discs(theirs))
        np.testing.assert_array_equal(planes[6], e.observe(agent)["action_mask"][:64])
        assert (planes[7] == (me == BLACK)).all()
    assert e.observe(AGENTS[WHITE])["action_mask"][:64].any()  # white to move: its legal plane is not empty


def test_history_before_the_start_is_empty_and_a_reset_clears_it() -> None:
    spec = ObservationSpec(history=2)
    e = raw_env(observation=spec)
    e.reset()
    assert not _planes(spec, e.observe(AGENTS[BLACK])["observation"])[2:].any()
    e.step(19)
    assert _planes(spec, e.observe(AGENTS[BLACK])["observation"])[2:].any()
    e.reset()
    assert not _planes(spec, e.observe(AGENTS[BLACK])["observation"])[2:].any()


def test_layouts_and_flat_hold_the_same_planes() -> None:
    s = GameState.initial().apply(19).apply(18)
    options: dict[str, Any] = {"legal_moves": True, "side_to_move": True, "history": 2}
    base = None
    for layout in ("HWC", "CHW"):
        for flat in (False, True):
            for dtype in ("int8", "float32"):
                spec = ObservationSpec(layout=layout, flat=flat, dtype=dtype, **options)
                obs = spec.observe(s, BLACK, [GameState.initial().apply(19)])["observation"]
                assert obs.shape == spec.shape and obs.dtype == np.dtype(dtype) and obs.flags.c_contiguous
                planes = _planes(spec, obs)
                base = planes if base is None else base
                np.testing.assert_array_equal(planes, base)
    assert ObservationSpec(layout="CHW").shape == (2, 8, 8)
    assert ObservationSpec(history=4, flat=True).shape == (512,)


def test_the_default_spec_is_the_classic_observation() -> None:
    s = GameState.initial().apply(19)
    for player in (BLACK, WHITE):
        got, want = ObservationSpec().observe(s, player), observe(s, player)
        assert got.keys() == want.keys()
        for k in got:
            np.testing.assert_array_equal(got[k], want[k])
            assert got[k].dtype == want[k].dtype


def test_options_come_as_a_dict_and_survive_a_pickle() -> None:
    e = raw_env(observation={"dtype": "float32", "history": 2})
    assert e.observation_spec == ObservationSpec(dtype="float32", history=2)
    e.reset()
    e.step(19)
    copy = pickle.loads(pickle.dumps(e))
    np.testing.assert_array_equal(copy.observe(AGENTS[WHITE])["observation"], e.observe(AGENTS[WHITE])["observation"])
    assert ObservationSpec(dtype=np.float32) == ObservationSpec(dtype="float32")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"dtype": "float64"}, "dtype must be one of int8, float32"),
        ({"layout": "NHWC"}, "layout must be one of HWC, CHW"),
        ({"history": 0}, "history must be an int from 1 to 64"),
        ({"history": True}, "history must be an int"),
        ({"flat": "yes"}, "flat must be True or False"),
        ({"planes": 3}, r"unknown observation options \['planes'\]"),
    ],
)
def test_bad_options_are_named(options: dict[str, Any], message: str) -> None:
    for make in (raw_env, ReversiGymEnv, functools.partial(ReversiVectorEnv, 2)):
        with pytest.raises(ValueError, match=message):
            make(observation=options)


def test_an_observation_that_is_not_a_spec_is_refused() -> None:
    with pytest.raises(ValueError, match="observation must be an ObservationSpec"):
        raw_env(observation="float32")  # type: ignore[arg-type]


def test_gymnasium_make_and_make_vec_pass_the_options_through() -> None:
    options = {"dtype": "float32", "layout": "CHW", "history": 2}
    single = gymnasium.make(reversi_env.GYM_ENV_ID, observation=options)
    assert single.reset(seed=0)[0]["observation"].shape == (4, 8, 8)
    ours = gymnasium.make_vec(reversi_env.GYM_ENV_ID, 3, observation=options)
    sync = gymnasium.make_vec(reversi_env.GYM_ENV_ID, 3, vectorization_mode="sync", observation=options)
    assert isinstance(ours.unwrapped, ReversiVectorEnv)
    a, _ = ours.reset(seed=5)
    b, _ = sync.reset(seed=5)
    for _ in range(6):
        np.testing.assert_array_equal(a["observation"], b["observation"])
        actions = np.argmax(a["action_mask"], axis=1)
        a = ours.step(actions)[0]
        b = sync.step(actions)[0]


@pytest.mark.parametrize("mode", [AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP])
def test_the_vector_env_with_a_history_autoresets_as_sync_vector_env_does(mode: AutoresetMode) -> None:
    spec = ObservationSpec(legal_moves=True, history=3)
    n = 3
    ours = ReversiVectorEnv(n, play_as="random", autoreset_mode=mode, observation=spec)
    sync = SyncVectorEnv(
        [functools.partial(ReversiGymEnv, play_as="random", observation=spec) for _ in range(n)], autoreset_mode=mode
    )
    a, _ = ours.reset(seed=9)
    b, _ = sync.reset(seed=9)
    rng = np.random.default_rng(1)
    ended = 0
    for _ in range(150):
        np.testing.assert_array_equal(a["observation"], b["observation"])
        np.testing.assert_array_equal(a["action_mask"], b["action_mask"])
        actions = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in a["action_mask"]])
        a, _, done, _, _ = ours.step(actions)
        b, _, done_sync, _, _ = sync.step(actions)
        np.testing.assert_array_equal(done, done_sync)
        ended += int(done.sum())
    assert ended >= n
