"""The observation every env and agent shares, its options, and the way back to a state.

An observation is ``{"observation": int8 (8, 8, 2), "action_mask": int8 (65,)}``:
plane 0 holds the observer's discs, plane 1 the opponent's; the mask is the
legal actions when the observer is to move and all zeros otherwise.

``ObservationSpec`` is the one record of the options every env takes as its
``observation=`` argument (the AEC env, ``ReversiGymEnv``, ``ReversiVectorEnv``):
the dtype, the layout, the extra planes, a history of positions, flat or not.
Its defaults are the observation above. The planes, in order:

* for each of the last ``history`` positions, newest first: the observer's
  discs, then the opponent's (one position per ply, passes included; zeros
  before the game's start);
* ``legal_moves``: the observer's legal placements (the mask's first 64);
* ``side_to_move``: a constant plane, 1 when the observer plays black and 0
  when white (AlphaZero's colour plane: the observer is the side to move
  whenever its mask allows an action).

The mask stays beside the planes, int8 (65,), whatever the options.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from functools import cached_property
from typing import Any, TypeAlias

import numpy as np
from gymnasium import spaces

from reversi_env import bitboard as bb
from reversi_env.errors import InvalidPositionError
from reversi_env.notation import NUM_ACTIONS
from reversi_env.state import BLACK, GameState, Player, parse_player

Observation: TypeAlias = Mapping[str, np.ndarray]

_WEIGHTS = (1 << np.arange(64, dtype=np.uint64)).astype(np.uint64)


def observe(state: GameState, perspective: Player) -> dict[str, np.ndarray]:
    """The observation of ``state`` for the player ``perspective`` (fresh arrays)."""
    mask = state.legal_mask() if state.player == perspective else np.zeros(NUM_ACTIONS, dtype=np.int8)
    mine, theirs = (state.black, state.white) if perspective == BLACK else (state.white, state.black)
    return {"observation": bb.planes_of(mine, theirs), "action_mask": mask}


DTYPES = ("int8", "float32")
"""The observation dtypes an ``ObservationSpec`` offers."""
LAYOUTS = ("HWC", "CHW")
"""The layouts: (8, 8, C) channels last, or (C, 8, 8) channels first (torch's)."""
MAX_HISTORY = 64
"""The longest history of positions an observation carries (a game has at most 60 placements)."""


@dataclass(frozen=True)
class ObservationSpec:
    """What an env's ``"observation"`` entry holds (see the module docstring for the planes).

    Args:
        dtype: "int8" (default) or "float32"; the values are 0 and 1 either way.
        layout: "HWC" (default), shape (8, 8, C), or "CHW", shape (C, 8, 8).
        legal_moves: add a plane of the observer's legal placements.
        side_to_move: add a constant plane, 1 when the observer plays black.
        history: the number of positions shown, newest first (default 1, the current one).
        flat: flatten the planes, in the layout's order, to shape (64 * C,).

    Raises:
        ValueError: naming the option and the values it takes.

    One record for every env, so a learner's network meets the same arrays in
    the AEC, single-agent and vector envs; each env builds its space from it once.
    """

    dtype: str = "int8"
    layout: str = "HWC"
    legal_moves: bool = False
    side_to_move: bool = False
    history: int = 1
    flat: bool = False

    def __post_init__(self) -> None:
        dtype = self.dtype
        if isinstance(dtype, np.dtype) or (isinstance(dtype, type) and issubclass(dtype, np.generic)):
            dtype = np.dtype(dtype).name
        if not isinstance(dtype, str) or dtype not in DTYPES:
            raise ValueError(f"observation dtype must be one of {', '.join(DTYPES)}, got {self.dtype!r}")
        object.__setattr__(self, "dtype", dtype)
        if not isinstance(self.layout, str) or self.layout.upper() not in LAYOUTS:
            raise ValueError(f"observation layout must be one of {', '.join(LAYOUTS)}, got {self.layout!r}")
        object.__setattr__(self, "layout", self.layout.upper())
        for name in ("legal_moves", "side_to_move", "flat"):
            if not isinstance(getattr(self, name), (bool, np.bool_)):
                raise ValueError(f"observation {name} must be True or False, got {getattr(self, name)!r}")
            object.__setattr__(self, name, bool(getattr(self, name)))
        h = self.history
        if isinstance(h, (bool, np.bool_)) or not isinstance(h, (int, np.integer)) or not 1 <= h <= MAX_HISTORY:
            raise ValueError(f"observation history must be an int from 1 to {MAX_HISTORY}, got {h!r}")
        object.__setattr__(self, "history", int(h))

    @classmethod
    def of(cls, value: ObservationSpec | Mapping[str, Any] | None) -> ObservationSpec:
        """``value`` as a spec: a spec itself, a mapping of its fields (as a config file gives
        them) or None (the defaults). Raises ValueError for an unknown field or a bad value."""
        if value is None:
            return cls()
        if isinstance(value, ObservationSpec):
            return value
        if isinstance(value, Mapping):
            known = {f.name for f in fields(cls)}
            unknown = sorted(map(str, set(value) - known))
            if unknown:
                raise ValueError(f"unknown observation options {unknown}; the options are {sorted(known)}")
            return cls(**value)
        raise ValueError(f"observation must be an ObservationSpec, a dict of its options or None, got {value!r}")

    @cached_property
    def is_default(self) -> bool:
        """True for the default observation (int8 (8, 8, 2) own / opponent planes); computed
        once a spec, since every env's ``observe`` asks it."""
        return self == ObservationSpec()

    @property
    def num_planes(self) -> int:
        """C, the number of planes."""
        return 2 * self.history + self.legal_moves + self.side_to_move

    @property
    def legal_plane(self) -> int:
        """The index of the legal-moves plane (meaningful when ``legal_moves``)."""
        return 2 * self.history

    @property
    def side_plane(self) -> int:
        """The index of the side-to-move plane (meaningful when ``side_to_move``)."""
        return 2 * self.history + self.legal_moves

    @property
    def shape(self) -> tuple[int, ...]:
        """The shape of the ``"observation"`` array."""
        c = self.num_planes
        if self.flat:
            return (64 * c,)
        return (8, 8, c) if self.layout == "HWC" else (c, 8, 8)

    @property
    def numpy_dtype(self) -> np.dtype:
        """The ``"observation"`` array's numpy dtype."""
        return np.dtype(self.dtype)

    def space(self) -> spaces.Dict:
        """A new space: ``Dict(observation=Box(0, 1, shape, dtype), action_mask=Box(0, 1, (65,), int8))``."""
        return spaces.Dict(
            {
                "observation": spaces.Box(low=0, high=1, shape=self.shape, dtype=self.numpy_dtype),
                "action_mask": spaces.Box(low=0, high=1, shape=(NUM_ACTIONS,), dtype=np.int8),
            }
        )

    def planes(self, planes: np.ndarray) -> np.ndarray:
        """(..., C, 64) planes, square index last, laid out as this spec says (a fresh array)."""
        lead = planes.shape[:-2]
        c = self.num_planes
        if self.layout == "HWC":
            planes = np.swapaxes(planes, -1, -2)
            out = planes.reshape((*lead, 64 * c) if self.flat else (*lead, 8, 8, c))
        else:
            out = planes.reshape((*lead, 64 * c) if self.flat else (*lead, c, 8, 8))
        return np.array(out, dtype=self.numpy_dtype, order="C")

    def square_planes(self, observation: np.ndarray) -> np.ndarray:
        """The inverse of ``planes``: (..., C, 64) planes from observations of this spec
        (a view where the layout allows). Raises ValueError for a wrong shape."""
        obs = np.asarray(observation)
        n = len(self.shape)
        if obs.shape[obs.ndim - n :] != self.shape:
            raise ValueError(f"observations of this spec end in shape {self.shape}, got {obs.shape}")
        lead = obs.shape[: obs.ndim - n]
        c = self.num_planes
        if self.layout == "HWC":
            return np.swapaxes(obs.reshape((*lead, 64, c)), -1, -2)
        return obs.reshape((*lead, c, 64))

    def observe(
        self, state: GameState, perspective: Player, history: Sequence[GameState] = ()
    ) -> dict[str, np.ndarray]:
        """The observation of ``state`` for ``perspective``, with the positions before it in
        ``history`` (newest first; those past ``self.history - 1`` are not shown). Fresh arrays."""
        obs = observe(state, perspective)
        if self.is_default:
            return obs
        planes = np.zeros((self.num_planes, 64), dtype=np.int8)
        for t, past in enumerate((state, *history[: self.history - 1])):
            mine, theirs = (past.black, past.white) if perspective == BLACK else (past.white, past.black)
            planes[2 * t] = (np.uint64(mine) & _WEIGHTS) != 0
            planes[2 * t + 1] = (np.uint64(theirs) & _WEIGHTS) != 0
        if self.legal_moves:
            planes[self.legal_plane] = obs["action_mask"][:64]
        if self.side_to_move:
            planes[self.side_plane] = perspective == BLACK
        return {"observation": self.planes(planes), "action_mask": obs["action_mask"]}


def state_from_observation(observation: Observation, player: object = BLACK) -> GameState:
    """The position an observation shows, with the observer to move.

    The observation does not say which colour the observer plays; ``player``
    (default black) fixes it. Search does not care, since the rules are the
    same for both colours. Raises InvalidPositionError for a malformed one.
    """
    planes = np.asarray(_entry(observation, "observation"))
    if planes.shape != (8, 8, 2):
        raise InvalidPositionError(f"observation planes must have shape (8, 8, 2), got {planes.shape}")
    if not ((planes == 0) | (planes == 1)).all():
        raise InvalidPositionError(f"observation planes must hold only 0 and 1, got the values {np.unique(planes)[:8]}")
    flat = planes.reshape(64, 2) != 0
    mine = int(_WEIGHTS[flat[:, 0]].sum())
    theirs = int(_WEIGHTS[flat[:, 1]].sum())
    me = parse_player(player)
    return GameState(*((mine, theirs) if me == BLACK else (theirs, mine)), me)


def legal_actions_from_observation(observation: Observation) -> list[int]:
    """The legal actions an observation's mask allows, sorted. Raises
    InvalidPositionError when there is no mask of 65 entries."""
    mask = np.asarray(_entry(observation, "action_mask"))
    if mask.shape != (NUM_ACTIONS,):
        raise InvalidPositionError(f"action_mask must have shape ({NUM_ACTIONS},), got {mask.shape}")
    return [int(a) for a in np.flatnonzero(mask)]


def _entry(observation: object, key: str) -> object:
    """``observation[key]``; InvalidPositionError naming what was given instead
    (its type and keys, not its whole repr, which for arrays runs to pages)."""
    try:
        return observation[key]  # type: ignore[index]
    except (KeyError, TypeError, IndexError, ValueError):
        pass
    if isinstance(observation, Mapping):
        got = f"a {type(observation).__name__} with keys {sorted(map(str, observation))}"
    else:
        got = f"a {type(observation).__name__}"
    raise InvalidPositionError(
        f"an observation is a dict with 'observation' and 'action_mask' (see reversi_env.observation), got {got}"
    ) from None
