"""The 8 symmetries of the board (the dihedral group of the square), as action maps.

``SYMMETRIES[k][a]`` is where action ``a`` (a square 0-63, or 64 = PASS, which
stays PASS) goes under symmetry ``k``; ``k = 0`` is the identity. Reversi's rules
are the same under all eight, so evaluations share weights across them and
training data is augmented by them.

``transform(k, observations, masks, policies, spec=...)`` moves a batch of
observations (any ``ObservationSpec``: dtype, layout, planes, history, flat),
their masks and their policy vectors (65, PASS last) through symmetry ``k``
together, one ``k`` for the batch or one per sample; ``augment`` gives all
eight images at once; ``transform_state`` moves a position, so that
``transform(k, observation of s)`` is the observation of ``transform_state(k, s)``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from reversi_env.notation import NUM_ACTIONS, PASS
from reversi_env.observation import ObservationSpec
from reversi_env.state import GameState


def _symmetries() -> np.ndarray:
    rows, cols = np.divmod(np.arange(64), 8)
    maps = []
    for transpose in (False, True):
        for flip_rows in (False, True):
            for flip_cols in (False, True):
                r, c = (cols, rows) if transpose else (rows, cols)
                r = 7 - r if flip_rows else r
                c = 7 - c if flip_cols else c
                maps.append(np.append(r * 8 + c, PASS))
    return np.array(maps, dtype=np.int64)


SYMMETRIES = _symmetries()
"""(8, 65) int64: ``SYMMETRIES[k][a]``, where action ``a`` goes under symmetry ``k``."""
INVERSES = np.argsort(SYMMETRIES, axis=1)
"""(8, 65) int64: ``INVERSES[k][b]``, the action that symmetry ``k`` takes to ``b``."""
NUM_SYMMETRIES = len(SYMMETRIES)


def _sources(k: int | np.ndarray, lead: tuple[int, ...]) -> np.ndarray:
    """``INVERSES[k]``: (65,) for one ``k``, or (*lead, 65) for one per sample of a batch shaped ``lead``."""
    ks = np.asarray(k)
    if not np.issubdtype(ks.dtype, np.integer) or (ks.size and (ks.min() < 0 or ks.max() >= NUM_SYMMETRIES)):
        raise ValueError(f"a symmetry is an int 0-{NUM_SYMMETRIES - 1} (or an array of them), got {k!r}")
    if ks.ndim and ks.shape != lead[: ks.ndim]:
        raise ValueError(f"one symmetry per sample needs {lead[: ks.ndim]} of them, got shape {ks.shape}")
    return INVERSES[ks]


def _gather(x: np.ndarray, sources: np.ndarray, n: int) -> np.ndarray:
    """``x[..., sources[:n]]``, with ``sources`` one row or one row per leading index of ``x``."""
    src = sources[..., :n]
    if src.ndim == 1:
        return x[..., src]
    src = src.reshape(src.shape[:-1] + (1,) * (x.ndim - src.ndim) + src.shape[-1:])
    return np.take_along_axis(x, np.broadcast_to(src, (*x.shape[:-1], n)), axis=-1)


def transform_actions(k: int | np.ndarray, actions: np.ndarray | int) -> np.ndarray:
    """Actions (any shape, 0-64) moved by symmetry ``k`` (one, or one per action)."""
    return np.asarray(SYMMETRIES[np.asarray(k), np.asarray(actions)])


def transform_vectors(k: int | np.ndarray, vectors: np.ndarray) -> np.ndarray:
    """Per-action vectors (..., 65), masks or policies, moved by symmetry ``k``: entry
    ``SYMMETRIES[k][a]`` of the result is entry ``a`` of the input (PASS stays last).

    Args:
        k: a symmetry 0-7, or an int array of one per leading index (e.g. one per sample).
        vectors: an array whose last axis has 65 entries (64 also works: squares only).

    Returns:
        A new array of the same shape and dtype.

    Raises:
        ValueError: for a bad ``k`` or a last axis that is not 64 or 65 long.
    """
    x = np.asarray(vectors)
    if x.ndim == 0 or x.shape[-1] not in (64, NUM_ACTIONS):
        raise ValueError(f"vectors end in an axis of {NUM_ACTIONS} actions (or 64 squares), got shape {x.shape}")
    return _gather(x, _sources(k, x.shape[:-1]), x.shape[-1])


def transform_observations(
    k: int | np.ndarray, observations: np.ndarray, spec: ObservationSpec | None = None
) -> np.ndarray:
    """Observations of ``spec`` (one, or a batch with any leading shape) moved by symmetry ``k``.

    Args:
        k: a symmetry 0-7, or an int array of one per leading index.
        observations: arrays of ``spec.shape`` (the ``"observation"`` entries), any leading shape.
        spec: the observations' options (None: the default int8 (8, 8, 2)).

    Returns:
        A new C-contiguous array of the same shape and dtype.

    Raises:
        ValueError: for a bad ``k`` or observations not of ``spec``'s shape.
    """
    spec = ObservationSpec.of(spec)
    planes = spec.square_planes(observations)  # (..., C, 64)
    lead = planes.shape[:-2]
    moved = _gather(planes, _sources(k, lead), 64)
    return np.array(spec.planes(moved), dtype=np.asarray(observations).dtype)


def transform(
    k: int | np.ndarray,
    observations: np.ndarray,
    masks: np.ndarray,
    policies: np.ndarray | None = None,
    *,
    spec: ObservationSpec | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """Observations, their masks and (optionally) their policies moved by symmetry ``k`` together.

    Args:
        k: a symmetry 0-7, or an int array of one per sample.
        observations: ``"observation"`` entries of ``spec`` (a batch, or one).
        masks: their action masks (..., 65).
        policies: their policy vectors (..., 65), or None.
        spec: the observations' options (None: the default).

    Returns:
        ``(observations, masks, policies)`` moved (new arrays; None stays None).

    Raises:
        ValueError: for a bad ``k`` or shapes that do not fit.
    """
    obs = transform_observations(k, observations, spec)
    moved_policies = None if policies is None else transform_vectors(k, policies)
    return obs, transform_vectors(k, masks), moved_policies


def augment(
    observations: np.ndarray,
    masks: np.ndarray,
    policies: np.ndarray | None = None,
    *,
    spec: ObservationSpec | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """All eight images of a batch: each array gains a leading axis of 8, symmetry ``k`` at index ``k``
    (index 0 is the batch itself). Raises ValueError for shapes that do not fit."""
    images = [transform(k, observations, masks, policies, spec=spec) for k in range(NUM_SYMMETRIES)]
    stacked = [np.stack([image[j] for image in images]) for j in range(2)]  # type: ignore[misc]
    return stacked[0], stacked[1], None if policies is None else np.stack([image[2] for image in images])  # type: ignore[misc]


def transform_state(k: int, state: GameState) -> GameState:
    """The position ``state`` moved by symmetry ``k`` (the same player to move)."""
    sym = SYMMETRIES[k]
    black = sum(1 << int(sym[sq]) for sq in range(64) if state.black >> sq & 1)
    white = sum(1 << int(sym[sq]) for sq in range(64) if state.white >> sq & 1)
    return GameState(black, white, state.player)


def canonical_game(actions: Sequence[int]) -> tuple[int, ...]:
    """The least of a move sequence's 8 images under the symmetries: games that
    are one game up to the board's symmetries (the same play from an opening
    and its mirror image) share it, so counting these counts distinct games."""
    moves = np.asarray(actions, dtype=np.int64)
    return min(tuple(int(a) for a in g[moves]) for g in SYMMETRIES)
