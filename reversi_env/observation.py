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
    try:
        planes = np.asarray(observation["observation"])
    except (KeyError, TypeError, IndexError) as e:
        raise InvalidPositionError(
            f"an observation is a dict with 'observation' and 'action_mask', got {observation!r}"
        ) from e
    if planes.shape != (8, 8, 2):
        raise InvalidPositionError(f"observation planes must have shape (8, 8, 2), got {planes.shape}")
    flat = planes.reshape(64, 2) != 0
    mine = int(_WEIGHTS[flat[:, 0]].sum())
    theirs = int(_WEIGHTS[flat[:, 1]].sum())
    me = parse_player(player)
    return GameState(*((mine, theirs) if me == BLACK else (theirs, mine)), me)


def legal_actions_from_observation(observation: Observation) -> list[int]:
    """The legal actions an observation's mask allows, sorted."""
    return [int(a) for a in np.flatnonzero(np.asarray(observation["action_mask"]))]
