"""Action masking in each RL library: a masked policy never plays an illegal move
over many games, and RLlib's renamed-keys wrapper passes the checkers.

The envs here are built on ``raw_env``, which raises IllegalMoveError on an
illegal action instead of ending the game, so a single masking slip fails the
test. Each library check also shows the same untrained policy *without* its
mask plays illegal moves, so the mask is what keeps it legal.
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
import torch
from conftest import random_game
from gymnasium import spaces
from pettingzoo.test import api_test, seed_test

import reversi_env
from reversi_env import IllegalMoveError, raw_env
from reversi_env.observation import observe
from reversi_env.rllib import ACTION_MASK, OBSERVATIONS, RLlibObservationWrapper, rllib_env, rllib_observation

GAMES = 60


# -- RLlib's layout --------------------------------------------------------------


@pytest.mark.parametrize("flatten", [False, True])
def test_rllib_wrapper_passes_pettingzoo_api_and_seed_tests(flatten: bool) -> None:
    api_test(RLlibObservationWrapper(reversi_env.env(), flatten=flatten), num_cycles=300)
    seed_test(lambda: RLlibObservationWrapper(reversi_env.env(), flatten=flatten), num_cycles=300)


def test_rllib_env_passes_rllib_multiagent_checks() -> None:
    from ray.rllib.env.multi_agent_env import MultiAgentEnv
    from ray.rllib.utils.pre_checks.env import check_multiagent_environments

    env = rllib_env()
    assert isinstance(env, MultiAgentEnv)
    check_multiagent_environments(env)
    obs, _ = env.reset(seed=0)
    assert set(obs) == {"black_0"}
    assert obs["black_0"][OBSERVATIONS].shape == (128,) and obs["black_0"][OBSERVATIONS].dtype == np.float32
    assert env.observation_space["black_0"].contains(obs["black_0"])


@pytest.mark.parametrize("flatten", [False, True])
def test_rllib_observations_are_the_env_observations_renamed(flatten: bool) -> None:
    inner = raw_env()
    wrapped = RLlibObservationWrapper(inner, flatten=flatten)
    wrapped.reset()
    rng = np.random.default_rng(0)
    for _ in range(30):
        for agent in inner.possible_agents:
            original = inner.observe(agent)
            renamed = wrapped.observe(agent)
            assert set(renamed) == {OBSERVATIONS, ACTION_MASK}
            assert renamed[OBSERVATIONS].dtype == np.float32 and renamed[ACTION_MASK].dtype == np.int8
            planes = renamed[OBSERVATIONS].reshape(8, 8, 2)
            assert np.array_equal(planes, original["observation"])
            assert np.array_equal(renamed[ACTION_MASK], original["action_mask"])
            assert wrapped.observation_space(agent).contains(renamed)
            assert wrapped.observation_space(agent) is wrapped.observation_space(agent)
        wrapped.step(int(rng.choice(inner.state.legal_actions())))


def test_rllib_wrapper_bad_input() -> None:
    with pytest.raises(TypeError, match="AECEnv"):
        RLlibObservationWrapper(reversi_env.ReversiGymEnv())  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="flatten"):
        RLlibObservationWrapper(raw_env(), flatten=1)  # type: ignore[arg-type]
    env = raw_env()
    env.observation_spaces = dict.fromkeys(env.possible_agents, spaces.Box(0, 1, (128,), np.int8))
    with pytest.raises(ValueError, match="'observation' and 'action_mask'"):
        RLlibObservationWrapper(env)
    with pytest.raises(KeyError):
        rllib_observation({"observations": np.zeros((8, 8, 2))})


def test_reversi_env_imports_no_ray() -> None:
    code = "import sys, reversi_env, reversi_env.rllib, reversi_env.selfplay; assert 'ray' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)


# -- masked policies over many games -------------------------------------------------


def test_rllib_masking_module_never_plays_illegal() -> None:
    from ray.rllib.core.columns import Columns
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule

    torch.manual_seed(0)
    env = RLlibObservationWrapper(raw_env(), flatten=True)
    module = RLModuleSpec(
        module_class=ActionMaskingTorchRLModule,
        observation_space=env.observation_space("black_0"),
        action_space=env.action_space("black_0"),
        model_config={"fcnet_hiddens": [32]},
    ).build()

    def sample(obs: dict[str, np.ndarray], masked: bool) -> int:
        mask = obs[ACTION_MASK] if masked else np.ones_like(obs[ACTION_MASK])
        batch = {
            Columns.OBS: {
                OBSERVATIONS: torch.as_tensor(obs[OBSERVATIONS])[None],
                ACTION_MASK: torch.as_tensor(mask)[None],
            }
        }
        with torch.no_grad():
            logits = module.forward_exploration(batch)[Columns.ACTION_DIST_INPUTS][0]
        return int(torch.distributions.Categorical(logits=logits).sample())

    for _ in range(GAMES):
        env.reset()
        while env.agents:
            obs, _, terminated, truncated, _ = env.last()
            env.step(None if terminated or truncated else sample(obs, masked=True))  # raw_env raises if illegal
    env.reset()
    with pytest.raises(IllegalMoveError):
        for _ in range(200):
            env.step(sample(env.observe(env.agent_selection), masked=False))


def test_sb3_maskable_policy_never_plays_illegal() -> None:
    from sb3_contrib import MaskablePPO

    env = reversi_env.ReversiGymEnv(play_as="random")
    model = MaskablePPO("MultiInputPolicy", env, n_steps=64, seed=0)
    for game in range(GAMES):
        obs, _ = env.reset(seed=game)
        terminated = False
        while not terminated:
            mask = env.action_masks()
            action, _ = model.predict(obs, action_masks=mask, deterministic=False)
            assert mask[int(action)]
            obs, _, terminated, _, info = env.step(int(action))
            assert "illegal" not in info
        assert {"black_discs", "white_discs"} <= set(info)  # played to the end
    obs, _ = env.reset(seed=0)
    illegal = False
    for _ in range(200):
        action, _ = model.predict(obs, deterministic=False)  # no mask
        if not env.action_masks()[int(action)]:
            illegal = True
            break
        obs, _, terminated, _, _ = env.step(int(action))
        if terminated:
            obs, _ = env.reset()
    assert illegal


def test_tianshou_dqn_never_plays_illegal() -> None:
    from tianshou.algorithm import DQN, MultiAgentOffPolicyAlgorithm
    from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy
    from tianshou.algorithm.optim import AdamOptimizerFactory
    from tianshou.data import Batch, Collector, CollectStats
    from tianshou.env import DummyVectorEnv
    from tianshou.env.pettingzoo_env import PettingZooEnv
    from tianshou.utils.net.common import Net

    torch.manual_seed(0)
    np.random.seed(0)
    env = PettingZooEnv(raw_env())

    def dqn(eps: float) -> DQN:
        net = Net(state_shape=(8, 8, 2), action_shape=65, hidden_sizes=[32])
        policy = DiscreteQLearningPolicy(model=net, action_space=env.action_space, eps_training=eps, eps_inference=eps)
        return DQN(policy=policy, optim=AdamOptimizerFactory(lr=1e-3))

    # Black explores at random (eps 1), white plays its Q-values greedily: both masked.
    algorithm = MultiAgentOffPolicyAlgorithm(algorithms=[dqn(1.0), dqn(0.0)], env=env)
    envs = DummyVectorEnv([lambda: PettingZooEnv(raw_env()) for _ in range(4)])
    for noise in (True, False):
        stats = Collector[CollectStats](algorithm, envs, exploration_noise=noise).collect(
            n_episode=GAMES // 2, reset_before_collect=True
        )
        assert stats.n_collected_episodes >= GAMES // 2  # raw_env would have raised on an illegal move
    # Without the mask, the greedy Q-network picks masked-out actions.
    greedy = dqn(0.0).policy
    picks_illegal = False
    for state in random_game(0)[:-1]:
        obs = observe(state, state.player)
        act = greedy(Batch(obs=Batch(obs=obs["observation"][None]), info=Batch())).act[0]
        picks_illegal |= not obs["action_mask"][int(act)]
    assert picks_illegal
