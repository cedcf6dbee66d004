"""``reversi solve`` and ``reversi analyze``: the engine's answers about one position.

reversi solve "--XX----O-XXOX--... X" [--all] [--scoring count|wof] [--json] [--time-limit S]
    the exact score for the side to move and one best move (as the field's
    solvers and the FFO sheets give it), or with --all every best move (each
    other move proved once more: slower). The position is in the field's
    problem-file format: 64 cells A1..H8 of X, O, -, then the mover; quote it
    as one argument, so that a board starting with - is not an option; a whole
    line of an OBF file, "... X; G8:+2; A6:+0;", is read up to its first ';'.
    Ctrl-C or the time limit stops a solve too big to wait for
reversi analyze [POSITION | --moves f5d6c3] [--time 2] [--weights FILE] [--json] [--plot FILE.png]
    every legal move with its score and the depth it was searched to (a
    hint with scores) and the best line; exact once few empty squares
    remain; --plot draws the evaluation over the game (--moves) first. The moves are a
    transcript as ``reversi play --start`` reads it: a forced pass may be
    left out or written --, pa or pass. ``--weights`` scores with pattern
    weights of your own (``reversi train-eval --out``), as ``weights=FILE``
    does in a player spec
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

from agents.play.records import parse_transcript
from agents.search.analysis import TABLE_ENTRIES, MoveValue, PositionAnalysis, analyze_position, game_curve
from agents.search.endgame import Solver
from agents.search.evaluation import Evaluation
from agents.search.patterns import pattern_evaluation
from agents.search.timecontrol import interruptible
from agents.ui.analysis_args import ANALYZE_EXACT_EMPTIES
from agents.ui.curve_plot import plot_curve, unwritable_reports
from reversi_env.errors import quoted
from reversi_env.notation import action_name
from reversi_env.state import PLAYER_SYMBOLS, GameState

SOLVE_MAX_EMPTIES = 36
"""``reversi solve`` refuses positions with more empty squares (it would run for days)."""
SOLVE_SLOW_EMPTIES = 26
"""From this many empty squares a solve can take minutes to hours here: ``reversi solve`` says so first."""
ANALYZE_TABLE_ENTRIES = TABLE_ENTRIES


def _fail(command: str, message: object) -> int:
    print(f"reversi {command}: error: {message}", file=sys.stderr)
    return 2


def _position(words: list[str]) -> GameState:
    """The position from the words of the command line (ValueError if it is not one).
    A line of an OBF file ("board side; move:score; ...", or "% a comment"
    after it) counts up to its first ';' or '%'."""
    text = " ".join(words)
    cells = "".join(text.split(";", 1)[0].split("%", 1)[0].split())
    if len(cells) != 65 or any(c not in "XO-." for c in cells[:64].upper()) or cells[64].upper() not in "XO":
        raise ValueError(f"a position is 64 cells (X, O, -) and the side to move (X or O), got {quoted(text)}")
    return GameState.from_string(cells)


def run_solve(args: argparse.Namespace) -> int:
    """``reversi solve``: print the exact score and a best move (``--all``: every best move)."""
    try:
        state = _position(args.position)
    except ValueError as e:
        return _fail("solve", e)
    if state.num_empty() > SOLVE_MAX_EMPTIES:
        return _fail("solve", f"{state.num_empty()} empty squares: too many to solve (try reversi analyze)")
    if state.num_empty() >= SOLVE_SLOW_EMPTIES and args.time_limit is None:
        print(
            f"reversi solve: {state.num_empty()} empty squares can take minutes to hours "
            "(Ctrl-C stops, --time-limit S bounds it)",
            file=sys.stderr,
            flush=True,
        )
    start = time.perf_counter()
    solver = Solver()
    solution = interruptible(
        lambda: solver.solve(state, scoring=args.scoring, time_limit=args.time_limit, all_best=args.all),
        solver.stop,
    )
    seconds = time.perf_counter() - start
    if solution is None:
        print(f"reversi solve: not solved in {args.time_limit:g} s (a larger --time-limit may do)", file=sys.stderr)
        return 1
    best = [action_name(a) for a in solution.best_actions]
    if args.json:
        print(json.dumps({"score": solution.score, "best": best, "nodes": solution.nodes, "seconds": seconds}))
    else:
        mover = PLAYER_SYMBOLS[state.player]
        print(f"{mover} to move: {solution.score:+d} ({args.scoring} scoring)")
        label = "every best move" if args.all else "best"
        print(f"{label}: {' '.join(best) if best else '(the game is over)'}")
        print(f"{solution.nodes} nodes in {seconds:.2f} s")
    return 0


def run_analyze(args: argparse.Namespace) -> int:
    """``reversi analyze``: print every legal move with its score and depth, and
    the best line; with ``--plot``, draw the game's evaluation curve first."""
    if args.plot is not None and args.moves is None:
        return _fail("analyze", "--plot draws a game's evaluation: give the game with --moves")
    if args.plot is not None and unwritable_reports("analyze", args.plot):
        return 2
    try:
        if args.moves is not None and args.position:
            raise ValueError("give a POSITION or --moves, not both")
        states = [GameState.initial()]
        if args.moves is not None:
            for action in parse_transcript(args.moves):
                states.append(states[-1].apply(action))
        elif args.position:
            states = [_position(args.position)]
        evaluation = pattern_evaluation(args.weights)
    except ValueError as e:  # RecordError and CorruptWeightsError too
        return _fail("analyze", e)
    state = states[-1]
    if args.plot is not None:
        curve = game_curve(states, evaluation)
        plot_curve(curve, args.plot, title=f"Evaluation over the game ({len(states) - 1} moves)")
        print(f"reversi analyze: the evaluation of {len(curve)} positions drawn in {args.plot}", file=sys.stderr)
        if state.is_terminal():
            return 0
    if state.is_terminal():
        return _fail("analyze", "the game is over: there is no move to analyze")
    start = time.perf_counter()
    analysis = _analysis(state, args.scoring, args.time, evaluation)
    seconds = time.perf_counter() - start
    rows = [_row(value) for value in analysis.moves]
    line = [action_name(a) for a in analysis.line]
    if args.json:
        print(json.dumps({"position": state.compact(), "moves": rows, "line": line, "seconds": seconds}))
        return 0
    print(state)
    for row in rows:
        depth = "exact" if row["exact"] else f"depth {row['depth']}"
        score = f"{row['score']:+d}" if row["exact"] else f"{row['score']:+.2f}"
        print(f"{row['move']:>4}  {score:>7}  {depth}")
    print(f"best line: {' '.join(line)}")
    return 0


def _analysis(state: GameState, scoring: str, seconds: float, evaluation: Evaluation) -> PositionAnalysis:
    """Every legal move, best first, and the best line (``analysis.analyze_position``),
    exact from ``ANALYZE_EXACT_EMPTIES`` empties down, the midgame scored by
    ``evaluation`` (the learned patterns, as ``alphabeta:time=S`` plays, not the
    graded levels' hand-written evaluation)."""
    return analyze_position(state, evaluation, seconds=seconds, scoring=scoring, exact_empties=ANALYZE_EXACT_EMPTIES)


def _row(value: MoveValue) -> dict[str, Any]:
    """One move of ``reversi analyze``'s answer: ``move``, ``score`` (discs), ``depth``, ``exact``."""
    score = int(value.score) if value.exact else value.score
    return {"move": action_name(value.move), "score": score, "depth": value.depth, "exact": value.exact}
