"""Playing strength of our engines against GRhino at every level and the ladder,
side by side with the targets: each engine meets each opponent from random
2-ply openings (``--opening-plies``), every opening twice with the colours
swapped. The column ``distinct`` counts the games that differ other than by a
symmetry of the board: the twelve 2-ply openings are three up to symmetry, and
two deterministic players may replay one game from an opening and from its
mirror image (alpha-beta against GRhino 5, seeds 21 and 22: 31 different games
in 40).

GRhino is Debian's ``grhino`` package (``apt-get install grhino``); it plays at
``-l LEVEL -b 0 -r 0`` (no opening book, no randomness), and ours plays without its own
(``agents.play.specs.without_book``: ``book=0`` where a spec would open from it). Every game goes through
``agents.play.match.play_game``, so our engine meets GRhino exactly as in
``reversi play`` and ``reversi arena``.

With ``--zebra PATH`` (Zebra built from its sources, GPL, never part of this
repository: github lk16/zebra, ``make zebra`` with ``-O2 -fno-strict-aliasing
-fwrapv -fno-aggressive-loop-optimizations``, ``coeffs2.bin`` beside the binary)
it also meets Zebra, a world-class engine, at ``--zebra-levels MID EXACT WLD``
(midgame depth, exact and win/loss/draw solve from that many empties; no book,
no randomness). Zebra is called once a move with the game's moves so far
(``zebra -evalone -seq``); the table's last column, the opponent's seconds a
move, shows how far the levels are from equal time (Zebra's include starting
its process and loading its coefficients, about 0.1 s a move).

    python benchmarks/bench_engine.py --engine alphabeta:time=1 --engine mcts:time=1 --levels 5 --games 20
    python benchmarks/bench_engine.py --engine mcts:time=0.2 --levels 1 2 3 4 5 --ladder --games 10
    python benchmarks/bench_engine.py --engine alphabeta:time=1 --levels --zebra /tmp/zebra/zebra --games 10

``--shard K/N`` plays openings K, K+N, ... of the match only (the same games,
seeds included, as in the whole match), so N copies on N cores play it all.
Every move is timed under ``--time-limit`` (default 60 s, the course's rule)
for both sides, and a slower one loses the game: GRhino level 5 takes up to a
minute or more in some middlegames on a 2-core machine, so the column ``opp
t/o`` counts the games the opponent lost on time; ``--time-limit 600``
plays them out on the board.
``--out FILE`` appends every game to a JSON Lines file as it ends, as
``reversi arena`` records its games (black's and white's specs, the opening,
the transcript, the moves and their times), so a lost game can be replayed,
e.g. against the exact solver with ``reversi analyze``. ``--record`` writes each
pairing's score into docs/benchmarks.md (``record.py``; a shard's are not recorded).
``--tally FILE...`` plays nothing: the same command with the shards' ``--out``
files in place of ``--shard`` and ``--out`` counts the match's games from them,
every one exactly once, and prints (and with ``--record`` records) the table
one run of the whole match would:

    python benchmarks/bench_engine.py --levels --zebra PATH --games 20 --shard 0/2 --out a.jsonl
    python benchmarks/bench_engine.py --levels --zebra PATH --games 20 --shard 1/2 --out b.jsonl
    python benchmarks/bench_engine.py --levels --zebra PATH --games 20 --tally a.jsonl b.jsonl --record

``--resume`` continues the match saved in ``--out``: the games in the file are
counted as they were played and only the others are played (a file already
holding games is refused without it). The openings of a match are the first
of one seeded sequence, so the same command with more ``--games`` extends a
finished match, and a killed one goes on from its last finished game:

    python benchmarks/bench_engine.py --levels --zebra PATH --games 40 --out a.jsonl --resume
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from record import Figure, add_record_options, check_record_file, record_if_asked
from tqdm import tqdm

from agents.arena.ratings import wilson_interval
from agents.arena.tournament import (
    Opening,
    ResultsWriter,
    ScheduledGame,
    build_agent,
    check_specs,
    close_agent,
    make_record,
    random_openings,
    read_results,
)
from agents.base import Agent
from agents.play.gtp import EngineError, MoveTracker
from agents.play.match import GameResult, play_game
from agents.play.specs import make_agent, without_book
from agents.ui.options import bounded_int, player_spec, positive_float, seed_int
from reversi_env.notation import PASS, action_name, parse_action
from reversi_env.observation import Observation
from reversi_env.symmetry import canonical_game

GRHINO = "/usr/games/gtp-rhino"
LADDER = ("positional", "alphabeta:2", "alphabeta:4")
# The engines' target: >= 90 % against GRhino's strongest level at 1 s a move.
TARGETS = {f"gtp:{GRHINO} -l 5 -b 0 -r 0": 0.90}


def zebra_answer(output: str) -> tuple[str, float | None] | None:
    """Zebra's move and score in its ``-evalone`` ``output``, or None if it names
    no move.

    Returns:
        The move (``"f5"``) and the score of its deepest search, in discs for the
        side to move: its last ``-->`` line, since an endgame first prints a
        shallow midgame estimate and a selective search its unfinished values.
        The score is None when that search proved only the outcome (``Win``,
        ``Draw``, ``Loss``: a win/loss/draw search beyond the exact one).
    """
    move = re.search(r"^PV:\s*([a-h][1-8])", output, re.MULTILINE)
    lines = re.findall(r"^-->\s+\S+\s+(\S+)", output, re.MULTILINE)
    if move is None or not lines:
        return None
    value = lines[-1]
    return move.group(1), float(value) if re.fullmatch(r"[-+]?\d+(?:\.\d+)?", value) else None


def zebra_search(path: Path, levels: tuple[int, int, int], moves: str) -> tuple[str, float | None]:
    """Zebra's move and score after ``moves`` (a transcript from the start,
    passes left out), at fixed levels (``-l MID EXACT WLD``, no book, no
    randomness): one ``zebra -evalone -seq`` process. The score is
    ``zebra_answer``'s (None where only the outcome was proved)."""
    level = [str(x) for x in levels]
    args = [str(path), "-quiet", "-l", *level, *level, "-r", "0", "-b", "0", "-evalone"]
    proc = subprocess.run(
        [*args, *(["-seq", moves] if moves else [])], cwd=path.parent, capture_output=True, text=True, timeout=3600
    )
    answer = zebra_answer(proc.stdout) if proc.returncode == 0 else None
    if answer is None:
        raise EngineError(f"zebra -l {' '.join(level)}: no move after {moves!r}: {proc.stdout[-300:]!r}")
    return answer


