"""The AEC env in the observation layout of RLlib's action-masking modules.

RLlib's ``ActionMaskingTorchRLModule`` (``ray.rllib.examples.rl_modules.classes.
action_masking_rlm``) reads an observation dict with the keys ``observations``
and ``action_mask``; it feeds ``observations`` to its encoder and adds
``log(action_mask)`` to the logits. ``RLlibObservationWrapper`` renames
``observation`` to ``observations`` as float32 (torch layers take no int8);
the mask stays int8, as PettingZoo's samplers require (``torch.log`` promotes
it). ``flatten=True`` also flattens the (8, 8, 2) planes to (128,), since
RLlib's default encoders have no CNN for an 8 x 8 input.

This module does not import ray; ``rllib_env()`` does, when it is called::

    from ray.tune.registry import register_env
    from reversi_env.rllib import rllib_env
    register_env("reversi", lambda config: rllib_env(**config))
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils.wrappers import BaseWrapper

from reversi_env.aec import env as make_aec_env

OBSERVATIONS = "observations"
"""The key of the board planes in RLlib's masking layout."""
ACTION_MASK = "action_mask"
"""The key of the legal-action mask (int8, 1 = legal)."""


class RLlibObservationWrapper(BaseWrapper):
    """An AEC wrapper whose observations are ``{"observations": float32 planes,
    "action_mask": int8 (65,)}``: the layout RLlib's masking modules expect."""

    def __init__(self, env: AECEnv, *, flatten: bool = False) -> None:
        """Wrap ``env`` (a Reversi AEC env: ``reversi_env.env()`` or ``raw_env()``);
        ``flatten``: observations as (128,) instead of (8, 8, 2)."""
        if not isinstance(env, AECEnv):
            raise TypeError(f"env must be a PettingZoo AECEnv, got {type(env).__name__}")
        if not isinstance(flatten, bool):
            raise TypeError(f"flatten must be a bool, got {flatten!r}")
        super().__init__(env)
        self.flatten = flatten
        self._spaces: dict[Any, spaces.Dict] = {}
        for agent in env.possible_agents:
            inner = env.observation_space(agent)
            if not (isinstance(inner, spaces.Dict) and "observation" in inner.spaces and ACTION_MASK in inner.spaces):
                raise ValueError(
                    f"env's observation space for {agent!r} must be a Dict with 'observation' and "
                    f"'action_mask', got {inner}"
                )
            planes = inner["observation"]
            mask = inner[ACTION_MASK]
            shape: tuple[int, ...] = tuple(planes.shape or ())
            if flatten:
                shape = (int(np.prod(shape)),)
            self._spaces[agent] = spaces.Dict(
                {
                    OBSERVATIONS: spaces.Box(0.0, 1.0, shape=shape, dtype=np.float32),
                    ACTION_MASK: mask,
                }
            )

    def observation_space(self, agent: Any) -> spaces.Dict:
        """The renamed space of ``agent`` (the same object every call)."""
        return self._spaces[agent]

    def observe(self, agent: Any) -> dict[str, np.ndarray]:
        """``agent``'s observation in RLlib's layout (fresh arrays)."""
        return rllib_observation(self.env.observe(agent), flatten=self.flatten)


def rllib_observation(observation: Mapping[str, Any], *, flatten: bool = False) -> dict[str, np.ndarray]:
    """An env observation (``observation`` / ``action_mask``) in RLlib's layout:
    what the wrapper gives a policy, for calling a trained module outside RLlib."""
    planes = np.asarray(observation["observation"], dtype=np.float32)
    return {
        OBSERVATIONS: planes.reshape(-1) if flatten else planes,
        ACTION_MASK: np.array(observation[ACTION_MASK], dtype=np.int8),
    }


def rllib_env(*, flatten: bool = True, max_moves: int | None = None) -> Any:
    """An RLlib ``MultiAgentEnv``: ``PettingZooEnv(RLlibObservationWrapper(env()))``.

    Both seats (``black_0``, ``white_0``) act in turn; imports ray on call.
    Pass it to ``register_env`` as ``lambda config: rllib_env(**config)``.
    """
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv

    return PettingZooEnv(RLlibObservationWrapper(make_aec_env(max_moves=max_moves), flatten=flatten))
