"""The 8 symmetries of the board (the dihedral group of the square), as action maps.

``SYMMETRIES[k][a]`` is where action ``a`` (a square 0-63, or 64 = PASS, which
stays PASS) goes under symmetry ``k``; ``k = 0`` is the identity. Reversi's rules
are the same under all eight, so evaluations share weights across them and
training data is augmented by them.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from reversi_env.notation import PASS


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


def canonical_game(actions: Sequence[int]) -> tuple[int, ...]:
    """The least of a move sequence's 8 images under the symmetries: games that
    are one game up to the board's symmetries (the same play from an opening
    and its mirror image) share it, so counting these counts distinct games."""
    moves = np.asarray(actions, dtype=np.int64)
    return min(tuple(int(a) for a in g[moves]) for g in SYMMETRIES)
