"""Where players give discs away before the endgame: the moves of recorded
games scored by a deeper search, phase by phase.

``bench_solver.py --errors`` scores endgame moves exactly; above about 24
empty squares only a deeper search can say what a move gave away. Every
position of the games (``reversi arena``'s or ``bench_engine.py``'s ``--out``)
with ``--empties MIN MAX`` empty squares and a choice of moves (with
``--mover NAME``, where a player whose name holds NAME moved), every
``--every``-th of them, has each legal move scored by the reference: Zebra
(``--zebra PATH``, built from its sources, GPL, never part of this repository,
as ``bench_engine.py`` says) at ``--zebra-levels``, or else our alpha-beta
search to ``--depth`` with the learned evaluation (every move's value at that
depth, full width; exact once the depth reaches the end). A move's error is
the best move's score less its own, in discs for the mover.

The table has a row for each player of the games, as it played (its tree or
table from the moves before included), and for each ``--players SPEC``
(``reversi play``'s specs), which plays every position afresh (seed 0, no
search kept from one position to the next): the moves, the discs given away
a move and the share of best moves, by ten empty squares. A reference of the
same family as a player favours it (Zebra's moves agree with a deeper Zebra
more than with the truth), so compare players scored by one reference, not
references. ``--cache FILE`` keeps the reference's scores (JSON Lines, read
as data) so the next run scores only new positions.

``--book [FILE]`` scores an opening book (the package's, or FILE) instead of
games: its positions reached from the start by moves into the book, each once
up to symmetry, breadth first, with the book's move as the one "played"; the
``--players`` then show what the book gains over their own moves in its
positions (the book's row against theirs, in discs a move).

    python benchmarks/move_errors.py GAMES... --zebra /tmp/zebra/zebra [--zebra-levels 18 24 24] --every 8
    python benchmarks/move_errors.py GAMES... --mover mcts --empties 41 60 --players mcts:time=0.5 --cache ref.jsonl
    python benchmarks/move_errors.py GAMES... --depth 8 --jobs 2
    python benchmarks/move_errors.py --book --every 8 --players mcts:time=0.2 --zebra PATH --zebra-levels 16 22 24
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from bench_engine import zebra_search
from bench_solver import fresh_agent, recorded_moves
from tqdm import tqdm

from agents.play.gtp_connection import EngineError
from agents.play.specs import SpecError
from agents.search.alphabeta import iterative_deepening
from agents.search.alphabeta_agent import MAX_DEPTH
from agents.search.book import Book, load_book, state_key
from agents.search.endgame import Solver
from agents.search.evaluation import DISC
from agents.search.patterns import pattern_evaluation
from agents.search.tt import new_table
from agents.ui.options import bounded_int
from reversi_env import BLACK, GameState
from reversi_env.notation import action_name, parse_action
from reversi_env.observation import observe

BAND = 10
"""The table's phases: ten empty squares each."""

Scores = dict[int, float]
"""Every legal move's score (discs, for the mover) by its action."""

Position = tuple[str, GameState, int, "str | None"]
"""A position to score: the mover's name, the position, the move played and
the game's moves before it from the standard start (``recorded_moves``)."""

Reference = tuple[str, Callable[[GameState, "str | None"], Scores]]
"""A reference search: its name, and every legal move's score of a position
(given the moves before it)."""


def positions_to_score(paths: list[Path], empties: tuple[int, int], every: int, mover: str = "") -> list[Position]:
    """Every ``every``-th position of the games (``recorded_moves``) with a
    choice of moves and empties in range, where a player whose name holds
    ``mover`` moved."""
    found = [
        (name, state, parse_action(move), played)
        for name, state, move, played in recorded_moves(paths)
        if empties[0] <= state.num_empty() <= empties[1] and mover in name and len(state.legal_actions()) > 1
    ]
    return found[::every]


def book_positions(book: Book, empties: tuple[int, int], every: int) -> list[Position]:
    """Every ``every``-th position of ``book`` reached from the start by moves into
    the book (breadth first, each once up to symmetry) with a choice of moves and
    empties in range, its move the book's."""
    found: list[Position] = []
    seen: set[object] = set()
    layer = [(GameState.initial(), "")]
    while layer:
        following = []
        for state, played in layer:
            key = state_key(state)[0]
            move = book.move(state)
            if key in seen or move is None:
                continue
            seen.add(key)
            if empties[0] <= state.num_empty() <= empties[1] and len(state.legal_actions()) > 1:
                found.append(("book", state, move, played))
            following += [(state.apply(a), played + action_name(a).lower()) for a in state.legal_actions()]
        layer = following
    return found[::every]


