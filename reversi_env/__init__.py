"""reversi-env: Reversi (Othello) for reinforcement learning and for people.

The rules core (``GameState``, ``perft``, notation, the error family) and the
environments: ``env()`` / ``raw_env`` (PettingZoo AEC), ``ReversiGymEnv``
(Gymnasium, one agent against an opponent) and ``ReversiVectorEnv`` (N games in
one numba call). Importing registers ``pettingzoo.make("aec", "reversi_env/reversi-v0")``
and ``gymnasium.make("reversi_env/Reversi-v0")`` (``gymnasium.make_vec`` gives the
vector env); pygame is imported only to draw.
"""

from __future__ import annotations

import gymnasium as _gymnasium
import pettingzoo as _pettingzoo

from reversi_env.aec import env, raw_env
from reversi_env.errors import IllegalMoveError, InvalidMoveError, InvalidPositionError
from reversi_env.gym import OpponentError, ReversiGymEnv
from reversi_env.notation import PASS, Action, Square, action_name, parse_action, parse_square, square_name
from reversi_env.state import BLACK, WHITE, GameState, Player, divide, perft
from reversi_env.vector import ReversiVectorEnv

AEC_ENV_ID = "reversi_env/reversi-v0"
"""The AEC env's id: ``pettingzoo.make("aec", AEC_ENV_ID)``."""
GYM_ENV_ID = "reversi_env/Reversi-v0"
"""The Gymnasium env's id: ``gymnasium.make(GYM_ENV_ID)``, ``gymnasium.make_vec(GYM_ENV_ID, num_envs=N)``."""
# PettingZoo's registry (pettingzoo.make) is recent; without it, reversi_env.env() is the way in.
if hasattr(_pettingzoo, "register") and AEC_ENV_ID not in _pettingzoo.aec_registry:
    _pettingzoo.register("aec", AEC_ENV_ID, entry_point="reversi_env.aec:env")
if GYM_ENV_ID not in _gymnasium.registry:
    _gymnasium.register(
        GYM_ENV_ID,
        entry_point="reversi_env.gym:ReversiGymEnv",
        vector_entry_point="reversi_env.vector:ReversiVectorEnv",
    )

__all__ = [
    "AEC_ENV_ID",
    "BLACK",
    "GYM_ENV_ID",
    "PASS",
    "WHITE",
    "Action",
    "GameState",
    "IllegalMoveError",
    "InvalidMoveError",
    "InvalidPositionError",
    "OpponentError",
    "Player",
    "ReversiGymEnv",
    "ReversiVectorEnv",
    "Square",
    "action_name",
    "divide",
    "env",
    "parse_action",
    "parse_square",
    "perft",
    "raw_env",
    "square_name",
]

__version__ = "0.1.0"
"""The package's version, its one record: pyproject.toml reads it (``dynamic``), ``reversi --version``
the installed metadata made from it."""
