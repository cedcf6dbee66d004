"""``reversi solve`` and ``reversi analyze``: the engine's answers about one position.

reversi solve "--XX----O-XXOX--... X" [--scoring count|wof] [--json] [--time-limit S]
    the exact score for the side to move and every best move (the field's
    problem-file position format: 64 cells A1..H8 of X, O, -, then the mover;
    quote it as one argument, so that a board starting with - is not an option;
    a whole line of an OBF file, "... X; G8:+2; A6:+0;", is read up to its
    first ';'); Ctrl-C or the time limit stops a solve too big to wait for
reversi analyze [POSITION | --moves f5d6c3] [--time 2] [--weights FILE] [--json]
    every legal move with its score and the depth it was searched to (a
    hint with scores); exact once few empty squares remain. The moves are a
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
from agents.search.alphabeta import iterative_deepening
from agents.search.endgame import Solver
from agents.search.evaluation import DISC, Evaluation
from agents.search.patterns import pattern_evaluation
from agents.search.timecontrol import interruptible
from agents.search.tt import new_table
from agents.ui.analysis_args import ANALYZE_EXACT_EMPTIES
from reversi_env.errors import quoted
from reversi_env.notation import PASS, action_name
from reversi_env.state import PLAYER_SYMBOLS, GameState

SOLVE_MAX_EMPTIES = 36
"""``reversi solve`` refuses positions with more empty squares (it would run for days)."""
SOLVE_SLOW_EMPTIES = 26
"""From this many empty squares a solve can take minutes to hours here: ``reversi solve`` says so first."""
ANALYZE_TABLE_ENTRIES = 1 << 20


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
    """``reversi solve``: print the exact score and the best moves."""
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
    solution = interruptible(lambda: solver.solve(state, scoring=args.scoring, time_limit=args.time_limit), solver.stop)
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
        print(f"best: {' '.join(best) if best else '(the game is over)'}")
        print(f"{solution.nodes} nodes in {seconds:.2f} s")
    return 0


def run_analyze(args: argparse.Namespace) -> int:
    """``reversi analyze``: print every legal move with its score and depth."""
    try:
        if args.moves is not None and args.position:
            raise ValueError("give a POSITION or --moves, not both")
        if args.moves is not None:
            state = GameState.initial()
            for action in parse_transcript(args.moves):
                state = state.apply(action)
        elif args.position:
            state = _position(args.position)
        else:
            state = GameState.initial()
        evaluation = pattern_evaluation(args.weights)
    except ValueError as e:  # RecordError and CorruptWeightsError too
        return _fail("analyze", e)
    if state.is_terminal():
        return _fail("analyze", "the game is over: there is no move to analyze")
    start = time.perf_counter()
    rows = _analysis(state, args.scoring, args.time, evaluation)
    seconds = time.perf_counter() - start
    if args.json:
        print(json.dumps({"position": state.compact(), "moves": rows, "seconds": seconds}))
        return 0
    print(state)
    for row in rows:
        depth = "exact" if row["exact"] else f"depth {row['depth']}"
        score = f"{row['score']:+d}" if row["exact"] else f"{row['score']:+.2f}"
        print(f"{row['move']:>4}  {score:>7}  {depth}")
    return 0


def _analysis(state: GameState, scoring: str, seconds: float, evaluation: Evaluation) -> list[dict[str, Any]]:
    """Every legal move, best first: ``move``, ``score`` (discs), ``depth``, ``exact``;
    the midgame scored by ``evaluation`` (the learned patterns, as ``alphabeta:time=S``
    plays, not the graded levels' hand-written evaluation)."""
    actions = state.legal_actions()
    if actions == [PASS]:  # the forced pass is worth what the opponent's best move is worth, negated
        reply = _analysis(state.apply(PASS), scoring, seconds, evaluation)[0]
        return [{"move": action_name(PASS), "score": -reply["score"], "depth": reply["depth"], "exact": reply["exact"]}]
    if state.num_empty() <= ANALYZE_EXACT_EMPTIES:
        scores = Solver(evaluation=evaluation).score_all(state, scoring=scoring)
        n = state.num_empty()
        rows: list[dict[str, Any]] = [
            {"move": action_name(a), "score": scores[a], "depth": n, "exact": True} for a in actions
        ]
    else:
        p, o = state.kernel_boards()
        table = new_table(ANALYZE_TABLE_ENTRIES)
        wof = scoring == "wof"
        root, _ = iterative_deepening(p, o, actions, table, evaluation, time_limit=seconds, exact_all=True, wof=wof)
        if root.depth == 0:  # not even depth 1 finished in the time: every score would be a 0
            root, _ = iterative_deepening(p, o, actions, table, evaluation, max_depth=1, exact_all=True, wof=wof)
        exact = root.depth >= state.num_empty()
        rows = [
            {
                "move": action_name(a),
                "score": root.scores[a] // DISC if exact else root.scores[a] / DISC,
                "depth": root.depth,
                "exact": exact,
            }
            for a in actions
        ]
    rows.sort(key=lambda r: -float(r["score"]))
    return rows
