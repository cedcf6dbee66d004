"""What the engine thinks of a position and of a game: each move's value, the best line, the evaluation curve.

``analyze_position`` scores every legal move (exactly from ``EXACT_EMPTIES``
empty squares down, else by iterative deepening under a clock or to a depth)
and follows the transposition table from the best move to give the line the
engine expects. ``game_curve`` gives each position of a game one value, from
black's side, at a fixed depth: the graph ``reversi analyze --plot`` draws and
the window shows. ``reversi analyze`` and the window's analysis both read
these, so the numbers on the board, the graph and the command agree.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from agents.search.alphabeta import EXACT_DEPTH, iterative_deepening
from agents.search.endgame import Solver
from agents.search.evaluation import DISC, Evaluation
from agents.search.lastmoves import final_score
from agents.search.tt import new_table, probe
from reversi_env.notation import PASS
from reversi_env.state import BLACK, GameState

EXACT_EMPTIES = 16
"""From this many empty squares down, every move is solved exactly."""
TABLE_ENTRIES = 1 << 20
"""The transposition table of one analysis (24 MB)."""
CURVE_DEPTH = 6
"""The depth of each position's value on the evaluation curve (a 60-move game takes about a second)."""
CURVE_EXACT_MARGIN = 6
"""A search to a depth solves exactly from this many plies more than its depth (12 empties at depth 6)."""
LINE_PLIES = 12
"""The best line is followed this many plies at most."""
LINE_SOLVE_EMPTIES = 14
"""Where the table's line ends, an exact line goes on by solving from this many empty squares down (fast)."""
LINE_TABLE_ENTRIES = 1 << 16
"""The table that solves the end of an exact best line (a few empty squares)."""


@dataclass(frozen=True)
class MoveValue:
    """One legal move and its value for the player to move: final disc
    difference if ``exact``, else the evaluation in discs at ``depth`` plies."""

    move: int
    score: float
    depth: int
    exact: bool


@dataclass(frozen=True)
class PositionAnalysis:
    """Every legal move of a position, best first, and the best line (the best
    move, then the replies the search expects; passes included)."""

    moves: tuple[MoveValue, ...]
    line: tuple[int, ...]

    @property
    def value(self) -> float:
        """The position's value for the player to move: its best move's."""
        return self.moves[0].score


def analyze_position(
    state: GameState,
    evaluation: Evaluation,
    *,
    seconds: float | None = None,
    depth: int | None = None,
    scoring: str = "count",
    exact_empties: int = EXACT_EMPTIES,
) -> PositionAnalysis:
    """Score every legal move of ``state`` (exactly from ``exact_empties``
    empties down, or with ``depth`` from ``depth + CURVE_EXACT_MARGIN``; else
    searched for ``seconds``, or to ``depth`` plies, at least one ply) with
    ``evaluation`` in the midgame.

    Args:
        state: a position that is not over.
        evaluation: the midgame evaluation (the learned patterns, as ``alphabeta:time=S`` plays).
        seconds: the search's clock (None: no clock).
        depth: the deepest depth (None: to the end, or the clock).
        scoring: "count" or "wof", as ``reversi solve``'s.
        exact_empties: solve exactly from this many empty squares down.

    Returns:
        The moves best first and the best line. A forced pass is one move worth
        the negated value of the opponent's best move, and its line goes on with it.

    Raises:
        ValueError: ``state`` is over.
    """
    if state.is_terminal():
        raise ValueError("the game is over: there is no move to analyze")
    if state.legal_actions() == [PASS]:
        reply = analyze_position(
            state.apply(PASS), evaluation, seconds=seconds, depth=depth, scoring=scoring, exact_empties=exact_empties
        )
        top = reply.moves[0]
        return PositionAnalysis((MoveValue(PASS, -top.score, top.depth, top.exact),), (PASS, *reply.line))
    actions = state.legal_actions()
    n = state.num_empty()
    if n <= (exact_empties if depth is None else min(exact_empties, depth + CURVE_EXACT_MARGIN)):
        solver = Solver(evaluation=evaluation)
        scores = solver.score_all(state, scoring=scoring)
        moves = [MoveValue(a, scores[a], n, True) for a in actions]
        table = solver.table
    else:
        p, o = state.kernel_boards()
        table = new_table(TABLE_ENTRIES)
        wof = scoring == "wof"
        deepest = EXACT_DEPTH if depth is None else depth
        root, _ = iterative_deepening(
            p, o, actions, table, evaluation, max_depth=deepest, time_limit=seconds, exact_all=True, wof=wof
        )
        if root.depth == 0:  # not even depth 1 finished in the time: every score would be a 0
            root, _ = iterative_deepening(p, o, actions, table, evaluation, max_depth=1, exact_all=True, wof=wof)
        exact = root.depth >= n
        moves = [
            MoveValue(a, root.scores[a] // DISC if exact else root.scores[a] / DISC, root.depth, exact) for a in actions
        ]
    moves.sort(key=lambda m: -m.score)
    line = [moves[0].move]
    line += table_line(state.apply(line[0]), table)
    if moves[0].exact:  # the last plies are solved without the table: ask the solver for them
        node = state
        for move in line:
            node = node.apply(move)
        solver = Solver(LINE_TABLE_ENTRIES, evaluation)
        while len(line) < LINE_PLIES and not node.is_terminal() and node.num_empty() <= LINE_SOLVE_EMPTIES:
            solution = solver.solve(node, scoring=scoring, all_best=False)
            assert solution is not None  # no limit
            line.append(solution.best_actions[0])
            node = node.apply(line[-1])
    return PositionAnalysis(tuple(moves), tuple(line))


def table_line(state: GameState, table: np.ndarray, plies: int = LINE_PLIES - 1) -> list[int]:
    """The moves the transposition table holds as best from ``state`` on, at most
    ``plies`` of them (a forced pass counts): the line a search expects."""
    line: list[int] = []
    while len(line) < plies and not state.is_terminal():
        actions = state.legal_actions()
        if actions == [PASS]:
            move = PASS
        else:
            found, _, _, _, stored = probe(table, *state.kernel_boards())
            if not found or int(stored) not in actions:
                break
            move = int(stored)
        line.append(move)
        state = state.apply(move)
    return line


def black_value(state: GameState, evaluation: Evaluation, depth: int = CURVE_DEPTH) -> float:
    """The value of ``state`` for black, in discs: the final difference of a
    finished game, else the best move's value at ``depth`` plies (exact near the end)."""
    if state.is_terminal():
        p, o = state.kernel_boards()
        mover = float(final_score(p, o, False))
    else:
        mover = analyze_position(state, evaluation, depth=depth).value
    return mover if state.player == BLACK else -mover


def game_curve(states: Sequence[GameState], evaluation: Evaluation, depth: int = CURVE_DEPTH) -> list[float]:
    """``black_value`` of each position of a game, in order (the start first)."""
    return [black_value(state, evaluation, depth) for state in states]