def our_reference(depth: int) -> Reference:
    """Our search to ``depth`` with the learned evaluation, every move's value (exact near the end)."""
    evaluation = pattern_evaluation()

    def scores(state: GameState, _: str | None) -> Scores:
        if state.num_empty() <= depth:
            return {a: float(v) for a, v in Solver().score_all(state).items()}
        p, o = state.kernel_boards()
        root = iterative_deepening(
            p, o, state.legal_actions(), new_table(1 << 20), evaluation, max_depth=depth, exact_all=True
        )[0]
        return {a: v / DISC for a, v in root.scores.items()}

    return f"alphabeta depth {depth}", scores


def zebra_reference(path: Path, levels: tuple[int, int, int]) -> Reference:
    """Zebra at ``levels`` on the position after each move (its score negated
    unless the opponent must pass; a move that ends the game scores its result)."""

    def scores(state: GameState, played: str | None) -> Scores:
        assert played is not None  # main refuses games from a set position first
        out = {}
        for action in state.legal_actions():
            child = state.apply(action)
            if child.is_terminal():
                out[action] = float(child.disc_difference() * (1 if state.player == BLACK else -1))
                continue
            after = played + action_name(action).lower()
            _, value = zebra_search(path, levels, after)
            if value is None:
                raise EngineError(f"zebra -l {' '.join(map(str, levels))}: only the outcome after {after!r}")
            out[action] = value if child.player == state.player else -value
        return out

    return "zebra -l {} {} {}".format(*levels), scores


def reference_scores(
    positions: list[Position],
    reference: Reference,
    cache: Path | None,
    jobs: int,
) -> list[Scores]:
    """The reference's scores of every position, from ``cache`` where it has
    them (the rest are searched, ``jobs`` at a time, and appended to it)."""
    name, score = reference
    known: dict[str, Scores] = {}
    if cache is not None and cache.exists():
        for number, text in enumerate(cache.read_text().splitlines(), 1):
            try:
                row = json.loads(text)
                if row["reference"] == name:
                    known[row["position"]] = {int(a): float(v) for a, v in row["scores"].items()}
            except (ValueError, KeyError, TypeError, AttributeError):
                raise ValueError(f"--cache {cache}:{number}: not a line this benchmark wrote") from None
    for _, state, _, _ in positions:
        if state.compact() in known and set(known[state.compact()]) != set(state.legal_actions()):
            raise ValueError(f"--cache {cache}: the scores of {state.compact()!r} are not those of its moves")
    todo = list({s.compact(): (s, played) for _, s, _, played in positions if s.compact() not in known}.values())
    with ThreadPoolExecutor(jobs) as pool, tqdm(total=len(todo), desc=f"scoring by {name}", file=sys.stderr) as bar:
        for (state, _), found in zip(todo, pool.map(lambda job: score(*job), todo), strict=True):
            known[state.compact()] = found
            if cache is not None:
                row = {"reference": name, "position": state.compact(), "scores": {str(a): v for a, v in found.items()}}
                with cache.open("a") as f:
                    f.write(json.dumps(row) + "\n")
            bar.update()
    return [known[state.compact()] for _, state, _, _ in positions]


def player_moves(spec: str, positions: list[Position]) -> Iterator[tuple[int, float]]:
    """``spec``'s move in every position, built afresh each time (``fresh_agent``), and its seconds."""
    for _, state, _, _ in tqdm(positions, desc=spec, file=sys.stderr):
        with fresh_agent(spec, state.player) as agent:
            start = time.perf_counter()
            move = agent.act(observe(state, state.player))
            yield move, time.perf_counter() - start


def table(rows: dict[str, dict[int, list[float]]], low: int, high: int) -> None:
    """Print each player's moves, discs given away a move and share of best moves, by phase
    (ten empty squares, cut to ``low``-``high``)."""
    print(f"{'player':<40} {'empties':>7} {'moves':>6} {'discs a move':>12} {'best':>5} {'s/move':>7}")
    for name, phases in rows.items():
        for phase in sorted(phases, reverse=True):
            moves, discs, best, seconds = phases[phase]
            span = f"{max(phase * BAND + 1, low)}-{min(phase * BAND + BAND, high)}"
            shown = f"{seconds / moves:>7.2f}" if seconds else f"{'':>7}"
            print(f"{name[:40]:<40} {span:>7} {int(moves):>6} {discs / moves:>12.2f} {best / moves:>5.0%} {shown}")


