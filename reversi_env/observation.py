"""The observation every env and agent shares, and the way back to a state.

An observation is ``{"observation": int8 (8, 8, 2), "action_mask": int8 (65,)}``:
plane 0 holds the observer's discs, plane 1 the opponent's; the mask is the
legal actions when the observer is to move and all zeros otherwise.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TypeAlias

import numpy as np

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
