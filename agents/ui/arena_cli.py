"""The ``reversi arena`` and ``reversi ratings`` subcommands.

``arena_args.register(subparsers)`` adds both to an argparse CLI; each sets
``func``, which takes the parsed arguments and returns the exit code.

    reversi arena mcts:time=0.2 alphabeta:3 greedy random --games 40 --jobs 2 --out results.jsonl
    reversi arena --resume --out results.jsonl
    reversi ratings results.jsonl --plot ratings.png --anchor random
"""

from __future__ import annotations

import argparse
import importlib.util
import shlex
import sys
from pathlib import Path
from typing import Any

from agents.arena.ratings import Ratings
from agents.arena.tournament import (
    MODES,
    ResultsData,
    Tournament,
    load_openings,
    player_key,
    prepare_results,
    ratings_from_records,
    read_results,
    run_tournament,
)
from agents.cluster import check_reachable
from agents.datafiles import write_text_atomic
from agents.ui.options import unwritable_output


def _fail(command: str, message: object) -> int:
    print(f"reversi {command}: error: {message}", file=sys.stderr)
    return 2


def _report(table: Ratings, args: argparse.Namespace) -> None:
    if args.json == "-":
        print(table.to_json())
    else:
        print(table.table())
        if args.json:
            write_text_atomic(args.json, table.to_json() + "\n")
    if args.plot:
        table.plot(args.plot)
        print(f"ratings picture: {args.plot}", file=sys.stderr)


def compact_table(table: Ratings, width: int = 4) -> str:
    """The standings in one line for a progress bar: ``name Elo (score)``."""
    parts = []
    played = [a for a in table.agents if a.games]
    for a in played[:width]:
        elo = "?" if a.elo is None else f"{a.elo:+.0f}"
        parts.append(f"{a.name} {elo} ({100 * a.score:.0f}%)")
    more = len(played) - width
    return " | ".join(parts) + (f" | +{more} more" if more > 0 else "")


def _tournament_from_args(args: argparse.Namespace) -> Tournament:
    """The tournament the arguments describe (or, for a bare --resume, the file's)."""
    if not args.agents:
        if not args.resume:
            raise ValueError("name at least two agents (player specs), or use --resume --out FILE")
        path = Path(args.out)
        if not path.exists():
            raise ValueError(f"nothing to resume: {path} does not exist")
        data = read_results(path)
        if data.tournament is None:
            raise ValueError(f"{path} has no tournament line: it was not written by the arena")
        risky = data.tournament.runs_code()
        if risky:
            # A file is data: the programs and modules it names are started only when the user names them.
            named = " ".join(shlex.quote(a) for a in data.tournament.agents)
            raise ValueError(
                f"{path} names players that start programs or import code ({', '.join(risky)}); "
                f"a results file never starts them: check them and name the players to resume: "
                f"reversi arena {named} --resume --out {shlex.quote(str(path))} (with the same options)"
            )
        return data.tournament
    openings = load_openings(args.openings) if args.openings else None
    return Tournament.create(
        args.agents,
        mode=MODES[1] if args.gauntlet else MODES[0],
        games=args.games,
        opening_plies=args.opening_plies,
        openings=openings,
        seed=args.seed,
        time_limit=args.time_limit,
        max_illegal=args.max_illegal,
        clock=args.clock,
    )


def _unwritable_reports(command: str, args: argparse.Namespace) -> bool:
    """Whether --plot or --json cannot be written (said in one line), or --plot
    lacks matplotlib: checked before a tournament, not after its last game."""
    for flag, path in (("--plot", args.plot), ("--json", None if args.json == "-" else args.json)):
        if path is not None and unwritable_output(command, flag, path):
            return True
    if args.plot is not None and importlib.util.find_spec("matplotlib") is None:
        _fail(command, "--plot needs matplotlib: pip install 'reversi-env[plot]'")
        return True
    return False


