"""Numba kernels that step N single-agent games at once (the vector env's engine).

Each game ``i`` is kept from the learning agent's side: ``me[i]`` are its discs,
``opp[i]`` the opponent's, ``color[i]`` its colour (0 black, 1 white), and
between calls the agent is always the player to move of an unfinished game.
``rng[i]`` is that game's own xorshift64* stream (``bitboard.next_random``).

The random opponent and the random colour use the stream in a fixed order,
which ``reversi_env.gym.ReversiGymEnv`` follows move for move, so a vector env
and N single envs seeded alike play the same games:

* at a reset: one ``random_below(2)`` for the colour when ``play_as`` is random;
  then, if the agent is white, the opponent's first move;
* an opponent placement: ``random_below(number of legal squares)`` picks the
  k-th legal square, lowest index first; a forced pass draws nothing.

Observations are written into ``obs`` viewed as (N, 64, C): square ``sq``,
plane ``c`` (``ReversiVectorEnv`` passes the view of its layout). Planes 0
and 1 are the agent's and the opponent's discs; with a history, ``past[i, j]``
holds the (agent's, opponent's) discs ``j + 1`` plies ago (zeros before the
start), shown as planes ``2j + 2`` and ``2j + 3``; ``extra`` asks for the
legal-moves plane (``EXTRA_LEGAL``) and the side-to-move plane
(``EXTRA_SIDE``, 1 for a black agent), in that order after the history.

Unchecked, like ``reversi_env.bitboard``: ``ReversiVectorEnv`` validates input.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from reversi_env.bitboard import (
    INITIAL_BLACK,
    INITIAL_WHITE,
    PASS,
    U0,
    U1,
    flips,
    legal_moves,
    nth_square,
    popcount,
    random_below,
)

RANDOM_COLOR = -1
"""``play_as`` code for a colour drawn at every reset (0 black, 1 white otherwise)."""
REWARD_WIN = 0
"""Reward code: +1 / -1 / 0 for a win / loss / draw."""
REWARD_DISC_DIFF = 1
"""Reward code: the final disc difference over 64 (agent minus opponent)."""
EXTRA_LEGAL = 1
"""``extra`` bit: a plane of the agent's legal placements."""
EXTRA_SIDE = 2
"""``extra`` bit: a constant plane, 1 when the agent plays black."""
SKIP = -1
"""``step_all`` action code: play nothing in this game, only observe it (the
step that reveals a game restarted under next-step autoreset)."""


@njit(cache=True, inline="always")
def _opponent_move(me: np.uint64, opp: np.uint64, rng: np.ndarray) -> tuple[np.uint64, np.uint64]:
    """The random opponent moves (it is to move); returns ``(me, opp)`` after it."""
    m = legal_moves(opp, me)
    if m == U0:
        return me, opp
    sq = nth_square(m, random_below(rng, popcount(m)))
    f = flips(opp, me, sq)
    return me ^ f, opp | f | (U1 << sq)


@njit(cache=True, inline="always")
def _push(i: np.int64, past: np.ndarray, p: np.uint64, o: np.uint64) -> None:
    """Game ``i``'s history after a ply played from the position (``p``, ``o``)."""
    for j in range(past.shape[1] - 1, 0, -1):
        past[i, j, 0] = past[i, j - 1, 0]
        past[i, j, 1] = past[i, j - 1, 1]
    if past.shape[1]:
        past[i, 0, 0] = p
        past[i, 0, 1] = o


@njit(cache=True)
def reset_game(
    i: np.int64,
    me: np.ndarray,
    opp: np.ndarray,
    color: np.ndarray,
    rng: np.ndarray,
    play_as: np.int64,
    past: np.ndarray,
) -> None:
    """Start game ``i`` afresh: draw the colour if needed; a white agent lets the opponent open."""
    r = rng[i : i + 1]
    c = np.int64(random_below(r, np.uint64(2))) if play_as == RANDOM_COLOR else play_as
    color[i] = c
    past[i] = U0
    if c == 0:
        me[i], opp[i] = INITIAL_BLACK, INITIAL_WHITE
    else:
        _push(i, past, INITIAL_WHITE, INITIAL_BLACK)
        me[i], opp[i] = _opponent_move(INITIAL_WHITE, INITIAL_BLACK, r)


@njit(cache=True)
def reset_all(
    me: np.ndarray, opp: np.ndarray, color: np.ndarray, rng: np.ndarray, play_as: np.int64, past: np.ndarray
) -> None:
    """``reset_game`` for every game."""
    for i in range(me.shape[0]):
        reset_game(i, me, opp, color, rng, play_as, past)


@njit(cache=True, inline="always")
def _write_one(
    i: np.int64,
    p: np.uint64,
    o: np.uint64,
    m: np.uint64,
    pass_legal: bool,
    past: np.ndarray,
    black: bool,
    extra: np.int64,
    obs: np.ndarray,
    mask: np.ndarray,
) -> None:
    """Observation row ``i`` (``obs`` viewed as (N, 64, C)) for the position with ``p``
    to move, whose placements are ``m``; ``past`` and ``extra`` as the module docstring says."""
    mask[i, PASS] = 1 if pass_legal else 0
    for sq in range(64):
        obs[i, sq, 0] = p & U1
        obs[i, sq, 1] = o & U1
        mask[i, sq] = m & U1
        p >>= U1
        o >>= U1
        m >>= U1
    if past.shape[1] or extra:
        _write_extra(i, past, black, extra, obs, mask)


