"""The ``reversi play`` (a game at the terminal) and ``reversi gui`` (the window) subcommands.

Exit status of ``play``: 0 after a game (whoever won), 1 if --save could not
write the record, 2 for a bad command line or a player that cannot be built,
130 after Ctrl-C (the result so far is printed, and saved with --save).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agents.play.datafiles import write_text_atomic
from agents.play.isolation import PlayerStartError, build_player
from agents.play.match import LOSING_REASONS, GameResult, MatchInterrupted, MoveRecord, play_game
from agents.play.specs import SPEC_HELP, SpecError
from agents.ui.options import player_spec, positive_float, positive_int, seed_int, time_limit
from reversi_env.notation import action_name
from reversi_env.state import PLAYER_NAMES, PLAYER_SYMBOLS, GameState

PLAY_EPILOG = f"""\
player specs: {SPEC_HELP}

At your turn type a square (D3 or d3), "hint" for an MCTS suggestion, "help",
or Q to quit (the game is then scored by the discs on the board). A forced
pass is played for you. End of input or Ctrl-C ends the game cleanly.
Every move, yours too, has 60 seconds (the course's rule; the prompt shows the
time left): --time-limit SECONDS changes it, --time-limit off lifts it.

examples:
  reversi play --black human --white mcts --time 5
  reversi play --black alphabeta:4 --white mcts:sims=5000 --save game.json
  reversi play --black classic:my_player.py:AIPlayer --white random
"""


class TerminalDisplay:
    """Prints the board in the classic layout, the counts, the last move, the
    legal moves and each side's last and total thinking time (an ``on_move``)."""

    def __init__(self, names: tuple[str, str], write: Callable[[str], object] = print) -> None:
        """``names`` are the two players' specs, for the side lines."""
        self.names = names
        self.write = write
        self.last = [0.0, 0.0]
        self.total = [0.0, 0.0]
        self.last_move: str | None = None

    def show(self, state: GameState) -> None:
        """The board, the sides and what happens next."""
        lines = str(state).splitlines()[:-1]  # the status line is replaced by the panel below
        b, w = state.score()
        for player, discs in ((0, b), (1, w)):
            lines.append(
                f"{PLAYER_SYMBOLS[player]} {PLAYER_NAMES[player]} ({self.names[player]}): {discs:2d} discs"
                f" | last {self.last[player]:.2f} s | total {self.total[player]:.2f} s"
            )
        if self.last_move:
            lines.append(f"last move: {self.last_move}")
        if not state.is_terminal():
            mover = state.player
            moves = " ".join(action_name(a) for a in state.legal_actions())
            lines.append(f"{PLAYER_SYMBOLS[mover]} ({PLAYER_NAMES[mover]}) to move; legal moves: {moves}")
        self.write("\n".join(lines))

    def on_move(self, move: MoveRecord, state: GameState) -> None:
        """Record the move's time and show the new position."""
        who = f"{PLAYER_SYMBOLS[move.player]} ({PLAYER_NAMES[move.player]})"
        self.last[move.player] = move.seconds
        self.total[move.player] += move.seconds
        if move.forced:
            self.last_move = f"{who} has no legal move and passes"
        else:
            self.last_move = f"{who} played {move.name} in {move.seconds:.2f} s"
        self.write("")
        self.show(state)


def _close(players: list[object]) -> None:
    for p in players:
        close = getattr(p, "close", None)  # external engines end their process
        if callable(close):
            close()


def _finish(result: GameResult, save: str | None) -> int:
    """Print the result and save it; 1 if it could not be saved, else 0."""
    print()
    print(f"Game over: {result.summary()}")
    if result.reason in LOSING_REASONS and result.details:
        print(result.details)
    print(f"transcript: {result.transcript}")
    print(f"thinking time: black {result.black_time:.2f} s, white {result.white_time:.2f} s")
    if save:
        try:
            write_text_atomic(save, result.to_json(indent=2) + "\n")
        except OSError as e:
            print(f"reversi play: cannot save the game to {save}: {e}", file=sys.stderr)
            return 1
        print(f"saved to {save}")
    return 0