class _ArenaProgress:
    """The arena's two lines on stderr while it plays: a progress bar (games done,
    rate, ETA) and under it the standings. They appear when the tournament starts
    (its players built), not before, and ``close`` ends them."""

    def __init__(
        self, tournament: Tournament, out: Path, *, done: int, total: int, extended: bool, quiet: bool
    ) -> None:
        self.tournament, self.out, self.done, self.total = tournament, out, done, total
        self.extended, self.quiet = extended, quiet
        self.bars: list[Any] = []

    def start(self) -> None:
        """Say what is played and open the two lines."""
        from tqdm import tqdm

        print(
            f"{len(self.tournament.agents)} agents, {self.tournament.mode}, {self.tournament.games} games per "
            f"pairing: {self.total} games ({self.done} already in {self.out}"
            f"{', extending its tournament' if self.extended else ''})",
            file=sys.stderr,
        )
        # Two lines: the bar (games done, rate, ETA) and under it the standings.
        bar = tqdm(
            total=self.total,
            initial=self.done,
            unit="game",
            dynamic_ncols=True,
            disable=self.quiet,
            file=sys.stderr,
            smoothing=0.05,
            position=0,
        )
        # The standings line moves the cursor between the two lines: a terminal's
        # business, not a log file's, so without a terminal the bar goes alone.
        standings = tqdm(
            total=0,
            bar_format="{desc}",
            dynamic_ncols=True,
            disable=self.quiet or not sys.stderr.isatty(),
            file=sys.stderr,
            position=1,
        )
        self.bars[:] = [bar, standings]

    def update(self, n: int, total: int, table: Ratings) -> None:
        """``n`` games of ``total`` done, the standings ``table``."""
        bar, standings = self.bars
        standings.set_description_str(compact_table(table, width=len(table.agents)), refresh=False)
        bar.update(n - bar.n)
        standings.refresh()

    def close(self) -> None:
        """End the lines that were opened (none before ``start``)."""
        for bar in reversed(self.bars):
            bar.close()


def run_arena(args: argparse.Namespace) -> int:
    """``reversi arena``: play (or resume) a tournament, then print the table."""
    if _unwritable_reports("arena", args):
        return 2
    try:
        if args.backend == "ray" and args.address:
            check_reachable(args.address)  # before any work (players built and compiled): ray.init retries for minutes
        tournament = _tournament_from_args(args)
        out = Path(args.out)
        existing = prepare_results(tournament, out, args.resume)
    except (ValueError, OSError) as e:
        return _fail("arena", e)
    done = len(existing.games)
    total = len(tournament.schedule())
    extended = existing.tournament is not None and existing.tournament != tournament
    display = _ArenaProgress(tournament, out, done=done, total=total, extended=extended, quiet=args.no_progress)

    try:
        table = run_tournament(
            tournament,
            out,
            resume=args.resume,
            jobs=args.jobs,
            backend=args.backend,
            address=args.address,
            anchor=args.anchor,
            progress=display.update,
            on_start=display.start,
        )
    except KeyboardInterrupt:
        display.close()
        saved = len(read_results(out).games) if out.exists() else 0
        print(
            f"\ninterrupted: {saved} of {total} games are saved in {out}; "
            f"continue with: reversi arena --resume --out {shlex.quote(str(out))}",
            file=sys.stderr,
        )
        return 130
    except (ValueError, OSError, RuntimeError, ImportError) as e:
        display.close()
        return _fail("arena", e)
    display.close()
    try:
        _report(table, args)
    except (ValueError, OSError, ImportError) as e:
        return _fail("arena", e)
    return 0


def run_ratings(args: argparse.Namespace) -> int:
    """``reversi ratings``: the table of one or more results files."""
    parts: list[ResultsData] = []
    try:
        for f in args.files:
            data = read_results(f)
            if data.truncated and data.tournament is None and not data.games:
                raise ValueError(f"{f}: not a results file of reversi arena")
            if data.truncated:
                print(f"{f}: ignored a half-written last line", file=sys.stderr)
            if data.duplicates:
                print(f"{f}: ignored {data.duplicates} repeated game(s)", file=sys.stderr)
            same = sum(player_key(g["black"]) == player_key(g["white"]) for g in data.games)
            if same:  # an older version let one player in under two spellings
                print(f"{f}: left out {same} game(s) of one player against itself, spelled two ways", file=sys.stderr)
            parts.append(data)
        if not any(p.games for p in parts):
            raise ValueError("no games in " + ", ".join(args.files))
        table = ratings_from_records(parts, args.anchor)
        _report(table, args)
    except (ValueError, OSError, ImportError) as e:
        return _fail("ratings", e)
    return 0