@njit(cache=True)
def _write_extra(
    i: np.int64, past: np.ndarray, black: bool, extra: np.int64, obs: np.ndarray, mask: np.ndarray
) -> None:
    """The history, legal-moves and side-to-move planes of row ``i`` (its mask already written)."""
    c = 2
    for j in range(past.shape[1]):
        p, o = past[i, j, 0], past[i, j, 1]
        for sq in range(64):
            obs[i, sq, c] = p & U1
            obs[i, sq, c + 1] = o & U1
            p >>= U1
            o >>= U1
        c += 2
    if extra & EXTRA_LEGAL:
        for sq in range(64):
            obs[i, sq, c] = mask[i, sq]
        c += 1
    if extra & EXTRA_SIDE:
        for sq in range(64):
            obs[i, sq, c] = 1 if black else 0


@njit(cache=True)
def write_observations(
    me: np.ndarray,
    opp: np.ndarray,
    color: np.ndarray,
    past: np.ndarray,
    extra: np.int64,
    obs: np.ndarray,
    mask: np.ndarray,
) -> None:
    """Fill ``obs`` (viewed as (N, 64, C)) and ``mask`` (N, 65) int8 for positions
    with ``me`` to move: own / opponent planes (and the extra planes ``past`` and
    ``extra`` ask for) and the legal actions (PASS when only it is legal, nothing
    when the game is over)."""
    for i in range(me.shape[0]):
        p, o = me[i], opp[i]
        m = legal_moves(p, o)
        _write_one(i, p, o, m, m == U0 and legal_moves(o, p) != U0, past, color[i] == 0, extra, obs, mask)


@njit(cache=True)
def step_all(
    me: np.ndarray,
    opp: np.ndarray,
    color: np.ndarray,
    rng: np.ndarray,
    actions: np.ndarray,
    play_as: np.int64,
    reward_mode: np.int64,
    past: np.ndarray,
    extra: np.int64,
    rewards: np.ndarray,
    done: np.ndarray,
    illegal: np.ndarray,
    final_obs: np.ndarray,
    final_mask: np.ndarray,
    final_discs: np.ndarray,
    obs: np.ndarray,
    mask: np.ndarray,
) -> None:
    """One step of every game: the agent's action, then the opponent's reply,
    then the observation of what the agent sees next, all in one call
    (``past`` and ``extra`` as the module docstring says).

    A game that ends (the agent's action was illegal, or nobody can place)
    gets its reward, ``done``, its last observation in ``final_obs`` /
    ``final_mask`` and its disc counts (agent's, opponent's) in
    ``final_discs``, and is reset at once (same-step autoreset). An illegal
    action ends the game with reward -1 and leaves the position as it was.
    Rows of the ``final_*`` arrays of games that did not end are left as they were.
    An action of ``SKIP`` plays nothing: reward 0, not done, the position observed.
    """
    for i in range(me.shape[0]):
        p, o = me[i], opp[i]
        a = actions[i]
        m = legal_moves(p, o)
        if a == SKIP:
            rewards[i] = 0.0
            done[i] = False
            illegal[i] = False
            _write_one(i, p, o, m, m == U0 and legal_moves(o, p) != U0, past, color[i] == 0, extra, obs, mask)
            continue
        ok = (a == PASS and m == U0) or (a < PASS and (m >> np.uint64(a)) & U1 != U0)
        rewards[i] = 0.0
        illegal[i] = not ok
        if not ok:
            rewards[i] = -1.0
            done[i] = True
            _write_one(
                i, p, o, m, m == U0 and legal_moves(o, p) != U0, past, color[i] == 0, extra, final_obs, final_mask
            )
        else:
            _push(i, past, p, o)
            if a != PASS:
                sq = np.uint64(a)
                f = flips(p, o, sq)
                p, o = p | f | (U1 << sq), o ^ f
            mo = legal_moves(o, p)
            if mo == U0:  # the opponent passes, or nobody can move
                m = legal_moves(p, o)
                done[i] = m == U0
                if not done[i]:
                    _push(i, past, p, o)
            else:
                _push(i, past, p, o)
                sq = nth_square(mo, random_below(rng[i : i + 1], popcount(mo)))
                f = flips(o, p, sq)
                p, o = p ^ f, o | f | (U1 << sq)
                m = legal_moves(p, o)
                done[i] = m == U0 and legal_moves(o, p) == U0
            if done[i]:
                diff = np.int64(popcount(p)) - np.int64(popcount(o))
                if reward_mode == REWARD_WIN:
                    rewards[i] = 1.0 if diff > 0 else (-1.0 if diff < 0 else 0.0)
                else:
                    rewards[i] = diff / 64.0
                _write_one(i, p, o, U0, False, past, color[i] == 0, extra, final_obs, final_mask)
        if done[i]:
            final_discs[i, 0] = popcount(p)
            final_discs[i, 1] = popcount(o)
            reset_game(i, me, opp, color, rng, play_as, past)
            p, o = me[i], opp[i]
            m = legal_moves(p, o)  # a fresh game: the agent always has a placement
        else:
            me[i], opp[i] = p, o
        _write_one(i, p, o, m, m == U0, past, color[i] == 0, extra, obs, mask)
