"""The exact solver on the FFO endgame test positions #20-#59, side by side with Zebra and Egaroucid.

Solves each position with world-federation scoring (the test suite's), with a
fresh table each time, twice: as the field reports it (the exact score and one
best move, as Zebra and the FFO sheets give) and as ``reversi solve`` does it
(every best move). Prints its number, empty squares, our score against the
known one, then for each mode the best move(s), CPU seconds, nodes and nodes a
second, then the totals. Times are the process's CPU time (the machine is
shared; wall time would count the other jobs). With ``--zebra PATH`` (a
script-mode Zebra build, ``scrzebra``, with its ``coeffs2.bin`` beside it) it
times Zebra on the same positions, one process each (its startup included, CPU
time of the child), and prints the ratio to our one-best-move time; with
``--egaroucid PATH`` (Egaroucid's console build, ``Egaroucid_for_Console.out``,
its resources beside it) the same for Egaroucid's solver, one thread, no book,
level 60 (exact from the first move), with the evaluation ``--egaroucid-eval``
names (by default the small one its repository ships, which its build script
installs as ``resources/SMOKE_TEST_eval_stable.egev2``): one process a
position, running beside ours on the other core, each row with the time of
Egaroucid's own clock, the total in CPU time less that of its start-up
(seconds of loading tables); ``--egaroucid-cap S`` stops each of its solves
after S CPU seconds (default ``--cap``), and with a position it does not end
its total is a lower bound and the ratio an upper one. ``--first`` and
``--last`` choose the positions: #20-#39 by default, #40-#59 (20 to 34
empties, minutes to hours each) on request. With ``--command`` our solves
run through ``reversi solve`` itself (its argument parsing, a fresh solver,
the default one best move and ``--all``'s every best move), in this process,
so that what is timed is what a user's command does, the startup aside.
With ``--games N`` it solves, instead of the FFO positions, positions of N
engine games (``engine_positions``: not a test set, so that the solver's
tuning can be checked on positions it was not tuned on); there is no known
score to compare with then; with ``--timed S`` as well, the timed engine
plays each of those positions in S seconds, with and without its jump to
the exact end (``EXACT_JUMP``; ``--jumps``) and with its win/loss/draw search
from the empties ``--wld`` gives (``WLD_EMPTIES``), and its moves are checked
against the exact best ones; with ``--players SPEC...`` instead, the players
those specs make (``reversi play``'s) play each position, and their moves
are checked the same way (MCTS's endgame proof: ``mcts:time=1`` against
``mcts:time=1,proof=0``; a GTP engine cannot join a position without the
game's moves, and says so in one line). ``--from-games FILE...`` takes the
positions instead from recorded games (``reversi arena``'s or
``bench_engine.py``'s ``--out``): every position with ``--empties`` to
``--empties-max`` empty squares and a choice of moves, each once (a match
against a strong engine gives the close positions where the endgame is
hard). With ``--errors`` it scores every move of those games in that range
instead, by the exact solver before and after it, and prints each player's
discs and outcomes given away by four empty squares: where a match was lost
(the solves take seconds a position from about 22 empties up).
With ``--midgame N`` it also runs the timed midgame search (1 s) on N positions
of seeded random games and prints the depth reached and nodes a second (with
``--threads 2``, once more with two threads); with ``--to-depth D`` it times
the search to depth D instead, with the learned evaluation, and prints how
much faster two threads got there (nodes a second are not strength: the time to
a depth is what a second thread buys).

``--record`` writes the FFO totals (beside Zebra's and Egaroucid's, when given) into
docs/benchmarks.md (``record.py``).

    python benchmarks/bench_solver.py [--first 20] [--last 39] [--one-best-only] [--command] [--zebra /path/to/scrzebra]
                                      [--egaroucid /path/to/Egaroucid_for_Console.out [--egaroucid-eval FILE]
                                       [--egaroucid-cap S]]
                                      [--midgame 10 [--threads 2] [--to-depth 9]]
    python benchmarks/bench_solver.py --games 40 --empties 21 [--empties-max 21] [--seed 0] [--one-best-only]
    python benchmarks/bench_solver.py --games 60 --empties 16 --empties-max 25 --timed 1 [--jumps 7 0] [--wld 18 off]
    python benchmarks/bench_solver.py --games 60 --empties 17 --empties-max 22 --players mcts:time=1 mcts:time=1,proof=0
    python benchmarks/bench_solver.py --from-games zebra.jsonl --empties 21 --empties-max 22 --players mcts:time=1
    python benchmarks/bench_solver.py --from-games zebra.jsonl --empties 1 --empties-max 22 --errors
"""

from __future__ import annotations

import argparse
import io
import json
import os
import re
import resource
import signal
import subprocess
import sys
import tempfile
import time
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager, redirect_stdout
from pathlib import Path

import numpy as np
from record import Figure, add_record_options, check_record_file, record_if_asked
from tqdm import tqdm

