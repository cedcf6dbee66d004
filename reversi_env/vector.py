"""A Gymnasium vector env: N single-agent games against the random opponent, one numba call per step.

``ReversiVectorEnv(num_envs, opponent="random", play_as="black", reward="win", seed=None,
autoreset_mode=AutoresetMode.SAME_STEP, observation=None)`` is the batched ``ReversiGymEnv`` with its
default opponent: the same observations, rewards, infos and illegal-action
rule, for N games at once.

* ``step(actions)`` plays every agent's action and every opponent's reply in
  ``reversi_env.batch.step_all``. Observations are ``{"observation": int8
  (N, 8, 8, 2), "action_mask": int8 (N, 65)}``; ``action_masks()`` is the
  bool (N, 65) mask of the last observations, for MaskablePPO-style code.
  ``observation=`` (an ``ObservationSpec`` or a dict of its fields) changes the
  planes as in ``ReversiGymEnv``; the kernels write them, whatever the options.
* Autoreset, as ``gymnasium.vector.SyncVectorEnv(..., autoreset_mode=...)``
  over ``ReversiGymEnv`` does it, value for value (``metadata["autoreset_mode"]``
  says which):

  - ``SAME_STEP`` (the default): a game that ends is reset in the same step,
    so every returned mask belongs to a live game (a learner never sees an
    all-zero mask). Its last observation is ``infos["final_obs"][i]``, its
    end info ``infos["final_info"]`` (with ``_``-prefixed masks); the new
    game's colour is ``infos["player"]``.
  - ``NEXT_STEP``: the step that ends a game returns its last observation
    (the mask is all zeros, or after an illegal action the mask of the
    position it refused) and its end info in ``infos``; the next step ignores
    that game's action, restarts it and returns reward 0, not terminated,
    and its colour in ``infos["player"]``.
  - ``DISABLED``: as ``NEXT_STEP``, but nothing restarts by itself: call
    ``reset(options={"reset_mask": ended})`` before the next ``step``.

  ``reset(options={"reset_mask": m})`` (a bool array of N) restarts only the
  games ``m`` selects, in any mode; the others keep their observations.
* Seeding: ``reset(seed=s)`` seeds game ``i`` with ``s + i`` (a list gives one
  seed per game); game ``i`` then plays exactly what ``ReversiGymEnv`` reset with
  that seed plays for the same actions (see ``reversi_env.batch``). ``seed=``
  in the constructor is used by the first ``reset()`` that passes none.
* Actions outside 0-64 or of a non-integer dtype raise ``InvalidMoveError``;
  a masked-out action ends that game with reward -1 and the info ``"illegal"``.
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
from reversi_env.bitboard import make_rng
from reversi_env.errors import InvalidMoveError
from reversi_env.gym import RANDOM_OPPONENT, kernel_seed, parse_play_as, parse_reward
from reversi_env.notation import NUM_ACTIONS, PASS
from reversi_env.observation import ObservationSpec

_MAX_ENVS = 1 << 24


def _is_seed(value: object) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool) and bool(value >= 0)


def _parse_autoreset_mode(mode: object) -> AutoresetMode:
    """An AutoresetMode, or its value ("SameStep", "NextStep", "Disabled"), as SyncVectorEnv takes it."""
    if isinstance(mode, AutoresetMode):
        return mode
    try:
        return AutoresetMode(mode)
    except ValueError:
        names = ", ".join(f"AutoresetMode.{m.name} ({m.value!r})" for m in AutoresetMode)
        raise ValueError(f"autoreset_mode must be one of {names}, got {mode!r}") from None


class ReversiVectorEnv(VectorEnv):
    """N Reversi games against the random opponent, stepped together (see the module docstring)."""

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}  # noqa: RUF012

    def __init__(
        self,
        num_envs: int,
        opponent: str | None = RANDOM_OPPONENT,
        play_as: str = "black",
        reward: str = "win",
        seed: int | Sequence[int] | None = None,
        autoreset_mode: AutoresetMode | str = AutoresetMode.SAME_STEP,
        observation: ObservationSpec | dict[str, Any] | None = None,
    ) -> None:
        """``num_envs`` games; ``opponent`` must be "random" (the kernel's; None is the same, as in
        ``ReversiGymEnv``); ``play_as`` "black" / "white" / "random"; ``reward`` "win" /
        "disc_diff"; ``seed`` for the first reset; ``autoreset_mode`` an ``AutoresetMode``;
        ``observation`` an ``ObservationSpec`` or a dict of its fields (None: the default planes)."""
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or not 1 <= num_envs <= _MAX_ENVS:
            raise ValueError(f"num_envs must be an int from 1 to {_MAX_ENVS}, got {num_envs!r}")
        if opponent is not None and not (isinstance(opponent, str) and opponent == RANDOM_OPPONENT):
            raise ValueError(
                f"ReversiVectorEnv plays only the built-in 'random' opponent, got {opponent!r}; for another "
                "opponent use gymnasium.vector.SyncVectorEnv over ReversiGymEnv(opponent=...), e.g. "
                'gymnasium.make_vec("reversi_env/Reversi-v0", n, vectorization_mode="sync", opponent=...)'
            )
        self.num_envs = int(num_envs)
        self._play_as = np.int64(parse_play_as(play_as))
        self._reward_mode = np.int64(parse_reward(reward))
        self.autoreset_mode = _parse_autoreset_mode(autoreset_mode)
        self.metadata = {**type(self).metadata, "autoreset_mode": self.autoreset_mode}
        self._default_seed = self._check_seed(seed)
        self.render_mode = None
        self.observation_spec = ObservationSpec.of(observation)
        self.single_observation_space = self.observation_spec.space()
        self.single_action_space = spaces.Discrete(NUM_ACTIONS)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        n = self.num_envs
        self._me = np.zeros(n, dtype=np.uint64)
        self._opp = np.zeros(n, dtype=np.uint64)
        self._color = np.zeros(n, dtype=np.int64)
        self._rng = np.zeros(n, dtype=np.uint64)
        spec = self.observation_spec
        self._past = np.zeros((n, spec.history - 1, 2), dtype=np.uint64)  # earlier positions, see batch
        self._extra = np.int64(batch.EXTRA_LEGAL * spec.legal_moves + batch.EXTRA_SIDE * spec.side_to_move)
        self._mask: np.ndarray | None = None  # the masks last returned (action_masks())
        # Games that ended at the last step and that the kernel has already restarted,
        # which NEXT_STEP / DISABLED show only at the next step / reset (until then they
        # show their last observation, kept in _final). Restarting at once draws what a
        # later reset would from the game's own stream, so the games are those of
        # SyncVectorEnv over ReversiGymEnv all the same.
        self._ended = np.zeros(n, dtype=bool)
        self._final: tuple[np.ndarray, np.ndarray] | None = None

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

    def _check_reset_mask(self, options: object) -> np.ndarray | None:
        """``options["reset_mask"]``, checked as SyncVectorEnv checks it, or None for a full reset."""
        if options is None:
            return None
        if not isinstance(options, dict):
            raise TypeError(f"options must be a dict or None, got {type(options).__name__}")
        if "reset_mask" not in options:
            return None
        reset_mask = options["reset_mask"]
        if not isinstance(reset_mask, np.ndarray):
            raise TypeError(f"options['reset_mask'] must be a numpy array, got {type(reset_mask).__name__}")
        if reset_mask.shape != (self.num_envs,):
            raise ValueError(f"options['reset_mask'] must have shape ({self.num_envs},), got {reset_mask.shape}")
        if reset_mask.dtype != np.bool_:
            raise TypeError(f"options['reset_mask'] must have dtype bool, got {reset_mask.dtype}")
        if not reset_mask.any():
            raise ValueError("options['reset_mask'] must select at least one game")
        if self._mask is None:
            raise RuntimeError("call reset() on all games before restarting some with options['reset_mask']")
        return reset_mask.copy()

    def reset(
        self, *, seed: int | Sequence[int] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """Start all N games, or those ``options["reset_mask"]`` selects; infos hold each
        restarted agent's colour in ``"player"``. Other ``options`` are ignored."""
        reset_mask = self._check_reset_mask(options)
        seeds = self._check_seed(seed)
        if reset_mask is not None:
            return self._reset_some(reset_mask, seeds)
        if seeds is None:
            seeds, self._default_seed = self._default_seed, None
        if seeds is None:
            seeds = [None] * self.num_envs
        self._np_random, self._np_random_seed = seeding.np_random(seeds[0])
        for i, s in enumerate(seeds):
            self._rng[i] = make_rng(kernel_seed(seeding.np_random(s)[0]))[0]
        batch.reset_all(self._me, self._opp, self._color, self._rng, self._play_as, self._past)
        self._ended[:] = False
        obs, self._mask = self._observations()
        return {"observation": obs, "action_mask": self._mask.copy()}, {
            "player": self._color.copy(),
            "_player": np.ones(self.num_envs, dtype=bool),
        }

    def _reset_some(
        self, reset_mask: np.ndarray, seeds: list[int | None] | None
    ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """Restart the selected games; the others keep their positions and last observations."""
        for i in np.flatnonzero(reset_mask).tolist():
            s = None if seeds is None else seeds[i]
            if s is not None:
                self._rng[i] = make_rng(kernel_seed(seeding.np_random(s)[0]))[0]
            if s is not None or not self._ended[i]:  # an ended game was restarted from its own stream already
                batch.reset_game(i, self._me, self._opp, self._color, self._rng, self._play_as, self._past)
        self._ended &= ~reset_mask
        obs, mask = self._observations()
        if self._ended.any():  # games still showing their end
            assert self._final is not None
            obs[self._ended] = self._final[0][self._ended]
            mask[self._ended] = self._final[1][self._ended]
        self._mask = mask
        return {"observation": obs, "action_mask": mask.copy()}, {
            "player": self._color * reset_mask,
            "_player": reset_mask.copy(),
        }

    def step(self, actions: object) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Every game: the agent's action, then the random opponent's reply; ended games
        restart as ``autoreset_mode`` says."""
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
        mode = self.autoreset_mode
        # NEXT_STEP: the games this step restarts (never any under SAME_STEP, so not looked for there)
        revealed = self._ended if mode != AutoresetMode.SAME_STEP and self._ended.any() else None
        if revealed is not None:
            if mode == AutoresetMode.DISABLED:
                raise RuntimeError(
                    f"games {np.flatnonzero(revealed)[:10].tolist()} are over and autoreset_mode is DISABLED: "
                    "restart them with reset(options={'reset_mask': mask}) before step()"
                )
            a = np.where(revealed, batch.SKIP, a)
        n = self.num_envs
        rewards = np.empty(n, dtype=np.float64)
        done = np.empty(n, dtype=bool)
        illegal = np.empty(n, dtype=bool)
        final_obs = self._new_observations()
        final_mask = np.empty((n, NUM_ACTIONS), dtype=np.int8)
        final_discs = np.empty((n, 2), dtype=np.int64)
        obs = self._new_observations()
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
            self._past,
            self._extra,
            rewards,
            done,
            illegal,
            self._squares_view(final_obs),
            final_mask,
            final_discs,
            self._squares_view(obs),
            mask,
        )
        infos: dict[str, Any] = {}
        any_done = bool(done.any())
        if any_done:
            infos = self._end_info(done, illegal, color == 1, final_discs)
        if mode == AutoresetMode.SAME_STEP:
            if any_done:
                infos = self._same_step_infos(done, final_obs, final_mask, infos)
        else:  # the ended games show their last observation now and restart later
            if any_done:
                obs[done] = final_obs[done]
                mask[done] = final_mask[done]
                self._final = (final_obs, final_mask)
            self._ended = done.copy()  # not the array the caller gets
            if revealed is not None:
                infos["player"] = self._color * revealed
                infos["_player"] = revealed.copy()
        self._mask = mask
        return {"observation": obs, "action_mask": mask.copy()}, rewards, done, np.zeros(n, dtype=bool), infos

    def _end_info(
        self, done: np.ndarray, illegal: np.ndarray, white: np.ndarray, final_discs: np.ndarray
    ) -> dict[str, Any]:
        """The end infos of the games that ended this step, batched as SyncVectorEnv
        batches ReversiGymEnv's: a key only when some game has it, with its ``_`` mask."""
        ended = done & ~illegal
        mine = np.where(ended, final_discs[:, 0], 0)
        theirs = np.where(ended, final_discs[:, 1], 0)
        info: dict[str, Any] = {}
        if ended.any():
            info["black_discs"] = np.where(white, theirs, mine)
            info["_black_discs"] = ended.copy()
            info["white_discs"] = np.where(white, mine, theirs)
            info["_white_discs"] = ended.copy()
            info["disc_difference"] = mine - theirs
            info["_disc_difference"] = ended.copy()
        if illegal.any():
            info["illegal"] = illegal.copy()
            info["_illegal"] = illegal.copy()
        return info

    def _same_step_infos(
        self, done: np.ndarray, final_obs: np.ndarray, final_mask: np.ndarray, end_info: dict[str, Any]
    ) -> dict[str, Any]:
        """SyncVectorEnv's same-step infos: the last observations and end infos, and the new colours."""
        last_obs = np.full(self.num_envs, None, dtype=object)
        for i in np.flatnonzero(done).tolist():
            last_obs[i] = {"observation": final_obs[i], "action_mask": final_mask[i]}
        return {
            "final_obs": last_obs,
            "_final_obs": done.copy(),
            "final_info": end_info,
            "_final_info": done.copy(),
            "player": self._color * done,
            "_player": done.copy(),
        }

    def _observations(self) -> tuple[np.ndarray, np.ndarray]:
        """Fresh observations and masks of every game's position now."""
        obs = self._new_observations()
        mask = np.empty((self.num_envs, NUM_ACTIONS), dtype=np.int8)
        batch.write_observations(
            self._me, self._opp, self._color, self._past, self._extra, self._squares_view(obs), mask
        )
        return obs, mask

    def _new_observations(self) -> np.ndarray:
        """An empty batch of observations of ``observation_spec``'s shape and dtype."""
        spec = self.observation_spec
        return np.empty((self.num_envs, *spec.shape), dtype=spec.numpy_dtype)

    def _squares_view(self, obs: np.ndarray) -> np.ndarray:
        """``obs`` viewed as (N, 64, C), square then plane, as the kernels write it."""
        c = self.observation_spec.num_planes
        if self.observation_spec.layout == "HWC":
            return obs.reshape(self.num_envs, 64, c)
        return obs.reshape(self.num_envs, c, 64).transpose(0, 2, 1)

    def action_masks(self) -> np.ndarray:
        """bool (N, 65): each game's mask in the last observations (in NEXT_STEP and
        DISABLED modes a game that just ended has no legal action)."""
        if self._mask is None:
            raise RuntimeError("call reset() before action_masks()")
        return self._mask.astype(bool)