def play_command(args: argparse.Namespace) -> int:
    """``reversi play``: one game at the terminal (Ctrl-C anywhere: exit 130, no traceback)."""
    players: list[object] = []
    try:
        return _play(args, players)
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return 130
    finally:
        _close(players)


def _play(args: argparse.Namespace, players: list[object]) -> int:
    specs = (args.black, args.white)
    if args.save and not Path(args.save).expanduser().resolve().parent.is_dir():
        print(f"reversi play: error: --save {args.save}: no such directory", file=sys.stderr)
        return 2
    limit = args.time_limit
    try:
        for color, spec in enumerate(specs):
            player = build_player(spec, color, seed=args.seed, default_time=args.time, time_limit=limit)
            players.append(player)
            if hasattr(player, "wait_ready"):
                player.wait_ready()  # a player that cannot load fails here, in one line
    except (SpecError, PlayerStartError) as e:
        print(f"reversi play: error: {e}", file=sys.stderr)
        return 2
    display = TerminalDisplay(specs)
    print(f"black (X): {specs[0]}    white (O): {specs[1]}")
    if limit is not None:
        print(f"time limit: {limit:g} s per move (--time-limit off lifts it)")
    display.show(GameState.initial())

    def rejected(player: int, text: str) -> None:
        print(text)

    try:
        result = play_game(
            players[0],
            players[1],
            time_limit=limit,
            max_illegal=args.max_illegal,
            on_move=display.on_move,
            on_reject=rejected,
        )
    except MatchInterrupted as e:
        print("\ninterrupted")
        _finish(e.result, args.save)
        return 130
    return _finish(result, args.save)


def gui_command(args: argparse.Namespace) -> int:
    """``reversi gui``: the window."""
    from agents.ui.gui import GuiApp

    try:
        app = GuiApp(ai=args.ai, human=args.human, seed=args.seed)
    except ValueError as e:
        print(f"reversi gui: error: {e}", file=sys.stderr)
        return 2
    return app.run()


def register(sub: Any) -> None:
    """Add the ``play`` and ``gui`` subcommands to an argparse subparsers object."""
    play = sub.add_parser(
        "play",
        help="play a game at the terminal (people, built-in agents, your own players)",
        description="Play one game at the terminal under the tournament rules.",
        epilog=PLAY_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    play.add_argument(
        "--black", type=player_spec, default="human", metavar="SPEC", help="black's player (default human)"
    )
    play.add_argument("--white", type=player_spec, default="mcts", metavar="SPEC", help="white's player (default mcts)")
    play.add_argument(
        "--time",
        type=positive_float,
        default=2.0,
        metavar="SECONDS",
        help="MCTS thinking time per move when its spec sets neither time nor sims (default 2)",
    )
    play.add_argument(
        "--time-limit",
        type=time_limit,
        default=60.0,
        metavar="SECONDS",
        help="a move slower than this loses, humans' too (default 60, the course's rule; 'off' for none)",
    )
    play.add_argument(
        "--max-illegal", type=positive_int, default=3, metavar="N", help="illegal moves at one turn that lose"
    )
    play.add_argument("--seed", type=seed_int, default=None, help="seed for the agents that take one")
    play.add_argument("--save", metavar="FILE", help="write the game record as JSON")
    play.set_defaults(func=play_command)

    gui = sub.add_parser("gui", help="play in a window", description="Play against an AI in a window (pygame).")
    gui.add_argument("--ai", default="mcts:time=1", metavar="SPEC", help="the AI opponent (default mcts:time=1)")
    gui.add_argument("--human", choices=("black", "white"), default="black", help="your colour (default black)")
    gui.add_argument("--seed", type=seed_int, default=None, help="seed for the AI")
    gui.set_defaults(func=gui_command)