from agents.arena.tournament import Opening, close_agent, read_results
from agents.base import Agent
from agents.play.gtp_connection import EngineError
from agents.play.match import GameResult
from agents.play.specs import SpecError, make_agent, parse_spec, without_book
from agents.search.alphabeta import EXACT_JUMP, WLD_EMPTIES, iterative_deepening
from agents.search.alphabeta_agent import MAX_DEPTH, AlphaBetaAgent
from agents.search.endgame import EndgameSolution, Solver
from agents.search.evaluation import HAND_EVALUATION
from agents.search.patterns import pattern_evaluation
from agents.search.tt import new_table
from agents.ui.cli import main as reversi
from agents.ui.options import bounded_int, positive_float, positive_int, seed_int
from reversi_env import BLACK, PASS, GameState, parse_square, square_name
from reversi_env.observation import observe

TEST_DATA = Path(__file__).resolve().parents[1] / "tests" / "data"
FFO_FILES = {20: TEST_DATA / "fforum-20-39.obf", 40: TEST_DATA / "fforum-40-59.obf"}
"""The FFO problem files, by the number of their first position."""
FIRST_NUMBER = 20
EGAROUCID_EVAL = Path("resources") / "SMOKE_TEST_eval_stable.egev2"
"""Egaroucid's small evaluation, beside its console build (where build_egaroucid.sh puts it)."""


def load_problems() -> list[tuple[int, str, dict[str, int]]]:
    """(number, position text, known score of each listed move) for FFO #20-#59."""
    problems = []
    for first, path in FFO_FILES.items():
        for number, line in enumerate(path.read_text().splitlines(), start=first):
            fields = [f.strip() for f in line.split(";") if f.strip()]
            problems.append((number, fields[0], {m.split(":")[0]: int(m.split(":")[1]) for m in fields[1:]}))
    return problems


def solve_by_command(position: str, all_best: bool, cap: float) -> EndgameSolution | None:
    """``position`` solved by ``reversi solve`` (world-federation scoring, ``--all``
    if ``all_best``, at most ``cap`` seconds) in this process, read back from its
    JSON; None if it was not solved in time."""
    out = io.StringIO()
    args = ["solve", position, "--scoring", "wof", "--json", "--time-limit", str(cap)]
    with redirect_stdout(out):
        status = reversi(args + (["--all"] if all_best else []))
    if status != 0:
        return None
    answer = json.loads(out.getvalue())
    return EndgameSolution(int(answer["score"]), tuple(parse_square(m) for m in answer["best"]), int(answer["nodes"]))


OPENING_PLIES = 8
ENGINE_DEPTH = 6


def engine_positions(games: int, empties: int, empties_max: int, seed: int) -> list[GameState]:
    """One position from each of ``games`` engine games: ``OPENING_PLIES``
    random plies, then ``AlphaBetaAgent(ENGINE_DEPTH)`` with the learned
    evaluation on both sides (ties at random), up to the first position with
    ``empties`` + (game % (``empties_max`` - ``empties`` + 1)) empty squares.
    Game ``i`` is seeded by ``seed`` and ``i``; a game that ends first gives none."""
    found = []
    for game in range(games):
        target = empties + game % (empties_max - empties + 1)
        rng = np.random.default_rng([seed, game])
        agent = AlphaBetaAgent(ENGINE_DEPTH, seed=int(rng.integers(2**31)), evaluation=pattern_evaluation())
        state, ply = GameState.initial(), 0
        while not state.is_terminal() and state.num_empty() > target:
            actions = state.legal_actions()
            if ply < OPENING_PLIES or actions == [PASS]:
                action = int(rng.choice(actions))
            else:
                best = agent.best_actions(state)
                action = best[0] if len(best) == 1 else int(rng.choice(best))
            state, ply = state.apply(action), ply + 1
        if not state.is_terminal() and state.num_empty() == target:
            found.append(state)
    return found


def recorded_moves(paths: list[Path]) -> Iterator[tuple[str, GameState, str, str | None]]:
    """Every move of the games in results files (``reversi arena``'s and
    ``bench_engine.py``'s ``--out``), in the files' order: the mover's name (the
    record's player), the position, the move and the game's moves before it
    from the standard start, as Zebra's ``-seq`` takes them (the record's opening
    first, passes left out; None for a game from a position its opening does not
    reach). ValueError if one does not replay."""
    for path in paths:
        for game in read_results(path).games:
            try:
                result = GameResult.from_dict(game.get("result", {}))
                state = result.start_state()
                opening = Opening.parse(str(game.get("opening", "start")))
                line = "".join(m.lower() for m in opening.moves if m != "PASS")
                played: str | None = line if opening.state() == state else None
                for move in result.moves:
                    yield game["black" if state.player == BLACK else "white"], state, move, played
                    state = state.apply(move)
                    if played is not None and move != "PASS":
                        played += move.lower()
            except ValueError as error:  # a malformed record, or a move the rules forbid (its board follows)
                raise ValueError(f"{path}: game {game['game_id']!r}: {str(error).splitlines()[0]}") from None