class Zebra:
    """Zebra as an Agent (``zebra_search``, a process a move)."""

    def __init__(self, path: Path, levels: tuple[int, int, int]) -> None:
        self.path = path
        self.levels = levels
        self.name = "zebra -l {} {} {}".format(*levels)
        self._tracker = MoveTracker(self.name)

    def reset(self) -> None:
        """A new game."""
        self._tracker.reset()

    def act(self, observation: Observation) -> int:
        """Zebra's move in the position shown (a forced move or pass without asking it)."""
        state, _, _ = self._tracker.sync(observation)
        legal = state.legal_actions()
        if len(legal) == 1:
            action = legal[0]
        else:
            moves = "".join(action_name(a).lower() for a in self._tracker.moves if a != PASS)
            found, _ = zebra_search(self.path, self.levels, moves)
            action = parse_action(found)
            if action not in legal:
                raise EngineError(f"{self.name}: illegal move {found} after {moves!r}")
        self._tracker.play(state, action)
        return action


def make_opponent(spec: str, colour: int, seed: int, zebra: Zebra | None, time_limit: float) -> Agent:
    """The opponent ``spec`` names: Zebra (its name), or a player spec built as
    the match runner builds it under ``time_limit`` (a GTP engine's replies may
    take that long, not only GTPEngine's default minute)."""
    if zebra is not None and spec == zebra.name:
        zebra.reset()
        return zebra
    return build_agent(spec, colour, seed, time_limit)


@dataclass
class Tally:
    """One engine against one opponent: wins, draws, losses, disc difference, thinking time."""

    wins: int = 0
    draws: int = 0
    losses: int = 0
    discs: int = 0
    seconds: float = 0.0
    moves: int = 0
    opponent_seconds: float = 0.0
    opponent_moves: int = 0
    opponent_timeouts: int = 0
    seen: set[tuple[int, ...]] = field(default_factory=set)
    """Every game's moves from the standard start, up to the board's symmetries (``canonical_game``)."""

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def points(self) -> float:
        return self.wins + self.draws / 2

    @property
    def distinct(self) -> int:
        """How many of the games differ other than by a symmetry of the board (two deterministic
        players replay one game from an opening and from its mirror image)."""
        return len(self.seen)

    def add(self, result: GameResult, engine_colour: int, opening: Opening) -> None:
        """Count one finished game from ``opening``, our engine playing ``engine_colour`` (0 black)."""
        ours = "black" if engine_colour == 0 else "white"
        if result.winner == ours:
            self.wins += 1
        elif result.winner == "draw":
            self.draws += 1
        else:
            self.losses += 1
        if result.reason == "timeout" and result.loser != ours:
            self.opponent_timeouts += 1
        self.seen.add(canonical_game([parse_action(m) for m in (*opening.moves, *result.moves)]))
        self.discs += result.disc_difference if engine_colour == 0 else -result.disc_difference
        mine = [t for k, t in enumerate(result.times) if k % 2 == engine_colour]
        self.seconds += sum(mine)
        self.moves += len(mine)
        self.opponent_seconds += sum(result.times) - sum(mine)
        self.opponent_moves += len(result.times) - len(mine)


