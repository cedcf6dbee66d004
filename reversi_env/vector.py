"""A Gymnasium vector env: N single-agent games against the random opponent, one numba call per step.

``ReversiVectorEnv(num_envs, opponent="random", play_as="black", reward="win", seed=None)``
is the batched ``ReversiGymEnv`` with its default opponent: the same
observations, rewards, infos and illegal-action rule, for N games at once.

* ``step(actions)`` plays every agent's action and every opponent's reply in
  ``reversi_env.batch.step_all``. Observations are ``{"observation": int8
  (N, 8, 8, 2), "action_mask": int8 (N, 65)}``; ``action_masks()`` is the
  bool (N, 65) mask for MaskablePPO-style code.
* Autoreset is ``AutoresetMode.SAME_STEP``: a game that ends is reset in the
  same step, so every returned mask belongs to a live game (a learner never
  sees an all-zero mask). Its last observation is ``infos["final_obs"][i]``,
  its end info ``infos["final_info"]`` (with ``_``-prefixed masks, as
  ``gymnasium.vector.SyncVectorEnv`` does); the new game's colour is
  ``infos["player"]``.
* Seeding: ``reset(seed=s)`` seeds game ``i`` with ``s + i`` (a list gives one
  seed per game); game ``i`` then plays exactly what ``ReversiGymEnv`` reset with
  that seed plays for the same actions (see ``reversi_env.batch``). ``seed=``
  in the constructor is used by the first ``reset()`` that passes none.
* Actions outside 0-64 or of a non-integer dtype raise ``InvalidMoveError``;
  a masked-out action ends that game with reward -1 and ``final_info["illegal"]``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from reversi_env import batch
from reversi_env.aec import make_observation_space
from reversi_env.bitboard import make_rng
from reversi_env.errors import InvalidMoveError
from reversi_env.gym import kernel_seed, parse_play_as, parse_reward
from reversi_env.notation import NUM_ACTIONS, PASS

_MAX_ENVS = 1 << 24


def _is_seed(value: object) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool) and bool(value >= 0)


class ReversiVectorEnv(VectorEnv):
    """N Reversi games against the random opponent, stepped together (see the module docstring)."""

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}  # noqa: RUF012

    def __init__(
        self,
        num_envs: int,
        opponent: str = "random",
        play_as: str = "black",
        reward: str = "win",
        seed: int | Sequence[int] | None = None,
    ) -> None:
        """``num_envs`` games; ``opponent`` must be "random" (the kernel's); ``play_as``
        "black" / "white" / "random"; ``reward`` "win" / "disc_diff"; ``seed`` for the first reset."""
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or not 1 <= num_envs <= _MAX_ENVS:
            raise ValueError(f"num_envs must be an int from 1 to {_MAX_ENVS}, got {num_envs!r}")
        if opponent != "random":
            raise ValueError(
                f"ReversiVectorEnv plays only the built-in 'random' opponent, got {opponent!r}; for another "
                "opponent use gymnasium.vector.SyncVectorEnv over ReversiGymEnv(opponent=...), e.g. "
                'gymnasium.make_vec("reversi_env/Reversi-v0", n, vectorization_mode="sync", opponent=...)'
            )
        self.num_envs = int(num_envs)
        self._play_as = np.int64(parse_play_as(play_as))
        self._reward_mode = np.int64(parse_reward(reward))
        self._default_seed = self._check_seed(seed)
        self.render_mode = None
        self.single_observation_space = make_observation_space()
        self.single_action_space = spaces.Discrete(NUM_ACTIONS)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        n = self.num_envs
        self._me = np.zeros(n, dtype=np.uint64)
        self._opp = np.zeros(n, dtype=np.uint64)
        self._color = np.zeros(n, dtype=np.int64)
        self._rng = np.zeros(n, dtype=np.uint64)
        self._mask: np.ndarray | None = None

    def _check_seed(self, seed: object) -> list[int | None] | None:
        """Per-game seeds from an int (s, s + 1, ...), a sequence of N ints, or None."""
        if seed is None:
            return None
        if _is_seed(seed):
            return [int(seed) + i for i in range(self.num_envs)]  # type: ignore[call-overload]
        if isinstance(seed, Sequence) and not isinstance(seed, str) and len(seed) == self.num_envs:
            seeds = list(seed)
            if all(
                s is None or (isinstance(s, (int, np.integer)) and not isinstance(s, bool) and s >= 0) for s in seeds
            ):
                return [None if s is None else int(s) for s in seeds]
        raise ValueError(f"seed must be None, a non-negative int or a list of {self.num_envs} of them, got {seed!r}")

    def reset(
        self, *, seed: int | Sequence[int] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """Start all N games; infos hold each agent's colour in ``"player"``. ``options`` are ignored."""
        seeds = self._check_seed(seed)
        if seeds is None:
            seeds, self._default_seed = self._default_seed, None
        if seeds is None:
            seeds = [None] * self.num_envs
        self._np_random, self._np_random_seed = seeding.np_random(seeds[0])
        for i, s in enumerate(seeds):
            self._rng[i] = make_rng(kernel_seed(seeding.np_random(s)[0]))[0]
        batch.reset_all(self._me, self._opp, self._color, self._rng, self._play_as)
        obs = self._observations()
        return obs, {"player": self._color.copy(), "_player": np.ones(self.num_envs, dtype=bool)}

    def step(self, actions: object) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Every game: the agent's action, then the random opponent's reply; ended games restart."""
        if self._mask is None:
            raise RuntimeError("call reset() before step()")
        a = np.asarray(actions)
        if a.shape != (self.num_envs,) or not np.issubdtype(a.dtype, np.integer):
            raise InvalidMoveError(
                f"actions must be an integer array of shape ({self.num_envs},), got dtype {a.dtype} shape {a.shape}"
            )
        if a.size and (a.min() < 0 or a.max() > PASS):
            bad = a[(a < 0) | (a > PASS)]
            raise InvalidMoveError(f"actions must be 0-{PASS}, got {bad[:5].tolist()}")
        n = self.num_envs
        rewards = np.empty(n, dtype=np.float64)
        done = np.empty(n, dtype=bool)
        illegal = np.empty(n, dtype=bool)
        final_obs = np.empty((n, 8, 8, 2), dtype=np.int8)
        final_mask = np.empty((n, NUM_ACTIONS), dtype=np.int8)
        final_discs = np.empty((n, 2), dtype=np.int64)
        obs = np.empty((n, 8, 8, 2), dtype=np.int8)
        mask = np.empty((n, NUM_ACTIONS), dtype=np.int8)
        color = self._color.copy()  # the kernel overwrites the colour of a game it restarts
        batch.step_all(
            self._me,
            self._opp,
            self._color,
            self._rng,
            a.astype(np.int64, copy=False),
            self._play_as,
            self._reward_mode,
            rewards,
            done,
            illegal,
            final_obs,
            final_mask,
            final_discs,
            obs,
            mask,
        )
        self._mask = mask
        infos: dict[str, Any] = {}
        if done.any():
            infos = self._final_infos(done, illegal, color == 1, final_obs, final_mask, final_discs)
        return {"observation": obs, "action_mask": mask.copy()}, rewards, done, np.zeros(n, dtype=bool), infos

    def _final_infos(
        self,
        done: np.ndarray,
        illegal: np.ndarray,
        white: np.ndarray,
        final_obs: np.ndarray,
        final_mask: np.ndarray,
        final_discs: np.ndarray,
    ) -> dict[str, Any]:
        """SyncVectorEnv-style infos for the games that ended this step."""
        last_obs = np.full(self.num_envs, None, dtype=object)
        for i in np.flatnonzero(done).tolist():
            last_obs[i] = {"observation": final_obs[i], "action_mask": final_mask[i]}
        ended = done & ~illegal
        mine = np.where(ended, final_discs[:, 0], 0)
        theirs = np.where(ended, final_discs[:, 1], 0)
        final_info: dict[str, Any] = {}
        if ended.any():  # as SyncVectorEnv does: a key only when some game has it
            final_info["black_discs"] = np.where(white, theirs, mine)
            final_info["_black_discs"] = ended.copy()
            final_info["white_discs"] = np.where(white, mine, theirs)
            final_info["_white_discs"] = ended.copy()
            final_info["disc_difference"] = mine - theirs
            final_info["_disc_difference"] = ended.copy()
        if illegal.any():
            final_info["illegal"] = illegal.copy()
            final_info["_illegal"] = illegal.copy()
        return {
            "final_obs": last_obs,
            "_final_obs": done.copy(),
            "final_info": final_info,
            "_final_info": done.copy(),
            "player": self._color * done,
            "_player": done.copy(),
        }

    def _observations(self) -> dict[str, np.ndarray]:
        obs = np.empty((self.num_envs, 8, 8, 2), dtype=np.int8)
        mask = np.empty((self.num_envs, NUM_ACTIONS), dtype=np.int8)
        batch.write_observations(self._me, self._opp, obs, mask)
        self._mask = mask
        return {"observation": obs, "action_mask": mask.copy()}

    def action_masks(self) -> np.ndarray:
        """bool (N, 65): each game's legal actions now."""
        if self._mask is None:
            raise RuntimeError("call reset() before action_masks()")
        return self._mask.astype(bool)