def main(argv: list[str] | None = None) -> int:
    """Score the games' moves and the players' by the reference, and print the table."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "games", nargs="*", type=Path, help="results files (reversi arena's or bench_engine.py's --out)"
    )
    parser.add_argument(
        "--book",
        nargs="?",
        const="",
        metavar="FILE",
        help="score an opening book's moves instead of games (the package's book, or FILE)",
    )
    parser.add_argument(
        "--empties",
        type=int,
        nargs=2,
        default=(25, 60),
        metavar=("MIN", "MAX"),
        help="positions with MIN to MAX empty squares (default 25 60)",
    )
    parser.add_argument("--every", type=int, default=1, help="score every N-th position (default 1: all)")
    parser.add_argument("--mover", default="", metavar="NAME", help="only positions where a player named so moved")
    parser.add_argument(
        "--depth",
        type=bounded_int(1, MAX_DEPTH),
        default=10,
        help=f"our reference's depth, 1 to {MAX_DEPTH} (default 10; not with --zebra)",
    )
    parser.add_argument("--zebra", type=Path, metavar="PATH", help="Zebra as the reference (a built zebra binary)")
    parser.add_argument(
        "--zebra-levels",
        type=int,
        nargs=3,
        default=(18, 24, 24),
        metavar=("MID", "EXACT", "WLD"),
        help="with --zebra: its midgame depth and exact / win-loss-draw solve empties, WLD <= EXACT (default 18 24 24)",
    )
    parser.add_argument(
        "--players",
        nargs="+",
        default=[],
        metavar="SPEC",
        help="players to score on the positions (default: none, only the games' own)",
    )
    parser.add_argument("--jobs", type=int, default=1, help="reference searches at once (default 1)")
    parser.add_argument("--cache", type=Path, metavar="FILE", help="keep the reference's scores here (JSON Lines)")
    args = parser.parse_args(argv)
    if bool(args.games) == (args.book is not None):
        parser.error("give results files or --book, not both")
    low, high = args.empties
    if not 1 <= low <= high <= 60:
        parser.error(f"--empties {low} {high}: expected 1 <= MIN <= MAX <= 60")
    for option, value in (("--every", args.every), ("--jobs", args.jobs)):
        if value < 1:
            parser.error(f"{option} {value}: give 1 or more")
    for spec in args.players:  # built once now, so a bad one fails before the reference's searches
        try:
            with fresh_agent(spec, BLACK):
                pass
        except (SpecError, ValueError) as e:
            parser.error(f"--players: {str(e).splitlines()[0]}")
    if args.zebra is not None:
        _, exact, wld = args.zebra_levels
        if wld > exact:
            parser.error(f"--zebra-levels: WLD {wld} above EXACT {exact} gives outcomes, not the discs moves need")
        if not args.zebra.is_file() or not (args.zebra.parent / "coeffs2.bin").is_file():
            parser.error(f"--zebra {args.zebra}: not a file with coeffs2.bin beside it")
        reference = zebra_reference(args.zebra.resolve(), tuple(args.zebra_levels))
    else:
        reference = our_reference(args.depth)
    try:
        if args.book is not None:
            positions = book_positions(load_book(args.book or None), (low, high), args.every)
        else:
            positions = positions_to_score(args.games, (low, high), args.every, args.mover)
        if not positions:
            where = "the book" if args.book is not None else "the games"
            raise ValueError(f"no position with {low}-{high} empties and a choice of moves in {where}")
        unplayed = next((state for _, state, _, played in positions if played is None), None)
        if args.zebra is not None and unplayed is not None:
            raise ValueError(f"a game from a set position ({unplayed.compact()}): Zebra needs its moves from the start")
        scores = reference_scores(positions, reference, args.cache, args.jobs)
    except (OSError, ValueError, EngineError) as e:
        print(f"move_errors: {str(e).splitlines()[0]}", file=sys.stderr)
        return 1
    print(f"{len(positions)} positions with {low}-{high} empties, every move scored by {reference[0]}")
    rows: dict[str, dict[int, list[float]]] = {}

    def add(name: str, empties: int, error: float, seconds: float) -> None:
        row = rows.setdefault(name, {}).setdefault((empties - 1) // BAND, [0, 0.0, 0, 0.0])
        row[0], row[1], row[2], row[3] = row[0] + 1, row[1] + error, row[2] + (error == 0), row[3] + seconds

    for (name, state, move, _), found in zip(positions, scores, strict=True):
        add(f"{name} (as played)", state.num_empty(), max(found.values()) - found[move], 0.0)
    for spec in args.players:
        moves = player_moves(spec, positions)
        try:
            for (_, state, _, _), found, (move, seconds) in zip(positions, scores, moves, strict=True):
                add(spec, state.num_empty(), max(found.values()) - found[move], seconds)
        except (SpecError, EngineError) as error:  # a player that cannot play a position on its own
            print(f"move_errors: --players: {str(error).splitlines()[0]}", file=sys.stderr)
            return 1
    table(rows, low, high)
    return 0


if __name__ == "__main__":
    sys.exit(main())