def scheduled_game(engine: str, opponent: str, opening: Opening, seed: int, engine_colour: int) -> ScheduledGame:
    """The game of ``engine`` (played without its book) against ``opponent`` from
    ``opening``, our engine black for ``engine_colour`` 0: its id in the games file."""
    played = without_book(engine)
    black, white = (played, opponent) if engine_colour == 0 else (opponent, played)
    return ScheduledGame(f"{black} vs {white} @ {opening.name}", black, white, opening.name, seed)


def schedule(
    engine: str, opponent: str, openings: list[Opening], seed: int, shard: tuple[int, int]
) -> Iterator[tuple[Opening, int, ScheduledGame]]:
    """The games of ``engine`` against ``opponent`` in shard ``(k, n)``: two from each of
    the openings ``k, k + n, ...`` (opening ``i``'s players seeded ``seed + i``), colours
    swapped, as ``(opening, engine_colour, game)``."""
    k, n = shard
    for i, opening in list(enumerate(openings))[k::n]:
        for engine_colour in (0, 1):
            yield opening, engine_colour, scheduled_game(engine, opponent, opening, seed + i, engine_colour)


def play_pairing(
    engine: str,
    opponent: str,
    openings: list[Opening],
    seed: int,
    time_limit: float,
    zebra: Zebra | None,
    shard: tuple[int, int],
    out: ResultsWriter | None = None,
    recorded: dict[str, GameResult] | None = None,
) -> Tally:
    """The tally of ``engine`` against ``opponent`` over the games ``schedule`` gives:
    each game in ``recorded`` (results by game id) is counted as it was played, each
    other one is played and appended to ``out`` as it ends."""
    tally = Tally()
    recorded = recorded or {}
    games = list(schedule(engine, opponent, openings, seed, shard))
    bar = tqdm(total=len(games), desc=f"{engine} vs {opponent}", leave=False, file=sys.stderr)
    for opening, engine_colour, game in games:
        result = recorded.get(game.game_id)
        if result is None:
            ours = make_agent(game.black if engine_colour == 0 else game.white, engine_colour, seed=game.seed)
            theirs = make_opponent(opponent, 1 - engine_colour, game.seed, zebra, time_limit)
            players = (ours, theirs) if engine_colour == 0 else (theirs, ours)
            started = time.time()
            try:
                result = play_game(players[0], players[1], time_limit=time_limit, start=opening.state())
            finally:
                for p in players:
                    close_agent(p)  # a close that fails (an engine already gone) does not lose the match
            if out is not None:
                out.append(make_record(game, result, started))
        tally.add(result, engine_colour, opening)
        bar.update()
    bar.close()
    return tally


def recorded_results(
    pairings: list[tuple[str, str]],
    openings: list[Opening],
    seed: int,
    shard: tuple[int, int],
    games: dict[str, dict[str, Any]],
) -> tuple[dict[str, GameResult], list[str]]:
    """The results, by game id, of the games in ``games`` (records by id, from ``--out``
    files) that ``play_pairing`` plays for ``pairings`` (engine, opponent) in ``shard``,
    and the ids of the games it plays that ``games`` lacks, in order; ValueError naming
    a game recorded otherwise (another seed or start) or not of this match."""
    games = dict(games)
    results = {}
    missing = []
    for engine, opponent in pairings:
        for opening, _, game in schedule(engine, opponent, openings, seed, shard):
            record = games.pop(game.game_id, None)
            if record is None:
                missing.append(game.game_id)
                continue
            try:
                result = GameResult.from_dict(record.get("result", {}))
            except ValueError as e:
                raise ValueError(f"the game {game.game_id!r}: {e}") from None
            if record.get("seed") != game.seed or result.start_state() != opening.state():
                raise ValueError(f"the game {game.game_id!r} was played with another seed or from another start")
            results[game.game_id] = result
    if games:
        raise ValueError(f"{len(games)} game(s) in the files are not of this match, e.g. {min(games)!r}")
    return results, missing


