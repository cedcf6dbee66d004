"""Games into training arrays: one row a position, as a learner sees it.

``games_to_arrays(games, spec=..., augment=False)`` replays games (from the
standard start, passes left out as WTHOR writes them) in a numba kernel and
returns a dict of arrays, one row per move played (forced passes are left
out: there is nothing to choose):

* ``observation``: what the mover observes, as ``spec`` (an ``ObservationSpec``) says;
* ``action_mask``: int8 (N, 65), the mover's legal actions;
* ``action``: int64 (N,), the move played (0-63);
* ``disc_difference``: int8 (N,), the game's final disc difference from the mover's side;
* ``outcome``: int8 (N,), +1 if the mover's side won, -1 if it lost, 0 for a draw;
* ``game`` and ``ply``: int32 (N,), where the row comes from (the game's index, the ply from 0, passes counted).

``augment=True`` adds the 8 symmetric images of every row (``reversi_env.symmetry``):
8 N rows, the images of row ``i`` at ``i``, ``N + i``, ... ``7 N + i``.
``save_arrays`` / ``load_arrays`` write and read them as ``.npz`` (no pickles).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numba import njit

from reversi_env.bitboard import INITIAL_BLACK, INITIAL_WHITE, PASS, U0, U1, flips, legal_moves
from reversi_env.notation import NUM_ACTIONS, square_name
from reversi_env.observation import ObservationSpec
from reversi_env.symmetry import SYMMETRIES
from reversi_env.wthor import MOVES_PER_GAME, WthorBase

ARRAYS = ("observation", "action_mask", "action", "disc_difference", "outcome", "game", "ply")
"""The arrays ``games_to_arrays`` returns, in the order ``save_arrays`` writes them."""
_CHUNK = 2048
"""Games a kernel call replays (the progress callback is called after each)."""


class DatasetError(ValueError):
    """A game that cannot be replayed, or a file of arrays that cannot be read; one line."""


@dataclass(frozen=True)
class Game:
    """A game for a dataset: its moves from the standard start and how it ended.

    Attributes:
        moves: the squares played (0-63), passes left out (they are forced, so the moves say where).
        disc_difference: black's discs minus white's at the end, as the record states it
            (WTHOR gives the empty squares to the winner; the project's records count the board).
        outcome: +1 black won, -1 white won, 0 a draw; None: the sign of ``disc_difference``
            (a record of a resignation or a timeout says otherwise).
    """

    moves: tuple[int, ...]
    disc_difference: int
    outcome: int | None = None

    @property
    def result(self) -> int:
        """+1 / -1 / 0 from black's side: ``outcome``, or the sign of ``disc_difference``."""
        if self.outcome is not None:
            return self.outcome
        return int(np.sign(self.disc_difference))


def games_from_wthor(base: WthorBase) -> list[Game]:
    """The games of a ``.wtb`` (its scores count the empty squares for the winner)."""
    return [Game(g.moves, g.disc_difference) for g in base.games]


# -- the kernels -----------------------------------------------------------------------------


@njit(cache=True)
def _replay(
    moves: np.ndarray,
    black: np.ndarray,
    white: np.ndarray,
    mover: np.ndarray,
    legal: np.ndarray,
    action: np.ndarray,
    game: np.ndarray,
    ply: np.ndarray,
    error: np.ndarray,
) -> int:
    """Replay games ``moves`` (G, 60) int8, -1 after the last, writing one row per ply (forced
    passes included) and returning the number of rows; on an illegal move, ``error`` gets
    (game, move index, ply) and the rows written so far are returned."""
    n = 0
    for g in range(moves.shape[0]):
        me, op = INITIAL_BLACK, INITIAL_WHITE
        p = 0
        k = 0
        for j in range(moves.shape[1]):
            sq = moves[g, j]
            if sq < 0:
                break
            m = legal_moves(me, op)
            if m == U0:  # a forced pass (or the game is over, and the move below is refused)
                black[n], white[n] = (me, op) if p == 0 else (op, me)
                mover[n], legal[n], action[n], game[n], ply[n] = p, U0, PASS, g, k
                n += 1
                k += 1
                me, op = op, me
                p ^= 1
                m = legal_moves(me, op)
            bit = U1 << np.uint64(sq)
            if m & bit == U0:
                error[0], error[1], error[2] = g, j, k
                return n
            black[n], white[n] = (me, op) if p == 0 else (op, me)
            mover[n], legal[n], action[n], game[n], ply[n] = p, m, sq, g, k
            n += 1
            k += 1
            f = flips(me, op, np.uint64(sq))
            me, op = op ^ f, me | f | bit
            p ^= 1
    return n


@njit(cache=True)
def _write_planes(
    rows: np.ndarray,
    black: np.ndarray,
    white: np.ndarray,
    mover: np.ndarray,
    legal: np.ndarray,
    game: np.ndarray,
    history: np.int64,
    legal_plane: bool,
    side_plane: bool,
    dest: np.ndarray,
    obs: np.ndarray,
    mask: np.ndarray,
) -> None:
    """Observation ``i`` (``obs`` viewed as (N, 64, C)) and mask of ply row ``rows[i]``: the mover's view
    of that position and of the ``history - 1`` before it in the same game (zeros before the start),
    square ``sq`` written at ``dest[sq]`` (a symmetry, or the identity)."""
    for i in range(rows.shape[0]):
        r = rows[i]
        p = mover[r]
        for t in range(history):
            s = r - t
            if s < 0 or game[s] != game[r]:
                for sq in range(64):
                    obs[i, sq, 2 * t] = 0
                    obs[i, sq, 2 * t + 1] = 0
                continue
            mine, theirs = (black[s], white[s]) if p == 0 else (white[s], black[s])
            for sq in range(64):
                obs[i, dest[sq], 2 * t] = mine & U1
                obs[i, dest[sq], 2 * t + 1] = theirs & U1
                mine >>= U1
                theirs >>= U1
        m = legal[r]
        c = 2 * history
        for sq in range(64):
            bit = m & U1
            mask[i, dest[sq]] = bit
            if legal_plane:
                obs[i, dest[sq], c] = bit
            if side_plane:
                obs[i, sq, c + legal_plane] = 1 if p == 0 else 0
            m >>= U1
        mask[i, PASS] = 1 if legal[r] == U0 else 0


# -- games into arrays -----------------------------------------------------------------------


def _moves_array(games: Sequence[Game]) -> np.ndarray:
    """(G, 60) int8 squares, -1 after the last; DatasetError for a game that does not fit."""
    out = np.full((len(games), MOVES_PER_GAME), -1, dtype=np.int8)
    for i, g in enumerate(games):
        n = len(g.moves)
        if n > MOVES_PER_GAME or any(not 0 <= m < 64 for m in g.moves):
            raise DatasetError(f"game {i + 1}: at most 60 moves, squares 0-63 (passes left out), got {list(g.moves)}")
        out[i, :n] = g.moves
    return out


def games_to_arrays(
    games: Sequence[Game],
    *,
    spec: ObservationSpec | None = None,
    augment: bool = False,
    progress: Callable[[int], None] | None = None,
) -> dict[str, np.ndarray]:
    """The training arrays of ``games`` (see the module docstring).

    Args:
        games: the games, from the standard start.
        spec: the observations' options (None: the default int8 (8, 8, 2) planes).
        augment: add the 8 symmetric images of every row.
        progress: called with the number of games done after each chunk of them.

    Returns:
        A dict of the arrays named in ``ARRAYS``.

    Raises:
        DatasetError: naming the game (from 1), the move (from 1, passes not counted) and its ply
            (from 1, passes counted) that is not legal.
    """
    spec = ObservationSpec.of(spec)
    moves = _moves_array(games)
    images = SYMMETRIES[:, :64] if augment else SYMMETRIES[:1, :64]
    parts: list[dict[str, np.ndarray]] = []
    for start in range(0, len(games), _CHUNK):
        chunk = moves[start : start + _CHUNK]
        parts.append(_chunk_arrays(chunk, games[start : start + _CHUNK], start, spec, images))
        if progress is not None:
            progress(len(chunk))
    if not parts:
        parts.append(_chunk_arrays(moves, games, 0, spec, images))
    out = {}
    for k in ARRAYS:  # image j of row i at j * N + i
        joined = np.concatenate([p[k] for p in parts], axis=1)
        out[k] = joined.reshape(-1, *joined.shape[2:])
    return out


def _chunk_arrays(
    moves: np.ndarray, games: Sequence[Game], first: int, spec: ObservationSpec, images: np.ndarray
) -> dict[str, np.ndarray]:
    """The arrays of one chunk of games, ``first`` the index of its first game, each with a leading
    axis of one image per row of ``images`` (destination squares: the symmetries wanted)."""
    rows = moves.shape[0] * 2 * MOVES_PER_GAME  # a pass before every move at most
    black = np.empty(rows, dtype=np.uint64)
    white = np.empty(rows, dtype=np.uint64)
    mover = np.empty(rows, dtype=np.int8)
    legal = np.empty(rows, dtype=np.uint64)
    action = np.empty(rows, dtype=np.int64)
    game = np.empty(rows, dtype=np.int32)
    ply = np.empty(rows, dtype=np.int32)
    error = np.full(3, -1, dtype=np.int64)
    n = int(_replay(moves, black, white, mover, legal, action, game, ply, error))
    if error[0] >= 0:
        g, j, k = (int(e) for e in error)
        raise DatasetError(
            f"game {first + g + 1}, move {j + 1} ({square_name(int(moves[g, j]))}, ply {k + 1}): "
            "not legal in the game's position"
        )
    played = np.flatnonzero(action[:n] != PASS)
    m = len(played)
    obs = np.empty((len(images), m, *spec.shape), dtype=spec.numpy_dtype)
    mask = np.empty((len(images), m, NUM_ACTIONS), dtype=np.int8)
    c = spec.num_planes
    for j, dest in enumerate(images):
        view = obs[j].reshape(m, 64, c) if spec.layout == "HWC" else obs[j].reshape(m, c, 64).transpose(0, 2, 1)
        history, legal_plane, side_plane = np.int64(spec.history), spec.legal_moves, spec.side_to_move
        _write_planes(played, black, white, mover, legal, game, history, legal_plane, side_plane, dest, view, mask[j])
    side = np.where(mover[played] == 0, 1, -1)
    diffs = np.array([g.disc_difference for g in games], dtype=np.int64)
    results = np.array([g.result for g in games], dtype=np.int64)
    in_chunk = game[played]
    repeat = (len(images), 1)
    return {
        "observation": obs,
        "action_mask": mask,
        "action": np.stack([SYMMETRIES[k][action[played]] for k in range(len(images))]),
        "disc_difference": np.tile((diffs[in_chunk] * side).astype(np.int8), repeat),
        "outcome": np.tile((results[in_chunk] * side).astype(np.int8), repeat),
        "game": np.tile((in_chunk + first).astype(np.int32), repeat),
        "ply": np.tile(ply[played], repeat),
    }


# -- files of arrays ---------------------------------------------------------------------------


def save_arrays(path: str | Path, arrays: dict[str, np.ndarray]) -> None:
    """Write ``arrays`` to an ``.npz`` at ``path`` (through a temporary file and a rename; OSError if it cannot)."""
    p = Path(path)
    tmp = p.with_name(f".{p.name}.tmp.npz")
    np.savez(
        tmp,
        observation=arrays["observation"],
        action_mask=arrays["action_mask"],
        action=arrays["action"],
        disc_difference=arrays["disc_difference"],
        outcome=arrays["outcome"],
        game=arrays["game"],
        ply=arrays["ply"],
    )
    tmp.replace(p)


def load_arrays(path: str | Path) -> dict[str, np.ndarray]:
    """The arrays of an ``.npz`` that ``save_arrays`` wrote (no pickled objects are loaded);
    DatasetError (one line) if it cannot be read or lacks one of them."""
    try:
        with np.load(path, allow_pickle=False) as data:
            missing = [k for k in ARRAYS if k not in data.files]
            if missing:
                raise DatasetError(f"{path}: not a dataset of games: no {', '.join(missing)}")
            return {k: data[k] for k in ARRAYS}
    except (OSError, ValueError) as e:
        if isinstance(e, DatasetError):
            raise
        raise DatasetError(f"{path}: cannot read: {str(e).splitlines()[0] if str(e) else type(e).__name__}") from None