def recorded_positions(paths: list[Path], empties: int, empties_max: int) -> list[GameState]:
    """Every position of recorded games (``recorded_moves``) with ``empties`` to
    ``empties_max`` empty squares and a choice of moves, each once: positions
    strong players reached, where ``engine_positions`` has our engine's own."""
    found: dict[GameState, None] = {}
    for _, state, _, _ in recorded_moves(paths):
        if empties <= state.num_empty() <= empties_max and len(state.legal_actions()) > 1:
            found.setdefault(state)
    return list(found)


def game_errors(paths: list[Path], empties: int, empties_max: int) -> None:
    """Where each player of recorded games gave discs away: every move with
    ``empties`` to ``empties_max`` empty squares and a choice, scored by the exact
    solver before and after it, totalled by player and by four empty squares.
    Prints the moves, the discs given away (a move and in all) and the outcomes
    given away (a win or a draw the move lost)."""
    solver = Solver()
    table: dict[tuple[str, int], list[int]] = {}
    scored = [
        (name, state, move)
        for name, state, move, _ in recorded_moves(paths)
        if empties <= state.num_empty() <= empties_max and len(state.legal_actions()) >= 2
    ]
    for name, state, move in tqdm(scored, desc="moves solved", file=sys.stderr):
        discs, outcome = _given_away(_exact(solver, state), _exact(solver, state.apply(move)))
        row = table.setdefault((name, (state.num_empty() - 1) // 4), [0, 0, 0])
        row[0] += 1
        row[1] += discs
        row[2] += outcome
    print(f"{'player':<28} {'empties':>7} {'moves':>6} {'discs given away':>16} {'a move':>6} {'outcomes':>8}")
    for (name, phase), (moves, discs, outcomes) in sorted(table.items(), key=lambda kv: (kv[0][0], -kv[0][1])):
        span = f"{max(phase * 4 + 1, empties)}-{min(phase * 4 + 4, empties_max)}"
        print(f"{name[:28]:<28} {span:>7} {moves:>6} {discs:>16} {discs / moves:>6.2f} {outcomes:>8}")


def _given_away(before: int, child: int) -> tuple[int, bool]:
    """The discs a move gave away and whether it gave the outcome away (a win or
    a draw lost), from the exact score before it (the mover's) and after it
    (the child's, which is the opponent's)."""
    return before + child, bool(np.sign(-child) < np.sign(before))


def _exact(solver: Solver, state: GameState) -> int:
    """The exact final disc difference of ``state`` for its mover (``reversi solve``'s count scoring)."""
    solution = solver.solve(state, all_best=False)
    assert solution is not None  # no node limit
    return solution.score


def solve_games(positions: list[GameState], one_best_only: bool, cap: float) -> None:
    """Solve ``positions`` (world-federation scoring, a fresh table each) and print the totals."""
    modes = [False] if one_best_only else [False, True]
    for all_best in modes:
        seconds, nodes = 0.0, 0
        for state in tqdm(positions, desc="every best move" if all_best else "one best move", file=sys.stderr):
            start = time.process_time()
            solution = Solver().solve(state, scoring="wof", time_limit=cap, all_best=all_best)
            seconds += time.process_time() - start
            if solution is None:
                print(f"  not solved in {cap:g} s: {state}")
                continue
            nodes += solution.nodes
        print(
            f"{len(positions)} positions of engine games, {'every best move' if all_best else 'one best move'}: "
            f"{seconds:.2f} s, {nodes:,d} nodes, {nodes / seconds / 1e6:.2f} M nodes/s"
        )


def move_quality(positions: list[GameState], choosers: dict[str, Callable[[GameState], int]]) -> None:
    """Each chooser's move in each of ``positions`` (the choosers alternated
    position by position, so a change of load falls on all alike), checked
    against the exact best moves: how often it is not an exact best move, how
    often it does not keep the position's outcome (a win or a draw given away),
    and the discs it gives away. Prints one line a chooser, named by its key."""
    solver = Solver()
    missed = dict.fromkeys(choosers, 0)
    outcome = dict.fromkeys(choosers, 0)
    lost = dict.fromkeys(choosers, 0)
    for state in tqdm(positions, desc="positions", file=sys.stderr):
        solution = solver.solve(state)
        assert solution is not None
        for name, choose in choosers.items():
            move = choose(state)
            if move not in solution.best_actions:
                discs, gave_outcome = _given_away(solution.score, _exact(solver, state.apply(move)))
                missed[name] += 1
                outcome[name] += gave_outcome
                lost[name] += discs
    for name in choosers:
        print(
            f"{name}: {missed[name]} of {len(positions)} moves not an exact best, "
            f"{outcome[name]} outcomes given away, {lost[name]} discs given away"
        )


def timed_moves(positions: list[GameState], seconds: float, jumps: list[int], wlds: list[int | None]) -> None:
    """``move_quality`` of the timed engine (``alphabeta:time=S``'s search, one
    thread, a fresh table) with each of ``jumps`` to the exact end
    (``EXACT_JUMP``; 0: ply by ply) and each of ``wlds`` (``WLD_EMPTIES``, from
    how many empties the exact depth asks win, loss or draw first; None: never)."""
    evaluation = pattern_evaluation()

    def engine(jump: int, wld: int | None) -> Callable[[GameState], int]:
        def choose(state: GameState) -> int:
            p, o = state.kernel_boards()
            root, _ = iterative_deepening(
                p, o, state.legal_actions(), new_table(1 << 20), evaluation, time_limit=seconds,
                exact_jump=jump, wld_empties=wld,
            )  # fmt: skip
            return root.best_moves()[0]

        return choose

    move_quality(
        positions,
        {f"{seconds:g} s a move, exact_jump={j}, wld_empties={w}": engine(j, w) for j in jumps for w in wlds},
    )


@contextmanager
def fresh_agent(spec: str, player: int) -> Iterator[Agent]:
    """A player given by its spec (``reversi play``'s), built afresh for one
    position (seed 0), so no search is kept from one to the next, and closed after it;
    a search by time searches without the opening book it would play from by default
    (``without_book``), for the search is what is scored."""
    agent = make_agent(without_book(spec), player, seed=0)
    try:
        yield agent
    finally:
        close_agent(agent)  # an external engine ends its process


def player_moves(positions: list[GameState], specs: list[str]) -> None:
    """``move_quality`` of players given by their specs, each built afresh for
    every position (``fresh_agent``)."""

    def player(spec: str) -> Callable[[GameState], int]:
        def choose(state: GameState) -> int:
            with fresh_agent(spec, state.player) as agent:
                return agent.act(observe(state, state.player))

        return choose

    move_quality(positions, {spec: player(spec) for spec in specs})


ZEBRA_CAP = 3600.0
"""CPU seconds at most Zebra's process on one position."""
OUTPUT_LIMIT = 1 << 20
"""Bytes at most read back from an anchor's output."""


def run_anchor(
    command: list[str],
    cwd: Path,
    stdin: str,
    cpu_cap: float,
    started: Callable[[subprocess.Popen[bytes]], None] | None = None,
) -> tuple[int, str, float]:
    """Run ``command`` in ``cwd`` with ``stdin`` as its input, stopped by the
    kernel after ``cpu_cap`` CPU seconds (its CPU-time limit); ``started`` is
    given the process once it runs (to stop it from another thread).

    Returns:
        its exit status (the negative signal that ended it, ``-SIGXCPU`` when
        it ran out of CPU time), its output and errors (their first
        ``OUTPUT_LIMIT`` bytes), and the CPU seconds it used.

    The CPU time is that child's own, so that an anchor timed while another
    solves beside it does not count the other's."""
    limit = max(1, int(cpu_cap + 0.999))
    with tempfile.TemporaryFile() as source, tempfile.TemporaryFile() as out:
        source.write(stdin.encode())
        source.seek(0)
        proc = subprocess.Popen(
            command,
            cwd=cwd,
            stdin=source,
            stdout=out,
            stderr=subprocess.STDOUT,
            preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_CPU, (limit, limit + 5)),
        )
        if started is not None:
            started(proc)
        try:
            _, status, usage = os.wait4(proc.pid, 0)
        except BaseException:  # a Ctrl-C while it runs: it goes with us
            proc.kill()
            proc.wait()
            raise
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        text = out.read(OUTPUT_LIMIT).decode(errors="replace")
    return proc.returncode, text, usage.ru_utime + usage.ru_stime


def run_zebra(path: Path, position: str) -> tuple[float, int, int]:
    """Zebra on one position: (CPU seconds, its start-up included; nodes; score for the side to move)."""
    mover = position.split()[1]
    with tempfile.TemporaryDirectory() as tmp:
        script, out = Path(tmp) / "script.txt", Path(tmp) / "out.txt"
        script.write_text(position + "\n")
        status, text, seconds = run_anchor([str(path), "-script", str(script), str(out)], path.parent, "", ZEBRA_CAP)
        if not out.exists():
            raise RuntimeError(f"{path} wrote no script output: it needs Zebra's script build (scrzebra)")
        final = re.findall(r"(\d+)\s*-\s*(\d+)", out.read_text()[:OUTPUT_LIMIT])
    nodes = re.search(r"Total nodes:\s+(\d+)", text)
    if status != 0 or not final or nodes is None:
        raise RuntimeError(f"zebra failed on {position!r}: {text[-500:]}")
    black, white = (int(x) for x in final[-1])
    return seconds, int(nodes.group(1)), (black - white) if mover == "X" else (white - black)


class Egaroucid:
    """Egaroucid's console solver (one thread, no book, level 60: exact from
    the first move; ``evaluation`` is the ``-eval`` file it orders its moves
    by), one process a position, each stopped after ``cap`` CPU seconds of
    solving.

    ``solve`` gives (seconds by its own clock, nodes, score for the side to
    move), or None when the cap stopped it; ``cpu`` the CPU seconds of its
    solves so far: each process's less those of the same process given no
    position (its start-up, seconds of loading tables, would otherwise
    outweigh the small solves)."""

    def __init__(self, path: Path, evaluation: Path, cap: float) -> None:
        self.path, self.evaluation, self.cap = path, evaluation, cap
        self.cpu = 0.0
        self.stopped = False
        self.live: subprocess.Popen[bytes] | None = None
        startups = []
        for _ in range(3):  # it varies by a tenth of a second or two: the median of three
            status, out, seconds = self._run([], ZEBRA_CAP)
            if status != 0:
                raise RuntimeError(f"egaroucid failed: {out[-500:]}")
            startups.append(seconds)
        self.startup = sorted(startups)[1]

    def _started(self, proc: subprocess.Popen[bytes]) -> None:
        self.live = proc
        if self.stopped:
            proc.kill()

    def stop(self) -> None:
        """End the solve under way, if any, and every later one (from another thread)."""
        self.stopped = True
        if self.live is not None and self.live.returncode is None:
            self.live.kill()

    def _run(self, lines: list[str], cpu_cap: float) -> tuple[int, str, float]:
        with tempfile.TemporaryDirectory() as tmp:
            problems = Path(tmp) / "problems.txt"
            problems.write_text("".join(line.replace(" ", "") + "\n" for line in lines))
            command = [str(self.path), "-l", "60", "-t", "1", "-nobook", "-eval", str(self.evaluation)]
            # Egaroucid reads commands after the file's solves: quit ends it (at the end of input it would wait).
            problem = [*command, "-solve", str(problems)]
            return run_anchor(problem, self.path.parent, "quit\n", cpu_cap, self._started)

    def solve(self, position: str) -> tuple[float, int, int] | None:
        if self.stopped:
            raise RuntimeError("egaroucid stopped")
        status, out, seconds = self._run([position], self.startup + self.cap)
        self.cpu += max(seconds - self.startup, 0.0)
        if status == -signal.SIGXCPU:
            return None
        rows = [[cell.strip() for cell in line.split("|")[1:-1]] for line in out.splitlines() if "|" in line]
        rows = [row for row in rows if len(row) == 7 and row[0] != "Level"]
        if status != 0 or len(rows) != 1:
            raise RuntimeError(f"egaroucid gave {len(rows)} solves of 1 position: {out[-500:]}")
        _, _, _, score, clock, nodes, _ = rows[0]
        hours, minutes, secs = clock.split(":")
        return int(hours) * 3600 + int(minutes) * 60 + float(secs), int(nodes), int(score)


def midgame(count: int, seconds: float = 1.0, threads: int = 1, depth: int | None = None) -> float:
    """The timed search on ``count`` positions 20 plies into seeded random games
    (with ``depth``: the search to that depth, no clock, with the learned
    evaluation the engine plays with); returns the wall seconds in all."""
    evaluation = HAND_EVALUATION if depth is None else pattern_evaluation()
    what = f"{seconds:g} s a position" if depth is None else f"to depth {depth}, learned evaluation"
    print(f"midgame search, {what}, {threads} thread(s):")
    total_nodes, total_seconds = 0, 0.0
    for seed in range(count):
        rng = np.random.default_rng(seed)
        state = GameState.initial()
        for _ in range(20):
            state = state.apply(int(rng.choice(state.legal_actions())))
        p, o = state.kernel_boards()
        limits = {"time_limit": seconds} if depth is None else {"max_depth": depth}
        start = time.perf_counter()
        root, nodes = iterative_deepening(
            p, o, state.legal_actions(), new_table(1 << 20), evaluation, threads=threads, **limits
        )
        elapsed = time.perf_counter() - start
        total_nodes += nodes
        total_seconds += elapsed
        print(
            f"  seed {seed}: depth {root.finished_depth}, {elapsed:.3f} s, {nodes:,d} nodes, "
            f"{nodes / elapsed / 1e6:.2f} M nodes/s"
        )
    print(f"  all: {total_seconds:.2f} s, {total_nodes / total_seconds / 1e6:.2f} M nodes/s")
    return total_seconds


def _wld_empties(text: str) -> int | None:
    """``--wld``'s values: a number of empty squares (0 to 64), or 'off'."""
    if text == "off":
        return None
    if not text.isdigit() or int(text) > 64:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of empty squares (0 to 64) or 'off'")
    return int(text)


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; exit status 1 if a score is wrong."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--first", type=int, default=20, help="first FFO number (default 20)")
    parser.add_argument("--last", type=int, default=39, help="last FFO number (default 39)")
    parser.add_argument("--zebra", type=Path, help="a script-mode Zebra (scrzebra) to time on the same positions")
    parser.add_argument(
        "--egaroucid", type=Path, help="Egaroucid's console build (Egaroucid_for_Console.out) to time beside ours"
    )
    parser.add_argument(
        "--egaroucid-eval",
        type=Path,
        metavar="FILE",
        help=f"--egaroucid: its evaluation file (default: {EGAROUCID_EVAL} beside the program)",
    )
    parser.add_argument(
        "--egaroucid-cap",
        type=positive_float,
        metavar="S",
        help="--egaroucid: CPU seconds at most its solve of a position (default: --cap); "
        "one it does not end counts as S, and its total becomes a lower bound",
    )
    parser.add_argument(
        "--command", action="store_true", help="solve through reversi solve (default: one best move; --all: every one)"
    )
    parser.add_argument(
        "--midgame",
        type=bounded_int(0, 10**6),
        default=0,
        help="also time the midgame search on N positions (after the FFO solves; default 0: not)",
    )
    parser.add_argument(
        "--threads", type=positive_int, default=1, help="midgame: also with 2..N threads (ABDADA; default 1)"
    )
    parser.add_argument(
        "--to-depth",
        type=bounded_int(1, MAX_DEPTH),
        help=f"midgame: time the search to this depth (1 to {MAX_DEPTH}) instead of 1 s (time-to-depth speedup)",
    )
    parser.add_argument("--cap", type=positive_float, default=600.0, help="seconds at most a position (default 600)")
    parser.add_argument("--one-best-only", action="store_true", help="skip the every-best-move solves")
    parser.add_argument(
        "--games",
        type=bounded_int(0, 10**6),
        default=0,
        help="solve positions of N engine games instead of FFO's (default 0: FFO's)",
    )
    parser.add_argument(
        "--empties", type=bounded_int(1, 60), default=21, help="--games: empty squares of the positions (default 21)"
    )
    parser.add_argument(
        "--empties-max", type=bounded_int(1, 60), help="--games: up to this many empties (game by game)"
    )
    parser.add_argument("--seed", type=seed_int, default=0, help="--games: the seed of the games (default 0)")
    parser.add_argument(
        "--from-games",
        type=Path,
        nargs="+",
        metavar="FILE",
        help="instead of --games: the positions of the games in these results files (arena's or bench_engine's --out)",
    )
    parser.add_argument(
        "--errors",
        action="store_true",
        help="--from-games: the discs and outcomes each player gave away, by the exact solver, instead",
    )
    parser.add_argument(
        "--timed",
        type=positive_float,
        metavar="S",
        help="--games: the timed engine's moves against the exact best ones instead",
    )
    parser.add_argument(
        "--jumps",
        type=int,
        nargs="+",
        default=[EXACT_JUMP, 0],
        metavar="J",
        help=f"--timed: the jumps to the exact end to compare (default {EXACT_JUMP} 0; 0 is ply by ply)",
    )
    parser.add_argument(
        "--wld",
        type=_wld_empties,
        nargs="+",
        default=[WLD_EMPTIES],
        metavar="E",
        help=f"--timed: from how many empties to ask win, loss or draw first, to compare (default {WLD_EMPTIES}; "
        "'off': never)",
    )
    parser.add_argument(
        "--players",
        nargs="+",
        metavar="SPEC",
        help="--games: these players' moves against the exact best ones instead (e.g. mcts:time=1 mcts:time=1,proof=0)",
    )
    add_record_options(parser)
    args = parser.parse_args(argv)
    check_record_file(parser, args)
    for spec in args.players or []:
        try:
            parse_spec(spec)
        except SpecError as error:
            parser.error(f"--players: {error}")
    if args.errors and not args.from_games:
        parser.error("--errors needs --from-games: the recorded games whose moves it scores")
    if any(j < 0 for j in args.jumps):
        parser.error(f"--jumps {' '.join(map(str, args.jumps))}: a jump is 0 or more plies")
    empties_max = args.empties if args.empties_max is None else args.empties_max
    if empties_max < args.empties:
        parser.error(f"--empties-max {empties_max}: give --empties ({args.empties}) or more")
    every = load_problems()
    problems = [p for p in every if args.first <= p[0] <= args.last]
    if not problems:
        last = FIRST_NUMBER + len(every) - 1
        parser.error(f"--first {args.first} --last {args.last}: expected {FIRST_NUMBER} <= FIRST <= LAST <= {last}")
    if args.zebra is not None and not args.zebra.is_file():
        parser.error(f"--zebra {args.zebra}: no such file (Zebra is not part of this project: build it, see --help)")
    egaroucid_eval = None
    if args.egaroucid is not None:
        if not args.egaroucid.is_file():
            parser.error(f"--egaroucid {args.egaroucid}: no such file (not part of this project: build it, see --help)")
        egaroucid_eval = args.egaroucid.parent / EGAROUCID_EVAL if args.egaroucid_eval is None else args.egaroucid_eval
        if not egaroucid_eval.is_file():
            parser.error(f"--egaroucid-eval {egaroucid_eval}: no such file")
    if args.games or args.from_games:
        if args.from_games:
            try:
                positions = recorded_positions(args.from_games, args.empties, empties_max)
            except (OSError, ValueError) as error:  # a missing file, a bad line, a record that does not replay
                parser.exit(1, f"bench_solver.py: --from-games: {str(error).splitlines()[0]}\n")
            if not positions:
                message = f"no position with {args.empties}-{empties_max} empties"
                parser.exit(1, f"bench_solver.py: --from-games: {message}\n")
            if args.errors:
                game_errors(args.from_games, args.empties, empties_max)
                return 0
        else:
            positions = engine_positions(args.games, args.empties, empties_max, args.seed)
            if not positions:
                parser.exit(1, f"bench_solver.py: every game ended before {args.empties}-{empties_max} empties\n")
        Solver().solve(positions[0], scoring="wof")  # load the compiled code
        if args.players:
            try:
                player_moves(positions, args.players)
            except (SpecError, EngineError) as error:  # a player that cannot be built, or cannot play a position
                parser.exit(1, f"bench_solver.py: --players: {error}\n")
        elif args.timed is not None:
            timed_moves(positions, args.timed, args.jumps, args.wld)
        else:
            solve_games(positions, args.one_best_only, args.cap)
        return 0
    if args.midgame:
        walls = [midgame(args.midgame, threads=n, depth=args.to_depth) for n in range(1, args.threads + 1)]
        if args.to_depth is not None:
            for threads, wall in enumerate(walls[1:], start=2):
                print(f"time to depth {args.to_depth}: {threads} threads {walls[0] / wall:.2f}x faster than one")

    # Load the compiled code on the first, smallest FFO position (#40-#59 take minutes each).
    Solver().solve(GameState.from_string(every[0][1].replace("-", ".")), scoring="wof")
    modes = [False] if args.one_best_only else [False, True]
    header = f"{'#':>3} {'empty':>5} {'ours':>5} {'known':>5}"
    for all_best in modes:
        header += f" | {'all best' if all_best else 'one best':>8} {'seconds':>8} {'nodes':>13} {'Mn/s':>6}"
    anchors = {"zebra": args.zebra, "egaroucid": args.egaroucid}
    for name, path in anchors.items():
        if path is not None:
            header += f" | {name[:9] + ' s':>11} {'nodes':>13} {'Mn/s':>6} {'score':>5} {'ratio':>6}"
    print(f"our solves: {'reversi solve' if args.command else 'Solver.solve'}")
    print(header)
    totals = {f"{k}{m}": 0.0 for k in ("seconds", "nodes", "unsolved") for m in [*modes, *anchors]}
    egaroucid: Egaroucid | None = None
    pending: list[Future[tuple[float, int, int] | None]] = []
    if args.egaroucid is not None:
        assert egaroucid_eval is not None
        egaroucid_cap = args.cap if args.egaroucid_cap is None else args.egaroucid_cap
        try:
            egaroucid = Egaroucid(args.egaroucid, egaroucid_eval, egaroucid_cap)
        except (OSError, RuntimeError, subprocess.SubprocessError) as e:
            print(f"bench_solver.py: error: {e}", file=sys.stderr)
            return 1
        # Its solves run beside ours, on the other core: each is timed by its own CPU time.
        worker = ThreadPoolExecutor(max_workers=1)
        pending = [worker.submit(egaroucid.solve, p[1]) for p in problems]
    try:
        wrong = ffo_rows(args, problems, modes, anchors, totals, pending)
    except (OSError, RuntimeError, ValueError, subprocess.SubprocessError) as e:
        print(f"bench_solver.py: error: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:  # the anchor's solve under way ends with us
        print("\nbench_solver.py: interrupted", file=sys.stderr)
        return 130
    finally:
        if egaroucid is not None:
            egaroucid.stop()
            worker.shutdown(cancel_futures=True)
            totals["cpuegaroucid"] = egaroucid.cpu
    for all_best in modes:
        sec, nodes = totals[f"seconds{all_best}"], int(totals[f"nodes{all_best}"])
        print(
            f"total, {'every best move' if all_best else 'one best move'}: {sec:.2f} s, {nodes:,d} nodes, "
            f"{nodes / sec / 1e6:.2f} M nodes/s"
        )
    print(f"{wrong} wrong")
    for name, path in anchors.items():
        if path is not None:
            print(f"{name}: {anchor_total(name, totals, len(problems))}, {anchor_ratio(name, totals)}")
    if not wrong:
        figures = solver_figures(args, totals, modes, anchors)
        record_if_asked(args, figures, None if argv is None else ["bench_solver.py", *argv])
    return 1 if wrong else 0


def ffo_rows(
    args: argparse.Namespace,
    problems: list[tuple[int, str, dict[str, int]]],
    modes: list[bool],
    anchors: dict[str, Path | None],
    totals: dict[str, float],
    egaroucid: list[Future[tuple[float, int, int] | None]],
) -> int:
    """Solve ``problems`` in each of ``modes`` and time each anchor on them,
    printing a row a position and adding to ``totals``.

    Returns:
        how many of our solves were wrong or not done within ``--cap``.

    ``egaroucid`` holds Egaroucid's solves, under way beside ours: a row waits
    for its solve to be printed, but ours go on meanwhile, so that the run
    takes the longer of the two, not the longer of each position's."""
    wrong = 0
    waiting: deque[tuple[int, str, float, int]] = deque()  # (row, line so far, our seconds, known score)

    def print_ready(block: bool) -> None:
        while waiting and (block or not egaroucid or egaroucid[waiting[0][0]].done()):
            row, line, ours, known = waiting.popleft()
            if egaroucid:
                line += anchor_cells("egaroucid", egaroucid[row].result(), ours, known, totals, args)
            print(line, flush=True)

    for row, (number, position, moves) in enumerate(problems):
        state = GameState.from_string(position.replace("-", "."))
        known = max(moves.values())
        line = f"{number:>3} {state.num_empty():>5}"
        one_best_seconds = 0.0
        for all_best in modes:
            start = time.process_time()
            if args.command:
                solution = solve_by_command(position, all_best, args.cap)
            else:
                solution = Solver().solve(state, scoring="wof", time_limit=args.cap, all_best=all_best)  # a fresh table
            seconds = time.process_time() - start
            if solution is None:
                line += f" | not solved in {args.cap:g} s"
                wrong += 1
                continue
            best = ",".join(square_name(a) for a in solution.best_actions)
            ok = solution.score == known and all(moves.get(square_name(a)) == known for a in solution.best_actions)
            if all_best:
                ok = ok and len(solution.best_actions) == sum(v == known for v in moves.values())
            else:
                line += f" {solution.score:>+5d} {known:>+5d}"
                one_best_seconds = seconds
            wrong += not ok
            totals[f"seconds{all_best}"] += seconds
            totals[f"nodes{all_best}"] += solution.nodes
            line += f" | {best:>8} {seconds:>8.3f} {solution.nodes:>13,d} {solution.nodes / seconds / 1e6:>6.2f}"
            line += "" if ok else "  WRONG"
        if anchors["zebra"] is not None:
            line += anchor_cells("zebra", run_zebra(anchors["zebra"], position), one_best_seconds, known, totals, args)
        waiting.append((row, line, one_best_seconds, known))
        print_ready(block=False)
    print_ready(block=True)
    return wrong


def anchor_cells(
    name: str,
    solved: tuple[float, int, int] | None,
    ours: float,
    known: int,
    totals: dict[str, float],
    args: argparse.Namespace,
) -> str:
    """An anchor's cells of a row (``solved``: its seconds, nodes and score, or None
    if its cap stopped it; ``ours``: our one-best-move seconds), added to ``totals``."""
    if solved is None:
        cap = args.egaroucid_cap or args.cap
        totals[f"unsolved{name}"] += 1
        return f" | {'not solved in ' + format(cap, 'g') + ' s':>47}"
    seconds, nodes, score = solved
    totals[f"seconds{name}"] += seconds
    totals[f"nodes{name}"] += nodes
    rate, ratio = (f"{nodes / seconds / 1e6:.2f}", f"{ours / seconds:.2f}") if seconds >= 1e-3 else ("-", "-")
    cells = f" | {seconds:>11.3f} {nodes:>13,d} {rate:>6} {score:>+5d} {ratio:>6}"
    return cells + ("" if score == known else "  WRONG")


def anchor_total(name: str, totals: dict[str, float], count: int) -> str:
    """An anchor's CPU seconds on the positions, and its nodes a second, from
    ``totals``; with the positions it did not end, a lower bound."""
    sec = totals.get(f"cpu{name}", totals[f"seconds{name}"])
    unsolved = int(totals[f"unsolved{name}"])
    if unsolved:
        return f"over {sec:.2f} s ({unsolved} of {count} not ended within the cap)"
    return f"{sec:.2f} s, {totals[f'nodes{name}'] / max(sec, 1e-9) / 1e6:.1f} M nodes/s"


def anchor_ratio(name: str, totals: dict[str, float], ours: float | None = None) -> str:
    """Our one-best-move time (``ours``, by default the total's) over the
    anchor's, an upper bound where the anchor did not end every position."""
    ours = totals["secondsFalse"] if ours is None else ours
    sec = totals.get(f"cpu{name}", totals[f"seconds{name}"])
    bound = "under " if totals[f"unsolved{name}"] else ""
    return f"time {bound}{ours / max(sec, 1e-9):.2f}x {name.capitalize()}'s"


def solver_figures(
    args: argparse.Namespace, totals: dict[str, float], modes: list[bool], anchors: dict[str, str | None]
) -> list[Figure]:
    """The FFO totals as rows of the benchmarks page: CPU seconds and nodes a second of each
    mode, the one-best-move one beside each anchor's CPU time on the same positions."""
    figures = []
    for all_best in modes:
        seconds, nodes = totals[f"seconds{all_best}"], totals[f"nodes{all_best}"]
        what = "every best move" if all_best else "the score and one best move"
        measured = [] if all_best else [name for name, path in anchors.items() if path is not None]
        anchor_text = [
            f"{name.capitalize()}: {anchor_total(name, totals, args.last - args.first + 1)}" for name in measured
        ]
        ratio_text = [anchor_ratio(name, totals, seconds) for name in measured]
        figures.append(
            Figure(
                f"solver.ffo-{args.first}-{args.last}{'-all-best' if all_best else ''}",
                f"FFO #{args.first}-#{args.last} solved exactly, {what}, CPU seconds",
                f"{seconds:.2f} s, {nodes / seconds / 1e6:.1f} M nodes/s",
                "; ".join(anchor_text),
                "; ".join(ratio_text),
            )
        )
    return figures


if __name__ == "__main__":
    sys.exit(main())
