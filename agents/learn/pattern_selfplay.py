"""Self-play games that make the training data of the pattern evaluation (numba).

A game opens with 2 to ``opening_plies`` uniformly random moves (diversity),
then each side plays the move its evaluation likes best one ply ahead (with
``play_depth`` > 0 and pattern weights: the move an alpha-beta search that
deep likes best, so the games come nearer strong play), or a random move with
probability ``epsilon``. The evaluation is the pattern
evaluation under the current weights, or the hand-written ``ladder.evaluate``
before any weights exist (round 0). From ``exact_empties`` empty squares on,
every position is solved exactly and the solver picks the move (still with
``epsilon`` random moves, so endgame mistakes are seen and labelled too).

Labels, the final disc difference from the mover's side:

- positions with ``exact_empties`` (or ``solve_empties``) empties or fewer: their exact value;
- earlier positions: the TD(lambda) return, backed up from the game's last
  position, ``G_t = (1 - lam) * V(s_{t+1}) + lam * G_{t+1}``, where ``V`` is the
  current evaluation of the next position (its exact value once solved). With
  ``lam = 1`` (round 0, no pattern weights) it is the result the game reached
  under perfect endgame play.
- with ``search_depth`` > 0 (and pattern weights), earlier positions are
  labelled by a ``search_depth``-ply alpha-beta search of the position itself
  with the current weights (the search of ``agents.search.alphabeta``, exact
  when it reaches the end), mixed with the return of the next recorded
  position: ``G_t = (1 - lam) * S(s_t) + lam * G_next`` (``lam = 0``: the search
  value alone, the bootstrap Logistello and Edax trained with).
- with ``both_parities`` as well, the search value is the mean of the
  ``search_depth``-ply search and one a ply shallower. An even-depth search
  ends on positions with the root's player to move, an odd one on the
  opponent's; an evaluation fitted to one parity alone learns its lean (the
  odd-even effect), and the labels of two parities cancel it.

With ``cut_exploration`` (and pattern weights) the return does not run
through random moves (Watkins' Q(lambda)): the label of a position where a
random move was played is its greedy value, the best one-ply value of its
moves under the current evaluation (``child_values``; with ``play_depth``, the
best value of the search that chooses the moves; with ``search_depth``, the
position's search value), and earlier positions back up from there. A
random move is then not blamed on the positions before it. The games are the
same with or without it.

Kept positions with ``solve_empties`` empties or fewer are labelled exactly
too (solved for the label only: the moves are still chosen as above until
``exact_empties``), so exact labels reach further up than the solver plays.

Only a share ``record`` of the positions past the opening is kept (drawn at
random): neighbouring positions of one game are nearly the same example, so
more games with fewer positions each cover more of the game.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numba import njit, types
from numba.types import boolean, float32, float64, int64, uint64

from agents.limits import MAX_OPENING_PLIES, MAX_SEARCH_DEPTH, MAX_SOLVED_EMPTIES
from agents.search.alphabeta import INF, best_square, new_scratch, new_stats, pvs
from agents.search.endgame import exact_best
from agents.search.evaluation import DISC, EVAL_SIGNATURE, HAND_EVALUATION
from agents.search.ladder import evaluate as handwritten_evaluate
from agents.search.patterns import child_values, evaluate, expand_weights, search_evaluate
from agents.search.tt import new_table
from reversi_env.bitboard import (
    INITIAL_BLACK,
    INITIAL_WHITE,
    U0,
    U1,
    flips,
    legal_moves,
    lowest_square,
    make_rng,
    nth_square,
    popcount,
    random_below,
)

MAX_RECORDED = 64
"""At most this many positions are recorded from one game (one per placement)."""


@njit(cache=True, nogil=True)
def _random_move(m: np.uint64, rng: np.ndarray) -> np.uint64:
    return nth_square(m, random_below(rng, np.uint64(popcount(m))))


@njit(cache=True, nogil=True)
def _handwritten_choice(p: np.uint64, o: np.uint64, m: np.uint64) -> np.uint64:
    """The move after which the hand-written evaluation is worst for the opponent."""
    best_sq = lowest_square(m)
    best = np.int64(2**62)
    rest = m
    while rest != U0:
        sq = lowest_square(rest)
        rest &= rest - U1
        f = flips(p, o, sq)
        v = handwritten_evaluate(o ^ f, p | f | (U1 << sq))
        if v < best:
            best, best_sq = v, sq
    return best_sq


@njit(cache=True, nogil=True)
def next_unit(rng: np.ndarray) -> np.float64:
    """A uniform random number in [0, 1) from the kernel RNG."""
    return np.float64(random_below(rng, np.uint64(1 << 30))) / np.float64(1 << 30)


_U64 = uint64[::1]
_BOARD_TABLE = uint64[:, ::1]
_EVAL = types.FunctionType(EVAL_SIGNATURE)


# An explicit signature types the evaluations as first-class functions of
# EVAL_SIGNATURE (as ``alphabeta.pvs`` does): typed by the functions passed in,
# every process would compile and cache an overload of its own.
@njit(
    int64(
        int64, float32[:, ::1], boolean, _U64, int64, float64, int64, float64, _U64, _U64, float64[::1],
        _BOARD_TABLE, int64[::1], int64[:, ::1], _EVAL, float32[::1], int64, float64, _U64, int64,
        _BOARD_TABLE, int64[::1], _EVAL, float32[::1], boolean, int64, boolean,
    ),
    cache=True,
    nogil=True,
)  # fmt: skip
def play_games(
    n_games: np.int64,
    W: np.ndarray,
    use_patterns: bool,
    rng: np.ndarray,
    opening_plies: np.int64,
    epsilon: np.float64,
    exact_empties: np.int64,
    lam: np.float64,
    out_p: np.ndarray,
    out_o: np.ndarray,
    out_label: np.ndarray,
    table: np.ndarray,
    stats: np.ndarray,
    buf: np.ndarray,
    order_fn: Any,
    order_weights: np.ndarray,
    search_depth: np.int64,
    record: np.float64,
    keep_rng: np.ndarray,
    solve_empties: np.int64,
    search_table: np.ndarray,
    search_stats: np.ndarray,
    search_fn: Any,
    search_w: np.ndarray,
    cut: bool,
    play_depth: np.int64,
    both_parities: bool,
) -> np.int64:
    """Play ``n_games`` games and write their labelled positions (mover's
    board, opponent's board, label) into the ``out_*`` arrays (room for
    ``n_games * MAX_RECORDED``). ``order_fn`` and ``order_weights`` (an
    ``Evaluation``'s) order the exact solver's moves; ``search_fn`` and
    ``search_w`` (the pattern ``Evaluation``'s) are the labelling search's
    evaluation, ``search_table`` and ``search_stats`` (``new_stats(DISC)``) its
    own, and also choose the moves with ``play_depth`` > 0; ``keep_rng`` draws which
    positions are kept (share ``record``); ``cut`` ends the return at random moves
    (``SelfPlayConfig.cut_exploration``); ``both_parities`` averages the label
    search with one a ply shallower. Returns the number of positions written."""
    k = np.int64(0)
    rec_p = np.zeros(MAX_RECORDED, dtype=np.uint64)
    rec_o = np.zeros(MAX_RECORDED, dtype=np.uint64)
    rec_colour = np.zeros(MAX_RECORDED, dtype=np.float64)
    rec_value = np.zeros(MAX_RECORDED, dtype=np.float64)
    rec_exact = np.zeros(MAX_RECORDED, dtype=np.bool_)
    rec_keep = np.zeros(MAX_RECORDED, dtype=np.bool_)
    rec_cut = np.zeros(MAX_RECORDED, dtype=np.bool_)
    rec_greedy = np.zeros(MAX_RECORDED, dtype=np.float64)
    scores = np.zeros(64, dtype=np.int64)
    values = np.zeros(64, dtype=np.float64)
    if not use_patterns:
        lam = np.float64(1.0)
    searching = use_patterns and search_depth > 0
    for _ in range(n_games):
        p, o = INITIAL_BLACK, INITIAL_WHITE
        colour = 1.0  # +1 black to move, -1 white
        n_open = 2 + np.int64(random_below(rng, np.uint64(max(opening_plies - 1, 1))))
        ply = 0
        n = 0
        while True:
            m = legal_moves(p, o)
            if m == U0:
                if legal_moves(o, p) == U0:
                    break
                p, o = o, p
                colour = -colour
                continue
            empties = 64 - np.int64(popcount(p | o))
            explore = np.float64(next_unit(rng)) < epsilon
            if ply < n_open:
                sq = _random_move(m, rng)
            else:
                rec_p[n], rec_o[n], rec_colour[n] = p, o, colour
                rec_keep[n] = record >= 1.0 or np.float64(next_unit(keep_rng)) < record
                if empties <= exact_empties:
                    best_sq = exact_best(p, o, table, stats, buf, scores, order_fn, order_weights)
                    rec_value[n], rec_exact[n] = np.float64(scores[best_sq]), True
                    sq = _random_move(m, rng) if explore else best_sq
                else:
                    rec_exact[n] = False
                    rec_cut[n] = False
                    if rec_keep[n] and empties <= solve_empties:
                        best_sq = exact_best(p, o, table, stats, buf, scores, order_fn, order_weights)
                        rec_value[n], rec_exact[n] = np.float64(scores[best_sq]), True
                    elif searching and rec_keep[n]:
                        search_table[:] = U0  # each position searched afresh: its label is its own
                        searched = np.float64(
                            pvs(p, o, search_depth, -INF, INF, search_table, search_stats, buf, search_fn, search_w)
                        )
                        if both_parities and search_depth > 1:
                            search_table[:] = U0
                            shallower = pvs(
                                p, o, search_depth - 1, -INF, INF, search_table, search_stats, buf, search_fn, search_w
                            )
                            searched = (searched + np.float64(shallower)) / 2.0
                        rec_value[n] = searched / np.float64(DISC)
                    elif use_patterns:
                        rec_value[n] = evaluate(p, o, W)
                    if use_patterns:
                        rec_cut[n] = cut and explore
                        if explore and not cut:
                            sq = _random_move(m, rng)
                        elif play_depth > 0:
                            search_table[:] = U0
                            sq = best_square(
                                p, o, play_depth, scores, search_table, search_stats, buf, search_fn, search_w
                            )
                            rec_greedy[n] = np.float64(scores[sq]) / np.float64(DISC)
                            if explore:
                                sq = _random_move(m, rng)
                        else:
                            child_values(p, o, W, values)
                            sq = lowest_square(m)
                            rest = m
                            while rest != U0:
                                a = lowest_square(rest)
                                rest &= rest - U1
                                if values[a] > values[sq]:
                                    sq = a
                            rec_greedy[n] = values[sq]
                            if explore:
                                sq = _random_move(m, rng)
                    else:
                        rec_value[n] = 0.0
                        sq = _random_move(m, rng) if explore else _handwritten_choice(p, o, m)
                n += 1
            f = flips(p, o, sq)
            p, o = o ^ f, p | f | (U1 << sq)
            colour = -colour
            ply += 1
        # p is black when colour is +1; the result from black's side:
        final = colour * (np.float64(popcount(p)) - np.float64(popcount(o)))
        g = final
        v_next = final
        for i in range(n - 1, -1, -1):
            value = rec_colour[i] * rec_value[i]
            if rec_exact[i]:
                g = value
            elif rec_cut[i]:
                g = value if searching and rec_keep[i] else rec_colour[i] * rec_greedy[i]
            elif not searching:
                g = (1.0 - lam) * v_next + lam * g
            elif rec_keep[i]:
                g = (1.0 - lam) * value + lam * g
            v_next = value
            if rec_keep[i]:
                out_p[k], out_o[k], out_label[k] = rec_p[i], rec_o[i], rec_colour[i] * g
                k += 1
    return k


@dataclass(frozen=True)
class SelfPlayConfig:
    """How games are played and labelled (see the module docstring).

    Raises:
        ValueError: a setting out of the range ``reversi train-eval`` gives its option, named
            with that range; so a config from Python, the command or a saved run is checked once.
    """

    opening_plies: int = 10
    epsilon: float = 0.1
    exact_empties: int = 12
    lam: float = 0.7
    search_depth: int = 0
    record: float = 1.0
    solve_empties: int = 0
    cut_exploration: bool = False
    play_depth: int = 0
    both_parities: bool = False

    def __post_init__(self) -> None:
        checks = [
            (
                f"opening_plies={self.opening_plies} (1 to {MAX_OPENING_PLIES})",
                1 <= self.opening_plies <= MAX_OPENING_PLIES,
            ),
            (f"epsilon={self.epsilon} (0 to 1)", 0 <= self.epsilon <= 1),
            (
                f"exact_empties={self.exact_empties} (0 to {MAX_SOLVED_EMPTIES})",
                0 <= self.exact_empties <= MAX_SOLVED_EMPTIES,
            ),
            (f"lam={self.lam} (0 to 1)", 0 <= self.lam <= 1),
            (
                f"search_depth={self.search_depth} (0 to {MAX_SEARCH_DEPTH})",
                0 <= self.search_depth <= MAX_SEARCH_DEPTH,
            ),
            (f"play_depth={self.play_depth} (0 to {MAX_SEARCH_DEPTH})", 0 <= self.play_depth <= MAX_SEARCH_DEPTH),
            (
                f"both_parities with search_depth={self.search_depth} (a search of 2 plies or more)",
                not self.both_parities or self.search_depth >= 2,
            ),
            (f"record={self.record} (above 0, at most 1)", 0 < self.record <= 1),
            (
                f"solve_empties={self.solve_empties} (0 to {MAX_SOLVED_EMPTIES})",
                0 <= self.solve_empties <= MAX_SOLVED_EMPTIES,
            ),
        ]
        bad = [shown for shown, ok in checks if not ok]
        if bad:
            raise ValueError(f"out of range: {bad[0]}")


@dataclass(frozen=True)
class Positions:
    """Labelled positions: mover's and opponent's bitboards, label (disc difference)."""

    p: np.ndarray
    o: np.ndarray
    label: np.ndarray

    def __len__(self) -> int:
        return len(self.label)

    @staticmethod
    def concatenate(parts: list[Positions]) -> Positions:
        """All ``parts`` in order, as one set."""
        return Positions(
            np.concatenate([x.p for x in parts]) if parts else np.zeros(0, np.uint64),
            np.concatenate([x.o for x in parts]) if parts else np.zeros(0, np.uint64),
            np.concatenate([x.label for x in parts]) if parts else np.zeros(0, np.float32),
        )


def generate(n_games: int, weights: np.ndarray | None, seed: int, config: SelfPlayConfig) -> Positions:
    """``n_games`` labelled self-play games from ``seed`` (None weights: the
    hand-written evaluation plays). The same arguments give the same positions."""
    size = n_games * MAX_RECORDED
    out_p, out_o = np.zeros(size, np.uint64), np.zeros(size, np.uint64)
    out_label = np.zeros(size, np.float64)
    use = weights is not None
    w = np.zeros((1, 1), np.float32) if weights is None else np.array(weights, np.float32, order="C")
    searching = use and (config.search_depth > 0 or config.play_depth > 0)
    flat = expand_weights(w).ravel() if searching else np.zeros(1, np.float32)
    k = play_games(
        np.int64(n_games),
        w,
        use,
        make_rng(seed),
        np.int64(config.opening_plies),
        np.float64(config.epsilon),
        np.int64(config.exact_empties),
        np.float64(config.lam),
        out_p,
        out_o,
        out_label,
        new_table(1 << 16),
        new_stats(1),
        new_scratch(),
        HAND_EVALUATION.function,
        np.array(HAND_EVALUATION.weights),
        np.int64(config.search_depth),
        np.float64(config.record),
        make_rng(seed + 1),  # its own stream: the games do not depend on ``record``
        np.int64(config.solve_empties),
        new_table(1 << 12),
        new_stats(DISC),
        search_evaluate,
        flat,
        config.cut_exploration,
        np.int64(config.play_depth),
        config.both_parities,
    )
    return Positions(out_p[:k].copy(), out_o[:k].copy(), out_label[:k].astype(np.float32))