def read_games(paths: list[Path], repair: bool = False) -> dict[str, dict[str, Any]]:
    """The game records of results files (``--out``), by game id; ValueError naming
    the file for one that cannot be read (``read_results``, which with ``repair`` cuts
    off a half-written last line) or a game in two of them."""
    games: dict[str, dict[str, Any]] = {}
    for path in paths:
        try:
            records = read_results(path, repair=repair).games
        except OSError as e:
            raise ValueError(f"{path}: {e.strerror or e}") from None
        for record in records:
            if record["game_id"] in games:
                raise ValueError(f"{path}: the game {record['game_id']!r} is in an earlier file too")
            games[record["game_id"]] = record
    return games


def main() -> None:
    """Play every engine against every opponent and print the table."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--engine",
        action="append",
        type=player_spec,
        metavar="SPEC",
        help="our engine (repeatable; default alphabeta:time=1 and mcts:time=1)",
    )
    parser.add_argument(
        "--levels",
        type=bounded_int(1, 5),
        nargs="*",
        default=[1, 2, 3, 4, 5],
        help="GRhino levels (1-5; default all five; none: only --ladder / --zebra)",
    )
    parser.add_argument("--ladder", action="store_true", help=f"also play the ladder: {', '.join(LADDER)}")
    parser.add_argument("--games", type=int, default=20, help="games per pairing (even; default 20)")
    parser.add_argument("--seed", type=seed_int, default=0, help="seed of the openings and players (default 0)")
    parser.add_argument(
        "--opening-plies",
        type=int,
        default=2,
        metavar="N",
        help="random plies of each opening (default 2, the yardstick: only 3 openings up to symmetry)",
    )
    parser.add_argument(
        "--time-limit",
        type=positive_float,
        default=60.0,
        help="a move slower than this loses, for either side (default 60, the course's rule; "
        "GRhino 5 can take longer, so give 600 to see every game played out on the board)",
    )
    parser.add_argument(
        "--shard",
        default="0/1",
        metavar="K/N",
        help="play only openings K, K+N, ... of the match (N copies, K = 0..N-1, on N cores play it all; default 0/1)",
    )
    parser.add_argument("--zebra", type=Path, metavar="PATH", help="also play Zebra (a built zebra binary)")
    parser.add_argument("--out", type=Path, metavar="FILE", help="append every game to this JSON Lines file")
    parser.add_argument(
        "--resume",
        action="store_true",
        help="continue the match saved in --out: its games are counted, not played again "
        "(after an interrupted run, or with more --games)",
    )
    parser.add_argument(
        "--tally",
        type=Path,
        nargs="+",
        metavar="FILE",
        help="play nothing: count this match's games from --out files (e.g. its shards'), as one run would",
    )
    parser.add_argument(
        "--zebra-levels",
        type=bounded_int(0, 60),
        nargs=3,
        default=(10, 18, 20),
        metavar=("MID", "EXACT", "WLD"),
        help="Zebra's midgame depth and exact / win-loss-draw solve empties (default 10 18 20)",
    )
    add_record_options(parser)
    args = parser.parse_args()
    check_record_file(parser, args)
    engines = args.engine or ["alphabeta:time=1", "mcts:time=1"]
    if args.games < 2 or args.games % 2:
        parser.error("--games must be a positive even number")
    try:
        openings = random_openings(args.games // 2, args.opening_plies, args.seed)
    except ValueError as e:
        parser.error(f"--opening-plies {args.opening_plies}: {e}")
    match = re.fullmatch(r"(\d+)/(\d+)", args.shard)
    if match is None or not 0 <= int(match[1]) < int(match[2]):
        parser.error(f"--shard {args.shard}: expected K/N with 0 <= K < N, e.g. 1/2")
    shard = (int(match[1]), int(match[2]))
    if shard[0] >= len(openings):
        parser.error(f"--shard {args.shard}: {len(openings)} opening(s) in {args.games} games, so K must be below that")
    try:
        check_specs(engines, args.time_limit)  # a spec that parses but cannot be built fails before any game
    except ValueError as e:
        parser.error(f"--engine: {e}")
    if args.tally and (shard != (0, 1) or args.out is not None):
        parser.error("--tally counts a whole match from its files: not with --shard or --out")
    if args.resume and args.out is None:
        parser.error("--resume continues the match saved in --out FILE: give --out")
    if args.out is not None and not args.resume and args.out.is_file() and args.out.stat().st_size:
        parser.error(
            f"--out {args.out} already holds games: pass --resume to continue its match, or choose another file"
        )
    opponents = []
    if args.levels:
        if shutil.which(GRHINO) is None and not args.tally:
            parser.error(f"{GRHINO} not found: apt-get install grhino (or pass --levels with nothing after it)")
        opponents += [f"gtp:{GRHINO} -l {level} -b 0 -r 0" for level in args.levels]
    if args.ladder:
        opponents += list(LADDER)
    zebra = None
    if not opponents and args.zebra is None:
        parser.error("no opponent: give --levels, --ladder or --zebra")
    if args.zebra is not None:
        if not args.tally and (not args.zebra.is_file() or not (args.zebra.parent / "coeffs2.bin").is_file()):
            parser.error(f"--zebra {args.zebra}: not a file with coeffs2.bin beside it")
        zebra = Zebra(args.zebra.resolve(), tuple(args.zebra_levels))
        opponents.append(zebra.name)
    pairings = [(e, o) for e in engines for o in opponents]
    recorded: dict[str, GameResult] = {}
    if args.tally or (args.resume and args.out.exists()):
        try:
            games = read_games(args.tally) if args.tally else read_games([args.out], repair=True)
            recorded, missing = recorded_results(pairings, openings, args.seed, shard, games)
        except ValueError as e:
            parser.error(f"{'--tally' if args.tally else '--resume'}: {e}")
        if args.tally and missing:
            parser.error(
                f"--tally: {len(missing)} of {len(recorded) + len(missing)} games are in none of the files, "
                f"e.g. {missing[0]!r}"
            )
    try:
        out = ResultsWriter(args.out) if args.out is not None else None
    except OSError as e:
        parser.error(f"--out {args.out}: {e.strerror}")
    part = "" if shard == (0, 1) else f", shard {args.shard}: openings {shard[0]}, {shard[0] + shard[1]}, ..."
    print(
        f"{args.games} games a pairing from {args.opening_plies}-ply random openings, colours swapped, "
        f"seed {args.seed}{part}"
    )
    header = (
        f"{'engine':<22} {'opponent':<34} {'W-D-L':>9} {'score':>7} {'95% CI':>15} {'target':>7} "
        f"{'discs':>6} {'s/move':>7} {'opp s/move':>10} {'opp t/o':>7} {'distinct':>8}"
    )
    print(header)
    print("-" * len(header))
    figures: list[Figure] = []
    for engine, opponent in pairings:
        start = time.perf_counter()
        t = play_pairing(engine, opponent, openings, args.seed, args.time_limit, zebra, shard, out, recorded)
        lo, hi = wilson_interval(t.points, t.games)
        target = TARGETS.get(opponent)
        shown = opponent.replace(f"gtp:{GRHINO}", "gtp-rhino")
        print(
            f"{engine:<22} {shown:<34} {f'{t.wins}-{t.draws}-{t.losses}':>9} {t.points / t.games:>6.1%} "
            f"{f'{lo:.0%}-{hi:.0%}':>15} {f'{target:.0%}' if target else '':>7} {t.discs / t.games:>+6.1f} "
            f"{t.seconds / max(t.moves, 1):>7.2f} {t.opponent_seconds / max(t.opponent_moves, 1):>10.2f} "
            f"{t.opponent_timeouts:>7} {t.distinct:>8}",
            flush=True,
        )
        if not args.tally:
            print(f"  ({time.perf_counter() - start:.0f} s)", file=sys.stderr)
        figures.append(pairing_figure(engine, shown, t))
    if out is not None:
        out.close()
    if shard == (0, 1):
        record_if_asked(args, figures)


def pairing_figure(engine: str, opponent: str, t: Tally) -> Figure:
    """A pairing's row of the benchmarks page: the score with its 95 % interval against the
    opponent, and our thinking time a move as a multiple of the opponent's."""
    lo, hi = wilson_interval(t.points, t.games)
    ours = t.seconds / max(t.moves, 1)
    theirs = t.opponent_seconds / max(t.opponent_moves, 1)
    return Figure(
        re.sub(r"[^A-Za-z0-9.=,]+", "-", f"engine.{engine}-vs-{opponent}"),
        f"score of `{engine}` against `{opponent}`, {t.games} games ({t.wins}-{t.draws}-{t.losses})",
        f"{t.points / t.games:.1%} [{lo:.1%}, {hi:.1%}], {ours:.2f} s a move",
        f"{theirs:.2f} s a move",
        f"time {ours / theirs:.2f}x the opponent's" if theirs else "",
    )


if __name__ == "__main__":
    main()
