"""The ``reversi play`` and ``reversi gui`` options (their commands: ``play_cli``)."""

from __future__ import annotations

import argparse
from typing import Any

from agents.play.specs import SPEC_HELP
from agents.ui.options import (
    add_clock_option,
    add_rule_options,
    add_think_time_option,
    deferred,
    player_spec,
    seed_int,
)

PLAY_EPILOG = f"""\
player specs: {SPEC_HELP}

At your turn type a square (D3 or d3), "hint" for an MCTS suggestion, "help",
"undo" to take back your last move, "resign", or Q to quit (the game is then
scored by the discs on the board). A forced pass is played for you. End of
input or Ctrl-C ends the game cleanly.
Every move, yours too, has 60 seconds (the course's rule; the prompt shows the
time left): --time-limit SECONDS changes it, --time-limit off lifts it.

examples:
  reversi play --black human --white mcts --time 5
  reversi play --black alphabeta:4 --white mcts:sims=5000 --save game.json
  reversi play --black classic:my_player.py:AIPlayer --white random
  reversi play --load game.json                     resume a saved game
  reversi play --start f5d6c3 --white mcts:c=1.4,iters=50
  reversi play --save game.ggf                      save as GGF (.txt: a transcript, else JSON)
"""


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
    add_think_time_option(play)
    add_rule_options(play)
    add_clock_option(play)
    play.add_argument("--seed", type=seed_int, default=None, help="seed for the agents that take one")
    play.add_argument(
        "--save", metavar="FILE", help="write the game record: FILE.ggf as GGF, FILE.txt a transcript, else JSON"
    )
    opening = play.add_mutually_exclusive_group()
    opening.add_argument(
        "--load", metavar="FILE", help="resume the game saved in FILE (JSON, GGF or a transcript) with these players"
    )
    opening.add_argument(
        "--start",
        metavar="POSITION",
        help="start from a transcript (f5d6c3) or a board: 64 characters X/O/. from A1 to H8, then X or O to move "
        "(a board that starts with - needs --start=...)",
    )
    play.set_defaults(func=deferred("agents.ui.play_cli", "play_command"))

    gui = sub.add_parser(
        "gui", help="play in a window", description="Play in a window (pygame) under the tournament rules."
    )
    gui.add_argument(
        "--ai", type=player_spec, default="mcts:time=1", metavar="SPEC", help="the AI opponent (default mcts:time=1)"
    )
    gui.add_argument("--human", choices=("black", "white"), default="black", help="your colour (default black)")
    gui.add_argument(
        "--mode",
        choices=("ai", "humans", "demo"),
        default="ai",
        help="you against the AI (default), two people, or the AI against itself",
    )
    add_rule_options(gui)
    add_clock_option(gui)
    gui.add_argument("--seed", type=seed_int, default=None, help="seed for the AI")
    gui.add_argument(
        "--save", default="reversi-game.json", metavar="FILE", help="where Save writes (default reversi-game.json)"
    )
    gui_opening = gui.add_mutually_exclusive_group()
    gui_opening.add_argument("--load", metavar="FILE", help="continue the game saved in FILE")
    gui_opening.add_argument("--start", metavar="POSITION", help="start from a transcript or a board (see play)")
    gui.set_defaults(func=deferred("agents.ui.play_cli", "gui_command"))
