"""The opening book's gain at equal time: a player with its book against the same player without it.

``--player SPEC`` (default ``mcts:time=0.2``) with the package's book (``book=1``, or
``--book FILE``) meets ``SPEC,book=0`` from the standard start, colours swapped every game,
the same seconds a move for both (with ``clock=SECONDS``, the same seconds a game: the
book's moves save the booked side's clock for the search after it). Every game goes
through ``agents.play.match.play_game``.
With ``--opening-plies N`` the games start instead from openings of N random plies
through the book (each a move to a position the book holds), each opening twice, colours
swapped: from the start two players repeat few lines, and a match scores a handful of
games many times over.
The table gives the booked player's score with its Wilson 95 % interval, the unbooked
player's score in the same games (the anchor) and the ratio of the two, the book moves
a game, each side's mean seconds a move and how many games differ other than by a symmetry
of the board (``distinct``). A deterministic book answers the same line every game: the
games differ by the timed searches after it.

    python benchmarks/bench_book.py --games 20
    python benchmarks/bench_book.py --player alphabeta:time=0.2 --games 40 --record
    python benchmarks/bench_book.py --player mcts:clock=6 --games 100
    python benchmarks/bench_book.py --games 160 --opening-plies 4
"""

from __future__ import annotations

import argparse
import os
import sys

from record import Figure, add_record_options, check_record_file, record_if_asked
from tqdm import tqdm

from agents.arena.openings import Opening, random_openings
from agents.arena.ratings import wilson_interval
from agents.limits import MAX_OPENING_PLIES
from agents.play.match import play_game
from agents.play.specs import SpecError, make_agent, parse_spec, with_option
from agents.search.book import Book, load_book
from agents.ui.options import bounded_int, player_spec, seed_int
from reversi_env.notation import parse_action
from reversi_env.state import GameState
from reversi_env.symmetry import canonical_game


def book_plies(moves: list[str], book: Book, seat: int, start: GameState) -> int:
    """How many of ``seat``'s moves in the game ``moves`` from ``start`` were played in a position of ``book``."""
    state, count = start, 0
    for word in moves:
        if state.player == seat and book.scores(state) is not None:
            count += 1
        state = state.apply(parse_action(word))
    return count


def main() -> None:
    """Play the match and print the table."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--player", type=player_spec, default="mcts:time=0.2", help="the player (default mcts:time=0.2)"
    )
    parser.add_argument("--book", metavar="FILE", help="the book the booked side plays from (default: the package's)")
    parser.add_argument("--games", type=int, default=20, help="games, an even number (default 20)")
    parser.add_argument("--seed", type=seed_int, default=0, help="seed of the openings and players (default 0)")
    parser.add_argument(
        "--opening-plies",
        type=bounded_int(0, MAX_OPENING_PLIES),
        default=0,
        metavar="N",
        help="start from openings of N random plies through the book, each twice (default 0: the start)",
    )
    add_record_options(parser)
    args = parser.parse_args()
    check_record_file(parser, args)
    if args.games < 2 or args.games % 2:
        parser.error("--games must be a positive even number")
    try:
        booked = with_option(args.player, "book", args.book or "1")
        bare = with_option(args.player, "book", "0")
        book = load_book(args.book)
        make_agent(booked, 0, seed=args.seed)  # compile, and a spec that cannot be built fails before any game
        openings = [Opening()] * (args.games // 2)
        if args.opening_plies:
            in_book = lambda state: book.scores(state) is not None  # noqa: E731
            openings = random_openings(args.games // 2, args.opening_plies, args.seed, keep=in_book)
    except (SpecError, ValueError) as e:
        parser.error(str(e))
    print(f"load average before: {os.getloadavg()}")
    wins = draws = losses = plies = 0
    games: set[tuple[int, ...]] = set()
    seconds = {True: [0.0, 0], False: [0.0, 0]}
    for game in tqdm(range(args.games), unit="game", file=sys.stderr):
        seat = game % 2  # the booked side plays black in even games
        opening = openings[game // 2]
        start = opening.state()
        specs = (booked, bare) if seat == 0 else (bare, booked)
        black = make_agent(specs[0], 0, seed=args.seed + game)
        white = make_agent(specs[1], 1, seed=args.seed + game + 1)
        result = play_game(black, white, time_limit=None, start=start)
        margin = result.disc_difference if seat == 0 else -result.disc_difference
        wins += margin > 0
        draws += margin == 0
        losses += margin < 0
        plies += book_plies(result.moves, book, seat, start)
        games.add(canonical_game([parse_action(m) for m in (*opening.moves, *result.moves)]))
        for ply, spent in enumerate(result.times):
            side = seconds[(ply + start.player) % 2 == seat]
            side[0] += spent
            side[1] += 1
    n = args.games
    score = wins + 0.5 * draws
    lo, hi = wilson_interval(score, n)
    anchor = n - score
    ratio = f"{score / anchor:.2f}x" if anchor else "inf"
    mean = {side: total / max(count, 1) for side, (total, count) in seconds.items()}
    print(f"load average after: {os.getloadavg()}")
    where = f"from {args.opening_plies}-ply openings through the book" if args.opening_plies else "from the start"
    print(f"{booked} against {bare}, {n} games {where}, colours swapped")
    print(
        "| booked side | W-D-L | score | 95 % interval | anchor (no book) | ratio | book moves a game | s a move "
        "| distinct |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    print(
        f"| {booked} | {wins}-{draws}-{losses} | {100 * score / n:.1f}% | {100 * lo:.1f}% - {100 * hi:.1f}% "
        f"| {100 * anchor / n:.1f}% | {ratio} | {plies / n:.1f} | {mean[True]:.3f} vs {mean[False]:.3f} "
        f"| {len(games)} |"
    )
    budget = "equal time a game" if "clock" in parse_spec(args.player).options else "equal time a move"
    figure = Figure(
        f"book.gain-{args.player}" + (f"-openings-{args.opening_plies}" if args.opening_plies else ""),
        f"{args.player} with the book against without, {n} games ({len(games)} distinct) {where}, {budget}",
        f"{100 * score / n:.1f}% ({100 * lo:.1f}-{100 * hi:.1f}%)",
        f"no book: {100 * anchor / n:.1f}%",
        ratio,
    )
    record_if_asked(args, [figure])


if __name__ == "__main__":
    main()
